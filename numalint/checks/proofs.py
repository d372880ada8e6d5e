"""Fixes that are proven: every edit-bearing fix on a kubelet configuration is tried before it is offered.

A fix lands on a kubelet configuration document (KubeletConfiguration, an OpenShift KubeletConfig, a
PerformanceProfile, which renders into kubelet settings) whatever rule makes it: the schema's retyping, the
unknown-field rename, a policy name's case, a reservedMemory correction. Its edits are applied to the file's
text in memory, exactly as ``fix`` would write them; the document is read again and every check runs on its
pool: that configuration with the run's topologies, pool objects and the workloads the run places on it.

The fix stays automatic only when its finding is gone and no error appears that was not there before, on
the document or, when its kubelet started before the fix, on a workload of its pool. An error that appears
but carries its own automatic fix on the document is allowed when applying that fix as well (what the next
``fix`` pass does) leaves no new error: a case fix that turns the Static memory manager on may need a
reservedMemory correction. A safe fix whose follow-up is unsafe becomes unsafe too, and says so: applied
without its follow-up it would leave the new error. Any other outcome turns the fix into a display-only hint
saying what would go wrong, so the author decides.

A fix on a workload (a rounded CPU count) is proven the same way on the pools the
run places it on (``_WorkloadProver``); a workload on no pool keeps its fix. The proof runs every check and
judges an error by its rule's own severity, whatever the selection and configured severities say: they decide
what is reported, not what the kubelet refuses. Fixes applied together are judged by ``fix`` (``fixer.fix``).

Only documents that carry such a fix pay for the proof: one reading of the document alone (the other lines of
its file emptied, so positions stay) and one analysis of its pool per fix, plus one for the document as it is.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as dc_replace
from functools import partial
from typing import Any

from numalint.analysis import Analysis, analyse, with_pods
from numalint.catalogue import catalogue
from numalint.checks import Unedited, all_checks, hits, unedited_values
from numalint.checks.forked import run_tasks
from numalint.checks.input_rules import MAX_PER_RULE_PROVEN, is_summary
from numalint.findings import SAFE, UNSAFE, Edit, Finding, Fix, Hit, shorten
from numalint.model.instancetyped import with_instancetypes
from numalint.model.pools import Pool, PoolMatcher, build_pools
from numalint.model.run import FileResult, Run, naming_instancetypes
from numalint.reading.sources import Document, Source
from numalint.reading.yamlpos import Span, YMap, line_starts
from numalint.views.kubelet import KubeletProfile
from numalint.views.performance import EmbeddedDocument
from numalint.views.workloads import PodView

# The lists below are kept by hand; tests/test_fix_proofs.py checks that no rule of a list reads (in its check or
# any numalint function it calls by name) what the proof leaving it out changes.
# rules that judge a workload alone, whatever its pool: an edit of a kubelet configuration cannot change what
# they say, so its proof does not run them (the API server's pod validation, pkg/apis/core/validation, is the
# costliest check of a large pool)
POD_ALONE = frozenset({"invalid-resources"})
# rules of the SR-IOV objects: they read the policies and networks, and the workloads and topologies of the pools,
# which a proof of a kubelet configuration's fix keeps as they are (a fix moving the configuration to another pool
# is proven on the whole run): what they say is the same before and after, so such a proof does not run them, nor
# build the SR-IOV catalogue again (thousands of fixable configurations beside thousands of policies were quadratic)
SRIOV_ALONE = frozenset({"sriov-unknown-resource", "sriov-unused-resource", "networks-annotation",
                         "sriov-policy-conflict", "sriov-numvfs"})
# rules whose findings on a workload depend on that workload, its pools' configuration and topology and the SR-IOV
# objects, never on the other workloads or where the simulation placed any: a workload fix cannot change what they
# say of another workload, so its proof runs them on the workloads it tries only (before and after), not on a
# whole pool of thousands (the pool still runs every other rule)
WORKLOAD_ALONE = frozenset({"invalid-resources", "not-guaranteed", "fractional-cpu", "pod-level-resources",
                            "crio-annotations-ignored", "networks-annotation", "sriov-unknown-resource"})
# rules that read the node side only (kubelet configurations, PerformanceProfiles, MachineConfigPools, pools and
# topologies), never a workload or where the simulation placed one: a workload fix cannot change what they say, so
# its proof does not run them (each set of pools ran them on every profile of the run: quadratic in pools)
NODE_ALONE = frozenset({"performance-profile-invalid", "performance-profile-cpus", "kubeletconfig-pool",
                        "invalid-policy-name", "unknown-field", "cpu-manager-not-static", "memory-manager-not-static",
                        "no-cpu-reservation", "reserved-cpus-invalid", "reserved-cpus-conflict",
                        "reserved-memory-mismatch", "reserved-memory-numa", "kubelet-start",
                        "kubeletconfig-unsupported-field", "sriov-policy-conflict", "sriov-numvfs"})
# whole-run analyses the document proofs of one run may cost: k fixes that bring errors among n cost about
# 2k log n of them, and a repository of many policies that each conflict once renamed must not take minutes
MAX_DOCUMENT_TRIES = 64
# analyses of one set of pools the workload proofs of one run may cost: each admits the pools' workloads again, so
# hundreds of fixes that all bring an error (rounded CPUs that no longer fit) were quadratic
MAX_POOL_TRIES = 64
_ANCHOR = re.compile(r"&([^\s\[\]{},]+)")
_ALIAS = re.compile(r"\*([^\s\[\]{},]+)")
_KEY = r"[^\s\[\]{},:#&*!'\"][^\s\[\]{},:]*|\"[^\"\n]*\"|'[^'\n]*'"
# the key and anchor (maybe a tag and a comment after it) just before a node's value, where an edit starts
# (comment lines may stand between the anchor and the value)
_ANCHORED = re.compile(r"(?:(" + _KEY + r")[ \t]*:[ \t]+)?&([^\s\[\]{},]+)"
                       r"(?:\s+![^\s\[\]{},]*)?(?:[ \t]+#[^\n]*)?(?:\s*\n[ \t]*#[^\n]*)*\s+\Z")
Reread = Callable[[str, str], FileResult]  # (path, text) -> the file read from that text


@dataclass(frozen=True)
class _Seen:
    """One finding of the pool: on the document, where it starts in the original text ("doc", character
    offset); elsewhere (a pod the pool runs), its file, line and column, which the edits do not move."""

    rule: str
    place: tuple[object, ...]
    error: bool
    message: str
    fix: Fix | None


Mapper = Callable[[int], int]  # an offset in an edited text -> the offset in the text before the edits


class NeedsWholeRun(Exception):
    """A proof needs every workload of the run, and the analysis holds only some (``numalint.checks.streamed``)."""


def prove_fixes(findings: Iterable[Finding], analysis_of: Callable[[str], Analysis | None],
                text_of: Callable[[str], str | None], reread: Reread, processes: int = 1,
                some_workloads: bool = False) -> None:
    """Replace, in place, the fix of every finding on a kubelet configuration that its proof refutes.

    The proof runs every check and judges an error by the rule's own severity, whatever ``--select``,
    ``--ignore`` or a configured severity say: those decide what is reported and fixed, not what the kubelet
    refuses (a rename that stops the kubelet is no safer because reserved-cpus-conflict is switched off).

    The proofs of one configuration, and of the workload fixes of one set of pools, depend on nothing else:
    with ``processes`` above one they are shared out among forked processes (``numalint.checks.forked``).

    ``some_workloads``: the analyses hold some of the run's workloads, none of them simulated (a streamed run):
    what a fix of a kubelet configuration or of a workload does to the others cannot change a verdict there, but a
    fix of any other document (an SR-IOV policy) is proven on the whole run, and raises NeedsWholeRun."""
    prover = _Prover(text_of, reread)
    workloads = _WorkloadProver(prover)
    documents = _DocumentProver(prover)
    proven: list[Finding] = []  # the findings whose proofs the tasks below run, by their index here
    by_profile: dict[int, list[tuple[Analysis, KubeletProfile, int]]] = {}
    fixed = [finding for finding in findings if finding.fix is not None and finding.fix.edits]
    files = {finding.file for finding in fixed}
    for finding in fixed:
        assert finding.fix is not None
        analysis = analysis_of(finding.file)
        if analysis is None:
            continue
        anchor = prover.aliased_anchor(finding.input, finding.fix.edits)
        profile = _document_of(analysis, finding, files)
        if anchor is not None:
            finding.fix = finding.fix.as_hint(f"the value it edits is anchored (&{anchor}) and read elsewhere "
                                                f"through *{anchor}, which the change would alter too; decide by hand")
        elif profile is False:
            finding.fix = finding.fix.as_hint("numalint cannot tell which configuration of the line it is in; "
                                                "decide by hand")
        elif isinstance(profile, KubeletProfile) and not prover.shares_anchors(profile.file,
                                                                                _carrier(analysis, profile).span) \
                and not _moves_pool(profile, finding.fix.edits):
            by_profile.setdefault(id(profile), []).append((analysis, profile, len(proven)))
            proven.append(finding)
        elif isinstance(profile, KubeletProfile):
            # another document merges its anchors, or the fix changes which pool the configuration is for (a
            # misspelt machineConfigPoolSelector renamed): the whole run decides
            if some_workloads:
                raise NeedsWholeRun(finding.file)
            documents.add(analysis, len(proven), False)
            proven.append(finding)
        else:
            pod = _workload_of(analysis, finding, files)
            if pod is False:
                finding.fix = finding.fix.as_hint("numalint cannot tell which workload of the line it is in; "
                                                    "decide by hand")
            elif isinstance(pod, PodView) and prover.shares_anchors(pod.file, pod.locator.fallback):
                # the edit may land in a value another object of the file reads through an alias, or the workload
                # reads its value from another's anchor: the fix would change that other object too
                finding.fix = finding.fix.as_hint("the workload shares YAML anchors with another object of its "
                                                    "file, which the change would alter too; decide by hand")
            elif isinstance(pod, PodView) and analysis.pools_for(pod):
                workloads.add(analysis, pod, len(proven))
                proven.append(finding)
            else:  # any other document: an SR-IOV policy, a topology, a workload on no pool
                if some_workloads and not isinstance(pod, PodView):
                    raise NeedsWholeRun(finding.file)
                documents.add(analysis, len(proven), isinstance(pod, PodView))
                proven.append(finding)
    tasks: list[Callable[[], list[tuple[int, Fix | None]]]] = []
    costs: list[int] = []  # workloads analysed: what a proof costs
    for items in by_profile.values():
        tasks.append(partial(_prove_configuration, prover, proven, items))
        costs.append(len(prover.pods_of(items[0][0], items[0][1])) * (1 + len(items)))
    for analysis, pods, group in workloads.groups():
        tasks.append(partial(workloads.prove_group, proven, analysis, pods, group))
        costs.append(2 * len(pods))
    for analysis, indexes in documents.waiting.values():
        tasks.append(partial(documents.prove_group, proven, analysis, indexes))
        costs.append(2 * len(analysis.pods))
    for outcome in run_tasks(tasks, costs, processes):
        for index, fix in outcome:
            proven[index].fix = fix


# the fields of an OpenShift KubeletConfig or PerformanceProfile that choose the pool it configures
_POOL_SELECTORS = ("machineConfigPoolSelector", "nodeSelector")


def _moves_pool(profile: KubeletProfile, edits: Sequence[Edit]) -> bool:
    """Whether the edits write or change a field that chooses the configuration's pool: its pool after the fix is
    not the pool it is proven on now."""
    if any(key in edit.text for edit in edits for key in _POOL_SELECTORS):
        return True
    spec = profile.doc.root.get("spec") if isinstance(profile.doc.root, dict) else None
    if not isinstance(spec, YMap):
        return False
    for key in _POOL_SELECTORS:
        if key in spec:
            first, last = spec.key_spans[key], spec.value_spans[key]
            if any((first.line, first.col) <= (e.span.end_line, e.span.end_col)
                   and (e.span.line, e.span.col) <= (last.end_line, last.end_col) for e in edits):
                return True
    return False


def _prove_configuration(prover: _Prover, proven: list[Finding],
                         items: list[tuple[Analysis, KubeletProfile, int]]) -> list[tuple[int, Fix | None]]:
    """The fixes of one kubelet configuration's findings, as their proofs leave them."""
    return [(index, prover.prove(analysis, profile, proven[index])) for analysis, profile, index in items]


