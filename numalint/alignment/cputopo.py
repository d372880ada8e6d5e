"""The CPU topology the CPU manager sees (cpumanager/topology.Discover) and its queries."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from numalint.alignment.machine import Machine


@dataclass(frozen=True)
class CPUInfo:
    core: int  # the lowest CPU id among the core's threads
    socket: int
    numa: int
    uncore: int


class CPUTopology:
    """CPU details plus the per-level counts the allocation algorithms divide by."""

    def __init__(self, details: dict[int, CPUInfo]) -> None:
        self.details = details
        self.num_cpus = len(details)
        self.num_cores = len({d.core for d in details.values()})
        self.num_sockets = len({d.socket for d in details.values()})
        self.numa_nodes = sorted({d.numa for d in details.values()})
        self.num_numa_nodes = len(self.numa_nodes)
        self.num_uncore_caches = len({d.uncore for d in details.values()})
        self.by_core = _group(details, "core")
        self.by_socket = _group(details, "socket")
        self.by_numa = _group(details, "numa")
        self.by_uncore = _group(details, "uncore")
        # cpu -> its core, socket, NUMA node or uncore cache, per attribute: the allocation algorithms ask these
        # for every CPU of every pod (a dict lookup instead of an attribute of a dataclass each time)
        self.of: dict[str, dict[int, int]] = {
            attribute: {cpu: getattr(info, attribute) for cpu, info in details.items()}
            for attribute in ("core", "socket", "numa", "uncore")}
        self.numa_sizes = {numa: len(cpus) for numa, cpus in self.by_numa.items()}

    @classmethod
    def from_description(cls, machine: dict[str, Any]) -> CPUTopology:
        """The oracle's machine description: NUMA nodes with cores and their threads."""
        details: dict[int, CPUInfo] = {}
        for node in machine["numa_nodes"]:
            for core in node["cores"]:
                threads = core["threads"]
                uncore = core.get("uncore_cache_id")
                socket = core["socket_id"]
                for cpu in threads:
                    details[cpu] = CPUInfo(min(threads), socket, node["id"], socket if uncore is None else uncore)
        return cls(details)

    @classmethod
    def from_machine(cls, machine: Machine) -> CPUTopology:
        return cls({c.id: CPUInfo(min(machine.siblings[c.id]), c.socket, c.numa, c.uncore)
                    for c in machine.cpus.values()})

    @cached_property
    def cpus_per_core(self) -> int:
        return self.num_cpus // self.num_cores if self.num_cores else 0

    @cached_property
    def cpus_per_socket(self) -> int:
        return self.num_cpus // self.num_sockets if self.num_sockets else 0

    @cached_property
    def cpus_per_uncore(self) -> int:
        return self.num_cpus // self.num_uncore_caches if self.num_uncore_caches else 0

    @cached_property
    def all_cpus(self) -> frozenset[int]:
        return frozenset(self.details)

    def cpus_in_numa(self, nodes: Iterable[int]) -> frozenset[int]:
        result: set[int] = set()
        for node in nodes:
            result |= self.by_numa.get(node, frozenset())
        return frozenset(result)

    def sockets_in_numa(self, nodes: Iterable[int]) -> set[int]:
        return {self.details[c].socket for c in self.cpus_in_numa(nodes)}


def _group(details: dict[int, CPUInfo], attribute: str) -> dict[int, frozenset[int]]:
    groups: dict[int, set[int]] = defaultdict(set)
    for cpu, info in details.items():
        groups[getattr(info, attribute)].add(cpu)
    return {k: frozenset(v) for k, v in groups.items()}
