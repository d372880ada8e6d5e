"""Explaining a rejected pod: what was free on its node at that moment, and the changes that admit it, each
verified by re-simulating. ``check`` (``admission-failure``, ``smt-alignment``) and ``simulate`` both print
these, so they never disagree."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction

from numalint.alignment.machine import Machine
from numalint.alignment.node import Admission, KubeletSettings, Node, PodSpec
from numalint.checks.input_rules import NearResources, use_one_of
from numalint.k8s.quantity import format_bytes
from numalint.model.sriov import SriovCatalog
from numalint.simulation.simulate import (
    NEVER_FITS,
    NO_CPU_MANAGER,
    TOO_MANY_PODS,
    PodRun,
    PoolRun,
    pod_requests,
    pool_machine,
    replay_pool,
)
from numalint.views.workloads import HUGEPAGES_PREFIX, PodView, is_extended

UNSCHEDULABLE_FIX = "lower its requests or add nodes to the pool"
NO_CPU_MANAGER_FIX = ("set cpuManagerPolicy: static (with a CPU reservation) in the pool's kubelet configuration, or "
                      "drop dedicatedCpuPlacement from the VM")
NEVER_FITS_FIX = "lower its requests to what one node of the pool can allocate, or run it on a pool of larger nodes"
TOO_MANY_PODS_FIX = "raise maxPods (or podsPerCore) in the pool's kubelet configuration, or add nodes to the pool"


def unschedulable_fix(message: str, view: PodView | None = None) -> str:
    """What lets an unschedulable pod in: room for its requests, a pod slot, or the static CPU manager a KubeVirt VM
    with dedicated CPUs is scheduled by (``message``: why it stays Pending). A VM naming an instancetype writes no
    requests or dedicatedCpuPlacement of its own: another instancetype changes them."""
    named = view.instancetype if view is not None else None
    if NO_CPU_MANAGER in message:
        if view is not None and view.pinned_by_instancetype:
            return ("set cpuManagerPolicy: static (with a CPU reservation) in the pool's kubelet configuration, or "
                    f"give the VM an instancetype without dedicated CPUs (its {named} has them)")
        return NO_CPU_MANAGER_FIX
    if TOO_MANY_PODS in message:
        return TOO_MANY_PODS_FIX
    if NEVER_FITS in message:  # more than one node has: more nodes of the same size never take it
        return (f"choose a smaller instancetype than {named}, one a node of the pool can hold" if named else
                NEVER_FITS_FIX)
    return f"choose a smaller instancetype than {named}, or add nodes to the pool" if named else UNSCHEDULABLE_FIX


def absent_fix(pool_run: PoolRun, pod: PodRun) -> str | None:
    """For a pod asking for a device or extended resource no node of the pool has at all: no number of nodes
    and no smaller request lets it in, the name or the pool's devices must change (a misspelt resource, or
    a device the pool's topology does not declare)."""
    asked = pod_requests(pod.spec)
    absent = sorted(r for r, amount in asked.items() if amount and is_extended(r) and not pool_run.allocatable.get(r))
    pages = sorted(r for r, amount in asked.items() if amount and r.startswith(HUGEPAGES_PREFIX)
                   and not pool_run.allocatable.get(r))
    if not absent and not pages:
        return None
    offered = pool_run.derived.get("offered")  # worked out once: asked for each of thousands of rejected pods
    if not isinstance(offered, NearResources):
        offered = pool_run.derived["offered"] = NearResources(
            r for r, amount in pool_run.allocatable.items() if amount and is_extended(r))
    fixes = []
    for resource in absent:
        named = use_one_of(resource, offered)
        fixes.append(f"no node of the pool has {resource}: " + (f"correct the name ({named}) or " if named else "")
                     + "declare the device on the pool's nodes (its topology, an SR-IOV policy)")
    sizes = sorted(r for r, amount in pool_run.allocatable.items() if amount and r.startswith(HUGEPAGES_PREFIX)) \
        if pages else []
    for resource in pages:  # a page size the nodes do not have: fewer pages would not help
        other = (f", or ask for {' or '.join(sizes)}" + (" (an instancetype with those pages)"
                                                         if pod.view.instancetype else "")) if sizes else ""
        fixes.append(f"no node of the pool has {resource}: set up {resource[len(HUGEPAGES_PREFIX):]} pages on its "
                     f"nodes{other}")
    return "; ".join(fixes)


