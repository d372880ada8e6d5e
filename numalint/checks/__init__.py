"""Check functions, one per rule slug: each reads the Analysis and yields Hits; ``run_checks`` stamps
each hit with its rule, so a check cannot report under another rule's name.

The checks of ``kubelet_rules`` and ``alignment_rules`` read only kubelet configurations, OpenShift
KubeletConfigs and the pools and simulation built from them and from topologies; a run with none of them
(workloads alone, the usual pre-commit run) skips them without importing them or the alignment core they
need (start-up time). Checks run in the same order either way: the modules' order below, each module's
checks in the order it defines them.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterator
from dataclasses import replace as dc_replace
from typing import TYPE_CHECKING

from numalint.checks import (  # noqa: F401  (each module registers its checks)
    openshift_rules,
    sriov_rules,
    workload_rules,
)
from numalint.checks.input_rules import MAX_PER_RULE
from numalint.checks.registry import CHECKS, Check
from numalint.findings import Finding, Fix, Hit
from numalint.k8s.kinds import KUBELET_CONFIG, KUBELET_SNIPPET
from numalint.reading.locate import get, locate

if TYPE_CHECKING:
    from numalint.analysis import Analysis
    from numalint.reading.yamlpos import Span

ORDER = ("alignment_rules", "kubelet_rules", "openshift_rules", "sriov_rules", "workload_rules")
NODE_MODULES = frozenset({"numalint.checks.alignment_rules", "numalint.checks.kubelet_rules"})


def _load_node_checks() -> None:
    """Register the checks that need a pool (see the module docstring)."""
    from numalint.checks import alignment_rules, kubelet_rules  # noqa: F401  (start-up time: only with pools)


def _ordered() -> list[tuple[str, Check]]:
    rank = {f"numalint.checks.{name}": i for i, name in enumerate(ORDER)}
    # sorted is stable: each module's checks keep their definition order
    return sorted(CHECKS.items(), key=lambda item: rank.get(item[1].__module__, len(ORDER)))


def all_checks() -> dict[str, Check]:
    _load_node_checks()
    return dict(_ordered())


def run_checks(analysis: Analysis, disabled: Container[str] = (), cluster: str | None = None,
               skip_modules: Container[str] = ()) -> Iterator[Finding]:
    """Every enabled check's hits as findings of its rule (in ``cluster``, when clusters are declared); none of the
    checks of ``skip_modules``."""
    node_side = _has_node_side(analysis)
    if node_side:
        _load_node_checks()
    analysis = dc_replace(analysis, shown_per_file=MAX_PER_RULE)  # what the report will show (cap_per_file)
    inside = unedited_values(analysis)
    for slug, func in _ordered():
        if slug in disabled or (not node_side and func.__module__ in NODE_MODULES) or func.__module__ in skip_modules:
            continue
        for hit in hits(func, analysis, inside):
            yield Finding.of(slug, hit, cluster)


def hits(check: Check, analysis: Analysis, inside: Unedited) -> Iterator[Hit]:
    """The hits of ``check``; a fix whose edit would land on a value written in another syntax than the field's
    becomes a hint saying where (``unedited_values``); the fix of a configuration made of kubelet flags alone also
    names the flags of the fields it names."""
    for hit in check(analysis):
        if hit.fix is not None and hit.fix.edits:
            where = inside.where(hit.file, [edit.span for edit in hit.fix.edits])
            if where is not None:
                hit.fix = Fix(f"{hit.fix.description}, {where}")
        written_in = inside.flags_only(hit.file, hit.span) if hit.fix is not None else None
        if hit.fix is not None and written_in is not None:
            hit.fix = Fix(f"{hit.fix.description}{flag_names(hit.fix.description, written_in)}")
        yield hit


def flag_names(description: str, written_in: str) -> str:
    """"; as kubelet flags (kubeletExtraArgs): ..." for the configuration fields ``description`` names, with the
    form of each flag whose syntax is not the field's (``written_in``: the list the flags are written in)."""
    from numalint.views.kubelet_flags import FLAG_SYNTAX, FLAGS  # here: only a configuration of flags needs them

    named = [f"{field} is {flag}{FLAG_SYNTAX.get(flag, '')}" for flag, (field, _) in FLAGS.items()
             if re.search(rf"\b{field}\b", description)]
    return f"; as kubelet flags ({written_in}): {', '.join(named)}" if named else ""


