"""NodeResourceTopology objects as node topologies.

NRT zones are NUMA nodes (``node-<id>``); their cpu, memory, hugepages and
device amounts become the machine (``available`` or ``allocatable`` when below ``capacity``: what the
scheduler plugin sees); ``costs`` are distances; attributes carry
the kubelet's policy and scope. NRT does not list CPU ids or SMT siblings, so
each zone's CPUs are numbered consecutively, one thread per core.
"""

from __future__ import annotations

import re
from fractions import Fraction

from numalint import catalogue as registry
from numalint.alignment.machine import CPU, Device, Machine, NUMANode
from numalint.findings import Finding, ObjectRef
from numalint.k8s.cpuset import MAX_CPU_ID
from numalint.k8s.quantity import try_quantity
from numalint.reading.locate import as_list, get, locate
from numalint.reading.sources import Document
from numalint.views.topology import MAX_COUNT, TopologyView

_ZONE_RE = re.compile(r"node-([0-9]+)", re.ASCII)
# the deprecated topologyPolicies field of NodeResourceTopology
LEGACY_POLICIES = {
    "SingleNUMANodeContainerLevel": ("single-numa-node", "container"),
    "SingleNUMANodePodLevel": ("single-numa-node", "pod"),
    "Restricted": ("restricted", "container"), "RestrictedContainerLevel": ("restricted", "container"),
    "RestrictedPodLevel": ("restricted", "pod"), "BestEffort": ("best-effort", "container"),
    "BestEffortContainerLevel": ("best-effort", "container"), "BestEffortPodLevel": ("best-effort", "pod"),
    "None": ("none", "container"),
}


def _zone_problem(doc: Document, index: int, message: str) -> Finding:
    return registry.finding("schema", f"zones.{index}: {message}", doc.file, locate(doc.root, ("zones", index, "name")))


def _usable(resource: dict[str, object], hardware: bool) -> Fraction | None:
    """What the NodeResourceTopology scheduler plugin can hand out in a zone: ``available`` (or
    ``allocatable``) when it is below ``capacity`` (scheduler-plugins pkg/noderesourcetopology fits pods
    against the zone's available resources); ``hardware``: the capacity alone (``topology import``)."""
    fields = ("capacity",) if hardware else ("capacity", "allocatable", "available")
    figures = [q for q in (try_quantity(resource.get(k)) for k in fields) if q is not None and q >= 0]
    return min(figures) if figures else None


def machine_from_nrt(doc: Document, findings: list[Finding], hardware: bool = False) -> TopologyView | None:
    """The machine of an NRT object; zones numalint cannot model (ids beyond 63, repeated ids, CPUs beyond
    MAX_CPU_ID) are findings, not silently dropped."""
    numa_zones = []
    seen: set[int] = set()
    ignored: list[tuple[int, str]] = []
    for index, zone in enumerate(as_list(get(doc.root, ("zones",)))):
        if not isinstance(zone, dict) or zone.get("type", "Node") != "Node":
            continue
        match = _ZONE_RE.fullmatch(str(zone.get("name", "")))
        numa = int(match.group(1)) if match and len(match.group(1)) <= 9 else index
        if not 0 <= numa <= 63 or numa in seen:
            ignored.append((index, str(zone.get("name", ""))[:40]))
            continue
        seen.add(numa)
        numa_zones.append((numa, zone, index))
    if ignored:
        names = ", ".join(repr(name) for _, name in ignored[:3]) + (", ..." if len(ignored) > 3 else "")
        findings.append(_zone_problem(doc, ignored[0][0], f"{len(ignored)} NUMA zone(s) ignored ({names}): numalint "
                                      "supports NUMA ids 0-63, each once, as in its NodeTopology schema"))
    if not numa_zones:
        return None
    numa_zones.sort(key=lambda item: item[0])
    ids = [numa for numa, _, _ in numa_zones]
    nodes: list[NUMANode] = []
    cpus: dict[int, CPU] = {}
    devices: list[Device] = []
    next_cpu = 0
    for numa, zone, index in numa_zones:
        memory = 0
        hugepages: dict[int, int] = {}
        for res in as_list(zone.get("resources")):
            if not isinstance(res, dict):
                continue
            name = str(res.get("name", ""))
            capacity = _usable(res, hardware)
            if capacity is None:
                continue
            if name == "cpu":
                if next_cpu + min(int(capacity), MAX_COUNT) > MAX_CPU_ID + 1:
                    findings.append(_zone_problem(doc, index, f"its CPUs are ignored: more than {MAX_CPU_ID + 1} "
                                                              "CPUs in all"))
                    continue
                for _ in range(min(int(capacity), MAX_COUNT)):
                    cpus[next_cpu] = CPU(next_cpu, next_cpu, 0, numa, 0)
                    next_cpu += 1
            elif name == "memory":
                memory = int(capacity)
            elif name.startswith("hugepages-"):
                page = try_quantity(name[len("hugepages-"):])
                if page is not None and page > 0:
                    hugepages[int(page)] = int(capacity // page)
            elif "/" in name:
                devices.extend(Device(name, f"{name}-{numa}-{n}", numa) for n in range(min(int(capacity), MAX_COUNT)))
        distances = None
        costs = zone.get("costs")
        if isinstance(costs, list) and costs:
            by_name = {str(c.get("name")): c.get("value") for c in costs if isinstance(c, dict)}
            row = [by_name.get(f"node-{other}") for other in ids]
            if all(isinstance(v, int) for v in row):
                distances = [int(v) for v in row if v is not None]
        nodes.append(NUMANode(numa, memory, hugepages, distances))
    attributes = {str(a.get("name")): str(a.get("value")) for a in as_list(get(doc.root, ("attributes",)))
                  if isinstance(a, dict)}
    legacy = as_list(get(doc.root, ("topologyPolicies",)))
    if legacy and "topologyManagerPolicy" not in attributes:
        policy, scope = LEGACY_POLICIES.get(str(legacy[0]), (None, None))
        if policy:
            attributes.update(topologyManagerPolicy=policy, topologyManagerScope=scope or "container")
    name = get(doc.root, ("metadata", "name"))
    return TopologyView(doc=doc, ref=ObjectRef(doc.api_version, doc.kind, str(name) if name else "<unnamed>"),
                        machine=Machine(nodes, cpus, devices), node_labels={"kubernetes.io/hostname": str(name)},
                        attributes=attributes)