def fit_fix(view: PodView, devices: list[str] | None = None, policy: str = "") -> str:
    """What ``exceeds-numa-node`` advises: a workload too big for one NUMA node. One that asks for more devices
    than a NUMA node holds (eight NVLink-connected GPUs) cannot be split without changing what it is; best-effort
    admits it across NUMA nodes (restricted only when every provider's narrowest hint spans them: exclusive CPUs
    that fit one NUMA node make its hint not preferred, and restricted rejects it)."""
    if view.instancetype:
        return f"choose a smaller instancetype than {view.instancetype}, one that fits one NUMA node"
    if devices and policy != "best-effort":
        return (f"ask for fewer {', '.join(sorted(devices))} per pod, or, if it is meant to span NUMA nodes (a "
                "whole-node job), run it on a pool whose topologyManagerPolicy is best-effort")
    return "split the workload or lower its requests to fit one NUMA node"


def smt_fix(per_core: int, view: PodView | None = None, message: str = "") -> str:
    """What ``smt-alignment`` advises for an SMTAlignmentError (full-pcpus-only). A KubeVirt VM that isolates its
    emulator thread gets one CPU more than its vCPUs: its vCPU count must be one short of a multiple."""
    if view is not None and view.isolated_emulator:
        parity = (" or add the alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity annotation, with which KubeVirt "
                  "adds two CPUs to an even count;") if per_core == 2 else ""
        count = (f"choose an instancetype (instead of {view.instancetype}) whose vCPU count is" if view.instancetype
                 else "give the VM a vCPU count (sockets x cores x threads)")
        return (f"KubeVirt adds one CPU for the isolated emulator thread: {count} one short of a multiple of "
                f"{per_core},{parity} or free whole cores")
    if "not multiple" in message:  # a count of CPUs no number of free cores gives
        return f"request a multiple of {per_core} CPUs per container"
    return f"request a multiple of {per_core} CPUs per container, or free whole cores"


def free_summary(node: Node) -> str:
    """``NUMA 0: 3 CPUs, 12Gi free, GPU 0 | NUMA 1: 0 CPUs, 20Gi free``; devices of no NUMA node (a shared RDMA
    device) apart: ``| no NUMA node: rdma/shared 63``, not as none free on every NUMA node."""
    parts = []
    usage = node.usage()
    numa_less = sorted({r for rows in usage.values() for r in rows if "/" in r
                        and not any(rows2.get(r, {}).get("capacity") for rows2 in usage.values())})
    for numa, rows in usage.items():
        free = {r: row["free"] for r, row in rows.items()}
        items = [f"{free.get('cpu', 0)} CPUs", f"{format_bytes(free.get('memory', 0))} free"]
        items += [f"{r} {format_bytes(v)}" for r, v in sorted(free.items()) if r.startswith("hugepages-")]
        items += [f"{_short(r)} {v}" for r, v in sorted(free.items()) if "/" in r and r not in numa_less]
        parts.append(f"NUMA {numa}: " + ", ".join(items))
    loose = [f"{_short(r)} {sum(1 for d in node.machine.devices_of(r) if d.numa is None and d.id not in used)}"
             for r in numa_less for used in (node.devices.in_use(node.device_state, r),)]
    return " | ".join(parts + ([f"no NUMA node: {', '.join(loose)}"] if loose else []))


def _short(resource: str) -> str:
    return "GPU" if resource.endswith("/gpu") else resource


def _readmit(node: Node, spec: PodSpec) -> Admission:
    return node.snapshot().admit(spec)


MIB = 2**20


def _largest_memory(node: Node, spec: PodSpec, name: str) -> int:
    """The largest memory request (whole MiB) that admits the pod now, or 0: bisection over re-admissions."""
    current = next(c.memory for c in spec.containers if c.name == name)

    def admitted(mib: int) -> bool:
        changed = replace(spec, containers=[replace(c, memory=mib * MIB) if c.name == name else c
                                            for c in spec.containers])
        return _readmit(node, changed).admitted

    low, high = 0, current // MIB - 1
    if high < 1 or not admitted(1):
        return 0
    low = 1
    while low < high:
        middle = (low + high + 1) // 2
        if admitted(middle):
            low = middle
        else:
            high = middle - 1
    return low * MIB


