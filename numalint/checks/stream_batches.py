"""The batches of a streamed run (``checks.streamed``): the node side analysed once, the workload files read and
checked in forked processes, and the run's report made from what they send back."""

from __future__ import annotations

import itertools
import pickle
import zlib
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from numalint import catalogue as registry
from numalint.analysis import Analysis, analyse, with_workloads
from numalint.checks import run_checks
from numalint.checks.edits import hint_twins, hint_unverifiable, shape_edits
from numalint.checks.forked import fork_context, share_in_rounds
from numalint.checks.input_rules import MAX_PER_RULE_PROVEN, cap_per_file, is_summary
from numalint.checks.proofs import NeedsWholeRun, prove_fixes
from numalint.engine import (
    ROUND,
    Options,
    Report,
    _kind_nodes_once,
    _name_helm_sources,
    _processes,
    _take_kustomizations,
    _text_of,
    _unchecked,
    _with_instancetypes,
    _without_echoes,
    _without_overlay_fields,
    apply_configuration,
    disabled_rules,
    overlays_of,
    process_file,
    reading_findings,
)
from numalint.findings import Finding, ObjectRef, Related
from numalint.k8s.kinds import KUBEVIRT_KINDS, MULTI_TEMPLATE_KINDS, POD_SPEC_PATHS
from numalint.model.identity import ObjectIdentity, Registry
from numalint.model.overlays import Overlays, Restricted
from numalint.model.run import FileResult, Read, Run, assemble, compact, expanded, forget_directories, near
from numalint.reading.sources import Source
from numalint.reading.yamlpos import Span

# the checks that only ever judge the node side (in a run without topologies): run once, not for every batch
NODE_ONLY = frozenset({"sriov-policy-conflict", "sriov-numvfs", "sriov-unused-resource"})
# what a template may write and still be a workload file: the run's templates of other kinds may be the SR-IOV
# policy or network a workload needs (``SriovCatalog.templated_near``)
WORKLOAD_KINDS = frozenset(POD_SPEC_PATHS) | {kind for kind, _group in MULTI_TEMPLATE_KINDS}
NODE_ONLY_MODULES = frozenset({"numalint.checks.kubelet_rules", "numalint.checks.openshift_rules"})


class NotStreamable(Exception):
    """The run turned out to need every workload at once: it is checked whole."""


@dataclass(frozen=True)
class _Node:
    """What every batch is checked against (made before the batches fork)."""

    analysis: Analysis
    disabled: frozenset[str]
    overlays: Overlays | None  # the run's kustomize overlays (``engine._without_overlay_fields``)
    paths: Sequence[str]  # the run's files, by index (``PathList``)


@dataclass(slots=True)
class _Checked:
    """What a batch sends back of one workload file that has findings or something else to keep."""

    index: int
    kept: Read | None = None  # its source without findings (suppressions, annotations, flags), None: nothing
    reading: list[Finding] = field(default_factory=list)  # from reading it (schema, syntax, not-lintable)
    checked: list[Finding] = field(default_factory=list)  # the checks' (in ``_Batch.checked`` once sent)
    capped: bool = False  # a per-file cap counted the checks' findings (a summary stands for some)
    dropped: tuple[Span, ...] = ()  # the documents of its objects left out as repeats


Identity = tuple[int, tuple[str, str, str, str], bytes, Span, Span]  # (file index, key, digest, name, document)


@dataclass(slots=True)
class _Batch:
    """What a batch sends back: its files' findings, the identities of their objects, kept packed (pickled and
    compressed) until they are admitted in input order (20,000 of them as objects were ~9 MiB), and the resources
    their workloads ask for. A workload left out as a repeat asks for what its first definition does, so the union
    is exact."""

    files: list[_Checked]
    identities: bytes
    keys: array[int]  # the hash of each identity's key (forked processes hash as this one does)
    demand: tuple[str, ...]  # sorted (a tuple is a third of a set's size, and hundreds wait for the analysis)
    # the files' checks' findings, by file, packed until the report (``_unpacked``): 2,600 findings held 2.8 MiB
    # while the node side was analysed, checked and its fixes proven
    checked: bytes = b""


