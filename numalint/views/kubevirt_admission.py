"""What KubeVirt's admission webhook refuses in a VM's domain: dedicated CPUs and hugepages that cannot be
given as written. The VM webhook validates ``spec.template.spec`` with the VMI's rules
(pkg/virt-api/webhooks/validating-webhook/admitters/vmi-create-admitter.go, validateCpuPinning,
validateCPUIsolatorThread, validateNUMA, validateHugepagesMemoryRequests) after virt-api's defaults
(pkg/virt-api/webhooks/defaults.go): a missing cpu or memory request from its limit, else the memory request
from ``memory.guest``, else from the page size; an unwritten topology is as many sockets as the CPUs asked
for. Quantities compare as ``Quantity.Value()`` does, rounded up to whole units.

A refused VM never runs: it is not a workload of the run, only this finding. A VM naming an instancetype is
refused when it writes what the instancetype decides (its vCPUs and memory), and left out when the instancetype
applied asks what the webhook refuses (``refused_with``: no finding, as the instancetype is known only once the
run is read)."""

from __future__ import annotations

from collections.abc import Iterator
from math import ceil
from typing import Any, NamedTuple

from numalint.k8s.kinds import VM_SPEC_PATHS
from numalint.k8s.quantity import try_quantity
from numalint.reading.locate import Path, get
from numalint.reading.sources import Document
from numalint.views.instancetypes import Instancetype, applied


class Refusal(NamedTuple):
    message: str  # the webhook's message (its "interger" spelt right)
    path: Path  # the field it is about
    fix: str


def refusals(doc: Document) -> Iterator[Refusal]:
    """What the webhook refuses in ``doc`` (a VirtualMachine or VirtualMachineInstance), in its order."""
    spec_path = VM_SPEC_PATHS.get(doc.kind)
    if spec_path is None:
        return
    domain_path = spec_path + ("domain",)
    domain = get(doc.root, domain_path)
    if not isinstance(domain, dict):
        return
    if doc.kind == "VirtualMachine" and get(doc.root, ("spec", "instancetype")) is not None:
        yield from _conflicts(domain, domain_path)
        return
    cpu = get(domain, ("cpu",))
    cpu = cpu if isinstance(cpu, dict) else {}
    where = ".".join(domain_path[:-1])  # P of the webhook's messages: spec or spec.template.spec
    resources = domain_path + ("resources",)
    for part in ("sockets", "cores", "threads"):  # uint32 fields: the API server refuses another type
        value = cpu.get(part)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**32):
            yield Refusal(f"{where}.domain.cpu.{part} must be a whole number (the API server refuses "
                          f"{value!r:.40})", domain_path + ("cpu", part), f"write {part} as a number")
    req_cpu, lim_cpu = _amount(domain, "requests", "cpu"), _amount(domain, "limits", "cpu")
    lim_mem = _amount(domain, "limits", "memory")
    page_text = get(domain, ("memory", "hugepages", "pageSize"))
    page = try_quantity(page_text) if isinstance(page_text, str) else None
    guest = try_quantity(get(domain, ("memory", "guest")))
    req_cpu = req_cpu or lim_cpu  # defaults.go setDefaultResourceRequests: a request not written at all
    written_mem = get(domain, ("resources", "requests", "memory"))
    req_mem = (try_quantity(written_mem) if written_mem is not None else lim_mem or guest or page) or 0
    dedicated = cpu.get("dedicatedCpuPlacement") is True
    if guest and lim_mem and guest > lim_mem:
        yield Refusal(f"{where}.domain.memory.guest '{get(domain, ('memory', 'guest'))}' must be equal to or less "
                      f"than the memory limit {where}.domain.resources.limits.memory",
                      domain_path + ("memory", "guest"), "raise the memory limit to memory.guest, or lower it")
    if dedicated and not req_mem and not lim_mem:
        yield Refusal(f"{where}.domain.resources.requests.memory or {where}.domain.resources.limits.memory should be "
                      "provided", domain_path + ("cpu", "dedicatedCpuPlacement"),
                      "give the VM memory (memory.guest, or a memory request and limit)")
    if dedicated:
        for kind, amount in (("requests", req_cpu), ("limits", lim_cpu)):
            if amount is not None and amount > 0 and amount.denominator != 1:
                yield Refusal(f"provided resources CPU {kind} must be an integer", resources + (kind, "cpu"),
                              "use a whole number of CPUs, or drop dedicatedCpuPlacement")
        if req_cpu and lim_cpu and ceil(req_cpu) != ceil(lim_cpu):
            yield Refusal(f"{where}.domain.resources.requests.cpu or {where}.domain.resources.limits.cpu must be "
                          "equal when DedicatedCPUPlacement is true", resources + ("requests", "cpu"),
                          "write the same cpu request and limit")
        vcpus = written_vcpus(cpu)
        asked = [ceil(a) for a in (req_cpu, lim_cpu) if a]
        if vcpus and asked and vcpus not in asked:
            yield Refusal(f"{where}.domain.resources.requests.cpu or {where}.domain.resources.limits.cpu must not be "
                          f"provided at the same time with {where}.domain.cpu.cores when DedicatedCPUPlacement is "
                          f"true (sockets x cores x threads is {vcpus})", resources + ("requests", "cpu"),
                          f"leave the cpu request and limit out (KubeVirt takes {vcpus} from the topology), or make "
                          f"them {vcpus}")
        if req_mem and lim_mem and ceil(req_mem) != ceil(lim_mem):
            yield Refusal(f"{where}.domain.resources.requests.memory must be equal to "
                          f"{where}.domain.resources.limits.memory", resources + ("requests", "memory"),
                          "write the same memory request and limit")
        threads = cpu.get("threads")
        if isinstance(threads, int) and not isinstance(threads, bool) and threads > 2:
            yield Refusal(f"Not more than two threads must be provided at {where}.domain.cpu.threads (got "
                          f"{threads}) when DedicatedCPUPlacement is true", domain_path + ("cpu", "threads"),
                          "use at most 2 threads")
    if cpu.get("isolateEmulatorThread") is True and not dedicated:
        yield Refusal("IsolateEmulatorThread should be only set in combination with DedicatedCPUPlacement",
                      domain_path + ("cpu", "isolateEmulatorThread"),
                      "set dedicatedCpuPlacement: true, or drop isolateEmulatorThread")
    if isinstance(get(cpu, ("numa", "guestMappingPassthrough")), dict):
        numa = domain_path + ("cpu", "numa", "guestMappingPassthrough")
        if not dedicated:
            yield Refusal(f"{where}.domain.cpu.dedicatedCpuPlacement must be set to true when NUMA topology strategy "
                          f"is set in {where}.domain.cpu.numa.guestMappingPassthrough", numa,
                          "set dedicatedCpuPlacement: true")
        if not isinstance(get(domain, ("memory", "hugepages")), dict):
            yield Refusal(f"{where}.domain.memory.hugepages must be requested when NUMA topology strategy is set in "
                          f"{where}.domain.cpu.numa.guestMappingPassthrough", numa,
                          "request hugepages (domain.memory.hugepages.pageSize)")
    size = domain_path + ("memory", "hugepages", "pageSize")
    if isinstance(page_text, str) and page is None:
        yield Refusal(f"{where}.domain.memory.hugepages.pageSize '{page_text:.40}': quantities must match the regular "
                      "expression of a Kubernetes quantity", size, "write a page size such as 2Mi or 1Gi")
    elif page:
        # KubeVirt's own words quote the value; with none written, it is what virt-api defaults it to
        shown = f"'{written_mem}'" if written_mem is not None else "(defaulted by virt-api)"
        # pointed at where the memory comes from (what a fix, or an overlay's patch, changes), else the page size
        source = next((domain_path + field for field in (("resources", "requests", "memory"),
                                                         ("resources", "limits", "memory"), ("memory", "guest"))
                       if get(domain, field) is not None), size)
        if ceil(req_mem) < ceil(page):
            yield Refusal(f"{where}.domain.resources.requests.memory {shown} must be equal to or larger than page "
                          f"size '{page_text}'", source, "request at least one page of memory")
        elif ceil(req_mem) % ceil(page):
            yield Refusal(f"{where}.domain.resources.requests.memory {shown} is not a multiple of the page size "
                          f"'{page_text}'", source, f"request a multiple of {page_text} of memory (memory.guest, or "
                          "resources.requests.memory)")


