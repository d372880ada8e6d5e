"""Edits as ``fix`` writes them: against the file's text, before fixes are proven or shown.

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
from numalint.reading.scalars import in_place_of_block, looks_like_json, render_string, value_start
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
        if edits != fix.edits:
            finding.fix = Fix(fix.description, edits, fix.safety)


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
