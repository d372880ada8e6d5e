"""`numalint topology import`: numactl --hardware, lscpu -p or a NodeResourceTopology object turned
into a NodeTopology document."""

from __future__ import annotations

from numalint.alignment.machine import CPU, Machine, NUMANode
from numalint.reading.locate import get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import YamlError, YMap, load_all
from numalint.topology.emit import topology_document
from numalint.views.nrt import machine_from_nrt


class ImportFormatError(Exception):
    """The file is none of the formats ``topology import`` reads."""


def import_topology(text: str, name: str) -> str:
    """numactl --hardware text, lscpu -p output or a NodeResourceTopology object -> NodeTopology YAML."""
    stripped = text.lstrip()
    if stripped.startswith("available:") or "node distances:" in text:
        return topology_document(name, _from_numactl(text), comments=[
            "imported from numactl --hardware: no SMT siblings or sockets known; each CPU is its own core"])
    if stripped.startswith("#") and ("CPU," in text or "# CPU" in text):
        return topology_document(name, _from_lscpu(text), comments=[
            "imported from lscpu -p: lscpu reports no memory; fill in each NUMA node's memory"])
    if "NodeResourceTopology" in text:
        try:
            docs = load_all(text)
        except YamlError as err:
            raise ImportFormatError(f"not readable YAML: {err.message} (line {err.line})") from None
        for root, span in docs:
            if isinstance(root, YMap) and root.get("kind") == "NodeResourceTopology":
                view = machine_from_nrt(Document("-", 0, root, span), [], hardware=True)
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
