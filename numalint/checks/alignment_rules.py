"""Checks that need the declared topology and the simulated admission (pkg/kubelet/cm/topologymanager, cpumanager,
memorymanager)."""

from __future__ import annotations

from collections.abc import Iterator

from numalint.alignment.cpu_static import StaticPolicy
from numalint.alignment.cputopo import CPUTopology
from numalint.alignment.machine import Machine
from numalint.alignment.node import (
    ContainerSpec,
    Node,
    PodSpec,
    effective_requests,
    settings_problems,
)
from numalint.analysis import Analysis
from numalint.checks.kubelet_rules import gate_fix, reserved_cgroups
from numalint.checks.registry import check
from numalint.findings import Fix, Hit, ObjectRef, Related
from numalint.k8s.cpuset import format_cpuset
from numalint.k8s.quantity import format_bytes
from numalint.k8s.versions import TOPOLOGY_GATES, TOPOLOGY_OPTIONS, gate_enabled
from numalint.model.pools import Pool
from numalint.reading.locate import Path, locate
from numalint.reading.yamlpos import Span
from numalint.simulation.fixes import (
    absent_fix,
    cpus_to_reserve,
    fit_fix,
    free_summary,
    reserving_keeps_admitted,
    smt_fix,
    unschedulable_fix,
    verified_fixes,
)
from numalint.simulation.simulate import (
    MAX_SIMULATED_NUMA_NODES,
    NO_CPU_MANAGER,
    UNSCHEDULABLE,
    PodRun,
    PoolRun,
    no_cpu_manager_message,
    pod_spec,
)
from numalint.views.kubelet import KubeletProfile
from numalint.views.workloads import ContainerView, PodView, is_extended

MAX_FIX_SEARCHES = 25


def _pod_finding(analysis: Analysis, pod: PodRun, message: str, fix: Fix | None,
                 severity: str | None = None) -> Hit:
    return Hit(message, pod.view.file, pod.view.anchor(), pod.view.ref, fix, severity,
               pool_related(analysis, pod.pool, pod.spec))


def pool_related(analysis: Analysis, pool: Pool, spec: PodSpec | None = None) -> tuple[Related, ...]:
    """What decides a pod's fate besides the pod: its pool's kubelet configuration and topology, and the
    SR-IOV policies behind the VFs it asks for (a change to any of them is reported on the pod)."""
    related = []
    if pool.profile is not None:
        related.append(Related(pool.profile.file, pool.profile.anchor(),
                               f'kubelet configuration "{pool.profile.name}" of pool "{pool.name}"'))
    if pool.topology is not None:
        related.append(Related(pool.topology.file, pool.topology.anchor(), f'topology of pool "{pool.name}"'))
    wanted = {r for c in spec.containers for r in c.devices} if spec is not None else set()
    for policy in analysis.sriov.policies:
        if policy.resource in wanted:
            related.append(Related(policy.doc.file, locate(policy.doc.root, ("metadata", "name")),
                                   f'SriovNetworkNodePolicy "{policy.ref.name}" creates its VFs'))
    return tuple(related)


