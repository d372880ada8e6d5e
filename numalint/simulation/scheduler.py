"""The scheduler's filter and score for one pool of identical nodes, kept incrementally.

The model (README, "Placement model"): keep the nodes whose allocatable resources still fit the pod's
requests (``requested <= allocatable - used`` for every resource the pod asks a non-zero amount of; memory
only when the node reports memory), score each by how little it is allocated,

    score = sum over cpu and memory (when allocatable) of (allocatable - used - wanted) / allocatable,

and take the highest score, the lowest node index on ties, provided the score is above -1. The score counts a
container that asks no cpu or memory as asking 100m and 200MB (the scheduler's non-zero requests,
``NonMissingContainerRequests``): pods without requests spread over the nodes instead of all going to the
first one.

Every node of a pool has the same hardware and kubelet, so allocatable is computed once per pool and the
score's node-dependent part is ``load = sum of used / allocatable`` over cpu and memory: the highest score is
the lowest load. Loads are compared exactly as integers (each resource scaled by the common denominator
of its amounts, cross-multiplied by the other resource's allocatable), never as floats.

Nodes sit in a segment tree whose every subtree knows its lowest (load, index) and the most free of each
resource any of its nodes has. A pod takes the subtree with the lowest (load, index) first and never
enters one where some resource it asks for is short on every node: when the least loaded node fits, the
answer costs one look; on a full pool, whole subtrees are skipped.
"""

from __future__ import annotations

import copy
from fractions import Fraction
from heapq import heappop, heappush
from math import lcm

INFINITY = float("inf")
SCORED = ("cpu", "memory")


