"""One read-only analysis per check pass: the run, its pools, the SR-IOV catalogue, the simulation and
the kubelet values resolved against each pool's hardware. Built once after reading; checks only read it,
so their results never depend on their order, and ``fix`` builds a fresh one on every pass."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from dataclasses import replace as dc_replace
from fractions import Fraction
from typing import TYPE_CHECKING

from numalint.k8s.kinds import FEATURE_GATE, PERFORMANCE_PROFILE
from numalint.k8s.versions import POD_LEVEL_RESOURCES_ON, SIDECARS_ON, openshift_feature_gates
from numalint.model.pools import Pool, PoolMatcher, build_pools
from numalint.model.run import Run
from numalint.model.sriov import SriovCatalog, catalog
from numalint.reading.sources import Document
from numalint.simulation.result import Simulation

if TYPE_CHECKING:
    from numalint.alignment.machine import Machine
    from numalint.alignment.startup import StartProblem
    from numalint.simulation.simulate import PoolRun
    from numalint.views.kubelet import KubeletProfile
    from numalint.views.topology import TopologyView
    from numalint.views.workloads import PodView


@dataclass(frozen=True)
class AnalysisOptions:
    """What the command line and ``.numalint.yaml`` say that changes the analysis itself."""

    version: tuple[int, int]
    node_state: str | None = None  # a node's checkpoint directory (--node-state)
    sriov_prefix: str | None = None  # sriovResourcePrefix; None: the one the run shows (model.sriov.catalog)


@dataclass(frozen=True)
class Analysis:
    run: Run
    options: AnalysisOptions
    pools: tuple[Pool, ...]
    sriov: SriovCatalog
    simulation: Simulation[PoolRun]
    matcher: PoolMatcher  # the pools of each node selection, shared with the simulation that placed the workloads
    _node_memory: dict[int, int | None] = field(default_factory=dict, repr=False)
    _start_problems: dict[int, tuple[StartProblem, ...]] = field(default_factory=dict, repr=False)
    _topologies: dict[int, list[TopologyView]] = field(default_factory=dict, repr=False)  # by profile, once
    # by workload: (the workload, its pools); every check asks for a workload's pools, some many times over
    _pools_of: dict[int, tuple[PodView, list[Pool]]] = field(default_factory=dict, repr=False)
    # what checks work out once per analysis and ask for many times (the SR-IOV resources that float)
    memo: dict[object, object] = field(default_factory=dict, repr=False)
    # the findings of one rule a report shows of a file (``run_checks`` says): a check whose findings can grow with
    # the square of the input may stop looking in a file past them; None, every finding is wanted (a fix's proof
    # compares them all)
    shown_per_file: int | None = None

    @property
    def version(self) -> tuple[int, int]:
        return self.options.version

    @property
    def profiles(self) -> Sequence[KubeletProfile]:
        return self.run.profiles

    @property
    def pods(self) -> Sequence[PodView]:
        return self.run.pods

    @property
    def pool_runs(self) -> tuple[PoolRun, ...]:
        return self.simulation.pools

    def of_kind(self, kind: str) -> list[Document]:
        return self.run.of_kind(kind)

    def performance_profiles(self) -> list[Document]:
        """Every PerformanceProfile of the run: those rendered into kubelet settings, and those that could not be."""
        docs = [p.rendered_from for p in self.profiles if p.rendered_from is not None]
        rendered = {id(d) for d in docs}
        return docs + [d for d in self.of_kind(PERFORMANCE_PROFILE) if id(d) not in rendered]

    def pools_for(self, pod: PodView) -> list[Pool]:
        """The pools the scheduler may put ``pod`` on (a copy: callers may change it), worked out once."""
        known = self._pools_of.get(id(pod))
        if known is None or known[0] is not pod:  # the id of a workload that is gone may be taken again
            known = self._pools_of[id(pod)] = (pod, self.matcher(pod))
        return list(known[1])

    def topologies_for(self, profile: KubeletProfile) -> list[TopologyView]:
        return self._topologies.get(id(profile), [])

    def machine_of(self, pool: Pool, without: set[str] | None = None) -> Machine:
        """The pool's hardware with its SR-IOV VFs (``without``: VF resources left out)."""
        from numalint.simulation.simulate import pool_machine  # a pool exists: see analyse (start-up time)

        return pool_machine(self.sriov, pool, without)

    def node_memory(self, profile: KubeletProfile) -> int | None:
        """Memory capacity of the first node type running ``profile``, when a topology says."""
        return self._node_memory.get(id(profile))

    def reservation(self, profile: KubeletProfile, resource: str) -> Fraction | None:
        """The Node Allocatable reservation of ``resource``, eviction thresholds resolved on the pool's
        hardware; None when a percentage threshold meets unknown hardware."""
        return profile.allocatable_reservation(resource, self.node_memory(profile), self.version)

    def memory_eviction(self, profile: KubeletProfile) -> Fraction | None:
        return profile.memory_eviction(self.node_memory(profile), self.version)

    def start_problems(self, profile: KubeletProfile) -> tuple[StartProblem, ...]:
        """Why the kubelet would not start with ``profile``: on any machine, then on each pool's hardware."""
        return self._start_problems.get(id(profile), ())


def _cluster_feature_gates(run: Run, version: tuple[int, int]) -> dict[str, bool]:
    """The kubelet feature gates the run's OpenShift FeatureGate (config.openshift.io/v1) renders at
    ``version``; the Default feature set when there is none."""
    gates = openshift_feature_gates("Default", [], [], version)
    for doc in run.of_kind(FEATURE_GATE):
        spec = doc.root.get("spec")
        spec = spec if isinstance(spec, dict) else {}
        custom = spec.get("customNoUpgrade")
        custom = custom if isinstance(custom, dict) else {}
        lists = {key: [str(v) for v in value if isinstance(v, str)] if isinstance(value := custom.get(key), list)
                 else [] for key in ("enabled", "disabled")}
        gates.update(openshift_feature_gates(str(spec.get("featureSet") or ""), lists["enabled"], lists["disabled"],
                                             version))
    return gates