def _workload_of(analysis: Analysis, finding: Finding, files: Collection[str]) -> PodView | None | bool:
    """The workload whose document holds the finding's start; False when that is ambiguous (``files``: those of
    every finding being proven)."""
    holding = [p for p in _in_file(analysis, "pods", analysis.pods, finding.file, files)
               if _holds(p.locator.fallback, finding.span.line, finding.span.col)]
    if len(holding) > 1 and all(p.ref.part is not None and p.locator.fallback == holding[0].locator.fallback
                                for p in holding):
        # the templates of one object with one per role: the one whose template holds the finding; outside every
        # template (the object's own fields) none is: the whole run decides, as for any other document
        holding = [p for p in holding if _holds(_template_span(p), finding.span.line, finding.span.col)]
        return holding[0] if len(holding) == 1 else None
    return holding[0] if len(holding) == 1 else (False if holding else None)


def _template_span(pod: PodView) -> Span:
    """A role's pod template (its metadata and spec) in its object's document."""
    return pod.locator.span(pod.spec_path[:-1])


def _document_of(analysis: Analysis, finding: Finding, files: Collection[str]) -> KubeletProfile | None | bool:
    """The kubelet configuration the finding is in: the one whose document holds the finding's start (line
    and column: the items of a one-line JSON List share their line); False when that is ambiguous."""
    holding = [p for p in _in_file(analysis, "profiles", analysis.profiles, finding.file, files)
               if _holds(p.doc.span, finding.span.line, finding.span.col)]
    return holding[0] if len(holding) == 1 else (False if holding else None)


