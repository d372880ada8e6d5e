"""Edits as ``fix`` writes them: against the file's text, before fixes are proven or shown; and the test ``fix``
makes of them before it writes (``verify_edits``), so that no fix it would refuse is offered.

A check knows the span and the new value, not the text: here every edit's span is narrowed to the value
after its ``&anchor`` and ``!tag`` (an edit of the whole node would drop an anchor that aliases still use,
and the fixed text would not parse), and a string value (``Edit.string``) is written in the quoting style
of the scalar it replaces (``"x"`` in a JSON file, never bare ``x``). A block scalar (``|-``) is replaced by a
one-line scalar that keeps the block's comment and its final line break (the next key stays on its line).
"""

from __future__ import annotations

import json
from bisect import bisect_right
from collections.abc import Callable, Iterable

from numalint.findings import Edit, Finding, Fix
from numalint.reading.scalars import NAME_END, in_place_of_block, looks_like_json, render_string, value_start
from numalint.reading.yamlpos import Span, line_starts


class _Text:
    """One file's text with its line starts, for turning spans into offsets and back."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)
        self.json_like = looks_like_json(text)

    def offsets(self, span: Span) -> tuple[int, int] | None:
        starts = self.starts
        if not (1 <= span.line <= len(starts) and 1 <= span.end_line <= len(starts)):
            return None
        begin, end = starts[span.line - 1] + span.col - 1, starts[span.end_line - 1] + span.end_col - 1
        return (begin, end) if 0 <= begin <= end <= len(self.text) else None

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def shape_edits(findings: Iterable[Finding], text_of: Callable[[str], str | None]) -> None:
    """Rewrite, in place, the edits of every finding's fix as they are to be written."""
    texts: dict[str, _Text | None] = {}
    for finding in findings:
        fix = finding.fix
        if fix is None or not fix.edits:
            continue
        if finding.file not in texts:
            text = text_of(finding.file)
            texts[finding.file] = _Text(text) if text is not None else None
        source = texts[finding.file]
        edits = [_shape(edit, source) for edit in fix.edits]
        if source is not None and "*" in source.text:
            edits = _without_followers(edits, source)
        if edits != fix.edits:
            finding.fix = Fix(fix.description, edits, fix.safety)


def _without_followers(edits: list[Edit], source: _Text) -> list[Edit]:
    """``edits`` but those of an alias whose anchored value another edit of the fix sets to the same text: the alias
    reads the new value (``requests: {cpu: &c 1500m}``, ``limits: {cpu: *c}``: one edit, after the anchor). An
    edit of any other alias stays, for ``verify_edits`` to refuse: written, it would replace the alias."""
    where = [source.offsets(edit.span) for edit in edits]
    anchored = {(w[0], edit.text) for edit, w in zip(edits, where, strict=True) if w is not None}
    kept = []
    for edit, at in zip(edits, where, strict=True):
        if at is not None and source.text.startswith("*", at[0]):
            value = _anchored_value(source.text, at[0], at[1])
            if value is not None and (value, edit.text) in anchored:
                continue
        kept.append(edit)
    return kept


def _anchored_value(text: str, begin: int, end: int) -> int | None:
    """Where the value of the node the alias ``text[begin:end]`` reads starts: after the nearest ``&name`` before
    it (YAML's aliases read the last anchor of their name), its tag and spaces."""
    name = text[begin + 1:end].strip()
    at = begin
    while name:
        at = text.rfind("&" + name, 0, at)
        if at < 0:
            return None
        after = at + 1 + len(name)
        if after >= len(text) or text[after] in NAME_END:
            return value_start(text, at, len(text))
    return None


def _shape(edit: Edit, source: _Text | None) -> Edit:
    where = source.offsets(edit.span) if source is not None else None
    if source is None or where is None:  # no text to match: a string is written double-quoted, valid anywhere
        return Edit(edit.span, json.dumps(edit.text), edit.expected) if edit.string else edit
    begin, end = where
    span = edit.span
    if begin < end:
        start = value_start(source.text, begin, end)
        if start != begin:
            span = Span(*source.position(start), span.end_line, span.end_col)
            begin = start
    original = source.text[begin:end]
    text = render_string(edit.text, original, source.json_like) if edit.string else edit.text
    if original[:1] in ("|", ">"):  # the block's span ends after its line break: keep it, and the header's comment
        placed = in_place_of_block(original, text)
        if placed is not None:
            text = placed
    return Edit(span, text, edit.expected)


def edit_range(edit: Edit, starts: list[int], length: int) -> tuple[int, int] | None:
    span = edit.span
    if not (1 <= span.line <= len(starts) and 1 <= span.end_line <= len(starts)):
        return None
    begin = starts[span.line - 1] + span.col - 1
    end = starts[span.end_line - 1] + span.end_col - 1
    return (begin, end) if 0 <= begin <= end <= length else None