@check("admission-failure")
def admission_failure(analysis: Analysis) -> Iterator[Hit]:
    yield from _vms_without_cpu_manager(analysis)
    searched = 0
    for pool_run in analysis.pool_runs:
        unscheduled: dict[tuple[int, str], tuple[Fix, tuple[Related, ...]]] = {}
        for pod in pool_run.pods:
            admission = pod.admission
            if admission is None or admission.admitted or admission.reason == "SMTAlignmentError":
                continue
            where = f'pool "{pool_run.pool.name}" ({pool_run.pool.why})'
            if admission.reason == UNSCHEDULABLE:
                message = admission.message
                # the replicas of a workload the pool has no room for meet the same state: their fix and related
                # places are worked out once (thousands of workloads of 2,000 replicas each took minutes)
                key = (id(pod.view), message)
                said = unscheduled.get(key)
                if said is None:
                    fix = (unschedulable_fix(message, pod.view) if NO_CPU_MANAGER in message
                           else absent_fix(pool_run, pod) or unschedulable_fix(message, pod.view))
                    said = unscheduled[key] = (Fix(fix), pool_related(analysis, pod.pool, pod.spec))
                yield Hit(f"pod {pod.name} cannot be scheduled in {where}: {message}", pod.view.file,
                          pod.view.anchor(), pod.view.ref, said[0], None, said[1])
                continue
            state = free_summary(pod.before) if pod.before else ""
            fixes = (verified_fixes(analysis.sriov, pool_run, pod, analysis.pool_runs) if searched < MAX_FIX_SEARCHES
                     else [])
            searched += 1
            description = "; or ".join(fixes) if fixes else "no single change found that admits it on this node"
            yield _pod_finding(
                analysis, pod,
                f"the kubelet on {pod.node} rejects pod {pod.name} ({where}): {admission.reason}: "
                f"{admission.message}. Free at that moment: {state}",
                Fix(description))


@check("smt-alignment")
def smt_alignment(analysis: Analysis) -> Iterator[Hit]:
    for pool_run in analysis.pool_runs:
        for pod in pool_run.pods:
            if pod.admission is not None and pod.admission.reason == "SMTAlignmentError":
                per_core = pool_run.nodes[0].topo.cpus_per_core if pool_run.nodes else 1
                yield _pod_finding(
                    analysis, pod,
                    f"the kubelet on {pod.node} rejects pod {pod.name}: SMTAlignmentError: {pod.admission.message} "
                    f"(full-pcpus-only hands out whole cores of {per_core} threads)",
                    Fix(smt_fix(per_core, pod.view, pod.admission.message)))


def _requests_of(node: Node, spec: PodSpec, scope: str) -> list[tuple[str, dict[str, int]]]:
    """(what, resource -> amount) the Topology Manager aligns: per container or for the whole pod."""

    def aligned(c: ContainerSpec) -> dict[str, int]:
        cpus = node.exclusive_cpus(spec, c) if node.cpu is not None else 0
        devices = {k: v for k, v in c.devices.items()
                   if v and any(d.numa is not None for d in node.machine.devices_of(k))}
        return {**({"cpu": cpus} if cpus else {}), **node.pinned_memory(spec, c), **devices}

    if scope == "pod":
        return [("the pod", effective_requests(spec, aligned))]
    return [(f'container "{c.name}"', aligned(c)) for c in spec.containers]


@check("exceeds-numa-node")
def exceeds_numa_node(analysis: Analysis) -> Iterator[Hit]:
    for pool_run in analysis.pool_runs:
        policy = pool_run.settings.topology_policy
        if policy == "none" or not pool_run.nodes:
            continue
        node = pool_run.nodes[0]
        capacity = node.capacity()
        severity = "info" if policy == "best-effort" else "error"
        seen: set[tuple[str, ObjectRef]] = set()
        for view, spec in _one_pod_each(analysis, pool_run):
            if (view.file, view.ref) in seen:
                continue
            seen.add((view.file, view.ref))
            for what, wanted in _requests_of(node, spec, pool_run.settings.topology_scope):
                over, devices = [], []
                for resource, amount in wanted.items():
                    best = max((cap.get(resource, 0) for cap in capacity.values()), default=0)
                    if amount > best:
                        over.append(_describe(resource, amount, best))
                        devices += [resource] if is_extended(resource) else []
                if over and policy == "best-effort" and len(devices) == len(over):
                    continue  # more devices than a NUMA node holds (a whole-node job): best-effort spans, as meant
                if over:
                    yield Hit(f"{what} of {view.ref.label()} asks for more than any single NUMA node of pool "
                        f'"{pool_run.pool.name}" can provide after reservations: {"; ".join(over)}. Under '
                        f"{policy} " + ("it is placed across NUMA nodes" if policy == "best-effort" else
                                        "it cannot be aligned to one NUMA node"),
                        view.file, view.anchor(), view.ref,
                        Fix(fit_fix(view, devices, policy)), severity,
                        pool_related(analysis, pool_run.pool, spec))


