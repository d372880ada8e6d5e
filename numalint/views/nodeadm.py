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

A Karpenter ``EC2NodeClass`` (``karpenter.k8s.aws/v1``) carries NodeConfigs in ``spec.userData``: a NodeConfig
written as it is, or the ``application/node.eks.aws`` parts of MIME multipart user data (aws/karpenter-provider-aws
pkg/providers/amifamily/bootstrap/nodeadm.go). nodeadm merges the NodeConfigs of the user data in order (a later
value wins, flags add up), and Karpenter puts its own NodeConfig last, whose kubelet configuration holds what the
class's ``spec.kubelet`` writes (kubeReserved, systemReserved, evictionHard, maxPods, ...): that wins. Last since
Karpenter 1.0 (aws/karpenter-provider-aws#6664, before the v1 API was released; Karpenter's part came first
before it, when classes were v1beta1, which numalint does not read).
"""

from __future__ import annotations

import binascii
import re
import zlib
from typing import Any

from numalint.k8s.kinds import NODE_CONFIG, NODEADM_GROUP
from numalint.reading.locate import get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span, YMap, YSeq
from numalint.views.embedded import block_documents, located
from numalint.views.flag_kubelet import ALIGNING, FlagKubelet, Unjudged, asks_alignment, flag_kubelet
from numalint.views.kubelet_flags import FLAGS, Refused, with_flags

NODE_CONFIG_PART = "application/node.eks.aws"  # the MIME type of a NodeConfig part of user data
DECODED_LIMIT = 1 << 20
_BOUNDARY = re.compile(r'boundary\s*=\s*(?:"([^"]+)"|([^";\s]+))', re.IGNORECASE)

DEFAULTS: dict[str, Any] = {
    "evictionHard": {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"},
    "featureGates": {"RotateKubeletServerCertificate": True},
    "kubeReserved": {"ephemeral-storage": "1Gi"},  # and cpu and memory, computed on the node (_computed)
    "systemReservedCgroup": "/system", "kubeReservedCgroup": "/runtime",
}
MEMORY_BY_INSTANCE = ("nodeadm computes kubeReserved memory from the instance type: 11Mi per pod of its max pods (from "
                      "its network interfaces, not maxPods) + 255Mi")
MEMORY_BY_EXPRESSION = ("nodeadm computes kubeReserved memory from spec.kubelet.maxPodsExpression: 11Mi per pod of its "
                        "result on the instance + 255Mi")


def nodeadm_kubelet(doc: Document, refused: list[Refused], unjudged: list[Unjudged]) -> FlagKubelet | None:
    """The kubelet of ``doc``'s nodes when its configuration or flags ask for alignment (see the module docstring);
    ``refused`` gets the flags the kubelet would not parse, ``unjudged`` why one that asks is not judged."""
    kubelet = get(doc.root, ("spec", "kubelet"))
    if not isinstance(kubelet, YMap):
        return None
    configs, written, memory = _settings([doc.root])
    return _nodeadm_kubelet(doc, written, _at(doc, kubelet), refused, unjudged, "NodeConfig", configs, memory)


def node_class_kubelet(doc: Document, lines: list[str], refused: list[Refused], unjudged: list[Unjudged]
                       ) -> FlagKubelet | None:
    """The kubelet of a Karpenter EC2NodeClass's nodes: the NodeConfigs of its ``spec.userData`` (a literal block
    scalar, ``|``: only that form maps line for line onto the file), then its ``spec.kubelet``; None when the user
    data holds no NodeConfig or nothing asks for alignment."""
    spec = doc.root.get("spec")
    if not isinstance(spec, YMap) or not isinstance(spec.get("userData"), str):
        return None
    text: str = spec["userData"]
    if "node.eks.aws" not in text:  # the apiVersion of a NodeConfig, or the MIME type of an (encoded) one
        return None
    at = spec.key_spans["userData"]
    parts = _mime_parts(text, unjudged, at) if _is_mime(text) else (text, [])
    if parts is None:
        return None
    value, encoded = parts
    roots = [root for root, _ in block_documents(lines, spec.value_spans["userData"], at.col, value)
             if isinstance(root, YMap) and root.get("kind") == NODE_CONFIG
             and str(root.get("apiVersion") or "").startswith(NODEADM_GROUP)]
    configs, written, memory = _settings(roots)
    if encoded:  # settings numalint cannot locate: said when anything of the node class asks for alignment
        if asks_alignment(written) or any(field in config for config in configs for field in ALIGNING) or any(
                field in part for part in encoded for field in ALIGNING):
            unjudged.append(Unjudged(at, "a NodeConfig part of its user data that sets kubelet settings is encoded "
                                         "(base64, gzip), so its settings cannot be located"))
        return None
    if not roots:
        if NODE_CONFIG in value and any(field in value for field in ALIGNING):
            unjudged.append(Unjudged(at, "its user data holds a NodeConfig numalint cannot read in place (a folded "
                                         "or quoted scalar, or YAML that does not parse); write it as a literal "
                                         "block (userData: |)"))
        return None
    karpenter = spec.get("kubelet")
    if isinstance(karpenter, YMap):
        configs.append(karpenter)  # Karpenter's own NodeConfig comes last: it wins
    return _nodeadm_kubelet(doc, written, at, refused, unjudged, "EC2NodeClass", configs, memory)


def _nodeadm_kubelet(doc: Document, written: list[tuple[str, str, Span, Span]], at: Span, refused: list[Refused],
                     unjudged: list[Unjudged], what: str, configs: list[YMap], memory: str | None
                     ) -> FlagKubelet | None:
    """The kubelet of ``configs`` and ``written`` flags over nodeadm's defaults (``views.flag_kubelet``), with the
    kubeReserved nodeadm computes on the node that they leave to it."""
    found = flag_kubelet(doc, written, at, refused, unjudged, f"check the {what} once it is filled in",
                         defaults=DEFAULTS, configs=configs)
    return found._replace(computed=_computed(found, memory)) if found is not None else None


def _settings(roots: list[YMap]) -> tuple[list[YMap], list[tuple[str, str, Span, Span]], str | None]:
    """The kubelet configurations of NodeConfigs (merged in order), their flags (added up: nodeadm joins every item
    with spaces on one command line) and how nodeadm computes kubeReserved memory (None: a constant
    maxPodsExpression settles it)."""
    configs: list[YMap] = []
    items: list[tuple[Any, Span]] = []
    expression: tuple[str, Span] | None = None  # the last one written: nodeadm merges the NodeConfigs in order
    for root in roots:
        kubelet = get(root, ("spec", "kubelet"))
        if not isinstance(kubelet, YMap):
            continue
        written = kubelet.get("maxPodsExpression")
        if written is not None and not isinstance(written, (YMap, YSeq)):
            expression = (str(written).strip(), kubelet.value_spans["maxPodsExpression"])
        if isinstance(kubelet.get("config"), YMap):
            configs.append(kubelet["config"])
        flags = kubelet.get("flags")
        if isinstance(flags, YSeq):
            items += zip(flags, flags.item_spans, strict=True)
    if expression is None:
        return configs, _written(items), MEMORY_BY_INSTANCE
    pods, span = expression
    if re.fullmatch(r"[0-9]{1,9}", pods) and int(pods) > 0:  # a constant (nodeadm ignores a result of 0)
        # nodeadm's own configuration, under every drop-in, located where the expression is written
        return [located({"kubeReserved": {"memory": f"{11 * int(pods) + 255}Mi"}}, span), *configs], \
            _written(items), None
    return configs, _written(items), MEMORY_BY_EXPRESSION


def _decoded(body: str) -> str:
    """An encoded part's text: base64, then gzip when it is; at most DECODED_LIMIT bytes (a hostile part must not
    expand unbounded); empty when it does not decode."""
    try:
        data = binascii.a2b_base64("".join(body.split()))
        if data[:2] == b"\x1f\x8b":
            data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, DECODED_LIMIT)
    except (binascii.Error, zlib.error, ValueError):
        return ""
    return data[:DECODED_LIMIT].decode("utf-8", "replace")


def _mentions_kubelet_settings(text: str) -> bool:
    """Whether ``text`` (encoded NodeConfig parts, or user data numalint cannot locate) names a kubelet field or flag
    numalint reads, or maxPodsExpression (a substring test: what it sets is not known)."""
    return "maxPodsExpression" in text or any(name in text or field in text for name, (field, _) in FLAGS.items())


def _is_mime(text: str) -> bool:
    """Karpenter's test: user data that starts with a MIME header, as written, is MIME multipart."""
    return text.lstrip().startswith(("MIME-Version:", "Content-Type:"))


