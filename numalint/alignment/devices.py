"""The Device Manager's topology hints and allocation (pkg/kubelet/cm/devicemanager/topology_hints.go)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from heapq import merge
from itertools import chain, islice

from numalint.alignment.bitmask import bits, subsets
from numalint.alignment.machine import Device
from numalint.alignment.merge import Hint


class DeviceAllocationError(Exception):
    """Not enough devices (the kubelet wraps it as UnexpectedAdmissionError)."""


@dataclass
class DeviceState:
    allocated: dict[tuple[str, str], dict[str, list[str]]] = field(default_factory=dict)  # (pod, ctr) -> res -> ids
    reusable: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # pod -> res -> ids of init containers
    # (resource, NUMA node or None) -> how many of its devices are allocated: always the first ones, in the order
    # of the machine's devices (each allocation takes the first free ones of each NUMA node it draws on)
    taken: dict[tuple[str, int | None], int] = field(default_factory=dict)

    def clone(self) -> DeviceState:
        # an allocation is never changed once made: the copy shares them (a node of thousands of pods copied each
        # for every pod it admitted)
        return DeviceState(dict(self.allocated), {p: {r: set(ids) for r, ids in v.items()} for p, v in
                                                  self.reusable.items()}, dict(self.taken))


@dataclass
class DeviceManager:
    """The devices of a machine, fixed, indexed once: a pod's hints and allocation cost its NUMA nodes and the
    devices it takes, not every device of the node (thousands of devices and pods were quadratic). A resource
    whose ids repeat (a declared topology naming one id for several devices) is looked through whole, as the
    allocated ids say which of its devices are free."""

    devices: list[Device]
    numa_nodes: list[int]
    by_id: dict[str, Device] = field(init=False, repr=False)  # every device, by id
    _by_resource: dict[str, list[Device]] = field(init=False, repr=False)
    _ids: dict[str, dict[str, Device]] = field(init=False, repr=False)  # resource -> its devices by id
    _lists: dict[str, dict[int | None, list[Device]]] = field(init=False, repr=False)  # resource -> NUMA -> devices
    # resource whose ids do not repeat -> id -> its place among the resource's devices, in the machine's order
    _position: dict[str, dict[str, int]] = field(init=False, repr=False)
    _repeated: set[str] = field(init=False, repr=False)  # resources whose ids repeat

    def __post_init__(self) -> None:
        self.by_id = {d.id: d for d in self.devices}
        self._by_resource, self._ids, self._lists = {}, {}, {}
        for device in self.devices:
            self._by_resource.setdefault(device.resource, []).append(device)
            self._ids.setdefault(device.resource, {})[device.id] = device
            self._lists.setdefault(device.resource, {}).setdefault(device.numa, []).append(device)
        self._repeated = {r for r, devices in self._by_resource.items() if len(self._ids[r]) != len(devices)}
        self._position = {r: {d.id: place for place, d in enumerate(devices)}
                          for r, devices in self._by_resource.items() if r not in self._repeated}

    def resources(self) -> set[str]:
        return set(self._by_resource)

    def _of(self, resource: str) -> list[Device]:
        return self._by_resource.get(resource, [])

    def in_use(self, state: DeviceState, resource: str) -> set[str]:
        """The ids of ``resource`` allocated to some container."""
        if resource in self._repeated:
            return {d for per in state.allocated.values() for d in per.get(resource, [])}
        return {d.id for numa, devices in self._lists.get(resource, {}).items()
                for d in devices[:state.taken.get((resource, numa), 0)]}

    def counts(self, state: DeviceState, resource: str) -> dict[int | None, tuple[int, int]]:
        """(devices, free devices) of ``resource`` on each NUMA node (None: those without one), without a look at
        each device: a thousand nodes of 100,000 devices each took a minute."""
        free = self._free(state, resource)
        return {numa: (len(devices), free[numa]) for numa, devices in self._lists.get(resource, {}).items()}

    def _free(self, state: DeviceState, resource: str) -> dict[int | None, int]:
        """How many devices of ``resource`` are free on each NUMA node (None: those without one)."""
        lists = self._lists.get(resource, {})
        if resource in self._repeated:
            used = self.in_use(state, resource)
            return {numa: sum(1 for d in devices if d.id not in used) for numa, devices in lists.items()}
        return {numa: len(devices) - state.taken.get((resource, numa), 0) for numa, devices in lists.items()}

    def hints(self, state: DeviceState, pod: str, requests: dict[str, int],
              key: tuple[str, str] | None = None) -> dict[str, list[Hint] | None]:
        result: dict[str, list[Hint] | None] = {}
        for resource, wanted in requests.items():
            if wanted <= 0:
                continue
            lists = self._lists.get(resource, {})
            if not any(numa is not None for numa in lists):  # no device of it has a NUMA node
                result[resource] = None
                continue
            ids = self._ids[resource]
            if key is not None and resource in state.allocated.get(key, {}):
                held = state.allocated[key][resource]
                if len(held) != wanted:
                    result[resource] = []
                    continue
                counted: dict[int | None, int] = {}
                for i in held:
                    if i in ids:
                        counted[ids[i].numa] = counted.get(ids[i].numa, 0) + 1
                result[resource] = self._generate(resource, counted, set(), wanted)
                continue
            free = self._free(state, resource)  # the devices the pod's init containers hold are not among them
            reusable = state.reusable.get(pod, {}).get(resource, set())
            if sum(free.values()) + len(reusable) < wanted:
                result[resource] = []
                continue
            result[resource] = self._generate(resource, free, {i for i in reusable if i in ids and
                                                               ids[i].numa is not None}, wanted)
        return result

    def _generate(self, resource: str, free: dict[int | None, int], reusable: set[str], wanted: int) -> list[Hint]:
        """The hints of every NUMA mask, from the devices counted per NUMA node (``free``: those free, but for
        ``reusable``)."""
        lists = self._lists[resource]
        ids = self._ids[resource]
        reused = 0  # the NUMA nodes of the reusable devices: a hint must hold them all
        for i in reusable:
            if (numa := ids[i].numa) is not None:
                reused |= 1 << numa
        min_affinity = len(self.numa_nodes)
        masks: list[int] = []
        # the devices on a mask's NUMA nodes, and the free ones, from those of the mask without its lowest node
        # (one size smaller, so counted before it): 2^16 masks each summed over its nodes took a second a pod
        held: dict[int, int] = {0: 0}
        loose: dict[int, int] = {0: 0}
        wanted_here = wanted - len(reusable)
        for mask, _nodes in subsets(tuple(sorted(self.numa_nodes))):
            lowest = mask & -mask
            numa = lowest.bit_length() - 1
            in_mask = held[mask] = held[mask ^ lowest] + len(lists.get(numa, ()))
            free_in_mask = loose[mask] = loose[mask ^ lowest] + free.get(numa, 0)
            if in_mask >= wanted and mask.bit_count() < min_affinity:
                min_affinity = mask.bit_count()
            if free_in_mask >= wanted_here and not reused & ~mask:
                masks.append(mask)
        return [Hint(mask, mask.bit_count() == min_affinity) for mask in masks]

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
            if resource in self._repeated:
                reused = [d.id for d in self._of(resource) if d.id in reusable][:wanted]
            else:
                position = self._position.get(resource, {})
                reused = sorted((i for i in reusable if i in position), key=position.__getitem__)[:wanted]
            needed = wanted - len(reused)
            if needed == 0:
                chosen[resource] = reused
                continue
            available = sum(self._free(state, resource).values())
            if available < needed:
                raise DeviceAllocationError(f"requested number of devices unavailable for {resource}. Requested: "
                                            f"{needed}, Available: {available}")
            taken = [d.id for d in islice(self._in_order(state, resource, affinity), needed)]
            if resource not in self._repeated:
                for device_id in taken:
                    numa = self._ids[resource][device_id].numa
                    state.taken[(resource, numa)] = state.taken.get((resource, numa), 0) + 1
            chosen[resource] = reused + taken
        state.allocated[key] = chosen
        if init and not sidecar:
            reuse = state.reusable.setdefault(pod, {})
            for resource, ids in chosen.items():
                reuse.setdefault(resource, set()).update(ids)
        elif pod in state.reusable:  # no entry for a pod without init containers: each copy of the state copies them
            for resource, ids in chosen.items():
                state.reusable[pod].get(resource, set()).difference_update(ids)
        return chosen

    def _in_order(self, state: DeviceState, resource: str, affinity: int | None) -> Iterator[Device]:
        """The free devices of ``resource`` in the order they are allocated: on the hint's NUMA nodes, then on the
        others, then those without one (without a hint: those without one first); each group in the machine's
        order."""
        nodes = set(bits(affinity)) if affinity is not None else set()
        if resource in self._repeated:  # the machine's order, as the allocated ids leave them free
            used = self.in_use(state, resource)
            devices = [d for d in self._of(resource) if d.id not in used]
            aligned_list = [d for d in devices if d.numa is not None and d.numa in nodes]
            others_list = [d for d in devices if d.numa is not None and d.numa not in nodes]
            floating_list = [d for d in devices if d.numa is None]
            return iter(aligned_list + others_list + floating_list if affinity is not None else
                        floating_list + others_list)
        lists = self._lists.get(resource, {})
        free = {numa: _from(devices, state.taken.get((resource, numa), 0)) for numa, devices in lists.items()}
        position = self._position[resource]  # one place per device: its ids do not repeat
        aligned = merge(*(free[n] for n in free if n is not None and n in nodes), key=lambda d: position[d.id])
        others = merge(*(free[n] for n in free if n is not None and n not in nodes), key=lambda d: position[d.id])
        floating = free.get(None, ())
        return chain(aligned, others, floating) if affinity is not None else chain(floating, others)


def _from(devices: list[Device], start: int) -> Iterable[Device]:
    """``devices[start:]`` without copying them (a NUMA node of thousands)."""
    return map(devices.__getitem__, range(start, len(devices)))