_NODE: _Node | None = None  # set while the batches run: forked processes inherit it


def check(results: list[Read | None], paths: Sequence[str], count: int, missing: list[str], options: Options,
          ) -> Report | None:
    """The report of a run whose workload files (None in ``results``) are still unread, or None when it must be
    checked whole (the caller then reads them)."""
    global _NODE
    # kept as any other file (a run checked whole after all reads them again); taken first, their files are not
    # among the node side's sources
    builds = _take_kustomizations(results)
    # a KubeVirt VM naming an instancetype is made a workload, as in a whole run (both are node-side files)
    node_side = {index: read for index, read in enumerate(results) if read is not None}
    for index, read in zip(node_side, _with_instancetypes(list(node_side.values())), strict=True):
        results[index] = read
    del node_side
    base = _analysis([r for r in results if r is not None], options)
    if any(pool.topology is not None for pool in base.pools):
        return None
    disabled = frozenset(disabled_rules(options))
    _NODE = _Node(base, disabled, overlays_of(paths, builds), paths)
    del builds, base
    try:  # the files by their index (an array of them: tuples of index and path held 1.5 MiB on 20,000 files)
        batches = _check_workload_files(array("l", (i for i, r in enumerate(results) if r is None)), options.jobs)
        held = _Held(batches, _NODE.analysis, _NODE.overlays)
        del batches
    except NotStreamable:
        return None
    finally:
        _NODE = None
    try:
        return _report(results, paths, count, missing, options, held, disabled)
    except NotStreamable:
        return None


@dataclass(slots=True)
class _Held:
    """What the report uses once, held only here: it lets each go once used, for what comes next to reuse."""

    batches: list[_Batch]
    base: Analysis | None  # the node side's analysis
    overlays: Overlays | None


def _analysis(results: list[Read], options: Options) -> Analysis:
    """The analysis of the node side: the files read whole, the workloads of the streamed files left out."""
    return analyse(assemble(results, Registry(near)), options.analysis())