def _in_file(analysis: Analysis, what: str, views: Sequence[PodView | KubeletProfile], file: str,
             files: Collection[str]) -> list[Any]:
    """The ``views`` of ``file``, from an index of the ``files`` being proven, made once per analysis: a run where
    every one of thousands of files has a fix would otherwise look through every workload for each (quadratic)."""
    key = ("by file", what)
    known = analysis.memo.get(key)
    if isinstance(known, tuple) and known[0] is files:
        return known[1].get(file, [])
    index: dict[str, list[Any]] = {}
    for view in views:
        if view.file in files:
            index.setdefault(view.file, []).append(view)
    analysis.memo[key] = (files, index)
    return index.get(file, [])


def _holds(span: Span, line: int, col: int) -> bool:
    """Whether ``span`` (end-exclusive) holds the position ``line``:``col``."""
    return (span.line, span.col) <= (line, col) < (span.end_line, span.end_col)


class _FileRefusal(str):
    """Why no fix of ``file`` can be tried, whichever of them are applied (the file cannot be read again, or it
    holds more findings of one rule than a proof compares): every fix of the file in a group tried together takes
    it at once. Halving such a group retried the same file down to every single fix (each try reads the file
    again: a file of 10,000 findings took minutes)."""

    file: str

    def __new__(cls, reason: str, file: str) -> _FileRefusal:
        refusal = super().__new__(cls, reason)
        refusal.file = file
        return refusal


def _refused_at_once(why: str, findings: Iterable[Finding]) -> str | None:
    """The file a file-wide refusal ``why`` is about, its fixes among ``findings`` made hints; None for another
    reason."""
    if not isinstance(why, _FileRefusal):
        return None
    for finding in findings:
        if finding.file == why.file and finding.fix is not None:
            finding.fix = finding.fix.as_hint(str(why))
    return why.file


