"""Everything one run has read, as typed views: the input of the analysis."""

from __future__ import annotations

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
    """What reading one file produced (picklable, so workers can send it back)."""

    source: Source
    profiles: list[KubeletProfile] = field(default_factory=list)
    pods: list[PodView] = field(default_factory=list)
    topologies: list[TopologyView] = field(default_factory=list)
    others: list[Document] = field(default_factory=list)
    # (list name, index in that list, identity) of every named object among the views above
    identities: list[tuple[str, int, ObjectIdentity]] = field(default_factory=list)


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
