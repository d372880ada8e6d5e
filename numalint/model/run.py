"""Everything one run has read, as typed views: the input of the analysis."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from numalint.model.identity import ObjectIdentity, Registry
from numalint.reading.sources import Document, Source
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


@dataclass(frozen=True)
class Run:
    """The views of every file a run read, in input order."""

    sources: list[Source]
    profiles: list[KubeletProfile]
    pods: list[PodView]
    topologies: list[TopologyView]
    others: list[Document]

    def of_kind(self, kind: str) -> list[Document]:
        return [d for d in self.others if d.kind == kind]


def assemble(results: list[FileResult], registry: Registry) -> Run:
    """One cluster's run from its files, each named object once (repeats go to ``registry``)."""
    lists: dict[str, list[object]] = {"profiles": [], "pods": [], "topologies": [], "others": []}
    for result in results:
        dropped = {(name, index) for name, index, identity in result.identities if not registry.admit(identity)}
        for name in lists:
            lists[name].extend(v for i, v in enumerate(getattr(result, name)) if (name, i) not in dropped)
    return Run(sources=[r.source for r in results], profiles=lists["profiles"],  # type: ignore[arg-type]
               pods=lists["pods"], topologies=lists["topologies"], others=lists["others"])  # type: ignore[arg-type]