class _Prover:
    def __init__(self, text_of: Callable[[str], str | None], reread: Reread) -> None:
        self.text_of = text_of
        self.reread = reread
        self.before: dict[int, list[_Seen] | None] = {}  # by profile: its findings as the file is
        self.started: dict[int, bool] = {}  # by profile: whether its kubelet starts as the file is
        self.texts: dict[str, str | None] = {}
        self.alone: dict[int, str | None] = {}  # by profile: its document alone, at its own lines
        self.pods: dict[int, list[PodView]] = {}  # by profile: the workloads its pools run
        self.originals: dict[str, Source | None] = {}  # by file: read again as it is, every finding kept
        self.collections: dict[str, list[_Anchored]] = {}  # by file: its anchored mappings and lists

    def originals_of(self, sources: Iterable[Source], files: Collection[str]) -> list[Source]:
        """``sources`` with those of ``files`` read again with every finding (MAX_PER_RULE_PROVEN): the run keeps
        the first hundred of a rule per file, and a fix moves which ones those are, so a proof compares them all.
        A file that cannot be read so keeps its source as the run read it."""
        for file in files:
            if file not in self.originals:
                text = self.text(file)
                result = None if text is None else self.reread(file, text)
                self.originals[file] = result.source if result is not None and result.source.parsed and not any(
                    is_summary(f) for f in result.source.findings) else None
        return [self.originals.get(s.path) or s if s.path in files else s for s in sources]

    def text(self, file: str) -> str | None:
        """The file's text as the run read it, fetched once."""
        if file not in self.texts:
            self.texts[file] = self.text_of(file)
        return self.texts[file]

    def prove(self, analysis: Analysis, profile: KubeletProfile, finding: Finding) -> Fix:
        assert finding.fix is not None
        fix = finding.fix
        if id(profile) not in self.alone:
            whole = self.text(finding.file)
            self.alone[id(profile)] = None if whole is None else _alone(whole, _carrier(analysis, profile).span)
        text = self.alone[id(profile)]
        if text is None:
            return fix.as_hint("the file cannot be read again to try it; decide by hand")
        if isinstance(profile.doc, EmbeddedDocument) or isinstance(profile.rendered_from, EmbeddedDocument):
            fix = _pinned(fix, text)
        if id(profile) not in self.before:
            self.before[id(profile)] = self._seen(analysis, profile, text, lambda x: x, self.started)
        before = self.before[id(profile)]
        started = self.started.get(id(profile), True)
        if before is None:  # the document alone does not read back: nothing to compare with, so no proof
            return fix.as_hint("numalint cannot read the document alone to try it; decide by hand")
        start = _offset(line_starts(text), finding.span.line, finding.span.col)
        edited = _apply(text, fix.edits)
        if edited is None:
            return fix.as_hint("its edits do not land on the file as it is; decide by hand")
        after = self._seen(analysis, profile, edited[0], edited[1])
        if after is None:
            return fix.as_hint("the configuration would no longer read; decide by hand")
        key: tuple[str, tuple[object, ...]] = (finding.rule, ("doc", start))
        counted = Counter((s.rule, s.place) for s in before)
        if Counter((s.rule, s.place) for s in after)[key] >= counted[key]:
            remaining = next((s for s in after if (s.rule, s.place) == key), None)
            return fix.as_hint("the finding would remain" + (f" ({shorten(remaining.message)})" if remaining else "")
                            + "; decide by hand what to write there")
        new = _new_errors(before, after, started)
        if not new:
            return fix
        follow = [s for s in new if s.fix is not None and s.fix.edits and s.place[0] == "doc"]
        if len(follow) < len(new):
            blocker = next(s for s in new if s not in follow)
            return fix.as_hint(f"it would bring a new error ({blocker.rule}: {shorten(blocker.message)}); decide "
                                 "by hand whether to make the change and settle that too, or leave it")
        # every new error has its own fix: apply those too (what the next pass of ``fix`` does) and look again
        follow_edits = [e for s in follow for e in (s.fix.edits if s.fix else [])]
        again = _apply(edited[0], follow_edits)
        if again is None:
            return fix.as_hint(f"it needs a further fix ({follow[0].rule}) whose edits conflict; decide by hand")
        mapper = edited[1]
        final = self._seen(analysis, profile, again[0], lambda x: mapper(again[1](x)))
        if final is None:
            return fix.as_hint("the configuration would no longer read after the further fixes; decide by hand")
        still = _new_errors(before, final, started)
        if Counter((s.rule, s.place) for s in final)[key] >= counted[key] or still:
            blocker = still[0] if still else follow[0]
            return fix.as_hint(f"it would bring a new error ({blocker.rule}: {shorten(blocker.message)}) that its "
                                 "own fix does not clear; decide by hand whether to make the change and settle that "
                                 "too, or leave it")
        unsafe = next((s for s in follow if s.fix is not None and s.fix.safety == UNSAFE), None)
        if unsafe is not None and unsafe.fix is not None and fix.safety == SAFE:
            # applied alone it would leave the new error: only the unsafe pass, which applies both, may apply it
            return Fix(f"{fix.description} (then {unsafe.rule} needs its own fix, applied with --unsafe-fixes: "
                       f"{unsafe.fix.description})", fix.edits, UNSAFE)
        return fix

    def _seen(self, analysis: Analysis, profile: KubeletProfile, text: str, back: Mapper,
              started: dict[int, bool] | None = None) -> list[_Seen] | None:
        """Every finding on the document when its file reads ``text``: the file's own (schema, unknown
        fields) and the checks' on the document's pool; None when the document is not read back."""
        result = self.reread(profile.file, text)
        if not result.source.parsed or result.source.template:
            return None
        # edits stay inside the document: the lines before it, and its start, do not move
        where = profile.doc.span[:2]
        mine = next((p for p in result.profiles if p.doc.span[:2] == where), None)
        if mine is None:
            return None
        carrier = _carrier(analysis, profile)
        others = [d for d in analysis.run.others if d is not carrier]
        others += [d for d in result.others if d.span[:2] == carrier.span[:2]]
        # the topologies the whole run gave this configuration's pools, no more: alone in a run, a configuration
        # would pair with a topology meant for another (the only topology and the only configuration of a run)
        run = dc_replace(analysis.run, profiles=[mine], pods=self.pods_of(analysis, profile), others=others,
                         topologies=list(analysis.topologies_for(profile)))
        pool = analyse(run, analysis.options, sriov=analysis.sriov)
        if started is not None:
            started[id(profile)] = not pool.start_problems(mine)
        starts = line_starts(text)
        span = mine.doc.span
        rules = catalogue()
        seen: list[_Seen] = []

        def add(rule: str, file: str, line: int, col: int, severity: str | None, fix: Fix | None,
                message: str) -> None:
            ours = file == profile.file and _holds(span, line, col)
            place: tuple[object, ...] = ("doc", back(_offset(starts, line, col))) if ours else (file, line, col)
            level = severity or (rules[rule].severity if rule in rules else "error")
            seen.append(_Seen(rule, place, level == "error", message, fix))

        for found in result.source.findings:
            if found.file == profile.file and _holds(span, found.span.line, found.span.col):
                add(found.rule, found.file, found.span.line, found.span.col, found.severity, found.fix,
                    found.message)
        for slug, hit in _every_hit(pool, skip=POD_ALONE | SRIOV_ALONE):
            add(slug, hit.file, hit.span.line, hit.span.col, hit.severity, hit.fix, hit.message)
        return seen

    def edited(self, file: str, changes: list[Edit], what: str) -> tuple[str, tuple[str, Mapper], FileResult] | str:
        """The file's text, the text with ``changes`` applied (and the way back), and the file read from it; or
        why the fixes cannot be tried (``what``: what would no longer read)."""
        whole = self.text(file)
        if whole is None:
            return _FileRefusal("the file cannot be read again to try it; decide by hand", file)
        applied = _apply(whole, changes)
        if applied is None:
            return "its edits do not land on the file as it is; decide by hand"
        result = self.reread(file, applied[0])
        if not result.source.parsed or result.source.template:
            return f"{what} would no longer read; decide by hand"
        if any(is_summary(f) for f in result.source.findings):
            return _FileRefusal(f"the file has over {MAX_PER_RULE_PROVEN:,} findings of one rule to compare; decide "
                                "by hand", file)
        return whole, applied, result

    def aliased_anchor(self, file: str, edits: Iterable[Edit]) -> str | None:
        """The anchor of a node an edit replaces (written before its value: ``&y yes``, ``&y !!str yes``) when an
        alias of its document (anchors are per document) reads it as another setting: the edit keeps the anchor,
        so every ``*y`` reads the new value too. An alias under the same key (``cpu: &c 1500m`` in requests,
        ``cpu: *c`` in limits) mirrors the setting and follows it, as the fix means; one under another key, or
        not under a key, is another setting the fix would change unseen (a label's ``&y yes`` quoted turns
        ``hostNetwork: *y`` from true into a string)."""
        text = self.text(file)
        if text is None or "&" not in text or "*" not in text:
            return None
        starts = line_starts(text)
        for edit in edits:
            begin = _offset(starts, edit.span.line, edit.span.col)
            anchored = _ANCHORED.search(_before_value(text, begin))
            if anchored is None:
                continue
            name = anchored.group(2)
            key = _unquoted(anchored.group(1))
            alias = re.compile(r"\*" + re.escape(name) + r"(?![^\s\[\]{},])")
            # an anchor is its document's: aliases of other documents name their own
            start = max(text.rfind("\n---", 0, begin), text.rfind("\n...", 0, begin)) + 1
            ends = [i for i in (text.find("\n---", begin), text.find("\n...", begin)) if i >= 0]
            if any(key is None or _key_before(text, m.start()) != key
                   for m in alias.finditer(text, start, min(ends) if ends else len(text))):
                return name
        # a mapping or list around the edited value anchored and read elsewhere (``requests: &r {...}`` read as
        # ``nodeSelector: *r`` or merged with ``<<: *r``): the edit changes what the alias reads too
        if file not in self.collections:
            self.collections[file] = _anchored_collections(text, starts)
        for edit in edits:
            begin = _offset(starts, edit.span.line, edit.span.col)
            for held in self.collections[file]:
                # read under the same key (an item merging another: the proof below reads both) it is the same
                # setting, as for an anchored value
                if held.start <= begin < held.end and any(_setting(key) != _setting(held.key)
                                                          for _at, key in held.aliases):
                    return held.name
        return None

    def shares_anchors(self, file: str, span: Span) -> bool:
        """Whether the document at ``span`` and the rest of its file share YAML anchors (an item of a List
        merging another's ``&base``, a Pod's ``requests: *r``): read alone, it would not read as in its file, and
        a fix of it changes what the other document says too. Text that merely looks like an anchor only costs a
        wider proof, or a fix left as a hint."""
        text = self.text(file)
        if text is None or ("&" not in text and "*" not in text):
            return False
        starts = line_starts(text)
        begin, end = _offset(starts, span.line, span.col), _offset(starts, span.end_line, span.end_col)
        inside, outside = text[begin:end], text[:begin] + "\n" + text[end:]
        return bool(set(_ANCHOR.findall(inside)) & set(_ALIAS.findall(outside))
                    or set(_ALIAS.findall(inside)) & set(_ANCHOR.findall(outside)))

    def pods_of(self, analysis: Analysis, profile: KubeletProfile) -> list[PodView]:
        """The workloads the configuration's pools run, as the whole run placed them (alone, its pool would
        be the only one and take every pod)."""
        if id(profile) not in self.pods:
            self.pods[id(profile)] = _pods_on(analysis, (pool for pool in analysis.pools if pool.profile is profile))
        return self.pods[id(profile)]


