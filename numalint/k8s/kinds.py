"""Which kinds numalint reads, and where each keeps its pod template."""

from __future__ import annotations

# kind -> path of the pod spec inside the object
POD_SPEC_PATHS: dict[str, tuple[str, ...]] = {
    "Pod": ("spec",),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "DeploymentConfig": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "PodTemplate": ("template", "spec"),
}

KUBELET_CONFIGURATION = "KubeletConfiguration"
KUBELET_CONFIG = "KubeletConfig"
PERFORMANCE_PROFILE = "PerformanceProfile"
# a PerformanceProfile's kubelet settings beyond its spec: JSON the Node Tuning Operator starts from
KUBELET_SNIPPET = ("metadata", "annotations", "kubeletconfig.experimental")
NODE_TOPOLOGY = "NodeTopology"
NODE_RESOURCE_TOPOLOGY = "NodeResourceTopology"
SRIOV_POLICY = "SriovNetworkNodePolicy"
# the operator's configuration: whether its webhook validates policies (enableOperatorWebhook)
SRIOV_OPERATOR_CONFIG = "SriovOperatorConfig"
# the SR-IOV operator renders each of these into a NetworkAttachmentDefinition named like the object
SRIOV_NETWORK_KINDS = ("SriovNetwork", "SriovIBNetwork", "OVSNetwork")
# the NVIDIA network operator (mellanox.com/v1alpha1) renders each of these into a NetworkAttachmentDefinition
# named like the object, for a device resource of its own configuration (NicClusterPolicy)
FOREIGN_NETWORK_KINDS = ("HostDeviceNetwork", "MacvlanNetwork", "IPoIBNetwork")
# the Multus annotation naming a pod's additional networks
NETWORKS_ANNOTATION = "k8s.v1.cni.cncf.io/networks"
# Multus 2's key for it (multus-cni v2 types.go); Multus 3 and later read only NETWORKS_ANNOTATION
LEGACY_NETWORKS_ANNOTATION = "kubernetes.v1.cni.cncf.io/networks"
FEATURE_GATE = "FeatureGate"  # config.openshift.io/v1: the cluster's feature set (OpenShift)
# KubeVirt instancetypes: the vCPUs, memory and placement a VirtualMachine names instead of writing them
INSTANCETYPE_KINDS = ("VirtualMachineClusterInstancetype", "VirtualMachineInstancetype")

OTHER_KINDS = frozenset({
    KUBELET_CONFIGURATION, KUBELET_CONFIG, SRIOV_POLICY, SRIOV_OPERATOR_CONFIG, *SRIOV_NETWORK_KINDS,
    *FOREIGN_NETWORK_KINDS, "NetworkAttachmentDefinition", "MachineConfigPool", NODE_RESOURCE_TOPOLOGY,
    NODE_TOPOLOGY, PERFORMANCE_PROFILE, FEATURE_GATE, *INSTANCETYPE_KINDS,
})
# KubeVirt kind -> path of the VMI spec inside the object
VM_SPEC_PATHS: dict[str, tuple[str, ...]] = {"VirtualMachine": ("spec", "template", "spec"),
                                              "VirtualMachineInstance": ("spec",)}
KUBEVIRT_KINDS = frozenset(VM_SPEC_PATHS)
KNOWN_KINDS = frozenset(POD_SPEC_PATHS) | OTHER_KINDS | KUBEVIRT_KINDS

# Kinds with a pod template per role (k8s/templates.py), read only in their own API group: (kind, group) -> layout
KUBEFLOW_REPLICA_SPECS = {  # Kubeflow's training jobs: kind -> the map of roles to {replicas, template}
    "PyTorchJob": "pytorchReplicaSpecs", "TFJob": "tfReplicaSpecs", "MPIJob": "mpiReplicaSpecs",
    "XGBoostJob": "xgbReplicaSpecs", "PaddleJob": "paddleReplicaSpecs", "MXJob": "mxReplicaSpecs",
    "JAXJob": "jaxReplicaSpecs",
}
RAY_KINDS = ("RayCluster", "RayJob", "RayService")
MULTI_TEMPLATE_KINDS: dict[tuple[str, str], str] = {
    **{(kind, "kubeflow.org/"): kind for kind in KUBEFLOW_REPLICA_SPECS},
    **{(kind, "ray.io/"): kind for kind in RAY_KINDS},
    ("JobSet", "jobset.x-k8s.io/"): "JobSet",
    ("LeaderWorkerSet", "leaderworkerset.x-k8s.io/"): "LeaderWorkerSet",
    ("Job", "batch.volcano.sh/"): "VolcanoJob",  # not batch/v1's Job: spec.tasks[] hold the templates
}


def layout(api_version: str, kind: str) -> str | None:
    """The layout of a kind with a pod template per role, in its own API group ("VolcanoJob" for Volcano's
    ``Job``); None for any other object."""
    return MULTI_TEMPLATE_KINDS.get((kind, api_version.rpartition("/")[0] + "/"))

