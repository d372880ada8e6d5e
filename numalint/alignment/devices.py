"""The Device Manager's topology hints and allocation (pkg/kubelet/cm/devicemanager/topology_hints.go)."""

from __future__ import annotations

from dataclasses import dataclass, field

from numalint.alignment.bitmask import bits, count, iterate_masks
from numalint.alignment.machine import Device
from numalint.alignment.merge import Hint


class DeviceAllocationError(Exception):
    """Not enough devices (the kubelet wraps it as UnexpectedAdmissionError)."""


@dataclass
class DeviceState:
    allocated: dict[tuple[str, str], dict[str, list[str]]] = field(default_factory=dict)  # (pod, ctr) -> res -> ids
    reusable: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # pod -> res -> ids of init containers

    def clone(self) -> DeviceState:
        return DeviceState({k: {r: list(ids) for r, ids in v.items()} for k, v in self.allocated.items()},
                           {p: {r: set(ids) for r, ids in v.items()} for p, v in self.reusable.items()})

    def in_use(self, resource: str) -> set[str]:
        return {d for per in self.allocated.values() for d in per.get(resource, [])}


@dataclass
class DeviceManager:
    devices: list[Device]
    numa_nodes: list[int]

    def resources(self) -> set[str]:
        return {d.resource for d in self.devices}

    def _of(self, resource: str) -> list[Device]:
        return [d for d in self.devices if d.resource == resource]

    def hints(self, state: DeviceState, pod: str, requests: dict[str, int],
              key: tuple[str, str] | None = None) -> dict[str, list[Hint] | None]:
        result: dict[str, list[Hint] | None] = {}
        for resource, wanted in requests.items():
            if wanted <= 0:
                continue
            devices = self._of(resource)
            if not any(d.numa is not None for d in devices):
                result[resource] = None
                continue
            if key is not None and resource in state.allocated.get(key, {}):
                held = state.allocated[key][resource]
                if len(held) != wanted:
                    result[resource] = []
                    continue
                by_id = {d.id: d for d in devices}
                result[resource] = self._generate([by_id[i] for i in held if i in by_id], set(), devices, wanted)
                continue
            used = state.in_use(resource)
            reusable = state.reusable.get(pod, {}).get(resource, set())
            available = [d for d in devices if d.id not in used]
            if len(available) + len(reusable) < wanted:
                result[resource] = []
                continue
            by_id = {d.id: d for d in devices}
            result[resource] = self._generate(available, {i for i in reusable if i in by_id and
                                                          by_id[i].numa is not None}, devices, wanted, by_id)
        return result

    def _generate(self, available: list[Device], reusable: set[str], devices: list[Device], wanted: int,
                  by_id: dict[str, Device] | None = None) -> list[Hint]:
        by_id = by_id or {d.id: d for d in devices}
        min_affinity = len(self.numa_nodes)
        hints: list[Hint] = []
        for mask in iterate_masks(self.numa_nodes):
            in_mask = sum(1 for d in devices if d.numa is not None and mask >> d.numa & 1)
            if in_mask >= wanted and count(mask) < min_affinity:
                min_affinity = count(mask)
            if any(not (mask >> numa & 1) for i in reusable if (numa := by_id[i].numa) is not None):
                continue
            free = len(reusable) + sum(1 for d in available if d.id not in reusable and d.numa is not None
                                       and mask >> d.numa & 1)
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
        reuse = state.reusable.setdefault(pod, {})
        for resource, ids in chosen.items():
            if init and not sidecar:
                reuse.setdefault(resource, set()).update(ids)
            else:
                reuse.get(resource, set()).difference_update(ids)
        return chosen
