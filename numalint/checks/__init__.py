"""Check functions, one per rule slug: each reads the Analysis and yields Hits; ``run_checks`` stamps
each hit with its rule, so a check cannot report under another rule's name."""

from __future__ import annotations

from collections.abc import Container, Iterator
from typing import TYPE_CHECKING

from numalint.checks import (  # noqa: F401  (each module registers its checks)
    alignment_rules,
    kubelet_rules,
    openshift_rules,
    sriov_rules,
    workload_rules,
)
from numalint.checks.registry import CHECKS, Check
from numalint.findings import Finding

if TYPE_CHECKING:
    from numalint.analysis import Analysis


def all_checks() -> dict[str, Check]:
    return CHECKS


def run_checks(analysis: Analysis, disabled: Container[str] = (), cluster: str | None = None) -> Iterator[Finding]:
    """Every enabled check's hits as findings of its rule (in ``cluster``, when clusters are declared)."""
    for slug, func in CHECKS.items():
        if slug in disabled:
            continue
        for hit in func(analysis):
            yield Finding.of(slug, hit, cluster)
