"""Linux CPU lists (``0-3,8-11``), parsed as strictly as k8s.io/utils/cpuset.Parse."""

from __future__ import annotations

from collections.abc import Iterable

from numalint.k8s.goparse import MAX_CPU_ID, MAX_CPUSET_TEXT, GoParseError  # noqa: F401  (re-exported)
from numalint.k8s.goparse import parse_cpuset as go_parse_cpuset


class CPUSetError(GoParseError):
    """The text is not a Linux CPU list."""


def parse_cpuset(text: str) -> frozenset[int]:
    """Parse ``"0-3,8"`` as k8s.io/utils/cpuset.Parse does (ASCII digits only, the empty string is the empty
    set, spaces are errors), in time linear in the text, CPU ids capped at MAX_CPU_ID; Go's messages."""
    try:
        return go_parse_cpuset(text)
    except GoParseError as err:
        raise CPUSetError(str(err)) from None


def format_cpuset(cpus: Iterable[int]) -> str:
    """Render CPUs as a compact Linux CPU list."""
    ordered = sorted(set(cpus))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ",".join(parts)
