"""Does a workload ask for NUMA-aligned CPUs and memory? Decided from evidence in the workload and the run,
never from the node alone: an infrastructure DaemonSet on a static-CPU-manager node asks for nothing.

The Topology Manager aligns devices for pods of every QoS class (the device manager gives hints whatever
the QoS), so a device alone asks for nothing that Guaranteed QoS would add: a BestEffort GPU smoke test is
fine. Evidence is a data plane (a /dev/vfio volume); hugepages (requested or mapped by a volume) in a Guaranteed
pod, or together with a whole cpu limit in some container, a NUMA-attached device, or a pool whose kubelet runs
the Static memory manager, the only thing that pins them to a NUMA node; whole exclusive CPUs asked by one
container next to a Burstable one; or a NUMA-attached device (declared on the pool's topology, an SR-IOV VF pool
that keeps topology, a well-known device-plugin prefix) or SR-IOV network together with whole CPUs requested.
Hugepages in a Burstable pod alone are no evidence: a database maps them to spare the TLB, wherever they are
(the documentation's own hugepages example is such a pod)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from numalint.analysis import Analysis
from numalint.model.sriov import NETWORKS_ANNOTATION, parse_networks
from numalint.views.workloads import PodView, crio_tuning, is_extended, is_hugepages

if TYPE_CHECKING:
    from numalint.views.kubelet import KubeletProfile

# device-plugin resources of PCIe devices, which the device plugin reports with their NUMA node
TOPOLOGY_PREFIXES = (
    "nvidia.com/gpu", "nvidia.com/mig-", "amd.com/gpu", "amd.com/xilinx", "xilinx.com/", "habana.ai/",
    "intel.com/", "qat.intel.com/", "dsa.intel.com/", "iaa.intel.com/", "dlb.intel.com/", "fpga.intel.com/",
    "openshift.io/", "mellanox.com/", "nvidia.com/rdma", "rdma/", "aws.amazon.com/neuron", "qualcomm.com/",
)
# resources with no NUMA topology: enclave memory, host device nodes, integrated graphics
NO_TOPOLOGY_PREFIXES = (
    "sgx.intel.com/", "devices.kubevirt.io/", "squat.ai/", "smarter-devices/", "github.com/fuse",
    "nvidia.com/gpu.shared", "kubernetes.io/", "k8s.io/",
)


@dataclass(frozen=True)
class Intent:
    reason: str  # why the workload asks for alignment, for messages
    certain: bool  # False: only resources numalint cannot place (report at info level)
    tuning: bool = False  # only CRI-O's CPU tuning annotations, which ask exclusive CPUs of some container


def alignment_intent(analysis: Analysis, pod: PodView) -> Intent | None:
    """Why this workload asks for NUMA alignment, or None when nothing says it does: what it asks of the node
    first, then CRI-O's CPU tuning annotations (what they act on is said less concretely)."""
    found = _asked(analysis, pod)
    if found is not None and found.certain or pod.declared_intent is not None:
        return found
    tuned = crio_tuning(pod.annotations)  # for the pod or one container, to a value CRI-O acts on
    if tuned:
        written = (f'{", ".join(tuned)}: "disable"' if all(pod.annotations[key] == "disable" for key in tuned) else
                   ", ".join(f'{key}: "{pod.annotations[key]}"' for key in tuned))
        return Intent(f"it sets {written}, which CRI-O applies only to the exclusive CPUs of a Guaranteed pod", True,
                      tuning=True)
    return found


