"""The Device Manager's topology hints and allocation (pkg/kubelet/cm/devicemanager/topology_hints.go)."""

from __future__ import annotations

from dataclasses import dataclass, field

from numalint.alignment.bitmask import bits, count, subsets
from numalint.alignment.machine import Device
from numalint.alignment.merge import Hint


class DeviceAllocationError(Exception):
    """Not enough devices (the kubelet wraps it as UnexpectedAdmissionError)."""


@dataclass
class DeviceState:
    allocated: dict[tuple[str, str], dict[str, list[str]]] = field(default_factory=dict)  # (pod, ctr) -> res -> ids
    reusable: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # pod -> res -> ids of init containers
    used: dict[str, set[str]] = field(default_factory=dict)  # res -> the ids ``allocated`` holds

    def clone(self) -> DeviceState:
        # an allocation is never changed once made: the copy shares them (a node of thousands of pods copied each
        # for every pod it admitted)
        return DeviceState(dict(self.allocated), {p: {r: set(ids) for r, ids in v.items()} for p, v in
                                                  self.reusable.items()},
                           {r: set(ids) for r, ids in self.used.items()})

    def in_use(self, resource: str) -> set[str]:
        """The ids of ``resource`` allocated to some container (read only)."""
        return self.used.get(resource, _NONE)


_NONE: set[str] = set()  # read only


@dataclass
class DeviceManager:
    devices: list[Device]
    numa_nodes: list[int]
    by_id: dict[str, Device] = field(init=False, repr=False)  # every device, by id
    _by_resource: dict[str, list[Device]] = field(init=False, repr=False)
    _ids: dict[str, dict[str, Device]] = field(init=False, repr=False)  # resource -> its devices by id
    _per_numa: dict[str, dict[int, int]] = field(init=False, repr=False)  # resource -> NUMA node -> its devices

    def __post_init__(self) -> None:
        # the devices are the machine's, fixed: indexed once, not scanned for every pod (thousands of devices)
        self.by_id = {d.id: d for d in self.devices}
        self._by_resource = {}
        self._ids = {}
        self._per_numa = {}
        for device in self.devices:
            self._by_resource.setdefault(device.resource, []).append(device)
            self._ids.setdefault(device.resource, {})[device.id] = device
            if device.numa is not None:
                per_numa = self._per_numa.setdefault(device.resource, {})
                per_numa[device.numa] = per_numa.get(device.numa, 0) + 1

    def resources(self) -> set[str]:
        return set(self._by_resource)

    def _of(self, resource: str) -> list[Device]:
        return self._by_resource.get(resource, [])

    def hints(self, state: DeviceState, pod: str, requests: dict[str, int],
              key: tuple[str, str] | None = None) -> dict[str, list[Hint] | None]:
        result: dict[str, list[Hint] | None] = {}
        for resource, wanted in requests.items():
            if wanted <= 0:
                continue
            devices = self._of(resource)
            if resource not in self._per_numa:  # no device of it has a NUMA node
                result[resource] = None
                continue
            if key is not None and resource in state.allocated.get(key, {}):
                held = state.allocated[key][resource]
                if len(held) != wanted:
                    result[resource] = []
                    continue
                ids = self._ids[resource]
                result[resource] = self._generate(resource, [ids[i] for i in held if i in ids], set(), wanted)
                continue
            used = state.in_use(resource)
            reusable = state.reusable.get(pod, {}).get(resource, set())
            available = [d for d in devices if d.id not in used]
            if len(available) + len(reusable) < wanted:
                result[resource] = []
                continue
            ids = self._ids[resource]
            result[resource] = self._generate(resource, available, {i for i in reusable if i in ids and
                                                                     ids[i].numa is not None}, wanted)
        return result

    def _generate(self, resource: str, available: list[Device], reusable: set[str], wanted: int) -> list[Hint]:
        """The hints of every NUMA mask (``devices`` counted per NUMA node once, not per mask)."""
        per_numa = self._per_numa.get(resource, {})
        free_per_numa: dict[int, int] = {}
        for device in available:
            if device.numa is not None and device.id not in reusable:
                free_per_numa[device.numa] = free_per_numa.get(device.numa, 0) + 1
        ids = self._ids[resource]
        reused_numa = {numa for i in reusable if (numa := ids[i].numa) is not None}
        min_affinity = len(self.numa_nodes)
        hints: list[Hint] = []
        for mask, nodes in subsets(tuple(sorted(self.numa_nodes))):
            in_mask = sum(per_numa.get(numa, 0) for numa in nodes)
            if in_mask >= wanted and count(mask) < min_affinity:
                min_affinity = count(mask)
            if any(not (mask >> numa & 1) for numa in reused_numa):
                continue
            free = len(reusable) + sum(free_per_numa.get(numa, 0) for numa in nodes)
            if free >= wanted:
                hints.append(Hint(mask, False))
        return [Hint(h.mask, count(h.mask or 0) == min_affinity) for h in hints]

    def allocate(self, state: DeviceState, key: tuple[str, str], requests: dict[str, int], affinity: int | None,
                 init: bool = False, sidecar: bool = False) -> dict[str, list[str]]:
        """devicesToAllocate: the devices the pod's init containers held first (reusable), then free devices on
        the hint's NUMA nodes, then on other NUMA nodes, then those without NUMA affinity (filterByAffinity; with
        no hint the kubelet's order is a set's, here those without NUMA affinity first)."""
        if key in state.allocated:
            return state.allocated[key]
        pod = key[0]
        chosen: dict[str, list[str]] = {}
        for resource, wanted in requests.items():
            if wanted <= 0:
                continue
            reusable = state.reusable.get(pod, {}).get(resource, set())
            reused = [d.id for d in self._of(resource) if d.id in reusable][:wanted]
            needed = wanted - len(reused)
            if needed == 0:
                chosen[resource] = reused
                continue
            used = state.in_use(resource)
            free = [d for d in self._of(resource) if d.id not in used]
            if len(free) < needed:
                raise DeviceAllocationError(f"requested number of devices unavailable for {resource}. Requested: "
                                            f"{needed}, Available: {len(free)}")
            nodes = set(bits(affinity)) if affinity is not None else set()
            aligned = [d for d in free if d.numa is not None and d.numa in nodes]
            floating = [d for d in free if d.numa is None]
            others = [d for d in free if d.numa is not None and d.numa not in nodes]
            order = aligned + others + floating if affinity is not None else floating + others
            chosen[resource] = reused + [d.id for d in order[:needed]]
        state.allocated[key] = chosen
        for resource, ids in chosen.items():
            state.used.setdefault(resource, set()).update(ids)
        if init and not sidecar:
            reuse = state.reusable.setdefault(pod, {})
            for resource, ids in chosen.items():
                reuse.setdefault(resource, set()).update(ids)
        elif pod in state.reusable:  # no entry for a pod without init containers: each copy of the state copies them
            for resource, ids in chosen.items():
                state.reusable[pod].get(resource, set()).difference_update(ids)
        return chosen
