"""The kubelet of a Cluster API worker pool: the kubelet flags of a ``KubeadmConfigTemplate``
(``bootstrap.cluster.x-k8s.io``) over the kubelet's defaults.

A MachineDeployment's machines bootstrap with ``kubeadm join`` from the template's ``joinConfiguration``; kubeadm
passes ``nodeRegistration.kubeletExtraArgs`` (a mapping, or v1beta2's list of name and value) on the kubelet's
command line, and the kubelet's configuration comes from the cluster's kubelet-config ConfigMap, which Cluster API
fills with kubeadm's defaults (no CPU, topology or memory manager setting, no reservation, the default eviction).
So the kubelet runs the flags over the defaults. Only a template whose flags ask something of the CPU, Topology
or Memory Manager is judged (most set ``cloud-provider`` alone); one whose ``joinConfiguration.patches`` may patch
the KubeletConfiguration, or whose ``config`` flag names another configuration file, is not (it is said).
"""

from __future__ import annotations

from typing import NamedTuple

from numalint.reading.locate import get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span, YMap
from numalint.views.kubelet_flags import Flag, Refused, parsed_flags, written_args

# the fields whose flags say the template means the kubelet to align (max-pods alone does not)
ALIGNING = frozenset({"cpuManagerPolicy", "cpuManagerPolicyOptions", "topologyManagerPolicy", "topologyManagerScope",
                      "topologyManagerPolicyOptions", "memoryManagerPolicy", "reservedMemory", "reservedSystemCPUs"})


class CapiKubelet(NamedTuple):
    """The kubelet of a template's machines: a KubeletConfiguration of the defaults (located at the flags) and the
    flags over it."""

    document: Document
    flags: list[Flag]


class Unjudged(NamedTuple):
    span: Span
    why: str


def capi_kubelet(doc: Document, refused: list[Refused], unjudged: list[Unjudged]) -> CapiKubelet | None:
    """The kubelet of ``doc``'s machines when its flags ask for alignment (see the module docstring); ``refused``
    gets the flags the kubelet would not parse, ``unjudged`` why a template that asks is not judged."""
    join = get(doc.root, ("spec", "template", "spec", "joinConfiguration"))
    registration = join.get("nodeRegistration") if isinstance(join, YMap) else None
    if not isinstance(join, YMap) or not isinstance(registration, YMap) or "kubeletExtraArgs" not in registration:
        return None
    written = written_args(registration["kubeletExtraArgs"])
    flags = parsed_flags(doc, written, refused)
    if not any(flag.field in ALIGNING for flag in flags):
        return None
    other = next(((name, key) for name, _, key, _ in written if name == "config"), None)
    if other is not None:
        unjudged.append(Unjudged(other[1], "its config flag names a kubelet configuration file numalint does not see"))
        return None
    if join.get("patches") is not None:
        unjudged.append(Unjudged(join.key_spans["patches"], "joinConfiguration.patches may patch its "
                                                            "KubeletConfiguration, which numalint does not read"))
        return None
    at = registration.key_spans["kubeletExtraArgs"]
    root = YMap()
    root.span = doc.span  # an insertion into it lands in the template: its fixes are made by hand
    for key, value in (("apiVersion", "kubelet.config.k8s.io/v1beta1"), ("kind", "KubeletConfiguration")):
        root[key] = value
        root.key_spans[key] = root.value_spans[key] = at
    return CapiKubelet(Document(doc.file, doc.index, root, doc.span), flags)
