"""One finding per cause: the replicas of a workload rejected for the same reason become one finding
("9 of 10 replicas rejected"), and findings repeated word for word are shown once."""

from __future__ import annotations

import re
from dataclasses import replace

from numalint.findings import Finding
from numalint.output.sources import SourceFiles

PER_REPLICA_RULES = frozenset({"admission-failure", "smt-alignment"})


def _replica_pattern(name: str) -> re.Pattern[str]:
    """``name-3`` (the simulation names replica pods ``name-0``, ``name-1``...) not followed by more name."""
    return re.compile(rf"(?<![\w.-]){re.escape(name)}-(\d+)(?![\w.-]*\w)")


def group_findings(findings: list[Finding], sources: SourceFiles | None = None) -> list[Finding]:
    """Merge per-replica findings of one workload whose messages differ only in the replica suffix, and drop
    exact repeats; the order of first appearance is kept."""
    out: list[Finding] = []
    groups: dict[tuple[object, ...], tuple[int, list[int]]] = {}
    seen: set[tuple[object, ...]] = set()
    for finding in findings:
        exact = (finding.rule, finding.file, finding.span, finding.message, finding.cluster)
        if exact in seen:
            continue
        seen.add(exact)
        obj = finding.obj
        if finding.rule not in PER_REPLICA_RULES or obj is None or obj.kind == "Pod":
            out.append(finding)
            continue
        pattern = _replica_pattern(obj.pod_prefix())
        numbers = [int(m.group(1)) for m in pattern.finditer(finding.message)]
        if not numbers or len(set(numbers)) != 1:
            out.append(finding)
            continue
        shape = pattern.sub(f"{obj.pod_prefix()}-#", finding.message)
        key = (finding.rule, finding.file, finding.span, finding.cluster, obj, shape)
        if key in groups:
            groups[key][1].append(numbers[0])
            continue
        groups[key] = (len(out), [numbers[0]])
        out.append(finding)
    for index, numbers in groups.values():
        if len(numbers) < 2:
            continue
        first = out[index]
        assert first.obj is not None
        total = sources.replicas(first) if sources is not None else None
        shown = _ranges(sorted(numbers))
        count = f"{len(numbers)} of {total}" if total and total >= len(numbers) else str(len(numbers))
        prefix = first.obj.pod_prefix()
        message = _replica_pattern(prefix).sub(f"{prefix}-N", first.message)
        out[index] = replace(first, message=f"{count} replicas rejected (N = {shown}): {message}")
    return out


def _ranges(numbers: list[int]) -> str:
    parts: list[str] = []
    start = previous = numbers[0]
    for number in numbers[1:] + [-2]:
        if number == previous + 1:
            previous = number
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = number
    return ", ".join(parts)