def _with_cpus(spec: PodSpec, name: str, cpus: int) -> PodSpec:
    return replace(spec, containers=[replace(c, cpu=Fraction(cpus)) if c.name == name else c
                                     for c in spec.containers])


def verified_fixes(sriov: SriovCatalog, pool_run: PoolRun, pod: PodRun,
                   siblings: Sequence[PoolRun] = ()) -> list[str]:
    """Changes that admit a pod the kubelet rejected, each verified by re-simulating (what ``check`` prints for
    ``admission-failure`` and ``simulate`` under a rejected pod)."""
    fixes: list[str] = []
    node = pod.before
    if node is None:
        return fixes
    spec = pod.spec
    named = pod.view.instancetype  # a VM's instancetype decides its requests: another one changes them
    for c in spec.containers:
        if spec.guaranteed and c.cpu.denominator == 1 and c.cpu > 1:
            fitting = next((n for n in range(int(c.cpu) - 1, 0, -1) if _readmit(node, _with_cpus(spec, c.name, n))
                            .admitted), None)
            if fitting is not None and named:
                emulator = " (KubeVirt adds one for the isolated emulator thread)" if pod.view.isolated_emulator else ""
                fixes.append(f"choose a smaller instancetype than {named}: its pod is admitted now with at most "
                             f"{fitting} CPUs{emulator}")
            elif fitting is not None:
                fixes.append(f'lower container "{c.name}" to cpu: "{fitting}" (the largest request admitted now)')
        if spec.guaranteed and node.memory is not None and c.memory > MIB and not named:
            memory = _largest_memory(node, spec, c.name)
            if memory:
                fixes.append(f'lower container "{c.name}" to memory: {format_bytes(memory)} (the largest request '
                             "admitted now)")
    settings = pool_run.settings
    alternatives: list[tuple[str, Callable[[KubeletSettings], KubeletSettings]]] = []
    scoped = _scope_matters(pool_run)
    if scoped and settings.topology_scope == "container" and settings.topology_policy != "none":
        alternatives.append(("topologyManagerScope: pod", lambda s: replace(s, topology_scope="pod")))
    if scoped and settings.topology_scope == "pod":
        alternatives.append(("topologyManagerScope: container", lambda s: replace(s, topology_scope="container")))
    if settings.topology_policy in ("single-numa-node", "restricted"):
        alternatives.append(("topologyManagerPolicy: best-effort (the pod then spans NUMA nodes)",
                             lambda s: replace(s, topology_policy="best-effort")))
    # the kubelet configuration changed may run other pools too: the change must keep their pods as well
    sharing = [p for p in siblings if p is not pool_run and p.pool.profile is not None
               and p.pool.profile is pool_run.pool.profile and p.pool.topology is not None and not p.start_error]
    for label, change in alternatives:
        if _admitted_with(pool_run, pod, change(settings), sriov, change=label) and all(
                _keeps_admitted(other, change(other.settings), sriov, label) for other in sharing):
            fixes.append(_where(pool_run, label))
    fixes.extend(_exclude_topology_fix(sriov, pool_run, pod))
    return fixes


def _scope_matters(pool_run: PoolRun) -> bool:
    """Whether the Topology Manager's scope can change any admission of the pool: only for a pod of several
    containers (init containers and sidecars included). For a pod of one container, pod scope asks every provider
    for the hints of the pod's requests, which are that container's, and allocates the container with the hint
    merged from them, as container scope does (GetPodTopologyHints, scope_pod.go); the pool placed again under the
    other scope would admit what it admits now, the rejected pod not included. Always with PodLevelResourceManagers,
    under which pod scope takes its hints from the pod's own resources (KEP-5526)."""
    return pool_run.pod_level_managers or any(len(pod.spec.containers) > 1 for pod in pool_run.pods)


def _where(pool_run: PoolRun, label: str) -> str:
    """A kubelet setting to change, where the pool's configuration holds it: a PerformanceProfile has
    spec.numa.topologyPolicy, and takes other kubelet fields through its kubeletconfig.experimental annotation."""
    profile = pool_run.pool.profile
    if profile is None or profile.rendered_from is None:
        return f"set {label} in the pool's kubelet configuration"
    field, _, rest = label.partition(": ")
    value, _, note = rest.partition(" ")
    if field == "topologyManagerPolicy":
        return f"set spec.numa.topologyPolicy: {value} in {profile.ref.label()}{' ' + note if note else ''}"
    return f'add "{field}": "{value}" to the kubeletconfig.experimental annotation of {profile.ref.label()}'


