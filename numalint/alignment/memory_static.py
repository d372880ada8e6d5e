"""The Memory Manager's Static policy: machine state, hints and allocation
(pkg/kubelet/cm/memorymanager/policy_static.go).

Memory and every hugepage size are tracked per NUMA node. A NUMA node serves either
single-node allocations or belongs to exactly one multi-node group ("cells"); hints and
allocations never mix the two.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from numalint.alignment.bitmask import Mask, bits, count, mask_of, narrower, subsets
from numalint.alignment.merge import Hint
from numalint.alignment.startup import ConfigurationError
from numalint.k8s.quantity import format_bytes

MEMORY = "memory"


class MemoryPolicyError(ConfigurationError):
    """The Static policy cannot start: the kubelet does not start."""


class MemoryAllocationError(Exception):
    """Allocate failed (the kubelet wraps it as UnexpectedAdmissionError)."""


@dataclass
class MemoryTable:
    total: int
    system_reserved: int
    allocatable: int
    reserved: int
    free: int

    def copy(self) -> MemoryTable:
        return MemoryTable(self.total, self.system_reserved, self.allocatable, self.reserved, self.free)


@dataclass
class NodeState:
    assignments: int
    cells: list[int]
    memory: dict[str, MemoryTable]


@dataclass
class Block:
    numa: list[int]
    resource: str
    size: int


@dataclass
class MemoryState:
    nodes: dict[int, NodeState]
    blocks: dict[tuple[str, str], list[Block]] = field(default_factory=dict)
    # pod -> mask -> resource -> bytes that finished init containers leave for the next containers
    reusable: dict[str, dict[Mask, dict[str, int]]] = field(default_factory=dict)

    def clone(self) -> MemoryState:
        """A cheap deep copy (what admission rolls back to when a pod is rejected)."""
        nodes = {n: NodeState(s.assignments, list(s.cells), {r: t.copy() for r, t in s.memory.items()})
                 for n, s in self.nodes.items()}
        return MemoryState(nodes, dict(self.blocks),
                           {p: {m: dict(v) for m, v in per.items()} for p, per in self.reusable.items()})


def hugepage_resource(page_size: int) -> str:

    return f"hugepages-{format_bytes(page_size)}"


@dataclass
class MemoryPolicy:
    """NUMA nodes: id -> (memory bytes, {page size: pages}); reserved: id -> resource -> bytes."""

    nodes: dict[int, tuple[int, dict[int, int]]]
    reserved: dict[int, dict[str, int]]

    @classmethod
    def build(cls, nodes: dict[int, tuple[int, dict[int, int]]], reserved: dict[int, dict[str, int]]) -> MemoryPolicy:
        if sum(r.get(MEMORY, 0) for r in reserved.values()) <= 0:
            raise MemoryPolicyError("[memorymanager] you should specify the system reserved memory", "reservedMemory",
                                    None, "no-reserved-memory")
        return cls(nodes, reserved)

    def new_state(self) -> MemoryState:
        state: dict[int, NodeState] = {}
        for node, (memory, hugepages) in self.nodes.items():
            tables: dict[str, MemoryTable] = {}
            huge_total = 0
            for page, pages in hugepages.items():
                name = hugepage_resource(page)
                reserved = self.reserved.get(node, {}).get(name, 0)
                total = page * pages
                tables[name] = MemoryTable(total, reserved, total - reserved, 0, total - reserved)
                huge_total += total
            reserved = self.reserved.get(node, {}).get(MEMORY, 0)
            allocatable = memory - reserved - huge_total
            tables[MEMORY] = MemoryTable(memory, reserved, allocatable, 0, allocatable)
            state[node] = NodeState(0, [node], tables)
        return MemoryState(state)

    # --- hints ---------------------------------------------------------------------------------
    def hints(self, state: MemoryState, requested: dict[str, int], pod: str = "",
              key: tuple[str, str] | None = None) -> dict[str, list[Hint]] | None:
        """GetTopologyHints; None means "no preference" (a nil map)."""
        if key is not None and key in state.blocks:
            return _regenerate(state.blocks[key], requested)
        return self.calculate(state, requested, pod)

    def calculate(self, state: MemoryState, requested: dict[str, int], pod: str = "") -> dict[str, list[Hint]]:
        nodes = state.nodes
        ids = tuple(sorted(nodes))
        min_affinity = len(ids)
        hints: dict[str, list[Hint]] = {}
        wanted = list(requested.items())
        allocatable = {r: {n: _table(nodes[n], r).allocatable for n in ids} for r in requested}
        free = {r: {n: _table(nodes[n], r).free for n in ids} for r in requested}
        pod_reuse = state.reusable.get(pod, {})
        for mask, members in subsets(ids):
            single = len(members) == 1
            if any(sum(allocatable[r][n] for n in members) < size for r, size in wanted):
                continue
            min_affinity = min(min_affinity, len(members))
            if single and len(nodes[members[0]].cells) > 1:
                continue
            if not single and any(nodes[n].assignments > 0 and (len(nodes[n].cells) == 1 or
                                                                sorted(nodes[n].cells) != list(members))
                                  for n in members):
                continue
            reusable = pod_reuse.get(mask, {})
            if any(sum(free[r][n] for n in members) + reusable.get(r, 0) < size for r, size in wanted):
                continue
            for resource in requested:
                hints.setdefault(resource, []).append(Hint(mask, False))
        return {r: [Hint(h.mask, count(h.mask or 0) == min_affinity) for h in lst] for r, lst in hints.items()}

    # --- allocation ----------------------------------------------------------------------------
    def allocate(self, state: MemoryState, key: tuple[str, str], requested: dict[str, int], hint: Hint,
                 init: bool = False, sidecar: bool = False) -> list[Block]:
        """Allocate: default or extended hint, the single/cross NUMA rule, then blocks."""
        if key in state.blocks:
            return state.blocks[key]
        pod = key[0]
        best = hint
        if best.mask is None:
            hints = self.calculate(state, requested, pod)
            if not hints:
                raise MemoryAllocationError("[memorymanager] failed to get the default NUMA affinity, no NUMA nodes "
                                            "with enough memory is available")
            default = _best_hint(hints.get(MEMORY, []))
            if not default.preferred and best.preferred:
                raise MemoryAllocationError("[memorymanager] failed to find the default preferred hint")
            best = default
        if not self._satisfies(state, best.mask, requested):
            hints = self.calculate(state, requested, pod)
            group = set(bits(best.mask or 0))
            candidates = [h for h in hints.get(MEMORY, []) if group <= set(bits(h.mask or 0))]
            if not candidates:
                raise MemoryAllocationError("[memorymanager] failed to find NUMA nodes to extend the current "
                                            "topology hint")
            extended = _best_hint(candidates)
            if not extended.preferred and best.preferred:
                raise MemoryAllocationError("[memorymanager] failed to find the extended preferred hint")
            best = extended
        members = bits(best.mask or 0)
        if _violates(state, members):
            raise MemoryAllocationError("[memorymanager] preferred hint violates NUMA node allocation")
        blocks: list[Block] = []
        mask = best.mask or 0
        pod_reuse = state.reusable.setdefault(pod, {})
        for resource, size in requested.items():
            blocks.append(Block(members, resource, size))
            reuse = pod_reuse.get(mask, {}).get(resource, 0)
            remaining = 0 if reuse >= size else size - reuse
            _reserve(state, members, resource, remaining)
        for other in [p for p in state.reusable if p != pod]:
            del state.reusable[other]
        if init and not sidecar:
            for block in blocks:
                entry = pod_reuse.setdefault(mask_of(block.numa), {})
                entry[block.resource] = max(entry.get(block.resource, 0), block.size)
        else:  # app containers and sidecars consume what they reused (updatePodReusableMemory)
            for block in blocks:
                entry = pod_reuse.get(mask_of(block.numa), {})
                if entry.get(block.resource):
                    entry[block.resource] = max(0, entry[block.resource] - block.size)
        state.blocks[key] = blocks
        return blocks

    @staticmethod
    def _satisfies(state: MemoryState, mask: Mask | None, requested: dict[str, int]) -> bool:
        members = bits(mask or 0)
        return all(sum(_table(state.nodes[n], r).free for n in members) >= size for r, size in requested.items())


def _table(node: NodeState, resource: str) -> MemoryTable:
    return node.memory.get(resource) or MemoryTable(0, 0, 0, 0, 0)


def _best_hint(hints: Iterable[Hint]) -> Hint:
    """findBestHint: preferred first, then the narrowest."""
    best = Hint(None, False)
    for hint in hints:
        if best.mask is None:
            best = hint
            continue
        if hint.preferred and not best.preferred:
            best = hint
            continue
        if hint.preferred == best.preferred and hint.mask is not None and best.mask is not None \
                and narrower(hint.mask, best.mask):
            best = hint
    return best


def _violates(state: MemoryState, members: list[int]) -> bool:
    single = len(members) == 1
    for node in members:
        info = state.nodes[node]
        if info.assignments == 0 or single:
            continue
        if len(info.cells) == 1 or sorted(info.cells) != sorted(members):
            return True
    return False


def _reserve(state: MemoryState, members: list[int], resource: str, size: int) -> None:
    """updateMachineState: count the assignment on every node, take memory node by node."""
    for node in members:
        info = state.nodes[node]
        info.assignments += 1
        info.cells = list(members)
        if size == 0:
            continue
        table = info.memory.get(resource)
        if table is None or table.free <= 0:
            continue
        if table.free >= size:
            table.reserved += size
            table.free -= size
            size = 0
            continue
        size -= table.free
        table.reserved += table.free
        table.free = 0


def _regenerate(blocks: list[Block], requested: dict[str, int]) -> dict[str, list[Hint]] | None:
    hints: dict[str, list[Hint]] = {r: [] for r in requested}
    if len(blocks) != len(requested):
        return None
    for block in blocks:
        if block.resource not in requested or block.size != requested[block.resource]:
            return None
        hints[block.resource].append(Hint(mask_of(block.numa), True))
    return hints
