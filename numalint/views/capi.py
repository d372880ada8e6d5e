"""The kubelet of a Cluster API worker pool: the kubelet flags of a ``KubeadmConfigTemplate``
(``bootstrap.cluster.x-k8s.io``) over the kubelet's defaults.

A MachineDeployment's machines bootstrap with ``kubeadm join`` from the template's ``joinConfiguration``; kubeadm
passes ``nodeRegistration.kubeletExtraArgs`` (a mapping, or v1beta2's list of name and value) on the kubelet's
command line, and the kubelet's configuration comes from the cluster's kubelet-config ConfigMap, which Cluster API
fills with kubeadm's defaults (no CPU, topology or memory manager setting, no reservation, the default eviction).
So the kubelet runs the flags over the defaults. Only a template whose flags ask something of the CPU, Topology
or Memory Manager is judged (most set ``cloud-provider`` alone); one whose ``joinConfiguration.patches`` may patch
the KubeletConfiguration, whose ``config`` or ``config-dir`` flag names other configuration, whose flags are left
for clusterctl or Helm to fill in, or which a ClusterClass of the same file patches, is not (it is said).
"""

from __future__ import annotations

from typing import NamedTuple

from numalint.k8s.kinds import KUBELET_API_VERSION
from numalint.reading.locate import get
from numalint.reading.sources import Document, filled_in_later
from numalint.reading.yamlpos import Span, YMap
from numalint.views.kubelet_flags import FLAGS, Flag, Refused, parsed_flags, written_args

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


def capi_kubelet(doc: Document, refused: list[Refused], unjudged: list[Unjudged],
                 class_patched: bool = False) -> CapiKubelet | None:
    """The kubelet of ``doc``'s machines when its flags ask for alignment (see the module docstring); ``refused``
    gets the flags the kubelet would not parse, ``unjudged`` why a template that asks is not judged.
    ``class_patched``: a ClusterClass in the same file patches kubeletExtraArgs."""
    join = get(doc.root, ("spec", "template", "spec", "joinConfiguration"))
    registration = join.get("nodeRegistration") if isinstance(join, YMap) else None
    if not isinstance(join, YMap) or not isinstance(registration, YMap) or "kubeletExtraArgs" not in registration:
        return None
    written = written_args(registration["kubeletExtraArgs"])
    aligning = any(FLAGS[name][0] in ALIGNING for name, _, _, _ in written if name in FLAGS)
    templated = next((value_span for _, text, _, value_span in written if filled_in_later(text)), None)
    if templated is not None:  # clusterctl's ${VAR}, Helm: the values are not known yet
        if aligning:
            unjudged.append(Unjudged(templated, "its kubeletExtraArgs are left for a template tool to fill in "
                                                "(${VAR}, {{ }}); check the rendered objects instead, e.g. "
                                                "`clusterctl generate cluster NAME ... | numalint check -`"))
        return None
    flags = parsed_flags(doc, written, refused)
    if not aligning:
        return None
    elsewhere = next(((name, key) for name, _, key, _ in written if name in ("config", "config-dir")), None)
    if elsewhere is not None:
        unjudged.append(Unjudged(elsewhere[1], f"its {elsewhere[0]} flag names kubelet configuration numalint does "
                                               "not see"))
        return None
    if join.get("patches") is not None:
        unjudged.append(Unjudged(join.key_spans["patches"], "joinConfiguration.patches may patch its "
                                                            "KubeletConfiguration, which numalint does not read"))
        return None
    if class_patched:
        unjudged.append(Unjudged(registration.key_spans["kubeletExtraArgs"], "a ClusterClass of the same file may "
                                 "patch its kubeletExtraArgs, which numalint does not apply"))
        return None
    at = registration.key_spans["kubeletExtraArgs"]
    root = YMap()
    root.span = doc.span  # an insertion into it lands in the template: its fixes are made by hand
    for key, value in (("apiVersion", KUBELET_API_VERSION), ("kind", "KubeletConfiguration")):
        root[key] = value
        root.key_spans[key] = root.value_spans[key] = at
    return CapiKubelet(Document(doc.file, doc.index, root, doc.span), flags)