def _mime_parts(text: str, unjudged: list[Unjudged], at: Span) -> tuple[str, list[str]] | None:
    """``text`` with every line blanked but the bodies of its NodeConfig parts (their lines stay where they are, so
    the parsed documents are located in the file; each boundary line a ``---``), and the decoded text of the encoded
    (base64, gzip) NodeConfig parts that name kubelet settings; None when the boundary is not found."""
    lines = text.split("\n")
    header_end = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    found = _BOUNDARY.search(" ".join(lines[:header_end]))
    if found is None:
        unjudged.append(Unjudged(at, "its MIME user data names no boundary numalint can find"))
        return None
    boundary = "--" + (found.group(1) or found.group(2))
    kept = [""] * len(lines)
    encoded: list[str] = []
    starts = [i for i, line in enumerate(lines) if line.rstrip() in (boundary, boundary + "--")]
    for begin, end in zip(starts, starts[1:], strict=False):
        blank = next((i for i in range(begin + 1, end) if not lines[i].strip()), end)
        headers = " ".join(lines[begin + 1:blank]).lower()
        if NODE_CONFIG_PART not in headers:
            continue
        if "base64" in headers or "gzip" in headers:
            decoded = _decoded("\n".join(lines[blank + 1:end]))
            if _mentions_kubelet_settings(decoded):  # else the cluster's endpoint and such: nothing of the kubelet's
                encoded.append(decoded)
            continue
        kept[begin] = "---"  # each part a document of its own, whether or not it starts with ---
        kept[blank + 1:end] = lines[blank + 1:end]
    return "\n".join(kept), encoded


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


