"""KubeVirt VMs that name an instancetype become workloads once the run is read: the instancetype may be
defined in any file of the run (or be one of KubeVirt's common ones), while files are read one by one, in
parallel (``views.instancetypes``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from numalint.k8s.kinds import INSTANCETYPE_KINDS
from numalint.reading.locate import get
from numalint.views.instancetypes import Instancetypes, reference
from numalint.views.kubevirt import vm_view
from numalint.views.kubevirt_admission import refusals, refused_with

if TYPE_CHECKING:  # types only: the engine imports this module when a run names instancetypes
    from numalint.model.run import FileResult
    from numalint.reading.sources import Document
    from numalint.views.workloads import PodView


def with_instancetypes(results: list[FileResult], documents: Iterable[Document]) -> list[FileResult]:
    """``results`` with each VirtualMachine whose instancetype ``documents`` (the run's) or KubeVirt's common
    instancetypes define turned from a document into a workload, where its document stands among the file's
    workloads (pods are admitted in input order)."""
    index = Instancetypes([d for d in documents if d.kind in INSTANCETYPE_KINDS])
    resolved = []
    for result in results:
        views: dict[int, PodView] = {}
        for position, doc in enumerate(result.others):
            named = reference(doc.root) if doc.kind == "VirtualMachine" else None
            if named is None:
                continue
            namespace = get(doc.root, ("metadata", "namespace"))
            found = index.find(*named, namespace if isinstance(namespace, str) else None)
            usable = found is not None and next(refusals(doc), None) is None and not refused_with(doc, found)
            view = vm_view(doc, found) if usable and found is not None else None
            if view is not None:
                views[position] = view
        resolved.append(_moved(result, views) if views else result)
    return resolved


def _moved(result: FileResult, views: dict[int, PodView]) -> FileResult:
    """``result`` with the documents at the positions of ``views`` moved from ``others`` to ``pods`` (their
    identities with them), the file's pods in document order."""
    pods = sorted([*result.pods, *views.values()], key=lambda pod: (pod.locator.fallback.line,
                                                                   pod.locator.fallback.col))
    pod_at = {id(pod): i for i, pod in enumerate(pods)}
    kept = [i for i in range(len(result.others)) if i not in views]
    other_at = {old: new for new, old in enumerate(kept)}
    identities = []
    for name, index, identity in result.identities:
        if name == "others":
            name, index = ("pods", pod_at[id(views[index])]) if index in views else ("others", other_at[index])
        elif name == "pods":
            index = pod_at[id(result.pods[index])]
        identities.append((name, index, identity))
    return replace(result, pods=tuple(pods), others=tuple(result.others[i] for i in kept),
                   identities=tuple(identities))
