"""Finding the position of a path inside a located YAML tree."""

from __future__ import annotations

import sys
from array import array
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
    """The spans of selected paths of a document: small enough to send between processes and to keep for
    every workload of a large repository.

    Views of the many workload documents keep a Locator instead of the whole tree; ``span``
    answers like ``locate`` for every recorded path and falls back to the deepest recorded ancestor.
    The spans are packed in one array of integers (8, 16 or 32 bits): per recorded path, its key's span (zeros
    when it has none, as a list item) and its value's span. Once ``seal`` is called the recorded paths and
    their rows (the layout) are shared with every other locator of the process that recorded the same paths in
    the same order: workloads of one shape keep one index between them.
    """

    __slots__ = ("index", "table", "fallback", "shared", "base")

    def __init__(self, fallback: Span) -> None:
        self.index: dict[Path, int] = {}  # recorded path -> its row in ``table``
        self.table = array("i")
        self.fallback = fallback
        self.shared = False  # ``index`` is a layout of _LAYOUTS (never changed in place)
        self.base = 0  # added to every line of ``table`` but the zeros of a missing key

    def record(self, root: Any, path: Path, start: int = 0) -> Any:
        """Record ``path`` and each of its ancestors below ``path[:start]`` (``root`` is the node at
        ``path[:start]``); returns the node at ``path``, None when the path stops before it."""
        node = root
        for i in range(start, len(path)):
            node = self.child(node, path[:i], path[i])
            if node is None:  # (a null value ends the path as a missing key does)
                return None
        return node

    def child(self, node: Any, path: Path, step: Any) -> Any:
        """Record ``path + (step,)``, ``node`` being the node at ``path`` (recorded already, with its ancestors):
        ``record`` one step further without walking from the root again; returns the node there, None when the
        path stops before it."""
        if isinstance(node, YMap):
            if step in node:
                self._put(path + (step,), node.key_spans[step], node.value_spans[step])
                return node[step]
        elif isinstance(node, YSeq) and isinstance(step, int) and 0 <= step < len(node):
            self._put(path + (step,), _NO_KEY, node.item_spans[step])
            return node[step]
        return None

    def _put(self, path: Path, key: Span, value: Span) -> None:
        if path not in self.index:
            if self.shared:  # recorded again after ``seal``: its own index and a table of absolute lines
                self.index, self.shared = dict(self.index), False
                self.table = array("i", (v + self.base if i % 2 == 0 and v else v for i, v in enumerate(self.table)))
                self.base = 0
            self.index[path] = len(self.table) // _ROW
            self.table.extend((*key, *value))

    def seal(self) -> Locator:
        """Share the layout with the locators that recorded the same paths; the table to its exact size, its
        lines counted from the document's first line, in the smallest integers that hold every value (one byte
        for all but long documents)."""
        self.index, self.shared = _layout(tuple(self.index)), True
        table = self.table
        # a span is (line, col, end line, end col): lines sit at even places; zeros mark a missing key
        lines = table[0::2]
        first = min(filter(None, lines), default=0)
        base = self.fallback.line - 1 if self.base == 0 and first >= self.fallback.line else 0
        if base:  # (slices and list comprehensions: a generator over every value cost a third of a pod's view)
            table[0::2] = array("i", [line - base if line else 0 for line in lines])
        self.base += base
        top = max(table, default=0)
        self.table = array("B" if top < 1 << 8 else "H" if top < 1 << 16 else "i", table)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (tuple(self.index), self.table, self.fallback, self.base)

    def has(self, path: Path) -> bool:
        return path in self.index

    def span(self, path: Path, key: bool = False) -> Span:
        row = self.index.get(path)
        if row is not None:
            return self._span(row, key)
        for end in range(len(path) - 1, 0, -1):
            row = self.index.get(path[:end])
            if row is not None:
                return self._span(row, True)
        return self.fallback

    def _span(self, row: int, key: bool) -> Span:
        """The key's span (the value's when there is no key) or the value's."""
        start = row * _ROW + (0 if key and self.table[row * _ROW] else 4)
        line, col, end_line, end_col = self.table[start:start + 4]
        return Span(line + self.base, col, end_line + self.base, end_col)


_ROW = 8
_NO_KEY = Span(0, 0, 0, 0)
_LAYOUTS: dict[tuple[Path, ...], dict[Path, int]] = {}  # recorded paths in order -> their rows, per process


_STEPS: dict[Path, Path] = {}  # each recorded path once per process, whatever layouts hold it


def _layout(paths: tuple[Path, ...]) -> dict[Path, int]:
    layout = _LAYOUTS.get(paths)
    if layout is None:
        layout = {_STEPS.setdefault(path, path): row for row, path in enumerate(paths)}
        _LAYOUTS[tuple(layout)] = layout
    return layout


def _rebuild(paths: tuple[Path, ...], table: array[int], fallback: Span, base: int) -> Locator:
    """A locator sent by a worker, its layout shared with this process's locators of the same shape."""
    locator = Locator(fallback)
    locator.index, locator.shared, locator.table, locator.base = _layout(paths), True, table, base
    return locator


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list; an empty list for anything else (wrong types are the schema rule's job)."""
    return value if isinstance(value, list) else []


def as_map(value: Any) -> dict[Any, Any]:
    """``value`` when it is a mapping; an empty dict for anything else."""
    return value if isinstance(value, dict) else {}


def shared(text: str) -> str:
    """One copy per process of a string many views repeat (API versions, kinds, namespaces)."""
    return sys.intern(text) if type(text) is str else text