def _one_pod_each(analysis: Analysis, pool_run: PoolRun) -> Iterator[tuple[PodView, PodSpec]]:
    """A pod of each workload the pool runs, and of each template the run sends to the pool whose pods run at
    another time than the others' (a JobSet step done before the next, a Ray group an autoscaler grows): alone, it
    must still fit one NUMA node. A template that never runs a pod (a LeaderWorkerSet's workers at size 1, a
    Volcano task without replicas) is not judged."""
    for pod in pool_run.pods:
        yield pod.view, pod.spec
    for view in analysis.pods:
        if view.runs_alone and next(iter(analysis.pools_for(view)), None) is pool_run.pool:
            injected = analysis.sriov.network_resources(view)[0]
            yield view, pod_spec(view, view.ref.pod_prefix(), injected, pool_run.pod_level_managers)


def _vms_without_cpu_manager(analysis: Analysis) -> Iterator[Hit]:
    """A KubeVirt VM with dedicatedCpuPlacement whose pools are not simulated (no topology) and whose kubelets all
    run another CPU manager policy than static: its virt-launcher pod asks for nodes labelled cpumanager=true and
    virt-handler labels none (the simulation says the same of a simulated pool)."""
    for view in analysis.pods:
        if not view.needs_cpu_manager:  # judged as started, as every VM (runStrategy says when, not where)
            continue
        pools = analysis.pools_for(view)
        if not pools or any(p.topology is not None or p.profile is None or p.profile.cpu_manager_policy == "static"
                            for p in pools):
            continue
        message = no_cpu_manager_message(pools)
        yield Hit(f"{view.ref.label()} cannot be scheduled: {message}", view.file, view.anchor(), view.ref,
                  Fix(unschedulable_fix(message, view)), None,
                  tuple(r for p in pools for r in pool_related(analysis, p)))


def _describe(resource: str, amount: int, best: int) -> str:
    if resource == "cpu":
        return f"{amount} CPUs requested, at most {best} exclusive CPUs on one NUMA node"
    if resource == "memory" or resource.startswith("hugepages-"):
        return f"{resource} {format_bytes(amount)} requested, at most {format_bytes(best)} on one NUMA node"
    return f"{amount} {resource} requested, at most {best} on one NUMA node"


@check("too-many-numa-nodes")
def too_many_numa_nodes(analysis: Analysis) -> Iterator[Hit]:
    """The Topology Manager's NUMA node limit (from the core), and pools too large for numalint to simulate."""
    for pool_run in analysis.pool_runs:
        pool, profile = pool_run.pool, pool_run.pool.profile
        if pool.topology is None or profile is None or pool_run.settings.topology_policy == "none":
            continue
        count = len(pool_run.machine.numa_ids)
        refused = [p for p in settings_problems(pool_run.settings, pool_run.machine.numa_ids)
                   if p.reason == "too-many-numa-nodes"]
        if refused:
            yield Hit(f'topology "{pool.topology.name}" has {count} NUMA nodes and topologyManagerPolicy is '
                      f'"{profile.topology_policy}": the kubelet refuses to start ({refused[0].message})',
                      profile.file, profile.span("topologyManagerPolicy"), profile.ref,
                      Fix(_too_many_numa_fix(profile, count, analysis.version)))
        elif count > MAX_SIMULATED_NUMA_NODES:  # the kubelet starts, but numalint cannot follow it
            yield Hit(f'topology "{pool.topology.name}" has {count} NUMA nodes: numalint simulates at most '
                      f"{MAX_SIMULATED_NUMA_NODES}, so no pod of this pool is checked against it", profile.file,
                      profile.span("topologyManagerPolicy"), profile.ref, severity="warning")


