"""Rendering a simulation: a readable table with a bar per NUMA node, or JSON."""

from __future__ import annotations

import json
from typing import Any

from numalint.k8s.cpuset import format_cpuset
from numalint.k8s.quantity import format_bytes
from numalint.output.escape import escape_text
from numalint.simulation.simulate import PoolRun

BAR = 20


def _amount(resource: str, value: int) -> str:
    return format_bytes(value) if resource == "memory" or resource.startswith("hugepages-") else str(value)


def _bar(entry: dict[str, int]) -> str:
    capacity = entry["capacity"] or 1
    used = round(BAR * (entry["allocated"] + entry["reserved"]) / capacity)
    reserved = round(BAR * entry["reserved"] / capacity)
    return "[" + "r" * reserved + "#" * max(0, used - reserved) + "." * max(0, BAR - used) + "]"


def pools_json(runs: list[PoolRun]) -> dict[str, Any]:
    pools = []
    pods = []
    for run in runs:
        topo, profile = run.pool.topology, run.pool.profile
        pools.append({
            "name": run.pool.name, "why": run.pool.why, "topology": topo.name if topo else None,
            "kubelet_config": profile.name if profile else None, "start_error": run.start_error,
            "topology_policy": run.settings.topology_policy, "topology_scope": run.settings.topology_scope,
            "nodes": [{"name": node.name, "numa_nodes": [{"id": numa, "resources": usage}
                                                          for numa, usage in node.usage().items()]}
                      for node in run.nodes]})
        for pod in run.pods:
            admission = pod.admission
            assert admission is not None
            namespace = pod.view.ref.namespace
            pods.append({
                "name": pod.name.split("/", 1)[-1], "namespace": namespace, "pool": run.pool.name, "node": pod.node,
                "workload": {"kind": pod.view.ref.kind, "name": pod.view.ref.name, "file": pod.view.file},
                "admitted": admission.admitted, "reason": admission.reason,
                "message": admission.message or None, "numa_nodes": admission.numa_nodes,
                "containers": [{"name": c.name, "cpus": c.cpus, "numa_nodes": c.numa_nodes, "devices": c.devices}
                               for c in admission.containers]})
    return {"version": 1, "pools": pools, "pods": pods}


def render_json(runs: list[PoolRun]) -> str:
    return json.dumps(pools_json(runs), indent=2) + "\n"


def render_text(runs: list[PoolRun]) -> str:

    lines: list[str] = []
    names = [r for run in runs for node in run.nodes[:1] for usage in node.usage().values() for r in usage]
    width = 2 + max((len(r) for r in names), default=14)
    if not runs:
        return ("no pool to simulate: give a NodeTopology (or NodeResourceTopology) with --topology or among "
                "the inputs\n")
    for run in runs:
        s = run.settings
        lines.append(f"pool {run.pool.name}: {len(run.nodes)} node(s); topology {s.topology_policy}/"
                     f"{s.topology_scope}, cpu {s.cpu_policy}, memory {s.memory_policy}  ({run.pool.why})")
        if run.start_error:
            not_simulated = run.start_error.startswith("not simulated:")  # numalint's limit, not the kubelet's
            lines.append(f"  {'' if not_simulated else 'the kubelet does not start: '}{run.start_error}")
            continue
        for node in run.nodes:
            lines.append(f"  node {node.name}")
            for numa, usage in node.usage().items():
                label = f"NUMA {numa}"
                for resource, entry in usage.items():
                    if not entry["capacity"]:
                        continue
                    lines.append(f"    {label:<8}{resource:<{width}}{_bar(entry)} "
                                 f"capacity {_amount(resource, entry['capacity'])}, "
                                 f"reserved {_amount(resource, entry['reserved'])}, "
                                 f"allocated {_amount(resource, entry['allocated'])}, "
                                 f"free {_amount(resource, entry['free'])}")
                    label = ""
        for pod in run.pods:
            admission = pod.admission
            assert admission is not None
            if admission.admitted:
                where = f"NUMA {','.join(map(str, admission.numa_nodes))}" if admission.numa_nodes else "shared pool"
                cpus = "; ".join(f"{c.name}: cpus {format_cpuset(c.cpus)}" for c in admission.containers if c.cpus)
                lines.append(f"  admitted  {pod.name} -> {pod.node} {where}" + (f"  ({cpus})" if cpus else ""))
            else:
                lines.append(f"  REJECTED  {pod.name} -> {pod.node or '-'}: {admission.reason}: {admission.message}")
    return "\n".join(escape_text(line) for line in lines) + "\n"  # names and messages come from the inputs
