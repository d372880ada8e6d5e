"""Kubernetes resource quantities, parsed exactly (``4000m`` == 4, ``1Gi`` == ``1024Mi``)."""

from __future__ import annotations

import re
from fractions import Fraction

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18),
}
_QUANTITY_RE = re.compile(
    r"^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?[0-9]+))?$"
)


class QuantityError(ValueError):
    """The text is not a Kubernetes quantity."""


def parse_quantity(value: object) -> Fraction:
    """Parse a quantity given as YAML string, int or float; raise QuantityError."""
    if isinstance(value, bool) or value is None:
        raise QuantityError(f"{value!r} is not a quantity")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(str(value))
    if not isinstance(value, str):
        raise QuantityError(f"{value!r} is not a quantity")
    match = _QUANTITY_RE.match(value.strip())
    if not match:
        raise QuantityError(f"{value!r} is not a quantity")
    sign, number, suffix, exponent = match.groups()
    amount = Fraction(number)
    if exponent is not None:
        amount *= Fraction(10) ** int(exponent)
    elif suffix:
        amount *= _BINARY.get(suffix) or _DECIMAL[suffix]
    return -amount if sign == "-" else amount


def try_quantity(value: object) -> Fraction | None:
    """Parse a quantity or return None when it is malformed."""
    try:
        return parse_quantity(value)
    except QuantityError:
        return None


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
