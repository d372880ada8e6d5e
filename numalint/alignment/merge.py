"""The Topology Manager: policy options, hint merging and admission (pkg/kubelet/cm/topologymanager/policy*.go).

The kubelet enumerates the cross product of every provider's hint list and keeps the best
merged hint. The comparison it uses is a total preorder over (mask, preferred), so the winner
is the best of the *set* of achievable merged hints; that set is computed here by folding the
lists one at a time over distinct masks, never enumerating permutations.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from operator import add, mul, sub
from typing import NamedTuple

from numalint.alignment.bitmask import Mask, bits, count, mask_of, narrower
from numalint.alignment.options import ALL_STAGES, GO_BOOLS, bool_error, check_available
from numalint.alignment.startup import ConfigurationError

POLICIES = ("none", "best-effort", "restricted", "single-numa-node")
SCOPES = ("container", "pod")
DEFAULT_MAX_NUMA_NODES = 8
# option -> maturity at v1.32 (pkg/kubelet/cm/topologymanager/policy_options.go); gates are checked by the caller's
# version table
TOPOLOGY_OPTION_MATURITY_1_32 = {"prefer-closest-numa-nodes": "ga", "max-allowable-numa-nodes": "beta"}


class Hint(NamedTuple):
    """A TopologyHint; ``mask`` None is the nil affinity."""

    mask: Mask | None
    preferred: bool


OPTIONS_FIELD = "topologyManagerPolicyOptions"


class ManagerError(ConfigurationError):
    """The Topology Manager cannot be built: the kubelet does not start."""


def parse_bool(name: str, value: str) -> bool:
    error = bool_error(name, value)
    if error:
        raise ManagerError(error, OPTIONS_FIELD, name, "bad-bool")
    return GO_BOOLS[value]


def go_atoi(name: str, value: str) -> int:
    """strconv.Atoi: an optional sign and ASCII digits, nothing else (no spaces, no underscores)."""
    text = value[1:] if value[:1] in "+-" else value
    if not text.isdigit() or not text.isascii() or len(text) > 64:
        if text.isdigit() and text.isascii():
            raise ManagerError(f'unable to convert policy option to integer "{name}": strconv.Atoi: parsing '
                               f'"{value}": value out of range', OPTIONS_FIELD, name, "bad-int")
        raise ManagerError(f'unable to convert policy option to integer "{name}": strconv.Atoi: parsing '
                           f'"{value}": invalid syntax', OPTIONS_FIELD, name, "bad-int")
    number = int(value)
    if not -(2**63) <= number < 2**63:
        raise ManagerError(f'unable to convert policy option to integer "{name}": strconv.Atoi: parsing '
                           f'"{value}": value out of range', OPTIONS_FIELD, name, "bad-int")
    return number


@dataclass
class TopologyOptions:
    prefer_closest: bool = False
    max_numa_nodes: int = DEFAULT_MAX_NUMA_NODES

    @classmethod
    def parse(cls, options: dict[str, str], available: dict[str, str] | None = None,
              enabled_stages: frozenset[str] = ALL_STAGES) -> TopologyOptions:
        """NewPolicyOptions; ``available`` maps option -> maturity at the target version."""
        available = TOPOLOGY_OPTION_MATURITY_1_32 if available is None else available
        opts = cls()
        for name, value in options.items():
            unavailable = check_available("Topology Manager", name, available, enabled_stages)
            if unavailable:
                reason = "unknown-option" if name not in available else "gated-option"
                raise ManagerError(unavailable, OPTIONS_FIELD, name, reason)
            if name == "prefer-closest-numa-nodes":
                opts.prefer_closest = parse_bool(name, value)
            elif name == "max-allowable-numa-nodes":
                number = go_atoi(name, value)
                if number < DEFAULT_MAX_NUMA_NODES:
                    raise ManagerError('the minimum value of "max-allowable-numa-nodes" should not be less than '
                                       f"{DEFAULT_MAX_NUMA_NODES}", OPTIONS_FIELD, name, "min-numa-nodes")
                opts.max_numa_nodes = number
        return opts


@dataclass
class TopologyManager:
    """A policy bound to a machine's NUMA nodes (NewManager)."""

    policy: str
    nodes: list[int]
    distances: dict[int, list[int]] | None = None
    options: TopologyOptions = field(default_factory=TopologyOptions)
    scope: str = "container"

    @classmethod
    def build(cls, policy: str, nodes: Sequence[int], distances: dict[int, list[int]] | None = None,
              options: dict[str, str] | None = None, scope: str = "container",
              available: dict[str, str] | None = None,
              enabled_stages: frozenset[str] = ALL_STAGES) -> TopologyManager:
        if policy == "none":
            return cls("none", sorted(nodes), distances, TopologyOptions(), scope)
        opts = TopologyOptions.parse(options or {}, available, enabled_stages)
        if opts.prefer_closest and distances is None:
            raise ManagerError("cannot discover NUMA topology: error getting NUMA distances from cadvisor",
                               OPTIONS_FIELD, "prefer-closest-numa-nodes", "no-distances")
        if len(nodes) > opts.max_numa_nodes:
            raise ManagerError(f"unsupported on machines with more than {opts.max_numa_nodes} NUMA Nodes",
                               "topologyManagerPolicy", None, "too-many-numa-nodes")
        if policy not in POLICIES:
            raise ManagerError(f'unknown policy: "{policy}"', "topologyManagerPolicy", None, "unknown-policy")
        if scope not in SCOPES:
            raise ManagerError(f'unknown scope: "{scope}"', "topologyManagerScope", None, "unknown-scope")
        return cls(policy, sorted(nodes), distances, opts, scope)

    @property
    def all_mask(self) -> Mask:
        return mask_of(self.nodes)

    def admit(self, hint: Hint) -> bool:
        return self.policy in ("none", "best-effort") or hint.preferred

    def merge(self, providers: Sequence[dict[str, list[Hint] | None] | None]) -> Hint:
        """Policy.Merge over providers' hint maps (resource -> list, None = no preference)."""
        if self.policy == "none":
            return Hint(None, False)
        lists = flatten(providers)
        if self.policy == "single-numa-node":
            lists = [[h for h in lst if h.preferred and (h.mask is None or count(h.mask) == 1)] for lst in lists]
        best = best_merged(lists, self.all_mask, self._better, max_of_min_counts(lists))
        if self.policy == "single-numa-node" and best.mask == self.all_mask:
            return Hint(None, best.preferred)
        return best

    def _better(self, current: Mask, candidate: Mask) -> bool:
        """True when ``candidate`` beats ``current`` (Narrowest, or Closest with prefer-closest)."""
        if candidate == current:
            return False
        if self.policy != "single-numa-node" and self.options.prefer_closest and self.distances is not None:
            if count(current) != count(candidate):
                return count(candidate) < count(current)
            cur, cand = self._distance_sum(current), self._distance_sum(candidate)
            if cur == cand:
                return candidate < current
            return cand < cur
        return narrower(candidate, current)

    def _distance_sum(self, mask: Mask) -> int:
        assert self.distances is not None
        nodes = bits(mask)
        return sum(self.distances[a][self.nodes.index(b)] for a in nodes for b in nodes)

    def compare(self, current: Hint | None, candidate: Hint, best_non_preferred: int) -> Hint | None:
        """HintMerger.compare: which of two merged hints the kubelet keeps."""
        return compare(current, candidate, best_non_preferred, self._better)


