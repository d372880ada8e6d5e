"""Declared node topologies: numalint's NodeTopology kind and NodeResourceTopology.

Turns a document into a Machine for the alignment core plus the pool it
describes (node labels, number of nodes, kubelet configuration).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from numalint import catalogue as registry
from numalint.alignment.machine import CPU, Device, Machine, NUMANode
from numalint.findings import Finding, ObjectRef
from numalint.k8s.cpuset import MAX_CPU_ID, CPUSetError, format_cpuset, parse_cpuset
from numalint.k8s.quantity import try_quantity
from numalint.reading.locate import as_list, get, locate
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span


@dataclass
class NIC:
    """An SR-IOV capable physical function."""

    pci_address: str
    interface: str
    vendor: str
    device_id: str
    total_vfs: int
    numa: int | None


@dataclass
class TopologyView:
    doc: Document
    ref: ObjectRef
    machine: Machine
    node_labels: dict[str, str] = field(default_factory=dict)
    nodes: int = 1
    kubelet_config: str | None = None
    nics: list[NIC] = field(default_factory=list)
    attributes: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.ref.name

    @property
    def file(self) -> str:
        return self.doc.file

    def anchor(self) -> Span:
        return locate(self.doc.root, ("metadata", "name"))

    @cached_property
    def nics_by(self) -> dict[str, dict[str, list[int]]]:
        """The NICs (their places in ``nics``) by "interface", "address" and "vendor" (lower case), made once: an
        SR-IOV policy finds the NICs it may select without trying each (``Policy.nics_of``)."""
        index: dict[str, dict[str, list[int]]] = {"interface": {}, "address": {}, "vendor": {}}
        for place, nic in enumerate(self.nics):
            index["interface"].setdefault(nic.interface, []).append(place)
            index["address"].setdefault(nic.pci_address, []).append(place)
            index["vendor"].setdefault(nic.vendor.lower(), []).append(place)
        return index


MAX_COUNT = 4096  # devices per entry, VFs per PF, CPUs per NRT zone: hostile numbers must not hang a run
MAX_POOL_NODES = 1000
MAX_POOL_CPUS = 2**17  # CPUs of all simulated nodes of a pool (1,000 x 128); 1,000 x 65,536 CPUs needed 5 GB


def _int(value: Any, default: int | None = None) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _bytes(value: Any) -> int:
    amount = try_quantity(value)
    return int(amount) if amount is not None and amount >= 0 else 0


def topology_from_document(doc: Document, findings: list[Finding]) -> TopologyView | None:
    return _node_topology(doc, findings)


def _node_topology(doc: Document, findings: list[Finding]) -> TopologyView | None:
    spec = get(doc.root, ("spec",))
    if isinstance(spec, dict) and "numaNodes" in spec and spec["numaNodes"] is None:
        # the schema lets a null through (Go reads it as an empty list), but a pool of no NUMA node is nothing
        findings.append(registry.finding(
            "schema", "spec.numaNodes: null: a NodeTopology must declare its NUMA nodes; this topology is ignored",
            doc.file, locate(doc.root, ("spec", "numaNodes"), key=True)))
    if not isinstance(spec, dict) or not isinstance(spec.get("numaNodes"), list):
        return None
    raw_nodes = [n for n in spec["numaNodes"] if isinstance(n, dict)]
    sockets = _int(spec.get("sockets"), None) or len(raw_nodes) or 1
    per_socket = max(1, len(raw_nodes) // sockets)
    threads = _int(spec.get("threadsPerCore"), 1) or 1
    nodes: list[NUMANode] = []
    cpus: dict[int, CPU] = {}
    devices: list[Device] = []
    seen: set[int] = set()
    for index, raw in enumerate(spec["numaNodes"]):
        if not isinstance(raw, dict):
            continue
        numa = _int(raw.get("id"), index)
        if numa is None or not 0 <= numa <= 63:
            continue  # the schema rule reports ids outside 0-63
        if numa in seen:  # else 5,000 entries of ids 0-63 would be 5,000 NUMA nodes
            findings.append(registry.finding(
                "schema", f"spec.numaNodes.{index}: NUMA node id {numa} is declared twice; this entry is ignored",
                doc.file,
                                    locate(doc.root, ("spec", "numaNodes", index, "id"))))
            continue
        seen.add(numa)
        socket = _int(raw.get("socket"), numa // per_socket)
        assert socket is not None
        hugepages: dict[int, int] = {}
        if isinstance(raw.get("hugepages"), dict):
            for size, count in raw["hugepages"].items():
                page = try_quantity(size)
                if page is not None and _int(count) is not None:
                    hugepages[int(page)] = int(count)
        distances = raw.get("distances")
        row = [d for d in distances if _int(d) is not None] if isinstance(distances, list) else []
        nodes.append(NUMANode(numa, _bytes(raw.get("memory")), hugepages,
                              row if isinstance(distances, list) and len(row) == len(distances) else None))
        taken: set[int] = set()  # CPUs an earlier NUMA node already holds: a CPU sits on one node
        for core_threads, l3 in _cores(raw, threads, doc, ("spec", "numaNodes", index), findings):
            core_id = min(core_threads)
            for cpu in core_threads:
                if cpu in cpus and cpus[cpu].numa != numa:
                    taken.add(cpu)
                    continue
                cpus[cpu] = CPU(cpu, core_id, socket, numa, socket if l3 is None else l3)
        if taken:
            findings.append(registry.finding(
                "schema", f"spec.numaNodes.{index}: CPUs {format_cpuset(frozenset(taken))} are already on another NUMA "
                          "node; a CPU belongs to one, so the first one keeps them", doc.file,
                locate(doc.root, ("spec", "numaNodes", index, "cpus"))))
    for i, raw in enumerate(as_list(spec.get("devices"))):
        if not isinstance(raw, dict) or not isinstance(raw.get("resource"), str):
            continue
        numa_raw = raw.get("numaNode")
        numa_dev = _int(numa_raw)
        if numa_dev is not None and numa_dev < 0:
            numa_dev = None
        for n in range(min(_int(raw.get("count"), 1) or 0, MAX_COUNT)):
            devices.append(Device(raw["resource"], str(raw.get("id", f"{raw['resource']}-{i}-{n}")), numa_dev))
    nics = []
    for raw in as_list(spec.get("nics")):
        if isinstance(raw, dict):
            numa_nic = _int(raw.get("numaNode"))
            nics.append(NIC(str(raw.get("pciAddress", "")), str(raw.get("interface", "")),
                            str(raw.get("vendor", "")), str(raw.get("deviceID", "")),
                            min(_int(raw.get("totalVfs"), 0) or 0, MAX_COUNT),
                            numa_nic if numa_nic is not None and numa_nic >= 0 else None))
    pool: dict[str, Any] = spec["pool"] if isinstance(spec.get("pool"), dict) else {}
    labels: dict[str, Any] = pool["nodeSelector"] if isinstance(pool.get("nodeSelector"), dict) else {}
    name = get(doc.root, ("metadata", "name"))
    count = min(max(_int(pool.get("nodes"), 1) or 1, 1), MAX_POOL_NODES)
    if count * max(len(cpus), 1) > MAX_POOL_CPUS:
        count = max(1, MAX_POOL_CPUS // len(cpus))
        findings.append(registry.finding(
            "schema", f"spec.pool.nodes: {pool.get('nodes')} nodes of {len(cpus)} CPUs are more "
                                          f"than numalint simulates ({MAX_POOL_CPUS} CPUs in all); {count} are "
                                          "simulated", doc.file, locate(doc.root, ("spec", "pool", "nodes")),
                                severity="warning"))
    return TopologyView(
        doc=doc, ref=ObjectRef(doc.api_version, doc.kind, str(name) if name else "<unnamed>"),
        machine=Machine(nodes, cpus, devices),
        node_labels={str(k): "" if v is None else str(v) for k, v in labels.items()},
        nodes=count,
        kubelet_config=str(pool["kubeletConfig"]) if pool.get("kubeletConfig") else None, nics=nics)


def _sample(ids: list[int]) -> str:
    return str(ids) if len(ids) <= 4 else f"[{ids[0]}, {ids[1]}, ... {ids[-1]}] ({len(ids)} ids)"


def _cores(raw: dict[str, Any], threads: int, doc: Document, path: tuple[Any, ...],
           findings: list[Finding]) -> list[tuple[list[int], int | None]]:
    """(SMT siblings, L3 id) of each core of one NUMA node, from ``cores`` or ``cpus`` + threadsPerCore."""
    if isinstance(raw.get("cores"), list):
        groups: list[tuple[list[int], int | None]] = []
        for core in raw["cores"]:
            l3 = None
            if isinstance(core, dict):
                l3 = _int(core.get("l3"))
                core = core.get("cpus")
            if isinstance(core, str):
                try:
                    groups.append((sorted(parse_cpuset(core)), l3))
                except CPUSetError:
                    continue
            elif isinstance(core, list):
                ids = [c for c in core if _int(c) is not None]
                if any(not 0 <= c <= MAX_CPU_ID for c in ids):
                    findings.append(registry.finding("schema", f"cores: CPU ids are at most {MAX_CPU_ID}; the core "
                                                      f"{_sample(ids)} is ignored", doc.file,
                                            locate(doc.root, path + ("cores",))))
                    continue
                groups.append((sorted(ids), l3))
        return [g for g in groups if g[0]]
    text = raw.get("cpus")
    if not isinstance(text, str):
        return []
    try:
        ordered = sorted(parse_cpuset(text))
    except CPUSetError as err:
        findings.append(registry.finding("schema", f"cpus: {err}", doc.file, locate(doc.root, path + ("cpus",))))
        return []
    if threads <= 1 or len(ordered) % threads:
        return [([c], None) for c in ordered]
    # Linux numbers SMT siblings one "half" apart within a node: cpu i pairs with cpu i + n/threads.
    per = len(ordered) // threads
    return [([ordered[i + t * per] for t in range(threads)], None) for i in range(per)]
