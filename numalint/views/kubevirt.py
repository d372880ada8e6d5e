"""KubeVirt VirtualMachines and VirtualMachineInstances as the virt-launcher pod they become.

A VM with ``dedicatedCpuPlacement``, hugepages or ``numa.guestMappingPassthrough`` is a Guaranteed pod
in disguise: its vCPUs are pinned through the CPU Manager, so its ``domain.resources`` must give an
integer CPU count with requests equal to limits (KubeVirt user guide, "Dedicated CPU resources";
pkg/virt-controller/services/renderresources.go). KubeVirt copies requests into limits for dedicated
CPUs, and takes the vCPU count from sockets x cores x threads when no cpu quantity is written; with
``isolateEmulatorThread`` it adds the emulator thread's CPU (two to keep an even count with the
EmulatorThreadCompleteToEvenParity annotation).

Before that, virt-api defaults what is not written (pkg/virt-api/webhooks/mutating-webhook/mutators,
setDefaultResourceRequests): a request from its limit, else the memory request from ``memory.guest``, else
from the hugepage size. With hugepages the guest's memory becomes a ``hugepages-<pageSize>`` request and
limit (the memory request, or ``memory.guest`` when smaller), and the memory request keeps what is above the
guest plus virt-launcher's overhead (renderresources.go WithHugePages). Without hugepages the overhead is
added to the memory request (unless ``overcommitGuestOverhead``) and to the limit (WithMemoryOverhead).
numalint counts the overhead's fixed part (``LAUNCHER_OVERHEAD``), not the parts that scale with the guest
(page tables, per vCPU)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from numalint.findings import ObjectRef
from numalint.k8s.kinds import VM_SPEC_PATHS
from numalint.k8s.quantity import try_quantity
from numalint.reading.locate import get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import YMap
from numalint.views.instancetypes import Instancetype, applied, device_names
from numalint.views.kubevirt_admission import written_vcpus
from numalint.views.workloads import (
    HUGEPAGES_PREFIX,
    ContainerView,
    PodView,
    _container,
    _locator,
    _string_map,
    read_annotations,
    required_terms,
    shared_map,
)

# virt-launcher-monitor 25Mi + virt-launcher 100Mi + virtlogd 25Mi + virtqemud 40Mi + qemu 30Mi
# (pkg/virt-controller/services/template.go, added by GetMemoryOverhead whatever the guest)
LAUNCHER_OVERHEAD = Fraction(220 * 2**20)
EVEN_PARITY_ANNOTATION = "alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity"


def vm_view(doc: Document, instancetype: Instancetype | None = None) -> PodView | None:
    """The virt-launcher pod of a VM that asks for dedicated resources; None for an ordinary VM, and for a VM
    naming an instancetype when ``instancetype`` is not given (it is resolved once the run is read:
    ``model.instancetyped``). A VM KubeVirt refuses (``views.kubevirt_admission``) is left out by the callers;
    so is one whose instancetype asks what KubeVirt refuses (``refused_with``)."""
    spec_path = VM_SPEC_PATHS.get(doc.kind)
    if spec_path is None:
        return None
    spec = get(doc.root, spec_path)
    domain = get(spec, ("domain",))
    if instancetype is None and doc.kind == "VirtualMachine" and get(doc.root, ("spec", "instancetype")) is not None:
        return None  # its instancetype is not known (model.instancetyped): nothing is guessed
    if instancetype is None and (not isinstance(spec, YMap) or not isinstance(domain, YMap)):
        return None
    if not isinstance(domain, YMap):
        domain = YMap()
    raw_cpu = domain.get("cpu")
    cpu: dict[str, Any] = raw_cpu if isinstance(raw_cpu, dict) else {}
    placed = applied(domain, instancetype)
    pinned_by_instancetype = instancetype is not None and instancetype.dedicated
    dedicated, numa, hugepages = placed.dedicated, placed.numa, placed.page_size
    reasons = [r for r, on in (("dedicatedCpuPlacement", dedicated), ("NUMA guest mapping passthrough", numa),
                               (f"hugepages of {hugepages}", bool(hugepages))) if on]
    if not reasons:
        return None
    # with an instancetype the VM writes no resources of its own (the webhook rejects them): findings on the
    # compute container's resources point at spec.instancetype, which decides them
    compute = _container(YMap() if instancetype is not None else domain,
                         ("spec", "instancetype") if instancetype is not None else spec_path + ("domain",), False)
    assert compute is not None
    compute = ContainerView("compute", compute.path, False, False, dict(compute.requests), dict(compute.limits))
    if instancetype is not None and instancetype.memory and instancetype.overcommit_percent:
        compute.requests["memory"] = instancetype.memory * (100 - instancetype.overcommit_percent) / 100
    guest = instancetype.memory if instancetype is not None else try_quantity(get(domain, ("memory", "guest")))
    _default_requests(compute, guest, hugepages, get(domain, ("resources", "overcommitGuestOverhead")) is True)
    if "cpu" not in compute.requests and dedicated:
        compute.requests["cpu"] = Fraction(instancetype.vcpus if instancetype is not None else written_vcpus(cpu) or 1)
    for device in _devices(domain, instancetype):  # renderresources.go WithGPUs/WithHostDevices: one each
        compute.requests[device] = compute.requests.get(device, Fraction(0)) + 1
        compute.limits[device] = compute.limits.get(device, Fraction(0)) + 1
    if dedicated:
        for resource, amount in compute.requests.items():
            compute.limits.setdefault(resource, amount)
    template_meta = spec_path[:-1] + ("metadata",) if len(spec_path) > 1 else ("metadata",)
    isolated = dedicated and placed.isolate_emulator and "cpu" in compute.limits
    if isolated:
        extra = _emulator_thread_cpus(compute.limits["cpu"], get(doc.root, template_meta + ("annotations",)))
        for amounts in (compute.requests, compute.limits):
            if "cpu" in amounts:
                amounts["cpu"] += extra
    raw_metadata = doc.root.get("metadata")
    metadata: dict[str, Any] = raw_metadata if isinstance(raw_metadata, dict) else {}
    ref = ObjectRef(doc.api_version, doc.kind, str(get(metadata, ("name",), "") or "<unnamed>"),
                    str(metadata["namespace"]) if metadata.get("namespace") else None)
    selector = _string_map(get(spec, ("nodeSelector",)))
    if not selector and instancetype is not None:  # copied from the instancetype only onto a VM with none
        selector = instancetype.node_selector
    intent = f"it is a KubeVirt VM with {' and '.join(reasons)}" if dedicated or numa else ""
    if intent and instancetype is not None and (instancetype.dedicated or instancetype.numa):
        intent += f" (from {instancetype.label})"
    return PodView(file=doc.file, ref=ref, locator=_locator(doc, ("spec",), [compute], pod=False), spec_path=spec_path,
                   containers=[compute], replicas=1,
                   annotations=read_annotations(_string_map(get(doc.root, template_meta + ("annotations",)))),
                   node_selector=shared_map(selector), required_terms=required_terms(spec),
                   pod_resources=None, isolated_emulator=isolated, needs_cpu_manager=dedicated,
                   declared_intent=intent,
                   instancetype=instancetype.label if instancetype is not None else None,
                   pinned_by_instancetype=pinned_by_instancetype)


def _devices(domain: YMap, instancetype: Instancetype | None) -> list[str]:
    """The device plugin resources a VM's GPUs and host devices ask for, one per entry: the VM's own, then its
    instancetype's."""
    return [*device_names(get(domain, ("devices",))), *(instancetype.devices if instancetype else ())]


