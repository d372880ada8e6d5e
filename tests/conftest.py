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



def findings(tmp_path: Path, files: dict[str, str], *args: str) -> list[dict[str, Any]]:
    """Write ``files``, run `check --format json` on them; every finding (the run must not fail)."""
    write(tmp_path, files)
    result = run("check", "--format", "json", "--fail-on", "never", *args, str(tmp_path))
    assert "Traceback" not in result.stderr
    assert result.exit_code == 0, result.output + result.stderr
    found: list[dict[str, Any]] = result.json()["findings"]
    return found


@pytest.fixture
def repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A factory writing files into a fresh directory, returning its path."""

    def make(files: dict[str, str]) -> Path:
        return write(tmp_path, files)

    return make


@pytest.fixture(scope="session")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding ``repo``: 400 files from the benchmark generator, made once per test session."""
    import subprocess
    import sys

    where = tmp_path_factory.mktemp("generated")
    generator = Path(__file__).resolve().parents[1] / "bench" / "gen_corpus.py"
    subprocess.run([sys.executable, str(generator), "--files", "400", "--out", str(where / "repo")], check=True,
                   stdout=subprocess.DEVNULL)
    return where
