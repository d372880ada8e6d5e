"""`numalint topology import`: numactl --hardware, lscpu -p or a NodeResourceTopology object turned
into a NodeTopology document."""

from __future__ import annotations

import re

from numalint.alignment.machine import CPU, Machine, NUMANode
from numalint.findings import Finding
from numalint.k8s.cpuset import MAX_CPU_ID
from numalint.output.escape import escape_text
from numalint.reading.locate import get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import YamlError, YMap, load_all
from numalint.topology.emit import schema_problems, topology_document
from numalint.views.nrt import machine_from_nrt


class ImportFormatError(Exception):
    """The file is none of the formats ``topology import`` reads, or describes what numalint cannot model."""

    def __init__(self, message: str) -> None:
        super().__init__(escape_text(message))  # file names and values in it come from the input


_NUMBER = re.compile(r"[0-9]{1,18}", re.ASCII)  # numactl and lscpu print ASCII digits: '²' or '٣' is not a number


def _number(text: str, what: str) -> int:
    if not _NUMBER.fullmatch(text):
        raise ImportFormatError(f"{what} {text[:40]!r} is not a number")
    return int(text)


def _cpu(text: str, what: str) -> int:
    cpu = _number(text, what)
    if cpu > MAX_CPU_ID:  # at once: a million CPU ids are refused before a million CPU objects exist
        raise ImportFormatError(f"CPU {cpu}: numalint supports CPU ids 0-{MAX_CPU_ID}")
    return cpu


def _machine(machine: Machine) -> Machine:
    """Refuse early what the NodeTopology schema refuses, before writing a document for a million CPUs."""
    bad = [n.id for n in machine.numa_nodes if not 0 <= n.id <= 63]
    if bad:
        raise ImportFormatError(f"NUMA node {bad[0]}: numalint supports NUMA node ids 0-63")
    beyond = [c for c in machine.cpus if c > MAX_CPU_ID]
    if beyond:
        raise ImportFormatError(f"CPU {beyond[0]}: numalint supports CPU ids 0-{MAX_CPU_ID}")
    return machine


def import_topology(text: str, name: str) -> str:
    """numactl --hardware text, lscpu -p output or a NodeResourceTopology object -> NodeTopology YAML that
    passes numalint's own schema (anything else is an ImportFormatError)."""
    document = _import(text, name)
    problems = schema_problems(document)
    if problems:
        raise ImportFormatError(f"the result would not be a valid NodeTopology: {problems[0]}")
    return document


def _import(text: str, name: str) -> str:
    stripped = text.lstrip()
    if stripped.startswith("available:") or "node distances:" in text:
        return topology_document(name, _machine(_from_numactl(text)), comments=[
            "imported from numactl --hardware: no SMT siblings or sockets known; each CPU is its own core"])
    if stripped.startswith("#") and ("CPU," in text or "# CPU" in text):
        return topology_document(name, _machine(_from_lscpu(text)), comments=[
            "imported from lscpu -p: lscpu reports no memory; fill in each NUMA node's memory"])
    if "NodeResourceTopology" in text:
        try:
            docs = load_all(text)
        except YamlError as err:
            raise ImportFormatError(f"not readable YAML: {err.message} (line {err.line})") from None
        for root, span in docs:
            if isinstance(root, YMap) and root.get("kind") == "NodeResourceTopology":
                findings: list[Finding] = []
                view = machine_from_nrt(Document("-", 0, root, span), findings, hardware=True)
                if findings:
                    raise ImportFormatError(f"the NodeResourceTopology {findings[0].message}")
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
    for number, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        where = f"line {number}:"
        if len(parts) >= 3 and parts[0] == "node" and parts[2] in ("cpus:", "size:"):
            node = _number(parts[1], f"{where} NUMA node")
            if parts[2] == "cpus:":
                cpus_of[node] = [_cpu(p, f"{where} CPU") for p in parts[3:]]
            elif len(parts) >= 5:
                size_of[node] = _number(parts[3], f"{where} size") * 2**20
        elif line.startswith("node distances:"):
            in_distances = True
        elif in_distances and parts and parts[0].endswith(":"):
            distances[_number(parts[0][:-1], f"{where} NUMA node")] = [
                _number(p, f"{where} distance") for p in parts[1:]]
    nodes = sorted(set(cpus_of) | set(size_of))
    if not nodes:
        raise ImportFormatError("numactl output without NUMA nodes")
    if nodes[-1] > 63:
        raise ImportFormatError(f"NUMA node {nodes[-1]}: numalint supports NUMA node ids 0-63")
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
        if i is None or i >= len(row) or not row[i].strip():
            return None  # lscpu leaves unknown columns empty
        return _number(row[i].strip(), f"{name} value")

    cores: dict[int, list[int]] = {}
    info: dict[int, tuple[int, int, int, int | None]] = {}
    for row in rows:
        cpu = field(row, "CPU")
        if cpu is None:
            continue
        _cpu(str(cpu), "CPU")
        core, socket, node = field(row, "CORE"), field(row, "SOCKET") or 0, field(row, "NODE") or 0
        core = cpu if core is None else core
        cores.setdefault(core, []).append(cpu)
        info[cpu] = (core, socket, node, field(row, "L3"))
    first = {core: min(cpus) for core, cpus in cores.items()}  # once per core: all of a core's CPUs ask
    machine_cpus = {}
    for cpu, (core, socket, node, l3) in info.items():
        machine_cpus[cpu] = CPU(cpu, first[core], socket, node, socket if l3 is None else l3)
    nodes = sorted({c.numa for c in machine_cpus.values()})
    if not nodes:
        raise ImportFormatError("lscpu -p output without CPU rows")
    return Machine([NUMANode(n) for n in nodes], machine_cpus)
