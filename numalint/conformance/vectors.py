"""Checkers for each test-vector format: build the inputs, run the core, compare with ``expected``.

Each checker returns None when the core agrees, or a short description of the mismatch.
"""

from __future__ import annotations

from typing import Any

from numalint.alignment.bitmask import Mask, bits, mask_of
from numalint.alignment.cpu_assign import PACKED, SPREAD, TakeError, take_distributed, take_packed
from numalint.alignment.cpu_static import AllocationError, PolicyError, StaticPolicy
from numalint.alignment.cputopo import CPUInfo, CPUTopology
from numalint.alignment.memory_static import MemoryAllocationError, MemoryPolicy, MemoryPolicyError
from numalint.alignment.merge import Hint, ManagerError, TopologyManager, compare, max_of_min_counts
from numalint.k8s.cpuset import format_cpuset, parse_cpuset
from numalint.k8s.quantity import parse_quantity
from numalint.k8s.versions import CPU_OPTIONS, TOPOLOGY_OPTIONS, maturity, parse_version


def _hint(raw: dict[str, Any] | None, key: str = "numa_affinity") -> Hint | None:
    if raw is None:
        return None
    numa = raw.get(key)
    return Hint(None if numa is None else mask_of(numa), bool(raw["preferred"]))


def _hint_json(hint: Hint | None, key: str = "numa_affinity") -> dict[str, Any] | None:
    if hint is None:
        return None
    return {key: None if hint.mask is None else bits(hint.mask), "preferred": hint.preferred}


def _version_stages(line: dict[str, Any]) -> dict[str, Any]:
    """Option maturity at the line's Kubernetes version (the oracle enables every option gate)."""

    version = parse_version(line.get("kubernetes_version", "v1.32.10"))
    available = {name: stage for name in TOPOLOGY_OPTIONS if (stage := maturity(TOPOLOGY_OPTIONS, name, version))}
    cpu = {name: stage for name in CPU_OPTIONS if (stage := maturity(CPU_OPTIONS, name, version))}
    return {"available": available, "cpu": cpu, "version": version}


def oracle_merge(line: dict[str, Any], _: dict[str, Any]) -> str | None:
    inp, exp = line["input"], line["expected"]
    distances = None
    if inp.get("numa_distances") is not None:
        distances = {node: row for node, row in zip(inp["numa_nodes"], inp["numa_distances"], strict=True)}
    try:
        manager = TopologyManager.build(inp["policy"], inp["numa_nodes"], distances, inp.get("policy_options") or {},
                                        inp.get("scope", "container"), _version_stages(line)["available"])
    except ManagerError as err:
        return None if str(err) == exp["manager_error"] else f"manager error {err!s} != {exp['manager_error']}"
    if exp.get("manager_error"):
        return f"expected manager error {exp['manager_error']!r}, built a manager"
    providers: list[dict[str, list[Hint] | None] | None] = []
    for provider in inp["providers"]:
        providers.append({r["name"]: None if r["hints"] is None else [h for h in map(_hint, r["hints"]) if h]
                          for r in provider["resources"]})
    best = manager.merge(providers)
    got = {"best_hint": _hint_json(best), "admit": manager.admit(best)}
    want = {"best_hint": exp["best_hint"], "admit": exp["admit"]}
    return None if got == want else f"got {got}, want {want}"


def _case_hint(raw: dict[str, Any] | None) -> Hint | None:
    return _hint(raw, "numa")


def case_merge(line: dict[str, Any], _: dict[str, Any]) -> str | None:
    numa = line["numa"]
    distances = {int(k): v for k, v in numa["distances"].items()} if numa.get("distances") else None
    manager = TopologyManager.build(line["policy"], numa["nodes"], distances, line.get("policy_options") or {})
    providers: list[dict[str, list[Hint] | None] | None] = []
    for provider in line["providers"]:
        if provider is None:
            providers.append(None)
        else:
            providers.append({res: None if hints is None else [h for h in map(_case_hint, hints) if h is not None]
                              for res, hints in provider.items()})
    best = manager.merge(providers)
    got = {"hint": _hint_json(best, "numa"), "admit": manager.admit(best)}
    return None if got == line["expected"] else f"got {got}, want {line['expected']}"


def case_compare(line: dict[str, Any], _: dict[str, Any]) -> str | None:
    manager = TopologyManager.build(line.get("policy", "best-effort"), list(range(8)))
    current, candidate = _case_hint(line["current"]), _case_hint(line["candidate"])
    assert candidate is not None
    result = compare(current, candidate, line["best_non_preferred_affinity_count"], manager._better)
    got = "current" if result is current else "candidate"
    return None if got == line["expected"] else f"got {got}, want {line['expected']}"


def case_max_of_min(line: dict[str, Any], _: dict[str, Any]) -> str | None:
    lists = [[h for h in map(_case_hint, hints) if h is not None] for hints in line["filtered_hints"]]
    got = max_of_min_counts(lists)
    return None if got == line["expected"] else f"got {got}, want {line['expected']}"


