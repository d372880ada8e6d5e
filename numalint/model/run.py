"""Everything one run has read, as typed views: the input of the analysis."""

from __future__ import annotations

from dataclasses import dataclass, field

from numalint.reading.sources import Document, Source
from numalint.views.kubelet import KubeletProfile
from numalint.views.topology import TopologyView
from numalint.views.workloads import PodView


@dataclass
class FileResult:
    """What reading one file produced (picklable, so workers can send it back)."""

    source: Source
    profiles: list[KubeletProfile] = field(default_factory=list)
    pods: list[PodView] = field(default_factory=list)
    topologies: list[TopologyView] = field(default_factory=list)
    others: list[Document] = field(default_factory=list)


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