# what an aligned pod needs on the NUMA node of its devices: its exclusive CPUs, and its memory where the Static
# memory manager pins it (without it memory is not tracked per NUMA node and never runs out here)
_COMPANIONS = ("cpu", "memory")


@check("numa-imbalance")
def numa_imbalance(analysis: Analysis) -> Iterator[Hit]:
    """Devices left idle on a NUMA node whose CPUs (or pinned memory) the simulated placements used up. Under
    single-numa-node or restricted, a Guaranteed pod asking for such a device needs its exclusive CPUs on the
    device's NUMA node too. Reported when that is where the next such pod goes and is rejected
    (TopologyAffinityError): the node still has CPUs on another NUMA node (else it is simply full and the scheduler
    passes it by), and no node of the pool has that device free with CPUs beside it (the scheduler would prefer
    it). A NUMA node full beside an empty one strands nothing by itself."""
    for pool_run in analysis.pool_runs:
        if (pool_run.pool.topology is None
                or pool_run.settings.topology_policy not in ("single-numa-node", "restricted")
                or not any(p.admission and p.admission.admitted for p in pool_run.pods)):
            continue
        tables = [(node, node.capacity(), node.free()) for node in pool_run.nodes]
        usable = {r for _node, _capacity, free in tables for numa in free for r in free[numa]
                  if is_extended(r) and free[numa][r] > 0 and all(free[numa].get(c, 1) > 0 for c in _COMPANIONS)}
        reported: set[str] = set()
        for node, capacity, free in tables:
            for numa in sorted(capacity):
                spent = [r for r in _COMPANIONS if capacity[numa].get(r, 0) > 0 and free[numa].get(r, 0) == 0]
                idle = {r: free[numa][r] for r in sorted(capacity[numa]) if is_extended(r)
                        and free[numa].get(r, 0) > 0 and r not in usable and r not in reported}
                elsewhere = any(free[other].get("cpu", 0) > 0 for other in free if other != numa)
                if not spent or not idle or not elsewhere:
                    continue
                reported |= set(idle)
                yield _stranded(pool_run, node, numa, spent, idle)


def _stranded(pool_run: PoolRun, node: Node, numa: int, spent: list[str], idle: dict[str, int]) -> Hit:
    topo = pool_run.pool.topology
    assert topo is not None
    words = {"cpu": "exclusive CPUs", "memory": "memory"}
    needs = " and ".join({"cpu": "its CPUs", "memory": "its memory"}[r] for r in spent)
    devices = ", ".join(f"{count} {r}" for r, count in idle.items())
    # who took the NUMA node: pods that need no device there can go elsewhere; device pods need fewer CPUs each
    here = [(p, p.admission) for p in pool_run.pods if p.node == node.name and p.admission is not None
            and p.admission.admitted and numa in p.admission.numa_nodes]
    takers = [p.view for p, admission in here if not any(c.devices for c in admission.containers)]
    # a DaemonSet runs on every node: it can only ask for less; other pods can also go elsewhere
    daemons = sorted({view.ref.name for view in takers if view.ref.kind == "DaemonSet"})
    movable = sorted({view.ref.name for view in takers if view.ref.kind != "DaemonSet"})
    kept = needs.replace("its ", "")
    lower = f"so NUMA {numa} keeps {kept} for the pods that use the devices"
    steps = ([f"run the pods that need no device ({', '.join(movable)}) on nodes without these devices (a pool of "
              f"their own) or lower their requests"] if movable else []) + (
        [f"lower the requests of the DaemonSet{'s' if len(daemons) > 1 else ''} {', '.join(daemons)}"]
        if daemons else [])
    fix = (f"{'; '.join(steps)}, {lower}" if steps else
           f"size the pods on NUMA {numa} so that each device keeps {kept} beside it (fewer CPUs per device)")
    return Hit(f"after the simulated placements on {node.name}, NUMA {numa} has no "
               f"{' and no '.join(words[r] for r in spent)} left while {devices} "
               f"{'stays' if sum(idle.values()) == 1 else 'stay'} free there and nowhere else in the pool beside free "
               f"CPUs: a Guaranteed pod asking for {'it' if sum(idle.values()) == 1 else 'them'} needs {needs} on "
               f"that NUMA node too, so under {pool_run.settings.topology_policy} the kubelet rejects it "
               "(TopologyAffinityError) while the devices sit idle", topo.file, topo.anchor(), topo.ref, Fix(fix))


