"""Everything one run has read, as typed views the checks work on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from numalint.reading.sources import Document, Source
from numalint.views.kubelet import KubeletProfile
from numalint.views.workloads import PodView

if TYPE_CHECKING:
    from numalint.model.pools import Pool
    from numalint.views.topology import TopologyView


@dataclass
class FileResult:
    """What reading one file produced (picklable, so workers can send it back)."""

    source: Source
    profiles: list[KubeletProfile] = field(default_factory=list)
    pods: list[PodView] = field(default_factory=list)
    topologies: list[Any] = field(default_factory=list)
    others: list[Document] = field(default_factory=list)


@dataclass
class Run:
    """The inputs of one check run plus its settings."""

    sources: list[Source]
    profiles: list[KubeletProfile]
    pods: list[PodView]
    topologies: list[TopologyView]
    others: list[Document]
    version: tuple[int, int]
    settings: dict[str, Any] = field(default_factory=dict)
    _pools: list[Pool] | None = None

    def of_kind(self, kind: str) -> list[Document]:
        return [d for d in self.others if d.kind == kind]

    @property
    def pools(self) -> list[Pool]:
        if self._pools is None:
            from numalint.model.pools import build_pools

            self._pools = build_pools(self)
        return self._pools