def flatten(providers: Sequence[dict[str, list[Hint] | None] | None]) -> list[list[Hint]]:
    """filterProvidersHints: nil/empty maps and nil lists mean no preference, [] means impossible."""
    lists: list[list[Hint]] = []
    for provider in providers:
        if not provider:
            lists.append([Hint(None, True)])
            continue
        for hints in provider.values():
            if hints is None:
                lists.append([Hint(None, True)])
            elif not hints:
                lists.append([Hint(None, False)])
            else:
                lists.append(list(hints))
    return lists


def max_of_min_counts(lists: Sequence[Sequence[Hint]]) -> int:
    """maxOfMinAffinityCounts: the widest of each list's narrowest non-nil hint."""
    best = 0
    for hints in lists:
        narrowest: Mask | None = None
        for hint in hints:
            if hint.mask is None:
                continue
            if narrowest is None or narrower(hint.mask, narrowest):
                narrowest = hint.mask
        if narrowest is not None and count(narrowest) > best:
            best = count(narrowest)
    return best


def compare(current: Hint | None, candidate: Hint, best_non_preferred: int,
            better: object) -> Hint | None:
    assert callable(better)
    if candidate.mask is None or count(candidate.mask) == 0:
        return current
    if current is None:
        return candidate
    assert current.mask is not None
    if not current.preferred and candidate.preferred:
        return candidate
    if current.preferred and not candidate.preferred:
        return current
    if current.preferred and candidate.preferred:
        return candidate if better(current.mask, candidate.mask) else current
    c, k, b = count(current.mask), count(candidate.mask), best_non_preferred
    if c > b:
        return candidate if better(current.mask, candidate.mask) else current
    if c == b:
        if k != b:
            return current
        return candidate if better(current.mask, candidate.mask) else current
    if k > b:
        return current
    if k == b:
        return candidate
    if k > c:
        return candidate
    if k < c:
        return current
    return candidate if better(current.mask, candidate.mask) else current