# DynamicResourceAllocation: beta and off by default in 1.32-1.33, on by default (GA) from 1.34; before, the API
# server drops a pod's claims (pkg/features/kube_features.go)
DRA_ON_BY_DEFAULT = (1, 34)


@check("dra-not-aligned")
def dra_not_aligned(analysis: Analysis) -> Iterator[Hit]:
    """A Guaranteed pod whose exclusive CPUs the Topology Manager aligns (static CPU manager, restricted or
    single-numa-node) and that takes a device through a DRA claim: the kubelet's DRA manager is no hint provider (it
    prepares claims after admission), so the device lands on whatever NUMA node the scheduler's allocation picked,
    and the pod is admitted anyway. Judged per container (pod scope: for the pod): the container with whole CPUs
    takes the claim, and takes no device of a device plugin (then the claim is something else, such as an NVLink
    IMEX channel, which belongs to no NUMA node); a claim of the pod no container names counts for every container."""
    for pod in analysis.pods:
        # pod-level resources: the static policies skip the pod (no exclusive CPUs; pod-level-resources says so)
        if not pod.dra_claims or pod.qos() != "Guaranteed" or pod.pod_resources is not None:
            continue
        pool = next((p for p in analysis.pools_for(pod) if p.profile is not None
                     and p.profile.cpu_manager_policy == "static"
                     and p.profile.topology_policy in ("restricted", "single-numa-node")
                     and _dra_on(analysis.version, p.profile.feature_gates.get("DynamicResourceAllocation"))), None)
        if pool is None or pool.profile is None:
            continue
        taken = _misaligned_claims(pod, pool.profile.topology_scope == "pod")
        if not taken:
            continue
        label, claim, path = taken[0]
        others = len({name for _label, name, _path in taken}) - 1
        memory = " and memory" if pool.profile.memory_policy == "Static" else ""
        yield Hit(f"{pod.ref.label()} takes a device through Dynamic Resource Allocation beside exclusive CPUs the "
                  f'Topology Manager aligns ({pool.profile.topology_policy} on pool "{pool.name}"): {label} takes '
                  f'claim "{claim}"' + (f" (and {others} more)" if others else "") + ", and the kubelet gives the "
                  f"Topology Manager no hint for a DRA device, so the pod's CPUs{memory} are aligned with nothing "
                  "the claim gives, and it is admitted anyway",
                  pod.file, pod.span(path), pod.ref,
                  Fix("ask for the device through its device plugin (an extended resource, such as nvidia.com/gpu), "
                      "which the Topology Manager aligns; or let DRA place the CPUs too: one ResourceClaim for the "
                      "device and CPUs (a CPU DRA driver, on nodes whose kubelet runs cpuManagerPolicy none and "
                      "topologyManagerPolicy none) with a matchAttribute "
                      "constraint on resource.kubernetes.io/numaNode (or pcieRoot)"),
                  None, pool_related(analysis, pool))


def _dra_on(version: tuple[int, int], gate: bool | None) -> bool:
    """DynamicResourceAllocation: locked on from 1.35, on by default in 1.34, else as the kubelet's gate says."""
    return version >= (1, 35) or gate is True or (version >= DRA_ON_BY_DEFAULT and gate is not False)


