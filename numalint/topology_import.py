"""Other descriptions of a node's topology: NodeResourceTopology objects.

NRT zones are NUMA nodes (``node-<id>``); their cpu, memory, hugepages and
device capacities become the machine; ``costs`` are distances; attributes carry
the kubelet's policy and scope. NRT does not list CPU ids or SMT siblings, so
each zone's CPUs are numbered consecutively, one thread per core.
"""

from __future__ import annotations

import re
from typing import Any

from .alignment.machine import CPU, Device, Machine, NUMANode
from .findings import Finding, ObjectRef
from .locate import as_list, get
from .quantity import try_quantity
from .sources import Document
from .topology_view import MAX_COUNT

_ZONE_RE = re.compile(r"^node-(\d+)$")
# the deprecated topologyPolicies field of NodeResourceTopology
LEGACY_POLICIES = {
    "SingleNUMANodeContainerLevel": ("single-numa-node", "container"),
    "SingleNUMANodePodLevel": ("single-numa-node", "pod"),
    "Restricted": ("restricted", "container"), "RestrictedContainerLevel": ("restricted", "container"),
    "RestrictedPodLevel": ("restricted", "pod"), "BestEffort": ("best-effort", "container"),
    "BestEffortContainerLevel": ("best-effort", "container"), "BestEffortPodLevel": ("best-effort", "pod"),
    "None": ("none", "container"),
}


def machine_from_nrt(doc: Document, findings: list[Finding]) -> Any:
    from .topology_view import TopologyView

    zones = [z for z in as_list(get(doc.root, ("zones",))) if isinstance(z, dict)]
    numa_zones = []
    for index, zone in enumerate(zones):
        if zone.get("type", "Node") != "Node":
            continue
        match = _ZONE_RE.match(str(zone.get("name", "")))
        numa = int(match.group(1)) if match else index
        if 0 <= numa <= 63:
            numa_zones.append((numa, zone))
    if not numa_zones:
        return None
    numa_zones.sort(key=lambda item: item[0])
    ids = [numa for numa, _ in numa_zones]
    nodes: list[NUMANode] = []
    cpus: dict[int, CPU] = {}
    devices: list[Device] = []
    next_cpu = 0
    for numa, zone in numa_zones:
        memory = 0
        hugepages: dict[int, int] = {}
        for res in as_list(zone.get("resources")):
            if not isinstance(res, dict):
                continue
            name = str(res.get("name", ""))
            capacity = try_quantity(res.get("capacity"))
            if capacity is None:
                continue
            if name == "cpu":
                for _ in range(min(int(capacity), MAX_COUNT)):
                    cpus[next_cpu] = CPU(next_cpu, next_cpu, 0, numa, 0)
                    next_cpu += 1
            elif name == "memory":
                memory = int(capacity)
            elif name.startswith("hugepages-"):
                page = try_quantity(name[len("hugepages-"):])
                if page:
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


class ImportFormatError(Exception):
    """The file is none of the formats ``topology import`` reads."""


def import_topology(text: str, name: str) -> str:
    """numactl --hardware text, lscpu -p output or a NodeResourceTopology object -> NodeTopology YAML."""
    from .topology_emit import topology_document

    stripped = text.lstrip()
    if stripped.startswith("available:") or "node distances:" in text:
        return topology_document(name, _from_numactl(text), comments=[
            "imported from numactl --hardware: no SMT siblings or sockets known; each CPU is its own core"])
    if stripped.startswith("#") and ("CPU," in text or "# CPU" in text):
        return topology_document(name, _from_lscpu(text), comments=[
            "imported from lscpu -p: lscpu reports no memory; fill in each NUMA node's memory"])
    if "NodeResourceTopology" in text:
        from .sources import Document
        from .yamlpos import YamlError, YMap, load_all

        try:
            docs = load_all(text)
        except YamlError as err:
            raise ImportFormatError(f"not readable YAML: {err.message} (line {err.line})") from None
        for root, span in docs:
            if isinstance(root, YMap) and root.get("kind") == "NodeResourceTopology":
                view = machine_from_nrt(Document("-", 0, root, span), [])
                if view is None:
                    raise ImportFormatError("the NodeResourceTopology has no NUMA zones")
                return topology_document(str(get(root, ("metadata", "name")) or name), view.machine, comments=[
                    "imported from a NodeResourceTopology: CPU ids are numbered per zone, one thread per core"])
    raise ImportFormatError("not numactl --hardware output, lscpu -p output or a NodeResourceTopology object")


def _from_numactl(text: str) -> Machine:
    cpus_of: dict[int, list[int]] = {}
    size_of: dict[int, int] = {}
    distances: dict[int, list[int]] = {}
    in_distances = False
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "node" and parts[1].isdigit():
            node = int(parts[1])
            if parts[2] == "cpus:":
                cpus_of[node] = [int(p) for p in parts[3:] if p.isdigit()]
            elif parts[2] == "size:" and len(parts) >= 5 and parts[3].isdigit():
                size_of[node] = int(parts[3]) * 2**20
        elif line.startswith("node distances:"):
            in_distances = True
        elif in_distances and parts and parts[0].endswith(":") and parts[0][:-1].isdigit():
            distances[int(parts[0][:-1])] = [int(p) for p in parts[1:] if p.isdigit()]
    nodes = sorted(set(cpus_of) | set(size_of))
    if not nodes:
        raise ImportFormatError("numactl output without NUMA nodes")
    numa = [NUMANode(n, size_of.get(n, 0), {}, distances.get(n)) for n in nodes]
    machine_cpus = {c: CPU(c, c, 0, n, 0) for n in nodes for c in cpus_of.get(n, [])}
    return Machine(numa, machine_cpus)


def _from_lscpu(text: str) -> Machine:
    header: list[str] = []
    rows: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("#"):
            candidate = [h.strip().upper() for h in line.lstrip("#").split(",")]
            if "CPU" in candidate:
                header = candidate
        elif line.strip():
            rows.append(line.strip().split(","))
    if not header:
        raise ImportFormatError("lscpu -p output without its column header")
    col = {name: i for i, name in enumerate(header) if name}

    def field(row: list[str], name: str) -> int | None:
        i = col.get(name)
        return int(row[i]) if i is not None and i < len(row) and row[i].isdigit() else None

    cores: dict[int, list[int]] = {}
    info: dict[int, tuple[int, int, int, int | None]] = {}
    for row in rows:
        cpu = field(row, "CPU")
        if cpu is None:
            continue
        core, socket, node = field(row, "CORE"), field(row, "SOCKET") or 0, field(row, "NODE") or 0
        core = cpu if core is None else core
        cores.setdefault(core, []).append(cpu)
        info[cpu] = (core, socket, node, field(row, "L3"))
    machine_cpus = {}
    for cpu, (core, socket, node, l3) in info.items():
        machine_cpus[cpu] = CPU(cpu, min(cores[core]), socket, node, socket if l3 is None else l3)
    nodes = sorted({c.numa for c in machine_cpus.values()})
    return Machine([NUMANode(n) for n in nodes], machine_cpus)
