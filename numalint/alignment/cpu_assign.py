"""Choosing CPUs: takeByTopologyNUMAPacked and takeByTopologyNUMADistributed
(pkg/kubelet/cm/cpumanager/cpu_assignment.go).

A faithful transcription of the kubelet's cpuAccumulator: the same levels (NUMA node / socket /
uncore cache / core / thread), the same "fewest available first, then lowest id" ordering and
the same balance score for the distributed variant.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator

from numalint.alignment.cputopo import CPUTopology

Order = Callable[["Accumulator"], list[int]]

PACKED = "packed"
SPREAD = "spread"


class TakeError(Exception):
    """Not enough CPUs; the message is the kubelet's."""


def _until_next_take(order: Order) -> Order:
    """Keep an ordering until the next take changes what is available: each level asks for the orderings of the
    levels above it again (one allocation asked for the NUMA nodes' order a dozen times). Callers never change
    the list they get."""
    name = order.__name__

    def kept(self: Accumulator) -> list[int]:
        known = self._orders.get(name)
        if known is None:
            known = self._orders[name] = order(self)
        return known

    return kept


class Accumulator:
    def __init__(self, topo: CPUTopology, available: Iterable[int], needed: int, sorting: str = PACKED) -> None:
        self.topo = topo
        self.available: set[int] = set(available) & topo.all_cpus
        self.needed = needed
        self.result: set[int] = set()
        self.sorting = sorting
        self.numa_first = topo.num_sockets >= topo.num_numa_nodes
        self._orders: dict[str, list[int]] = {}  # see _until_next_take

    # --- what is left, per level -------------------------------------------------------------
    def _in(self, group: dict[int, frozenset[int]], ids: Iterable[int]) -> set[int]:
        result: set[int] = set()
        for i in ids:
            result |= group.get(i, frozenset()) & self.available
        return result

    def _ids(self, attribute: str, cpus: Iterable[int]) -> list[int]:
        of = self.topo.of[attribute]
        return list({of[c] for c in cpus})

    def _sort(self, ids: list[int], group: dict[int, frozenset[int]]) -> list[int]:
        return sorted(ids, key=lambda i: (len(group.get(i, frozenset()) & self.available), i))

    @_until_next_take
    def sorted_numa_nodes(self) -> list[int]:
        if self.numa_first:
            return self._sort(self._ids("numa", self.available), self.topo.by_numa)
        result: list[int] = []
        for socket in self.sorted_sockets():
            cpus = self._in(self.topo.by_socket, [socket])
            result += self._sort(self._ids("numa", cpus), self.topo.by_numa)
        return result

    @_until_next_take
    def sorted_sockets(self) -> list[int]:
        if not self.numa_first:
            return self._sort(self._ids("socket", self.available), self.topo.by_socket)
        result: list[int] = []
        for numa in self.sorted_numa_nodes():
            cpus = self._in(self.topo.by_numa, [numa])
            result += self._sort(self._ids("socket", cpus), self.topo.by_socket)
        return result

    @_until_next_take
    def sorted_cores(self) -> list[int]:
        result: list[int] = []
        if self.numa_first:
            for socket in self.sorted_sockets():
                cpus = self._in(self.topo.by_socket, [socket])
                result += self._sort(self._ids("core", cpus), self.topo.by_core)
        else:
            for numa in self.sorted_numa_nodes():
                cpus = self._in(self.topo.by_numa, [numa])
                result += self._sort(self._ids("core", cpus), self.topo.by_core)
        return result

    @_until_next_take
    def sorted_uncore_caches(self) -> list[int]:
        result: list[int] = []
        for numa in self.sorted_numa_nodes():
            cpus = self._in(self.topo.by_numa, [numa])
            result += self._sort(self._ids("uncore", cpus), self.topo.by_uncore)
        return result

    @_until_next_take
    def sorted_cpus(self) -> list[int]:
        result: list[int] = []
        if self.sorting == SPREAD:
            for socket in self.sorted_sockets():
                result += sorted(self._in(self.topo.by_socket, [socket]))
        else:
            for core in self.sorted_cores():
                result += sorted(self._in(self.topo.by_core, [core]))
        return result

    # --- taking --------------------------------------------------------------------------------
    def take(self, cpus: Iterable[int]) -> None:
        cpus = set(cpus)
        self.result |= cpus
        self.available -= self.result
        self._orders.clear()
        self.needed -= len(cpus)

    def needs(self, n: int) -> bool:
        return self.needed >= n

    def satisfied(self) -> bool:
        return self.needed < 1

    def failed(self) -> bool:
        return self.needed > len(self.available)

    def _free(self, ids: list[int], group: dict[int, frozenset[int]], size: Callable[[int], int]) -> list[int]:
        return [i for i in ids if len(group[i] & self.available) == size(i)]

    def take_full_numa_nodes(self) -> None:
        by = self.topo.by_numa
        for numa in self._free(self.sorted_numa_nodes(), by, lambda i: len(by[i])):
            if self.needs(len(by[numa])):
                self.take(by[numa])

    def take_full_sockets(self) -> None:
        by = self.topo.by_socket
        for socket in self._free(self.sorted_sockets(), by, lambda i: self.topo.cpus_per_socket):
            if self.needs(len(by[socket])):
                self.take(by[socket])

    def take_full_uncore(self) -> None:
        by = self.topo.by_uncore
        for uncore in self._free(self.sorted_uncore_caches(), by, lambda i: len(by[i])):
            if self.needs(len(by[uncore])):
                self.take(by[uncore])

    def take_partial_uncore(self, uncore: int) -> None:
        per_core = self.topo.cpus_per_core
        cores_needed = self.needed // per_core if per_core else 0
        cores = sorted({self.topo.details[c].core for c in self.available if self.topo.details[c].uncore == uncore})
        if len(cores) > cores_needed:
            cores = cores[:cores_needed]
        cpus = self._in(self.topo.by_core, cores)
        if self.needed == len(cpus):
            self.take(cpus)

    def take_uncore_caches(self) -> None:
        per_uncore = self.topo.cpus_per_uncore
        for uncore in self.sorted_uncore_caches():
            if self.needs(per_uncore):
                self.take_full_uncore()
            if self.satisfied():
                return
            self.take_partial_uncore(uncore)
            if self.satisfied():
                return

    def take_full_cores(self) -> None:
        by = self.topo.by_core
        for core in self._free(self.sorted_cores(), by, lambda i: self.topo.cpus_per_core):
            if self.needs(len(by[core])):
                self.take(by[core])

    def take_remaining(self) -> None:
        for cpu in self.sorted_cpus():
            self.take([cpu])
            if self.satisfied():
                return


