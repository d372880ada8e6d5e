"""A node that admits pods one after another, as the kubelet's Topology Manager does
(pkg/kubelet/cm/topologymanager/scope*.go).

Inputs are plain values (a Machine, KubeletSettings, PodSpecs); the result of each admission says
whether the pod runs, why not, and where its CPUs, memory and devices went.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil

from numalint.alignment.bitmask import Mask, bits
from numalint.alignment.cpu_static import OPTIONS_FIELD as CPU_OPTIONS_FIELD
from numalint.alignment.cpu_static import AllocationError, CPUState, StaticOptions, StaticPolicy
from numalint.alignment.cputopo import CPUTopology
from numalint.alignment.devices import DeviceAllocationError, DeviceManager, DeviceState
from numalint.alignment.machine import Machine
from numalint.alignment.memory_static import MEMORY, MemoryAllocationError, MemoryPolicy, MemoryState, hugepage_resource
from numalint.alignment.merge import OPTIONS_FIELD as TOPOLOGY_OPTIONS_FIELD
from numalint.alignment.merge import Hint, TopologyManager, TopologyOptions
from numalint.alignment.options import ALL_STAGES
from numalint.alignment.startup import (
    ConfigurationError,
    StartError,
    StartProblem,
    eviction_problems,
    go_map,
    reserved_memory_config_problems,
    reserved_resource_problems,
)
from numalint.k8s.quantity import format_bytes

TOPOLOGY_AFFINITY_ERROR = "TopologyAffinityError"
TOPOLOGY_MESSAGE = "Resources cannot be allocated with Topology locality"


@dataclass
class KubeletSettings:
    """The kubelet configuration the node runs, already defaulted."""

    cpu_policy: str = "none"
    cpu_options: dict[str, str] = field(default_factory=dict)
    reserved_cpus: frozenset[int] = frozenset()
    cpu_reservation: Fraction = Fraction(0)
    topology_policy: str = "none"
    topology_scope: str = "container"
    topology_options: dict[str, str] = field(default_factory=dict)
    memory_policy: str = "None"
    # reservedMemory per NUMA node in whole bytes (convertReserved: Quantity.AsInt64)
    reserved_memory: dict[int, dict[str, int]] = field(default_factory=dict)
    # Node Allocatable reservation per memory type (system + kube reserved + hard eviction), when known;
    # exact, as validateReservedMemory compares resource.Quantity values
    allocatable_reservation: dict[str, Fraction] | None = None
    option_maturity: dict[str, dict[str, str]] | None = None  # {"cpu": {...}, "topology": {...}}
    # maturity stages the feature gates enable (CPUManagerPolicyAlphaOptions, ...), and whether the
    # TopologyManagerPolicyOptions gate lets options be given at all
    option_stages: dict[str, frozenset[str]] | None = None  # {"cpu": ..., "topology": ...}
    topology_options_allowed: bool = True
    cpu_options_allowed: bool = True  # the CPUManagerPolicyOptions gate (cmd/kubelet/app/server.go)
    # the option maps were written as maps, maybe empty: server.go refuses `s.CPUManagerPolicyOptions != nil`
    # with the gate off, and a decoded `{}` is not nil
    cpu_options_set: bool = False
    topology_options_set: bool = False
    # feature gates written against a value their version locks (name, value written, locked value)
    locked_gates: tuple[tuple[str, bool, bool], ...] = ()
    # feature gates the kubelet does not know, each with what to say of it (the known gate it misspells, or that the
    # version removed it) and whether the version removed it
    unknown_gates: tuple[tuple[str, str, bool], ...] = ()
    # kubeReserved / systemReserved as written (resource -> text), for parseResourceList
    reserved_resources: dict[str, dict[str, str]] = field(default_factory=dict)
    eviction_hard: dict[str, str] = field(default_factory=dict)  # evictionHard as written
    # every reservedMemory entry as written: (index, NUMA node, resource -> exact quantity, milli-bytes kept)
    reserved_memory_entries: list[tuple[int, int, dict[str, Fraction]]] = field(default_factory=list)


@dataclass
class ContainerSpec:
    name: str
    init: bool = False
    sidecar: bool = False
    cpu: Fraction = Fraction(0)
    memory: int = 0
    hugepages: dict[str, int] = field(default_factory=dict)
    devices: dict[str, int] = field(default_factory=dict)


@dataclass
class PodSpec:
    name: str
    containers: list[ContainerSpec]
    guaranteed: bool


@dataclass
class ContainerPlacement:
    name: str
    cpus: list[int]
    numa_nodes: list[int]
    devices: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Admission:
    admitted: bool
    reason: str | None = None
    message: str = ""
    containers: list[ContainerPlacement] = field(default_factory=list)

    @property
    def numa_nodes(self) -> list[int]:
        return sorted({n for c in self.containers for n in c.numa_nodes})


class Node:
    def __init__(self, machine: Machine, settings: KubeletSettings, name: str = "node") -> None:
        self.name = name
        self.machine = machine
        self.settings = settings
        problems = settings_problems(settings, machine.numa_ids)
        if problems:
            raise StartError(problems[0])
        maturity = settings.option_maturity or {}
        stages = settings.option_stages or {}
        try:
            self.manager = TopologyManager.build(
                settings.topology_policy, machine.numa_ids, _distances(machine), settings.topology_options,
                settings.topology_scope, maturity.get("topology"), stages.get("topology", ALL_STAGES))
            self.topo = CPUTopology.from_machine(machine)
            self.cpu: StaticPolicy | None = None
            if settings.cpu_policy == "static":
                self.cpu = StaticPolicy.build(self.topo, len(settings.reserved_cpus) or ceil(settings.cpu_reservation),
                                              settings.reserved_cpus, settings.cpu_options, settings.topology_policy,
                                              maturity.get("cpu"), stages.get("cpu", ALL_STAGES))
        except ConfigurationError as err:
            raise StartError(err.problem) from None
        self.cpu_state = self.cpu.new_state() if self.cpu else CPUState(set(self.topo.all_cpus))
        self.memory: MemoryPolicy | None = None
        if settings.memory_policy == "Static":
            nodes = {n.id: (n.memory, dict(n.hugepages)) for n in machine.numa_nodes}
            self.memory = MemoryPolicy(nodes, settings.reserved_memory)
        self.memory_state = self.memory.new_state() if self.memory else MemoryState({})
        self.devices = DeviceManager(machine.devices, machine.numa_ids)
        self.device_state = DeviceState()
        self.pods = 0

    # --- what each provider is asked for ---------------------------------------------------------
    def exclusive_cpus(self, pod: PodSpec, c: ContainerSpec) -> int:
        return int(c.cpu) if pod.guaranteed and c.cpu.denominator == 1 else 0

    def pinned_memory(self, pod: PodSpec, c: ContainerSpec) -> dict[str, int]:
        if not pod.guaranteed or self.memory is None:
            return {}
        requested = {MEMORY: c.memory} if c.memory else {}
        requested.update({r: v for r, v in c.hugepages.items() if v})
        return requested

    def _container_hints(self, pod: PodSpec, c: ContainerSpec) -> list[dict[str, list[Hint] | None] | None]:
        key = (pod.name, c.name)
        providers: list[dict[str, list[Hint] | None] | None] = [
            self.devices.hints(self.device_state, pod.name, c.devices, key)]
        cpus = self.exclusive_cpus(pod, c)
        providers.append({"cpu": self.cpu.hints_for(self.cpu_state, cpus, key)} if self.cpu and cpus else None)
        memory = self.pinned_memory(pod, c)
        mem_hints = self.memory.hints(self.memory_state, memory, pod.name, key) if self.memory and pod.guaranteed \
            else None
        providers.append(dict(mem_hints) if mem_hints is not None else None)
        return providers

    def _pod_hints(self, pod: PodSpec) -> list[dict[str, list[Hint] | None] | None]:
        effective = effective_requests(
            pod, lambda c: {"cpu": self.exclusive_cpus(pod, c), **self.pinned_memory(pod, c), **c.devices})
        devices = {r: v for r, v in effective.items() if r in self.devices.resources()}
        providers: list[dict[str, list[Hint] | None] | None] = [
            self.devices.hints(self.device_state, pod.name, devices)]
        total = effective.get("cpu", 0)
        if self.cpu and total:
            requests = [(c.name, self.exclusive_cpus(pod, c)) for c in pod.containers]
            providers.append({"cpu": self.cpu.pod_hints(self.cpu_state, pod.name, requests, total)})
        else:
            providers.append(None)
        if self.memory and pod.guaranteed:
            # getPodRequestedResources (memorymanager/policy_static.go) sizes only the resources the app containers
            # ask for: hugepages that only an init container or a sidecar asks for get no pod hint (the container's
            # allocation must then extend the hint, and a preferred hint cannot be extended: rejected)
            asked = {r for c in pod.containers if not c.init for r in self.pinned_memory(pod, c)}
            memory = {r: v for r, v in effective.items() if r in asked and (r == MEMORY or r.startswith("hugepages-"))}
            providers.append(dict(self.memory.calculate(self.memory_state, memory, pod.name)))
        else:
            providers.append(None)
        return providers

    # --- admission -------------------------------------------------------------------------------
    def snapshot(self) -> Node:
        """A copy whose allocation state evolves independently (the machine is shared)."""
        twin = copy.copy(self)
        twin.cpu_state = self.cpu_state.clone()
        twin.memory_state = self.memory_state.clone()
        twin.device_state = self.device_state.clone()
        return twin

    def take_state(self, other: Node) -> None:
        """Start from ``other``'s allocations (a node of the same hardware under other settings)."""
        self.cpu_state = other.cpu_state.clone()
        self.memory_state = other.memory_state.clone()
        self.device_state = other.device_state.clone()
        self.pods = other.pods

    def admit(self, pod: PodSpec) -> Admission:
        """Admit ``pod`` or leave the node exactly as it was."""
        saved = (self.cpu_state.clone(), self.memory_state.clone(), self.device_state.clone())
        result = self._admit(pod)
        if not result.admitted:
            self.cpu_state, self.memory_state, self.device_state = saved
        else:
            self.pods += 1
        return result

    def _admit(self, pod: PodSpec) -> Admission:
        scope = self.manager.scope if self.manager.policy != "none" else "none"
        pod_hint: Hint | None = None
        if scope == "pod":
            pod_hint = self.manager.merge(self._pod_hints(pod))
            if not self.manager.admit(pod_hint):
                return Admission(False, TOPOLOGY_AFFINITY_ERROR, TOPOLOGY_MESSAGE)
        placements: list[ContainerPlacement] = []
        for c in pod.containers:
            if scope == "container":
                hint = self.manager.merge(self._container_hints(pod, c))
                if not self.manager.admit(hint):
                    return Admission(False, TOPOLOGY_AFFINITY_ERROR, TOPOLOGY_MESSAGE, placements)
            else:
                hint = pod_hint if pod_hint is not None else Hint(None, False)
            try:
                placements.append(self._allocate(pod, c, hint))
            except AllocationError as err:
                reason = err.reason
                message = str(err) if reason == "SMTAlignmentError" else f"Allocate failed due to {err}, which is " \
                                                                          "unexpected"
                return Admission(False, reason, message, placements)
            except (MemoryAllocationError, DeviceAllocationError) as err:
                return Admission(False, "UnexpectedAdmissionError",
                                 f"Allocate failed due to {err}, which is unexpected", placements)
        return Admission(True, containers=placements)

    def _allocate(self, pod: PodSpec, c: ContainerSpec, hint: Hint) -> ContainerPlacement:
        key = (pod.name, c.name)
        affinity: Mask | None = hint.mask
        devices = self.devices.allocate(self.device_state, key, c.devices, affinity, c.init, c.sidecar) \
            if c.devices else {}
        cpus: frozenset[int] = frozenset()
        if self.cpu is not None:
            cpus = self.cpu.allocate(self.cpu_state, key, self.exclusive_cpus(pod, c), affinity, c.init, c.sidecar)
        numa_of = self.topo.of["numa"]
        numa = {numa_of[x] for x in cpus}
        memory = self.pinned_memory(pod, c)
        if self.memory is not None and memory:
            blocks = self.memory.allocate(self.memory_state, key, memory, hint, c.init, c.sidecar)
            for block in blocks:
                numa.update(block.numa)
        by_id = self.devices.by_id
        for ids in devices.values():
            numa.update(n for i in ids if (n := by_id[i].numa) is not None)
        if not numa and affinity is not None and (cpus or memory or devices):
            numa = set(bits(affinity))
        return ContainerPlacement(c.name, sorted(cpus), sorted(n for n in numa if n is not None), devices)

    # --- capacity ----------------------------------------------------------------------------------
    def usage(self) -> dict[int, dict[str, dict[str, int]]]:
        """Per NUMA node and resource: capacity, reserved, allocatable, allocated and free.

        One table serves the simulate output, the free-capacity messages (``free``) and the per-NUMA
        limits (``allocatable``); without the Static memory manager, memory is not tracked per NUMA node.
        """

        result: dict[int, dict[str, dict[str, int]]] = {}
        reserved_cpus = self.cpu.reserved if self.cpu else frozenset()
        available = self.cpu.available(self.cpu_state) if self.cpu else None
        devices = {r: self.devices.counts(self.device_state, r) for r in sorted(self.devices.resources())}
        for node in self.machine.numa_ids:
            cpus = self.topo.by_numa.get(node, frozenset())
            reserved = len(cpus & reserved_cpus)
            free = len(cpus & available) if available is not None else len(cpus) - reserved
            entry = {"cpu": _row(len(cpus), reserved, len(cpus) - reserved, free)}
            state = self.memory_state.nodes.get(node)
            numa = self.machine.node_by_id[node]
            if state is not None:
                for resource, table in sorted(state.memory.items()):
                    entry[resource] = _row(table.total, table.system_reserved, table.allocatable, table.free)
            else:
                huge = sum(p * n for p, n in numa.hugepages.items())
                entry[MEMORY] = _row(numa.memory, 0, numa.memory - huge, numa.memory - huge)
                for page, pages in sorted(numa.hugepages.items()):
                    entry[hugepage_resource(page)] = _row(page * pages, 0, page * pages, page * pages)
            for resource, counts in devices.items():
                total, free = counts.get(node, (0, 0))
                entry[resource] = _row(total, 0, total, free)
            result[node] = entry
        return result

    def free(self) -> dict[int, dict[str, int]]:
        """Per NUMA node: what is free now, per resource."""
        return {n: {r: e["free"] for r, e in usage.items()} for n, usage in self.usage().items()}

    def capacity(self) -> dict[int, dict[str, int]]:
        """Per NUMA node: what aligned pods can ever get there (capacity after reservations)."""
        return {n: {r: e["allocatable"] for r, e in usage.items()} for n, usage in self.usage().items()}


