"""Simulating admission: pools of nodes built from declared topologies and kubelet configurations,
workloads spread over them the way the default scheduler would, each pod admitted by the
alignment core.

Placement model (documented in README): pods are taken in input order (files sorted by path,
documents in file order), replicas expanded (Job parallelism), DaemonSets once per node. The
scheduler is blind to NUMA: it keeps the nodes whose allocatable cpu, memory, hugepages and devices
still fit the pod's requests and picks the least allocated one (lowest index on ties); see
``simulation.scheduler``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING

from numalint.alignment.machine import Machine
from numalint.alignment.memory_static import hugepage_resource
from numalint.alignment.node import Admission, ContainerSpec, KubeletSettings, Node, PodSpec
from numalint.alignment.startup import StartError, StartProblem
from numalint.k8s.quantity import format_quantity
from numalint.k8s.versions import (
    CPU_GATES,
    CPU_OPTIONS,
    TOPOLOGY_GATES,
    TOPOLOGY_OPTIONS,
    enabled_stages,
    gate_enabled,
    locked_gates,
    maturity,
    unknown_gate_hint,
)
from numalint.model.pools import Pool, PoolMatcher
from numalint.model.sriov import SriovCatalog
from numalint.simulation.node_state import StateProblem, apply_state, read_state
from numalint.simulation.result import Simulation
from numalint.simulation.scheduler import PoolScheduler
from numalint.views.kubelet import OPENSHIFT_MAX_PODS
from numalint.views.performance import online_machine
from numalint.views.workloads import PodView, is_extended, is_hugepages

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numalint.views.kubelet import KubeletProfile

UNSCHEDULABLE = "Unschedulable"
TOO_MANY_PODS = "(the scheduler's \"Too many pods\")"  # in the message of a pod no node has a pod slot left for
# in the message of a KubeVirt VM with dedicatedCpuPlacement on a pool whose kubelet does not run the static CPU
# manager: virt-handler labels its nodes cpumanager=false, and the VM's pod asks for cpumanager=true
NO_CPU_MANAGER = "(no node labelled cpumanager=true)"
NEVER_FITS = "can ever fit it"  # in the message of a pod asking more than one node of its pool has at all


@dataclass
class PodRun:
    view: PodView
    name: str
    pool: Pool
    spec: PodSpec
    node: str | None = None
    admission: Admission | None = None
    before: Node | None = None  # the node just before a rejected pod, for explanations and fixes


@dataclass
class FirstRejection:
    """The pool just before the kubelet first rejected a pod (``_place``): every pod before it placed as it would be
    under a kubelet that admits more, which a replay under such a kubelet starts from (``_resumable``)."""

    position: int  # of the rejected pod in PoolRun.pods
    view: PodView  # its workload
    replica: int  # and its replica's index
    nodes: list[Node]  # snapshots
    scheduler: PoolScheduler


@dataclass
class PoolRun:
    pool: Pool
    settings: KubeletSettings
    machine: Machine = field(default_factory=lambda: Machine([], {}))
    nodes: list[Node] = field(default_factory=list)
    start_error: str | None = None  # why the kubelet does not start (or the pool is not simulated)
    start_problem: StartProblem | None = None
    # prefer-closest-numa-nodes on a topology without distances: the node reads them from sysfs, numalint cannot
    missing_distances: bool = False
    pod_level_managers: bool = False  # PodLevelResourceManagers on (1.36+): pod-level resources get pinned
    max_pods: int = 110  # the pods a node takes (maxPods, podsPerCore)
    pods: list[PodRun] = field(default_factory=list)
    allocatable: dict[str, Fraction] = field(default_factory=dict)  # of every node, before any pod
    scheduler: PoolScheduler | None = None  # what admitted pods asked of each node
    # per kubelet change tried by the fix search: the pods the pool admits under it, when it keeps every pod
    # admitted now (None: it rejects one, or such a kubelet does not start)
    replays: dict[str, frozenset[tuple[int, str]] | None] = field(default_factory=dict)
    node_state: str | None = None  # --node-state, applied to this pool's first node
    first_rejection: FirstRejection | None = None
    # by node: (the node, its admitted pods, a copy of its state then) for the pods it rejects, which leave it as it
    # was: one copy for every rejection in a row (thousands of pods rejected by a node of 65,536 CPUs held one each)
    rejected_on: dict[int, tuple[Node, int, Node]] = field(default_factory=dict, repr=False)
    derived: dict[str, object] = field(default_factory=dict, repr=False)  # what fixes work out of the pool once


def option_maturity(version: tuple[int, int]) -> dict[str, dict[str, str]]:
    return {"cpu": {o: s for o in CPU_OPTIONS if (s := maturity(CPU_OPTIONS, o, version))},
            "topology": {o: s for o in TOPOLOGY_OPTIONS if (s := maturity(TOPOLOGY_OPTIONS, o, version))}}


def settings_from_profile(profile: KubeletProfile | None, version: tuple[int, int],
                          attributes: dict[str, str] | None = None, machine: Machine | None = None) -> KubeletSettings:
    """The alignment core's view of a kubelet profile at a Kubernetes version, on ``machine`` when known.

    Without a kubelet configuration, a NodeResourceTopology's attributes still give the topology
    policy and scope (the CPU and memory managers then stay at their defaults)."""
    if profile is None:
        attributes = attributes or {}
        policy = attributes.get("topologyManagerPolicy", "none")
        scope = attributes.get("topologyManagerScope", "container")
        return KubeletSettings(topology_policy=policy, topology_scope=scope, option_maturity=option_maturity(version))
    reserved: dict[int, dict[str, int]] = {}
    entries: list[tuple[int, int, dict[str, Fraction]]] = []
    for entry in profile.reserved_memory:
        if entry.numa_node is not None:
            target = reserved.setdefault(entry.numa_node, {})
            for resource, amount in entry.limits.items():
                # whole bytes as convertReserved reads them (a fraction of a byte stops the kubelet there)
                target[resource] = target.get(resource, 0) + int(amount)
            entries.append((entry.index, entry.numa_node, dict(entry.limits)))
    # OpenShift: the KubeletConfig cannot set feature gates (the machine-config operator refuses featureGates);
    # the cluster's FeatureGate decides, over the upstream defaults (no alpha option gate by default)
    gates = profile.cluster_gates if profile.openshift else profile.feature_gates
    cpus = len(machine.cpus) if machine is not None else None
    # the gates of the version the file pins, if it does (kind's node image, kubeadm's kubernetesVersion)
    pinned = profile.declared_version or version
    return KubeletSettings(
        cpu_policy=profile.cpu_manager_policy, cpu_options={k: str(v) for k, v in profile.cpu_options.items()},
        reserved_cpus=profile.reserved_cpus() or frozenset(),
        cpu_reservation=profile.cpu_reservation(version, cpus) or Fraction(0),
        topology_policy=profile.topology_policy, topology_scope=profile.topology_scope,
        topology_options={k: str(v) for k, v in profile.topology_options.items()},
        memory_policy=profile.memory_policy, reserved_memory=reserved, option_maturity=option_maturity(version),
        allocatable_reservation=_allocatable_reservation(profile, reserved, memory_capacity(machine), version),
        option_stages={
            "cpu": enabled_stages(CPU_GATES, gates, version),
            "topology": enabled_stages(TOPOLOGY_GATES, gates, version)},
        topology_options_allowed=gate_enabled("TopologyManagerPolicyOptions", gates, version),
        cpu_options_allowed=gate_enabled("CPUManagerPolicyOptions", gates, version),
        cpu_options_set=_written_map(profile, "cpuManagerPolicyOptions"),
        topology_options_set=_written_map(profile, "topologyManagerPolicyOptions"),
        locked_gates=() if profile.openshift else locked_gates(profile.feature_gates, pinned),
        unknown_gates=() if profile.openshift else tuple(
            (name, *said) for name in profile.feature_gates if (said := unknown_gate_hint(name, pinned)) is not None),
        reserved_resources=_reserved_resources(profile),
        eviction_hard={k: v for k, v in profile.eviction_hard.items() if isinstance(v, str)},
        reserved_memory_entries=entries)


def _reserved_resources(profile: KubeletProfile) -> dict[str, dict[str, str]]:
    """kubeReserved / systemReserved as parseResourceList sees them: cmd/kubelet/app/server.go run() first
    deletes kubeReserved["cpu"] and overwrites systemReserved["cpu"] with the size of a non-empty
    reservedSystemCPUs, so whatever was written for cpu there is never parsed."""
    overwritten = bool(profile.reserved_cpus())
    return {f: {k: v for k, v in values.items() if isinstance(v, str) and not (overwritten and k == "cpu")}
            for f, values in profile.reserved_raw.items()}


def _written_map(profile: KubeletProfile, name: str) -> bool:
    """Is ``name`` written as a map (``{}`` included)? It then decodes to a non-nil Go map."""
    return profile.has(name) and isinstance(profile.raw.get(profile.keys[name]), dict)


def memory_capacity(machine: Machine | None) -> int | None:
    """The node's memory capacity (what a percentage eviction threshold is taken of), when known."""
    if machine is None or not any(n.memory for n in machine.numa_nodes):
        return None
    return sum(n.memory for n in machine.numa_nodes)


