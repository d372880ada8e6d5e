"""A report never replaces a file the run reads: `check -o deploy.yaml deploy.yaml` (or `-f sarif=` naming a
checked manifest, the configuration file, a node-state file) would leave the user a report where their
configuration was. A report numalint wrote before may be replaced: `check . -o report.json` run again finds
report.json in the directory, and `simulate -o sim.json` likewise."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable

from numalint.reading.sources import read_source

# what the start of each report numalint writes holds (check: json, sarif, gitlab, junit, github, text;
# simulate: json, text, html)
_SIGNATURES = ('"name": "numalint"', '"engine_name": "numalint"', '<testsuites name="numalint"',
               "title=numalint::", "file(s) checked:", '"not_simulated":', "<title>numalint simulate</title>")
# a text report's finding line (`check -q` prints nothing else), the first line of `simulate`'s text
_TEXT_LINES = re.compile(r"^(\S+:\d+:\d+: (error|warning|info) \[[a-z0-9-]+\] |\d+ workload\(s\): )", re.MULTILINE)
_HEAD = 1 << 16


def inputs_overwritten(targets: Iterable[str], inputs: Iterable[str]) -> list[str]:
    """The ``targets`` that are files among ``inputs`` (the same file, through any path or hard link) and hold
    something other than a numalint report."""
    # the inputs are looked at only when a target exists (a run over 20,000 files writing a new report stats
    # none), and an existing target is read only when it is an input (an earlier report may be megabytes)
    existing = [(target, identity) for target in targets if (identity := _identity(target)) is not None]
    if not existing:
        return []
    read = {identity for path in inputs if path != "-" and (identity := _identity(path)) is not None}
    return [target for target, identity in existing if identity in read and not _earlier_report(target)]


def _identity(path: str) -> tuple[int, int] | None:
    """A regular file's device and inode (one stat, links followed); None for anything else."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def _earlier_report(path: str) -> bool:
    """A report numalint wrote: its start carries one of the reports' signatures, and it holds no Kubernetes
    object (a manifest that mentions numalint in a comment is still a manifest)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD)
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - _HEAD))
            ends = (head + b"\n" + handle.read(_HEAD)).decode("utf-8", "replace")  # a text summary comes last
    except OSError:
        return False
    if not ends.strip():
        return True  # empty (`check -q` with nothing to report): nothing to lose
    if not any(signature in ends for signature in _SIGNATURES) and not _TEXT_LINES.search(ends) \
            and ends.strip() != "[]\n[]":
        return False
    return not any(doc.api_version and doc.kind for doc in read_source(path).documents)
