"""JSON text in annotations, read as Go's encoding/json reads it where Python's json module would stop.

Python refuses an integer of more than 4,300 digits (a guard against quadratic conversion) and JSON nested
deeper than its recursion limit; Go reads both (numbers of any length, 10,000 levels). Neither may end a run
in a traceback: a long integer becomes ``HugeInt`` (beyond every Go integer type, written as it was), and
nesting too deep for Python raises ``TooDeep`` (a ``ValueError``) for the caller to report."""

from __future__ import annotations

import json
from typing import Any

DIGITS = 4000  # below Python's default int_max_str_digits (4300)


class TooDeep(ValueError):
    """The JSON nests deeper than numalint can read (Python's recursion limit)."""


class HugeInt(int):
    """An integer written with more than DIGITS digits: beyond every Go integer type (2**64 in magnitude)."""

    text: str

    def __new__(cls, text: str) -> HugeInt:
        number = super().__new__(cls, -(2 ** 64) if text.startswith("-") else 2 ** 64)
        number.text = f"{text[:12]}...({len(text.lstrip('-'))} digits)"
        return number


def _integer(text: str) -> int:
    return int(text) if len(text) <= DIGITS else HugeInt(text)


def loads(text: str, **options: Any) -> Any:
    """``json.loads`` that raises ``json.JSONDecodeError`` for malformed text and ``TooDeep`` for nesting Python
    cannot follow, whatever the text holds (``options``: json.loads's, parse_int excepted)."""
    try:
        return json.loads(text, parse_int=_integer, **options)
    except RecursionError:
        raise TooDeep("it nests deeper than numalint can read (about 1,000 levels)") from None