ANNOTATION_HINT = "in the JSON of the kubeletconfig.experimental annotation (by hand: numalint does not edit inside it)"
FLAG_HINT = "in kubeadm's kubeletExtraArgs, which set this kubelet flag (by hand: numalint does not edit flags)"
KIND_HINT = "in the kind cluster's kubeadmConfigPatches (by hand: numalint does not edit kind's patches)"


class Unedited:
    """Where kubelet settings were taken from in another syntax than the field's, which a fix does not edit:
    values (file, span) and whole documents (file, span: every line of it)."""

    def __init__(self, values: dict[tuple[str, Span], str], documents: list[tuple[str, Span, str]],
                 flag_documents: list[tuple[str, Span, str]] | None = None) -> None:
        self.values = values
        self.documents = documents
        self.flag_documents = flag_documents or []  # of configurations made of kubelet flags alone

    def flags_only(self, file: str, span: Span) -> str | None:
        """The list of flags a configuration of flags alone at ``span`` is written in, None when there is none."""
        return next((written_in for other, document, written_in in self.flag_documents
                     if other == file and within(span, document)), None)

    def where(self, file: str, spans: list[Span]) -> str | None:
        """Where the first of ``spans`` that lands on such a value or document is, None when none does."""
        for span in spans:
            found = self.values.get((file, span))
            if found is not None:
                return found
            for other, document, hint in self.documents:
                if other == file and within(span, document):
                    return hint
        return None


def within(span: Span, document: Span) -> bool:
    """Whether ``span`` starts in ``document``, by line and column (the next document may start on the line this
    one ends on: `--- {kind: Pod, ...}`), its very end included (an insertion after its last key)."""
    return (document.line, document.col) <= (span.line, span.col) <= (document.end_line, document.end_col)


def unedited_values(analysis: Analysis) -> Unedited:
    """The values of a PerformanceProfile's kubeletconfig.experimental annotation (located whole: one JSON text,
    an edit would replace every other setting in it) and of the kubelet flags kubeadm's kubeletExtraArgs set
    (``views.kubelet_flags``: a map flag's items are located at its whole value), and the documents of the
    configurations whose every fix is made by hand (``KubeletProfile.by_hand``: a kind cluster's patches, where a
    value may come from kind itself or be merged from several patches; the kubelet flags of Cluster API templates and
    of RKE2/K3s configuration files)."""
    inside = {(profile.file, span): profile.by_hand or FLAG_HINT for profile in analysis.profiles
              for span in profile.flag_spans}
    inside.update({(profile.file, locate(profile.rendered_from.root, KUBELET_SNIPPET)): ANNOTATION_HINT
                   for profile in analysis.profiles if profile.rendered_from is not None
                   and isinstance(get(profile.rendered_from.root, KUBELET_SNIPPET), str)})
    documents = [(profile.file, profile.doc.span, profile.by_hand) for profile in analysis.profiles
                 if profile.by_hand is not None]
    flags = [(profile.file, profile.doc.span, profile.flags_only) for profile in analysis.profiles
             if profile.flags_only is not None]
    return Unedited(inside, documents, flags)


def _has_node_side(analysis: Analysis) -> bool:
    """Whether the node checks can find anything: a pool, or an OpenShift KubeletConfig without
    spec.kubeletConfig (no profile, no pool, but the machine-config operator still validates its logLevel)."""
    return bool(analysis.pools) or bool(analysis.of_kind(KUBELET_CONFIG))