def _allocatable_reservation(profile: KubeletProfile, reserved: dict[int, dict[str, int]],
                             capacity: int | None, version: tuple[int, int]) -> dict[str, Fraction] | None:
    """What reservedMemory must add up to, or None when it depends on an unknown node memory.
    (systemReserved/kubeReserved can hold no hugepages: parseResourceList refuses them.)"""
    types = {"memory"} | {r for limits in reserved.values() for r in limits}
    result = {}
    for resource in types:
        amount = profile.allocatable_reservation(resource, capacity, version)
        if amount is None:
            return None
        result[resource] = amount  # exact: validateReservedMemory compares resource.Quantity values
    return result


def pod_spec(view: PodView, name: str, injected: dict[str, int] | None = None, pod_level_managers: bool = False
             ) -> PodSpec:
    """The pod the kubelet sees; ``injected`` are the VFs the network-resources-injector adds to the
    first container (skipped for resources a container already asks for). A pod with pod-level resources
    (spec.resources) gets no exclusive CPUs or pinned memory: the static policies skip it
    (policy_static.go: IsPodLevelResourcesSet) unless PodLevelResourceManagers is on."""
    containers = []
    for c in view.containers:
        containers.append(ContainerSpec(
            name=c.name, init=c.init, sidecar=c.sidecar, cpu=c.requests.get("cpu", Fraction(0)),
            memory=int(c.requests.get("memory", 0)),
            hugepages={r: int(v) for r, v in c.requests.items() if is_hugepages(r)},
            devices={r: int(v) for r, v in c.limits.items() if is_extended(r) and v}))
    first = next((c for c in containers if not c.init), None)
    for resource, count in (injected or {}).items():
        if first is not None and not any(resource in c.devices for c in containers):
            first.devices[resource] = count
    pinned = view.pod_resources is None or pod_level_managers
    return PodSpec(name, containers, view.qos() == "Guaranteed" and pinned)