def _misaligned_claims(pod: PodView, pod_scope: bool) -> list[tuple[str, str, Path]]:
    """(who takes it, claim, where) of each claim taken beside whole exclusive CPUs: by a container with them that
    takes no device of a device plugin (under pod scope, by any container running beside the app, when no container
    with whole CPUs takes such a device); a claim of the pod no container names, by the pod, on the same terms."""
    running = [c for c in pod.containers if not c.init or c.sidecar]  # an init container ends before the app
    whole = [c for c in running if c.whole_cpu_limit()]
    if not whole:
        return []

    def plugged(container: ContainerView) -> bool:  # a device plugin's device: the claim is something else
        return any(is_extended(r) for r in container.limits)

    aligned_pod = not any(plugged(c) for c in whole)
    taken = []
    for number, claim, path in pod.dra_claims:
        if number < 0:
            if aligned_pod:
                taken.append(("the pod", claim, path))
            continue
        container = pod.containers[number]
        if not any(container is c for c in running):
            continue
        if pod_scope and aligned_pod or any(container is c for c in whole) and not plugged(container):
            taken.append((container.label, claim, path))
    return taken


@check("reserved-cpus-on-device-numa")
def reserved_cpus_on_device_numa(analysis: Analysis) -> Iterator[Hit]:
    for pool in analysis.pools:
        profile, topo = pool.profile, pool.topology
        if profile is None or topo is None or profile.cpu_manager_policy != "static":
            continue
        machine = topo.machine
        device_numas = {d.numa for d in machine.devices if d.numa is not None}
        device_numas |= {n.numa for n in topo.nics if n.numa is not None}
        device_numas &= set(machine.numa_ids)  # a device on a NUMA node the topology does not have sits nowhere
        if not device_numas or len(device_numas) == len(machine.numa_ids):
            continue
        reserved = profile.reserved_cpus()
        if not reserved:
            reserved = _computed_reservation(profile, machine)
        numa_of = {c.id: c.numa for c in machine.cpus.values()}
        on_devices = sorted({numa_of[c] for c in reserved if numa_of.get(c) in device_numas})
        if on_devices:
            free_numas = sorted(set(machine.numa_ids) - device_numas)
            yield Hit(
                f"reserved CPUs {format_cpuset(reserved)} sit on NUMA {', '.join(map(str, on_devices))}, which hosts "
                f"the devices (GPUs/NICs), while NUMA {', '.join(map(str, free_numas))} hosts none: aligned pods "
                "lose those CPUs next to their devices", profile.file,
                profile.span("reservedSystemCPUs") if profile.has("reservedSystemCPUs") else profile.anchor(),
                profile.ref, Fix(_move_reservation_hint(analysis, pool, profile, free_numas[0], len(reserved))))


def _move_reservation_hint(analysis: Analysis, pool: Pool, profile: KubeletProfile, numa: int, count: int) -> str:
    """Reserve the same number of CPUs on a NUMA node without devices, proven on the pool's simulated pods:
    moving the reservation frees the device node's CPUs, and pods needing no device may then take them first,
    pushing a device pod out (TopologyAffinityError). Said when it does, so the author weighs it."""
    cgroups = reserved_cgroups(profile, analysis) if not profile.reserved_cpus_text else []
    if cgroups:  # CPUs reserved by quantity: naming them takes reservedSystemCPUs, refused beside these cgroups
        return (f"reserve CPUs on NUMA {numa} instead, with reservedSystemCPUs, which the kubelet refuses together "
                f"with {' and '.join(cgroups)}: remove those first")
    pool_run = next((r for r in analysis.pool_runs if r.pool is pool), None)
    chosen = cpus_to_reserve(pool_run.machine, numa, count) if pool_run is not None else None
    if pool_run is None or chosen is None:
        return f"reserve CPUs on NUMA {numa} instead"
    field = ("spec.cpu.reserved (and spec.cpu.isolated to match)" if profile.rendered_from is not None
             else "reservedSystemCPUs")
    where = f'{field}: "{format_cpuset(chosen)}"'
    if not any(p.admission is not None and p.admission.admitted for p in pool_run.pods):
        return f"reserve CPUs on NUMA {numa} instead, such as {where}"  # no pod to prove it on: nothing claimed
    if reserving_keeps_admitted(pool_run, analysis.sriov, chosen):
        return (f"reserve CPUs on NUMA {numa} instead, such as {where} (verified: every pod the pool admits stays "
                "admitted)")
    return (f"reserving CPUs on NUMA {numa} instead ({where}) would reject a pod the pool admits now (the pool placed "
            "again with them reserved); weigh that before moving them")