class _WorkloadProver:
    """Proves fixes on workloads (a rounded CPU count) on the pools the run places them
    on: the pools' workloads, these as the fixes leave them, admitted again, and every check run. A workload
    outside every pool has nothing to prove it on and keeps its fix.

    A pod's fix can only change what its own pools admit, but one analysis per fix would make a repository of
    many such pods quadratic. So the fixes of one set of pools are tried together first (one analysis); when
    that brings a new error, each half is tried again, down to the single fixes that bring it, which become
    hints (k bad fixes among n cost about k * log n analyses). What ``fix`` applies together is judged again
    by ``fixer.fix``."""

    def __init__(self, prover: _Prover) -> None:
        self.prover = prover
        self.waiting: dict[int, tuple[Analysis, list[tuple[PodView, int]]]] = {}  # by analysis
        self.inside: dict[int, Unedited] = {}  # by analysis: its unedited_values, those of every analysis of its pods
        self.tries_left = MAX_POOL_TRIES  # of the set of pools being proven

    def add(self, analysis: Analysis, pod: PodView, index: int) -> None:
        """The finding at ``index`` of the proven list, on ``pod``, waits for its proof."""
        self.waiting.setdefault(id(analysis), (analysis, []))[1].append((pod, index))

    def groups(self) -> Iterator[tuple[Analysis, list[PodView], list[tuple[PodView, int]]]]:
        """(analysis, the workloads of the pools, the waiting fixes) per set of pools: each proven on its own."""
        for analysis, items in self.waiting.values():
            groups: dict[frozenset[int], list[tuple[PodView, int]]] = {}
            for pod, index in items:
                groups.setdefault(frozenset(id(p) for p in analysis.pools_for(pod)), []).append((pod, index))
            for group in groups.values():
                yield analysis, _pods_on(analysis, analysis.pools_for(group[0][0])), group

    def prove_group(self, proven: list[Finding], analysis: Analysis, pods: list[PodView],
                    group: list[tuple[PodView, int]]) -> list[tuple[int, Fix | None]]:
        """The fixes of one set of pools' workloads, as their proofs leave them."""
        items = [(pod, proven[index]) for pod, index in group]
        tried = [pod for pod, _ in items]
        sources = self.prover.originals_of(analysis.run.sources, {pod.file for pod in tried})
        before = self._seen(analysis, pods, {}, tried) + [
            _Seen(f.rule, (f.file, f.span.line, f.span.col), _error(f.rule, f.severity), f.message, f.fix)
            for f in self._own_findings(sources, tried)]
        self.tries_left = MAX_POOL_TRIES
        self._settle(analysis, pods, before, items)
        return [(index, proven[index].fix) for _, index in group]

    def _settle(self, analysis: Analysis, pods: list[PodView], before: list[_Seen],
                group: list[tuple[PodView, Finding]]) -> None:
        if self.tries_left <= 0:  # each try admits the pools' workloads again: many fixes that break things stop here
            for _, finding in group:
                assert finding.fix is not None
                finding.fix = finding.fix.as_hint("numalint stopped trying: too many fixes on these pools bring "
                                                  "errors; decide by hand")
            return
        self.tries_left -= 1
        why = self._try(analysis, pods, before, group)
        if why is None:
            return
        refused = _refused_at_once(why, (finding for _, finding in group))
        if refused is not None:
            rest = [(pod, finding) for pod, finding in group if finding.file != refused]
            if rest:
                self._settle(analysis, pods, before, rest)
            return
        if len(group) == 1:
            finding = group[0][1]
            assert finding.fix is not None
            finding.fix = finding.fix.as_hint(why)
            return
        half = len(group) // 2
        self._settle(analysis, pods, before, group[:half])
        self._settle(analysis, pods, before, group[half:])

    def _try(self, analysis: Analysis, pods: list[PodView], before: list[_Seen],
             group: list[tuple[PodView, Finding]]) -> str | None:
        """Why the fixes of ``group`` applied together are refuted, or None when they hold."""
        edits: dict[str, list[Edit]] = {}
        for _, finding in group:
            edits.setdefault(finding.file, []).extend(finding.fix.edits if finding.fix is not None else ())
        replaced: dict[int, PodView] = {}
        edited: dict[str, _Edited] = {}
        for file, changes in edits.items():
            edited_file = self.prover.edited(file, changes, "the workload")
            if isinstance(edited_file, str):
                return edited_file
            whole, applied, result = edited_file
            mine = [pod for pod, finding in group if finding.file == file]
            for pod in mine:
                again = next((p for p in result.pods if p.locator.fallback[:2] == pod.locator.fallback[:2]), None)
                if again is None:
                    return "the workload would no longer read; decide by hand"
                replaced[id(pod)] = again
            edited[file] = _Edited([replaced[id(pod)].locator.fallback for pod in mine],
                                   _way_back(whole, applied[0], applied[1]),
                                   self._own_findings([result.source], [replaced[id(pod)] for pod in mine]))
        after = self._seen(analysis, [replaced.get(id(p), p) for p in pods], edited,
                           [replaced[id(pod)] for pod, _ in group])
        return _verdict(before, after, [finding for _, finding in group])

    @staticmethod
    def _own_findings(sources: Iterable[Source], pods: list[PodView]) -> list[Finding]:
        """The findings reading made in the documents of ``pods`` (their schema)."""
        files = {p.file for p in pods}
        return [f for source in sources if source.path in files for f in source.findings
                if any(p.file == f.file and _holds(p.locator.fallback, f.span.line, f.span.col) for p in pods)]

    def _seen(self, analysis: Analysis, pods: list[PodView], edited: dict[str, _Edited],
              tried: list[PodView]) -> list[_Seen]:
        """Every finding of the pools running ``pods``, at its place in the files as they are (a place in an
        edited workload is mapped back through the edits), with the edited workloads' own (schema) findings; the
        WORKLOAD_ALONE rules only on the workloads ``tried`` (among ``pods``): on the others they say the same
        before and after any fix of these."""
        pool = with_pods(analysis, pods)
        tried = list({id(pod): pod for pod in tried}.values())  # a workload with two fixes is one workload
        position = {id(pod): index for index, pod in enumerate(pods)}  # the pool's pods as the API server keeps them
        alone = dc_replace(pool, run=pool.run.with_pods([pool.run.pods[position[id(pod)]] for pod in tried]),
                           memo={})  # what checks remember of the pool, made again for these workloads
        seen: list[_Seen] = []

        def add(rule: str, file: str, line: int, col: int, severity: str | None, fix: Fix | None,
                message: str) -> None:
            change = edited.get(file)
            if change is not None and any(_holds(span, line, col) for span in change.spans):
                line, col = change.back(line, col)
            seen.append(_Seen(rule, (file, line, col), _error(rule, severity), message, fix))

        for change in edited.values():
            for found in change.findings:
                add(found.rule, found.file, found.span.line, found.span.col, found.severity, found.fix,
                    found.message)
        if id(analysis) not in self.inside:
            self.inside[id(analysis)] = unedited_values(analysis)
        for slug, hit in _every_hit(pool, skip=NODE_ALONE, narrowed=(alone, WORKLOAD_ALONE),
                                    inside=self.inside[id(analysis)]):
            add(slug, hit.file, hit.span.line, hit.span.col, hit.severity, hit.fix, hit.message)
        return seen


