"""The check pipeline: read files (in parallel when there are many), run the
catalogue's checks on the typed views, then apply configuration and suppressions."""

from __future__ import annotations

import gc
import os
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any

from numalint import catalogue as registry
from numalint.analysis import Analysis, AnalysisOptions, analyse
from numalint.catalogue import catalogue
from numalint.checks import KIND_HINT, run_checks
from numalint.checks.edits import shape_edits
from numalint.checks.forked import fork_context, share, share_in_rounds, usable_cpus
from numalint.checks.input_rules import (
    MAX_PER_RULE,
    MAX_PER_RULE_PROVEN,
    FindingCap,
    cap_per_file,
    input_findings,
    object_ref,
)
from numalint.checks.selection import SelectorError, matches, resolve
from numalint.findings import Finding, Fix, Hit, ObjectRef, Related
from numalint.k8s.kinds import (
    CAPI_BOOTSTRAP_GROUP,
    CAPI_CONFIG_TEMPLATE,
    KARPENTER_NODE_CLASS,
    KIND_CLUSTER_GROUP,
    KUBELET_CONFIG,
    KUBELET_CONFIGURATION,
    KUBEVIRT_KINDS,
    NODE_CONFIG,
    NODE_RESOURCE_TOPOLOGY,
    NODE_TOPOLOGY,
    NODEADM_GROUP,
    PERFORMANCE_PROFILE,
    POD_SPEC_PATHS,
    READ_KINDS,
    is_known,
    layout,
)
from numalint.k8s.templates import pod_templates
from numalint.model.identity import ObjectIdentity, Registry, object_identity
from numalint.model.kustomize import KUSTOMIZATION_NAMES, patch_files, patch_targets, patched_kinds
from numalint.model.run import FileResult, Read, assemble, compact, expanded, naming_instancetypes, near, path_of
from numalint.reading.locate import Path, get, locate
from numalint.reading.sources import (
    FILE_WIDE,
    Document,
    Listing,
    ReadError,
    Source,
    decode,
    discover,
    match_texts,
    path_matches,
    read_capped,
    read_source,
)
from numalint.reading.yamlpos import COMPLEX_KEY, Span, YMap
from numalint.views.embedded import FileText
from numalint.views.workloads import pod_views

if TYPE_CHECKING:
    from numalint.model.overlays import Kustomization, Overlays
    from numalint.reading.globs import GlobBuckets
    from numalint.views.kubelet_flags import Flag

PARALLEL_THRESHOLD = 300  # fewer files are read in one process
PER_PROCESS = 150  # and each further process must have at least this many to read
STREAMED_FROM = 1000  # files named: fewer are checked whole (the memory saved is small, the checks the same)
ROUND = 4096  # files a worker of a streamed run reads before it is forked again (``forked.share_in_rounds``)
TEMPLATE_MESSAGES = {
    "helm": "file is a Helm/Go template ({{ ... }}); render it first, e.g. `{render}`",
    "go": "file is a template ({{ ... }}) outside any Helm chart (no Chart.yaml above it); render it with the "
          "tool that fills it in, then check the output: `{render}`",
    "jinja": "file is a Jinja template ({% ... %}, {{ ... }}: Ansible, kubespray); render it with the tool that "
             "fills it in, then check the output: `{render}`",
    "envsubst": "file is a template (placeholders such as ${VAR} or $var in values); render it first, e.g. `{render}`",
    "patch": "file is a strategic-merge patch ($patch directives), not a whole object; check the build output "
             "instead, e.g. `kustomize build DIR | numalint check -`",
    "ztp": "file is a ZTP source CR (in source-crs/) with values left for PolicyGenerator or PolicyGenTemplate to "
           "fill in ($var, or blank); check the objects the policies generate instead",
    "": "file is a template; render it first",
}
DISABLE_ANNOTATION = "numalint.io/disable"


@dataclass(frozen=True)
class Options:
    """How one run is configured (from the command line and .numalint.yaml)."""

    version: tuple[int, int]
    exclude: tuple[str, ...] = ()
    exclude_base: str | None = None
    severities: Mapping[str, str] = field(default_factory=dict)  # slug -> severity or "off"
    context: tuple[str, ...] = ()  # files read for cross-document checks only
    jobs: int = 0
    fail_on: str | None = None
    node_state: str | None = None  # --node-state: a node's checkpoint directory
    sriov_prefix: str | None = None  # sriovResourcePrefix; None: the one the run shows (model.sriov.catalog)
    cluster_of: Callable[[str], str | None] | None = None  # the declared cluster of a file (.numalint.yaml)
    enabled: frozenset[str] | None = None  # --select/--ignore and their configuration keys (None: every rule)
    per_path: tuple[tuple[str, Mapping[str, str]], ...] = ()  # glob -> slug -> severity or "off"

    def analysis(self) -> AnalysisOptions:
        return AnalysisOptions(self.version, self.node_state, self.sriov_prefix)

    def per_path_of(self, file: str) -> tuple[int, ...]:
        """The numbers of the ``perPath:`` globs matching ``file``, in order: worked out once per file, trying
        only the globs whose literal start can begin it (every glob was tried for every finding: thousands of
        globs and files were quadratic)."""
        known = self._per_path_files
        if file not in known:
            texts = match_texts(file, self.exclude_base)
            known[file] = tuple(n for n in self._per_path_globs.candidates(texts)
                                if path_matches(file, self.per_path[n][0], self.exclude_base))
        return known[file]

    @cached_property
    def _per_path_globs(self) -> GlobBuckets:
        from numalint.reading.globs import GlobBuckets  # here: only a run configured per path needs it

        return GlobBuckets(glob.rstrip("/") for glob, _severities in self.per_path)

    @cached_property
    def _per_path_files(self) -> dict[str, tuple[int, ...]]:
        return {}


@dataclass
class Report:
    findings: list[Finding]
    files: int
    readable: int
    unparsed: set[str] = field(default_factory=set)  # files that failed to parse or are templates
    refused: dict[str, tuple[Span, ...]] = field(default_factory=dict)  # file -> documents kubectl refuses
    incomplete: bool = False  # some files were not checked (a worker process died)
    # findings a comment or annotation suppresses, with their justification (only SARIF shows them)
    suppressed: list[Finding] = field(default_factory=list)
    checked: Sequence[str] = field(default_factory=list)  # the files named or found (not context files)
    # ``judge``: every rule's errors by the rule's own severity, whatever selection, severities and suppressions
    # say (what the kubelet and API server refuse), and the workloads on a pool whose kubelet does not start
    errors: list[Finding] = field(default_factory=list)
    halted: set[tuple[str, ObjectRef | None]] = field(default_factory=set)
    stamps: dict[str, int] = field(default_factory=dict)  # file -> CRC-32 of the bytes checked (``Source.stamp``)