def achievable(lists: Sequence[Sequence[Hint]], all_mask: Mask) -> tuple[set[Mask], set[Mask]]:
    """(preferred merged masks, non-preferred merged masks) over every permutation, without enumerating.

    A prefix of a permutation is either still preferred (every hint preferred, all non-nil masks equal:
    state = that mask, or ``all_mask`` with a flag when none yet) or already non-preferred (state = the
    AND so far). Both state sets are bounded by the number of distinct masks; the ANDs of two such sets are
    found in time bounded by that number too (``_ands``), not by its square.
    """
    NONE_YET = -1
    width = all_mask.bit_length()
    preferred_states: set[Mask] = {NONE_YET}
    other_states: set[Mask] = set()
    for hints in lists:
        if not hints:
            return set(), set()
        distinct = {(h.mask, h.preferred) for h in hints}
        masks = {all_mask if m is None else m for m, _ in distinct}
        next_preferred: set[Mask] = set()
        if (len(preferred_states) * len(distinct) + len(other_states) * len(masks)) <= DIRECT_ANDS * width << width:
            # few pairs (always on 8 NUMA nodes or fewer): each state with each hint
            next_other = {s & m for s in other_states for m in masks}
            for state in preferred_states:
                current = all_mask if state == NONE_YET else state
                for mask, preferred in distinct:
                    if mask is None:
                        if preferred:
                            next_preferred.add(state)
                        else:
                            next_other.add(current)
                    elif preferred and (state == NONE_YET or mask == state):
                        next_preferred.add(mask)
                    else:
                        next_other.add(current & mask)
            preferred_states, other_states = next_preferred, next_other
            continue
        next_other = _ands(other_states, dict.fromkeys(masks, 1), width) if other_states else set()
        # the ANDs of the preferred states with each non-nil hint, but for a preferred hint of the state's own mask,
        # which keeps the prefix preferred
        plain = [state for state in preferred_states if state != NONE_YET]
        hinted: dict[Mask, int] = {}
        kept: set[Mask] = set()
        for mask, preferred in distinct:
            if mask is not None:
                hinted[mask] = hinted.get(mask, 0) + 1
                if preferred:
                    kept.add(mask)
        if plain and hinted:
            next_other |= _ands(plain, hinted, width, kept)
        for state in plain:
            if state in kept:
                next_preferred.add(state)
        for mask, preferred in distinct:
            if mask is None:
                if preferred:
                    next_preferred.update(preferred_states)
                else:
                    next_other.update(all_mask if state == NONE_YET else state for state in preferred_states)
            elif NONE_YET in preferred_states:
                (next_preferred if preferred else next_other).add(mask if preferred else all_mask & mask)
        preferred_states, other_states = next_preferred, next_other
    preferred_masks = {all_mask if s == NONE_YET else s & all_mask for s in preferred_states}
    return preferred_masks, other_states


DIRECT_ANDS = 4  # pairs per mask and NUMA node below which states and hints are ANDed one by one (faster there)


def _ands(left: Collection[Mask], right: dict[Mask, int], width: int, kept: Collection[Mask] = ()) -> set[Mask]:
    """``{a & b for a in left for b in right}``, less ``a & a`` where ``a`` is in ``kept`` and ``right`` holds it
    only once. Few pairs are ANDed one by one; many (thousands of masks on 12 or more NUMA nodes: up to 4^N pairs)
    are counted over all 2^N masks instead, each set's superset sums multiplied and differenced back, in
    O(N 2^N)."""
    size = 1 << width
    if len(left) * len(right) <= DIRECT_ANDS * width * size or max(max(left), max(right)) >= size:
        return {a & b for a in left for b in right if not (a == b and a in kept and right[b] == 1)}
    first, second = [0] * size, [0] * size
    for mask in left:
        first[mask] += 1
    for mask, times in right.items():
        second[mask] += times
    _superset_sums(first)
    _superset_sums(second)
    pairs = list(map(mul, first, second))
    _superset_sums(pairs, sub)
    for mask in kept:
        if mask in right and mask in left:
            pairs[mask] -= 1
    return {mask for mask, number in enumerate(pairs) if number}


def _superset_sums(values: list[int], combine: Callable[[int, int], int] = add) -> None:
    """Each entry becomes the sum over the masks that hold its own (in place), a block of entries at a time;
    ``combine=sub`` undoes it."""
    bit = 1
    while bit < len(values):
        for start in range(0, len(values), 2 * bit):
            values[start:start + bit] = map(combine, values[start:start + bit], values[start + bit:start + 2 * bit])
        bit *= 2


def best_merged(lists: Sequence[Sequence[Hint]], all_mask: Mask, better: object, best_non_preferred: int) -> Hint:
    preferred, others = achievable(lists, all_mask)
    best: Hint | None = None
    for mask in preferred:
        best = compare(best, Hint(mask, True), best_non_preferred, better)
    for mask in others:
        best = compare(best, Hint(mask, False), best_non_preferred, better)
    return best if best is not None else Hint(all_mask, False)