def refused_with(doc: Document, instancetype: Instancetype) -> bool:
    """Whether KubeVirt refuses a VM once its instancetype is applied (it validates the VM after applying it):
    an emulator thread or NUMA passthrough without dedicated CPUs, NUMA passthrough without hugepages, whichever
    of the two writes them."""
    placed = applied(get(doc.root, VM_SPEC_PATHS.get(doc.kind, ("spec",)) + ("domain",)), instancetype)
    return bool((placed.isolate_emulator or placed.numa) and not placed.dedicated or placed.numa
                and not placed.page_size)


# what a VM naming an instancetype may never write (pkg/instancetype/webhooks/vm/admitter.go): the instancetype
# decides its vCPUs and memory (fields it may leave to the VM, such as dedicatedCpuPlacement, are not judged here)
_DECIDED_BY_INSTANCETYPE = (("resources", "requests", "cpu"), ("resources", "limits", "cpu"),
                            ("resources", "requests", "memory"), ("resources", "limits", "memory"),
                            ("cpu", "sockets"), ("cpu", "cores"), ("cpu", "threads"), ("memory", "guest"))


def _conflicts(domain: Any, domain_path: Path) -> Iterator[Refusal]:
    for field in _DECIDED_BY_INSTANCETYPE:
        value = get(domain, field)
        if value is not None and not (field[0] == "cpu" and value == 0):  # apply/cpu.go: a topology of 0 is none
            yield Refusal(f"a VM naming an instancetype may not write domain.{'.'.join(field)}: the instancetype "
                          "decides it", domain_path + field, f"remove domain.{'.'.join(field)}, or the instancetype")


def _amount(domain: Any, kind: str, resource: str) -> Any:
    """A positive quantity of domain.resources, or None (unwritten, malformed, zero)."""
    amount = try_quantity(get(domain, ("resources", kind, resource)))
    return amount if amount is not None and amount > 0 else None


def written_vcpus(cpu: dict[str, Any]) -> int:
    """sockets x cores x threads of those written and above zero (hwutil.GetNumberOfVCPUs); 0 when none is
    written (virt-api then takes the topology from the CPUs asked for, which agrees with them)."""
    vcpus = 0
    for part in ("sockets", "cores", "threads"):
        value = cpu.get(part)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            vcpus = (vcpus or 1) * value
    return vcpus


