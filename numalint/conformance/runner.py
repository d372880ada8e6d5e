"""Run numalint's alignment core against kubelet test vectors.

    python -m numalint.alignment.conformance FILE...

Reads the kubelet's own unit-test tables (``kubelet/cases/*.jsonl``) and the differential oracle
vectors (``kubelet/oracle/*.jsonl``), detecting each line's format, applies each line's
``kubernetes_version``, and prints ``N passed, M failed`` per component with the first mismatches.
Exits 1 on any mismatch.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from numalint.conformance import vectors

MAX_SHOWN = 5


def detect(line: dict[str, Any]) -> tuple[str, Callable[[dict[str, Any], dict[str, Any]], Any]] | None:
    """(component, checker) for one vector line, or None when the line is not a vector."""
    component = line.get("component")
    if component == "topologymanager":
        return "topologymanager merge (oracle)", vectors.oracle_merge
    if component == "cpumanager/topology":
        return "cpumanager topology (oracle)", vectors.oracle_cpu_topology
    if component == "cpumanager" and "numa_affinity" in line.get("input", {}):
        return "cpumanager allocation (oracle)", vectors.oracle_cpu_allocation
    if component == "cpumanager":
        return "cpumanager hints (oracle)", vectors.oracle_cpu_hints
    if component == "memorymanager":
        return "memorymanager (oracle)", vectors.oracle_memory
    if "providers" in line and "policy" in line:
        return "topologymanager merge (cases)", vectors.case_merge
    if "best_non_preferred_affinity_count" in line:
        return "topologymanager compare (cases)", vectors.case_compare
    if "filtered_hints" in line:
        return "topologymanager maxOfMinAffinityCounts (cases)", vectors.case_max_of_min
    if "algorithm" in line and "available_cpus" in line:
        return "cpumanager takeByTopology (cases)", vectors.case_take_by_topology
    return None


def run(paths: list[str], out: Any = sys.stdout) -> int:
    results: dict[str, list[int]] = {}
    failures: dict[str, list[str]] = {}
    skipped: dict[str, list[str]] = {}
    context: dict[str, Any] = {}
    for path in paths:
        file = Path(path)
        if file.suffix == ".json" and file.name.startswith("cpumanager_topologies"):
            continue
        context["dir"] = file.parent
        with open(file, encoding="utf-8") as handle:
            for number, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                try:
                    line = json.loads(raw)
                except json.JSONDecodeError as err:
                    results.setdefault("unreadable lines", [0, 0])[1] += 1
                    failures.setdefault("unreadable lines", []).append(f"{file}:{number}: {err}")
                    continue
                found = detect(line)
                if found is None:
                    continue
                component, checker = found
                tally = results.setdefault(component, [0, 0])
                try:
                    problem = checker(line, context)
                except vectors.Skip as skip:
                    skipped.setdefault(component, []).append(f"{file.name}:{number}: {skip}")
                    continue
                except Exception as exc:  # a crash is a mismatch, reported with its input
                    problem = f"raised {type(exc).__name__}: {exc}"
                if problem is None:
                    tally[0] += 1
                else:
                    tally[1] += 1
                    ident = line.get("id") or line.get("name")
                    shown = json.dumps(line.get("input", line))[:600]
                    failures.setdefault(component, []).append(
                        f"{file.name}:{number} [{ident}]: {problem}\n      input: {shown}")
    failed = 0
    for component, (passed, bad) in sorted(results.items()):
        failed += bad
        skips = skipped.get(component, [])
        note = f", {len(skips)} skipped" if skips else ""
        print(f"{component}: {passed} passed, {bad} failed{note}", file=out)
        for message in failures.get(component, [])[:MAX_SHOWN]:
            print(f"  {message}", file=out)
        for message in skips[:MAX_SHOWN]:
            print(f"  skipped {message}", file=out)
    if not results:
        print("no test vectors found", file=out)
        return 1
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    files: list[str] = []
    for arg in args:
        path = Path(arg)
        files.extend(str(p) for p in sorted(path.glob("*.jsonl"))) if path.is_dir() else files.append(arg)
    sys.exit(run(files))


if __name__ == "__main__":
    main()