class PoolScheduler:
    """Where the default scheduler puts each pod on ``count`` nodes that all have ``allocatable``.

    ``amounts`` are every request the pool will see (to scale each resource to integers once); ``max_pods``: how
    many pods a node takes (the kubelet's maxPods, its allocatable "pods", which NodeResourcesFit filters on
    as a request of one per pod), None for no limit."""

    def __init__(self, allocatable: dict[str, Fraction], count: int, amounts: dict[str, set[Fraction]],
                 max_pods: int | None = None) -> None:
        self.max_pods = max_pods
        if max_pods is not None:
            allocatable = {**allocatable, "pods": Fraction(max_pods)}
        resources = sorted(set(allocatable) | set(amounts))
        self.scale = {r: lcm(1, *(a.denominator for a in amounts.get(r, ()))) for r in resources}
        for r, amount in allocatable.items():
            self.scale[r] = lcm(self.scale[r], amount.denominator)
        self.allocatable = {r: int(allocatable.get(r, 0) * self.scale[r]) for r in resources}
        # memory is only filtered on when the node reports it (NodeResourceTopology objects may not)
        self.filtered = [r for r in resources if r in allocatable or r != "memory"]
        self.scored = [r for r in SCORED if allocatable.get(r)]
        product = 1
        for r in self.scored:
            product *= self.allocatable[r]
        self.product = product  # load = sum(used * product / allocatable) / product
        self.weights = {r: product // self.allocatable[r] for r in self.scored}
        self.count = count
        self.used: list[dict[str, int]] = [{r: 0 for r in resources} for _ in range(count)]
        self.scored_used: list[dict[str, int]] = [{r: 0 for r in self.scored} for _ in range(count)]
        size = 1
        while size < max(count, 1):
            size *= 2
        self.size = size
        # per tree node: lowest (load, index) below it, and the most free of each filtered resource
        self.best: list[tuple[float, int]] = [(INFINITY, -1)] * (2 * size)
        self.most_free: dict[str, list[float]] = {r: [-INFINITY] * (2 * size) for r in self.filtered}
        for index in range(count):
            leaf = size + index
            self.best[leaf] = (0, index)
            for r in self.filtered:
                self.most_free[r][leaf] = self.allocatable[r]
        for node in range(size - 1, 0, -1):
            self._pull(node)

    def copy(self) -> PoolScheduler:
        """A scheduler that goes on from this one's state independently."""
        twin = copy.copy(self)
        twin.used = [dict(used) for used in self.used]
        twin.scored_used = [dict(used) for used in self.scored_used]
        twin.best = list(self.best)
        twin.most_free = {r: list(values) for r, values in self.most_free.items()}
        return twin

    # --- requests -----------------------------------------------------------------------------------
    def scaled(self, wanted: dict[str, Fraction]) -> dict[str, int]:
        """A pod's requests in the pool's integer units (with its one pod of the node's maxPods)."""
        scaled = {r: int(amount * self.scale[r]) for r, amount in wanted.items()}
        if self.max_pods is not None:
            scaled["pods"] = 1
        return scaled

    def full_of_pods(self, index: int | None = None) -> bool:
        """Whether every node (``index``: that node) holds maxPods pods."""
        return self.max_pods is not None and self.most_free["pods"][1 if index is None else self.size + index] < 1

    def _checked(self, wanted: dict[str, int]) -> list[tuple[str, int]]:
        return [(r, amount) for r, amount in wanted.items() if amount and r in self.most_free]

    def _load(self, used: dict[str, int]) -> int:
        load = sum(used[r] * self.weights[r] for r in self.scored)
        return load if self.product > 0 else -load

    def _above_minus_one(self, index: int, wanted: dict[str, int]) -> bool:
        """score > -1, exactly: sum((A - used - wanted) * product / A) / product > -1."""
        used = self.used[index]
        numerator = sum((self.allocatable[r] - used[r] - wanted.get(r, 0)) * self.weights[r] for r in self.scored)
        return numerator > -self.product if self.product > 0 else numerator < -self.product

    # --- filter and score -------------------------------------------------------------------------
    def fits(self, index: int, wanted: dict[str, int]) -> bool:
        """Filter and score of one node (a DaemonSet pod is bound to its node)."""
        leaf = self.size + index
        return all(self.most_free[r][leaf] >= amount for r, amount in self._checked(wanted)) and \
            self._above_minus_one(index, wanted)

    def pick(self, wanted: dict[str, int]) -> int | None:
        """The index of the node the scheduler picks for a pod asking ``wanted``, or None."""
        checked = self._checked(wanted)
        most_free, best = self.most_free, self.best
        if not self.count or any(most_free[r][1] < amount for r, amount in checked):
            return None
        heap = [(best[1], 1)]
        while heap:
            (_, index), node = heappop(heap)
            leaf = self.size + index
            if all(most_free[r][leaf] >= amount for r, amount in checked):
                # the least loaded node below ``node`` fits; no node anywhere else fits with a lower (load, index)
                return index if self._above_minus_one(index, wanted) else None
            for child in (2 * node, 2 * node + 1):
                if best[child][1] >= 0 and all(most_free[r][child] >= amount for r, amount in checked):
                    heappush(heap, (best[child], child))
        return None

    def bind(self, index: int, wanted: dict[str, int], scored: dict[str, int] | None = None) -> None:
        """The pod on node ``index`` was admitted: its requests count as used from now on; ``scored``: its
        non-zero requests, what the score counts (``wanted`` when not given)."""
        used = self.used[index]
        for r, amount in wanted.items():
            used[r] = used.get(r, 0) + amount
        scored_used = self.scored_used[index]
        for r in self.scored:
            scored_used[r] += (wanted if scored is None else scored).get(r, 0)
        leaf = self.size + index
        best, columns = self.best, list(self.most_free.items())
        best[leaf] = (self._load(scored_used), index)
        for r, values in columns:
            values[leaf] = self.allocatable[r] - used.get(r, 0)
        node = leaf // 2
        while node:  # up to the first subtree whose summary does not change
            left, right = 2 * node, 2 * node + 1
            changed = False
            lowest = min(best[left], best[right])
            if lowest != best[node]:
                best[node], changed = lowest, True
            for _, values in columns:
                most = max(values[left], values[right])
                if most != values[node]:
                    values[node], changed = most, True
            if not changed:
                break
            node //= 2

    def _pull(self, node: int) -> None:
        left, right = 2 * node, 2 * node + 1
        self.best[node] = min(self.best[left], self.best[right])
        for values in self.most_free.values():
            values[node] = max(values[left], values[right])