def oracle_cpu_topology(line: dict[str, Any], _: dict[str, Any]) -> str | None:

    topo = CPUTopology.from_description(line["input"]["machine"])
    exp = line["expected"]
    got = {"num_cpus": topo.num_cpus, "num_cores": topo.num_cores, "num_sockets": topo.num_sockets,
           "num_numa_nodes": topo.num_numa_nodes, "num_uncore_caches": topo.num_uncore_caches,
           "cpu_details": [{"cpu": c, "core_id": d.core, "socket_id": d.socket, "numa_node_id": d.numa,
                            "uncore_cache_id": d.uncore} for c, d in sorted(topo.details.items())]}
    return None if got == exp else f"got {str(got)[:300]}, want {str(exp)[:300]}"


def oracle_cpu_hints(line: dict[str, Any], _: dict[str, Any]) -> str | None:

    inp, exp = line["input"], line["expected"]
    topo = CPUTopology.from_description(inp["machine"])
    try:
        policy = StaticPolicy.build(topo, inp["num_reserved_cpus"], inp["reserved_cpus"],
                                    inp.get("cpu_policy_options") or {}, available=_version_stages(line)["cpu"])
    except PolicyError as err:
        return None if str(err) == exp["policy_error"] else f"policy error {err!s} != {exp['policy_error']}"
    if exp.get("policy_error"):
        return f"expected policy error {exp['policy_error']!r}"
    state = policy.new_state(frozenset(inp["allocated_elsewhere"]))
    hints = policy.hints_for(state, inp["request"])
    got: dict[str, Any] = {"reserved_cpus": sorted(policy.reserved), "available_cpus": sorted(policy.available(state)),
                           "hints": [_hint_json(h) for h in hints]}
    want = {k: exp[k] for k in got}
    if got != want:
        return f"got {got}, want {want}"
    nodes = sorted(topo.numa_nodes)
    for tm_policy, merged in exp["merged_by_policy"].items():
        manager = TopologyManager.build(tm_policy, nodes)
        best = manager.merge([{"cpu": hints}])
        mine = {"best_hint": _hint_json(best), "admit": manager.admit(best)}
        if mine != merged:
            return f"{tm_policy}: got {mine}, want {merged}"
    return None


def oracle_cpu_allocation(line: dict[str, Any], context: dict[str, Any]) -> str | None:

    inp, exp = line["input"], line["expected"]
    machine = inp.get("machine") or _machine_for(inp["topology_name"], context)
    topo = CPUTopology.from_description(machine)
    try:
        policy = StaticPolicy.build(topo, inp["num_reserved_cpus"], inp["reserved_cpus"],
                                    inp.get("cpu_policy_options") or {}, available=_version_stages(line)["cpu"])
    except PolicyError as err:
        return None if str(err) == exp.get("error") else f"policy error {err!s}"
    state = policy.new_state(frozenset(inp["allocated_elsewhere"]))
    affinity: Mask | None = None if inp["numa_affinity"] is None else mask_of(inp["numa_affinity"])
    got: dict[str, Any] = {"reserved_cpus": sorted(policy.reserved), "available_cpus": sorted(policy.available(state))}
    try:
        cpus = policy.allocate(state, ("pod", "c"), inp["request"], affinity)
        got.update(cpus=sorted(cpus), error=None)
    except AllocationError as err:
        got.update(cpus=None, error=str(err))
    want = {k: exp.get(k) for k in got}
    if want["error"] is not None:
        got["cpus"] = want["cpus"]
    return None if got == want else f"got {got}, want {want}"


def _machine_for(name: str, context: dict[str, Any]) -> dict[str, Any]:
    """cpu-allocation lines name their machine; it is described in cpu-topologies.jsonl or cpu-hints.jsonl."""
    import json

    cache = context.setdefault("machines", {})
    if name not in cache:
        for candidate in ("cpu-topologies.jsonl", "cpu-hints.jsonl"):
            path = context["dir"] / candidate
            if path.exists():
                with open(path, encoding="utf-8") as handle:
                    for raw in handle:
                        line = json.loads(raw)
                        key = line.get("topology_name") or line["input"].get("topology_name")
                        cache.setdefault(key, line["input"]["machine"])
    return cache[name]


class Skip(Exception):
    """The line cannot be evaluated here (its fixture was never transcribed)."""


def _fixture(name: str, context: dict[str, Any]) -> Any:
    import json


    fixtures = context.get("fixtures")
    if fixtures is None:
        path = context["dir"] / "cpumanager_topologies.json"
        raw = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        fixtures = context["fixtures"] = raw
    if name not in fixtures:
        raise Skip(f"topology fixture {name} is not in cpumanager_topologies.json")
    cpus = fixtures[name]["cpus"]
    return CPUTopology({int(c): CPUInfo(v["core"], v["socket"], v["numa"], v.get("uncore", v["socket"]))
                        for c, v in cpus.items()})