def process_file(path: str, texts: dict[str, str] | None = None, limit: int = MAX_PER_RULE,
                 stamped: bool = False) -> Read:
    """Read one file and turn its known documents into typed views (runs in workers); a file that gives
    nothing but its path comes back as its path (``model.run.compact``).

    The cyclic garbage collector is off meanwhile: a file's trees and views hold no cycles, and with it on,
    one file of 32,000 small documents took 1.6x longer, more than linear in its size (it walked the growing
    heap again and again). Whatever cycles reading makes are collected after the file.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        return compact(_process_file(path, texts, limit, stamped))
    finally:
        if collecting:
            gc.enable()


def _process_file(path: str, texts: dict[str, str] | None, limit: int = MAX_PER_RULE,
                  stamped: bool = False) -> FileResult:
    """The views of the kinds other than workloads are imported when a file holds such a kind: a run of
    workloads alone never imports the kubelet, PerformanceProfile and topology views or the alignment core's
    hardware model they build on (start-up time of a one-file run)."""
    kustomization = os.path.basename(path) in KUSTOMIZATION_NAMES
    # a kustomization is read whole: the files it names as patches are found here, in parallel, not read again
    source = read_source(path, (texts or {}).get(path), checked_only=not kustomization, stamped=stamped)
    built: Kustomization | None = None
    if kustomization:
        source.patches = patch_targets(path, source.documents)
        from numalint.model.overlays import read_kustomization  # here: only a run with kustomizations needs it

        built = read_kustomization(os.path.realpath(path), [d.root for d in source.documents])
    flags: list[Flag] = []
    if "kubeletExtraArgs" in (source.text or "") and any(d.kind == KUBELET_CONFIGURATION for d in source.documents):
        from numalint.views.provisioned import kubeadm_file_flags  # here: only such a file needs it (start-up)

        flags = kubeadm_file_flags(source.documents, source.findings)
    kept: dict[str, list[Any]] = {"profiles": [], "pods": [], "topologies": [], "others": []}
    identities: list[tuple[str, int, ObjectIdentity]] = []
    known = [d for d in source.documents if is_known(d.api_version, d.kind)]
    file_text = FileText(source.text or "")  # its lines split once, for every object that carries documents
    pinned = None  # the version a kubeadm file's kubelet runs, if it says
    if any(d.kind == KUBELET_CONFIGURATION for d in known):
        from numalint.views.kubelet import kubeadm_version  # here: only a file of a KubeletConfiguration needs it

        pinned = kubeadm_version(source.documents, file_text.lines)
    carriers = [d for d in source.documents if d.kind == "ConfigMap"]
    if carriers:  # HyperShift ConfigMaps may carry PerformanceProfiles
        from numalint.views.performance import embedded_profiles

        known += [e for d in carriers for e in embedded_profiles(d, file_text, source.findings)]
    clusters = [d for d in source.documents if d.kind == "Cluster" and d.api_version.startswith(KIND_CLUSTER_GROUP)]
    templates = [d for d in source.documents if d.kind == CAPI_CONFIG_TEMPLATE
                 and d.api_version.startswith(CAPI_BOOTSTRAP_GROUP)]
    classes = bool(templates) and any(d.kind == "ClusterClass" for d in source.documents)  # may patch templates
    node_configs = source.documents[:1] if source.documents and "kubelet-arg" in (source.text or "") else []
    eks = [d for d in source.documents if d.kind == NODE_CONFIG and d.api_version.startswith(NODEADM_GROUP)]
    node_classes = [d for d in source.documents if (d.api_version, d.kind) == KARPENTER_NODE_CLASS]
    source.documents = []  # the views keep what they need; trees are not sent between processes
    text, source.text = source.text, None
    cap = FindingCap(limit)  # findings of one rule past ``limit`` become one summary
    cap.add(source.findings)
    topology_findings: list[Finding] = []
    for doc in known:
        for stream in input_findings(doc, text):
            cap.add(stream, stop=True)
        if any(key is None or key == COMPLEX_KEY for mapping in doc.odd_keyed for key in mapping):
            source.refused += (doc.span,)  # kubectl refuses it (input_rules._odd_keys): fix never edits it
        _record_annotation(source, doc)
        identity = object_identity(doc)

        def keep(name: str, view: object, identity: ObjectIdentity | None = identity) -> None:
            if identity is not None:
                identities.append((name, len(kept[name]), identity))
            kept[name].append(view)

        if doc.kind in (KUBELET_CONFIGURATION, KUBELET_CONFIG):
            from numalint.views.kubelet import kubelet_profile

            flagged = bool(flags) and doc.kind == KUBELET_CONFIGURATION
            if flagged:
                from numalint.views.kubelet_flags import with_flags

                doc = with_flags(doc, flags)
            profile = kubelet_profile(doc)
            if profile is not None:
                if flagged:
                    profile.flag_spans = tuple(span for flag in flags for span in flag.spans)
                if doc.kind == KUBELET_CONFIGURATION:
                    profile.declared_version = pinned
                keep("profiles", profile)
                continue
        if doc.kind == PERFORMANCE_PROFILE:
            from numalint.views.performance import render

            rendered = render(doc)
            if rendered is not None:
                keep("profiles", rendered)
            keep("others", doc)
            continue
        if doc.kind in (NODE_TOPOLOGY, NODE_RESOURCE_TOPOLOGY):
            from numalint.views.nrt import machine_from_nrt
            from numalint.views.topology import topology_from_document

            read_topology = machine_from_nrt if doc.kind == NODE_RESOURCE_TOPOLOGY else topology_from_document
            topo = read_topology(doc, topology_findings)
            cap.add(topology_findings)
            topology_findings.clear()
            if topo is not None:
                keep("topologies", topo)
            continue
        if doc.kind in KUBEVIRT_KINDS:
            from numalint.views.kubevirt import vm_view
            from numalint.views.kubevirt_admission import refusals

            vm, refused = object_ref(doc), list(refusals(doc))
            cap.add(registry.finding("invalid-resources", f"KubeVirt's admission webhook refuses the {doc.kind}, which "
                                     f"never runs: {refusal.message}", doc.file, locate(doc.root, refusal.path), vm,
                                     Fix(refusal.fix)) for refusal in refused)
            view = vm_view(doc) if not refused else None
            views = [view] if view is not None else []
        else:
            views = pod_views(doc)
        for view in views:
            keep("pods", view)
        if not views:
            keep("others", doc)
    if clusters or templates or node_configs or eks or node_classes:  # kind, CAPI, RKE2/K3s, EKS: views.provisioned
        from numalint.views import provisioned
        from numalint.views.rancher import is_node_config

        for cluster in clusters:
            kept["profiles"] += provisioned.kind_profiles(cluster, file_text, cap)
        for template in templates:
            kept["profiles"] += provisioned.capi_profiles(template, cap, classes)
        for config in node_configs:
            if is_node_config(config):
                kept["profiles"] += provisioned.rancher_profiles(config, cap)
        for config in eks:
            kept["profiles"] += provisioned.nodeadm_profiles(config, text or "", cap)
        for node_class in node_classes:
            kept["profiles"] += provisioned.node_class_profiles(node_class, file_text, cap)
    source.findings = cap.result()
    source.seal()
    return FileResult(source, tuple(kept["profiles"]), tuple(kept["pods"]), tuple(kept["topologies"]),
                      tuple(kept["others"]), tuple(identities), built)


def _record_annotation(source: Source, doc: Document) -> None:
    """``numalint.io/disable`` on the object or on its pod template covers the whole document; on one template of
    an object with one per role (a PyTorchJob's Worker), that template, from its key to its end (where that
    role's findings point)."""
    core = POD_SPEC_PATHS.get(doc.kind) if layout(doc.api_version, doc.kind) is None else None
    places: list[tuple[Path, Span]] = [(("metadata",), doc.span)]
    if core is not None and len(core) > 1:
        places.append((core[:-1] + ("metadata",), doc.span))
    elif core is None:
        for template in pod_templates(doc.api_version, doc.kind, doc.root):
            holder, key = get(doc.root, template.spec_path[:-2]), template.spec_path[-2]
            if isinstance(holder, YMap) and key in holder:
                first, last = holder.key_spans[key], holder.value_spans[key]
                # a block mapping ends where the next key starts (coverage is by line): the line before it
                end = last.end_line - 1 if last.end_line > first.line and last.end_col <= first.col else last.end_line
                places.append((template.spec_path[:-1] + ("metadata",), Span(first.line, first.col, end, 1 << 20)))
    for metadata, covered in places:
        path = metadata + ("annotations", DISABLE_ANNOTATION)
        value = get(doc.root, path)
        if isinstance(value, str):
            slugs = {s.strip() for s in value.split(",") if s.strip()}
            source.annotations.append((covered, locate(doc.root, path), slugs))


def _processes(jobs: int, files: int) -> int:
    """How many processes read: one below PARALLEL_THRESHOLD files, else ``-j`` when given, else one per CPU
    this process may run on (its affinity, not the machine's count) while each gets PER_PROCESS files."""
    if files < PARALLEL_THRESHOLD:
        return 1
    if jobs:
        return jobs
    return max(1, min(usable_cpus(), files // PER_PROCESS))


def _read_all(paths: Sequence[str], texts: dict[str, str], jobs: int, stamped: bool = False,
              defer: Callable[[str], bool] | None = None) -> list[Read | None]:
    """Read every file (``texts`` replaces what is on disk, e.g. stdin or text being fixed): in chunks shared
    out among forked processes and this one (``checks.forked.share``); the files of a worker that died (the
    out-of-memory killer) become "not checked" findings and the run ends as incomplete. A file ``defer`` picks is
    left for later (None): a streamed run reads the workload files after the node side (``checks.streamed``)."""
    processes = _processes(jobs, len(paths))
    ctx = fork_context() if processes > 1 and not texts else None
    if ctx is None:
        return _read_chunk(paths, stamped, defer, texts)
    size = min(64, max(8, len(paths) // (processes * 16)))  # a chunk's results fit in a pipe's buffer
    # each chunk's paths taken from ``paths`` (a ``PathList`` in a streamed run) by the process that reads them
    tasks: list[Callable[[], list[Read | None]]] = [partial(_read_range, paths, i, size, stamped, defer)
                                                    for i in range(0, len(paths), size)]

    def lost(index: int) -> list[Read | None]:
        return [_unchecked(p) for p in paths[index * size:(index + 1) * size]]

    if defer is not None:  # a streamed run: this process keeps what the node side needs, and reads nothing itself
        results = [r for chunk in share_in_rounds(tasks, processes, ctx, lost, ROUND // size) for r in chunk]
    else:
        results = [r for chunk in share(tasks, processes - 1, ctx, lost) for r in chunk]
    for result in results:  # unpickled, a source's empty containers are its own again: shared once more
        if isinstance(result, FileResult):
            result.source.seal()
    return results


def _read_range(paths: Sequence[str], start: int, size: int, stamped: bool,
                defer: Callable[[str], bool] | None = None) -> list[Read | None]:
    return _read_chunk(paths[start:start + size], stamped, defer)


def _read_chunk(paths: Sequence[str], stamped: bool, defer: Callable[[str], bool] | None = None,
                texts: dict[str, str] | None = None) -> list[Read | None]:
    return [None if defer is not None and defer(p) else process_file(p, texts, stamped=stamped) for p in paths]


def _unchecked(path: str) -> FileResult:
    source = Source(path=path, unchecked=True)
    source.findings.append(registry.finding("yaml-syntax", "not checked: the worker process reading it died (killed, "
                                   "e.g. by the out-of-memory killer); run again or with -j 1", path,
                                   Span(1, 1, 1, 1)))
    return FileResult(source=source)


class _RealPaths:
    """``os.path.realpath`` for many files in few directories: each directory resolved once, each file one
    ``lstat`` (realpath itself looks at every component of every path), none for a file of a directory the walk
    listed (``listed``: it saw which entries are links)."""

    def __init__(self, listed: Mapping[str, Listing] | None = None) -> None:
        self.directories: dict[str, str] = {}
        self.links: set[str] = set()  # the paths seen that are symbolic links
        self.listed = listed or {}

    def __call__(self, path: str) -> str:
        head, name = os.path.split(path)
        if name in ("", ".", ".."):
            return os.path.realpath(path)
        if self._is_link(path, head, name):
            self.links.add(path)
            return os.path.realpath(path)
        return os.path.join(self._directory(head), name)

    def _is_link(self, path: str, head: str, name: str) -> bool:
        listing = self.listed.get(head)
        return name in listing.links if listing is not None else os.path.islink(path)

    def _directory(self, head: str) -> str:
        """A directory's real path from its parent's (at most one ``lstat`` per directory, not one per
        component)."""
        real = self.directories.get(head)
        if real is None:
            parent, name = os.path.split(head)
            if not parent or name in ("", ".", "..") or parent == head or self._is_link(head, parent, name):
                real = os.path.realpath(head or ".")
            else:
                real = os.path.join(self._directory(parent), name)
            self.directories[head] = real
        return real


def _once(paths: list[str], seen: set[str], realpath: _RealPaths) -> list[str]:
    """Each file once, however it is named (``x.yaml``, ``./x.yaml``, a directory, a symlink)."""
    unique = []
    for path in paths:
        identity = path if path == "-" else realpath(path)
        if identity not in seen:
            seen.add(identity)
            unique.append(path)
    return unique


@dataclass
class _Inputs:
    """The files of a run, each once, the real paths that tell repeats apart dropped before any file is read (on
    20,000 files they were 6 MiB kept through the whole read)."""

    files: list[str]  # named, or found in named directories
    context: list[str]  # context files (--context, `context:`)
    missing: list[str]  # paths that do not exist
    links: set[str]  # the files that are symbolic links
    walked: dict[str, Listing]  # each directory listed -> the kustomizations and links in it


def _inputs(paths: list[str], options: Options, texts: Collection[str] = ()) -> _Inputs:
    """The files to read (``texts``: those whose text is given, on disk or not), the context files, the missing."""
    walked: dict[str, Listing] = {}
    files, missing = discover(paths, options.exclude, options.exclude_base, KUSTOMIZATION_NAMES, walked, texts)
    if len(paths) == 1 and not options.context and walked and not any(listing.links for listing in walked.values()):
        # one directory walked, no symbolic link in it: each file was found once, under one name (the real paths
        # that tell repeats apart cost a tenth of a second on 20,000 files)
        return _Inputs(files, [], missing, set(), walked)
    realpath = _RealPaths(walked)
    seen: set[str] = set()
    files = _once(files, seen, realpath)
    context = discover(options.context, options.exclude, options.exclude_base, KUSTOMIZATION_NAMES, walked)[0]
    return _Inputs(files, _once(context, seen, realpath), missing, realpath.links, walked)


def _streams(files: int) -> bool:
    """Whether a run of ``files`` named files is streamed (``checks.streamed``). NUMALINT_STREAM: "off" checks
    every run whole, "always" streams a run of any size (the tests compare the two)."""
    mode = os.environ.get("NUMALINT_STREAM", "").strip().lower()
    return mode not in ("off", "0", "false", "no") and (files >= STREAMED_FROM or mode == "always")


def _read_files(paths: list[str], options: Options, texts: dict[str, str], stamped: bool = False
                ) -> tuple[list[Read], int, list[str]]:
    """Read the named files, then the context files; each file once. Returns (results, named count, missing).
    ``stamped``: keep each file's CRC-32 (``Source.stamp``), which only `fix` reads."""
    results, count, missing, _ = _read_inputs(paths, options, texts, stamped)
    return [r for r in results if r is not None], count, missing


# (results, named count, missing, every path: a ``PathList`` when files were left unread)
ReadInputs = tuple[list[Read | None], int, list[str], Sequence[str]]


def _read_inputs(paths: list[str], options: Options, texts: dict[str, str], stamped: bool = False,
                 defer: Callable[[str], bool] | None = None) -> ReadInputs:
    """``_read_files``, and the paths of the results; ``defer``: in a run of many files without context files, the
    files it picks are left unread (None) (``numalint.checks.streamed``)."""
    inputs = _inputs(paths, options, texts)
    files, context_files, missing, links = inputs.files, inputs.context, inputs.missing, inputs.links
    count = len(files)
    if context_files or not _streams(count):
        defer = None
    every: Sequence[str] = files + context_files
    if defer is not None:  # a streamed run: its paths as strings were a seventh of its memory (20,000 files)
        from numalint.reading.pathlist import PathList

        every = PathList(every)
        del files
        inputs.files = []
    collecting = gc.isenabled()
    gc.disable()  # reading makes next to no cyclic garbage (hundreds of objects for 20,000 files)
    try:
        results = _read_all(every, texts, options.jobs, stamped, defer)
    finally:
        if collecting:
            gc.enable()
    # what was read stays until the run ends: the collections of the analysis, checks and proofs need not walk
    # it again and again (one full collection of 20,000 files' views took 0.15 s), and forked proofs do not copy
    # its pages by marking them
    gc.freeze()
    # the patches of the kustomizations read above (found while reading them); a kustomization named by
    # ``texts`` is read again from disk below, as it is on disk that kustomize reads it
    known = {path_of(r): () if isinstance(r, str) else r.source.patches for r in results
             if r is not None and os.path.basename(path_of(r)) in KUSTOMIZATION_NAMES and path_of(r) not in texts}
    for index, read in enumerate(results):  # the patches are known: a kustomization's file is kept as any other
        if isinstance(read, FileResult) and read.source.patches:
            read.source.patches = ()
            results[index] = compact(read)
    # a patch named alone (pre-commit) is still a patch: the kustomizations beside the inputs are read too
    directories = {os.path.dirname(f) for f in every if f != "-"}
    beside = sorted(path for directory in directories for name in _kustomizations(inputs.walked.get(directory))
                    if (path := os.path.join(directory, name)) in known or os.path.isfile(path))
    fragments = patch_files([*(f for f in every if os.path.basename(f) in KUSTOMIZATION_NAMES), *beside], known)
    names = {os.path.basename(f) for f in fragments}  # a file of another name can only be one through a symlink
    including = _Including([f for f in every if os.path.basename(f) in KUSTOMIZATION_NAMES])
    realpath = _RealPaths(inputs.walked)
    for index, read in enumerate(results if fragments else ()):
        path = every[index]
        named = path != "-" and (os.path.basename(path) in names or path in links)
        kustomization = fragments.get(realpath(path)) if named else None
        if kustomization is not None:  # a patch left unread is read here: a patch is never streamed
            results[index] = result = expanded(read if read is not None else process_file(path, texts))
            _as_fragment(result, kustomization, including)
    return results, count, missing, every


def _kustomizations(listing: Listing | None) -> Collection[str]:
    """The kustomization files a directory may hold: those its listing saw, every name when it was not listed."""
    return KUSTOMIZATION_NAMES if listing is None else listing.kustomizations


class _Including:
    """Which kustomizations are components, and which kustomization of the run includes a component (by the
    component's directory): each kustomization is read at most once, and only when a patch asks (a component
    with hundreds of patches, beside thousands of overlays)."""

    def __init__(self, kustomizations: list[str]) -> None:
        self.kustomizations = kustomizations
        self.includer: dict[str, str] | None = None
        self.components: dict[str, bool] = {}

    def is_component(self, kustomization: str) -> bool:
        if kustomization not in self.components:
            self.components[kustomization] = any(doc.kind == "Component"
                                                 for doc in read_source(kustomization).documents)
        return self.components[kustomization]

    def of(self, component: str) -> str | None:
        if self.includer is None:
            self.includer = {}
            for path in self.kustomizations:
                base = os.path.dirname(path)
                for doc in read_source(path).documents:
                    entries = doc.root.get("components")
                    for entry in entries if isinstance(entries, list) else ():
                        try:
                            if isinstance(entry, str):
                                self.includer.setdefault(os.path.realpath(os.path.join(base, entry)), path)
                        except (ValueError, OSError):  # a NUL in the entry, a loop of links
                            continue
        return self.includer.get(os.path.realpath(os.path.dirname(component)))


def _as_fragment(result: FileResult, kustomization: str, including: _Including) -> None:
    """A kustomize patch: no object of it is checked; one not-lintable finding says where to look instead (a
    component builds only inside a kustomization that includes it: one of the run's when one does)."""
    source = result.source
    source.fragment = kustomization
    source.findings = [f for f in source.findings if f.rule == "yaml-syntax"]
    result.profiles, result.pods, result.topologies, result.others, result.identities = (), (), (), (), ()
    if source.findings:
        return
    kinds = patched_kinds(kustomization, source.path, source.documents)
    if kinds is not None and not kinds & READ_KINDS:
        return  # it patches only objects numalint never judges (a MachineConfig, a Service): nothing to look at
    import shlex  # here, not at the top: only a run with a kustomize patch needs it (start-up time)

    build = os.path.dirname(kustomization) or "."
    named = f"named in {kustomization}"
    if including.is_component(kustomization):
        named = f"named in the component {kustomization}"
        overlay = including.of(kustomization)
        build = (os.path.dirname(overlay) or ".") if overlay else "OVERLAY-THAT-INCLUDES-IT"
    source.findings.append(registry.finding(
        "not-lintable", f"file is a kustomize patch {named}: not a whole object; check the build output instead, "
        f"e.g. `kustomize build {shlex.quote(build)} | numalint check -`", source.path, Span(1, 1, 1, 1)))


@dataclass(frozen=True)
class ClusterAnalysis:
    """One cluster's analysis and the repeated objects found while assembling it."""

    name: str | None
    analysis: Analysis
    repeats: list[Hit]
    dropped: list[tuple[str, Span]]  # (file, document) of the repeats that were not checked
    twins: list[tuple[str, Span, str, Span]]  # (file, document) of an object and of an identical copy merged into it


def _analyse_clusters(results: list[Read], options: Options) -> list[ClusterAnalysis]:
    """Split the files into their declared clusters (one cluster when none are declared) and analyse each."""
    groups: dict[str | None, list[Read]] = {}
    for result in results:
        cluster = options.cluster_of(path_of(result)) if options.cluster_of else None
        groups.setdefault(cluster, []).append(result)
    analysed = []
    for name, members in groups.items():
        # in a declared cluster every two files are one cluster's; else namesakes far apart are two clusters'
        registry = Registry() if name is not None else Registry(near)
        run = assemble(_with_instancetypes(members), registry)
        if name is not None:  # declared under clusters:, whatever its directories
            run = replace(run, declared=True)
        analysed.append(ClusterAnalysis(name, analyse(run, options.analysis()), registry.repeats,
                                        registry.dropped, registry.twins))
    return analysed


def _with_instancetypes(members: list[Read]) -> list[Read]:
    """One cluster's files, each KubeVirt VM naming an instancetype made a workload (``model.instancetyped``)."""
    results = [r for r in members if not isinstance(r, str)]
    if not naming_instancetypes(results):
        return members
    from numalint.model.instancetyped import with_instancetypes  # here: only a run with such VMs needs it

    resolved = iter(with_instancetypes(results, [doc for result in results for doc in result.others]))
    return [r if isinstance(r, str) else next(resolved) for r in members]


def build_analyses(paths: list[str], options: Options, stdin_text: str | None = None,
                   stdin_name: str = "-") -> list[Analysis]:
    """Read inputs and analyse each cluster without checking (for ``simulate``); ``stdin_name``: the path stdin's
    text stands for (--stdin-filename)."""
    results = _read_files(paths, options, {stdin_name: stdin_text} if stdin_text is not None else {})[0]
    return [c.analysis for c in _analyse_clusters(results, options)]


def run_check(paths: list[str], options: Options, stdin_text: str | None = None,
              texts: dict[str, str] | None = None, judge: bool = False, trial: bool = False,
              read: ReadInputs | None = None) -> Report:
    """Check ``paths``; context files take part in cross-document checks without being reported on.

    ``judge`` (for ``fix``): every check runs, and the report also lists every error (``Report.errors``).
    ``trial`` (``fix`` judging fixes tried together): only the fixes of errors are proven, the ones that decide
    whether the trial brings a new error; the others' fixes are left unproven, never to be applied. A run of many
    files may be checked as a stream instead: ``checks.streamed.run_check``."""
    given = dict(texts or {})
    if stdin_text is not None:
        given["-"] = stdin_text
    # ``read``: the files read already (a run ``checks.streamed`` checks whole after all)
    every_read, count, missing, _ = read or _read_inputs(paths, options, given, stamped=judge)
    results: list[Read] = [r for r in every_read if r is not None]  # `fix` compares the bytes (stamped)
    builds = _take_kustomizations(results)
    files = [path_of(r) for r in results[:count]]
    reported = set(files)
    findings: list[Finding] = []
    # a compacted file (a path) has no findings, comments or annotations: only the others are looked at
    sources = [r.source for r in results if not isinstance(r, str)]
    for result in (r for r in results if not isinstance(r, str)):
        findings.extend(reading_findings(result.source))
    disabled = disabled_rules(options)
    analyses: dict[str | None, Analysis] = {}
    halted: set[tuple[str, ObjectRef | None]] = set()
    dropped: list[tuple[str, Span]] = []
    twins: list[tuple[str, Span, str, Span]] = []
    unchecked: set[tuple[str, Span]] = set()  # resourceNames no webhook checks (see SriovCatalog.unchecked_names)
    for cluster in _analyse_clusters(results, options):
        analyses[cluster.name] = cluster.analysis
        dropped += cluster.dropped
        twins += cluster.twins
        unchecked |= cluster.analysis.sriov.unchecked_names()
        checked = run_checks(cluster.analysis, () if judge else disabled, cluster.name)
        findings.extend(cap_per_file(_kind_nodes_once(checked, cluster.analysis)))
        if judge:
            halted |= _halted(cluster.analysis)
        if judge or "duplicate-object" not in disabled:
            findings.extend(Finding.of("duplicate-object", hit, cluster.name) for hit in cluster.repeats)
        reported |= {p.file for p in cluster.analysis.simulation.node_state_problems}
    if unchecked:
        findings = [f for f in findings if f.rule != "schema" or (f.file, f.span) not in unchecked]
    findings = _without_echoes(findings, () if judge else disabled)
    findings = _without_overlay_fields(findings, overlays_of(map(path_of, results), builds), given)
    stamps = {s.path: s.stamp for s in sources if s.stamp is not None}
    # as `fix` writes them, before they are proven
    shape_edits(findings, lambda path: _text_of(path, given, stamps))
    proven = [f for f in findings if is_error(f)] if trial else findings
    if analyses and any(f.fix is not None and f.fix.edits for f in proven):
        # imported here for start-up time: only a run with a fix to offer proves it
        from numalint.checks.proofs import prove_fixes

        prove_fixes(proven, lambda path: analyses.get(options.cluster_of(path) if options.cluster_of else None),
                    lambda path: _text_of(path, given, stamps),
                    lambda path, text: expanded(process_file(path, {path: text}, MAX_PER_RULE_PROVEN)),
                    options.jobs or usable_cpus())
    if any(f.fix is not None and f.fix.edits for f in findings):
        from numalint.checks.edits import hint_twins, hint_unverifiable  # here: only a run with a fix to offer

        hint_unverifiable(findings, lambda path: _text_of(path, given, stamps))
        hint_twins(findings, twins)
    for path in missing:
        findings.append(registry.finding("yaml-syntax", "no such file or directory", path, Span(1, 1, 1, 1)))
    # a finding in a context file is reported when a named file takes part in it (a changed kubelet file
    # that now rejects an unchanged pod); other context findings stay silent
    findings = [f for f in findings if f.file in reported or f.file in missing
                or any(r.file in reported for r in f.related)]
    errors = [f for f in findings if is_error(f)] if judge else []  # before the configuration's severities
    suppressed: list[Finding] = []
    configured = apply_configuration(findings, options, sources, suppressed, reported, dropped)
    findings = _name_helm_sources(configured, sources)
    suppressed = _name_helm_sources(suppressed, sources)
    readable = sum(1 for r in results[:count] if isinstance(r, str) or r.source.parsed)
    unparsed = {s.path for s in sources if not s.parsed or s.template}
    return Report(sorted(findings, key=Finding.sort_key), count + len(missing), readable, unparsed,
                  incomplete=any(s.unchecked for s in sources),
                  suppressed=sorted(suppressed, key=Finding.sort_key), checked=files + missing,
                  errors=errors, halted=halted, stamps=stamps if judge else {},
                  refused={s.path: s.refused for s in sources if s.refused})


def disabled_rules(options: Options) -> set[str]:
    """The rules a run does not run: off in its configuration, or left out by --select/--ignore."""
    disabled = {slug for slug, severity in options.severities.items() if severity == "off"}
    if options.enabled is not None:
        disabled |= set(catalogue()) - options.enabled
    return disabled


def _kind_nodes_once(findings: Iterable[Finding], analysis: Analysis) -> Iterator[Finding]:
    """A finding the kubelets of several node groups of one kind cluster share (the same rule, place and message:
    the KubeletConfiguration they all run) is said once, for every group that has it ("kind workers" when all do)."""
    groups: dict[tuple[str, Span], int] = {}
    for profile in analysis.profiles:
        if profile.by_hand == KIND_HINT:  # read from a kind Cluster (views.provisioned)
            groups[(profile.file, profile.doc.span)] = groups.get((profile.file, profile.doc.span), 0) + 1
    if not any(count > 1 for count in groups.values()):
        yield from findings
        return
    shared: dict[tuple[object, ...], list[Finding]] = {}
    kept: list[Finding] = []
    for finding in findings:
        obj = finding.obj
        if obj is None or obj.part is None or not obj.part.startswith("kind "):
            kept.append(finding)
            continue
        key = (finding.rule, finding.file, finding.span, finding.message, replace(obj, part=None))
        if key not in shared:
            shared[key] = []
            kept.append(finding)
        shared[key].append(finding)
    for alike in shared.values():
        if len(alike) > 1 and alike[0].obj is not None:
            everywhere = any(count == len(alike) for (file, _), count in groups.items() if file == alike[0].file)
            alike[0].obj = replace(alike[0].obj, part="kind workers" if everywhere else
                                   f"{alike[0].obj.part} and {len(alike) - 1} more node group(s)")
    yield from kept


# what refuses a PerformanceProfile itself: the API server (its CRD) and the Node Tuning Operator's validation
PROFILE_RULES = frozenset({"schema", "performance-profile-cpus", "performance-profile-invalid"})


def _without_echoes(findings: list[Finding], disabled: Collection[str] = ()) -> list[Finding]:
    """``findings`` without a kubelet rule's finding on a PerformanceProfile at the very span where the profile's own
    validation reports (a topologyPolicy or reserved CPU list the API server or the operator refuses): no kubelet
    ever gets that value, and the same mistake was said twice, once in the kubelet's field names. Its fix goes to
    the profile's finding when that has none (a policy name's case: "write "single-numa-node""). Not when the
    profile's rule is switched off (``disabled``): the kubelet rule's finding is then the only one said."""
    def on_profile(f: Finding) -> bool:
        return f.obj is not None and f.obj.kind == PERFORMANCE_PROFILE

    refused = {(f.file, f.span) for f in findings if f.rule in PROFILE_RULES and f.rule not in disabled
               and on_profile(f)}
    if not refused:
        return findings
    kubelet = {slug for slug, rule in catalogue().items() if rule.category == "kubelet"}
    echoes = [f for f in findings if f.rule in kubelet and on_profile(f) and (f.file, f.span) in refused]
    fixes = {(f.file, f.span): f.fix for f in echoes if f.fix is not None}
    said = {id(f) for f in echoes}
    return [replace(f, fix=fixes[(f.file, f.span)]) if f.fix is None and f.rule in PROFILE_RULES and on_profile(f)
            and (f.file, f.span) in fixes else f for f in findings if id(f) not in said]


def _take_kustomizations(results: list[Any]) -> dict[str, Kustomization]:
    """The kustomizations the workers read (by path), taken off their files, which are then kept as compactly as
    any other: thousands of them held a few MiB."""
    taken: dict[str, Kustomization] = {}
    for index, read in enumerate(results):
        if read is not None and not isinstance(read, str) and read.kustomization is not None:
            taken[read.source.path] = read.kustomization
            read.kustomization = None
            results[index] = compact(read)
    return taken


def overlays_of(paths: Iterable[str], builds: dict[str, Kustomization]) -> Overlays | None:
    """The kustomize overlays of a run's files (``paths``); ``builds``: the kustomizations the workers read, by
    path. None when the run has no kustomization."""
    kustomizations = [path for path in paths if os.path.basename(path) in KUSTOMIZATION_NAMES]
    if not kustomizations:
        return None
    from numalint.model.overlays import Overlays  # here: only a run with kustomizations needs it

    known = {k.path: k for k in builds.values()}
    return Overlays([path for path in kustomizations if path not in builds], known)


def _without_overlay_fields(findings: list[Finding], overlays: Overlays | None, given: dict[str, str]
                            ) -> list[Finding]:
    """Drop the findings on a kustomize base's fields that every overlay building it patches (``model.overlays``):
    the base alone is never applied."""
    on_objects = [f for f in findings if f.obj is not None and f.rule != "yaml-syntax" and f.input != "-"]
    if overlays is None or not on_objects:
        return findings
    from numalint.output.sources import SourceFiles  # here: only a run with kustomizations needs it

    files = SourceFiles(given)
    settled: set[int] = set()
    for finding in on_objects:
        assert finding.obj is not None
        # a finding without a fix to prove needs only whether every way settles it (``_unproven_under_overlays``
        # reads every way's fields only for a fix's edits)
        settles_it = _Settles(files, finding)
        routes = overlays.decided(finding.file, finding.obj.kind, finding.obj.name, finding.obj.namespace,
                                  finding.obj.api_version, settled_only=finding.fix is None or not finding.fix.edits,
                                  settling=settles_it)
        _unproven_under_overlays(finding, [route.fields for route in routes])
        if not any(route.fields for route in routes):
            continue
        settling = [bool(route.fields) and settles_it(route.fields) for route in routes]
        key = settles_it.key()
        if key is None:
            continue
        if all(settling):
            settled.add(id(finding))
        elif any(settling):  # the finding holds in the builds that leave the field alone: name one
            build = next(route.build for route, here in zip(routes, settling, strict=True) if not here)
            shown = _named_like(build, finding.file)
            finding.related += (Related(shown, Span(1, 1, 1, 1), f"kustomize builds the object here without "
                                        f"patching {key}, which other builds patch"),)
            _fixed_in_the_build(finding, key, shown)
    return [f for f in findings if id(f) not in settled] if settled else findings


def _named_like(real: str, file: str) -> str:
    """The real path ``real`` named from ``file`` as the run named it (through the symbolic link it came by),
    when that name leads to it; else relative to the working directory (absolute for an absolute ``file``)."""
    directory = os.path.dirname(file) or "."
    named = os.path.normpath(os.path.join(directory, os.path.relpath(real, os.path.realpath(directory))))
    if os.path.realpath(named) == real:
        return named
    return real if os.path.isabs(file) else os.path.relpath(real)


class _Settles:
    """Whether the fields a kustomize build patches settle a finding: its key and document looked up once, when
    first asked (most findings under overlays meet builds that patch nothing)."""

    def __init__(self, files: Any, finding: Finding) -> None:
        self.files, self.finding = files, finding
        self.looked: tuple[str | None, Any] | None = None

    def key(self) -> str | None:
        if self.looked is None:
            key = self.files.key_path(self.finding)
            self.looked = (key, self.files.document(self.finding) if key is not None else None)
        return self.looked[0]

    def __call__(self, fields: frozenset[str]) -> bool:
        from numalint.model.overlays import settles  # here: only a run with kustomizations needs it

        key = self.key()
        assert self.looked is not None
        return key is not None and settles(fields, key, self.looked[1], absent=self.finding.key is not None)


def _fixed_in_the_build(finding: Finding, key: str, build: str) -> None:
    """The advice on a kustomize base that holds only in the builds leaving ``key`` alone: do it there, as the
    other builds do, not in the base every build takes (a node selector label written in it would be merged into
    theirs). An edit is left as it is: it changes the base's value, which the builds patching it replace."""
    fix = finding.fix
    if fix is not None and not fix.edits:
        finding.fix = Fix(f"{fix.description}; other kustomize builds patch {key}: patch it in {build} rather "
                          "than in this base, which they all take")


# fields an overlay patches that move an object to other pools (a workload, a PerformanceProfile, an SR-IOV policy)
# or change what it asks of them
_PLACEMENT = frozenset({"nodeSelector", "affinity", "tolerations", "resources", "replicas", "parallelism",
                        "runtimeClassName", "annotations"})


def _unproven_under_overlays(finding: Finding, routes: list[frozenset[str]]) -> None:
    """A fix on an object whose kustomize overlays patch where it applies or what it asks (a workload's
    nodeSelector, its resources) is proven on the base's pools only: on the pools the overlays put it on, it may
    bring an error (a rounded CPU count under another pool's full-pcpus-only), so it becomes a hint."""
    fix = finding.fix
    if fix is None or not fix.edits:
        return
    patched = sorted({f for fields in routes for f in fields
                      if _PLACEMENT & set(f.replace("[", ".").replace("]", "").split("."))})
    if patched:
        finding.fix = fix.as_hint(f"the kustomize overlays that build it patch {', '.join(patched[:3])}"
                                  f"{', ...' if len(patched) > 3 else ''}, and numalint proved the fix only where "
                                  "the base alone runs; decide by hand")


def reading_findings(source: Source) -> list[Finding]:
    """What reading a file found, with the not-lintable finding of a template."""
    found = list(source.findings)
    if source.template:
        found.append(registry.finding("not-lintable", _template_message(source), source.path, Span(1, 1, 1, 1)))
    return found


def _template_message(source: Source) -> str:
    """What to run instead, with the file's own chart or path (``reading.rendering``)."""
    if source.template_kind not in ("helm", "jinja", "envsubst"):
        return TEMPLATE_MESSAGES[source.template_kind]
    from numalint.reading.rendering import render_command, render_kind  # here: only a run with a template needs it

    return TEMPLATE_MESSAGES[render_kind(source)].replace("{render}", render_command(source, "check"))


def is_error(finding: Finding) -> bool:
    """An error by its rule's own severity (or the one its check gave it), not a configured one."""
    if finding.severity is not None:
        return finding.severity == "error"
    rule = registry.rule(finding.rule)
    return rule is None or rule.severity == "error"


def _halted(analysis: Analysis) -> set[tuple[str, ObjectRef | None]]:
    """The workloads placed on a pool whose kubelet does not start: they run nowhere there."""
    return {(pod.file, pod.ref) for pod in analysis.pods
            if any(pool.profile is not None and analysis.start_problems(pool.profile)
                   for pool in analysis.pools_for(pod))}


def _text_of(path: str, given: dict[str, str], stamps: dict[str, int]) -> str | None:
    """A file's text as reading saw it (for shaping and proving fixes): the given text, or the file read again;
    None when it cannot be read, or changed since it was checked (its findings' spans may not fit it)."""
    if path in given:
        return given[path]
    try:
        data = read_capped(path)
        stamp = stamps.get(path)
        if stamp is not None:
            from zlib import crc32  # here, not at the top: only `fix` keeps stamps (start-up time)

            if crc32(data) != stamp:
                return None
        return decode(data)
    except (ReadError, UnicodeDecodeError, OSError):
        return None


def _name_helm_sources(findings: list[Finding], sources: list[Source]) -> list[Finding]:
    """On stdin, a finding in a document after ``# Source: chart/templates/x.yaml`` names that file
    (its line stays the line in the stream)."""
    stdin = next((s for s in sources if s.path == "-" and s.labels), None)
    if stdin is not None:
        for finding in findings:
            label = stdin.label_at(finding.span.line) if finding.file == "-" else None
            if label:
                finding.file, finding.stream = label, "-"
    return findings


ALWAYS_REPORTED = frozenset({"yaml-syntax"})  # a file that cannot be read is never deselected, as in ruff


def _disabled(options: Options, rule: str, file: str) -> bool:
    """Off in ``rules:``/``perPath:`` or left out by --select/--ignore."""
    if rule in ALWAYS_REPORTED:
        return False
    configured = _path_severity(options, rule, file) or options.severities.get(rule)
    return configured == "off" or (options.enabled is not None and rule not in options.enabled)


def apply_configuration(findings: list[Finding], options: Options, sources: list[Source],
                        suppressed: list[Finding] | None = None, reported: set[str] | None = None,
                        dropped: Sequence[tuple[str, Span]] = ()) -> list[Finding]:
    """Severity overrides, disabled rules, comment and annotation suppressions; suppressed findings go to
    ``suppressed`` (with their justification), findings of disabled rules nowhere. A suppression in one of the
    ``dropped`` documents (a repeated object, checked once at its first definition) is not judged unused: the
    checks it could silence never looked at that copy."""
    by_path = {s.path: s for s in sources}
    annotations = _annotation_suppressions(sources)
    annotated = _LineIndex((a[0], a[1].line, a[1].end_line, a) for a in annotations)
    used: set[tuple[str, int, str]] = set()
    kept: list[Finding] = []
    for finding in findings:
        configured = _path_severity(options, finding.rule, finding.file) or options.severities.get(finding.rule)
        if _disabled(options, finding.rule, finding.file):
            continue
        if configured:
            finding.severity = configured
        elif finding.severity is None:
            rule = registry.rule(finding.rule)  # its file alone, not the whole catalogue (start-up time)
            finding.severity = rule.severity if rule else "error"
        source = by_path.get(finding.file)
        if source is not None and _suppressed(finding, source, used):
            if suppressed is not None:
                suppressed.append(finding)
            continue
        if _annotated(finding, annotated, used):
            if suppressed is not None:
                finding.justification = ""
                suppressed.append(finding)
            continue
        kept.append(finding)
    # suppressions are judged only in the files a run reports on (context files stay silent)
    judged = [s for s in sources if reported is None or s.path in reported]
    kept.extend(f for f in _unused(judged, [a for a in annotations if reported is None or a[0] in reported],
                                   used, options, dropped) if not _disabled(options, f.rule, f.file))
    return kept


class _LineIndex:
    """Items that each cover lines ``first..last`` of a file, asked which cover a line: sorted by first line per file,
    with the furthest last line so far, so a question costs the items near the line, not every item of the run
    (thousands of suppressions or annotations each compared with thousands of documents were quadratic)."""

    def __init__(self, items: Iterable[tuple[str, int, int, Any]]) -> None:
        by_file: dict[str, list[tuple[int, int, int, Any]]] = {}
        for order, (file, first, last, item) in enumerate(items):
            by_file.setdefault(file, []).append((first, order, last, item))
        self._files: dict[str, tuple[list[int], list[int], list[tuple[int, int, int, Any]]]] = {}
        for file, entries in by_file.items():
            entries.sort(key=lambda entry: entry[:2])
            reach, furthest = [], -1
            for entry in entries:
                furthest = max(furthest, entry[2])
                reach.append(furthest)
            self._files[file] = ([entry[0] for entry in entries], reach, entries)

    def __contains__(self, file: str) -> bool:
        return file in self._files

    def covering(self, file: str, line: int) -> list[Any]:
        """The items of ``file`` whose lines hold ``line``, in the order they were given."""
        if file not in self._files:
            return []
        firsts, reach, entries = self._files[file]
        found = []
        index = bisect_right(firsts, line) - 1
        while index >= 0 and reach[index] >= line:
            if entries[index][2] >= line:
                found.append(entries[index])
            index -= 1
        return [entry[3] for entry in sorted(found, key=lambda entry: entry[1])]


def _in_dropped(file: str, line: int, dropped: _LineIndex) -> bool:
    """Whether a suppression at ``line`` of ``file`` (FILE_WIDE: the file's) could only silence a repeat no
    check looked at: it is within that document or on the line above it (a comment there covers its first
    line), or it is file-wide in a file holding such a repeat."""
    return file in dropped if line == FILE_WIDE else bool(dropped.covering(file, line))


def _path_severity(options: Options, rule: str, file: str) -> str | None:
    """``perPath:`` settings of ``rule`` for ``file`` (the last matching glob wins)."""
    if not options.per_path:
        return None
    found = None
    for number in options.per_path_of(file):
        severities = options.per_path[number][1]
        if rule in severities:
            found = severities[rule]
    return found


def _suppressed(finding: Finding, source: Source, used: set[tuple[str, int, str]]) -> bool:
    """A ``# numalint: disable=`` comment on the finding's line or the line above, or a file-level
    ``# numalint: disable-file``; rules named by slug, code or code prefix."""
    for line in (finding.span.line, finding.span.line - 1, FILE_WIDE):
        entry = source.suppressions.get(line)
        if entry and line == FILE_WIDE and source.labels:  # a helm stream: the file is the # Source: section
            comment_line = entry[1] // 1_000_000
            if source.label_at(comment_line) != source.label_at(finding.span.line):
                continue
        selector = matches(sorted(entry[0]), finding.rule) if entry else None
        if selector is not None:
            used.add((source.path, line, selector))
            finding.justification = source.justifications.get(line, "")
            return True
    return False


def _annotation_suppressions(sources: list[Source]) -> list[tuple[str, Span, Span, set[str]]]:
    """(file, document span, annotation span, slugs) for every ``numalint.io/disable`` annotation."""
    return [(s.path, doc_span, span, slugs) for s in sources for doc_span, span, slugs in s.annotations]


def _annotated(finding: Finding, annotations: _LineIndex, used: set[tuple[str, int, str]]) -> bool:
    for file, _doc_span, span, slugs in annotations.covering(finding.file, finding.span.line):
        selector = matches(sorted(slugs), finding.rule)
        if selector is not None:
            used.add((file, span.line, selector))
            return True
    return False


def _names_a_rule(selector: str) -> bool:
    if selector == "all":
        return True
    try:
        resolve(selector)
    except SelectorError:
        return False
    return True


def _unused(sources: list[Source], annotations: list[tuple[str, Span, Span, set[str]]],
            used: set[tuple[str, int, str]], options: Options, dropped: Sequence[tuple[str, Span]]) -> list[Finding]:
    result = []
    repeats = _LineIndex((file, document.line - 1, document.end_line, None) for file, document in dropped)

    def report(file: str, line: int, col: int, slug: str, key: int | None = None) -> None:
        if (file, line if key is None else key, slug) in used or _in_dropped(file, line if key is None else key,
                                                                               repeats):
            return
        if _names_a_rule(slug) and slug != "all" and all(_disabled(options, rule, file) for rule in resolve(slug)):
            return  # the rules it names are not run here: nothing could have been suppressed
        what = "unknown rule" if not _names_a_rule(slug) else "nothing to suppress"
        result.append(registry.finding("unused-suppression", f'suppression of "{slug}" is unused ({what})',
                                       file, Span(line, col, line, col + 1),
                                       severity=options.severities.get("unused-suppression")))

    for source in sources:
        for line, (slugs, col) in source.suppressions.items():
            for slug in sorted(slugs):
                if line == FILE_WIDE:
                    report(source.path, col // 1_000_000, col % 1_000_000, slug, FILE_WIDE)
                else:
                    report(source.path, line, col, slug)
    for file, _doc_span, span, slugs in annotations:
        for slug in sorted(slugs):
            report(file, span.line, span.col, slug)
    result = cap_per_file(result)  # a hundred per file, as every rule (thousands of unknown rules were as many lines)
    severity = options.severities.get("unused-suppression") or catalogue()["unused-suppression"].severity
    for finding in result:  # the summary too, at the configured severity
        if finding.severity is None:
            finding.severity = severity
    return result
