"""Finding the position of a path inside a located YAML tree."""

from __future__ import annotations

from typing import Any

from .yamlpos import Span, YMap, YSeq

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
