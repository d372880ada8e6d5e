"""The kubelet of an Amazon EKS node that nodeadm bootstraps (Amazon Linux 2023 AMIs): a ``NodeConfig``
(``node.eks.aws/v1alpha1``) whose ``spec.kubelet`` goes over nodeadm's own kubelet configuration.

nodeadm writes the kubelet a configuration of its defaults (awslabs/amazon-eks-ami nodeadm/internal/kubelet/
config.go): evictionHard ``memory.available`` 100Mi, ``nodefs.available`` 10%, ``nodefs.inodesFree`` 5%;
``systemReservedCgroup`` /system and ``kubeReservedCgroup`` /runtime; kubeReserved ``ephemeral-storage`` 1Gi, and cpu
and memory computed from the instance: cpu from its cores (``views.kubelet.nodeadm_kube_reserved_cpu``), memory
``11 * maxPods + 255`` MiB from the max pods of its instance type's network interfaces (not the configuration's
maxPods), a quantity no file of a repository tells. It sets no systemReserved and no CPU, Topology or Memory
Manager setting. ``spec.kubelet.config`` goes over that as a drop-in of ``config.json.d`` (Kubernetes 1.29 on, every
version in standard support), which the kubelet merges as an RFC 7386 JSON merge patch: a map merges key by key, a
list or value replaces, ``null`` removes; ``spec.kubelet.flags`` come after nodeadm's flags on the command line, and
flags win over the configuration. A NodeConfig is judged only when it asks something of the CPU, Topology or
Memory Manager; its fixes are made by hand.
"""

from __future__ import annotations

from typing import Any

from numalint.k8s.kinds import NODE_CONFIG, NODEADM_GROUP
from numalint.reading.locate import get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span, YMap, YSeq
from numalint.views.flag_kubelet import FlagKubelet, Unjudged, flag_kubelet
from numalint.views.kubelet_flags import Refused

DEFAULTS: dict[str, Any] = {
    "evictionHard": {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"},
    "featureGates": {"RotateKubeletServerCertificate": True},
    "kubeReserved": {"ephemeral-storage": "1Gi"},  # and cpu and memory, computed on the node (COMPUTED)
    "systemReservedCgroup": "/system", "kubeReservedCgroup": "/runtime",
}
COMPUTED = ("cpu", "memory")  # the kubeReserved resources nodeadm computes from the instance


def is_node_config(doc: Document) -> bool:
    return doc.kind == NODE_CONFIG and doc.api_version.startswith(NODEADM_GROUP)


def nodeadm_kubelet(doc: Document, refused: list[Refused], unjudged: list[Unjudged]) -> FlagKubelet | None:
    """The kubelet of ``doc``'s nodes when its configuration or flags ask for alignment (see the module docstring);
    ``refused`` gets the flags the kubelet would not parse, ``unjudged`` why one that asks is not judged."""
    kubelet = get(doc.root, ("spec", "kubelet"))
    if not isinstance(kubelet, YMap):
        return None
    config = kubelet.get("config")
    flags = kubelet.get("flags")
    written = _written(flags, kubelet.value_spans["flags"]) if "flags" in kubelet else []
    at = _at(doc, kubelet)
    return flag_kubelet(doc, written, at, refused, unjudged, "check the NodeConfig once it is filled in",
                        defaults=DEFAULTS, config=config if isinstance(config, YMap) else None)


def defaulted(document: Document) -> list[str]:
    """The fields of a NodeConfig's kubelet configuration that are nodeadm's own, not written in the NodeConfig
    (located where nodeadm's settings apply, as its ``kind``)."""
    root = document.root
    at = root.value_spans.get("kind")
    return [key for key in DEFAULTS if key in root and root.value_spans.get(key) == at]


def _at(doc: Document, kubelet: YMap) -> Span:
    """Where ``spec.kubelet`` is written: nodeadm's own settings apply there."""
    spec = doc.root.get("spec")
    return spec.key_spans["kubelet"] if isinstance(spec, YMap) and "kubelet" in spec.key_spans else kubelet.span


def computed_reserved(kube_reserved: Any) -> tuple[str, ...]:
    """The kubeReserved resources nodeadm computes that the configuration leaves to it: none when it removed the
    whole map (``kubeReserved: null``, which the merge patch honours)."""
    return tuple(r for r in COMPUTED if r not in kube_reserved) if isinstance(kube_reserved, dict) else ()


def _written(value: Any, span: Span) -> list[tuple[str, str, Span, Span]]:
    """(flag, value, span, span) of each item of ``spec.kubelet.flags``: ``--name=value``, or ``--name value`` (nodeadm
    joins the items with spaces on the kubelet's command line); an item of one word is a flag numalint does not
    model (a boolean)."""
    items = list(zip(value, value.item_spans, strict=True)) if isinstance(value, YSeq) else []
    found = []
    for item, where in items:
        if not isinstance(item, str):
            continue
        text = item.strip()
        name, sep, rest = text.partition("=")
        if not sep or " " in name:
            name, _, rest = text.partition(" ")
        if name.startswith("-") and rest:
            found.append((name.lstrip("-"), rest.strip(), where, where))
    return found
