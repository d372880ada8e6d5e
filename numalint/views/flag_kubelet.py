"""A kubelet configured by command-line flags over a distribution's defaults: Cluster API's kubeadm
(``views.capi``), RKE2 and K3s (``views.rancher``), and Amazon EKS's nodeadm, whose NodeConfig may also carry a
configuration merged over them (``views.nodeadm``). Shared rules: only settings that ask something of the CPU,
Topology or Memory Manager make the kubelet worth judging (most set ``cloud-provider`` or ``max-pods`` alone); values
left for a template tool, or a ``config``/``config-dir`` flag naming configuration numalint does not see, leave it
unjudged (said); the KubeletConfiguration is the distribution's defaults, located at the flags, with the
configuration merged over them and the flags over that (``views.kubelet_flags.with_flags``), and every fix of it is
made by hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from numalint.k8s.kinds import KUBELET_API_VERSION
from numalint.reading.sources import Document, filled_in_later
from numalint.reading.yamlpos import Span, YMap, YSeq
from numalint.views.embedded import located
from numalint.views.kubelet_flags import FLAGS, Flag, Refused, parsed_flags
from numalint.views.merge_patch import merged

Written = list[tuple[str, str, Span, Span]]  # (flag, value, key span, value span), as views.kubelet_flags reads them
# the fields whose flags say the kubelet is meant to align (max-pods alone does not)
ALIGNING = frozenset({"cpuManagerPolicy", "cpuManagerPolicyOptions", "topologyManagerPolicy", "topologyManagerScope",
                      "topologyManagerPolicyOptions", "memoryManagerPolicy", "reservedMemory", "reservedSystemCPUs"})


class FlagKubelet(NamedTuple):
    """A KubeletConfiguration of the distribution's defaults (located at the flags) and the flags over it."""

    document: Document
    flags: list[Flag]
    # the reservations the distribution computes on the node that the configuration leaves to it, and how (nodeadm)
    computed: dict[str, str] | None = None


class Unjudged(NamedTuple):
    span: Span
    why: str


def asks_alignment(written: Written) -> bool:
    return any(FLAGS[name][0] in ALIGNING for name, _, _, _ in written if name in FLAGS)


def flag_kubelet(doc: Document, written: Written, at: Span, refused: list[Refused], unjudged: list[Unjudged],
                 render: str, defaults: dict[str, Any] | None = None, elsewhere: Unjudged | None = None,
                 configs: Sequence[YMap] = ()) -> FlagKubelet | None:
    """The kubelet of ``written`` flags (over ``configs``, RFC 7386 merge patches of the defaults, in order) when
    they ask for alignment, the defaults located at ``at``. ``refused`` gets the flags the kubelet would not parse;
    ``unjudged`` why a kubelet that asks is not judged: values left for a template tool (``render`` says how to
    check the rendered text instead), a ``config`` or ``config-dir`` flag, or ``elsewhere`` (the caller's reason: a
    patch numalint does not apply)."""
    aligning = asks_alignment(written) or any(key in ALIGNING for config in configs for key in config)
    templated = next((value_span for _, text, _, value_span in written if filled_in_later(text)), None) or next(
        (span for config in configs if (span := _templated(config)) is not None), None)
    if templated is not None:  # the values are not known yet
        if aligning:
            what = "settings" if configs else "flags"
            unjudged.append(Unjudged(templated, f"its kubelet {what} are left for a template tool to fill in "
                                                f"(${{VAR}}, {{{{ }}}}); {render}"))
        return None
    flags = parsed_flags(doc, written, refused)
    if not aligning:
        return None
    other = next(((name, key) for name, _, key, _ in written if name in ("config", "config-dir")), None)
    if other is not None:
        unjudged.append(Unjudged(other[1], f"its {other[0]} flag names kubelet configuration numalint does not see"))
        return None
    if elsewhere is not None:
        unjudged.append(elsewhere)
        return None
    root = YMap()
    root.span = doc.span  # an insertion into it lands in the document: its fixes are made by hand
    for key, value in {"apiVersion": KUBELET_API_VERSION, "kind": "KubeletConfiguration", **(defaults or {})}.items():
        root[key] = located(value, at)
        root.key_spans[key] = root.value_spans[key] = at
    if configs:
        if merged(root, list(configs)) is None:
            unjudged.append(Unjudged(at, "its configuration merges more keys than numalint follows (aliases)"))
            return None
        root.span = doc.span
    return FlagKubelet(Document(doc.file, doc.index, root, doc.span), flags)


def _templated(config: YMap) -> Span | None:
    """Where a string of ``config`` left for a template tool is; every shared node walked once, without recursion
    (however deep the nesting)."""
    seen: set[int] = set()
    pending: list[Any] = [config]
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        items = [(value, node.value_spans.get(key)) for key, value in node.items()] if isinstance(node, YMap) else \
            list(zip(node, node.item_spans, strict=False))
        for value, span in items:
            if isinstance(value, str) and span is not None and filled_in_later(value):
                return span
            if isinstance(value, (YMap, YSeq)):
                pending.append(value)
    return None
