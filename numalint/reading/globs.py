"""Which of many configuration globs can match a path: only those whose text before the first wildcard begins it.

A repository configured per directory (``perPath:`` or ``clusters:`` entries by the thousand) tried every glob on
every file; a glob whose literal start is not the path's can never match it (``fnmatch`` matches from the first
character), so the rest are never tried.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WILDCARD = re.compile(r"[*?\[]")


def literal_start(pattern: str) -> str:
    """The text of ``pattern`` before its first wildcard (all of it when it has none)."""
    found = _WILDCARD.search(pattern)
    return pattern[:found.start()] if found else pattern


class GlobBuckets:
    """Globs (as numbers, in their order) by their literal start."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.by_start: dict[str, list[int]] = {}
        for number, pattern in enumerate(patterns):
            self.by_start.setdefault(literal_start(pattern), []).append(number)
        self.lengths = sorted({len(start) for start in self.by_start})

    def candidates(self, texts: Iterable[str]) -> list[int]:
        """The numbers of the globs that may match one of ``texts``, in order; each is still to be tried."""
        found: set[int] = set()
        for text in texts:
            # the starts' lengths, or the text's own prefixes when there are more lengths than those (globs of
            # thousands of distinct lengths would make each text cost as many lookups)
            lengths = self.lengths if len(self.lengths) <= len(text) else range(len(text) + 1)
            for length in lengths:
                if length > len(text):
                    break
                found.update(self.by_start.get(text[:length], ()))
        return sorted(found)
