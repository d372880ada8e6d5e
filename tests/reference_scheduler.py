"""The scheduler as it was before issue 13, frozen as the reference the fast one must agree with.

A copy of the original ``simulation.simulate`` placement loop: every pod scans every node of its pool,
recomputing the node's allocatable resources and its least-allocated score with ``Fraction``s. Slow
(pods x nodes) but obviously right; only the tests use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from numalint.alignment.memory_static import hugepage_resource
from numalint.alignment.node import Admission, KubeletSettings, Node, PodSpec
from numalint.alignment.startup import StartError
from numalint.analysis import Analysis
from numalint.model.pools import Pool, pools_for
from numalint.simulation.node_state import apply_state, read_state
from numalint.simulation.simulate import (
    MAX_SIMULATED_NUMA_NODES,
    PodRun,
    PoolRun,
    pod_spec,
    pool_machine,
    settings_from_profile,
)
from numalint.views.kubelet import KubeletProfile
from numalint.views.workloads import PodView

MAX_REPLICAS = 2000


@dataclass
class Placement:
    name: str
    node: str | None
    admission: Admission


@dataclass
class ReferencePool:
    pool: Pool
    nodes: list[Node] = field(default_factory=list)
    requested: dict[str, dict[str, Fraction]] = field(default_factory=dict)
    scored: dict[str, dict[str, Fraction]] = field(default_factory=dict)  # the non-zero requests on each node
    start_error: str | None = None
    pods: list[Placement] = field(default_factory=list)


def pod_requests(spec: PodSpec) -> dict[str, Fraction]:
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
    return {r: max(init_max.get(r, Fraction(0)), running.get(r, Fraction(0))) for r in set(init_max) | set(running)}


def node_allocatable(node: Node, profile: KubeletProfile | None) -> dict[str, Fraction]:
    machine = node.machine
    huge: dict[str, Fraction] = {}
    for numa in machine.numa_nodes:
        for page, pages in numa.hugepages.items():
            huge[hugepage_resource(page)] = huge.get(hugepage_resource(page), Fraction(0)) + page * pages
    memory = Fraction(sum(n.memory for n in machine.numa_nodes)) - sum(huge.values(), Fraction(0))
    cpu = Fraction(len(machine.cpus))
    if profile is not None:
        capacity = sum(n.memory for n in machine.numa_nodes) if any(n.memory for n in machine.numa_nodes) else None
        memory -= profile.allocatable_reservation("memory", capacity) or Fraction(0)
        cpu -= profile.cpu_reservation() or Fraction(0)
    result = {"cpu": cpu, **huge}
    if any(n.memory for n in machine.numa_nodes):
        result["memory"] = memory
    for resource in machine.device_resources():
        result[resource] = Fraction(len(machine.devices_of(resource)))
    return result


def non_zero_requests(view: PodView) -> dict[str, Fraction]:
    """cpu and memory as the scheduler's score counts them: a container's missing request is 100m / 200MB."""
    pod: dict[str, Fraction] = {}
    for resource, default in (("cpu", Fraction(1, 10)), ("memory", Fraction(200 * 1024 * 1024))):
        running = sum((c.requests.get(resource, default) for c in view.containers if not c.init or c.sidecar),
                      Fraction(0))
        init = max((c.requests.get(resource, default) + sum(
            (s.requests.get(resource, default) for s in view.containers[:i] if s.sidecar), Fraction(0))
            for i, c in enumerate(view.containers) if c.init and not c.sidecar), default=Fraction(0))
        pod[resource] = max(running, init)
    return pod


def _schedule(pool_run: ReferencePool, nodes: list[Node], spec: PodSpec, scored: dict[str, Fraction]) -> Node | None:
    wanted = pod_requests(spec)
    best: Node | None = None
    best_score = Fraction(0)
    for node in nodes:
        allocatable = node_allocatable(node, pool_run.pool.profile)
        used = pool_run.requested.get(node.name, {})
        if any(amount > allocatable.get(r, Fraction(0)) - used.get(r, Fraction(0))
               for r, amount in wanted.items() if amount and (r in allocatable or r != "memory")):
            continue
        scored_resources = [r for r in ("cpu", "memory") if allocatable.get(r)]
        if sum(((allocatable[r] - used.get(r, Fraction(0)) - wanted.get(r, Fraction(0))) / allocatable[r]
                for r in scored_resources), Fraction(0)) <= -1:
            continue
        counted = pool_run.scored.get(node.name, {})
        score = sum(((allocatable[r] - counted.get(r, Fraction(0)) - scored[r]) / allocatable[r]
                     for r in scored_resources), Fraction(0))
        if best is None or score > best_score:
            best, best_score = node, score
    return best


def _place(pool_run: ReferencePool, view: PodView, injected: dict[str, int]) -> None:
    count = len(pool_run.nodes) if view.ref.kind == "DaemonSet" else min(view.replicas, MAX_REPLICAS)
    ns = f"{view.ref.namespace}/" if view.ref.namespace else ""
    for index in range(count):
        suffix = f"-{index}" if count > 1 else ""
        name = f"{ns}{view.ref.name}{suffix}"
        spec = pod_spec(view, name, injected)
        targets = [pool_run.nodes[index]] if view.ref.kind == "DaemonSet" else pool_run.nodes
        scored = non_zero_requests(view) if view.pod_resources is None else pod_requests(spec)
        node = _schedule(pool_run, targets, spec, scored)
        if node is None:
            pool_run.pods.append(Placement(name, None, Admission(False, "Unschedulable")))
            continue
        admission = node.admit(spec)
        if admission.admitted:
            used = pool_run.requested.setdefault(node.name, {})
            for resource, amount in pod_requests(spec).items():
                used[resource] = used.get(resource, Fraction(0)) + amount
            counted = pool_run.scored.setdefault(node.name, {})
            for resource in ("cpu", "memory"):
                counted[resource] = counted.get(resource, Fraction(0)) + scored.get(resource, Fraction(0))
        pool_run.pods.append(Placement(name, node.name, admission))


def reference_simulation(analysis: Analysis, changed: tuple[Pool, KubeletSettings] | None = None
                         ) -> list[ReferencePool]:
    """Re-run the run's placements with the original scheduler (``changed``: one pool under other settings)."""
    results: list[ReferencePool] = []
    by_pool: dict[int, ReferencePool] = {}
    for pool in analysis.pools:
        if pool.topology is None:
            continue
        machine = pool_machine(analysis.sriov, pool)
        settings = settings_from_profile(pool.profile, analysis.version, pool.topology.attributes, machine)
        if changed is not None and changed[0] is pool:
            settings = changed[1]
        pool_run = ReferencePool(pool)
        results.append(pool_run)
        by_pool[id(pool)] = pool_run
        if len(machine.numa_ids) > MAX_SIMULATED_NUMA_NODES and settings.topology_policy != "none":
            pool_run.start_error = "too many NUMA nodes"
            continue
        try:
            pool_run.nodes = [Node(machine, settings, f"{pool.name}-{i}") for i in range(pool.nodes)]
        except StartError as err:
            pool_run.start_error = str(err)
    node_state = analysis.options.node_state
    if node_state and results and results[0].nodes:
        apply_state(results[0].nodes[0], read_state(node_state))
    for view in analysis.pods:
        matching = [p for p in pools_for(analysis.pools, view) if id(p) in by_pool]
        if not matching:
            continue
        pool_run = by_pool[id(matching[0])]
        if pool_run.start_error:
            continue
        _place(pool_run, view, analysis.sriov.network_resources(view)[0])
    return results


def admitted_with_whole_pool(analysis: Analysis, pool_run: PoolRun, target: PodRun,
                             settings: KubeletSettings) -> bool:
    """The fix verification, plainly: the whole run placed again with the original scheduler under ``settings``
    admits the target and every pod admitted now."""
    if pool_run.pool.topology is None or target.node is None:
        return False
    again = next(p for p in reference_simulation(analysis, (pool_run.pool, settings)) if p.pool is pool_run.pool)
    if again.start_error:
        return False
    admitted = {p.name for p in again.pods if p.admission.admitted}
    before = {p.name for p in pool_run.pods if p.admission is not None and p.admission.admitted}
    return before <= admitted and target.name in admitted
