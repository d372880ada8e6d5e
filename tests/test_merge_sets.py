"""The Topology Manager's merge over every permutation of the providers' hints (mergePermutation,
pkg/kubelet/cm/topologymanager/policy.go) gives the same sets of merged masks as numalint's fold, whichever way the
fold ANDs two sets of masks: one pair at a time, or counted over all masks (many NUMA nodes)."""

from __future__ import annotations

import itertools
import random

import pytest

from numalint.alignment import merge
from numalint.alignment.merge import Hint, achievable


def _permutations(lists: list[list[Hint]], all_mask: int) -> tuple[set[int], set[int]]:
    """What the kubelet computes: for each permutation, the AND of its non-nil masks, preferred only when every
    hint is preferred and every non-nil mask is the first one."""
    preferred: set[int] = set()
    others: set[int] = set()
    for permutation in itertools.product(*lists):
        masks = [hint.mask for hint in permutation if hint.mask is not None]
        merged = all_mask
        for mask in masks:
            merged &= mask
        chosen = all(hint.preferred for hint in permutation) and all(mask == masks[0] for mask in masks)
        (preferred if chosen else others).add(merged)
    return preferred, others


def _random_lists(rng: random.Random, nodes: int, most: int) -> list[list[Hint]]:
    all_mask = (1 << nodes) - 1
    return [[Hint(None if rng.random() < 0.15 else rng.randint(1, all_mask), rng.random() < 0.6)
             for _ in range(rng.randint(1, most))] for _ in range(rng.randint(1, 3))]


@pytest.mark.parametrize("direct_ands", [merge.DIRECT_ANDS, 0])
def test_the_fold_gives_the_masks_of_every_permutation(monkeypatch: pytest.MonkeyPatch, direct_ands: int) -> None:
    monkeypatch.setattr(merge, "DIRECT_ANDS", direct_ands)  # 0: every AND of two sets is counted over all masks
    rng = random.Random(7)
    for _ in range(1500):
        nodes = rng.randint(1, 4)
        lists = _random_lists(rng, nodes, 6)
        assert achievable(lists, (1 << nodes) - 1) == _permutations(lists, (1 << nodes) - 1), lists


def test_both_ways_of_anding_agree_on_many_numa_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(11)
    for _ in range(40):
        nodes = rng.randint(6, 10)
        lists = _random_lists(rng, nodes, 120)
        one_by_one = achievable(lists, (1 << nodes) - 1)
        monkeypatch.setattr(merge, "DIRECT_ANDS", 0)
        counted = achievable(lists, (1 << nodes) - 1)
        monkeypatch.undo()
        assert counted == one_by_one
