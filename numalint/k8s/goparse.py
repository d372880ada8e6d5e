"""Go's parsers for the values the kubelet reads from strings: ``strconv.Atoi`` and
``k8s.io/utils/cpuset.Parse``, with Go's own error texts. A value Go refuses raises ``GoParseError``;
nothing else escapes (no Unicode digits, no Python ``int()`` surprises)."""

from __future__ import annotations

import math
import re
import struct

INT_BITS = 64
MAX_CPU_ID = 65535  # bounds hostile ranges; far above any machine
MAX_CPUSET_TEXT = 1 << 20  # 1 MiB of CPU list is already ~150,000 ids


class GoParseError(ValueError):
    """The text is not what the Go parser accepts; the message is Go's."""


def atoi(text: str) -> int:
    """strconv.Atoi: an optional ``+``/``-`` then ASCII digits only (no spaces, no underscores)."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if digits == "" or len(digits) > 64 or not all("0" <= c <= "9" for c in digits):
        if digits and len(digits) > 64 and all("0" <= c <= "9" for c in digits):
            raise GoParseError(f'strconv.Atoi: parsing "{_short(text)}": value out of range')
        raise GoParseError(f'strconv.Atoi: parsing "{_short(text)}": invalid syntax')
    value = int(digits) * (-1 if text[:1] == "-" else 1)
    if not -(2 ** (INT_BITS - 1)) <= value < 2 ** (INT_BITS - 1):
        raise GoParseError(f'strconv.Atoi: parsing "{text}": value out of range')
    return value


def parse_cpuset(text: str) -> frozenset[int]:
    """k8s.io/utils/cpuset.Parse: ``""`` is the empty set; elements split on ``,``, ranges on the
    first ``-``; each bound read by strconv.Atoi; ``invalid range`` when start > end. Linear in the
    text: a list past MAX_CPUSET_TEXT is refused, overlapping ranges expand once."""
    if text == "":
        return frozenset()
    if len(text) > MAX_CPUSET_TEXT:
        raise GoParseError(f"a CPU list of {len(text)} characters is beyond any machine")
    ranges: list[tuple[int, int]] = []
    for part in text.split(","):
        bounds = part.split("-", 1)
        start = atoi(bounds[0])
        end = atoi(bounds[1]) if len(bounds) == 2 else start
        if start > end:
            raise GoParseError(f'invalid range "{_short(part)}" ({start} > {end})')
        if start < 0 or end > MAX_CPU_ID:
            raise GoParseError(f'CPU {start if start < 0 else end} in "{_short(part)}" is beyond any machine')
        ranges.append((start, end))
    cpus: list[int] = []
    for start, end in sorted(ranges):  # "0-65535" repeated 9,000 times expands once
        first = max(start, cpus[-1] + 1) if cpus else start
        cpus.extend(range(first, end + 1))
    return frozenset(cpus)


def _short(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:30]}... ({len(text)} characters)"


_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SPECIAL = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "infinity": math.inf, "+infinity": math.inf,
            "-infinity": -math.inf, "nan": math.nan, "+nan": math.nan, "-nan": math.nan}


def float32(value: float) -> float:
    """Round to Go's float32 (±Inf beyond its range)."""
    try:
        return float(struct.unpack("f", struct.pack("f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def parse_float32(text: str) -> float:
    """strconv.ParseFloat(text, 32) for decimal spellings (and Inf/NaN); Go's error text otherwise."""
    special = _SPECIAL.get(text.lower())
    if special is not None:
        return special
    if len(text) > 256 or not _FLOAT.fullmatch(text):
        raise GoParseError(f'strconv.ParseFloat: parsing "{text}": invalid syntax')
    value = float32(float(text))
    if math.isinf(value):
        raise GoParseError(f'strconv.ParseFloat: parsing "{text}": value out of range')
    return value


def parse_percentage(text: str) -> float:
    """parsePercentage (pkg/kubelet/eviction/helpers.go): ParseFloat(TrimRight(text, "%"), 32), then a
    float32 division by 100."""
    return float32(parse_float32(text.rstrip("%")) / 100)