def _asked(analysis: Analysis, pod: PodView) -> Intent | None:
    if pod.declared_intent:  # a KubeVirt VM asking for dedicated CPUs or NUMA passthrough
        return Intent(pod.declared_intent, True)
    if pod.declared_intent is not None:  # a VM with hugepages alone: only as a Guaranteed pod of them would
        huge = sorted(r for r in pod.resource_names() if is_hugepages(r))
        return Intent(f"it requests {', '.join(huge)}", True) if huge and pod.qos() == "Guaranteed" else None
    if pod.asked_alignment:
        return Intent(pod.asked_alignment, True)
    if pod.data_plane:
        return Intent(f"it runs a data plane ({pod.data_plane})", True)
    names = pod.resource_names()
    whole = _whole_cpus(analysis, pod)
    floating = _floating_resources(analysis)
    huge = sorted(r for r in names if is_hugepages(r))
    # hugepages an EFA device needs (AWS asks them of every pod using one) say nothing of where its CPUs should be
    if (huge or pod.hugepage_volume) and not names & HUGEPAGE_DEVICES:
        what = f"it requests {', '.join(huge)}" if huge else f"it maps hugepages ({pod.hugepage_volume})"
        if pod.qos() == "Guaranteed" or _exclusive_cpus(pod) or _pinned_memory(analysis, pod):
            return Intent(what, True)
        devices = _devices(analysis, pod, names, floating)[0]
        if devices:
            return Intent(f"{what} with {', '.join(devices)}", True)
    exclusive = _exclusive_next_to_burstable(pod)
    if exclusive:
        return Intent(exclusive, True)
    if whole is None:
        return None  # devices and networks are aligned for any QoS class: nothing more was asked for
    placed, unplaceable = _devices(analysis, pod, names, floating)
    if placed:
        return Intent(f"it requests {', '.join(placed)} and {whole}", True)
    network = _aligned_network(analysis, pod, floating)
    if network:
        return Intent(f'it attaches SR-IOV network "{network}", whose VFs keep their NUMA node, and {whole}', True)
    if unplaceable:
        return Intent(f"it requests {', '.join(unplaceable)} and {whole}; numalint cannot place "
                      f"{'it' if len(unplaceable) == 1 else 'them'} on a NUMA node (no topology in the run declares "
                      "it)", False)
    return None


# devices whose driver takes hugepages in the pod whatever its placement: AWS's Elastic Fabric Adapter (libfabric's
# EFA provider allocates its buffers from the hugepage pool, ofiwg/libfabric#9739; AWS's EFA examples ask
# hugepages-2Mi of every pod that requests vpc.amazonaws.com/efa)
HUGEPAGE_DEVICES = frozenset({"vpc.amazonaws.com/efa"})


def _devices(analysis: Analysis, pod: PodView, names: Iterable[str], floating: set[str]) -> tuple[list[str], list[str]]:
    """The workload's extended resources on a NUMA node, and those numalint cannot place (sorted)."""
    placed, unplaceable = [], []
    for resource in sorted(r for r in names if is_extended(r)):
        kind = _topology(analysis, pod, resource, floating)
        if kind is True:
            placed.append(resource)
        elif kind is None:
            unplaceable.append(resource)
    return placed, unplaceable


def _exclusive_cpus(pod: PodView) -> bool:
    """A container that caps itself at whole CPUs (a whole cpu limit of at least one), as one meant for exclusive
    CPUs does, whatever its request says (a request below it is the mistake not-guaranteed reports). An integer
    request alone (a Burstable database asking for 4 CPUs, no limit) is no such sign."""
    return any(container.whole_cpu_limit() for container in pod.containers)


def _chosen_profiles(analysis: Analysis, pod: PodView) -> Iterator[KubeletProfile]:
    """The kubelets of the pools the workload asks for: a labelled pool (a PerformanceProfile's worker-cnf) counts
    only when the workload selects its nodes (one that selects no nodes lands there only by chance, which says
    nothing of what it wants); a pool of every node (no labels) counts for all."""
    asks = bool(pod.node_selector or pod.required_terms)
    return (pool.profile for pool in analysis.pools_for(pod)
            if pool.profile is not None and (asks or not pool.node_labels))


def _pinned_memory(analysis: Analysis, pod: PodView) -> bool:
    """Whether a pool the workload asks for has the Static memory manager, which pins a Guaranteed pod's memory
    and hugepages to its NUMA nodes (with any other policy, hugepages come from any NUMA node, whatever the QoS)."""
    return any(profile.memory_policy == "Static" for profile in _chosen_profiles(analysis, pod))


