"""Go's parsers for the values the kubelet reads from strings: ``strconv.Atoi`` and
``k8s.io/utils/cpuset.Parse``, with Go's own error texts. A value Go refuses raises ``GoParseError``;
nothing else escapes (no Unicode digits, no Python ``int()`` surprises)."""

from __future__ import annotations

import math
import re
import struct
from fractions import Fraction

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


def parse_int(text: str, bits: int = INT_BITS) -> int:
    """strconv.ParseInt(text, 0, bits), as pflag's int flags read their value: an optional sign, then a base
    prefix (``0x``, ``0o``, ``0b``, or a leading ``0`` for octal) and digits of that base, underscores only
    between them (underscoreOK)."""
    sign = -1 if text[:1] == "-" else 1
    body = text[1:] if text[:1] in ("+", "-") else text
    base, digits = 10, body
    if len(body) >= 2 and body[0] == "0" and body[1] in "xXoObB":
        base, digits = {"x": 16, "o": 8, "b": 2}[body[1].lower()], body[2:]
    elif len(body) >= 2 and body[0] == "0":
        base, digits = 8, body[1:]
    allowed = "0123456789abcdefABCDEF"[:base if base <= 10 else 10 + 2 * (base - 10)]
    if not digits or len(digits) > 80 or "_" in digits and not _underscore_ok(text) or \
            not all(c in allowed or c == "_" for c in digits) or digits.replace("_", "") == "":
        raise GoParseError(f'strconv.ParseInt: parsing "{_short(text)}": invalid syntax')
    value = sign * int(digits.replace("_", ""), base)
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise GoParseError(f'strconv.ParseInt: parsing "{_short(text)}": value out of range')
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


# strconv readFloat (src/strconv/atof.go): optional sign, then a decimal mantissa with an optional e
# exponent, or "0x" and a hexadecimal mantissa with a mandatory p exponent; underscores anywhere in the
# mantissa or exponent, checked afterwards by underscoreOK (src/strconv/atoi.go)
_DECIMAL = re.compile(r"([+-]?)([0-9_]*)(?:\.([0-9_]*))?(?:[eE]([+-]?[0-9][0-9_]*))?", re.ASCII)
_HEX = re.compile(r"([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9][0-9_]*)", re.ASCII)
FLOAT32_MANTISSA = 24
FLOAT32_MIN_EXP = -149  # the smallest subnormal is 2**-149
FLOAT32_OVERFLOW = 2**128


def float32(value: float) -> float:
    """Round to Go's float32 (±Inf beyond its range)."""
    try:
        return float(struct.unpack("f", struct.pack("f", value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def _underscore_ok(text: str) -> bool:
    """underscoreOK (src/strconv/atoi.go): an underscore only between digits, or between a base prefix and a
    digit."""
    saw = "^"
    i = 0
    if text[:1] in ("+", "-"):
        text = text[1:]
    hexa = False
    if len(text) >= 2 and text[0] == "0" and text[1].lower() in "box":
        i, saw, hexa = 2, "0", text[1].lower() == "x"
    for c in text[i:]:
        if "0" <= c <= "9" or (hexa and "a" <= c.lower() <= "f"):
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def _round_float32(value: Fraction) -> float:
    """The float32 nearest ``value``, ties to even (IEEE 754, as ParseFloat(s, 32) rounds); ±Inf past the
    largest float32."""
    if value == 0:
        return 0.0
    sign = -1.0 if value < 0 else 1.0
    magnitude = abs(value)
    exponent = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()
    if Fraction(2) ** exponent > magnitude:
        exponent -= 1  # now 2**exponent <= magnitude < 2**(exponent + 1)
    quantum = Fraction(2) ** max(exponent - (FLOAT32_MANTISSA - 1), FLOAT32_MIN_EXP)
    units = round(magnitude / quantum)  # Python rounds halves to even
    rounded = units * quantum
    if rounded >= FLOAT32_OVERFLOW:
        return sign * math.inf
    return sign * float(rounded)


def _special(text: str) -> float | None:
    """special (src/strconv/atof.go): "inf"/"infinity" with an optional sign, "nan" without one; any case."""
    lowered = text.lower()
    body = lowered[1:] if lowered[:1] in ("+", "-") else lowered
    if body in ("inf", "infinity"):
        return -math.inf if lowered[:1] == "-" else math.inf
    if lowered == "nan":
        return math.nan
    return None


def parse_float32(text: str) -> float:
    """strconv.ParseFloat(text, 32): decimal and hexadecimal floats with Go's underscores, Inf and NaN; Go's
    error text otherwise."""
    special = _special(text)
    if special is not None:
        return special
    syntax = GoParseError(f'strconv.ParseFloat: parsing "{_short(text)}": invalid syntax')
    if len(text) > 256:
        raise syntax
    hexa = _HEX.fullmatch(text)
    match = hexa or _DECIMAL.fullmatch(text)
    if not match:
        raise syntax
    sign, whole, fraction, exponent = match.groups()
    whole, fraction = whole.replace("_", ""), (fraction or "").replace("_", "")
    if not whole and not fraction:
        raise syntax  # no digits
    if "_" in text and not _underscore_ok(text):
        raise syntax
    power = int(exponent.replace("_", "")) if exponent else 0
    base = 16 if hexa else 10
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return -0.0 if sign == "-" else 0.0
    # the value is int(digits) * base**(power10 or a power of two); reject the absurd before building it
    if hexa:
        scale = power - 4 * len(fraction)
        magnitude = 4 * len(digits) + scale
        too_big, too_small = magnitude > 140, magnitude < -180
    else:
        scale = power - len(fraction)
        magnitude = len(digits) + scale
        too_big, too_small = magnitude > 42, magnitude < -50
    if too_big:
        raise GoParseError(f'strconv.ParseFloat: parsing "{_short(text)}": value out of range')
    if too_small:
        return -0.0 if sign == "-" else 0.0
    exact = Fraction(int(digits, base)) * (Fraction(2) ** scale if hexa else Fraction(10) ** scale)
    value = _round_float32(-exact if sign == "-" else exact)
    if math.isinf(value):
        raise GoParseError(f'strconv.ParseFloat: parsing "{_short(text)}": value out of range')
    return value


def parse_percentage(text: str) -> float:
    """parsePercentage (pkg/kubelet/eviction/helpers.go): ParseFloat(TrimRight(text, "%"), 32), then a
    float32 division by 100: the fraction (0.05 for "5%")."""
    return float32(parse_float32(text.rstrip("%")) / 100)
