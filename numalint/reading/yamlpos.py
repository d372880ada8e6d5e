"""Fast YAML loading that keeps every key's and value's position.

Checking uses libyaml's C parser (through ruamel.yaml's CParser) and converts
its node tree into plain dicts and lists that remember where each key and value
sits. Plain scalars are resolved with the YAML 1.1 rules of go-yaml v2, which is
what the API server and the kubelet use (``yes``/``on`` are booleans, ``010`` is
octal), so numalint sees the same types Kubernetes does.

Positions are reported in one line model, the one git, GitHub, ``grep -n`` and most editors use: a line
ends at LF (CRLF counts once). libyaml (and go-yaml, hence Kubernetes) also breaks lines at a lone CR,
NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029); when a text holds one of those,
libyaml's line numbers drift from what a user sees, so spans are computed from libyaml's character index
instead of its line and column. ``line_starts`` is the same model for turning spans back into offsets.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache
from typing import Any, NamedTuple

from numalint.reading.events import (
    AliasEvent,
    DocumentStartEvent,
    Events,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)


class Span(NamedTuple):
    """A 1-based, end-exclusive region of a file (line, column, end line, end column)."""

    line: int
    col: int
    end_line: int
    end_col: int


_NO_KEYS: frozenset[Any] = frozenset()
COMPLEX_KEY = "{{ complex key }}"  # a mapping key that is itself a mapping or a list
_NO_SPAN = Span(1, 1, 1, 1)


class YMap(dict):  # type: ignore[type-arg]
    """A mapping that remembers where each of its keys and values sits."""

    __slots__ = ("span", "key_spans", "value_spans", "duplicates", "merged")

    def __init__(self) -> None:  # dict.__init__ has nothing to do for an empty mapping
        self.span = _NO_SPAN
        self.key_spans: dict[Any, Span] = {}
        self.value_spans: dict[Any, Span] = {}
        # both are rarely needed: shared empty tuples until written (a YMap per ``{}`` must stay small)
        self.duplicates: list[tuple[Any, Span]] | tuple[()] = ()
        self.merged: set[Any] | frozenset[Any] = _NO_KEYS  # keys from ``<<`` that a written key may override


class ScalarKey(str):
    """A non-string scalar key (``1``, ``true``, ``1.0``): shown as written, equal only to the same type and value.

    go-yaml keeps ``1``, ``true`` and ``1.0`` as three distinct keys; Python's ``1 == True == 1.0`` would merge
    them into one and report it as its own duplicate.
    """

    __slots__ = ("value",)
    value: Any

    def __new__(cls, text: str, value: Any) -> ScalarKey:
        key = super().__new__(cls, text)
        key.value = value
        return key

    def _identity(self) -> tuple[str, str]:
        return type(self.value).__name__, repr(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScalarKey) and self._identity() == other._identity()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._identity())

    def __getnewargs__(self) -> tuple[str, Any]:  # type: ignore[override]
        return str(self), self.value


class YSeq(list):  # type: ignore[type-arg]
    """A sequence that remembers where each item sits."""

    __slots__ = ("span", "item_spans")

    def __init__(self) -> None:
        self.span = _NO_SPAN
        self.item_spans: list[Span] = []


class YamlError(Exception):
    """The text is not valid YAML; carries the position libyaml reported.

    ``hostile`` marks errors that stand even when the text looks like a template (alias bombs, cycles).
    """

    def __init__(self, message: str, line: int, col: int, hostile: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.hostile = hostile


_BOOL_TRUE = frozenset("y Y yes Yes YES true True TRUE on On ON".split())
_BOOL_FALSE = frozenset("n N no No NO false False FALSE off Off OFF".split())
_NULLS = frozenset(["", "~", "null", "Null", "NULL"])
# every plain word that resolves to something other than itself, in one table (one lookup per scalar)
_WORDS: dict[str, Any] = {**dict.fromkeys(_NULLS), **dict.fromkeys(_BOOL_TRUE, True),
                          **dict.fromkeys(_BOOL_FALSE, False)}
_NOT_A_WORD = object()
_NUMERIC_START = frozenset("-+0123456789.")
# strconv.ParseInt(s, 0, 64)'s syntax once go-yaml removed the underscores: a base prefix in either case, a
# leading 0 for octal (so 08 is no int: it reads as the float 8)
_GO_INT = re.compile(r"([-+]?)(?:0([bB])([01]+)|0([oO])([0-7]+)|0([xX])([0-9a-fA-F]+)|0([0-7]*)|([1-9][0-9]*))\Z")
_GO_BASES = {"b": 2, "B": 2, "o": 8, "O": 8, "x": 16, "X": 16}
_INT64_MIN, _UINT64_MAX = -(1 << 63), (1 << 64) - 1
_FLOAT_RE = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")  # go-yaml's yamlStyleFloat
_SPECIAL_FLOATS = {
    ".inf": float("inf"), ".Inf": float("inf"), ".INF": float("inf"),
    "+.inf": float("inf"), "+.Inf": float("inf"), "+.INF": float("inf"),
    "-.inf": float("-inf"), "-.Inf": float("-inf"), "-.INF": float("-inf"),
    ".nan": float("nan"), ".NaN": float("nan"), ".NAN": float("nan"),
}
_STR_TAG = "tag:yaml.org,2002:str"


def resolve_plain(value: str) -> Any:
    """Resolve an untagged plain scalar the way go-yaml v2 (YAML 1.1) does."""
    word = _WORDS.get(value, _NOT_A_WORD)
    if word is not _NOT_A_WORD:
        return word
    if value[0] in _NUMERIC_START:
        special = _SPECIAL_FLOATS.get(value)
        if special is not None:
            return special
        return _number(value)
    return value


@lru_cache(maxsize=1 << 12)  # a repository writes a few hundred numbers over and over (ports, replicas, counts)
def _number(text: str) -> Any:
    """go-yaml v2's resolve() of a plain scalar that starts like a number: underscores removed (not after a
    leading dot), then strconv.ParseInt / ParseUint with base 0, then ParseFloat when the text looks like a
    float; a float out of range (1e400) stays the text, as does anything else."""
    plain = text.replace("_", "") if "_" in text and text[0] != "." else text
    found = _GO_INT.match(plain)
    if found is not None:
        sign, groups = found.group(1), found.groups()[1:]
        try:
            if groups[0] or groups[2] or groups[4]:  # 0b, 0o, 0x
                prefix = groups[0] or groups[2] or groups[4]
                number = int(groups[1] or groups[3] or groups[5], _GO_BASES[prefix])
            elif groups[6] is not None:  # 0 and octal digits
                number = int(groups[6] or "0", 8)
            else:
                number = int(groups[7])
        except ValueError:  # thousands of digits (Python's own limit): far out of Go's range too
            number = _UINT64_MAX + 1
        number = -number if sign == "-" else number
        if _INT64_MIN <= number <= _UINT64_MAX:
            return number
    if _FLOAT_RE.match(plain):
        value = float(plain)
        return text if math.isinf(value) else value
    return text


def _parse_int(text: str) -> int | None:
    """The int go-yaml reads a plain ``text`` as; None when it reads it as anything else."""
    number = _number(text) if text and text[0] in _NUMERIC_START else None
    return number if isinstance(number, int) and not isinstance(number, bool) else None



class TagMismatch(ValueError):
    """A tagged scalar whose text is not of its tag: go-yaml refuses the document (resolve.go: "cannot decode
    !!str `1Gi` as a !!int"), and so do the kubelet and kubectl."""


def _resolve_tagged(tag: str, value: str) -> Any:
    """Explicitly tagged scalars (``!!str 12``, ``!!int "3"``), as go-yaml v2's resolve() reads them: the text
    must read as the tag's type (an int for !!float too); raise TagMismatch when it does not."""
    if tag == _STR_TAG or not tag.startswith("tag:yaml.org,2002:"):
        return value
    kind = tag.rsplit(":", 1)[1]
    if kind == "int":
        number = _parse_int(value)
        if number is None:
            raise _mismatch(value, kind)
        return number
    if kind == "float":  # an int reads as a float too (resolve's deferred check)
        number = resolve_plain(value) if value else None
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            return float(number)
        raise _mismatch(value, kind)
    if kind == "bool":
        if value in _BOOL_TRUE or value in _BOOL_FALSE:
            return value in _BOOL_TRUE
        raise _mismatch(value, kind)
    if kind == "null":  # only the null words: `!!null foo` is refused like `!!int foo`
        if value in _NULLS:
            return None
        raise _mismatch(value, kind)
    if kind == "binary":  # go-yaml decodes it into a string field (decode.go, d.scalar): the bytes it stands for
        import base64
        import binascii

        try:  # base64.StdEncoding skips line breaks; Go strings hold any bytes
            decoded = base64.b64decode(value.replace("\r", "").replace("\n", ""), validate=True)
        except binascii.Error:
            raise TagMismatch("!!binary value contains invalid base64 data") from None
        return decoded.decode("utf-8", "surrogateescape")
    return value


def _mismatch(value: str, kind: str) -> TagMismatch:
    """go-yaml's error for ``!!<kind> value``: it names the type the text reads as (``!!str `1Gi```)."""
    plain = resolve_plain(value) if value else None
    read = ("null" if plain is None else "bool" if isinstance(plain, bool) else "int" if isinstance(plain, int)
            else "float" if isinstance(plain, float) else "str")
    return TagMismatch(f"cannot decode !!{read} `{value}` as a !!{kind}")


# Line breaks of libyaml other than LF and CRLF: where its line numbers leave the LF model.
_OTHER_BREAKS = re.compile("\r(?!\n)|[\x85\u2028\u2029]")


def other_breaks(text: str) -> bool:
    """Whether ``text`` breaks lines other than at LF and CRLF (substring tests first: a regular expression
    scan of every file cost more than a tenth of reading it)."""
    if "\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text:
        return _OTHER_BREAKS.search(text) is not None
    return False


def line_starts(text: str) -> list[int]:
    """Offsets (in characters) where each line of ``text`` starts: lines end at LF only."""
    starts = [0]
    find, index = text.find, text.find("\n")
    while index >= 0:
        starts.append(index + 1)
        index = find("\n", index + 1)
    return starts


class _Positions:
    """libyaml marks -> 1-based (line, column) in the LF model."""

    def __init__(self, text: str) -> None:
        self.starts = line_starts(text) if other_breaks(text) else None

    def at(self, mark: Any) -> tuple[int, int]:
        if self.starts is None:  # libyaml's lines are the LF lines
            return mark.line + 1, mark.column + 1
        line = bisect_right(self.starts, mark.index)
        return line, mark.index - self.starts[line - 1] + 1

    def span(self, start_mark: Any, end_mark: Any) -> Span:
        return Span(*self.at(start_mark), *self.at(end_mark))


class _Mark:
    """A position as libyaml's marks give it (0-based; lines are the LF lines)."""

    __slots__ = ("index", "line", "column")

    def __init__(self, text: str, index: int) -> None:
        self.index, self.line = index, text.count("\n", 0, index)
        self.column = index - text.rfind("\n", 0, index) - 1


MAX_NODES = 1_000_000  # per file: memory stays bounded whatever the 8 MiB of text hold (``[{},{},…]``)
# collections inside collections, at most: each level takes two Python frames to build, so 400 leave ~200 of
# Python's default 1,000 for the caller (a test runner, a server); past that, a RecursionError would have no place
MAX_DEPTH = 400


_new_span = tuple.__new__  # Span(...) without the Python-level NamedTuple constructor: spans are made per scalar


class _Builder:
    """Builds YMap/YSeq/scalars straight from libyaml events (no intermediate node tree).

    Events are the records of ``numalint.reading.events``: ``event.args`` holds the C parser's arguments
    (a scalar's: anchor, tag, implicit, value, start mark, end mark, style).

    Aliases share the anchored object, so alias bombs cost no memory while reading; but every later walk
    (schema, templates, output) would expand them, so a document whose aliases stand for more than
    ALIAS_BUDGET nodes is refused, as is an anchor that contains itself. Nesting depth is capped.

    Scalars (most events) take one short path, ``_leaf``; collections and aliases go through ``node``.
    """

    __slots__ = ("get", "keep", "positions", "lf", "anchors", "sizes", "building", "count", "aliased", "limit",
                 "odd_keyed", "noted")

    MAX_DEPTH = MAX_DEPTH
    ALIAS_BUDGET = 100_000

    def __init__(self, get: Callable[[], Any], positions: _Positions, limit: int = MAX_NODES,
                 keep: Callable[[str, str], bool] | None = None, odd_keyed: list[YMap] | None = None) -> None:
        self.get = get
        self.keep = keep
        self.odd_keyed = odd_keyed  # learns each mapping that repeats a key or holds one JSON cannot hold
        self.noted: set[int] = set()  # the ids of those mappings (each is learnt once)
        self.positions = positions
        self.lf = positions.starts is None  # libyaml's lines are the LF lines: spans come straight from marks
        self.anchors: dict[str, Any] = {}
        self.sizes: dict[str, int] = {}  # anchor -> nodes it stands for, aliases expanded
        self.building: set[str] = set()
        self.count = 0  # nodes of the document, aliases expanded
        self.aliased = 0  # of which reached through aliases
        self.limit = limit

    def span(self, start: Any, end: Any) -> Span:
        """The span from mark ``start`` to mark ``end``."""
        if self.lf:
            return _new_span(Span, (start.line + 1, start.column + 1, end.line + 1, end.column + 1))  # type: ignore
        return self.positions.span(start, end)

    def _note(self, mapping: YMap) -> None:
        """``odd_keyed`` learns a mapping that repeats a key or holds a key JSON cannot hold (a collection,
        null), once."""
        if self.odd_keyed is not None and id(mapping) not in self.noted:
            self.noted.add(id(mapping))
            self.odd_keyed.append(mapping)

    def _merged(self, result: YMap, value: Any) -> None:
        """``<<: value`` into ``result``; a key written before it that it overrides is a duplicate."""
        overridden = _merge(result, value)
        if overridden:
            duplicates = result.duplicates if isinstance(result.duplicates, list) else []
            duplicates.extend(overridden)
            result.duplicates = duplicates
            self._note(result)

    def _too_many(self, mark: Any) -> YamlError:
        return YamlError(f"more than {MAX_NODES} YAML nodes in one file; not read",
                         *self.positions.at(mark), hostile=True)

    def _leaf(self, args: tuple[Any, ...]) -> tuple[Any, Span]:
        """A scalar event's arguments: its value (resolved as YAML 1.1) and span."""
        anchor, tag, implicit, value, start, end, _ = args
        self.count += 1
        if self.count > self.limit:
            raise self._too_many(start)
        if tag is None:
            if implicit[0]:
                word = _WORDS.get(value, _NOT_A_WORD)
                if word is not _NOT_A_WORD:
                    value = word
                elif value[0] in _NUMERIC_START:
                    value = resolve_plain(value)
        else:
            tag = str(tag)
            if tag != "!":
                try:
                    value = _resolve_tagged(tag, value)
                except TagMismatch as err:
                    raise YamlError(f"{err}: a value written with a tag must be of that type (go-yaml, and so the "
                                    "kubelet and kubectl, refuse the file)", *self.positions.at(start)) from None
        if anchor is not None:
            self.anchors[anchor] = value
            self.sizes[anchor] = 1
        if self.lf:
            return value, _new_span(Span, (start.line + 1, start.column + 1, end.line + 1, end.column + 1))  # type: ignore
        return value, self.positions.span(start, end)

    def node(self, event: Any, depth: int) -> tuple[Any, Span]:
        cls = event.__class__
        if cls is ScalarEvent:
            return self._leaf(event.args)
        args = event.args
        self.count += 1
        if self.count > self.limit:
            raise self._too_many(_start_mark(event))
        if cls is AliasEvent:
            return self._alias(args), self.span(args[1], args[2])
        if depth > self.MAX_DEPTH:
            raise YamlError("nesting too deep to read", *self.positions.at(_start_mark(event)), hostile=True)
        if cls is MappingStartEvent or cls is SequenceStartEvent:
            anchor = args[0]
            if anchor is None:
                return self._mapping(args, depth) if cls is MappingStartEvent else self._sequence(args, depth)
            self.building.add(anchor)
            before = self.count
            built = self._mapping(args, depth) if cls is MappingStartEvent else self._sequence(args, depth)
            self.building.discard(anchor)
            self.sizes[anchor] = self.count - before + 1
            return built
        raise YamlError(f"unexpected {cls.__name__}", *self.positions.at(_start_mark(event)))

    def _alias(self, args: tuple[Any, ...]) -> Any:
        anchor, start, _ = args
        line, col = self.positions.at(start)
        if anchor in self.building:
            raise YamlError(f"anchor {anchor!r} value contains itself", line, col, hostile=True)
        if anchor not in self.anchors:
            raise YamlError(f"found undefined alias {anchor!r}", line, col)
        size = self.sizes.get(anchor, 1)
        self.count += size - 1
        self.aliased += size
        if self.aliased > self.ALIAS_BUDGET:
            raise YamlError(f"alias expansion too large (aliases stand for more than {self.ALIAS_BUDGET} nodes)",
                            line, col, hostile=True)
        return self.anchors[anchor]

    def _mapping(self, start: tuple[Any, ...], depth: int) -> tuple[Any, Span]:
        result = YMap()
        if start[0] is not None:
            self.anchors[start[0]] = result
        get, leaf, node = self.get, self._leaf, self.node
        key_spans, value_spans = result.key_spans, result.value_spans
        decide = depth == 0 and self.keep is not None  # the root: is the document wanted at all?
        depth += 1
        lf, limit = self.lf, self.limit
        while True:
            event = get()
            cls = event.__class__
            if cls is ScalarEvent:
                key_args = event.args
                anchor, tag, implicit, key, begin, end, _ = key_args
                if lf and tag is None and anchor is None and self.count < limit:
                    # ``_leaf`` inlined for the common scalar (no tag, no anchor): no call, no tuple per scalar
                    self.count += 1
                    plain_key = implicit[0]
                    if plain_key:
                        key = resolve_plain(key)
                    kspan = _new_span(Span, (begin.line + 1, begin.column + 1, end.line + 1, end.column + 1))
                else:
                    key, kspan = leaf(key_args)
                    plain_key = tag is None and implicit[0]
            elif cls is MappingEndEvent:
                result.span = self.span(start[3], event.args[1])
                return result, result.span
            else:
                key_args = None
                key, kspan = node(event, depth)
                plain_key = False
            value_event = get()
            if value_event.__class__ is ScalarEvent:
                anchor, tag, implicit, value, begin, end, _ = value_event.args
                if lf and tag is None and anchor is None and self.count < limit:  # ``_leaf`` inlined, as above
                    self.count += 1
                    if implicit[0]:
                        value = resolve_plain(value)
                    vspan = _new_span(Span, (begin.line + 1, begin.column + 1, end.line + 1, end.column + 1))
                else:
                    value, vspan = leaf(value_event.args)
            else:
                value, vspan = node(value_event, depth)
            if key.__class__ is str:
                if key == "<<" and plain_key:
                    self._merged(result, value)
                    continue
            elif isinstance(key, (YMap, YSeq)):
                # Only an unquoted template expression ({{ .Values.x }}) makes a collection key in
                # Kubernetes YAML; keep it recognisable for template detection.
                key = COMPLEX_KEY
                self._note(result)
            elif isinstance(key, (bool, int, float)):
                key = ScalarKey(key_args[3] if key_args is not None else str(key), key)
            elif key == "<<" and plain_key:  # a str subclass
                self._merged(result, value)
                continue
            elif key is None:
                self._note(result)
            merged = result.merged
            if merged and key in merged and isinstance(merged, set):
                merged.discard(key)  # a written key overrides a merged one
            elif key in result:
                duplicates = result.duplicates if isinstance(result.duplicates, list) else []
                self._note(result)
                duplicates.append((key, kspan))
                result.duplicates = duplicates
            result[key] = value
            key_spans[key] = kspan
            value_spans[key] = vspan
            if decide and (key == "kind" or key == "apiVersion") and "kind" in result and "apiVersion" in result:
                api_version, kind = result["apiVersion"], result["kind"]
                if not self.keep(api_version if isinstance(api_version, str) else "",  # type: ignore[misc]
                                 kind if isinstance(kind, str) else ""):
                    skipped = Skipped(result)
                    skipped.span = self.span(start[3], self._skip().args[1])
                    return skipped, skipped.span

    def _skip(self) -> Any:
        """Read the rest of a root mapping without building it; returns its end event.

        Nodes, anchors and aliases are counted and checked exactly as ``node`` does (same errors at the
        same events), so what a document holds costs the same limits whether it is built or not. A root key
        that could change the document's apiVersion or kind (``kind`` again, ``<<``, an alias) means the
        decision was early: the whole text is read again, built; so is a document nested deeper than
        _SKIP_DEPTH.
        """
        get = self.get
        open_anchors: list[tuple[str | None, int]] = []  # (anchor, count at its start) of each open collection
        at_root_key = True  # the next root-level node is a key
        while True:
            event = get()
            cls = event.__class__
            if cls is MappingEndEvent or cls is SequenceEndEvent:
                if not open_anchors:
                    return event  # the root's end
                anchor, before = open_anchors.pop()
                if anchor is not None:
                    self.building.discard(anchor)
                    self.sizes[anchor] = self.count - before + 1
                if not open_anchors:
                    at_root_key = not at_root_key
                continue
            args = event.args
            if not open_anchors:
                if at_root_key and (cls is AliasEvent or cls is ScalarEvent and args[3] in _DECIDING_KEYS):
                    raise _Rebuild
                if cls is ScalarEvent or cls is AliasEvent:
                    at_root_key = not at_root_key
            self.count += 1
            if self.count > self.limit:
                raise self._too_many(_start_mark(event))
            if cls is ScalarEvent:
                if args[0] is not None:
                    self.anchors[args[0]] = None
                    self.sizes[args[0]] = 1
            elif cls is AliasEvent:
                self._alias(args)
            elif cls is MappingStartEvent or cls is SequenceStartEvent:
                if len(open_anchors) >= _SKIP_DEPTH:
                    raise _Rebuild  # deep nesting fails as it does when built (the same error, the same place)
                anchor = args[0]
                if anchor is not None:
                    self.building.add(anchor)
                    self.anchors[anchor] = None
                open_anchors.append((anchor, self.count))
            else:
                raise YamlError(f"unexpected {cls.__name__}", *self.positions.at(_start_mark(event)))

    def _sequence(self, start: tuple[Any, ...], depth: int) -> tuple[Any, Span]:
        result = YSeq()
        if start[0] is not None:
            self.anchors[start[0]] = result
        get, leaf, node = self.get, self._leaf, self.node
        append, spans = result.append, result.item_spans.append
        depth += 1
        while True:
            event = get()
            cls = event.__class__
            if cls is ScalarEvent:
                value, span = leaf(event.args)
            elif cls is SequenceEndEvent:
                result.span = self.span(start[3], event.args[1])
                return result, result.span
            else:
                value, span = node(event, depth)
            append(value)
            spans(span)


def _start_mark(event: Any) -> Any:
    """Where an event starts."""
    return event.args[_START_MARK.get(event.__class__, 0)]


_START_MARK = {ScalarEvent: 4, MappingStartEvent: 3, SequenceStartEvent: 3, AliasEvent: 1}  # else: first

_SKIP_DEPTH = 64
_DECIDING_KEYS = frozenset({"kind", "apiVersion", "<<"})


class _Rebuild(Exception):
    """A skipped document turned out to need building (its kind could change): read the text again."""


class Skipped(YMap):
    """The root of a document ``load_all(keep=...)`` did not want: only its keys up to apiVersion and kind."""

    __slots__ = ()

    def __init__(self, built: YMap) -> None:
        super().__init__()
        self.update(built)
        self.key_spans, self.value_spans = built.key_spans, built.value_spans
        self.duplicates, self.merged = built.duplicates, built.merged


def _merge(target: YMap, source: Any) -> list[tuple[Any, Span]]:
    """YAML merge keys (``<<: *defaults``) as go-yaml v2 reads them (decode.go merge), and so kubectl and the
    kubelet: the merged mapping is written into the target where the ``<<`` stands, so it overrides a key written
    before it, and a key written after it overrides the merged one; of several sources (``<<: [*a, *b]``) the
    first wins. Returns the keys written before the ``<<`` that it overrides: they never apply (kustomize's
    yaml.v3 keeps them instead, so such a file means different things to different tools)."""
    sources = source if isinstance(source, list) else [source]
    if not isinstance(target.merged, set):
        target.merged = set()
    overridden: list[tuple[Any, Span]] = []
    for src in reversed(sources):
        if isinstance(src, YMap):
            for k, v in src.items():
                if k in target and k not in target.merged:
                    overridden.append((k, target.key_spans[k]))
                target.merged.add(k)
                target[k] = v
                target.key_spans[k] = src.key_spans[k]
                target.value_spans[k] = src.value_spans[k]
    return overridden


def _missing_colon(text: str, line: int) -> int | None:
    """The nearest line above ``line`` that reads like a key whose ':' is missing (``  name x``)."""
    lines = text.split("\n")
    for number in range(line - 1, 0, -1):
        candidate = lines[number - 1].strip()
        if not candidate or candidate.startswith("#"):
            continue
        if ":" not in candidate and not candidate.startswith(("-", "[", "{", "'", '"', "|", ">")):
            return number
        return None
    return None


def load_all(text: str, keep: Callable[[str, str], bool] | None = None,
             odd_keyed: list[YMap] | None = None) -> list[tuple[Any, Span]]:
    """Parse every document of ``text``; raise YamlError with a position on bad YAML.

    ``keep(api_version, kind)``: build only the documents it wants; the others are read (so every syntax
    error and limit is found as before) but come back as ``Skipped`` roots holding their keys up to apiVersion
    and kind. Most of a GitOps repository (Services, ConfigMaps, RBAC) is nothing numalint checks.
    ``odd_keyed`` learns every mapping built that repeats a key (its ``duplicates`` say which) or holds a key
    JSON cannot hold (``COMPLEX_KEY``, None).
    """
    try:
        return _load_all(text, keep, odd_keyed)
    except _Rebuild:
        if odd_keyed is not None:
            odd_keyed.clear()
        return _load_all(text, None, odd_keyed)


def _load_all(text: str, keep: Callable[[str, str], bool] | None,
              odd_keyed: list[YMap] | None = None) -> list[tuple[Any, Span]]:
    positions = _Positions(text)
    docs: list[tuple[Any, Span]] = []
    nodes = 0
    try:
        events = Events(text)
    except UnicodeEncodeError:  # lone surrogates: the bytes of a !!binary value that are no UTF-8, read as text
        raise YamlError("the text holds bytes that are not UTF-8 (a !!binary value)", 1, 1, hostile=True) from None
    try:
        get = events.get
        while True:
            event = get()
            cls = event.__class__
            if cls is DocumentStartEvent:
                builder = _Builder(get, positions, MAX_NODES - nodes, keep, odd_keyed)
                root, span = builder.node(get(), 0)
                nodes += builder.count
                get()  # DocumentEndEvent
                docs.append((root, span))
            elif cls is StreamEndEvent:
                break
    except (YamlError, _Rebuild):
        raise
    except RecursionError:  # a caller that left less than MAX_DEPTH needs: no place known
        raise YamlError("nesting too deep to read", 1, 1, hostile=True) from None
    except Exception as exc:  # libyaml raises several error classes
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        position = getattr(exc, "position", None)  # a reader error (a control character): a UTF-8 byte offset
        if mark is None and isinstance(position, int) and not isinstance(position, bool):
            mark = _Mark(text, len(text.encode("utf-8", "surrogatepass")[:position].decode("utf-8", "ignore")))
        problem = str(getattr(exc, "problem", None) or str(exc).split("\n")[0])
        line, col = positions.at(mark) if mark is not None else (1, 1)
        context, context_mark = getattr(exc, "context", None), getattr(exc, "context_mark", None)
        if context and context_mark is not None and context_mark is not mark:
            # libyaml's context names where the broken structure starts: often the line to fix
            start, start_col = positions.at(context_mark)
            if (start, start_col) != (line, col):
                problem += f" ({context} that starts at line {start}, column {start_col})"
        if problem.startswith("mapping values are not allowed") and line > 1:
            cause = _missing_colon(text, line)
            if cause is not None:  # the symptom is here, the cause is the line above: point at the cause
                problem += f"; line {cause} has no ':' after its key"
                line, col = cause, 1 + len(text.split("\n")[cause - 1]) - len(text.split("\n")[cause - 1].lstrip())
        raise YamlError(problem, line, col) from None
    finally:
        events.close()
    return docs
