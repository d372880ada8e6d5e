"""KubeVirt instancetypes: the vCPUs, memory and placement a VirtualMachine takes from ``spec.instancetype``.

A VM that names an instancetype writes no CPU or memory of its own (the VM webhook rejects requests, limits,
sockets/cores/threads and memory.guest beside one: pkg/instancetype/webhooks/vm/admitter.go); KubeVirt applies
the instancetype's ``cpu`` and ``memory`` to the VMI (pkg/instancetype/apply): ``cpu.guest`` vCPUs, with
``dedicatedCPUPlacement``, ``isolateEmulatorThread`` and ``numa`` copied when set; ``memory.guest`` with its
``hugepages``; a memory request of guest x (1 - overcommitPercent/100) only when ``overcommitPercent`` is set.
Its ``nodeSelector`` is copied when the VM has none. The kind defaults to VirtualMachineClusterInstancetype
and is matched case-insensitively; a namespaced VirtualMachineInstancetype is looked up in the VM's namespace
(pkg/instancetype/find).

An instancetype the run does not define may be one of KubeVirt's common instancetypes, which virt-operator
deploys by default since KubeVirt 1.4 (and OpenShift Virtualization 4.16): ``COMMON`` holds the cluster
instancetypes of the common-instancetypes v1.7.0 bundle. A name neither defines is not guessed at."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from numalint.k8s.kinds import INSTANCETYPE_KINDS
from numalint.k8s.quantity import try_quantity
from numalint.reading.locate import as_list, get
from numalint.reading.sources import Document

CLUSTER_KIND, NAMESPACED_KIND = INSTANCETYPE_KINDS
MAX_VCPUS = 2**32 - 1  # cpu.guest is a uint32


@dataclass(frozen=True)
class Instancetype:
    """What an instancetype gives a VM's virt-launcher pod."""

    label: str  # how findings name it: 'VirtualMachineClusterInstancetype "cx1.large"'
    vcpus: int
    memory: Fraction | None  # memory.guest
    dedicated: bool = False
    isolate_emulator: bool = False
    numa: bool = False
    page_size: str | None = None
    overcommit_percent: int = 0
    node_selector: dict[str, str] = field(default_factory=dict)
    devices: tuple[str, ...] = ()  # the deviceName of each of its gpus and hostDevices
    # (spec.annotations, the CRI-O ones of n1 and rt1, and revisionName are not read)


class Placement(NamedTuple):
    """How a VM's CPUs and memory are placed once its instancetype is applied."""

    dedicated: bool  # dedicatedCpuPlacement
    numa: bool  # numa.guestMappingPassthrough
    isolate_emulator: bool  # isolateEmulatorThread
    page_size: Any  # memory.hugepages.pageSize, as written


def applied(domain: Any, instancetype: Instancetype | None) -> Placement:
    """The instancetype's placement, or the VM domain's own where the instancetype leaves it unset (a VM may not
    write what its instancetype sets: pkg/instancetype/webhooks/vm/admitter.go)."""
    cpu = get(domain, ("cpu",))
    cpu = cpu if isinstance(cpu, dict) else {}
    given = instancetype
    return Placement(
        dedicated=(given is not None and given.dedicated) or cpu.get("dedicatedCpuPlacement") is True,
        numa=(given is not None and given.numa) or isinstance(get(cpu, ("numa", "guestMappingPassthrough")), dict),
        isolate_emulator=(given is not None and given.isolate_emulator) or cpu.get("isolateEmulatorThread") is True,
        page_size=(given.page_size if given is not None else None) or get(domain, ("memory", "hugepages", "pageSize")))


def reference(vm_root: Any) -> tuple[str, str] | None:
    """(kind, name) of the instancetype a VirtualMachine names; None when it names none, or one only the cluster
    knows (``inferFromVolume``: the name is on a volume's labels)."""
    wanted = get(vm_root, ("spec", "instancetype"))
    if not isinstance(wanted, dict):
        return None
    name, kind = wanted.get("name"), wanted.get("kind")
    if not isinstance(name, str) or not name or wanted.get("inferFromVolume"):
        return None
    # pkg/instancetype/find/spec.go: the kind or its plural, in any case; none is the cluster kind
    if isinstance(kind, str) and kind.lower() in (NAMESPACED_KIND.lower(), NAMESPACED_KIND.lower() + "s"):
        return NAMESPACED_KIND, name
    if kind in (None, "") or (isinstance(kind, str) and kind.lower() in (CLUSTER_KIND.lower(),
                                                                          CLUSTER_KIND.lower() + "s")):
        return CLUSTER_KIND, name
    return None  # a kind KubeVirt does not know: the VM is rejected


def from_document(doc: Document) -> Instancetype | None:
    """The instancetype a VirtualMachine(Cluster)Instancetype document defines; None when its cpu.guest is not
    a positive integer (the API server rejects it)."""
    spec = get(doc.root, ("spec",))
    cpu, memory = get(spec, ("cpu",)), get(spec, ("memory",))
    vcpus = get(cpu, ("guest",))
    if not isinstance(vcpus, int) or isinstance(vcpus, bool) or not 1 <= vcpus <= MAX_VCPUS:
        return None
    page = get(memory, ("hugepages", "pageSize"))
    overcommit = get(memory, ("overcommitPercent",), 0)
    selector = get(spec, ("nodeSelector",))
    return Instancetype(
        label=f'{doc.kind} "{get(doc.root, ("metadata", "name"))}"', vcpus=vcpus,
        memory=try_quantity(get(memory, ("guest",))), dedicated=get(cpu, ("dedicatedCPUPlacement",)) is True,
        isolate_emulator=get(cpu, ("isolateEmulatorThread",)) is True,
        numa=isinstance(get(cpu, ("numa", "guestMappingPassthrough")), dict),
        page_size=page if isinstance(page, str) and page else None,
        overcommit_percent=overcommit if isinstance(overcommit, int) and 0 < overcommit <= 100 else 0,
        node_selector={str(k): v for k, v in selector.items() if isinstance(v, str)} if isinstance(selector, dict)
        else {}, devices=device_names(spec))


