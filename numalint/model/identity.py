"""Each object once: documents keyed by (API group, kind, namespace, name) within a cluster.

An identical repeat (the same object reached through two paths, or copied into two files) is merged
silently; a repeat with other content is a ``duplicate-object`` finding, and only the first is used, so
no check ever compares an object with a copy of itself."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from numalint.findings import Hit, ObjectRef
from numalint.reading.locate import locate, shared
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span

try:  # CPython's own SHA-1, the same digest as hashlib's: loading OpenSSL for hashlib costs each run ~3 ms
    from _sha1 import sha1
except ImportError:  # pragma: no cover - a Python built without it
    from hashlib import sha1

CLUSTER_SCOPED = frozenset({"KubeletConfig", "MachineConfigPool", "PerformanceProfile", "NodeResourceTopology",
                            "NodeTopology", "Node", "VirtualMachineClusterInstancetype"})


@dataclass(frozen=True, slots=True)
class ObjectIdentity:
    key: tuple[str, str, str, str]  # (API group, kind, namespace, name)
    digest: bytes  # of the document's content (only compared: 20 bytes instead of 40 hex digits)
    file: str
    span: Span  # where metadata.name is written
    document: Span  # the whole document


def object_identity(doc: Document) -> ObjectIdentity | None:
    """The identity of a named object; None for documents without a name (KubeletConfiguration)."""
    metadata = doc.root.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    if not isinstance(name, str) or not name:
        return None
    namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
    group = doc.api_version.rpartition("/")[0] if "/" in doc.api_version else ""
    scope = "" if doc.kind in CLUSTER_SCOPED else (namespace if isinstance(namespace, str) else "")
    key = (shared(group), shared(doc.kind), shared(scope), name)
    return ObjectIdentity(key, _digest(doc.root), doc.file, locate(doc.root, ("metadata", "name")), doc.span)


# json.dumps(root, sort_keys=True, default=str), made once: trees hold no cycles (reading refuses an anchor
# that contains itself), so the encoder need not track every container it enters (40% of the digest's time)
_CANONICAL = json.JSONEncoder(sort_keys=True, default=str, check_circular=False)


def _digest(root: Any) -> bytes:
    try:
        text = _CANONICAL.encode(root)
    except (TypeError, ValueError, RecursionError):  # keys of mixed types, or too deep
        text = repr(root)
    return sha1(text.encode("utf-8", "surrogatepass")).digest()


# node-side objects decide pools and kubelet settings: of two different definitions only the first is used.
# Workloads and SR-IOV objects keep both: each is checked on its own, and a provider or consumer of a
# resource is never hidden behind a namesake (docs hold alternative examples, overlays rewrite bases).
FIRST_ONLY = frozenset({"KubeletConfig", "MachineConfigPool", "PerformanceProfile", "NodeResourceTopology",
                        "NodeTopology", "FeatureGate"})


TREES = 256  # directories of namesakes taken as other clusters' objects, at most


class Registry:
    """The objects of one cluster seen so far, in input order. ``together(file, other)``: whether two files are
    taken as one cluster's (``model.run.near`` outside a declared cluster); a workload or SR-IOV object named
    like one in a file apart from every earlier definition's is another cluster's: both are checked (as any two
    definitions of those kinds are), and neither is reported as a duplicate. Node-side kinds (FIRST_ONLY) keep
    one definition per name whatever the distance: the run looks them up by name (a topology's kubeletConfig,
    the simulation's pools), and two would mix two clusters' nodes."""

    def __init__(self, together: Callable[[str, str], bool] = lambda file, other: True) -> None:
        self.together = together
        self.first: dict[tuple[str, str, str, str], dict[str, ObjectIdentity]] = {}
        self.repeats: list[Hit] = []
        self.dropped: list[tuple[str, Span]] = []  # (file, document) of the repeats no check looks at
        # (file, document) of an object checked, and of an identical copy of it merged into it
        self.twins: list[tuple[str, Span, str, Span]] = []
        self.decided: dict[int, bool] = {}  # one decision per document, however many views it gave

    def admit(self, identity: ObjectIdentity | None) -> bool:
        """True when the object takes part in the checks: new, or a different definition of a kind whose
        definitions are all kept. A repeat with other content is recorded once as a duplicate."""
        if identity is None:
            return True
        if id(identity) in self.decided:
            return self.decided[id(identity)]
        earlier = self.first.setdefault(identity.key, {})  # by directory: one definition stands for its directory
        directory = os.path.dirname(identity.file)
        first = earlier.get(directory)
        if first is None and earlier and identity.key[1] in FIRST_ONLY:
            # pools, kubelet configurations and hardware are looked up by name across the run (a topology's
            # kubeletConfig, the simulation's pools): one definition of a name, wherever the other is
            first = next(iter(earlier.values()))
        elif first is None:
            # past TREES directories, the first definition stands for all (no scan of thousands of namesakes)
            first = (next(iter(earlier.values())) if len(earlier) >= TREES else
                     next((e for e in earlier.values() if self.together(e.file, identity.file)), None))
        if first is None:
            earlier[directory] = identity
            kept = True
        elif first.digest == identity.digest:
            kept = False  # the same object again: merged silently
            self.twins.append((first.file, first.document, identity.file, identity.document))
        else:
            self.repeats.append(_duplicate(first, identity))
            kept = identity.key[1] not in FIRST_ONLY
        self.decided[id(identity)] = kept
        if not kept:
            self.dropped.append((identity.file, identity.document))
        return kept

    def close(self) -> None:
        """Every object is admitted: only ``repeats`` and ``dropped`` are asked for from here on (a streamed run
        lets the definitions go before it checks its node side)."""
        self.first, self.decided = {}, {}


def _duplicate(first: ObjectIdentity, repeat: ObjectIdentity) -> Hit:
    group, kind, namespace, name = repeat.key
    label = ObjectRef(group, kind, name, namespace or None).label()
    used = ("numalint uses the first definition" if kind in FIRST_ONLY else
            "numalint checks both, but only one of them can exist in a cluster")
    message = f"{label} is also defined in {first.file}:{first.span.line} with different content; {used}"
    if os.path.dirname(first.file) != os.path.dirname(repeat.file):
        message += (" (if the two files describe different clusters, declare them under `clusters:` in "
                    ".numalint.yaml)")
    return Hit(message, repeat.file, repeat.span, ObjectRef(group, kind, name, namespace or None))
