"""Which of many names can be a misspelling of another, without comparing it with each of them.

``difflib.get_close_matches(word, names, cutoff=0.75)`` keeps a name only when 2 * (characters the two share,
counted with repeats) / (their lengths added) reaches 0.75 (its quick_ratio bounds the ratio from above). A
name and the word must then share at least 0.6 of the characters of each (their lengths differ by 5/3 at most),
so, with the characters of every name ranked rarest first, the two share one of the rarest ``len - ceil(0.6 len)
+ 1`` characters of each (prefix filtering, as set-similarity joins do). The names found so are asked of difflib
as before: the answer is the same, and thousands of unknown resources beside thousands of policies no longer
compare every pair. Names that all share most of their characters (random words of a few letters) defeat the
filter: a suggestion (``capped``) then gives up on a word with more than ``CAP`` candidates, a decision (is this
a misspelling of a name of the run?) still compares them all (pairwise among thousands of look-alikes).
"""

from __future__ import annotations

import difflib

CUTOFF = 0.75  # the least share of each name's characters a pair above it has in common is 3/5


def _tokens(name: str) -> list[tuple[str, int]]:
    """Each character of ``name`` with how many times it came before: a multiset as a set."""
    seen: dict[str, int] = {}
    tokens = []
    for char in name:
        seen[char] = seen.get(char, 0) + 1
        tokens.append((char, seen[char]))
    return tokens


def _prefix(tokens: list[tuple[str, int]], rank: dict[tuple[str, int], int]) -> list[tuple[str, int]]:
    """The rarest tokens a close name must share one of."""
    keep = len(tokens) - (3 * len(tokens) + 4) // 5 + 1  # less the ceiling of 3/5 of them, in integers
    return sorted(tokens, key=lambda token: (rank.get(token, -1), token))[:keep]


class NearNames:
    """Names indexed by the rarest of their characters."""

    # a suggestion's candidates, at most: thousands of unknown names beside thousands of names alike were compared
    # pair by pair for "did you mean"; among more look-alikes than this, none is a clear suggestion. Per word, so
    # that a suggestion does not depend on the run's order or on how a streamed run is cut into batches
    CAP = 512

    def __init__(self, names: list[str]) -> None:
        self.names = names
        counts: dict[tuple[str, int], int] = {}
        tokens = [_tokens(name) for name in names]
        for each in tokens:
            for token in each:
                counts[token] = counts.get(token, 0) + 1
        self.rank = {token: number for number, (token, _) in
                     enumerate(sorted(counts.items(), key=lambda item: (item[1], item[0])))}
        self.postings: dict[tuple[str, int], list[int]] = {}
        self.empty: list[int] = []  # names of no character: close to nothing but an empty word
        self.answers: dict[tuple[str, int | None, bool], list[str]] = {}  # each word asked once
        for number, each in enumerate(tokens):
            if not each:
                self.empty.append(number)
            for token in _prefix(each, self.rank):
                self.postings.setdefault(token, []).append(number)

    def close(self, word: str, most: int | None = None, capped: bool = False) -> list[str]:
        """``difflib.get_close_matches(word, names, most, CUTOFF)`` (None: every one above CUTOFF), best first;
        ``capped``: none when more than ``CAP`` names are candidates."""
        key = (word, most, capped)
        if key not in self.answers:
            self.answers[key] = self._close(word, most, capped)
        return self.answers[key]

    def _close(self, word: str, most: int | None, capped: bool) -> list[str]:
        tokens = _prefix(_tokens(word), self.rank)
        if capped and any(len(self.postings.get(token, ())) > self.CAP for token in tokens):
            return []
        found: set[int] = set(self.empty) if not word else set()
        for token in tokens:
            found.update(self.postings.get(token, ()))
        if capped and len(found) > self.CAP:
            return []
        candidates = [self.names[n] for n in sorted(found)]
        return difflib.get_close_matches(word, candidates, n=most or max(len(candidates), 1), cutoff=CUTOFF)
