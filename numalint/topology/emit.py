"""Writing a NodeTopology document (deterministic YAML, no library needed)."""

from __future__ import annotations

import json
import re
from typing import Any

from numalint.alignment.machine import Machine
from numalint.k8s.cpuset import format_cpuset
from numalint.k8s.quantity import format_bytes
from numalint.reading.sources import Document
from numalint.reading.yamlpos import load_all
from numalint.views.schema import validate_document

POOL_STUB = [
    "  # pool: which nodes share this hardware and which kubelet configuration they run. Uncomment and fill in",
    "  # when the run has several topologies or kubelet configurations (see README, Pools):",
    "  # pool:",
    '  #   nodeSelector: {node-role.kubernetes.io/worker: ""}   # labels of the pool\'s nodes',
    "  #   nodes: 1                                              # identical nodes in the pool",
    "  #   kubeletConfig: NAME      # metadata.name of a KubeletConfig, or the file name of a KubeletConfiguration",
]


def topology_document(name: str, machine: Machine, nics: list[Any] | None = None,
                      comments: list[str] | None = None, pool_stub: bool = False) -> str:
    """A NodeTopology for ``machine``: cores as SMT sibling lists (with their L3 group when known);
    ``comments`` open the document, ``pool_stub`` adds a commented ``pool:`` to fill in."""
    lines = [f"# {c}" for c in comments or []]
    lines += ["apiVersion: numalint.io/v1alpha1", "kind: NodeTopology", "metadata:", f"  name: {_s(name)}", "spec:"]
    lines += POOL_STUB if pool_stub else []
    lines += [f"  sockets: {machine.num_sockets}", "  numaNodes:"]
    for node in machine.numa_nodes:
        cpus = [c for c in machine.cpus.values() if c.numa == node.id]
        sockets = sorted({c.socket for c in cpus})
        lines.append(f"    - id: {node.id}")
        if sockets:
            lines.append(f"      socket: {sockets[0]}")
        lines.append(f"      memory: {format_bytes(node.memory)}")
        if node.hugepages:
            pages = ", ".join(f"{format_bytes(size)}: {count}" for size, count in sorted(node.hugepages.items()))
            lines.append(f"      hugepages: {{{pages}}}")
        if node.distances is not None:
            lines.append(f"      distances: [{', '.join(map(str, node.distances))}]")
        cores: dict[tuple[int, int], list[int]] = {}
        uncore: dict[tuple[int, int], int] = {}
        for cpu in cpus:
            cores.setdefault((cpu.socket, cpu.core), []).append(cpu.id)
            uncore[(cpu.socket, cpu.core)] = cpu.uncore
        with_l3 = len({u for u in uncore.values()}) > 1 or any(u != k[0] for k, u in uncore.items())
        lines.append("      cores:")
        for key, members in sorted(cores.items(), key=lambda item: min(item[1])):
            text = json.dumps(format_cpuset(members))
            lines.append(f"        - {{cpus: {text}, l3: {uncore[key]}}}" if with_l3 else f"        - {text}")
    if machine.devices:
        lines.append("  devices:")
        for device in machine.devices:
            numa = "null" if device.numa is None else str(device.numa)
            ident = json.dumps(device.id)
            lines.append(f"    - {{resource: {json.dumps(device.resource)}, numaNode: {numa}, count: 1, id: {ident}}}")
    if nics:
        lines.append("  nics:")
        for nic in nics:
            numa = "null" if nic.numa is None else str(nic.numa)
            lines.append(f"    - {{pciAddress: {json.dumps(nic.pci_address)}, interface: {json.dumps(nic.interface)}, "
                         f"vendor: {json.dumps(nic.vendor)}, deviceID: {json.dumps(nic.device_id)}, "
                         f"totalVfs: {nic.total_vfs}, numaNode: {numa}}}")
    return "\n".join(lines) + "\n"


_YAML11_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}  # booleans/null to Kubernetes' YAML


def _s(text: str) -> str:
    """``text`` plain when YAML 1.1 reads it back as that string, else JSON-quoted (``n`` would be false)."""
    plain = re.fullmatch(r"[A-Za-z][A-Za-z0-9.-]*", text) and text.lower() not in _YAML11_WORDS
    return text if plain else json.dumps(text)


def schema_problems(document: str) -> list[str]:
    """What numalint's own NodeTopology schema says about ``document`` (empty: ``check`` accepts it)."""

    problems: list[str] = []
    for root, span in load_all(document):
        problems += [f.message for f in validate_document(Document("-", 0, root, span))]
    return problems