def device_names(holder: Any) -> tuple[str, ...]:
    """The device plugin resource (``deviceName``) of each entry of ``holder``'s gpus and hostDevices: a VM
    domain's ``devices``, or an instancetype's spec; virt-launcher asks for one of each (renderresources.go)."""
    return tuple(name for kind in ("gpus", "hostDevices") for entry in as_list(get(holder, (kind,)))
                 if isinstance(name := get(entry, ("deviceName",)), str) and name)


class Instancetypes:
    """The instancetypes of a run, looked up as KubeVirt does; then KubeVirt's common ones."""

    def __init__(self, documents: list[Document]) -> None:
        self.cluster: dict[str, Instancetype] = {}
        # name: the first of that name, the first in each namespace, the first of no namespace written (a VM asked
        # each time for every one of its name: one name in thousands of namespaces was quadratic)
        self.first: dict[str, Instancetype] = {}
        self.in_namespace: dict[tuple[str, str], Instancetype] = {}
        self.unwritten: dict[str, Instancetype] = {}
        for doc in documents:
            found = from_document(doc) if doc.kind in INSTANCETYPE_KINDS else None
            name = get(doc.root, ("metadata", "name"))
            if found is None or not isinstance(name, str):
                continue
            if doc.kind == CLUSTER_KIND:
                self.cluster.setdefault(name, found)  # the first definition, as for other node-side objects
            else:
                namespace = get(doc.root, ("metadata", "namespace"))
                self.first.setdefault(name, found)
                if isinstance(namespace, str):
                    self.in_namespace.setdefault((name, namespace), found)
                else:
                    self.unwritten.setdefault(name, found)

    def find(self, kind: str, name: str, namespace: str | None) -> Instancetype | None:
        """The instancetype a VM of ``namespace`` gets; a namespace left unwritten (kustomize or ``-n`` sets it)
        matches any."""
        if kind == CLUSTER_KIND:
            return self.cluster.get(name) or common(name)
        if namespace is None:
            return self.first.get(name)
        return self.in_namespace.get((name, namespace)) or self.unwritten.get(name)


# series -> (dedicatedCPUPlacement and isolateEmulatorThread, NUMA passthrough, hugepage size, overcommitPercent,
# whether each size also comes as "<size>1gi" with 1Gi pages, {size: (vCPUs, guest memory)});
# common-instancetypes v1.7.0 (common-clusterinstancetypes-bundle.yaml vendored in kubevirt/kubevirt)
_UNIVERSAL = {"nano": (1, "512Mi"), "micro": (1, "1Gi"), "small": (1, "2Gi"), "medium": (1, "4Gi"),
              "large": (2, "8Gi"), "xlarge": (4, "16Gi"), "2xlarge": (8, "32Gi"), "4xlarge": (16, "64Gi"),
              "8xlarge": (32, "128Gi")}
_SERIES: dict[str, tuple[bool, bool, str | None, int, bool, dict[str, tuple[int, str]]]] = {
    "cx1": (True, True, "2Mi", 0, True, {"medium": (1, "2Gi"), "large": (2, "4Gi"), "xlarge": (4, "8Gi"),
                                         "2xlarge": (8, "16Gi"), "4xlarge": (16, "32Gi"), "8xlarge": (32, "64Gi")}),
    "d1": (True, False, None, 0, False, {**_UNIVERSAL, "2xmedium": (2, "4Gi")}),
    "m1": (False, False, "2Mi", 0, True, {"large": (2, "16Gi"), "xlarge": (4, "32Gi"), "2xlarge": (8, "64Gi"),
                                          "4xlarge": (16, "128Gi"), "8xlarge": (32, "256Gi")}),
    "n1": (True, False, "1Gi", 0, False, {"medium": (4, "4Gi"), "large": (4, "8Gi"), "xlarge": (8, "16Gi"),
                                          "2xlarge": (16, "32Gi"), "4xlarge": (32, "64Gi"), "8xlarge": (64, "128Gi")}),
    "rt1": (True, True, "1Gi", 0, False, {k: v for k, v in _UNIVERSAL.items() if k != "nano"}),
    "u1": (False, False, None, 0, False, {**_UNIVERSAL, "2xmedium": (2, "4Gi")}),
    "o1": (False, False, None, 50, False, _UNIVERSAL),
}


def common(name: str) -> Instancetype | None:
    """One of KubeVirt's common cluster instancetypes (``cx1.2xlarge``, ``m1.large1gi``), or None."""
    series, _, size = name.partition(".")
    entry = _SERIES.get(series)
    if entry is None:
        return None
    dedicated, numa, page, overcommit, one_gi, sizes = entry
    if one_gi and size.endswith("1gi") and size[:-3] in sizes:
        size, page = size[:-3], "1Gi"
    if size not in sizes:
        return None
    vcpus, memory = sizes[size]
    return Instancetype(label=f'{CLUSTER_KIND} "{name}"', vcpus=vcpus,
                        memory=try_quantity(memory), dedicated=dedicated, isolate_emulator=dedicated, numa=numa,
                        page_size=page, overcommit_percent=overcommit)
