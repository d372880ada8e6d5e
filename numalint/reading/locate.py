"""Finding the position of a path inside a located YAML tree."""

from __future__ import annotations

from typing import Any

from numalint.reading.yamlpos import Span, YMap, YSeq

Path = tuple[Any, ...]


def get(root: Any, path: Path, default: Any = None) -> Any:
    """The value at ``path`` or ``default`` when any step is missing or of the wrong type."""
    node = root
    for step in path:
        if isinstance(node, dict) and not isinstance(step, int):
            if step not in node:
                return default
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            node = node[step]
        else:
            return default
    return node


def locate(root: Any, path: Path, key: bool = False) -> Span:
    """Span of the value at ``path`` (or of its key); the deepest existing ancestor otherwise."""
    node = root
    best: Span = root.span if isinstance(root, (YMap, YSeq)) else Span(1, 1, 1, 1)
    for i, step in enumerate(path):
        last = i == len(path) - 1
        if isinstance(node, YMap) and step in node:
            if last:
                return node.key_spans[step] if key else node.value_spans[step]
            best = node.key_spans[step]
            node = node[step]
        elif isinstance(node, YSeq) and isinstance(step, int) and 0 <= step < len(node):
            best = node.item_spans[step]
            if last:
                return best
            node = node[step]
        else:
            return best
    return best


def key_span(root: Any, path: Path) -> Span:
    """Span of the key at ``path`` (where a finding about the whole field points)."""
    return locate(root, path, key=True)


class Locator:
    """The spans of selected paths of a document: small enough to send between processes.

    Views of the many workload documents keep a Locator instead of the whole tree; ``span``
    answers like ``locate`` for every recorded path and falls back to the deepest recorded ancestor.
    """

    __slots__ = ("spans", "fallback")

    def __init__(self, fallback: Span) -> None:
        self.spans: dict[Path, tuple[Span | None, Span]] = {}
        self.fallback = fallback

    def record(self, root: Any, path: Path) -> None:
        node = root
        for i, step in enumerate(path):
            prefix = path[: i + 1]
            if isinstance(node, YMap) and step in node:
                self.spans[prefix] = (node.key_spans[step], node.value_spans[step])
                node = node[step]
            elif isinstance(node, YSeq) and isinstance(step, int) and 0 <= step < len(node):
                self.spans[prefix] = (None, node.item_spans[step])
                node = node[step]
            else:
                return

    def has(self, path: Path) -> bool:
        return path in self.spans

    def span(self, path: Path, key: bool = False) -> Span:
        entry = self.spans.get(path)
        if entry is not None:
            key_span, value_span = entry
            return (key_span or value_span) if key else value_span
        for end in range(len(path) - 1, 0, -1):
            entry = self.spans.get(path[:end])
            if entry is not None:
                return entry[0] or entry[1]
        return self.fallback


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list; an empty list for anything else (wrong types are the schema rule's job)."""
    return value if isinstance(value, list) else []


def as_map(value: Any) -> dict[Any, Any]:
    """``value`` when it is a mapping; an empty dict for anything else."""
    return value if isinstance(value, dict) else {}