def _computed_reservation(profile: object, machine: object) -> frozenset[int]:
    """CPUs the kubelet picks itself from a reservation quantity (policy_static.go reservation)."""
    from math import ceil


    assert isinstance(profile, KubeletProfile) and isinstance(machine, Machine)
    amount = profile.cpu_reservation()
    if not amount:
        return frozenset()
    topo = CPUTopology.from_machine(machine)
    try:
        policy = StaticPolicy.build(topo, ceil(amount), None, {})
    except Exception:
        return frozenset()
    return policy.reserved



@check("node-state")
def node_state(analysis: Analysis) -> Iterator[Hit]:

    for problem in analysis.simulation.node_state_problems:
        yield Hit(problem.message, problem.file, Span(1, 1, 1, 1), None, Fix(problem.fix))


def _too_many_numa_fix(profile: KubeletProfile, count: int, version: tuple[int, int]) -> str:
    """Raise the limit where the target version's kubelet has the option, else turn the policy off."""
    none = "spec.numa.topologyPolicy: none" if profile.rendered_from is not None else "topologyManagerPolicy: none"
    option = _max_numa_option(profile, count, version)
    if option is None:  # before 1.31 the option is unknown: writing it is a new error (policy-option)
        return (f"use {none} (max-allowable-numa-nodes, which keeps the policy, needs Kubernetes 1.31+; the "
                f"target is {version[0]}.{version[1]})")
    return f"{option} (Kubernetes 1.31+; expect slower admission) or use {none}"


def _max_numa_option(profile: KubeletProfile, count: int, version: tuple[int, int]) -> str | None:
    """Raise max-allowable-numa-nodes: "set" when the option is written, "add" when it is not; in a
    PerformanceProfile, through its kubeletconfig.experimental annotation (the spec has no such field); with the
    feature gate a beta option needs (TopologyManagerPolicyBetaOptions, 1.31-1.34) when it is off. None where
    the target version's kubelet knows no such option (pkg/kubelet/cm/topologymanager/policy_options.go)."""
    stage = next((s for since, s in reversed(TOPOLOGY_OPTIONS["max-allowable-numa-nodes"]) if version[1] >= since),
                 None)
    if stage is None:
        return None
    gate = TOPOLOGY_GATES.get(stage)
    gated = (f" and {gate_fix(profile, gate)}" if gate and not gate_enabled(gate, profile.feature_gates, version)
             else "")
    if profile.rendered_from is not None:
        return (f'add "topologyManagerPolicyOptions": {{"max-allowable-numa-nodes": "{count}"}}'
                + (f', "featureGates": {{"{gate}": true}}' if gated else "")
                + f" to the kubeletconfig.experimental annotation of {profile.ref.label()}")
    options = profile.raw.get(profile.keys.get("topologyManagerPolicyOptions", "topologyManagerPolicyOptions"))
    if isinstance(options, dict) and "max-allowable-numa-nodes" in options:
        return f'set topologyManagerPolicyOptions.max-allowable-numa-nodes: "{count}"{gated}'
    if isinstance(options, dict):
        return f'add max-allowable-numa-nodes: "{count}" to topologyManagerPolicyOptions{gated}'
    return f'add topologyManagerPolicyOptions: {{max-allowable-numa-nodes: "{count}"}}{gated}'
