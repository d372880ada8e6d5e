"""Check functions, one per rule slug: each reads the Analysis and yields Hits; the registry stamps
each hit with its rule, so a check cannot report under another rule's name."""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Iterator
from typing import TYPE_CHECKING

from numalint.findings import Finding, Hit

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


def all_checks() -> dict[str, Check]:
    # the modules register themselves on import; imported here so `numalint rules` stays fast
    from numalint.checks import (  # noqa: F401
        alignment_rules,
        kubelet_rules,
        openshift_rules,
        sriov_rules,
        workload_rules,
    )

    return CHECKS


def run_checks(analysis: Analysis, disabled: Container[str] = ()) -> Iterator[Finding]:
    """Every enabled check's hits as findings of its rule."""
    for slug, func in all_checks().items():
        if slug in disabled:
            continue
        for hit in func(analysis):
            yield Finding.of(slug, hit)
