"""Fast YAML loading that keeps every key's and value's position.

Checking uses libyaml's C parser (through ruamel.yaml's CParser) and converts
its node tree into plain dicts and lists that remember where each key and value
sits. Plain scalars are resolved with the YAML 1.1 rules of go-yaml v2, which is
what the API server and the kubelet use (``yes``/``on`` are booleans, ``010`` is
octal), so numalint sees the same types Kubernetes does.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple


class Span(NamedTuple):
    """A 1-based, end-exclusive region of a file (line, column, end line, end column)."""

    line: int
    col: int
    end_line: int
    end_col: int


class YMap(dict):  # type: ignore[type-arg]
    """A mapping that remembers where each of its keys and values sits."""

    __slots__ = ("span", "key_spans", "value_spans", "duplicates")

    def __init__(self) -> None:
        super().__init__()
        self.span = Span(1, 1, 1, 1)
        self.key_spans: dict[Any, Span] = {}
        self.value_spans: dict[Any, Span] = {}
        self.duplicates: list[tuple[Any, Span]] = []


class YSeq(list):  # type: ignore[type-arg]
    """A sequence that remembers where each item sits."""

    __slots__ = ("span", "item_spans")

    def __init__(self) -> None:
        super().__init__()
        self.span = Span(1, 1, 1, 1)
        self.item_spans: list[Span] = []


class YamlError(Exception):
    """The text is not valid YAML; carries the position libyaml reported."""

    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


_BOOL_TRUE = frozenset("y Y yes Yes YES true True TRUE on On ON".split())
_BOOL_FALSE = frozenset("n N no No NO false False FALSE off Off OFF".split())
_NULLS = frozenset(["", "~", "null", "Null", "NULL"])
_INT_RE = re.compile(r"[-+]?(?:0b[01_]+|0o[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*)$")
_FLOAT_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_SPECIAL_FLOATS = {
    ".inf": float("inf"), ".Inf": float("inf"), ".INF": float("inf"),
    "+.inf": float("inf"), "+.Inf": float("inf"), "+.INF": float("inf"),
    "-.inf": float("-inf"), "-.Inf": float("-inf"), "-.INF": float("-inf"),
    ".nan": float("nan"), ".NaN": float("nan"), ".NAN": float("nan"),
}
_STR_TAG = "tag:yaml.org,2002:str"
_PLAIN = "?plain"


def resolve_plain(value: str) -> Any:
    """Resolve an untagged plain scalar the way go-yaml v2 (YAML 1.1) does."""
    if not value:
        return None
    first = value[0]
    if first in "-+0123456789.":
        if _INT_RE.match(value):
            return _parse_int(value)
        if _FLOAT_RE.match(value):
            return float(value)
        special = _SPECIAL_FLOATS.get(value)
        if special is not None:
            return special
        return value
    if value in _NULLS:
        return None
    if value in _BOOL_TRUE:
        return True
    if value in _BOOL_FALSE:
        return False
    return value


def _parse_int(text: str) -> int | str:
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-").replace("_", "")
    try:
        if body.startswith(("0b", "0o", "0x")):
            return sign * int(body, 0)
        if len(body) > 1 and body.startswith("0"):
            return sign * int(body, 8)
        return sign * int(body)
    except ValueError:
        return text


def _resolve_tagged(tag: str, value: str) -> Any:
    """Explicitly tagged scalars (``!!str 12``, ``!!int "3"``)."""
    if tag == _STR_TAG or not tag.startswith("tag:yaml.org,2002:"):
        return value
    kind = tag.rsplit(":", 1)[1]
    if kind == "int":
        result = _parse_int(value) if _INT_RE.match(value) else value
        return result
    if kind == "float":
        return float(value) if _FLOAT_RE.match(value) else value
    if kind == "bool":
        return True if value in _BOOL_TRUE else False if value in _BOOL_FALSE else value
    if kind == "null":
        return None
    return value


_loader_class: Any = None


def _loader() -> Any:
    """Build (once) a CParser subclass that tags plain scalars for our resolver."""
    global _loader_class
    if _loader_class is None:
        from ruamel.yaml.cyaml import CParser
        from ruamel.yaml.nodes import ScalarNode

        class _Loader(CParser):  # type: ignore[misc]
            def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
                if kind is ScalarNode and implicit[0]:
                    return _PLAIN
                return None

            def descend_resolver(self, *args: Any) -> None:
                return None

            def ascend_resolver(self, *args: Any) -> None:
                return None

        _loader_class = _Loader
    return _loader_class


def _span(node: Any) -> Span:
    s, e = node.start_mark, node.end_mark
    return Span(s.line + 1, s.column + 1, e.line + 1, e.column + 1)


class _Converter:
    """Turns libyaml nodes into YMap/YSeq/scalars; shared aliases convert once."""

    def __init__(self) -> None:
        self.memo: dict[int, Any] = {}

    def convert(self, node: Any) -> Any:
        from ruamel.yaml.nodes import MappingNode, ScalarNode

        if isinstance(node, ScalarNode):
            tag = node.tag
            if tag == _PLAIN:
                return resolve_plain(node.value)
            if tag is None or tag == "None":
                return node.value
            return _resolve_tagged(str(tag), node.value)
        key = id(node)
        if key in self.memo:
            return self.memo[key]
        if isinstance(node, MappingNode):
            result: Any = YMap()
            self.memo[key] = result
            result.span = _span(node)
            for knode, vnode in node.value:
                k = self.convert(knode)
                if isinstance(k, (YMap, YSeq)):
                    # Only an unquoted template expression ({{ .Values.x }}) makes a collection key in
                    # Kubernetes YAML; keep it recognisable for template detection.
                    k = "{{ complex key }}"
                if k == "<<" and knode.tag == _PLAIN:
                    self._merge(result, self.convert(vnode))
                    continue
                kspan = _span(knode)
                if k in result:
                    result.duplicates.append((k, kspan))
                result[k] = self.convert(vnode)
                result.key_spans[k] = kspan
                result.value_spans[k] = _span(vnode)
            return result
        seq: Any = YSeq()
        self.memo[key] = seq
        seq.span = _span(node)
        for item in node.value:
            seq.append(self.convert(item))
            seq.item_spans.append(_span(item))
        return seq

    @staticmethod
    def _merge(target: YMap, source: Any) -> None:
        sources = source if isinstance(source, list) else [source]
        for src in sources:
            if isinstance(src, YMap):
                for k, v in src.items():
                    if k not in target:
                        target[k] = v
                        target.key_spans[k] = src.key_spans[k]
                        target.value_spans[k] = src.value_spans[k]


def load_all(text: str) -> list[tuple[Any, Span]]:
    """Parse every document of ``text``; raise YamlError with a position on bad YAML."""
    loader = _loader()(text)
    docs: list[tuple[Any, Span]] = []
    try:
        while loader.check_node():
            node = loader.get_node()
            docs.append((_Converter().convert(node), _span(node)))
    except RecursionError:
        raise YamlError("nesting too deep to read", 1, 1) from None
    except Exception as exc:  # libyaml raises several error classes
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).split("\n")[0]
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise YamlError(str(problem), line, col) from None
    finally:
        loader.dispose()
    return docs
