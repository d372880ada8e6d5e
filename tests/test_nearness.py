"""Nearness over many files at once (``NearIndex``) answers as comparing a file with each of them (``near``)."""

from __future__ import annotations

import random

from numalint.model.run import NearIndex, near


def test_the_index_agrees_with_near_on_random_trees() -> None:
    rng = random.Random(13)

    def path() -> str:
        return "/repo/" + "/".join(rng.choice("abc") for _ in range(rng.randint(0, 4))) + "/f.yaml"

    for _ in range(3000):
        others, file = [path() for _ in range(rng.randint(1, 4))], path()
        assert NearIndex(others).near_any(file) == any(near(file, other) for other in others), (file, others)
    assert not NearIndex([]).near_any("/repo/a.yaml")
