"""Check functions, one per rule slug; each takes the Run and yields findings."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from numalint.findings import Finding
    from numalint.model.run import Run

Check = Callable[["Run"], Iterable["Finding"]]
CHECKS: dict[str, Check] = {}


def check(slug: str) -> Callable[[Check], Check]:
    """Register the check function of rule ``slug``."""

    def register(func: Check) -> Check:
        CHECKS[slug] = func
        return func

    return register


def all_checks() -> dict[str, Check]:
    from numalint.checks import alignment_rules, kubelet_rules, openshift_rules, sriov_rules, workload_rules  # noqa: F401  (registration)

    return CHECKS