def _emulator_thread_cpus(vcpus: Fraction, annotations: Any) -> int:
    """The CPUs KubeVirt adds for the emulator thread of ``isolateEmulatorThread`` (renderresources.go
    WithCPUPinning): one, or two when the EmulatorThreadCompleteToEvenParity annotation is on the VMI and the
    vCPU count is even, so that the total stays even (whole cores under full-pcpus-only). The supplemental
    pool of IO threads, which newer releases add too, is not counted."""
    even = vcpus.denominator == 1 and vcpus.numerator % 2 == 0
    return 2 if even and isinstance(annotations, dict) and EVEN_PARITY_ANNOTATION in annotations else 1


def _default_requests(compute: ContainerView, guest: Fraction | None, page_size: Any, overcommitted: bool) -> None:
    """virt-api's defaulting of the compute container's requests, then the hugepages rendering (see the module's
    docstring). ``guest``: memory.guest; ``overcommitted``: overcommitGuestOverhead."""
    requests, limits = compute.requests, compute.limits
    for resource in ("cpu", "memory"):
        if resource not in requests and resource in limits:
            requests[resource] = limits[resource]
    page = try_quantity(page_size) if isinstance(page_size, str) else None
    default = guest or page
    if "memory" not in requests and default:
        requests["memory"] = default
    memory = requests.get("memory")
    if page is None or not memory:
        if memory:  # renderresources.go WithMemoryOverhead: on the request (unless overcommitted) and the limit
            if not overcommitted:
                requests["memory"] = memory + LAUNCHER_OVERHEAD
            if "memory" in limits:
                limits["memory"] = limits["memory"] + LAUNCHER_OVERHEAD
        return
    guest = guest or memory  # virt-api's setGuestMemory: the guest has the requested memory when not written
    backed = min(memory, guest)
    requests[f"{HUGEPAGES_PREFIX}{page_size}"] = limits[f"{HUGEPAGES_PREFIX}{page_size}"] = backed
    requests["memory"] = max(memory - guest, Fraction(0)) + LAUNCHER_OVERHEAD
    if "memory" in limits:
        limits["memory"] = max(limits["memory"] - guest, Fraction(0)) + LAUNCHER_OVERHEAD