def pod_requests(spec: PodSpec) -> dict[str, Fraction]:
    """What the scheduler counts: max(init containers, app containers + sidecars) per resource."""
    init_max: dict[str, Fraction] = {}
    running: dict[str, Fraction] = {}
    for c in spec.containers:
        values = {"cpu": c.cpu, "memory": Fraction(c.memory), **{k: Fraction(v) for k, v in c.hugepages.items()},
                  **{k: Fraction(v) for k, v in c.devices.items()}}
        for resource, amount in values.items():
            if c.init and not c.sidecar:
                init_max[resource] = max(init_max.get(resource, Fraction(0)), running.get(resource, Fraction(0)) +
                                         amount)
            else:
                running[resource] = running.get(resource, Fraction(0)) + amount
    # in name order: messages list resources as they come (a set's order changes from one process to the next)
    return {r: max(init_max.get(r, Fraction(0)), running.get(r, Fraction(0)))
            for r in sorted(set(init_max) | set(running))}


# what the scheduler's score counts for a container that asks no cpu or memory (pkg/scheduler/util
# DefaultMilliCPURequest, DefaultMemoryRequest; resourcehelper NonMissingContainerRequests)
NON_ZERO = {"cpu": Fraction(1, 10), "memory": Fraction(200 * 1024 * 1024)}


# what pod-level resources (spec.resources) replace in the scheduler's count (component-helpers resource
# PodRequests, applyPodLevelResources: IsSupportedPodLevelResource)
POD_LEVEL_SCHEDULED = ("cpu", "memory")