class _DocumentProver:
    """Proves fixes on any other document (an SR-IOV policy or network, a topology, a MachineConfigPool, a
    workload on no pool) on the whole run: the files as the fixes leave them are read again in place of the
    files as they are, the run is analysed again and every check runs. Such a document can change anything
    (a pfNames rename makes VFs, and with them a policy conflict; a nodeSelector rename puts a workload on a
    pool), so nothing less is proof. The fixes of a run are tried together (one analysis), and halved down to
    the ones that bring an error, as for workloads."""

    def __init__(self, prover: _Prover) -> None:
        self.prover = prover
        self.waiting: dict[int, tuple[Analysis, list[int]]] = {}  # by analysis: the proven findings' indexes
        self.workloads_only: dict[int, bool] = {}  # by analysis: every such fix is on a workload (on no pool)
        self.tries: dict[int, int] = {}  # by analysis: the groups tried so far

    def add(self, analysis: Analysis, index: int, workload: bool) -> None:
        self.waiting.setdefault(id(analysis), (analysis, []))[1].append(index)
        self.workloads_only[id(analysis)] = self.workloads_only.get(id(analysis), True) and workload

    def prove_group(self, proven: list[Finding], analysis: Analysis,
                    indexes: list[int]) -> list[tuple[int, Fix | None]]:
        """The fixes at ``indexes``, as their proofs leave them."""
        files = {proven[index].file for index in indexes}
        before = None if self.workloads_only.get(id(analysis)) else self._seen(
            analysis, {}, self.prover.originals_of(analysis.run.sources, files))
        self._settle(proven, analysis, before, indexes)
        return [(index, proven[index].fix) for index in indexes]

    def _settle(self, proven: list[Finding], analysis: Analysis, before: list[_Seen] | None,
                indexes: list[int]) -> None:
        self.tries[id(analysis)] = tries = self.tries.get(id(analysis), 0) + 1
        if tries > MAX_DOCUMENT_TRIES:  # each try analyses the whole run: many fixes that break things stop here
            for index in indexes:
                fix = proven[index].fix
                assert fix is not None
                proven[index].fix = fix.as_hint("numalint stopped trying: too many fixes in this run bring "
                                                  "errors; decide by hand")
            return
        why = self._try(proven, analysis, before, indexes)
        if why is None:
            return
        refused = _refused_at_once(why, (proven[index] for index in indexes))
        if refused is not None:
            rest = [index for index in indexes if proven[index].file != refused]
            if rest:
                self._settle(proven, analysis, before, rest)
            return
        if len(indexes) == 1:
            fix = proven[indexes[0]].fix
            assert fix is not None
            proven[indexes[0]].fix = fix.as_hint(why)
            return
        half = len(indexes) // 2
        self._settle(proven, analysis, before, indexes[:half])
        self._settle(proven, analysis, before, indexes[half:])

    def _try(self, proven: list[Finding], analysis: Analysis, before: list[_Seen] | None,
             indexes: list[int]) -> str | None:
        """Why the fixes at ``indexes`` applied together are refuted, or None when they hold. ``before``: every
        finding of the run as it is; None when every fix is on a workload on no pool: then the run is analysed
        with the workloads of the edited files and of the pools they are on, before and after, and no others
        (a workload's fix cannot touch the rest, and the run may hold thousands)."""
        edits: dict[str, list[Edit]] = {}
        for index in indexes:
            fix = proven[index].fix
            edits.setdefault(proven[index].file, []).extend(fix.edits if fix is not None else ())
        backs: dict[str, Callable[[int, int], tuple[int, int]]] = {}
        results: dict[str, FileResult] = {}
        for file, changes in edits.items():
            edited_file = self.prover.edited(file, changes, "the file")
            if isinstance(edited_file, str):
                return edited_file
            whole, applied, result = edited_file
            results[file] = result
            backs[file] = _way_back(whole, applied[0], applied[1])
        run = _with_files(analysis.run, results)
        if before is None:
            old_run, run = _workloads_of_edited(analysis.run, run, set(edits))
            before = self._seen(analyse(old_run, analysis.options), {},
                                self.prover.originals_of(old_run.sources, set(edits)))
        after = self._seen(analyse(run, analysis.options), backs)
        return _verdict(before, after, [proven[index] for index in indexes])

    @staticmethod
    def _seen(whole: Analysis, backs: dict[str, Callable[[int, int], tuple[int, int]]],
              sources: Sequence[Source] | None = None) -> list[_Seen]:
        """Every finding of the run ``whole`` analysed (reading's, of ``sources`` when given, and every check's), a
        place in an edited file mapped back."""
        seen: list[_Seen] = []

        def add(rule: str, file: str, line: int, col: int, severity: str | None, fix: Fix | None,
                message: str) -> None:
            if file in backs:
                line, col = backs[file](line, col)
            seen.append(_Seen(rule, (file, line, col), _error(rule, severity), message, fix))

        for source in whole.run.sources if sources is None else sources:
            for found in source.findings:
                add(found.rule, found.file, found.span.line, found.span.col, found.severity, found.fix,
                    found.message)
        for slug, hit in _every_hit(whole):
            add(slug, hit.file, hit.span.line, hit.span.col, hit.severity, hit.fix, hit.message)
        return seen


def _pods_on(analysis: Analysis, pools: Iterable[Pool]) -> list[PodView]:
    """The workloads the run places on any of ``pools``, in run order: from the workloads of each pool, found once
    per analysis (each proof walked every workload: quadratic in pools, one proof per set of them)."""
    key = ("workloads by pool",)
    by_pool = analysis.memo.get(key)
    if by_pool is None:
        found: dict[int, list[int]] = {}
        for position, pod in enumerate(analysis.pods):
            for pool in analysis.pools_for(pod):
                found.setdefault(id(pool), []).append(position)
        by_pool = analysis.memo[key] = found
    assert isinstance(by_pool, dict)
    positions = sorted({position for pool in pools for position in by_pool.get(id(pool), ())})
    return [analysis.pods[position] for position in positions]


def _workloads_of_edited(old: Run, new: Run, files: set[str]) -> tuple[Run, Run]:
    """Both runs with only the workloads of ``files`` and those sharing a pool with them, in either run."""
    old_pools, new_pools = PoolMatcher(build_pools(old)), PoolMatcher(build_pools(new))
    names = {p.name for pod in old.pods if pod.file in files for p in old_pools(pod)}
    names |= {p.name for pod in new.pods if pod.file in files for p in new_pools(pod)}

    def kept(run: Run, pools: PoolMatcher) -> Run:
        return dc_replace(run, pods=[pod for pod in run.pods if pod.file in files
                                     or any(p.name in names for p in pools(pod))])

    return kept(old, old_pools), kept(new, new_pools)


def _every_hit(analysis: Analysis, skip: Container[str] = (),
               narrowed: tuple[Analysis, Container[str]] | None = None,
               inside: Unedited | None = None) -> Iterator[tuple[str, Hit]]:
    """Every check's hits on ``analysis`` with their rule (but ``skip``), in the order of a run (whatever was
    imported first), as a run reports them (a fix inside a kubeletconfig.experimental annotation is a hint);
    ``narrowed``: another analysis of the same run and the rules that run on it instead; ``inside``: the
    analysis's ``unedited_values``, when the caller has them (they depend on its profiles only)."""
    inside = unedited_values(analysis) if inside is None else inside
    for slug, func in all_checks().items():
        if slug not in skip:
            target = narrowed[0] if narrowed is not None and slug in narrowed[1] else analysis
            for hit in hits(func, target, inside):
                yield slug, hit


