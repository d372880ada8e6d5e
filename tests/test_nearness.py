"""Nearness over many files at once (``NearFiles``) answers as comparing a file with each of them (``near``)."""

from __future__ import annotations

import random

from numalint.model.run import NearFiles, near


def test_the_index_agrees_with_near_on_random_trees() -> None:
    rng = random.Random(13)

    def path() -> str:
        return "/repo/" + "/".join(rng.choice("abc") for _ in range(rng.randint(0, 4))) + "/f.yaml"

    for _ in range(3000):
        others, file = [path() for _ in range(rng.randint(1, 6))], path()
        index = NearFiles(others)
        assert index.near_any(file) == any(near(file, other) for other in others), (file, others)
        assert list(index.near(file)) == [n for n, other in enumerate(others) if near(file, other)], (file, others)
    assert not NearFiles([]).near_any("/repo/a.yaml")
    assert list(NearFiles([]).near("/repo/a.yaml")) == []


def test_the_count_of_near_files_agrees_with_near_on_random_trees() -> None:
    rng = random.Random(29)

    def path() -> str:
        return "/repo/" + "/".join(rng.choice("ab") for _ in range(rng.randint(0, 4))) + "/f.yaml"

    for _ in range(3000):
        others, file = [path() for _ in range(rng.randint(0, 8))], path()
        assert NearFiles(others).count(file) == sum(near(file, other) for other in others), (file, others)