def _exclude_topology_fix(sriov: SriovCatalog, pool_run: PoolRun, pod: PodRun) -> list[str]:
    """excludeTopology: true on the pod's SR-IOV resources, when re-simulation shows it admits the pod."""

    aligned = {d.resource for d in pool_run.machine.devices if d.numa is not None} & sriov.resources()
    wanted = {r for c in pod.spec.containers for r in c.devices} & aligned
    if not wanted:
        return []
    machine = pool_machine(sriov, pool_run.pool, wanted)
    if not _admitted_with(pool_run, pod, pool_run.settings, sriov, machine, f"excludeTopology {sorted(wanted)}"):
        return []
    names = sorted({p.ref.name for p in sriov.policies if p.resource in wanted})
    return [f"set excludeTopology: true in SriovNetworkNodePolicy {', '.join(names)} for "
            f"{', '.join(sorted(wanted))} (verified: the pod is then admitted; this gives up VF locality, the VF may "
            "sit on a remote NUMA node)"]


def _admitted_with(pool_run: PoolRun, target: PodRun, settings: KubeletSettings, sriov: SriovCatalog,
                   machine: Machine | None = None, change: str = "") -> bool:
    """Whether other kubelet settings or hardware (``change`` names them) admit ``target`` and keep every pod of
    the pool admitted now: a change that admits the target but rejects another pod (pod scope for one pod,
    container scope for the next) is no fix."""
    if pool_run.pool.topology is None or target.node is None:
        return False
    admitted = _placed_again(pool_run, settings, machine or pool_run.machine, sriov, change)
    return admitted is not None and _key(target) in admitted


def _keeps_admitted(pool_run: PoolRun, settings: KubeletSettings, sriov: SriovCatalog, change: str) -> bool:
    """Whether the pool, placed again under ``settings``, admits every pod it admits now."""
    return _placed_again(pool_run, settings, pool_run.machine, sriov, change) is not None


def _placed_again(pool_run: PoolRun, settings: KubeletSettings, machine: Machine, sriov: SriovCatalog,
                  change: str) -> frozenset[tuple[int, str]] | None:
    """The pods the pool admits when placed again under ``settings`` and ``machine``, the scheduler included (a
    pod admitted now pushes later ones to other nodes), when every pod admitted now stays admitted; else None.
    Once per change (``PoolRun.replays``; an empty ``change`` is not remembered), not once per rejected pod.
    Pods are told apart by workload and replica, not by name (a Pod and a Deployment may share one)."""
    if change and change in pool_run.replays:
        return pool_run.replays[change]
    replayed = replay_pool(pool_run, settings, machine, sriov)
    admitted_now = {_key(p) for p in pool_run.pods if p.admission is not None and p.admission.admitted}
    keys = None if replayed is None else frozenset(
        _key(p) for p in replayed.pods if p.admission is not None and p.admission.admitted)
    outcome = keys if keys is not None and admitted_now <= keys else None
    if change:
        pool_run.replays[change] = outcome
    return outcome


def cpus_to_reserve(machine: Machine, numa: int, count: int) -> frozenset[int] | None:
    """``count`` CPUs of NUMA node ``numa`` to reserve (whole cores first, lowest ids); None when it has too few."""
    cpus = sorted((c for c in machine.cpus.values() if c.numa == numa), key=lambda c: (c.core, c.id))
    if count <= 0 or len(cpus) < count:
        return None
    return frozenset(c.id for c in cpus[:count])


def reserving_keeps_admitted(pool_run: PoolRun, sriov: SriovCatalog, reserved: frozenset[int]) -> bool:
    """Whether the pool, placed again with ``reserved`` as its reserved CPUs, keeps every pod it admits now."""
    settings = replace(pool_run.settings, reserved_cpus=reserved, cpu_reservation=Fraction(len(reserved)))
    return _keeps_admitted(pool_run, settings, sriov, f"reserved CPUs {sorted(reserved)}")


def _key(pod: PodRun) -> tuple[int, str]:
    """A pod of the simulation: its workload's view and its replica's name."""
    return id(pod.view), pod.name
