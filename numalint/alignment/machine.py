"""The hardware a node has: NUMA nodes, CPUs, memory, hugepages and devices."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property


@dataclass(frozen=True)
class CPU:
    """One logical CPU; ``core`` is the lowest CPU id among its SMT siblings (as the kubelet)."""

    id: int
    core: int
    socket: int
    numa: int
    uncore: int


@dataclass
class NUMANode:
    id: int
    memory: int = 0  # bytes
    hugepages: dict[int, int] = field(default_factory=dict)  # page size in bytes -> number of pages
    distances: list[int] | None = None


@dataclass(frozen=True)
class Device:
    """One device-plugin device; ``numa`` None means no NUMA affinity."""

    resource: str
    id: str
    numa: int | None


@dataclass
class Machine:
    numa_nodes: list[NUMANode]
    cpus: dict[int, CPU]
    devices: list[Device] = field(default_factory=list)

    @cached_property
    def numa_ids(self) -> list[int]:
        return sorted(n.id for n in self.numa_nodes)

    @cached_property
    def node_by_id(self) -> dict[int, NUMANode]:
        return {n.id: n for n in self.numa_nodes}

    @cached_property
    def siblings(self) -> dict[int, frozenset[int]]:
        cores: dict[tuple[int, int], set[int]] = {}
        for cpu in self.cpus.values():
            cores.setdefault((cpu.socket, cpu.core), set()).add(cpu.id)
        return {c: frozenset(cores[(cpu.socket, cpu.core)]) for c, cpu in self.cpus.items()}

    @cached_property
    def num_sockets(self) -> int:
        return len({c.socket for c in self.cpus.values()}) or 1

    def devices_of(self, resource: str) -> list[Device]:
        return list(self._devices_by_resource.get(resource, ()))

    @cached_property
    def _devices_by_resource(self) -> dict[str, list[Device]]:
        """The devices of each resource, in order, grouped once: a topology of thousands of NICs, each a resource
        of its own, was scanned whole for each (a machine's devices never change once it is made)."""
        grouped: dict[str, list[Device]] = {}
        for device in self.devices:
            grouped.setdefault(device.resource, []).append(device)
        return grouped

    def device_resources(self) -> list[str]:
        return sorted({d.resource for d in self.devices})
