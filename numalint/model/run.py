"""Everything one run has read, as typed views: the input of the analysis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from numalint.model.identity import ObjectIdentity, Registry
from numalint.reading.sources import Document, Source

if TYPE_CHECKING:  # a run of workloads alone never imports the kubelet and topology views (start-up time)
    from numalint.views.kubelet import KubeletProfile
    from numalint.views.topology import TopologyView
    from numalint.views.workloads import PodView


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
            and not result.identities):
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

    def of_kind(self, kind: str) -> list[Document]:
        return [d for d in self.others if d.kind == kind]


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