def _verdict(before: list[_Seen], after: list[_Seen], fixed: list[Finding]) -> str | None:
    """Why fixes applied together are refuted (a finding they fix remains, or a new error appears), or None."""
    was = Counter((s.rule, s.place) for s in before)
    now = Counter((s.rule, s.place) for s in after)
    for finding in fixed:
        key = (finding.rule, (finding.file, finding.span.line, finding.span.col))
        if now[key] >= was[key]:
            return "the finding would remain; decide by hand what to write there"
    new = _new_errors(before, after, True)
    if new:
        return (f"it would bring a new error ({new[0].rule}: {shorten(new[0].message)}); decide by hand whether "
                "to make the change and settle that too, or leave it")
    return None


def _with_files(run: Run, results: dict[str, FileResult]) -> Run:
    """``run`` with the views of each file of ``results`` replaced by the file's new ones, where the file's stood
    (pods are admitted in input order); one pass over the run, however many files. Only the objects the run
    kept are replaced, as many times as it kept them: a repeat (``duplicate-object``) was left out, and stays
    out. A VM naming an instancetype becomes a workload as it did in the run (``model.instancetyped``)."""
    if naming_instancetypes(results.values()):
        documents = [*run.others, *(doc for result in results.values() for doc in result.others)]
        results = dict(zip(results, with_instancetypes(list(results.values()), documents), strict=True))

    def swap(items: list[Any], new: Callable[[FileResult], Iterable[Any]], file_of: Callable[[Any], str],
             key: Callable[[Any], object]) -> list[Any]:
        kept: dict[str, Counter[object]] = {}
        for item in items:
            if file_of(item) in results:
                kept.setdefault(file_of(item), Counter())[key(item)] += 1
        out: list[Any] = []
        for item in items:
            path = file_of(item)
            if path not in results:
                out.append(item)
            elif path in kept:  # the file's first item: all of its new ones go here
                wanted = kept.pop(path)
                for fresh in new(results[path]):
                    if wanted[key(fresh)] > 0:
                        wanted[key(fresh)] -= 1
                        out.append(fresh)
        return out

    return dc_replace(run, sources=swap(run.sources, lambda r: [r.source], lambda s: s.path, lambda s: s.path),
                      profiles=swap(run.profiles, lambda r: r.profiles, lambda p: p.file, lambda p: p.doc.index),
                      pods=swap(run.pods, lambda r: r.pods, lambda p: p.file, lambda p: p.ref),
                      topologies=swap(run.topologies, lambda r: r.topologies, lambda t: t.file, lambda t: t.doc.index),
                      others=swap(run.others, lambda r: r.others, lambda d: d.file, lambda d: d.index))


@dataclass(frozen=True)
class _Edited:
    """A file as workload fixes leave it: the documents edited, the way back to a place in the file as it is,
    and the findings reading made in those documents."""

    spans: list[Span]
    back: Callable[[int, int], tuple[int, int]]
    findings: list[Finding]


def _way_back(old: str, new: str, back: Mapper) -> Callable[[int, int], tuple[int, int]]:
    """A line and column of ``new`` -> the line and column in ``old`` (through the offsets' mapper)."""
    starts, new_starts = line_starts(old), line_starts(new)

    def original(line: int, col: int) -> tuple[int, int]:
        offset = back(_offset(new_starts, line, col))
        number = max(1, bisect_right(starts, offset))
        return number, offset - starts[number - 1] + 1

    return original


def _error(rule: str, severity: str | None) -> bool:
    """An error by the severity its check gave it, else by its rule's own (never a configured one)."""
    rules = catalogue()
    return (severity or (rules[rule].severity if rule in rules else "error")) == "error"


def _carrier(analysis: Analysis, profile: KubeletProfile) -> Document:
    """The document of the file that holds the configuration: itself, or the ConfigMap whose ``data.tuning``
    carries a PerformanceProfile (HyperShift)."""
    if isinstance(profile.doc, EmbeddedDocument):
        return next((d for d in analysis.run.others if d.file == profile.file and d.index == profile.doc.index
                     and not isinstance(d, EmbeddedDocument)), profile.doc)
    return next((d for d in analysis.run.others if d.file == profile.file and d.index == profile.doc.index),
                profile.doc)


def _pinned(fix: Fix, text: str) -> Fix:
    """``fix`` with each edit expecting the exact text it replaces: inside a ConfigMap's block scalar no YAML
    node sits at the edit, so the fixer checks the replaced characters instead (``checks.edits._inside_block_text``)."""
    starts = line_starts(text)
    edits = [edit if edit.expected is not None else
             dc_replace(edit, expected=text[_offset(starts, edit.span.line, edit.span.col):
                                            _offset(starts, edit.span.end_line, edit.span.end_col)])
             for edit in fix.edits]
    return dc_replace(fix, edits=edits)


def _alone(text: str, span: Span) -> str:
    """``text`` with everything outside ``span`` emptied: the lines before and after it, what precedes it on its
    first line (blanked, so columns stay) and what follows it on its last. The document reads as it does in its
    file, at the same lines and columns, and proving a fix in a file of many documents reads only that one, also
    when they share lines (the items of a one-line JSON List, a pretty-printed List's `},`): a proof there used
    to read every item again, and a file of N items cost N^2."""
    lines = text.split("\n")
    kept = []
    for number, line in enumerate(lines, start=1):
        if not span.line <= number <= span.end_line:
            kept.append("")
            continue
        start = span.col - 1 if number == span.line else 0
        end = span.end_col - 1 if number == span.end_line else len(line)
        kept.append(" " * start + line[start:end])
    return "\n".join(kept)


def _new_errors(before: list[_Seen], after: list[_Seen], started: bool) -> list[_Seen]:
    """Errors of ``after`` beyond those ``before`` had at the same place under the same rule. A workload's
    error counts only when the kubelet started before the fix: one that refused to start ran no pod, so a pod
    it now rejects was not running before either (the fix shows the pool's real verdict, it takes nothing)."""
    left = Counter((s.rule, s.place) for s in before if s.error)
    new = []
    for seen in after:
        if not seen.error or (not started and seen.place[0] != "doc"):
            continue
        if left[(seen.rule, seen.place)] > 0:
            left[(seen.rule, seen.place)] -= 1
        else:
            new.append(seen)
    return new


def _offset(starts: list[int], line: int, col: int) -> int:
    return starts[min(max(line, 1), len(starts)) - 1] + col - 1


def _apply(text: str, edits: list[Edit]) -> tuple[str, Mapper] | None:
    """The text with ``edits`` applied as ``fix`` writes them, and the way back from its offsets; None when
    an edit points outside the text or two edits overlap."""
    starts = line_starts(text)
    placed: list[tuple[int, int, str]] = []
    for edit in edits:
        span = edit.span
        if not (1 <= span.line <= len(starts) and 1 <= span.end_line <= len(starts)):
            return None
        begin, end = _offset(starts, span.line, span.col), _offset(starts, span.end_line, span.end_col)
        if not 0 <= begin <= end <= len(text):
            return None
        if (begin, end, edit.text) not in placed:
            placed.append((begin, end, edit.text))
    placed.sort()
    if any(later[0] < earlier[1] for earlier, later in zip(placed, placed[1:], strict=False)):
        return None
    for begin, end, replacement in reversed(placed):
        text = text[:begin] + replacement + text[end:]

    def back(offset: int) -> int:
        delta = 0
        for begin, end, replacement in placed:
            new_begin = begin + delta
            if offset < new_begin:
                return offset - delta
            if offset < new_begin + len(replacement):
                return begin
            delta += len(replacement) - (end - begin)
        return offset - delta

    return text, back


