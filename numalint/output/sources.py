"""The checked files as the renderers see them again: lines for ``--show-source``, the key path under a finding
(for fingerprints), replica counts (for grouping), and paths relative to the repository root.

Files are re-read the way the checker reads them (regular files only, non-blocking, capped); a file that cannot
be read or parsed again simply has no lines or paths: rendering never fails because of it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from numalint.findings import Finding
from numalint.k8s.templates import pod_templates
from numalint.reading.sources import ReadError, decode, read_capped
from numalint.reading.yamlpos import Span, YamlError, YMap, YSeq, load_all


class SourceFiles:
    """Text and YAML trees of the checked inputs, read only when a renderer asks. The given texts (stdin) stay;
    of the files read here only the last few are kept: renderers go through findings file by file, and a
    SARIF report of 20,000 files held every tree at once (~250 MiB)."""

    KEPT = 4  # files read back and kept at once

    def __init__(self, texts: dict[str, str] | None = None) -> None:
        self._given: dict[str, str] = dict(texts or {})
        self._texts: dict[str, str | None] = {}
        self._trees: dict[str, list[tuple[Any, Span]] | None] = {}

    def text(self, path: str) -> str | None:
        if path in self._given:
            return self._given[path]
        if path not in self._texts:
            try:
                text: str | None = decode(read_capped(path))
            except (ReadError, UnicodeDecodeError, OSError, ValueError):
                text = None
            self._texts[path] = text
            _bound(self._texts, self.KEPT)
        return self._texts[path]

    def line(self, path: str, number: int) -> str | None:
        """Line ``number`` (1-based) as numalint counts lines (a line ends at ``\\n``), without its end."""
        text = self.text(path)
        if text is None or number < 1:
            return None
        lines = text.split("\n")
        return lines[number - 1].removesuffix("\r") if number <= len(lines) else None

    def documents(self, path: str) -> list[tuple[Any, Span]]:
        if path not in self._trees:
            text = self.text(path)
            try:
                trees = load_all(text) if text is not None and "{{" not in text else None
            except (YamlError, RecursionError, ValueError, TypeError):
                trees = None
            self._trees[path] = trees
            _bound(self._trees, self.KEPT)
        return self._trees[path] or []

    def key_path(self, finding: Finding) -> str | None:
        """The path of the deepest key whose key or value holds the finding's start (``spec.cpu.reserved``;
        list items by their ``name`` when they have one, else by index)."""
        if finding.key:
            return finding.key
        root = self.document(finding)
        steps = _descend(root, (finding.span.line, finding.span.col)) if root is not None else None
        return ".".join(steps) if steps else None

    def document(self, finding: Finding) -> Any:
        """The tree of the document the finding starts in, None if it is in none (or the file does not parse)."""
        where = (finding.span.line, finding.span.col)
        return next((root for root, span in self.documents(finding.input) if _inside(where, span)), None)

    def replicas(self, finding: Finding) -> int | None:
        """How many pods the finding's workload asks for (replicas, parallelism), as written; None if unknown."""
        obj = finding.obj
        if obj is None or obj.kind in ("Pod", "DaemonSet"):
            return None
        for root, _span in self.documents(finding.input):
            metadata = root.get("metadata") if isinstance(root, dict) else None
            if root.get("kind") == obj.kind and isinstance(metadata, dict) and metadata.get("name") == obj.name \
                    and root.get("apiVersion") == obj.api_version:  # a Volcano Job beside a batch/v1 Job of its name
                templates = pod_templates(obj.api_version, obj.kind, root)
                return next((t.replicas for t in templates if t.part == obj.part), None)
        return None


def _bound(cache: dict[str, Any], size: int) -> None:
    """Forget the oldest entries of ``cache`` beyond ``size`` (dicts keep their order of insertion)."""
    while len(cache) > size:
        del cache[next(iter(cache))]


def _inside(where: tuple[int, int], span: Span) -> bool:
    return (span.line, span.col) <= where < (span.end_line, span.end_col) or where == (span.line, span.col)


def _descend(node: Any, where: tuple[int, int]) -> list[str]:
    steps: list[str] = []
    for _ in range(500):
        if isinstance(node, YMap):
            for key, value in node.items():
                key_span, value_span = node.key_spans.get(key), node.value_spans.get(key)
                if (key_span and _inside(where, key_span)) or (value_span and _inside(where, value_span)):
                    steps.append(str(key))
                    node = value
                    break
            else:
                return steps
        elif isinstance(node, YSeq):
            for index, (item, item_span) in enumerate(zip(node, node.item_spans, strict=False)):
                if _inside(where, item_span):
                    name = item.get("name") if isinstance(item, dict) else None
                    steps.append(f"[{name}]" if isinstance(name, str) else f"[{index}]")
                    node = item
                    break
            else:
                return steps
        else:
            return steps
    return steps


def repository_root(paths: list[str], config_path: Path | None) -> str:
    """The root paths are shown relative to in SARIF and GitLab reports: the git repository holding the
    checked paths (a ``.git`` directory or file), else the configuration's directory, else the working
    directory."""
    named = [os.path.abspath(p) for p in paths if p != "-"]
    start = Path(os.path.commonpath(named)) if named else Path.cwd()
    if not start.is_dir():
        start = start.parent
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return str(directory)
    if config_path is not None:
        return str(config_path.resolve().parent)
    return str(Path.cwd())


def relative_to_root(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` with ``/`` separators, or None when it is outside (or stdin)."""
    if path == "-":
        return None
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, root)
    except ValueError:  # another drive
        return None
    if relative == ".." or relative.startswith(".." + os.sep) or os.path.isabs(relative):
        return None
    return relative.replace(os.sep, "/")


_DIGITS = re.compile(r"\d+")


def normalised(message: str) -> str:
    """A message with its numbers blanked: what stays the same when unrelated parts of a file change."""
    return _DIGITS.sub("#", message)
