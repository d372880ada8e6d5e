"""NUMA affinity bitmasks as the kubelet handles them (topologymanager/bitmask).

A mask is a plain ``int`` (bit i = NUMA node i); ``None`` is the nil mask ("don't care").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import combinations

Mask = int


def mask_of(nodes: Iterable[int]) -> Mask:
    result = 0
    for node in nodes:
        if not 0 <= node <= 63:
            raise ValueError("bit number must be in range 0-63")
        result |= 1 << node
    return result


def bits(mask: Mask) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def count(mask: Mask) -> int:
    return mask.bit_count()


def narrower(a: Mask, b: Mask) -> bool:
    """IsNarrowerThan: fewer bits; equal counts fall back to plain integer comparison."""
    ca, cb = count(a), count(b)
    return ca < cb if ca != cb else a < b


def iterate_masks(nodes: Iterable[int]) -> Iterator[Mask]:
    """IterateBitMasks: every non-empty subset, by size, then lexicographically."""
    for mask, _ in subsets(tuple(sorted(nodes))):
        yield mask


@lru_cache(maxsize=64)
def subsets(nodes: tuple[int, ...]) -> tuple[tuple[Mask, tuple[int, ...]], ...]:
    """(mask, its nodes) for every non-empty subset in IterateBitMasks order; cached per machine."""
    return tuple((mask_of(combo), combo) for size in range(1, len(nodes) + 1)
                 for combo in combinations(nodes, size))
