"""Shared helpers: write a small repository and run the real command line on it."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from numalint.cli import main


class Result:
    def __init__(self, exit_code: int, output: str, stderr: str) -> None:
        self.exit_code = exit_code
        self.output = output
        self.stderr = stderr

    def json(self) -> Any:
        return json.loads(self.output)

    def rules(self) -> list[str]:
        return [f["rule"] for f in self.json()["findings"]]


def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> Result:
    import os

    runner = CliRunner()
    old = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        result = runner.invoke(main, list(args), input=stdin, catch_exceptions=False)
    finally:
        os.chdir(old)
    return Result(result.exit_code, result.stdout, result.stderr)


def write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return directory


@pytest.fixture
def repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A factory writing files into a fresh directory, returning its path."""

    def make(files: dict[str, str]) -> Path:
        return write(tmp_path, files)

    return make
