"""Which SR-IOV policies ``sriov-policy-conflict`` compares: the pairs that can share nodes and conflict, in input
order, found at the cost of the answer, and none that could only add findings past a file's shown hundred.

Two policies can conflict only when one node selector is within the other (every node one policy selects is the
other's, so the operator's webhook compares them on a node for sure; a policy without one, a template to fill in,
is compared with nothing) and they share a resourceName (differing in excludeTopology or deviceType), a PF
(differing in externallyManaged, or naming VF ranges that overlap; an entry without ``#first-last`` counts as
-1..-1) or a root device. Thousands of policies that agree cost no pair each; thousands that all conflict would be
millions of findings, of which a report shows a hundred per file: once the check closes a file
(``PolicyPairs.close``), a pair whose two policies are in closed files is not given, so the work stops where the
report does (its summary then says "… and more", uncounted).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator

from numalint.model.sriov import Policy

_NO_END = -2  # below any VF range's end (-1 for an entry without a range)


class _Traits:
    """What of a policy decides whether it can conflict with another, worked out once."""

    __slots__ = ("resource", "kind", "hulls", "managed", "roots")

    def __init__(self, policy: Policy) -> None:
        self.resource = policy.resource  # with its prefix: another operator's resource is another
        self.kind = (policy.exclude_topology, policy.device_type)
        self.managed = policy.externally_managed
        self.roots = tuple(dict.fromkeys(policy.root_devices))
        # each PF it names: the VFs it may name there (the hull of its entries' ranges, -1 for an entry without
        # one: a policy repeating a PF thousands of times counts once)
        self.hulls: dict[str, tuple[int, int]] = {}
        for pf in policy.pf_names:
            low, high = (-1, -1) if pf.first is None or pf.last is None else sorted((pf.first, pf.last))
            hull = self.hulls.get(pf.name, (low, high))
            self.hulls[pf.name] = (min(hull[0], low), max(hull[1], high))


class _Ranges:
    """The VF ranges named on one PF, each with its policies. Those overlapping a range are found at the cost of
    the answer: a tree of the greatest end under each node, over the ranges sorted by start (a scan would pass
    every range below the one asked about: thousands of policies each on its own VF were quadratic). A range
    whose policies are all removed is found no more."""

    def __init__(self, ranges: dict[tuple[int, int], list[int]]) -> None:
        self.ranges = sorted(ranges)
        self.starts = [low for low, _high in self.ranges]
        self.slots = {hull: n for n, hull in enumerate(self.ranges)}
        self.policies = [dict.fromkeys(ranges[hull]) for hull in self.ranges]
        self.size = 1
        while self.size < len(self.ranges):
            self.size *= 2
        self.ends = [_NO_END] * (2 * self.size)
        for n, (_low, high) in enumerate(self.ranges):
            self.ends[self.size + n] = high
        for node in range(self.size - 1, 0, -1):
            self.ends[node] = max(self.ends[2 * node], self.ends[2 * node + 1])

    def overlapping(self, low: int, high: int) -> Iterator[int]:
        """The policies of the ranges that overlap low..high."""
        stop = bisect_right(self.starts, high)  # the ranges starting by its end
        todo = [(1, 0, self.size)]
        while todo:
            node, first, last = todo.pop()
            if first >= stop or self.ends[node] < low:
                continue
            if node >= self.size:
                yield from self.policies[node - self.size]
                continue
            middle = (first + last) // 2
            todo += ((2 * node + 1, middle, last), (2 * node, first, middle))

    def remove(self, index: int, hull: tuple[int, int]) -> None:
        slot = self.slots[hull]
        self.policies[slot].pop(index, None)
        if self.policies[slot]:
            return
        node = self.size + slot
        self.ends[node] = _NO_END
        while node > 1:
            node //= 2
            self.ends[node] = max(self.ends[2 * node], self.ends[2 * node + 1])


def _can_conflict(own: _Traits, other: _Traits) -> bool:
    """What ``_ConflictIndex.against`` answers, for one pair."""
    if own.resource == other.resource and own.kind != other.kind:
        return True
    for name, (low, high) in own.hulls.items():
        hull = other.hulls.get(name)
        if hull is not None and (own.managed != other.managed or hull[0] <= high and hull[1] >= low):
            return True
    return any(device in other.roots for device in own.roots)


class _FewPolicies:
    """A few policies, asked about one by one: most node selectors have one policy, and an index of its own for
    each was kilobytes a policy."""

    SIZE = 8

    def __init__(self, traits: list[_Traits], members: Iterable[int]) -> None:
        self.traits = traits
        self.members = list(members)

    def against(self, own: _Traits) -> Iterator[int]:
        return (index for index in self.members if _can_conflict(own, self.traits[index]))

    def remove(self, index: int) -> None:
        if index in self.members:
            self.members.remove(index)


class _ConflictIndex:
    """Policies by what can make one conflict with another policy: asked about a policy, it answers at the cost of
    its answer; policies are removed once done with."""

    def __init__(self, traits: list[_Traits], members: Iterable[int]) -> None:
        self.traits = traits
        self.members: set[int] = set()
        # resource: (excludeTopology, deviceType): the policies
        self.by_resource: dict[str, dict[tuple[bool, str], dict[int, None]]] = {}
        self.managed: dict[tuple[str, bool], dict[int, None]] = {}  # (PF name, externallyManaged): the policies
        self.by_root: dict[str, dict[int, None]] = {}
        ranges: dict[str, dict[tuple[int, int], list[int]]] = {}  # PF name: the VFs named there: the policies
        for index in members:
            own = traits[index]
            self.members.add(index)
            self.by_resource.setdefault(own.resource, {}).setdefault(own.kind, {})[index] = None
            for name, hull in own.hulls.items():
                ranges.setdefault(name, {}).setdefault(hull, []).append(index)
                self.managed.setdefault((name, own.managed), {})[index] = None
            for device in own.roots:
                self.by_root.setdefault(device, {})[index] = None
        self.by_pf = {name: _Ranges(hulls) for name, hulls in ranges.items()}

    def against(self, own: _Traits) -> Iterator[int]:
        """The policies that can conflict with a policy of traits ``own``, some more than once."""
        for kind, found in self.by_resource.get(own.resource, {}).items():
            if kind != own.kind:
                yield from found
        for name, (low, high) in own.hulls.items():
            if name in self.by_pf:
                yield from self.by_pf[name].overlapping(low, high)
            yield from self.managed.get((name, not own.managed), ())
        for device in own.roots:
            yield from self.by_root.get(device, ())

    def remove(self, index: int) -> None:
        if index not in self.members:
            return
        self.members.discard(index)
        own = self.traits[index]
        del self.by_resource[own.resource][own.kind][index]
        for name, hull in own.hulls.items():
            self.by_pf[name].remove(index, hull)
            del self.managed[(name, own.managed)][index]
        for device in own.roots:
            del self.by_root[device][index]


def _index(traits: list[_Traits], members: list[int]) -> _FewPolicies | _ConflictIndex:
    return _FewPolicies(traits, members) if len(members) <= _FewPolicies.SIZE else _ConflictIndex(traits, members)


class _Family:
    """The policies still to be paired, by node selector: each selector's own, and, for some selectors of many
    policies, the policies of all the selectors holding it (their nodes are among its nodes) together: a policy of
    every node beside thousands of per-node policies asks one index, not thousands. Such unions are made where
    they save the most asking, as long as they hold no more than a few times the policies in all (each selector a
    union of its own was quadratic in memory for selectors held by many: every subset of a few labels)."""

    BUDGET = 4  # the policies all unions may hold, per policy

    def __init__(self, pairs: PolicyPairs, members: Iterable[int]) -> None:
        kept = set(members)
        self.pairs = pairs
        self.own = [_index(pairs.traits, [i for i in group if i in kept]) for group in pairs.groups]
        self.together: list[_FewPolicies | _ConflictIndex | None] = [None] * len(pairs.groups)
        sizes = [len(group) for group in pairs.groups]
        gains = []  # (asking saved, the selector, the union's size)
        for selector, holders in enumerate(pairs.holders):
            theirs = sum(sizes[holder] for holder in holders)
            if sizes[selector] * len(holders) > theirs:
                gains.append((sizes[selector] * len(holders) - theirs, selector, theirs))
        room = self.BUDGET * len(pairs.traits)
        for _gain, selector, theirs in sorted(gains, key=lambda gain: (-gain[0], gain[1])):
            if theirs <= room:
                room -= theirs
                self.together[selector] = _index(pairs.traits, [i for holder in pairs.holders[selector]
                                                                for i in pairs.groups[holder] if i in kept])

    def against(self, index: int) -> Iterator[int]:
        pairs, own = self.pairs, self.pairs.traits[index]
        selector = pairs.selector_of[index]
        yield from self.own[selector].against(own)
        together = self.together[selector]
        for other in pairs.held[selector] + (pairs.holders[selector] if together is None else []):
            yield from self.own[other].against(own)
        if together is not None:
            yield from together.against(own)

    def remove(self, index: int) -> None:
        selector = self.pairs.selector_of[index]
        if selector < 0:  # no node selector: in no index
            return
        self.own[selector].remove(index)
        for held in self.pairs.held[selector]:
            together = self.together[held]
            if together is not None:
                together.remove(index)


class PolicyPairs:
    """The pairs of ``policies`` (as indexes, the lower first) that can share nodes and conflict, in order, once
    (the pairs are given as they are found, and found as policies are done with); a policy without a node selector
    (a template to fill in) is paired with none. Each distinct selector is compared only with those holding its
    rarest label."""

    def __init__(self, policies: list[Policy]) -> None:
        self.traits = [_Traits(policy) for policy in policies]
        self.files = [policy.doc.file for policy in policies]
        numbers: dict[frozenset[tuple[str, str]], int] = {}
        self.groups: list[list[int]] = []
        self.selector_of: list[int] = []  # -1: no node selector
        for index, policy in enumerate(policies):
            if not policy.has_selector:
                self.selector_of.append(-1)
                continue
            number = numbers.setdefault(frozenset(policy.node_selector.items()), len(numbers))
            if number == len(self.groups):
                self.groups.append([])
            self.groups[number].append(index)
            self.selector_of.append(number)
        distinct = list(numbers)
        holding: dict[tuple[str, str], list[int]] = {}
        for number, selector in enumerate(distinct):
            for item in selector:
                holding.setdefault(item, []).append(number)
        # each selector's holders (the others with all its labels: some of its nodes; every one holds an empty
        # selector), and those it holds
        self.holders: list[list[int]] = []
        self.held: list[list[int]] = [[] for _ in distinct]
        for number, selector in enumerate(distinct):
            candidates = holding[min(selector, key=lambda item: len(holding[item]))] if selector else range(
                len(distinct))
            self.holders.append([other for other in candidates if other != number and selector <= distinct[other]])
            for other in self.holders[-1]:
                self.held[other].append(number)
        self.by_file: dict[str, list[int]] = {}
        for index, file in enumerate(self.files):
            self.by_file.setdefault(file, []).append(index)
        self.remaining = _Family(self, range(len(policies)))
        self.open: _Family | None = None  # the policies of files not closed, once one is
        self.closed: set[str] = set()
        self.at = -1

    def __iter__(self) -> Iterator[tuple[int, int]]:
        if self.at >= 0:
            raise RuntimeError("PolicyPairs gives its pairs once")
        for index, selector in enumerate(self.selector_of):
            if selector < 0:
                continue
            self.at = index
            self.remaining.remove(index)
            if self.open is not None:
                self.open.remove(index)
            family = self.open if self.files[index] in self.closed and self.open is not None else self.remaining
            for other in sorted(set(family.against(index))):
                if not (self.files[index] in self.closed and self.files[other] in self.closed):
                    yield index, other

    def close(self, file: str) -> None:
        """The check shows no more pairs in ``file``: a pair of two policies of closed files is not given."""
        if file in self.closed:
            return
        self.closed.add(file)
        if self.open is None:
            self.open = _Family(self, (i for i in range(self.at + 1, len(self.files))
                                       if self.files[i] not in self.closed))
            return
        for index in self.by_file[file]:
            if index > self.at:
                self.open.remove(index)