def scheduler_requests(view: PodView, injected: dict[str, int]) -> tuple[dict[str, Fraction], dict[str, Fraction]]:
    """What the scheduler's filter counts of one pod (its containers', or its pod-level cpu and memory requests
    when it has them) and what its score counts (``scored_requests``)."""
    wanted = pod_requests(pod_spec(view, "", injected))
    if view.pod_resources is not None:
        wanted.update({r: view.pod_resources[r] for r in POD_LEVEL_SCHEDULED if r in view.pod_resources})
    return wanted, scored_requests(view, wanted)


def scored_requests(view: PodView, wanted: dict[str, Fraction]) -> dict[str, Fraction]:
    """The cpu and memory the scheduler's score counts: ``wanted`` with each container's missing cpu or memory
    request counted as NON_ZERO (an explicit 0 stays 0); pod-level requests count as they are."""
    if view.pod_resources is not None:
        return wanted
    init_max: dict[str, Fraction] = {}
    running: dict[str, Fraction] = {}
    for c in view.containers:
        for resource, default in NON_ZERO.items():
            amount = c.requests.get(resource, default)
            if c.init and not c.sidecar:
                init_max[resource] = max(init_max.get(resource, Fraction(0)), running.get(resource, Fraction(0))
                                         + amount)
            else:
                running[resource] = running.get(resource, Fraction(0)) + amount
    return {r: max(init_max.get(r, Fraction(0)), running.get(r, Fraction(0))) for r in NON_ZERO}


def node_allocatable(node: Node, profile: KubeletProfile | None) -> dict[str, Fraction]:
    machine = node.machine
    huge: dict[str, Fraction] = {}
    for numa in machine.numa_nodes:
        for page, pages in numa.hugepages.items():
            huge[hugepage_resource(page)] = huge.get(hugepage_resource(page), Fraction(0)) + page * pages
    memory = Fraction(sum(n.memory for n in machine.numa_nodes)) - sum(huge.values(), Fraction(0))
    cpu = Fraction(len(machine.cpus))
    if profile is not None:
        memory -= profile.allocatable_reservation("memory", memory_capacity(machine)) or Fraction(0)
        cpu -= profile.cpu_reservation() or Fraction(0)
    result = {"cpu": cpu, **huge}
    if any(n.memory for n in machine.numa_nodes):  # NodeResourceTopology objects may not report memory
        result["memory"] = memory
    for resource in machine.device_resources():
        result[resource] = Fraction(len(machine.devices_of(resource)))
    return result


def max_pods(pool: Pool, machine: Machine) -> int:
    """The pods a node takes: maxPods, lowered to podsPerCore times the CPUs the node reports (cadvisor's
    NumCores counts logical CPUs) when podsPerCore is set (pkg/kubelet/kubelet_node_status.go). Without a
    kubelet configuration: the kubelet's default, or the machine-config operator template's on OpenShift."""
    profile = pool.profile
    if profile is None:
        return OPENSHIFT_MAX_PODS if pool.openshift else 110
    if profile.pods_per_core > 0:
        return min(profile.max_pods, profile.pods_per_core * len(machine.cpus))
    return profile.max_pods


# replicas simulated per workload: at least MAX_REPLICAS, and as many as the pool could hold plus one (so a
# workload larger than its pool meets its first rejection), never more than MAX_FILLING (hostile counts stay cheap)
MAX_REPLICAS = 2000
MAX_FILLING = 20_000
MAX_SIMULATED_NUMA_NODES = 16


