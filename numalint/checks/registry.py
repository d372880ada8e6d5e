"""The check registry: each rule's check function, registered under its slug."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from numalint.findings import Hit

if TYPE_CHECKING:
    from numalint.analysis import Analysis

Check = Callable[["Analysis"], Iterable[Hit]]
CHECKS: dict[str, Check] = {}


def check(slug: str) -> Callable[[Check], Check]:
    """Register the check function of rule ``slug``."""

    def register(func: Check) -> Check:
        CHECKS[slug] = func
        return func

    return register