def _not_enough(requested: int, available: int) -> TakeError:
    return TakeError(f"not enough cpus available to satisfy request: requested={requested}, available={available}")


def take_packed(topo: CPUTopology, available: Iterable[int], count: int, sorting: str = PACKED,
                uncore: bool = False) -> set[int]:
    available = set(available)
    acc = Accumulator(topo, available, count, sorting)
    if acc.satisfied():
        return acc.result
    if acc.failed():
        raise _not_enough(count, len(available))
    levels = [acc.take_full_numa_nodes, acc.take_full_sockets]
    if not acc.numa_first:
        levels.reverse()
    if uncore:
        levels.append(acc.take_uncore_caches)
    if sorting != SPREAD:
        levels.append(acc.take_full_cores)
    levels.append(acc.take_remaining)
    for level in levels:
        level()
        if acc.satisfied():
            return acc.result
    raise TakeError("failed to allocate cpus")


def _round3(value: float) -> float:
    """Go's math.Round(x*1000)/1000 (half away from zero)."""
    scaled = value * 1000
    return math.copysign(math.floor(abs(scaled) + 0.5), scaled) / 1000


def _stdev(values: list[int]) -> float:
    mean = _round3(sum(values) / len(values))
    return _round3(math.sqrt(sum((v - mean) ** 2 for v in values) / len(values)))


class _GoSlice:
    """A Go []int: appends within capacity share the backing array.

    The kubelet's iterateCombinations builds each combination with ``append(accum, n[i])`` and the
    distributed allocator keeps the slice it was handed as the best one. Later appends into the same
    backing array overwrite its last elements, so the combination finally used can differ from the
    one that scored best (oracle vector cpu-allocation/00415 shows it). Reproducing the aliasing is
    the only way to agree with the kubelet.
    """

    __slots__ = ("buf", "length")

    def __init__(self, buf: list[int], length: int) -> None:
        self.buf, self.length = buf, length

    def append(self, value: int) -> _GoSlice:
        if self.length < len(self.buf):
            self.buf[self.length] = value
            return _GoSlice(self.buf, self.length + 1)
        old = len(self.buf)
        new_cap = self.length + 1 if self.length + 1 > 2 * old else 2 * old
        buf = self.buf[: self.length] + [0] * (new_cap - self.length)
        buf[self.length] = value
        return _GoSlice(buf, self.length + 1)

    def values(self) -> tuple[int, ...]:
        return tuple(self.buf[: self.length])