# kind -> schema file in schemas/
SCHEMA_FILES: dict[str, str] = {
    "Pod": "pod.schema.json",
    "CronJob": "cronjob.schema.json",
    "PodTemplate": "podtemplate.schema.json",
    KUBELET_CONFIGURATION: "kubelet-config.schema.json",
    KUBELET_CONFIG: "kubeletconfig.schema.json",
    "SriovNetworkNodePolicy": "sriovnetworknodepolicy.schema.json",
    "SriovNetwork": "sriovnetwork.schema.json",
    "SriovIBNetwork": "sriovibnetwork.schema.json",
    "OVSNetwork": "ovsnetwork.schema.json",
    "NetworkAttachmentDefinition": "networkattachmentdefinition.schema.json",
    "MachineConfigPool": "machineconfigpool.schema.json",
    NODE_RESOURCE_TOPOLOGY: "noderesourcetopology.schema.json",
    NODE_TOPOLOGY: "nodetopology.schema.json",
    PERFORMANCE_PROFILE: "performanceprofile.schema.json",
}
for _kind in POD_SPEC_PATHS:
    SCHEMA_FILES.setdefault(_kind, "workload.schema.json")


# the apiVersion to write for each kind numalint reads only in its own API group: another group's object of that kind
# is some other CRD (kubebuilder samples of sriovnetwork.k8s.cni.cncf.io), which no component numalint models acts on
GROUP_API_VERSIONS: dict[str, str] = {
    KUBELET_CONFIGURATION: "kubelet.config.k8s.io/v1beta1", KUBELET_CONFIG: "machineconfiguration.openshift.io/v1",
    "MachineConfigPool": "machineconfiguration.openshift.io/v1", PERFORMANCE_PROFILE: "performance.openshift.io/v2",
    **dict.fromkeys((SRIOV_POLICY, SRIOV_OPERATOR_CONFIG, *SRIOV_NETWORK_KINDS), "sriovnetwork.openshift.io/v1"),
    "NetworkAttachmentDefinition": "k8s.cni.cncf.io/v1", NODE_RESOURCE_TOPOLOGY: "topology.node.k8s.io/v1alpha2",
    NODE_TOPOLOGY: "numalint.io/v1alpha1", FEATURE_GATE: "config.openshift.io/v1",
    **dict.fromkeys(KUBEVIRT_KINDS, "kubevirt.io/v1"),
    **dict.fromkeys(INSTANCETYPE_KINDS, "instancetype.kubevirt.io/v1beta1"),
    **dict.fromkeys(FOREIGN_NETWORK_KINDS, "mellanox.com/v1alpha1"),
}
# kind -> the API group (with its "/") it is read in
KIND_GROUPS = {kind: api_version.rpartition("/")[0] + "/" for kind, api_version in GROUP_API_VERSIONS.items()}

# the apiVersion to write for each kind numalint reads that the core API group ("v1", no group) does not serve:
# written with a core apiVersion, the object is refused ("no matches for kind"), and numalint reads it as nothing.
# The workload kinds are read in any group (an operator's own Deployment-like kinds keep the same pod template)
HOME_API_VERSIONS: dict[str, str] = {
    **dict.fromkeys(("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"), "apps/v1"),
    "Job": "batch/v1", "CronJob": "batch/v1", "DeploymentConfig": "apps.openshift.io/v1", **GROUP_API_VERSIONS,
}


def is_known(api_version: str, kind: str) -> bool:
    """A document numalint checks, of the API group its kind belongs to (KubeletConfiguration: the kubelet's)."""
    group = KIND_GROUPS.get(kind)
    if group is not None:
        return api_version.startswith(group)
    return layout(api_version, kind) is not None or (kind in KNOWN_KINDS and bool(api_version))


# kubeadm's kinds whose nodeRegistration.kubeletExtraArgs set kubelet flags (views.kubelet_flags), the first with
# flags wins
KUBEADM_GROUP = "kubeadm.k8s.io/"
KUBEADM_NODE_KINDS = ("JoinConfiguration", "InitConfiguration")
KUBELET_API_VERSION = "kubelet.config.k8s.io/v1beta1"  # the KubeletConfiguration kubeadm, kind and Cluster API write
KIND_CLUSTER_GROUP = "kind.x-k8s.io/"  # kind's cluster configuration (views.kind_cluster)
CAPI_BOOTSTRAP_GROUP = "bootstrap.cluster.x-k8s.io/"  # Cluster API's KubeadmConfigTemplate (views.capi)
CAPI_CONFIG_TEMPLATE = "KubeadmConfigTemplate"
NODEADM_GROUP = "node.eks.aws/"  # Amazon EKS nodeadm's NodeConfig (views.nodeadm)
NODE_CONFIG = "NodeConfig"
KARPENTER_NODE_CLASS = ("karpenter.k8s.aws/v1", "EC2NodeClass")  # its userData may carry NodeConfigs

# every kind numalint reads in some API group (``reading.sources._wanted``): a kustomize patch of any other kind
# (a MachineConfig, a Service) changes nothing it judges
READ_KINDS = KNOWN_KINDS | {kind for kind, _group in MULTI_TEMPLATE_KINDS} | frozenset({
    "List", "ConfigMap", *KUBEADM_NODE_KINDS, "Cluster", CAPI_CONFIG_TEMPLATE, NODE_CONFIG, KARPENTER_NODE_CLASS[1]})

# words one of which any file holding a document numalint reads besides workloads must contain (its kind, or what
# marks a configuration carried without one): a file with none of them holds workloads and objects numalint never
# reads, and a run of many files checks it as a stream (``numalint.checks.streamed``), which makes sure of it once read
NODE_MARKERS = tuple(sorted({*(OTHER_KINDS - {KUBELET_CONFIGURATION}), "VirtualMachine", *KUBEADM_NODE_KINDS,
                             KIND_CLUSTER_GROUP, CAPI_CONFIG_TEMPLATE, NODE_CONFIG, NODEADM_GROUP,
                             KARPENTER_NODE_CLASS[1], "kubelet-arg", "kubeletExtraArgs"}))