def _api_server_pods(run: Run, version: tuple[int, int]) -> Run:
    """The pods as the API server stores them at ``version`` (pkg/api/pod/util.go dropDisabledFields): before
    PodLevelResources is on by default it drops spec.resources, so the containers decide QoS and alignment; before
    SidecarContainers is (1.29) it drops an init container's restartPolicy, so a sidecar is a plain init container
    (its CPUs reusable, not held beside the app containers)."""
    drop_resources = version < POD_LEVEL_RESOURCES_ON and any(p.pod_resources is not None for p in run.pods)
    drop_sidecars = version < SIDECARS_ON and any(c.sidecar for p in run.pods for c in p.containers)
    if not drop_resources and not drop_sidecars:
        return run
    pods = []
    for pod in run.pods:
        if drop_resources and pod.pod_resources is not None:
            pod = dc_replace(pod, pod_resources=None, pod_limits=None, dropped_pod_resources=pod.pod_resources)
        if drop_sidecars and any(c.sidecar for c in pod.containers):
            pod = dc_replace(pod, containers=[dc_replace(c, sidecar=False) if c.sidecar else c
                                              for c in pod.containers])
        pods.append(pod)
    return run.with_pods(pods)


def analyse(run: Run, options: AnalysisOptions, sriov: SriovCatalog | None = None) -> Analysis:
    """``sriov``: the run's SR-IOV catalogue when the caller has it (a proof's run holds the same SR-IOV objects)."""
    run = _api_server_pods(run, options.version)
    gates = _cluster_feature_gates(run, options.version)
    for profile in run.profiles:
        if profile.openshift:
            profile.cluster_gates = gates  # set before anything reads the profile's settings
    pools = tuple(build_pools(run))
    sriov = catalog(run, options.sriov_prefix) if sriov is None else sriov
    if not pools:  # no kubelet configuration and no topology: no node to start or admit pods on
        return Analysis(run, options, pools, sriov, Simulation(()), PoolMatcher(pools))
    # imported here, not at the top: a run of workloads alone never needs the alignment core or the
    # simulation, and importing them (dozens of dataclasses) cost a one-file run over 10 ms (start-up time)
    from numalint.alignment.node import settings_problems
    from numalint.simulation.simulate import memory_capacity, settings_from_profile, simulate

    matcher = PoolMatcher(pools)
    simulation = simulate(pools, run.pods, sriov, options.version, options.node_state, matcher)
    node_memory: dict[int, int | None] = {}
    start_problems: dict[int, tuple[StartProblem, ...]] = {}
    topologies_of: dict[int, list[TopologyView]] = {}
    for pool in pools:  # one pass: a run of many kubelet configurations stays linear
        if pool.profile is not None and pool.topology is not None:
            topologies_of.setdefault(id(pool.profile), []).append(pool.topology)
    pool_runs_of: dict[int, list[PoolRun]] = {}  # the same: each profile walked every pool's run
    for pool_run in simulation.pools:
        if pool_run.pool.profile is not None:
            pool_runs_of.setdefault(id(pool_run.pool.profile), []).append(pool_run)
    for profile in run.profiles:
        topologies = topologies_of.get(id(profile), [])
        machine = topologies[0].machine if topologies else None
        node_memory[id(profile)] = memory_capacity(machine)
        problems = settings_problems(settings_from_profile(profile, options.version, machine=machine),
                                     machine.numa_ids if machine is not None else None)
        for pool_run in pool_runs_of.get(id(profile), ()):
            found = pool_run.start_problem
            if found is not None and found not in problems:
                problems.append(found)
        start_problems[id(profile)] = tuple(problems)
    return Analysis(run, options, pools, sriov, simulation, matcher, node_memory, start_problems, topologies_of)


def with_pods(analysis: Analysis, pods: Sequence[PodView]) -> Analysis:
    """``analysis`` for ``pods`` instead of its workloads (the proof of workload fixes, for each set of pools): the
    same profiles, pools, SR-IOV objects and start problems, none of which depends on the workloads, and the
    workloads simulated again. (Analysing the whole run again for each set of pools cost every profile's settings
    each time: quadratic in pools.)"""
    run = _api_server_pods(analysis.run.with_pods(list(pods)), analysis.version)
    if not analysis.pools:
        return Analysis(run, analysis.options, analysis.pools, analysis.sriov, Simulation(()), analysis.matcher)
    from numalint.simulation.simulate import simulate  # here: see ``analyse``

    simulation = simulate(analysis.pools, run.pods, analysis.sriov, analysis.version, analysis.options.node_state,
                          analysis.matcher)
    return Analysis(run, analysis.options, analysis.pools, analysis.sriov, simulation, analysis.matcher,
                    analysis._node_memory, analysis._start_problems, analysis._topologies)


def with_workloads(analysis: Analysis, run: Run) -> Analysis:
    """``analysis`` (of a run whose pools have no topology) for the workloads of ``run`` instead of its own: the
    same profiles, pools, SR-IOV objects and other documents, analysed once, for each batch of a streamed run
    (``numalint.checks.streamed``). Nothing is simulated without a topology, so nothing else of the analysis depends on
    the workloads."""
    assert not analysis.pool_runs, "a simulated run is never streamed"
    return Analysis(_api_server_pods(run, analysis.version), analysis.options, analysis.pools, analysis.sriov,
                    analysis.simulation, analysis.matcher, analysis._node_memory, analysis._start_problems,
                    analysis._topologies)