def _check_workload_files(files: array[int], jobs: int) -> list[_Batch]:
    """Every workload file read and checked, in batches shared out among forked processes (this one gathers, and
    reads only what no worker took), or here with one process."""
    processes = _processes(jobs, len(files))
    # the same batches whatever the processes: a batch's fixes are proven together, within one budget of tries
    # (checks.proofs), so batches that followed the CPU count made a CI runner of one CPU offer other fixes
    size = min(64, max(8, len(files) // 32))
    chunks = [files[i:i + size] for i in range(0, len(files), size)]
    ctx = fork_context() if processes > 1 else None
    if ctx is None:
        return [_check_batch(chunk) for chunk in chunks]
    tasks: list[Callable[[], _Batch]] = [partial(_check_batch, chunk) for chunk in chunks]

    def lost(index: int) -> _Batch:
        paths = _NODE.paths if _NODE is not None else []
        return _Batch([_lost(i, paths[i]) for i in chunks[index]], b"", array("q"), ())

    return share_in_rounds(tasks, processes, ctx, lost, ROUND // size)


def _lost(index: int, path: str) -> _Checked:
    result = _unchecked(path)
    findings, result.source.findings = result.source.findings, []
    return _Checked(index, result, findings)


def _check_batch(indexes: array[int]) -> _Batch:
    """Read and check one batch of workload files against the node side (in a forked process): their findings,
    fixes shaped and proven as the whole run would."""
    node = _NODE
    assert node is not None
    files = [(index, node.paths[index]) for index in indexes]
    reads = [process_file(path) for _, path in files]
    results = [r for r in reads if isinstance(r, FileResult)]
    if not all(_only_workloads(r) for r in results):
        raise NotStreamable("a file read as a workload file holds other objects")
    base = node.analysis
    pods = [p for r in results for p in r.pods]
    run = Run([r.source for r in results], list(base.run.profiles), pods, [], base.run.others, len(reads))
    analysis = with_workloads(base, run)
    paths = {path for _, path in files}
    skip = node.disabled | NODE_ONLY
    # capped per file before the overlays and proofs, as a whole run caps them (``_node_analysis`` makes sure no
    # object a cap counted is then left out as a repeat)
    checked = cap_per_file(f for f in run_checks(analysis, skip, skip_modules=NODE_ONLY_MODULES) if f.file in paths)
    reading = [f for r in results for f in reading_findings(r.source)]
    by_checks = {id(f) for f in checked}
    out: dict[str, _Checked] = {}
    index_of = {path: index for index, path in files}
    for finding in _pooled(_settled(reading + checked, analysis, node), dict(files)):
        target = out.get(finding.file) or out.setdefault(finding.file, _Checked(index_of[finding.file]))
        (target.checked if id(finding) in by_checks else target.reading).append(finding)
    identities: list[Identity] = []
    for result in results:
        path = result.source.path
        seen: set[int] = set()  # a document of several workloads (one per role) is one object
        for _name, _position, identity in result.identities:
            if id(identity) not in seen:
                seen.add(id(identity))
                identities.append((index_of[path], identity.key, identity.digest, identity.span, identity.document))
        result.source.findings = []
        result.pods, result.identities = (), ()
        left = compact(result)
        if isinstance(left, FileResult):
            (out.get(path) or out.setdefault(path, _Checked(index_of[path]))).kept = left
    demand = tuple(sorted({name for pod in pods for name in pod.resource_names()}))
    sent = sorted(out.values(), key=lambda c: c.index)
    packed = [(c.index, c.checked) for c in sent if c.checked]
    for entry in sent:
        entry.capped, entry.checked = any(is_summary(f) for f in entry.checked), []
    keys = array("q", (hash(item[1]) for item in identities))
    return _Batch(sent, zlib.compress(pickle.dumps(identities), 1), keys, demand,
                  zlib.compress(pickle.dumps(packed, pickle.HIGHEST_PROTOCOL), 1) if packed else b"")


def _unpacked(packed: list[bytes], streamed: dict[int, _Checked]) -> Iterator[Finding]:
    """The checks' findings of the batches (``_Batch.checked``), without those on repeats."""
    for data in packed:
        for index, findings in pickle.loads(zlib.decompress(data)) if data else ():
            dropped = streamed[index].dropped
            yield from (f for f in findings if not any(_within(f.span, d) for d in dropped))


def _pooled(findings: list[Finding], paths: dict[int, str]) -> list[Finding]:
    """``findings`` with each equal text, object and place one object (sent once, kept once): their files, the
    objects they are on, their fixes' words. 2,600 findings of 20,000 files came back as 13,000 strings."""
    pool: dict[object, object] = {path: path for path in paths.values()}

    def one(value: object) -> Any:
        return pool.setdefault(value, value)

    for finding in findings:
        finding.file = one(finding.file)
        if finding.obj is not None:
            obj = finding.obj
            finding.obj = one(ObjectRef(one(obj.api_version), one(obj.kind), obj.name, one(obj.namespace), obj.part))
        if finding.fix is not None:
            finding.fix.description = one(finding.fix.description)
        finding.related = tuple(one(Related(one(r.file), r.span, one(r.message))) for r in finding.related)
    return findings


def _only_workloads(result: FileResult) -> bool:
    """Whether a file holds nothing but workloads (and objects numalint never reads)."""
    return (not result.profiles and not result.topologies and not result.others and result.kustomization is None
            and result.source.fragment is None and not result.source.patches
            and all(kind in WORKLOAD_KINDS for kind, _name in result.source.template_kinds)
            and not any(pod.ref.kind in KUBEVIRT_KINDS for pod in result.pods))


def _settled(findings: list[Finding], analysis: Analysis, node: _Node) -> list[Finding]:
    """``engine.run_check``'s passes over a batch's findings: kustomize overlays, edits shaped, fixes proven."""
    findings = _without_overlay_fields(findings, node.overlays, {})
    _fixes_proven(findings, analysis, partial(_text_of, given={}, stamps={}))
    return findings


def _fixes_proven(findings: list[Finding], analysis: Analysis, text_of: Callable[[str], str | None]) -> None:
    """Edits shaped as `fix` writes them, proven on ``analysis``, and those `fix` would refuse made hints."""
    shape_edits(findings, text_of)
    if any(f.fix is not None and f.fix.edits for f in findings):
        try:
            prove_fixes(findings, lambda path: analysis, text_of,
                        lambda path, text: expanded(process_file(path, {path: text}, MAX_PER_RULE_PROVEN)),
                        some_workloads=True)
        except NeedsWholeRun as error:
            raise NotStreamable(str(error)) from None
        hint_unverifiable(findings, text_of)


def _report(results: list[Read | None], paths: Sequence[str], count: int, missing: list[str], options: Options,
            held: _Held, disabled: frozenset[str]) -> Report:
    """The node side checked with every workload's identity and resources known, and the run's report. Once
    nothing can send the run back to be checked whole, ``results`` (the caller's) is emptied: the node side's
    trees make room for the streamed findings."""
    batches, held.batches = held.batches, []
    streamed = {c.index: c for batch in batches for c in batch.files}
    identities = Registry(near)
    assert held.base is not None
    analysis = _node_analysis(results, batches, streamed, paths, identities, held.base)
    packed = [batch.checked for batch in batches]
    del batches
    held.base = None
    overlays, held.overlays = held.overlays, None
    if overlays is not None:  # only the node side's files and the repeats' have findings to settle from here on
        overlays = overlays.restricted({r.source.path for r in results if isinstance(r, FileResult)}
                                       | {hit.file for hit in identities.repeats})
    node_findings: list[Finding] = []
    sources: list[Source] = []
    for index, read in enumerate(results):
        entry = streamed.get(index)
        if entry is not None:
            node_findings.extend(entry.reading)
            if entry.kept is not None and not isinstance(entry.kept, str):
                sources.append(entry.kept.source)
        elif not isinstance(read, str) and read is not None:
            sources.append(read.source)
            node_findings.extend(reading_findings(read.source))
    reading_streamed = {id(f) for entry in streamed.values() for f in entry.reading}
    node_findings.extend(cap_per_file(_kind_nodes_once(run_checks(analysis, disabled), analysis)))
    if "duplicate-object" not in disabled:
        node_findings.extend(Finding.of("duplicate-object", hit, None) for hit in identities.repeats)
    unchecked = analysis.sriov.unchecked_names()
    if unchecked:
        node_findings = [f for f in node_findings if f.rule != "schema" or (f.file, f.span) not in unchecked]
    node_findings = _without_echoes(node_findings, disabled)
    settled_apart = [f for f in node_findings if id(f) in reading_streamed]
    node_side = [f for f in node_findings if id(f) not in reading_streamed]
    try:
        node_side = _without_overlay_fields(node_side, overlays, {})
    except Restricted as error:  # a finding on a file they were not kept for
        raise NotStreamable(str(error)) from None
    del overlays  # (the node side's: what the rest of the report reuses)
    _fixes_proven(node_side, analysis, partial(_text_of, given={}, stamps={}))
    readable = sum(1 for index in range(count) if _parsed(results[index], streamed.get(index)))
    del analysis, node_findings  # (and what the proofs made): the streamed findings take their place
    results.clear()
    findings = node_side + settled_apart + list(_unpacked(packed, streamed))
    if identities.twins and any(f.fix is not None and f.fix.edits for f in findings):
        hint_twins(findings, identities.twins)
    for path in missing:
        findings.append(registry.finding("yaml-syntax", "no such file or directory", path, Span(1, 1, 1, 1)))
    # the files named (no context files: all the run's); a set of only those a finding or source is on, not 20,000
    concerned = {f.file for f in findings} | {r.file for f in findings for r in f.related} | {s.path for s in sources}
    reported = {path for path in itertools.islice(paths, count) if path in concerned}
    findings = [f for f in findings if f.file in reported or f.file in missing
                or any(r.file in reported for r in f.related)]
    suppressed: list[Finding] = []
    findings = _name_helm_sources(apply_configuration(findings, options, sources, suppressed, reported,
                                                      identities.dropped), sources)
    unparsed = {s.path for s in sources if not s.parsed or s.template}
    return Report(sorted(findings, key=Finding.sort_key), count + len(missing), readable, unparsed,
                  incomplete=any(s.unchecked for s in sources), suppressed=sorted(suppressed, key=Finding.sort_key),
                  checked=paths if count == len(paths) and not missing else [*paths[:count], *missing],
                  refused={s.path: s.refused for s in sources if s.refused})


def _node_analysis(results: list[Read | None], batches: list[_Batch], streamed: dict[int, _Checked],
                   paths: Sequence[str], identities: Registry, base: Analysis) -> Analysis:
    """The node side analysed with every object of the run admitted in input order (``model.run.assemble``: the
    first definition of a namesake decides), the streamed workloads by their identities: a repeat's findings go,
    and the resources the others ask for are the node side's to know. Only the streamed objects whose key another
    object may share go through the registry: any other is new, and is kept."""
    seen: set[int] = set()
    shared: set[int] = set()  # the hashes of the keys more than one object has (or that collide)
    for keys in (*({hash(i.key) for _, _, i in r.identities} for r in results if isinstance(r, FileResult)),
                 *(batch.keys for batch in batches)):
        for key in keys:
            (shared if key in seen else seen).add(key)
    del seen
    # the objects of the batches that hold such a key, in input order: only they are unpacked
    pending = (item for batch in batches if not shared.isdisjoint(batch.keys)
               for item in pickle.loads(zlib.decompress(batch.identities)) if hash(item[1]) in shared)
    upcoming = next(pending, None)
    lists: dict[str, list[object]] = {"profiles": [], "pods": [], "topologies": [], "others": []}
    sources: list[Source] = []
    made: list[ObjectIdentity] = []  # alive until all are admitted: the registry knows each by its id
    for index, read in enumerate(results):
        if isinstance(read, FileResult):
            gone = {(name, i) for name, i, identity in read.identities if not identities.admit(identity)}
            for name, kept in lists.items():
                kept.extend(v for i, v in enumerate(getattr(read, name)) if (name, i) not in gone)
            sources.append(read.source)
        dropped = []
        while upcoming is not None and upcoming[0] == index:
            _, key, digest, span, document = upcoming
            made.append(ObjectIdentity(key, digest, paths[index], span, document))
            if not identities.admit(made[-1]):
                dropped.append(document)
            upcoming = next(pending, None)
        entry = streamed.get(index)
        if dropped and entry is not None:  # a repeat of an object defined before: as in a whole run, unchecked
            if entry.capped:  # a cap counted its findings: the whole run decides
                raise NotStreamable(paths[index])
            entry.dropped = tuple(dropped)
    identities.close()
    forget_directories()  # the directories of every file the registry compared: not asked for again
    elsewhere = frozenset(name for batch in batches for name in batch.demand)
    for batch in batches:  # admitted: what the batches sent of their objects is not needed again
        batch.identities, batch.keys, batch.demand = b"", array("q"), ()
    run = Run(sources, lists["profiles"], lists["pods"], lists["topologies"], lists["others"],  # type: ignore[arg-type]
              len(results), elsewhere=elsewhere)
    # the node side's objects are admitted as they were for the batches (a workload never shares a key with one):
    # its pools, SR-IOV catalogue and kubelet problems stand, analysed once
    return with_workloads(base, run)


def _parsed(read: Read | None, entry: _Checked | None) -> bool:
    """Whether a file was parsed: a streamed file sends back its source only when it keeps something, and one
    that failed to parse always does."""
    if read is None:
        return entry is None or entry.kept is None or isinstance(entry.kept, str) or entry.kept.source.parsed
    return isinstance(read, str) or read.source.parsed


def _within(span: Span, document: Span) -> bool:
    return (document.line, document.col) <= (span.line, span.col) and span.line <= document.end_line