def _instances(view: PodView, nodes: int, allocatable: dict[str, Fraction], wanted: dict[str, Fraction],
               max_pods: int) -> int:
    """How many pods of the workload are simulated: a DaemonSet's one per node; a controller's replicas up to
    what fills the pool plus one (identical replicas after a rejection are rejected the same way)."""
    if view.ref.kind == "DaemonSet":
        return nodes
    room = [allocatable.get(r, Fraction(0)) * nodes // amount for r, amount in wanted.items() if amount > 0]
    room.append(max_pods * nodes)
    filling = int(min(room)) + 1
    return min(view.replicas, max(MAX_REPLICAS, min(filling, MAX_FILLING)))


def simulate(pools: Sequence[Pool], pods: Sequence[PodView], sriov: SriovCatalog, version: tuple[int, int],
             node_state: str | None = None, matcher: PoolMatcher | None = None) -> Simulation[PoolRun]:
    """Admit ``pods`` on every pool that has a topology (``node_state``: a node's checkpoint directory,
    applied to the first node of the first pool; ``matcher``: the pools of each workload, shared with the
    analysis)."""
    matcher = matcher or PoolMatcher(pools)
    results: list[PoolRun] = []
    by_pool: dict[int, PoolRun] = {}
    for pool in pools:
        if pool.topology is None:
            continue
        machine = pool_machine(sriov, pool)
        settings = settings_from_profile(pool.profile, version, pool.topology.attributes, machine)
        pool_run = PoolRun(pool, settings, machine)
        gates = pool.profile.feature_gates if pool.profile is not None else {}
        pool_run.pod_level_managers = version >= (1, 36) and gates.get("PodLevelResourceManagers") is True
        results.append(pool_run)
        by_pool[id(pool)] = pool_run
        if len(pool_run.machine.numa_ids) > MAX_SIMULATED_NUMA_NODES and settings.topology_policy != "none":
            pool_run.start_error = (f"not simulated: {len(pool_run.machine.numa_ids)} NUMA nodes (numalint simulates "
                                    f"up to {MAX_SIMULATED_NUMA_NODES})")
            continue
        try:
            pool_run.nodes = _started(pool_run, pool.nodes)
        except StartError as err:
            if err.problem.reason == "no-distances":  # what the topology leaves out, not what the kubelet refuses
                pool_run.missing_distances = True
                pool_run.start_error = (f'not simulated: topology "{pool.topology.name}" declares no NUMA distances, '
                                        "which prefer-closest-numa-nodes needs")
            else:
                pool_run.start_error, pool_run.start_problem = str(err), err.problem
    problems: list[StateProblem] = []
    if node_state and results and results[0].nodes:
        files = read_state(node_state)
        problems = list(files.problems) + apply_state(results[0].nodes[0], files)
        results[0].node_state = node_state
    queue: list[tuple[PoolRun, PodView, dict[str, int], dict[str, Fraction], dict[str, Fraction]]] = []
    amounts: dict[int, dict[str, set[Fraction]]] = {}
    simulated: dict[int, tuple[list[Pool], list[Pool]]] = {}  # a matcher's list (kept): those of it simulated
    for view in pods:
        candidates = matcher(view)  # shared by every workload of the same node selection
        if id(candidates) not in simulated:
            simulated[id(candidates)] = (candidates, [p for p in candidates if id(p) in by_pool])
        matching = simulated[id(candidates)][1]
        if not matching:
            continue
        pool_run = by_pool[id(matching[0])]
        injected = sriov.network_resources(view)[0]
        wanted, scored = scheduler_requests(view, injected)  # the same for every replica
        if view.needs_cpu_manager and len(matching) > 1:  # a VM KubeVirt steers to every static pool: one it fits
            pool_run = _fitting([by_pool[id(p)] for p in matching], wanted) or pool_run
        if pool_run.start_error:
            continue
        queue.append((pool_run, view, injected, wanted, scored))
        seen = amounts.setdefault(id(pool_run), {})
        for resource, amount in (*wanted.items(), *scored.items()):
            seen.setdefault(resource, set()).add(amount)
    for pool_run in results:
        if pool_run.nodes:
            pool_run.allocatable = node_allocatable(pool_run.nodes[0], pool_run.pool.profile)
            pool_run.max_pods = max_pods(pool_run.pool, pool_run.nodes[0].machine)
            pool_run.scheduler = PoolScheduler(pool_run.allocatable, len(pool_run.nodes),
                                               amounts.get(id(pool_run), {}), pool_run.max_pods)
    for pool_run, view, injected, wanted, scored in queue:
        _place(pool_run, view, injected, wanted, scored)
    return Simulation(tuple(results), tuple(problems))


def _fitting(candidates: Sequence[PoolRun], wanted: dict[str, Fraction]) -> PoolRun | None:
    """The first pool among ``candidates`` whose nodes can hold ``wanted`` at all (what the scheduler's filter
    finds among the nodes of several pools)."""
    for pool_run in candidates:
        if pool_run.start_error or not pool_run.nodes:
            continue
        allocatable = node_allocatable(pool_run.nodes[0], pool_run.pool.profile)
        if all(amount <= allocatable.get(resource, Fraction(0)) for resource, amount in wanted.items() if amount):
            return pool_run
    return None


def replay_pool(original: PoolRun, settings: KubeletSettings, machine: Machine,
                sriov: SriovCatalog) -> PoolRun | None:
    """The pool's workloads placed again, the scheduler included, under other kubelet settings or hardware (what
    the fix search tries); None when such a kubelet does not start. A pod admitted now takes room that pushes
    later pods elsewhere, as in the cluster: replaying the old placements would not."""
    pool_run = PoolRun(original.pool, settings, machine, pod_level_managers=original.pod_level_managers)
    try:
        pool_run.nodes = _started(pool_run, original.pool.nodes)
    except StartError:
        return None
    resume = original.first_rejection if _resumable(original, settings, machine) else None
    if resume is not None:
        for node, before in zip(pool_run.nodes, resume.nodes, strict=True):
            node.take_state(before)
    elif original.node_state and pool_run.nodes:  # the node's checkpoint, as the simulation started from it
        apply_state(pool_run.nodes[0], read_state(original.node_state))
    views = list({id(p.view): p.view for p in original.pods}.values())
    queue = []
    amounts: dict[str, set[Fraction]] = {}
    for view in views:
        injected = sriov.network_resources(view)[0]
        wanted, scored = scheduler_requests(view, injected)
        queue.append((view, injected, wanted, scored))
        for resource, amount in (*wanted.items(), *scored.items()):
            amounts.setdefault(resource, set()).add(amount)
    if pool_run.nodes:
        pool_run.allocatable = node_allocatable(pool_run.nodes[0], pool_run.pool.profile)
        pool_run.max_pods = max_pods(pool_run.pool, pool_run.nodes[0].machine)
        pool_run.scheduler = PoolScheduler(pool_run.allocatable, len(pool_run.nodes), amounts, pool_run.max_pods)
        start = 0
        if resume is not None:
            pool_run.scheduler, pool_run.pods = resume.scheduler.copy(), original.pods[:resume.position]
            queue = queue[next(i for i, entry in enumerate(queue) if entry[0] is resume.view):]
            start = resume.replica
        for view, injected, wanted, scored in queue:
            _place(pool_run, view, injected, wanted, scored, start)
            start = 0
    return pool_run


def _resumable(original: PoolRun, settings: KubeletSettings, machine: Machine) -> bool:
    """Whether the pool placed again under ``settings`` places every pod before the first the kubelet rejected as it
    is placed now, so that a replay can start there: when the only change is a topologyManagerPolicy of
    best-effort instead of restricted or single-numa-node, on the same hardware.

    restricted merges the providers' hints as best-effort does and admits only a preferred hint; so an admitted pod
    gets the same hint, CPUs, memory and devices under best-effort (the same placements, hence the same state for
    every later pod). single-numa-node keeps only each provider's preferred single-NUMA hints: for a pod it admits,
    every provider's preferred hints are single-NUMA ones (a provider's preferred hints all span its fewest NUMA
    nodes; one left with none rejects the pod), and best-effort, merging all hints, still picks the narrowest
    preferred one, the same mask, when masks of one NUMA node compare as numbers (not by distance:
    prefer-closest-numa-nodes, which single-numa-node ignores) and on two NUMA nodes or more. One difference stays:
    where every provider has no preference, single-numa-node passes on no affinity and best-effort all NUMA nodes, which
    allocate the same (nothing aligned, or devices of no NUMA node) but report other NUMA nodes; the fix search
    reads only which pods are admitted. Pods the scheduler finds no node for meet the same nodes either way.
    tests/test_scheduler_equivalence.py compares such replays with whole ones."""
    before = original.settings
    if machine is not original.machine or before.topology_policy not in ("restricted", "single-numa-node"):
        return False
    if settings != replace(before, topology_policy="best-effort"):
        return False
    if before.topology_policy == "single-numa-node":
        closest = original.nodes[0].manager.options.prefer_closest if original.nodes else True
        if closest or len(machine.numa_ids) < 2:
            return False
    return original.first_rejection is not None


def _started(pool_run: PoolRun, count: int) -> list[Node]:
    """``_nodes``; where the topology declares no NUMA distances for prefer-closest-numa-nodes but none could change
    a placement (``_distances_moot``), the nodes are built with stand-in distances (the pool's machine stays as
    declared: a replay under other settings, the fix search's, decides again)."""
    try:
        return _nodes(pool_run, count)
    except StartError as err:
        if err.problem.reason != "no-distances" or not _distances_moot(pool_run.settings, pool_run.machine):
            raise
        return _nodes(pool_run, count, _with_stand_in_distances(pool_run.machine))


def _distances_moot(settings: KubeletSettings, machine: Machine) -> bool:
    """Whether no NUMA distances could change a placement: single-numa-node ignores prefer-closest-numa-nodes
    (topologymanager NewHintMerger), and on two NUMA nodes no two equally wide masks differ in average distance
    while each node's distance to itself is the same (10, the ACPI SLIT's, which sysfs reports)."""
    if settings.topology_policy == "single-numa-node":
        return True
    ids = machine.numa_ids
    return len(ids) <= 2 and all(node.distances[ids.index(node.id)] == 10 for node in machine.numa_nodes
                                 if node.distances is not None and len(node.distances) == len(ids))


def _with_stand_in_distances(machine: Machine) -> Machine:
    """``machine`` with distances for nodes that declare none (10 to itself, 20 to the others): the kubelet reads
    them from sysfs, and where they are moot (``_distances_moot``) any such row gives its placements."""
    ids = machine.numa_ids
    nodes = [node if node.distances is not None and len(node.distances) == len(ids)
             else replace(node, distances=[10 if other == node.id else 20 for other in ids])
             for node in machine.numa_nodes]
    return Machine(nodes, machine.cpus, machine.devices)


def _nodes(pool_run: PoolRun, count: int, machine: Machine | None = None) -> list[Node]:
    """``count`` fresh nodes of the pool (of ``machine``, else the pool's): the kubelet is built once, the others
    start as copies of its empty allocation state (every node of a pool has the same hardware and
    configuration)."""
    if count <= 0:
        return []
    first = Node(machine or pool_run.machine, pool_run.settings, f"{pool_run.pool.name}-0")
    nodes = [first]
    for i in range(1, count):
        node = first.snapshot()
        node.name = f"{pool_run.pool.name}-{i}"
        nodes.append(node)
    return nodes


def pool_machine(sriov: SriovCatalog, pool: Pool, exclude: set[str] | None = None) -> Machine:
    """The pool's hardware plus the SR-IOV VFs its node policies create."""
    assert pool.topology is not None
    machine = online_machine(pool.topology.machine, pool.profile)  # offline CPUs are never allocated
    vfs = sriov.vfs(pool.topology, pool.node_labels or None, exclude)
    if not vfs:
        return machine
    return Machine(machine.numa_nodes, machine.cpus, machine.devices + vfs)


def _place(pool_run: PoolRun, view: PodView, injected: dict[str, int], wanted: dict[str, Fraction],
           scored: dict[str, Fraction], start: int = 0) -> None:
    """Schedule and admit the workload's replicas (from replica ``start``: a replay's first rejection)."""
    scheduler = pool_run.scheduler
    assert scheduler is not None
    scaled, scored_scaled = scheduler.scaled(wanted), scheduler.scaled(scored)
    count = _instances(view, len(pool_run.nodes), pool_run.allocatable, wanted, pool_run.max_pods)
    ns = f"{view.ref.namespace}/" if view.ref.namespace else ""
    # KubeVirt's cpumanager=true nodeSelector on a pool whose kubelet (given, not defaulted) is not static
    unlabelled = (view.needs_cpu_manager and pool_run.pool.profile is not None
                  and pool_run.settings.cpu_policy != "static")
    for index in range(start, count):
        # a role's pods are numbered even when alone (the training operators name them train-master-0)
        suffix = f"-{index}" if count > 1 or view.ref.part is not None else ""
        name = f"{ns}{view.ref.pod_prefix()}{suffix}"
        spec = pod_spec(view, name, injected, pool_run.pod_level_managers)
        pod = PodRun(view, name, pool_run.pool, spec)
        if unlabelled:  # KubeVirt's nodeSelector: the pool's nodes are labelled cpumanager=false
            pod.admission = Admission(False, UNSCHEDULABLE, no_cpu_manager_message([pool_run.pool]))
            pool_run.pods.append(pod)
            break  # every replica meets the same labels
        if view.ref.kind == "DaemonSet":
            chosen: int | None = index if scheduler.fits(index, scaled) else None
        else:
            chosen = scheduler.pick(scaled)
        if chosen is None:
            bound = index if view.ref.kind == "DaemonSet" else None  # a DaemonSet's pod waits for its own node
            pod.admission = Admission(False, UNSCHEDULABLE, _unschedulable_message(pool_run, wanted, bound))
            pool_run.pods.append(pod)
        else:
            node = pool_run.nodes[chosen]
            pod.node = node.name
            pod.admission = node.admit(spec)
            if pod.admission.admitted:
                scheduler.bind(chosen, scaled, scored_scaled)
            else:
                pod.before = _state_before(pool_run, node)  # a rejection leaves the node as it was just before
                if pool_run.first_rejection is None:
                    pool_run.first_rejection = FirstRejection(len(pool_run.pods), view, index,
                                                              [n.snapshot() for n in pool_run.nodes], scheduler.copy())
            pool_run.pods.append(pod)
        if index >= MAX_REPLICAS and not pod.admission.admitted and view.ref.kind != "DaemonSet":
            break  # beyond the first replicas, one rejection stands for the rest: they meet the same state


def _state_before(pool_run: PoolRun, node: Node) -> Node:
    """A copy of ``node`` as it is after rejecting a pod: the copy made at its last rejection when it has admitted
    nothing since (what reads it only reads it)."""
    kept = pool_run.rejected_on.get(id(node))
    if kept is not None and kept[0] is node and kept[1] == node.pods:
        return kept[2]
    copy = node.snapshot()
    pool_run.rejected_on[id(node)] = (node, node.pods, copy)
    return copy


def no_cpu_manager_message(pools: Sequence[Pool]) -> str:
    """Why a KubeVirt VM with dedicated CPUs stays Pending on ``pools`` (whose kubelets are given, none static)."""
    policies = ", ".join(sorted({f'"{p.profile.cpu_manager_policy}"' for p in pools if p.profile is not None}))
    names = ", ".join(f'pool "{p.name}"' for p in pools)
    return (f"KubeVirt puts a VM with dedicatedCpuPlacement only on nodes labelled cpumanager=true, which virt-handler "
            f"sets where the kubelet runs the static CPU manager; the kubelet of {names} runs cpuManagerPolicy "
            f"{policies} {NO_CPU_MANAGER}; it stays Pending")


def _unschedulable_message(pool_run: PoolRun, wanted: dict[str, Fraction], bound: int | None = None) -> str:
    """Why no node takes the pod (``bound``: the node a DaemonSet's pod is for)."""
    allocatable = pool_run.allocatable
    short = [r for r, amount in wanted.items() if amount and amount > allocatable.get(r, Fraction(0))]
    if short:
        parts = [f"{r} {format_quantity(r, wanted[r])} > allocatable {format_quantity(r, allocatable.get(r, 0))}"
                 if not is_extended(r) else f"{r} {int(wanted[r])} > {int(allocatable.get(r, 0))}" for r in short]
        return f"no node of pool \"{pool_run.pool.name}\" {NEVER_FITS} ({'; '.join(parts)}); it stays Pending"
    scheduler = pool_run.scheduler
    if bound is not None:
        node = pool_run.nodes[bound].name
        if scheduler is not None and scheduler.full_of_pods(bound):
            return f"node {node} already runs its maxPods of {pool_run.max_pods} pods {TOO_MANY_PODS}; it stays Pending"
        return f"node {node} has no room left for it; it stays Pending"
    if scheduler is not None and scheduler.full_of_pods():
        return (f"every node of pool \"{pool_run.pool.name}\" already runs its maxPods of {pool_run.max_pods} pods "
                f"{TOO_MANY_PODS}; it stays Pending")
    return f"no node of pool \"{pool_run.pool.name}\" has room left for it; it stays Pending"

