"""Kubernetes resource quantities, parsed exactly (``4000m`` == 4, ``1Gi`` == ``1024Mi``)."""

from __future__ import annotations

import math
import re
from fractions import Fraction

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
}
_QUANTITY_RE = re.compile(
    r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?[0-9]{1,18}))?", re.ASCII
)
MAX_QUANTITY = 2**63 - 1  # resource.Quantity caps at the largest int64; numalint reports beyond it
_NANO = 10**9
_SIGNIFICANT = 64  # digits kept: values are below 10**20 and the largest suffix is 2**60, so nano-exact


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity, or one out of range."""


def _shown(value: object) -> str:
    """A short description of a value for a message: never a huge repr (or a 4,300+-digit str())."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"a {value.bit_length()}-bit integer"
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}...' ({len(str(value))} characters)"


def parse_quantity(value: object) -> Fraction:
    """Parse a quantity given as YAML string, int or float like resource.ParseQuantity: in time bounded by the
    text's length, rounded up to a nanounit; raise QuantityError when malformed, non-finite or beyond 2^63-1."""
    if isinstance(value, bool) or value is None:
        raise QuantityError(f"{value!r} is not a quantity")
    if isinstance(value, int):
        if abs(value) > MAX_QUANTITY:
            raise QuantityError(f"{_shown(value)} is out of range (at most 2^63-1)")
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise QuantityError(f"{value} is not a finite number")
        value = repr(value)
    if not isinstance(value, str):
        raise QuantityError(f"{_shown(value)} is not a quantity")
    match = _QUANTITY_RE.fullmatch(value.strip())
    if not match or not (match.group(2) or match.group(3)):
        raise QuantityError(f"{_shown(value)} is not a quantity")
    sign, whole, fraction, suffix, exponent = match.groups()
    fraction = fraction or ""
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return Fraction(0)
    power = int(exponent) if exponent is not None else 0
    multiplier: Fraction | int = _BINARY.get(suffix or "") or _DECIMAL[suffix or ""]
    order = len(digits) - len(fraction) + power  # the value (before the suffix) is below 10**order
    if order > 20:
        raise QuantityError(f"{_shown(value)} is out of range (at most 2^63-1)")
    if order < -40:  # below a nanounit even times 2**60: the API server rounds it up to 1n
        nano = 1
    else:
        kept = digits[:_SIGNIFICANT]
        exact = Fraction(int(kept)) * Fraction(10) ** (order - len(kept)) * multiplier * _NANO
        nano = math.ceil(exact)
        if nano == exact and digits[len(kept):].strip("0"):
            nano += 1  # a non-zero digit beyond those kept: round up as Kubernetes does
    amount = Fraction(nano, _NANO)
    if amount > MAX_QUANTITY:
        raise QuantityError(f"{_shown(value)} is out of range (at most 2^63-1)")
    return -amount if sign == "-" else amount


_PARSED: dict[str, Fraction | None] = {}  # text -> its quantity: a repository repeats a few dozen quantities
_PARSED_MAX = 4096  # texts remembered per process (memory stays bounded whatever the files hold)
_UNSEEN = object()


def try_quantity(value: object) -> Fraction | None:
    """Parse a quantity or return None when it is malformed (a text seen before: from memory; Fractions do
    not change)."""
    if type(value) is str:
        known = _PARSED.get(value, _UNSEEN)
        if known is not _UNSEEN:
            return known  # type: ignore[return-value]
    try:
        amount: Fraction | None = parse_quantity(value)
    except QuantityError:
        amount = None
    if type(value) is str and len(_PARSED) < _PARSED_MAX:
        _PARSED[value] = amount
    return amount


def format_bytes(amount: Fraction | int) -> str:
    """Render bytes in the largest binary unit that keeps an integer (``6244Mi``)."""
    amount = Fraction(amount)
    if amount.denominator != 1:
        return format_cpu(amount)
    value = int(amount)
    if value == 0:
        return "0"
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        unit = _BINARY[suffix]
        if value % unit == 0:
            return f"{value // unit}{suffix}"
    for suffix in ("E", "P", "T", "G", "M", "k"):
        unit = int(_DECIMAL[suffix])
        if value % unit == 0:
            return f"{value // unit}{suffix}"
    return str(value)


def format_cpu(amount: Fraction | int) -> str:
    """Render a CPU quantity: whole numbers plain, others in millicores."""
    amount = Fraction(amount)
    if amount.denominator == 1:
        return str(int(amount))
    milli = amount * 1000
    if milli.denominator == 1:
        return f"{int(milli)}m"
    return str(float(amount))


def format_quantity(resource: str, amount: Fraction | int) -> str:
    """Render a quantity the way a user would write it for ``resource``."""
    if resource == "cpu":
        return format_cpu(amount)
    return format_bytes(amount)
