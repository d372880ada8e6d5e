"""A scalar's source text, for writing a new value in its place without touching what surrounds it.

libyaml's marks of a node start at its properties (``&anchor``, ``!tag``): an edit of that whole range
would drop an anchor that aliases still use. ``value_start`` skips them. A replacement string keeps the
replaced scalar's quoting (``render_string``): double-quoted stays double-quoted with JSON's escapes (so a
JSON file stays JSON), single stays single, plain stays plain when the plain form reads back as the same
string under go-yaml v2's YAML 1.1 rules; otherwise it is double-quoted. A block scalar (``|``, ``>``) is
replaced from its indicator through its content by a one-line scalar (``in_place_of_block``): the comment
after the indicator and the line break that ends the block stay, so the next line stays where it was.
"""

from __future__ import annotations

import json
import re

from numalint.reading.yamlpos import resolve_plain

_SEPARATION = " \t\r\n\x85\u2028\u2029\ufeff"
NAME_END = _SEPARATION + ",[]{}"  # what ends an anchor or tag name
# a plain scalar safe in block and flow context alike: no indicator first, no ": ", " #", "," or brackets
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./-]*")


def value_start(text: str, begin: int, end: int) -> int:
    """Where the value of the node at ``text[begin:end]`` starts: after its anchor and tag, and the spaces,
    line breaks and comments that follow them."""
    i = begin
    while i < end and text[i] in "&!":
        if text.startswith("!<", i):  # a verbatim tag: !<tag:yaml.org,2002:str>
            close = text.find(">", i, end)
            i = end if close < 0 else close + 1
        else:
            while i < end and text[i] not in NAME_END:
                i += 1
        while i < end:
            if text[i] in _SEPARATION:
                i += 1
            elif text[i] == "#" and text[i - 1] in _SEPARATION:
                newline = text.find("\n", i, end)
                i = end if newline < 0 else newline
            else:
                break
    return i


_BLOCK_HEADER = re.compile(r"[|>][0-9+-]*")


def in_place_of_block(original: str, scalar: str) -> str | None:
    """The text that puts the one-line ``scalar`` in place of the block scalar ``original`` (its source text
    from the indicator, as libyaml spans it: through the line break that ends its last line, and the blank
    lines ``|+`` keeps). None when ``original`` is no block scalar or ``scalar`` is not one line.

    The header's comment (``|- # note``) is kept after the new value, and so is everything from the line
    break after the last content line: without it the next key would be joined to the value.
    """
    header = _BLOCK_HEADER.match(original)
    if header is None or "\n" in scalar or "\r" in scalar:
        return None
    line_end = original.find("\n")
    if line_end < 0:
        return None
    rest = original[header.end():line_end].rstrip("\r")  # spaces and a comment after the indicator
    comment = rest if rest.lstrip(" \t").startswith("#") else ""
    content = original[line_end:].rstrip(_SEPARATION)
    tail = line_end + len(content)  # the line break after the last content line, and what follows it
    return scalar + comment + original[tail:]


def reads_back_plain(value: str) -> bool:
    """Whether ``value`` written plain is read back (YAML 1.1, go-yaml v2) as exactly that string."""
    if not _PLAIN.fullmatch(value):
        return False
    resolved = resolve_plain(value)
    return isinstance(resolved, str) and resolved == value


def looks_like_json(text: str) -> bool:
    """Whether a file's text is (probably) JSON: a flow collection first. A plain scalar there is a JSON
    number or literal, and a string written in its place must be double-quoted."""
    return text.lstrip(_SEPARATION)[:1] in ("{", "[")


def render_string(value: str, original: str, json_like: bool = False) -> str:
    """The string ``value`` written in the quoting style of ``original`` (a scalar's source text, without
    its properties); never plain in a file that ``looks_like_json``."""
    style = original[:1]
    if style == "'" and value.isprintable():
        return "'" + value.replace("'", "''") + "'"
    if not json_like and style not in ('"', "'", "|", ">") and reads_back_plain(value):
        return value
    return json.dumps(value)  # JSON's escapes are YAML's: valid in a JSON file and in any YAML context