def _row(capacity: int, reserved: int, allocatable: int, free: int) -> dict[str, int]:
    return {"capacity": capacity, "reserved": reserved, "allocatable": allocatable,
            "allocated": allocatable - free, "free": free}


def _distances(machine: Machine) -> dict[int, list[int]] | None:
    """NUMA distances when every node reports a full row (cadvisor's view), else None."""
    size = len(machine.numa_ids)
    rows = {n.id: n.distances for n in machine.numa_nodes if n.distances is not None and len(n.distances) == size}
    return rows if len(rows) == size else None


def settings_problems(settings: KubeletSettings, numa_ids: Sequence[int] | None = None) -> list[StartProblem]:
    """Every reason the kubelet refuses ``settings``, in the order it checks them: whatever the machine,
    and with ``numa_ids`` also what depends on the machine's NUMA nodes.

    The kubelet stops at the first; all are listed so a configuration can be fixed in one go. Options
    are parsed one at a time (each broken option is its own problem), then together for conflicts.
    Order: configuration validation (pkg/kubelet/apis/config/validation), then cmd/kubelet/app/server.go
    (feature gates, parseResourceList, eviction thresholds, the policy-option gates), then the managers
    NewContainerManager builds (Topology, CPU, Memory)."""
    problems: list[StartProblem] = reserved_memory_config_problems(settings.reserved_memory_entries)
    invalid_reserved_memory = bool(problems)
    for gate, hint, gone in settings.unknown_gates:
        problems.append(StartProblem(  # k8s.io/component-base/featuregate: SetFromMap
            "featureGates", gate, "removed-gate" if gone else "unknown-gate",
            f"unrecognized feature gate: {gate} ({hint})"))
    for gate, written, locked in settings.locked_gates:
        problems.append(StartProblem(  # k8s.io/component-base/featuregate: Set
            "featureGates", gate, "locked-gate",
            f"cannot set feature gate {gate} to {str(written).lower()}, feature is locked to {str(locked).lower()}"))
    problems.extend(reserved_resource_problems(settings.reserved_resources))
    problems.extend(eviction_problems(settings.eviction_hard))
    if (settings.cpu_options or settings.cpu_options_set) and not settings.cpu_options_allowed:
        problems.append(StartProblem(
            CPU_OPTIONS_FIELD, None, "options-gate",
            f'CPU Manager policy options {go_map(settings.cpu_options)} require feature gates "CPUManager", '
            '"CPUManagerPolicyOptions" enabled'))
    maturity = settings.option_maturity or {}
    stages = settings.option_stages or {}

    def attempt(build: Callable[[], object]) -> bool:
        try:
            build()
        except ConfigurationError as err:
            problems.append(err.problem)
            return False
        return True

    if (settings.topology_options or settings.topology_options_set) and not settings.topology_options_allowed:
        problems.append(StartProblem(
            TOPOLOGY_OPTIONS_FIELD, None, "options-gate",
            f"topology manager policy options {go_map(settings.topology_options)} require feature gates "
            '"TopologyManagerPolicyOptions" enabled'))
    if settings.topology_policy != "none":
        topology_ok = all([attempt(lambda n=n, v=v: TopologyOptions.parse(  # type: ignore[misc]
            {n: v}, maturity.get("topology"), stages.get("topology", ALL_STAGES)))
            for n, v in settings.topology_options.items()])
        if topology_ok:
            attempt(lambda: TopologyManager.build(settings.topology_policy, [0], None, {}, settings.topology_scope))
            limit = TopologyOptions.parse(settings.topology_options, maturity.get("topology"),
                                          stages.get("topology", ALL_STAGES)).max_numa_nodes
            if numa_ids is not None and len(numa_ids) > limit:  # NewManager (topology_manager.go)
                problems.append(StartProblem("topologyManagerPolicy", None, "too-many-numa-nodes",
                                             f"unsupported on machines with more than {limit} NUMA Nodes"))
    if settings.cpu_policy == "none" and settings.cpu_options and settings.cpu_options_allowed:
        problems.append(StartProblem(  # cpumanager.NewManager -> NewNonePolicy (policy_none.go)
            CPU_OPTIONS_FIELD, None, "none-policy-options",
            f"new none policy error: None policy: received unsupported options={go_map(settings.cpu_options)}"))
    if settings.cpu_policy == "static":
        before = len(problems)
        cpu_ok = all([attempt(lambda n=n, v=v: StaticOptions.parse(  # type: ignore[misc]
            {n: v}, maturity.get("cpu"), stages.get("cpu", ALL_STAGES)))
            for n, v in settings.cpu_options.items()])
        if not cpu_ok and all(p.reason == "gated-option" for p in problems[before:]):
            # once their gates are on, the kubelet refuses options that cannot go together: say it now too
            attempt(lambda: StaticOptions.parse(settings.cpu_options, dict.fromkeys(settings.cpu_options, "ga")))
        if cpu_ok:
            parsed = StaticOptions()
            if attempt(lambda: StaticOptions.parse(settings.cpu_options, maturity.get("cpu"),
                                                   stages.get("cpu", ALL_STAGES))):
                parsed = StaticOptions.parse(settings.cpu_options, maturity.get("cpu"), stages.get("cpu", ALL_STAGES))
            if parsed.align_by_socket and settings.topology_policy == "single-numa-node":
                problems.append(StartProblem(
                    CPU_OPTIONS_FIELD, "align-by-socket", "incompatible-policy",
                    "Topolgy manager single-numa-node policy is incompatible with CPUManager align-by-socket policy "
                    "option"))
        if not settings.reserved_cpus and settings.cpu_reservation <= 0:
            # GetNodeAllocatableReservation (pkg/kubelet/cm/node_container_manager_linux.go) leaves zero sums
            # out, so cpumanager.NewManager never sees a zero cpu: it finds none.
            problems.append(StartProblem(
                "reservedSystemCPUs", None, "no-cpu-reservation",
                "[cpumanager] unable to determine reserved CPU resources for static policy"))
    if settings.memory_policy == "Static" and not invalid_reserved_memory:
        # (validation refusing reservedMemory stops the kubelet before the Memory Manager reads it)
        problems.extend(_reserved_memory_problems(settings, numa_ids))
    return problems