def yaml_nodes(text: str) -> dict[tuple[int, int], str | None]:
    """(start, end) character offsets of every YAML node as libyaml sees them -> a scalar's value. A node
    starts after its anchor and tag (``value_start``): edits replace the value and keep them."""
    from ruamel.yaml import events
    from ruamel.yaml.cyaml import CParser

    found: dict[tuple[int, int], str | None] = {}
    starts: list[int] = []
    parser = CParser(text)
    try:
        while True:
            event = parser.get_event()
            if isinstance(event, events.StreamEndEvent):
                return found
            if isinstance(event, (events.ScalarEvent, events.AliasEvent)):
                value = event.value if isinstance(event, events.ScalarEvent) else None
                start, end = event.start_mark.index, event.end_mark.index
                found[(value_start(text, start, end), end)] = value
            elif isinstance(event, (events.MappingStartEvent, events.SequenceStartEvent)):
                starts.append(event.start_mark.index)
            elif isinstance(event, (events.MappingEndEvent, events.SequenceEndEvent)) and starts:
                start, end = starts.pop(), event.end_mark.index
                found[(value_start(text, start, end), end)] = None
    except Exception:  # the text was parsed before; anything else means no edit can be trusted
        return found
    finally:
        parser.dispose()


def _inside_block_text(nodes: dict[tuple[int, int], str | None], where: tuple[int, int], text: str,
                       expected: str | None) -> bool:
    """An edit of a YAML document held inside one scalar (a literal block) replacing exactly ``expected``."""
    if not expected or text[where[0]:where[1]] != expected:
        return False
    return any(value is not None and start < where[0] and where[1] <= end for (start, end), value in nodes.items())


def verify_edits(text: str, edits: list[tuple[Edit, Finding]],
                 nodes: dict[tuple[int, int], str | None] | None = None, starts: list[int] | None = None) -> str | None:
    """Why an edit does not replace exactly what its finding was about, or None when all do (``nodes`` and
    ``starts``: the text's nodes and line starts, when already known)."""
    starts = line_starts(text) if starts is None else starts
    for edit, finding in edits:
        where = edit_range(edit, starts, len(text))
        span = edit.span
        at = f"{span.line}:{span.col}"
        if where is None:
            return f"the {finding.rule} fix at {at} points outside the file"
        if where[0] == where[1] and edit.expected in (None, ""):
            continue  # an insertion
        nodes = yaml_nodes(text) if nodes is None else nodes
        if where not in nodes:
            if _inside_block_text(nodes, where, text, edit.expected):
                continue  # a document embedded in a block scalar (a ConfigMap's data): exactly the text expected
            return f"the {finding.rule} fix at {at} does not cover one whole YAML node ({text[slice(*where)]!r})"
        if text.startswith("*", where[0]):  # written, the value would replace the alias, its anchor read by none
            return (f"the {finding.rule} fix at {at} would replace the alias {text[slice(*where)]} with a value; "
                    "edit the anchored value it reads instead")
        if edit.expected is not None and nodes[where] != edit.expected:
            return (f"the {finding.rule} fix at {at} expected {edit.expected!r} but the file has "
                    f"{text[slice(*where)]!r} there")
    return None


def hint_unverifiable(findings: Iterable[Finding], text_of: Callable[[str], str | None]) -> None:
    """Turn into a hint, in place, every fix whose edits ``fix`` would refuse to write (``verify_edits``: one that
    does not replace one whole YAML node, a block scalar inside a ConfigMap's embedded document, a value read
    through an alias): offered, it would stop ``fix`` from writing its file at all, the other fixes of the file
    with it. An edit of one line is made from the span of the node it replaces: its file is read again only when
    it holds a ConfigMap or an alias."""
    read: dict[str, tuple[str, dict[tuple[int, int], str | None], list[int]]] = {}
    texts: dict[str, str | None] = {}
    for finding in findings:
        fix = finding.fix
        if fix is None or not fix.edits:
            continue
        if finding.input not in texts:
            texts[finding.input] = text_of(finding.input)
        text = texts[finding.input]
        if text is None or (all(e.span.line == e.span.end_line for e in fix.edits) and "ConfigMap" not in text
                            and "*" not in text):
            continue
        if finding.input not in read:
            read[finding.input] = (text, yaml_nodes(text), line_starts(text))
        known = read[finding.input]
        problem = verify_edits(known[0], [(e, finding) for e in fix.edits], known[1], known[2])
        if problem is not None:
            finding.fix = fix.as_hint(f"{problem}; decide by hand")


def hint_twins(findings: Iterable[Finding], twins: Iterable[tuple[str, Span, str, Span]]) -> None:
    """A fix inside an object the run holds again, identically, in another document (checked once, the copies
    merged: ``model.identity.Registry.twins``) is left as a hint: `fix` would edit one copy, the copies would then
    differ (a duplicate-object finding) and the other would keep what was fixed."""
    other: dict[str, list[tuple[Span, str, int]]] = {}  # file -> (document, the other copy's file and line)
    for file, document, copy, copied in twins:
        other.setdefault(file, []).append((document, copy, copied.line))
        other.setdefault(copy, []).append((copied, file, document.line))
    for finding in findings:
        fix = finding.fix
        if fix is None or not fix.edits or finding.file not in other:
            continue
        for document, file, line in other[finding.file]:
            if any(_within(edit.span, document) for edit in fix.edits):
                finding.fix = fix.as_hint(f"the same object is written again, identically, at {file}:{line}, and "
                                          "numalint checks it once: fix every copy alike")
                break


def _within(span: Span, outer: Span) -> bool:
    return (outer.line, outer.col) <= (span.line, span.col) <= (outer.end_line, outer.end_col)