def _computed(kubelet: FlagKubelet, memory: str | None) -> dict[str, str]:
    """The kubeReserved resources nodeadm computes that the configuration and the flags leave to it, and how
    (``memory`` None: a constant maxPodsExpression settled it): none when the configuration removed the whole map
    (``kubeReserved: null``, as the kubelet merges a drop-in from Kubernetes 1.32; numalint judges every NodeConfig
    so) or a ``--kube-reserved`` flag replaced it."""
    kube_reserved = with_flags(kubelet.document, kubelet.flags).root.get("kubeReserved")
    if not isinstance(kube_reserved, dict):
        return {}
    how = {"cpu": "nodeadm computes kubeReserved cpu from the instance's cores"}
    if memory is not None:
        how["memory"] = memory
    return {resource: text for resource, text in how.items() if resource not in kube_reserved}


def _written(items: list[tuple[Any, Span]]) -> list[tuple[str, str, Span, Span]]:
    """(flag, value, span, span) of the kubelet's arguments from ``spec.kubelet.flags`` items: nodeadm joins them
    with spaces and systemd splits them again at whitespace, so an item may hold several flags and a flag's value
    may be the next word (``--name value``); ``--name=`` gives the empty value. A word without ``=`` is a value
    only after a flag numalint models (the others may be booleans); each flag is located at its item."""
    words = [(word, span) for item, span in items if isinstance(item, (str, int)) and not isinstance(item, bool)
             for word in str(item).split()]
    found = []
    index = 0
    while index < len(words):
        word, span = words[index]
        index += 1
        if not word.startswith("-") or word.strip("-") == "":
            continue
        name, sep, value = word.lstrip("-").partition("=")
        if not sep:
            if name not in FLAGS or index >= len(words):
                continue
            value = words[index][0]
            index += 1
        found.append((name, value, span, span))
    return found
