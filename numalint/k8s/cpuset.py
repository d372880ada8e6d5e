"""Linux CPU lists (``0-3,8-11``), parsed as strictly as k8s.io/utils/cpuset.Parse."""

from __future__ import annotations

import re
from collections.abc import Iterable


class CPUSetError(ValueError):
    """The text is not a Linux CPU list."""


MAX_CPU_ID = 65535  # far above the kernel's NR_CPUS; keeps hostile ranges from exhausting memory
MAX_CPUSET_TEXT = 1 << 20  # 1 MiB of CPU list is already ~150,000 ids: refuse more without splitting it
_ATOI = re.compile(r"[+-]?[0-9]{1,19}", re.ASCII)  # strconv.Atoi: ASCII digits (not '²' or '٣'), an int64


def _atoi(text: str, part: str) -> int:
    if not _ATOI.fullmatch(text):
        raise CPUSetError(f'invalid CPU list element "{_short(part)}"')
    return int(text)


def _short(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:30]}... ({len(text)} characters)"


def parse_cpuset(text: str) -> frozenset[int]:
    """Parse ``"0-3,8"`` as k8s.io/utils/cpuset.Parse does (ASCII digits only; the empty string is the empty
    set; spaces are errors), in time linear in the text, with CPU ids capped at MAX_CPU_ID."""
    if text == "":
        return frozenset()
    if len(text) > MAX_CPUSET_TEXT:
        raise CPUSetError(f"a CPU list of {len(text)} characters is beyond any machine")
    ranges: list[tuple[int, int]] = []
    for part in text.split(","):
        bounds = part.split("-", 1)
        low = _atoi(bounds[0], part)
        high = _atoi(bounds[1], part) if len(bounds) == 2 else low
        if low > high:
            raise CPUSetError(f'invalid range "{_short(part)}" (start {low} > end {high})')
        if high > MAX_CPU_ID:
            raise CPUSetError(f'CPU {high} in "{_short(part)}" is beyond any machine (at most {MAX_CPU_ID})')
        ranges.append((low, high))
    cpus: list[int] = []
    for low, high in sorted(ranges):  # "0-65535" repeated 8,000 times expands once, not 8,000 times
        start = max(low, cpus[-1] + 1) if cpus else low
        cpus.extend(range(start, high + 1))
    return frozenset(cpus)


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
