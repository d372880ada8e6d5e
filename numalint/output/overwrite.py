"""A report never replaces a file the run reads: `check -o deploy.yaml deploy.yaml` (or `-f sarif=` naming a
checked manifest) would leave the user a report where their configuration was. A report numalint wrote before
(`check . -o report.json`, run again: report.json is found in the directory) may be replaced."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

from numalint.reading.sources import ReadError, read_capped


def inputs_overwritten(targets: Iterable[str], inputs: Iterable[str]) -> list[str]:
    """The ``targets`` that are files among ``inputs`` (by real path) and hold something other than a numalint
    report."""
    read = {os.path.realpath(path) for path in inputs if path != "-"}
    return [target for target in targets
            if os.path.realpath(target) in read and os.path.isfile(target) and not _numalint_report(target)]


def _numalint_report(path: str) -> bool:
    """A JSON, SARIF or GitLab report as numalint writes them (the other formats are not read as inputs)."""
    try:
        document = json.loads(read_capped(path))
    except (ReadError, ValueError):
        return False
    if isinstance(document, dict):
        if _named(document.get("tool")):  # json
            return True
        runs = document.get("runs")  # sarif
        return isinstance(runs, list) and bool(runs) and all(
            isinstance(run, dict) and isinstance(run.get("tool"), dict) and _named(run["tool"].get("driver"))
            for run in runs)
    # gitlab code quality: a list of issues (empty when nothing was found)
    return isinstance(document, list) and all(
        isinstance(item, dict) and item.get("engine_name") == "numalint" for item in document)


def _named(tool: object) -> bool:
    return isinstance(tool, dict) and tool.get("name") == "numalint"
