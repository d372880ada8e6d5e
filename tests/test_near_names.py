"""The index of names (``checks.near_names``) answers as difflib compared with every name: the same close names,
in the same order, without comparing each pair."""

from __future__ import annotations

import difflib
import random

from numalint.checks.near_names import CUTOFF, NearNames


def test_the_index_finds_what_difflib_finds_among_every_name() -> None:
    rng = random.Random(17)

    def name() -> str:
        return "".join(rng.choice("abcde_01") for _ in range(rng.randint(0, 9)))

    for _ in range(2000):
        names = sorted({name() for _ in range(rng.randint(1, 30))})
        index = NearNames(names)
        for _ in range(5):
            word = rng.choice([name(), rng.choice(names)])
            for most in (1, 3, None):
                expected = difflib.get_close_matches(word, names, n=most or len(names), cutoff=CUTOFF)
                assert index.close(word, most) == expected, (word, names, most)
