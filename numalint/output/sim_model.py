"""What a simulation report shows, whatever its format (text, JSON, HTML): every workload of the run with
its fate, each node's per-NUMA table and CPU owners, and for rejected pods the verified fixes.

Built from the analyses ``simulate`` made; it only reads the pools' runs (``PoolRun``, ``PodRun``, ``Node``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from numalint.alignment.memory_static import MEMORY
from numalint.alignment.node import Node
from numalint.analysis import Analysis
from numalint.reading.rendering import render_command, render_kind
from numalint.simulation.fixes import absent_fix, smt_fix, unschedulable_fix, verified_fixes
from numalint.simulation.simulate import UNSCHEDULABLE, PodRun, PoolRun, node_allocatable, pod_requests
from numalint.views.workloads import PodView

ORDER = {"cpu": 0, MEMORY: 1}  # then hugepages and devices by name
MAX_FIX_SEARCHES = 25  # as check's admission-failure: each search re-simulates the pool
NOT_SIMULATED_PREFIX = "not simulated: "

TEMPLATE_WHY = {
    "helm": "a Helm/Go template ({{ ... }}): render it first, e.g. `{render}`",
    "go": "a template ({{ ... }}) outside any Helm chart: render it with the tool that fills it in, then "
          "`{render}`",
    "jinja": "a Jinja template ({% ... %}, {{ ... }}): render it with the tool that fills it in, then `{render}`",
    "envsubst": "an envsubst template (${VAR} in values): render it first, e.g. `{render}`",
    "patch": "a strategic-merge patch, not a whole object: simulate the build output (`kustomize build DIR | "
             "numalint simulate -`)",
    "ztp": "a ZTP source CR (in source-crs/) that PolicyGenerator or PolicyGenTemplate fills in: simulate the "
           "objects the policies generate",
    "": "a template: render it first",
}


@dataclass
class Row:
    """One resource of one NUMA node (``numa`` None: devices without NUMA affinity). ``used`` and ``free``
    are None when the kubelet does not track the resource per NUMA node (no static manager for it).
    Memory excludes hugepages, which have rows of their own, so capacity = reserved + used + free."""

    numa: int | None
    resource: str
    capacity: int
    reserved: int
    used: int | None
    free: int | None


@dataclass
class CPUOwner:
    pod: str
    container: str
    cpus: list[int]


@dataclass
class NodePicture:
    node: Node
    index: int
    rows: list[Row]
    pods: list[PodRun]  # admitted here
    requested: dict[str, Fraction]
    allocatable: dict[str, Fraction]
    owners: list[CPUOwner]
    reserved_cpus: frozenset[int]

    @property
    def empty(self) -> bool:
        return not self.pods


@dataclass
class Workload:
    """One workload (or, with ``view`` None, one file that could not be read as workloads)."""

    view: PodView | None
    file: str
    pool: PoolRun | None = None
    pods: list[PodRun] = field(default_factory=list)
    why_code: str | None = None  # no-pool, pool-not-started, pool-not-simulated, no-replicas, template
    why: str | None = None
    fixes: list[str] | None = None  # for the first rejected pod: verified changes (None: not searched)
    fix_pod: PodRun | None = None

    @property
    def label(self) -> str:
        if self.view is None:
            return self.file
        return self.view.ref.label()

    @property
    def rejected(self) -> list[PodRun]:
        return [p for p in self.pods if p.admission is not None and not p.admission.admitted]

    @property
    def status(self) -> str:
        if self.why is not None:
            return "not-simulated"
        return "rejected" if self.rejected else "placed"


@dataclass
class PoolPicture:
    run: PoolRun
    nodes: list[NodePicture]
    workloads: list[Workload]

    @property
    def not_simulated(self) -> str | None:
        error = self.run.start_error
        return error[len(NOT_SIMULATED_PREFIX):] if error and error.startswith(NOT_SIMULATED_PREFIX) else None

    @property
    def kubelet_error(self) -> str | None:
        error = self.run.start_error
        return None if error is None or self.not_simulated is not None else error


@dataclass
class Report:
    pools: list[PoolPicture]
    workloads: list[Workload]  # every workload of the run, in input order

    @property
    def not_simulated(self) -> list[Workload]:
        return [w for w in self.workloads if w.why is not None]

    def counts(self) -> dict[str, int]:
        result = {"placed": 0, "rejected": 0, "not-simulated": 0}
        for w in self.workloads:
            result[w.status] += 1
        return result


def build_report(analyses: list[Analysis]) -> Report:
    pools: list[PoolPicture] = []
    workloads: list[Workload] = []
    templates: set[str] = set()
    searched = 0
    for analysis in analyses:
        by_pool = {id(run.pool): run for run in analysis.pool_runs}
        pictures = {id(run): PoolPicture(run, _node_pictures(run), []) for run in analysis.pool_runs}
        pools.extend(pictures.values())
        placed: dict[int, list[PodRun]] = {}
        for run in analysis.pool_runs:
            for pod in run.pods:
                placed.setdefault(id(pod.view), []).append(pod)
        for view in analysis.pods:
            workload = Workload(view, view.file)
            matching = [p for p in analysis.pools_for(view) if id(p) in by_pool]
            if matching:
                workload.pool = by_pool[id(matching[0])]
                pictures[id(workload.pool)].workloads.append(workload)
            workload.pods = placed.get(id(view), [])
            if not workload.pods:
                workload.why_code, workload.why = _why_not(analysis, view, workload.pool)
            elif workload.rejected and searched < MAX_FIX_SEARCHES:
                searched += _explain(analysis, workload)
            workloads.append(workload)
        for source in analysis.run.sources:
            if source.template and source.path not in templates:
                templates.add(source.path)
                why = TEMPLATE_WHY.get(render_kind(source), TEMPLATE_WHY[""])
                if "{render}" in why:
                    why = why.replace("{render}", render_command(source, "simulate"))
                workloads.append(Workload(None, source.path, why_code="template", why=why))
    return Report(pools, workloads)


def _explain(analysis: Analysis, workload: Workload) -> int:
    """The fixes for the workload's first rejected pod (as ``check`` prints them); 1 when a search ran."""
    assert workload.pool is not None
    pod = workload.rejected[0]
    assert pod.admission is not None
    workload.fix_pod = pod
    if pod.admission.reason == UNSCHEDULABLE:
        workload.fixes = [absent_fix(workload.pool, pod) or unschedulable_fix(pod.admission.message, pod.view)]
        return 0
    if pod.admission.reason == "SMTAlignmentError":
        nodes = workload.pool.nodes
        workload.fixes = [smt_fix(nodes[0].topo.cpus_per_core if nodes else 1, pod.view, pod.admission.message)]
        return 0
    workload.fixes = verified_fixes(analysis.sriov, workload.pool, pod, analysis.pool_runs)
    return 1


