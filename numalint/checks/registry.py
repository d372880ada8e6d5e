"""The check registry: each rule's check function, registered under its slug."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from numalint.findings import Hit

if TYPE_CHECKING:
    from numalint.analysis import Analysis

Check = Callable[["Analysis"], Iterable[Hit]]
CHECKS: dict[str, Check] = {}
# rules whose check stops looking in a file once it holds more findings than a report shows (findings of pairs, which
# can grow with the square of the input): the report's summary of the rest gives no count
UNCOUNTED: set[str] = set()


def check(slug: str, counted: bool = True) -> Callable[[Check], Check]:
    """Register the check function of rule ``slug``; ``counted=False``: see UNCOUNTED."""

    def register(func: Check) -> Check:
        CHECKS[slug] = func
        if not counted:
            UNCOUNTED.add(slug)
        return func

    return register