def case_take_by_topology(line: dict[str, Any], context: dict[str, Any]) -> str | None:

    topo = _fixture(line["topology"], context)
    available = parse_cpuset(line["available_cpus"])
    sorting = SPREAD if line.get("sorting") == "spread" else PACKED
    uncore = bool((line.get("policy_options") or {}).get("prefer-align-cpus-by-uncorecache"))
    try:
        if line["algorithm"] == "takeByTopologyNUMADistributed":
            cpus = take_distributed(topo, available, line["num_cpus"], line.get("cpu_group_size") or 1, sorting)
        else:
            cpus = take_packed(topo, available, line["num_cpus"], sorting, uncore)
        got = {"error": None, "cpus": format_cpuset(cpus)}
    except TakeError as err:
        got = {"error": str(err), "cpus": ""}
    expected = line["expected"]
    want = {"error": expected["error"], "cpus": format_cpuset(parse_cpuset(expected["cpus"]))}
    return None if got == want else f"got {got}, want {want}"


def oracle_memory(line: dict[str, Any], _: dict[str, Any]) -> str | None:

    inp, exp = line["input"], line["expected"]
    nodes = {n["id"]: (n["memory_bytes"], {h["page_size_bytes"]: h["count"] for h in n["hugepages"]})
             for n in inp["machine"]["numa_nodes"]}
    reserved = {int(k): v for k, v in inp["system_reserved"].items()}
    try:
        policy = MemoryPolicy.build(nodes, reserved)
    except MemoryPolicyError as err:
        return None if str(err) == exp["policy_error"] else f"policy error {err!s} != {exp['policy_error']}"
    distances = {n["id"]: n["distances"] for n in inp["machine"]["numa_nodes"]} \
        if all(n.get("distances") for n in inp["machine"]["numa_nodes"]) else None
    try:
        manager = TopologyManager.build(inp["topology_manager_policy"], sorted(nodes), distances,
                                        inp.get("topology_manager_policy_options") or {}, "container",
                                        _version_stages(line)["available"])
    except ManagerError as err:
        return None if str(err) == exp["manager_error"] else f"manager error {err!s} != {exp['manager_error']}"
    if exp.get("policy_error") or exp.get("manager_error"):
        return f"expected an error: {exp.get('policy_error') or exp.get('manager_error')}"
    state = policy.new_state()
    initial = [{"numa_node": n, "number_of_assignments": s.assignments, "cells": s.cells,
                "memory": {r: {"total": t.total, "system_reserved": t.system_reserved, "allocatable": t.allocatable,
                               "reserved": t.reserved, "free": t.free} for r, t in sorted(s.memory.items())}}
               for n, s in sorted(state.nodes.items())]
    if initial != exp["initial_machine_state"]:
        return f"initial state {initial} != {exp['initial_machine_state']}"
    for index, (container, step) in enumerate(zip(inp["containers"], exp["steps"], strict=False)):
        # getRequestedResources: only memory and hugepages, as whole bytes
        requested = {r: int(parse_quantity(v)) for r, v in container["requests"].items()
                     if r == "memory" or r.startswith("hugepages-")}
        key = (f"pod-{index}", container["name"])
        hints = policy.hints(state, requested, key[0], key)
        hints_json = None if hints is None else {r: [_hint_json(h) for h in lst] for r, lst in hints.items()}
        merged = manager.merge([dict(hints) if hints is not None else None])
        admit = manager.admit(merged)
        error = None
        blocks = None
        if admit:
            try:
                allocated = policy.allocate(state, key, requested, merged)
                rows = [{"numa_affinity": b.numa, "type": b.resource, "size": b.size}
                        for b in sorted(allocated, key=lambda b: b.resource)]
                blocks = rows or None
            except MemoryAllocationError as err:
                error = str(err)
        after = [{"numa_node": n, "number_of_assignments": s.assignments, "cells": sorted(s.cells),
                  "free": {r: t.free for r, t in sorted(s.memory.items())},
                  "reserved": {r: t.reserved for r, t in sorted(s.memory.items())}}
                 for n, s in sorted(state.nodes.items())]
        got = {"container": container["name"], "hints": hints_json, "merged_hint": _hint_json(merged),
               "topology_manager_admit": admit, "allocation_error": error, "admitted": admit and error is None,
               "blocks": blocks, "machine_state_after": after}
        want = dict(step)
        want["machine_state_after"] = [dict(m, cells=sorted(m["cells"])) for m in step["machine_state_after"]]
        if got != want:
            diff = {k: (got[k], want.get(k)) for k in got if got[k] != want.get(k)}
            return f"step {index} ({container['name']}): {str(diff)[:700]}"
    return None