def _why_not(analysis: Analysis, view: PodView, pool: PoolRun | None) -> tuple[str, str]:
    if not analysis.pool_runs:
        return "no-pool", "no pool to simulate: the run has no NodeTopology or NodeResourceTopology"
    if pool is None:
        names = ", ".join(f'"{r.pool.name}"' + (" " + _labels(r.pool.node_labels) if r.pool.node_labels else "")
                          for r in analysis.pool_runs)
        if view.node_selector or view.required_terms:
            return "no-pool", f"no pool matches its nodeSelector / node affinity (pools: {names})"
        return "no-pool", (f"it selects no nodes, so it could land anywhere; every pool has node labels (pools: "
                           f"{names})")
    error = pool.start_error
    if error and error.startswith(NOT_SIMULATED_PREFIX):
        return "pool-not-simulated", f'pool "{pool.pool.name}" is not simulated: {error[len(NOT_SIMULATED_PREFIX):]}'
    if error:
        return "kubelet-does-not-start", f'the kubelet of pool "{pool.pool.name}" does not start: {error}'
    if view.ref.kind == "DaemonSet":
        return "no-replicas", f'pool "{pool.pool.name}" has no nodes'
    return "no-replicas", view.idle or "no replicas (replicas: 0)"


def _labels(labels: dict[str, str]) -> str:
    return "{" + ", ".join(f"{k}: {v}" if v else k for k, v in sorted(labels.items())) + "}"


def _node_pictures(run: PoolRun) -> list[NodePicture]:
    """Every node's picture; the admitted pods grouped by node once (a pool may hold 1,000 nodes)."""
    admitted: dict[str, list[PodRun]] = {}
    for pod in run.pods:
        if pod.node is not None and pod.admission is not None and pod.admission.admitted:
            admitted.setdefault(pod.node, []).append(pod)
    return [_node_picture(run, node, i, admitted.get(node.name, [])) for i, node in enumerate(run.nodes)]


def _node_picture(run: PoolRun, node: Node, index: int, mine: list[PodRun]) -> NodePicture:
    requested: dict[str, Fraction] = {}
    for pod in mine:
        for resource, amount in pod_requests(pod.spec).items():
            requested[resource] = requested.get(resource, Fraction(0)) + amount
    assignments = sorted(node.cpu_state.assignments.items(), key=lambda item: min(item[1], default=0))
    owners = [CPUOwner(pod, container, sorted(cpus)) for (pod, container), cpus in assignments if cpus]
    allocatable = run.allocatable or node_allocatable(node, run.pool.profile)  # every node has the same
    return NodePicture(node, index, node_rows(node), mine, requested, allocatable, owners,
                       node.cpu.reserved if node.cpu is not None else frozenset())


def node_rows(node: Node) -> list[Row]:
    rows: list[Row] = []
    for numa, usage in node.usage().items():
        usage = dict(sorted(usage.items(), key=lambda i: ORDER.get(i[0], 2)))
        huge = sum(e["capacity"] for r, e in usage.items() if r.startswith("hugepages-"))
        for resource, entry in usage.items():
            memory_kind = resource == MEMORY or resource.startswith("hugepages-")
            capacity = entry["capacity"] - (huge if resource == MEMORY else 0)
            if capacity <= 0:
                continue
            tracked = (node.cpu is not None) if resource == "cpu" else (node.memory is not None) if memory_kind \
                else True
            rows.append(Row(numa, resource, capacity, entry["reserved"], entry["allocated"] if tracked else None,
                            entry["free"] if tracked else None))
    for resource in sorted(node.devices.resources()):
        loose = [d for d in node.machine.devices_of(resource) if d.numa is None]
        if loose:
            used = node.devices.in_use(node.device_state, resource)
            taken = sum(1 for d in loose if d.id in used)
            rows.append(Row(None, resource, len(loose), 0, taken, len(loose) - taken))
    return rows


def free_table(node: Node) -> dict[int, dict[str, int]]:
    """Per NUMA node, what was free (memory without hugepages); what ``check`` summarises in one line."""
    return {numa: {r: e["free"] for r, e in usage.items() if e["capacity"]} for numa, usage in node.usage().items()}