def _reserved_memory_problems(settings: KubeletSettings, numa_ids: Sequence[int] | None) -> list[StartProblem]:
    """validateReservedMemory (every NUMA node must exist, then the sums per memory type), then
    NewPolicyStatic's demand for reserved memory (pkg/kubelet/cm/memorymanager/memory_manager.go,
    policy_static.go). Every mismatching type is listed (the kubelet names the first it meets)."""
    if numa_ids is not None:
        for index, numa, _ in settings.reserved_memory_entries:
            if numa not in numa_ids:
                return [StartProblem(  # getTotalMemoryTypeReserved
                    "reservedMemory", str(numa), "reserved-memory-numa",
                    f"the reserved memory configuration references a NUMA node {numa} that does not exist on "
                    "this machine", (index, "numaNode"))]
    totals: dict[str, Fraction] = {}
    for _, _, limits in settings.reserved_memory_entries:
        for resource, amount in limits.items():
            totals[resource] = totals.get(resource, Fraction(0)) + amount
    if settings.allocatable_reservation is not None:
        expected = settings.allocatable_reservation
        mismatches = [StartProblem(
            "reservedMemory", resource, "reserved-memory-sum",
            f'the total amount "{format_bytes(totals.get(resource, 0))}" of type "{resource}" is not equal '
            f'to the value "{format_bytes(expected.get(resource, 0))}" determined by Node Allocatable feature')
            for resource in sorted(set(totals) | set(expected)) if totals.get(resource, 0) != expected.get(resource, 0)]
        if mismatches:
            return mismatches
    for index, _, limits in settings.reserved_memory_entries:
        for resource, amount in limits.items():
            if amount.denominator != 1:  # convertReserved: q.AsInt64() fails on a fraction of a byte
                return [StartProblem("reservedMemory", resource, "reserved-memory-int64",
                                     "could not covert a variable of type Quantity to int64",
                                     (index, "limits", resource))]
    if settings.allocatable_reservation is None and not totals.get(MEMORY):
        return []  # a percentage threshold of an unknown node: the sums differ by an amount not known here
    try:
        MemoryPolicy.build({}, settings.reserved_memory)
    except ConfigurationError as err:
        return [err.problem]
    return []


def effective_requests(pod: PodSpec, requests: Callable[[ContainerSpec], dict[str, int]]) -> dict[str, int]:
    """Pod-level request per resource: max(sum of app containers and sidecars, max over init containers)."""
    init_max: dict[str, int] = {}
    sidecars: dict[str, int] = {}
    apps: dict[str, int] = {}
    order: dict[str, None] = {}  # the resources as the containers first ask for them (a set's order changed by run)
    for c in pod.containers:
        values: dict[str, int] = requests(c)
        for resource, amount in values.items():
            order[resource] = None
            if c.init and c.sidecar:
                sidecars[resource] = sidecars.get(resource, 0) + amount
            elif c.init:
                init_max[resource] = max(init_max.get(resource, 0), sidecars.get(resource, 0) + amount)
            else:
                apps[resource] = apps.get(resource, 0) + amount
    result = {}
    for resource in order:
        result[resource] = max(apps.get(resource, 0) + sidecars.get(resource, 0), init_max.get(resource, 0))
    return {r: v for r, v in result.items() if v}