@dataclass
class _Anchored:
    """An anchored mapping or list of a file: its name, where it is (character offsets), the key it is the value
    of (None: a list item, a document), and where the aliases reading it are."""

    name: str
    start: int
    end: int
    key: str | None
    aliases: list[tuple[int, str | None]] = field(default_factory=list)  # (where, the key it is read under)


def _setting(key: str | None) -> str | None:
    """What a mapping under ``key`` sets, for an alias of it: a container's requests and limits read as one
    (``limits: *req``: the two alike, which every fix of a container's resources keeps)."""
    return "resources" if key in ("requests", "limits") else key


def _anchored_collections(text: str, starts: list[int]) -> list[_Anchored]:
    """The anchored mappings and lists of ``text`` with the aliases that read each (those of its document after
    it, until the anchor is given again), from libyaml's events; none when the text does not parse. Each is
    keyed by the key it is the value of, an alias by the key it is read under: a merge (``limits: {<<: *req}``,
    ``<<: [*a, *b]``) is read under the key of the mapping it merges into."""
    from ruamel.yaml import YAML  # here: only a fix inside an anchored mapping of a file with aliases needs it
    from ruamel.yaml.error import YAMLError

    found: list[_Anchored] = []
    current: dict[str, _Anchored | None] = {}  # the anchors of the document, to their collection (None: a scalar)
    # each open collection: [anchored or None, the key it is read under, a mapping's next key (None: it expects
    # one), whether it is a mapping]
    open_: list[list[Any]] = []

    def under() -> str | None:
        """The key the node starting now is read under, and move the mapping holding it on to its next key."""
        if not open_:
            return None
        top = open_[-1]
        if not top[3]:  # a list: its items are read under no key, but those merged into a mapping (<<: [*a])
            return top[1] if top[4] else None
        key, top[2] = top[2], None
        return top[1] if key == "<<" else key

    def offset(mark: Any) -> int:
        return _offset(starts, mark.line + 1, mark.column + 1)

    try:
        for event in YAML(typ="safe").parse(text):
            kind = type(event).__name__
            if kind == "DocumentStartEvent":
                current = {}
            elif kind in ("MappingStartEvent", "SequenceStartEvent"):
                merged = bool(open_) and open_[-1][3] and open_[-1][2] == "<<"
                if open_ and open_[-1][3] and open_[-1][2] is None:  # a mapping's key (a complex one)
                    open_[-1][2], key = "{complex}", None
                else:
                    key = under()
                held = None
                if event.anchor is not None:
                    held = _Anchored(str(event.anchor), offset(event.start_mark), len(text), key)
                    current[held.name] = held
                    found.append(held)
                open_.append([held, key, None, kind == "MappingStartEvent", merged])
            elif kind in ("MappingEndEvent", "SequenceEndEvent"):
                held = open_.pop()[0] if open_ else None
                if held is not None:
                    held.end = offset(event.end_mark)
            elif kind in ("ScalarEvent", "AliasEvent"):
                if open_ and open_[-1][3] and open_[-1][2] is None:  # a mapping's key
                    open_[-1][2] = str(event.value) if kind == "ScalarEvent" else "*"
                    continue
                key = under()
                if kind == "ScalarEvent" and event.anchor is not None:
                    current[str(event.anchor)] = None
                elif kind == "AliasEvent" and (held := current.get(str(event.anchor))) is not None:
                    held.aliases.append((offset(event.start_mark), key))
                if kind == "ScalarEvent" and event.style == "|" and "&" in event.value and "*" in event.value:
                    found += _embedded_collections(text, starts, event.value, event.start_mark.line + 1)
    except (YAMLError, ValueError, RecursionError):
        return []
    return [held for held in found if held.aliases]


def _embedded_collections(text: str, starts: list[int], value: str, first: int) -> list[_Anchored]:
    """``_anchored_collections`` of a document embedded in a literal block scalar (a HyperShift ConfigMap's
    ``tuning: |``, checked as the PerformanceProfile it holds), placed in the file: ``value`` is the block's text,
    its lines those of the file from line index ``first`` on, less the block's indentation (that of its first line
    holding more than blanks)."""
    inner = line_starts(value)
    collections = _anchored_collections(value, inner)
    if not collections:
        return []
    lines = text[starts[first]:].split("\n", len(inner)) if first < len(starts) else []
    indent = next((len(line) - len(line.lstrip(" ")) for line in lines if line.strip()), 0)

    def placed(at: int) -> int:
        at = min(at, len(value.rstrip("\n")))  # the block's end is its last line's, not the next line of the file
        line = bisect_right(inner, at) - 1
        return _offset(starts, first + line + 1, indent + at - inner[line] + 1)

    return [_Anchored(held.name, placed(held.start), placed(held.end), held.key,
                      [(placed(where), key) for where, key in held.aliases]) for held in collections]


def _unquoted(key: str | None) -> str | None:
    return key[1:-1] if key and key[0] in "'\"" else key


def _before_value(text: str, begin: int) -> str:
    """The text a value at ``begin`` may carry its key, anchor and tag in, bounded (the guard's regular expression
    is tried at each of its positions): on the value's line, the last 512 characters before the blanks in front of
    it, and those blanks; when the value starts its line, the last line before it holding more than blanks and
    comments (without its comment: an anchor comes before it) the same way, then a line break and the value's
    indentation. Comment lines between an anchor and its value are skipped however long."""
    start = text.rfind("\n", 0, begin) + 1
    head = text[start:begin]
    if head.strip(" \t"):
        return _tail(head)
    end = start - 1  # the line break that ends the line above
    while end > 0:
        above = text.rfind("\n", 0, end) + 1
        line = text[above:end]
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return _tail(line[:_comment_start(line)].rstrip()) + "\n" + head
        end = above - 1
    return head


def _tail(text: str) -> str:
    """The last 512 characters of ``text`` before its trailing blanks, and those blanks."""
    core = text.rstrip(" \t")
    return core[-512:] + text[len(core):]


def _comment_start(line: str) -> int:
    """Where the line's comment starts (a ``#`` at its start or after a blank, outside quotes), else its length."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            if char == quote and not (quote == '"' and line[index - 1] == "\\"):
                quote = ""
        elif char in "\"'" and (index == 0 or line[index - 1] in " \t[{,:"):
            quote = char
        elif char == "#" and (index == 0 or line[index - 1] in " \t"):
            return index
    return len(line)


_KEY_BEFORE = re.compile(r"(" + _KEY + r")[ \t]*:[ \t]+\Z")


def _key_before(text: str, at: int) -> str | None:
    """The key an alias at ``at`` is the value of (``cpu`` of ``cpu: *c``), None when it is none's (a list item),
    looked for in the last 512 characters of its line: tried at every position of the whole text, a long token
    made the search quadratic."""
    line = text.rfind("\n", 0, at) + 1
    found = _KEY_BEFORE.search(text[max(line, at - 512):at])
    return _unquoted(found.group(1)) if found else None
