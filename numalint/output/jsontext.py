"""``json.dumps(value, indent=2)``, byte for byte, several times faster on reports.

With ``indent``, the standard library encodes in pure Python, a generator per container (a third of a run's
output time on 20,000 files). Reports hold only dicts with string keys, lists, strings, integers, booleans
and None: those are written here, strings through the standard library's C escaping; anything else (floats,
other keys) goes to ``json.dumps`` itself, so the text is always what it would write.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from typing import Any


def dumps(value: Any) -> str:
    """``json.dumps(value, indent=2)``."""
    return _pretty(value, "")


def indented(value: Any, prefix: str) -> str:
    """``json.dumps(value, indent=2)`` with every line after the first starting with ``prefix`` (an item nested
    that deep in a larger document)."""
    return _pretty(value, prefix)


def _pretty(value: Any, prefix: str) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if value.__class__ is int:
        return int.__repr__(value)
    if isinstance(value, dict):
        if not value:
            return "{}"
        if not all(key.__class__ is str for key in value):
            return _indented(value, prefix)
        inner = prefix + "  "
        return ("{\n" + ",\n".join(f"{inner}{encode_basestring_ascii(key)}: {_pretty(item, inner)}"
                                   for key, item in value.items()) + "\n" + prefix + "}")
    if isinstance(value, list):
        if not value:
            return "[]"
        inner = prefix + "  "
        return "[\n" + ",\n".join(inner + _pretty(item, inner) for item in value) + "\n" + prefix + "]"
    return _indented(value, prefix)


def _indented(value: Any, prefix: str) -> str:
    """What the standard library writes for ``value`` at this depth."""
    return json.dumps(value, indent=2).replace("\n", "\n" + prefix)
