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

from numalint.reading.locate import get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import YMap
from numalint.views.flag_kubelet import FlagKubelet, Unjudged, asks_alignment, flag_kubelet
from numalint.views.kubelet_flags import Refused, written_args


def capi_kubelet(doc: Document, refused: list[Refused], unjudged: list[Unjudged],
                 class_patched: bool = False) -> FlagKubelet | None:
    """The kubelet of ``doc``'s machines when its flags ask for alignment (see the module docstring); ``refused``
    gets the flags the kubelet would not parse, ``unjudged`` why a template that asks is not judged.
    ``class_patched``: a ClusterClass in the same file patches kubeletExtraArgs."""
    join = get(doc.root, ("spec", "template", "spec", "joinConfiguration"))
    registration = join.get("nodeRegistration") if isinstance(join, YMap) else None
    if not isinstance(join, YMap) or not isinstance(registration, YMap) or "kubeletExtraArgs" not in registration:
        return None
    written = written_args(registration["kubeletExtraArgs"])
    at = registration.key_spans["kubeletExtraArgs"]
    elsewhere = None
    if asks_alignment(written) and join.get("patches") is not None:
        elsewhere = Unjudged(join.key_spans["patches"], "joinConfiguration.patches may patch its KubeletConfiguration, "
                                                        "which numalint does not read")
    elif asks_alignment(written) and class_patched:
        elsewhere = Unjudged(at, "a ClusterClass of the same file may patch its kubeletExtraArgs, which numalint does "
                                 "not apply")
    return flag_kubelet(doc, written, at, refused, unjudged, "check the rendered objects instead, e.g. "
                        "`clusterctl generate cluster NAME ... | numalint check -`", elsewhere=elsewhere)