def _combinations(items: list[int], k: int) -> Iterator[_GoSlice]:
    """iterateCombinations, yielding the aliased slices the kubelet's callback receives."""
    if k < 1:
        return

    def helper(k: int, start: int, accum: _GoSlice) -> Iterator[_GoSlice]:
        if k == 0:
            yield accum
            return
        for i in range(start, len(items) - k + 1):
            yield from helper(k - 1, i + 1, accum.append(items[i]))

    yield from helper(k, 0, _GoSlice([], 0))


def take_distributed(topo: CPUTopology, available: Iterable[int], count: int, group: int,
                     sorting: str = PACKED) -> set[int]:
    """distribute-cpus-across-numa: spread evenly over the fewest NUMA nodes, best balanced."""
    available = set(available)
    if count % group:
        return take_packed(topo, available, count, sorting)
    acc = Accumulator(topo, available, count, sorting)
    if acc.satisfied():
        return acc.result
    if acc.failed():
        raise _not_enough(count, len(available))
    numas = acc.sorted_numa_nodes()
    free = {n: len(topo.by_numa[n] & acc.available) for n in numas}
    total_groups = (topo.num_cpus - 1) // group + 1
    groups_per_numa = (total_groups - 1) // topo.num_numa_nodes + 1
    groups_needed = (count - 1) // group + 1
    min_numas = (groups_needed - 1) // groups_per_numa + 1
    max_numas = min(groups_needed, len(numas))
    for k in range(min_numas, max_numas + 1):
        best_balance: float = math.inf
        best_remainder: _GoSlice | None = None
        best_combo: _GoSlice | None = None
        for combo_slice in _combinations(numas, k):
            if best_balance == 0:
                break
            combo = combo_slice.values()
            if sum(free[n] for n in combo) < count:
                continue
            if sum(free[n] // group for n in combo) * group < count:
                continue
            distribution = (count // len(combo) // group) * group
            if any(free[n] < distribution for n in combo):
                continue
            after = dict(free)
            for n in combo:
                after[n] -= distribution
            remainder = count - distribution * len(combo)
            candidates = [n for n in combo if after[n] >= group]
            local_balance: float = math.inf
            local_remainder: _GoSlice | None = None
            if remainder == 0:
                local_balance = _stdev(list(after.values()))
            for size in range(len(candidates), 0, -1):
                if remainder <= 0:
                    break
                for subset_slice in _combinations(candidates, size):
                    subset = subset_slice.values()
                    left = remainder
                    trial = dict(after)
                    if sum(trial[n] for n in subset) < left:
                        continue
                    while left > 0:
                        progressed = False
                        for n in subset:
                            if left == 0:
                                break
                            if trial[n] < group:
                                continue
                            trial[n] -= group
                            left -= group
                            progressed = True
                        if not progressed:
                            break  # the kubelet would spin here; the sum check above makes it unreachable
                    balance = _stdev(list(trial.values()))
                    if balance < local_balance:
                        local_balance, local_remainder = balance, subset_slice
            if local_balance < best_balance:
                best_balance, best_remainder, best_combo = local_balance, local_remainder, combo_slice
        if best_combo is None:
            continue
        chosen = best_combo.values()  # read now: the aliasing has done its work
        distribution = (count // len(chosen) // group) * group
        for n in chosen:
            acc.take(take_packed(topo, topo.by_numa[n] & acc.available, distribution, sorting))
        remainder = count - distribution * len(chosen)
        remainder_nodes = best_remainder.values() if best_remainder is not None else ()
        while remainder > 0:
            progressed = False
            for n in remainder_nodes:
                if remainder == 0:
                    break
                if len(topo.by_numa[n] & acc.available) < group:
                    continue
                acc.take(take_packed(topo, topo.by_numa[n] & acc.available, group, sorting))
                remainder -= group
                progressed = True
            if not progressed:
                break
        if acc.needed != 0:
            raise TakeError(f"accounting error, not enough CPUs allocated, remaining: {acc.needed}")
        return acc.result
    return take_packed(topo, available, count, sorting)