def _whole_cpus(analysis: Analysis, pod: PodView) -> str | None:
    """A container asking for whole CPUs: capping itself at them (an integer cpu limit of at least one), as one
    meant for exclusive CPUs does, or requesting them on a pool whose kubelet runs the static CPU manager. An
    integer request without a limit elsewhere is Burstable by design (the common sizing of a GPU training worker,
    `cpu: 1` beside its GPU on a cluster tuned for nothing), no sign of wanting exclusive CPUs (found by a
    precision review)."""
    requested = None
    for container in pod.containers:
        if container.init and not container.sidecar:
            continue  # done before the app starts: its CPUs say nothing of the app's (found by a review)
        if container.whole_cpu_limit():
            return f"{container.label} asks for {container.limits['cpu']} whole CPUs"
        cpu = container.requests.get("cpu") if "cpu" not in container.limits else None
        if requested is None and cpu is not None and cpu >= 1 and cpu.denominator == 1:
            requested = f"{container.label} asks for {cpu} whole CPUs"
    static = requested is not None and any(profile.cpu_manager_policy == "static"
                                           for profile in _chosen_profiles(analysis, pod))
    return requested if static else None


def _floating_resources(analysis: Analysis) -> set[str]:
    """SR-IOV resources all of whose policies set excludeTopology: the device plugin sends no hint."""
    known = analysis.memo.get("floating")
    if isinstance(known, set):
        return known
    by_resource: dict[str, list[bool]] = {}
    for policy in analysis.sriov.policies:
        by_resource.setdefault(policy.resource, []).append(policy.exclude_topology)
    floating = analysis.memo["floating"] = {r for r, flags in by_resource.items() if all(flags)}
    return floating


def _topology(analysis: Analysis, pod: PodView, resource: str, floating: set[str]) -> bool | None:
    """True: the resource carries a NUMA node; False: it has none; None: numalint cannot tell."""
    if resource in floating:
        return False
    for pool in analysis.pools_for(pod):
        if pool.topology is not None:
            devices = analysis.machine_of(pool).devices_of(resource)
            if devices:
                return any(d.numa is not None for d in devices)
    # a pod that selects no nodes is on no particular one of several labelled pools (one NodeResourceTopology per
    # node), yet the run's topologies tell whether its device sits on a NUMA node
    declared = _declared_devices(analysis)
    if resource in declared:
        return declared[resource]
    if resource in analysis.sriov.provided():
        return True
    if resource.startswith(NO_TOPOLOGY_PREFIXES):
        return False
    if resource.startswith(TOPOLOGY_PREFIXES):
        return True
    return None


def _declared_devices(analysis: Analysis) -> dict[str, bool]:
    """Every device resource the run's topologies declare -> whether any of them sits on a NUMA node (once per
    analysis: a run of many pools and pods stays linear)."""
    known = analysis.memo.get("declared devices")
    if isinstance(known, dict):
        return known
    declared: dict[str, bool] = {}
    for pool in analysis.pools:
        if pool.topology is not None:
            for device in analysis.machine_of(pool).devices:
                declared[device.resource] = declared.get(device.resource, False) or device.numa is not None
    analysis.memo["declared devices"] = declared
    return declared


def _aligned_network(analysis: Analysis, pod: PodView, floating: set[str]) -> str | None:
    """The first SR-IOV network the pod attaches whose VFs keep topology."""
    annotation = pod.annotations.get(NETWORKS_ANNOTATION, "")
    for namespace, name in parse_networks(annotation):
        for network in analysis.sriov.serving(name, namespace or pod.ref.namespace or None):
            resource = network.resource
            if not resource or resource in floating:
                continue
            if network.doc.kind != "NetworkAttachmentDefinition" or resource.startswith(TOPOLOGY_PREFIXES):
                return name
    return None


def _exclusive_next_to_burstable(pod: PodView) -> str | None:
    """One container asks for whole exclusive CPUs (integer cpu, requests = limits) while another keeps
    the pod out of Guaranteed QoS: the author meant exclusive CPUs and will not get them."""
    if pod.qos() == "Guaranteed" or pod.pod_resources is not None:
        return None
    for container in pod.containers:
        cpu = container.limits.get("cpu")
        if container.qos() == "Guaranteed" and cpu and cpu.denominator == 1 and not container.init:
            return f"{container.label} asks for {cpu} whole CPUs with requests equal to limits, that is exclusive CPUs"
    return None
