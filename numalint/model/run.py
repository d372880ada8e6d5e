"""Everything one run has read, as typed views: the input of the analysis."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from numalint.model.identity import ObjectIdentity, Registry
from numalint.reading.sources import Document, Source

if TYPE_CHECKING:  # a run of workloads alone never imports the kubelet and topology views (start-up time)
    from numalint.model.overlays import Kustomization
    from numalint.views.kubelet import KubeletProfile
    from numalint.views.topology import TopologyView
    from numalint.views.workloads import PodView

T = TypeVar("T")


@dataclass(slots=True)
class FileResult:
    """What reading one file produced (picklable, so workers can send it back). Lists while the file is read,
    tuples once it is (an empty tuple costs nothing: most files give no view)."""

    source: Source
    profiles: Sequence[KubeletProfile] = field(default_factory=list)
    pods: Sequence[PodView] = field(default_factory=list)
    topologies: Sequence[TopologyView] = field(default_factory=list)
    others: Sequence[Document] = field(default_factory=list)
    # (list name, index in that list, identity) of every named object among the views above
    identities: Sequence[tuple[str, int, ObjectIdentity]] = field(default_factory=list)
    kustomization: Kustomization | None = None  # a kustomization file: what it builds (``model.overlays``)


# What is kept of one file read: its FileResult, or only its path when the file was read and parsed and gave
# nothing else (no finding, comment, annotation, helm label or view): most files of a large repository, kept
# at the cost of their path.
Read = FileResult | str


def compact(result: FileResult) -> Read:
    """``result``, or its path when nothing else of it is needed."""
    source = result.source
    if (source.parsed and not source.template and not source.template_kind and not source.unchecked
            and source.fragment is None and not source.patches and not source.findings and not source.suppressions
            and not source.justifications and not source.annotations and not source.labels and not source.documents
            and not result.profiles and not result.pods and not result.topologies and not result.others
            and not result.identities and result.kustomization is None):
        return source.path
    return result


def path_of(read: Read) -> str:
    return read if isinstance(read, str) else read.source.path


def expanded(read: Read) -> FileResult:
    """The FileResult of a compacted file: parsed, nothing in it."""
    return FileResult(Source(path=read, parsed=True)) if isinstance(read, str) else read


@dataclass(frozen=True)
class Run:
    """The views of every file a run read, in input order."""

    sources: list[Source]  # of the files that were not compacted (see ``compact``)
    profiles: list[KubeletProfile]
    pods: list[PodView]
    topologies: list[TopologyView]
    others: list[Document]
    files: int = 0  # every file read, compacted or not
    declared: bool = False  # a cluster the configuration's ``clusters:`` declares: its files are one cluster
    # the resources the workloads checked apart ask for (``numalint.checks.streamed``): the node side's checks that
    # look at every workload (an SR-IOV policy nothing uses) see them too
    elsewhere: frozenset[str] = frozenset()

    def of_kind(self, kind: str) -> list[Document]:
        return list(self._by_kind.get(kind, ()))

    def with_pods(self, pods: list[PodView]) -> Run:
        """This run with other workloads: its documents grouped by kind are kept (a fix's proof makes one per set of
        pools, and grouping the run's documents again for each was quadratic in pools)."""
        run = replace(self, pods=pods)
        if "_by_kind" in self.__dict__:
            run.__dict__["_by_kind"] = self.__dict__["_by_kind"]
        return run

    @cached_property
    def _by_kind(self) -> dict[str, list[Document]]:
        """The other documents by kind, grouped once: a check asks for a kind once per profile (thousands of
        PerformanceProfiles each scanning every document was quadratic)."""
        grouped: dict[str, list[Document]] = {}
        for doc in self.others:
            grouped.setdefault(doc.kind, []).append(doc)
        return grouped

    def derived(self, key: str, make: Callable[[Run], T]) -> T:
        """What a model module works out of the run's documents, made once per run under ``key`` (a run does not
        change once made): the MachineConfigPools were rebuilt for each of thousands of configurations. What
        ``make`` returns must not hold the run: the cycle would outlive it in workers, which collect no cycles."""
        if key not in self._derived:
            self._derived[key] = make(self)
        return self._derived[key]  # type: ignore[no-any-return]

    @cached_property
    def _derived(self) -> dict[str, Any]:
        return {}

    def together(self, file: str, other: str) -> bool:
        """Whether two files of the run are taken as one cluster's: always in a declared cluster, else when
        they are ``near``."""
        return self.declared or near(file, other)


def near(file: str, other: str) -> bool:
    """Whether two files are likely applied together: unless each lies two or more directories below the
    directory they share. A repository that keeps one tree per cluster (``cluster-setup/ci/performance/``,
    ``cluster-setup/manual/performance/``; ``clusters/east/node-tuning/``, ``clusters/west/node-tuning/``) puts
    its clusters' files that far apart, while one cluster's objects sit in one directory, above one another, or
    one directory each (``node-tuning/profile-a/``, ``node-tuning/profile-b/``). Paths are compared made absolute
    (``a.yaml``, ``./x/b.yaml`` and ``/repo/x/b.yaml`` name their directories alike); stdin (``-``) sits in the
    working directory."""
    here, there = _directories(file), _directories(other)
    shared = 0
    while shared < min(len(here), len(there)) and here[shared] == there[shared]:
        shared += 1
    return len(here) - shared < 2 or len(there) - shared < 2


class NearFiles:
    """Which of many files are ``near`` a file, in their order, at the cost of those asked for (thousands of files
    in thousands of cluster trees each compared with every other). ``near(file, other)`` holds when ``other``'s
    directory is in the tree of the directory above ``file``'s, or the directory above ``other``'s is one of
    ``file``'s directories."""

    def __init__(self, files: Iterable[str]) -> None:
        self.under: dict[tuple[str, ...], list[int]] = {}  # a directory: the files in its tree, by number
        self.beneath: dict[tuple[str, ...], list[int]] = {}  # a directory: the files one directory below it
        self.at: dict[tuple[str, ...], int] = {}  # a directory: how many files it holds itself
        for number, file in enumerate(files):
            there = _directories(file)
            for depth in range(len(there) + 1):
                self.under.setdefault(there[:depth], []).append(number)
            self.beneath.setdefault(there[:-1], []).append(number)
            self.at[there] = self.at.get(there, 0) + 1

    def near_any(self, file: str) -> bool:
        """Whether any of the files is near ``file`` (thousands of pods and thousands of templates)."""
        here = _directories(file)
        return here[:-1] in self.under or any(here[:depth] in self.beneath for depth in range(len(here) + 1))

    def count(self, file: str) -> int:
        """How many files are near ``file``, without listing them (in a tree of one directory per pool, every
        pool is near every other): those in the tree of the directory above its own, and those one directory
        below one of its directories above that (the one above that counts those beside its own directory,
        already in the tree)."""
        here = _directories(file)
        if not here:
            return len(self.under.get((), ()))
        above = here[:-1]
        total = len(self.under.get(above, ()))
        total += sum(len(self.beneath.get(here[:depth], ())) for depth in range(len(here) - 1))
        return total - (self.at.get(above, 0) if len(here) >= 2 else 0)

    def near(self, file: str) -> Iterator[int]:
        """The numbers of the files near ``file``, in order, each once."""
        import heapq  # here: few runs ask (start-up time)

        here = _directories(file)
        groups = [self.under.get(here[:-1], [])]
        groups += (self.beneath.get(here[:depth], []) for depth in range(len(here) + 1))
        last = -1
        for number in heapq.merge(*(group for group in groups if group)):
            if number != last:
                last = number
                yield number


@lru_cache(maxsize=1 << 16)
def _directories(file: str) -> tuple[str, ...]:
    """The directories of ``file``'s absolute path, once per file: ``near`` is asked of many pairs. Each name is
    kept once for all files (thousands of files under a few directories held 1.7 MiB as names of their own)."""
    return tuple(sys.intern(name) for name in os.path.dirname(os.path.abspath(file)).split(os.sep))


def forget_directories() -> None:
    """Let go of what ``near`` keeps of every file it compared (a streamed run, once its objects are admitted)."""
    _directories.cache_clear()


def same_directory(file: str, other: str) -> bool:
    return _directories(file) == _directories(other)


def naming_instancetypes(results: Iterable[FileResult]) -> bool:
    """Whether any file holds a KubeVirt VirtualMachine naming an instancetype, kept among its ``others`` until
    the run is read (``model.instancetyped``)."""
    return any(doc.kind == "VirtualMachine" and isinstance(doc.root.get("spec"), dict)
               and doc.root["spec"].get("instancetype") is not None for result in results for doc in result.others)


def assemble(reads: list[Read], registry: Registry) -> Run:
    """One cluster's run from its files, each named object once (repeats go to ``registry``)."""
    lists: dict[str, list[object]] = {"profiles": [], "pods": [], "topologies": [], "others": []}
    results = [r for r in reads if not isinstance(r, str)]
    for result in results:
        dropped = {(name, index) for name, index, identity in result.identities if not registry.admit(identity)}
        for name in lists:
            lists[name].extend(v for i, v in enumerate(getattr(result, name)) if (name, i) not in dropped)
    return Run(sources=[r.source for r in results], profiles=lists["profiles"],  # type: ignore[arg-type]
               pods=lists["pods"], topologies=lists["topologies"], others=lists["others"],  # type: ignore[arg-type]
               files=len(reads))
