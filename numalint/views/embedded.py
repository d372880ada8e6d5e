"""Documents that are not plain objects: templates and patches (``unfinished``), and documents carried as text
inside another object (``EmbeddedDocument``). Apart from the PerformanceProfile view, so the OpenShift checks
can tell them apart without importing that view and the kubelet view it renders into (start-up time)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span, YamlError, YMap, YSeq, load_all, other_breaks

_BLOCK_HEADER = re.compile(r"\|([1-9])?[+-]?([1-9])?")  # a literal block scalar's header: indentation, chomping
# a scalar's anchor and string tag, before its header (a !!binary block holds base64, not the document's lines)
_PROPERTIES = re.compile(r"(?:(?:&\S+|!!str|!)[ \t]+)*")
PLACEHOLDER = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")  # a ZTP PolicyGenerator / template variable


def unfinished(node: Any) -> bool:
    """Is this a template or a patch rather than an object: a ``$variable`` (ZTP source CRs,
    PolicyGenTemplate) or a kustomize ``$patch`` directive in a key or a string value? Every shared node is walked
    once, without recursion (however deep the nesting)."""
    seen: set[int] = set()
    pending = [node]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if PLACEHOLDER.search(item) is not None:
                return True
        elif isinstance(item, (dict, list)) and id(item) not in seen:
            seen.add(id(item))
            if isinstance(item, dict):
                if any(isinstance(k, str) and PLACEHOLDER.search(k) for k in item):
                    return True
                pending.extend(item.values())
            else:
                pending.extend(item)
    return False


class FileText:
    """A file's text, its lines and whether it breaks lines elsewhere than at LF or CRLF (``yamlpos.other_breaks``),
    each found once however many objects of the file carry documents (a file of thousands of kind Clusters or
    HyperShift ConfigMaps stays linear)."""

    __slots__ = ("text", "_lines", "_broken")

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None
        self._broken: bool | None = None

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.text.splitlines()
        return self._lines

    @property
    def broken(self) -> bool:
        if self._broken is None:
            self._broken = other_breaks(self.text)
        return self._broken


@dataclass
class EmbeddedDocument(Document):
    """A document carried as text inside another object (a ConfigMap's ``data.tuning``)."""

    carrier: str = ""  # "ConfigMap <namespace>/<name>"


def block_documents(lines: list[str], start: Span, parent_col: int, value: str) -> list[tuple[Any, Span]]:
    """The documents of ``value``, the text of a literal block scalar whose header is at ``start`` in the file of
    ``lines`` (``str.splitlines``, made once per file: a file of many such scalars stays linear; ``parent_col``: the
    1-based column of the key or ``-`` it is the value of), located in that file. Only a literal block scalar (``|``)
    maps line for line onto the file, so only that form is read (none of another, nor one that does not parse); the
    caller makes sure the file breaks lines only at LF or CRLF (``yamlpos.other_breaks``)."""
    line = lines[start.line - 1] if start.line <= len(lines) else ""
    properties = _PROPERTIES.match(line, start.col - 1)  # an anchor or !!str before the header: past it
    header = _BLOCK_HEADER.match(line, properties.end() if properties is not None else start.col - 1)
    if header is None:
        return []
    digit = header.group(1) or header.group(2)
    if digit:  # an indentation indicator: the content sits that far right of its parent's own indentation
        indent = parent_col - 1 + int(digit)
    else:
        first = next((lines[i] for i in range(start.line, len(lines)) if lines[i].strip()), "")
        indent = len(first) - len(first.lstrip(" "))
    try:
        parsed = load_all(value)
    except YamlError:
        return []
    return [(_shift(root, start.line, indent), _moved(span, start.line, indent)) for root, span in parsed]


def _moved(span: Span, lines: int, cols: int) -> Span:
    return Span(span.line + lines, span.col + cols, span.end_line + lines, span.end_col + cols)


def _shift(node: Any, lines: int, cols: int, done: dict[int, Any] | None = None) -> Any:
    """The located tree ``node`` parsed from a block scalar, re-located in the file holding the scalar; a node
    shared by aliases is moved once and stays shared (copied at each alias, a patch of nested aliases grew to the
    whole alias budget, again for every patch)."""
    if not isinstance(node, (YMap, YSeq)):
        return node
    done = {} if done is None else done
    moved = done.get(id(node))
    if moved is not None:
        return moved
    if isinstance(node, YMap):
        result = YMap()
        done[id(node)] = result
        result.span = _moved(node.span, lines, cols)
        for key, value in node.items():
            result[key] = _shift(value, lines, cols, done)
            result.key_spans[key] = _moved(node.key_spans[key], lines, cols)
            result.value_spans[key] = _moved(node.value_spans[key], lines, cols)
        result.duplicates = [(k, _moved(s, lines, cols)) for k, s in node.duplicates]
        return result
    seq = YSeq()
    done[id(node)] = seq
    seq.span = _moved(node.span, lines, cols)
    for item in node:  # a loop, not a generator: one frame a level (a patch may nest hundreds of levels)
        seq.append(_shift(item, lines, cols, done))
    seq.item_spans = [_moved(s, lines, cols) for s in node.item_spans]
    return seq


def located(value: Any, span: Span) -> Any:
    """``value`` (plain dicts, lists and scalars: JSON, or a default nobody wrote) as a tree every key and value of
    which is located at ``span``, where it applies."""
    if isinstance(value, dict):
        result = YMap()
        result.span = span
        for key, item in value.items():
            result[str(key)] = located(item, span)
            result.key_spans[str(key)] = result.value_spans[str(key)] = span
        return result
    if isinstance(value, list):
        seq = YSeq()
        seq.span = span
        for item in value:
            seq.append(located(item, span))
            seq.item_spans.append(span)
        return seq
    return value
