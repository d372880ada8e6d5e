"""Linux CPU lists (``0-3,8-11``), parsed as strictly as k8s.io/utils/cpuset.Parse."""

from __future__ import annotations

from collections.abc import Iterable


class CPUSetError(ValueError):
    """The text is not a Linux CPU list."""


MAX_CPU_ID = 65535  # far above the kernel's NR_CPUS; keeps hostile ranges from exhausting memory


def parse_cpuset(text: str) -> frozenset[int]:
    """Parse ``"0-3,8"``; the empty string is the empty set; spaces are errors."""
    if text == "":
        return frozenset()
    cpus: set[int] = set()
    for part in text.split(","):
        bounds = part.split("-")
        if len(bounds) == 1 and bounds[0].isdigit():
            low = high = int(bounds[0])
        elif len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            low, high = int(bounds[0]), int(bounds[1])
            if low > high:
                raise CPUSetError(f'invalid range "{part}" (start {low} > end {high})')
        else:
            raise CPUSetError(f'invalid CPU list element "{part}"')
        if high > MAX_CPU_ID:
            raise CPUSetError(f'CPU {high} in "{part}" is beyond any machine (at most {MAX_CPU_ID})')
        cpus.update(range(low, high + 1))
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
