"""The simulation's scheduler places every pod exactly where the original one did (tests/reference_scheduler.py),
on generated pools and workloads: same node, same admission, same NUMA nodes and CPUs."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from numalint.engine import Options, build_analyses
from numalint.k8s.versions import NEWEST
from numalint.simulation.fixes import _admitted_with, _scope_matters
from numalint.simulation.simulate import PoolRun, _resumable, replay_pool
from tests.conftest import run, write
from tests.reference_scheduler import admitted_with_whole_pool, reference_simulation

KUBELETS = [
    "",  # no kubelet configuration: topology manager off, nothing reserved
    "cpuManagerPolicy: none\ntopologyManagerPolicy: best-effort\nsystemReserved: {{cpu: 500m, memory: 1Gi}}\n",
    "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\ntopologyManagerPolicy: {policy}\n"
    "topologyManagerScope: {scope}\n",
    "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\ntopologyManagerPolicy: {policy}\n"
    "topologyManagerScope: {scope}\nmemoryManagerPolicy: Static\nsystemReserved:\n  memory: 1Gi\n"
    "reservedMemory:\n  - numaNode: 0\n    limits:\n      memory: 1124Mi\n",
    "cpuManagerPolicy: static\nkubeReserved: {{cpu: 1500m}}\nsystemReserved: {{cpu: 250m, memory: 3Gi}}\n"
    "topologyManagerPolicy: {policy}\n",
]


def _topology(rng: random.Random, nodes: int, with_memory: bool) -> str:
    numa_count = rng.choice([1, 2, 2, 4])
    per_numa = rng.choice([2, 4, 6])
    threads = rng.choice([1, 2])
    total = numa_count * per_numa
    lines = []
    for numa in range(numa_count):
        first = numa * per_numa
        cpus = f"{first}-{first + per_numa - 1}"
        if threads == 2:
            cpus += f",{total + first}-{total + first + per_numa - 1}"
        memory = f", memory: {rng.choice([8, 12, 16])}Gi" if with_memory else ""
        huge = ", hugepages: {1Gi: 2}" if with_memory and rng.random() < 0.4 else ""
        lines.append(f"    - {{id: {numa}, cpus: \"{cpus}\"{memory}{huge}}}")
    devices = ""
    if rng.random() < 0.6:
        devices = "  devices:\n" + "".join(
            f"    - {{resource: nvidia.com/gpu, numaNode: {rng.randrange(numa_count)}, count: {rng.choice([1, 2])}}}\n"
            for _ in range(rng.choice([1, 2])))
    return (f"apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata:\n  name: box\nspec:\n"
            f"  pool:\n    nodes: {nodes}\n  threadsPerCore: {threads}\n  numaNodes:\n" + "\n".join(lines) + "\n"
            + devices)


def _resources(rng: random.Random, exact: bool) -> str:
    cpu = rng.choice(["1", "2", "3", "4", "500m", "1500m", "250m", "0.1", "6"])
    memory = rng.choice(["512Mi", "1Gi", "2Gi", "3Gi", "5Gi", "1500M"])
    extra = ""
    if rng.random() < 0.15:
        extra += ", hugepages-1Gi: 1Gi"
    if rng.random() < 0.15:
        extra += f", nvidia.com/gpu: {rng.choice([1, 2])}"
    if exact:
        return f"limits: {{cpu: \"{cpu}\", memory: {memory}{extra}}}"
    missing = rng.random()
    if missing < 0.1:  # no cpu or memory request: the score counts 100m and 200MB (non-zero requests)
        return "limits: {nvidia.com/gpu: 1}" if extra else "{}"
    if missing < 0.2:
        return f"requests: {{memory: {memory}{extra}}}"
    return f"requests: {{cpu: \"{cpu}\", memory: {memory}{extra}}}"


def _workload(rng: random.Random, index: int, alone: bool = False) -> str:
    """``alone``: the pod has one container (no second one, no init container)."""
    kind = rng.choice(["Deployment", "Deployment", "Pod", "DaemonSet", "Job", "StatefulSet"])
    exact = rng.random() < 0.75
    containers = f"      - name: main\n        resources:\n          {_resources(rng, exact)}\n"
    if rng.random() < 0.3 and not alone:
        containers += f"      - name: side\n        resources:\n          {_resources(rng, exact)}\n"
    init = ""
    if rng.random() < 0.2 and not alone:
        always = "        restartPolicy: Always\n" if rng.random() < 0.5 else ""
        init = (f"      initContainers:\n      - name: setup\n{always}        resources:\n"
                f"          {_resources(rng, exact)}\n")
    pod_spec = f"containers:\n{containers}{init}"
    name = f"w{index}"
    if kind == "Pod":
        spec = pod_spec.replace("\n      ", "\n  ").replace("\n        ", "\n    ")
        return f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  {spec}"
    replicas = ""
    if kind in ("Deployment", "StatefulSet"):
        replicas = f"  replicas: {rng.choice([1, 2, 3, 5, 8])}\n"
    elif kind == "Job":
        replicas = f"  parallelism: {rng.choice([1, 2, 4])}\n"
    api = "batch/v1" if kind == "Job" else "apps/v1"
    return (f"apiVersion: {api}\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: ns{index % 3}\nspec:\n"
            f"{replicas}  template:\n    spec:\n      {pod_spec}")


def _case(seed: int, directory: Path, alone: bool = False) -> Path:
    rng = random.Random(seed)
    kubelet = rng.choice(KUBELETS).format(policy=rng.choice(["best-effort", "restricted", "single-numa-node"]),
                                          scope=rng.choice(["container", "pod"]))
    files = {"topology.yaml": _topology(rng, rng.choice([1, 2, 3, 5, 8, 13, 21]), rng.random() < 0.85)}
    if kubelet:
        files["kubelet.yaml"] = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n" + kubelet
    for index in range(rng.randint(4, 30)):
        files[f"apps/w{index:03d}.yaml"] = _workload(rng, index, alone)
    return write(directory, files)


@pytest.mark.parametrize("seed", range(60))
def test_placements_match_the_original_scheduler(tmp_path: Path, seed: int) -> None:
    analysis = build_analyses([str(_case(seed, tmp_path))], Options(version=NEWEST))[0]
    expected = reference_simulation(analysis)
    assert [r.start_error is None for r in expected] == [r.start_error is None for r in analysis.pool_runs]
    for old, new in zip(expected, analysis.pool_runs, strict=True):
        assert [(p.name, p.node, p.admission.admitted, p.admission.reason, p.admission.containers)
                for p in new.pods if p.admission is not None] == \
               [(p.name, p.node, p.admission.admitted, p.admission.reason, p.admission.containers) for p in old.pods]
        assert len(new.pods) == len(old.pods)

def test_the_generated_cases_exercise_the_scheduler(tmp_path: Path) -> None:
    """The cases fill pools: some pods stay Pending, some are rejected by the kubelet, most are admitted."""
    reasons: dict[str | None, int] = {}
    placed = 0
    for seed in range(60):
        directory = tmp_path / str(seed)
        for pool_run in build_analyses([str(_case(seed, directory))], Options(version=NEWEST))[0].pool_runs:
            for pod in pool_run.pods:
                assert pod.admission is not None
                reasons[pod.admission.reason] = reasons.get(pod.admission.reason, 0) + 1
                placed += pod.node is not None
    assert reasons.get(None, 0) > 200 and reasons.get("Unschedulable", 0) > 20
    assert reasons.get("TopologyAffinityError", 0) > 10 and placed > 300


@pytest.mark.parametrize("seed", range(60))
def test_fix_verification_replays_only_the_node_and_agrees_with_replaying_the_pool(tmp_path: Path, seed: int) -> None:
    analysis = build_analyses([str(_case(seed, tmp_path))], Options(version=NEWEST))[0]
    for pool_run in analysis.pool_runs:
        rejected = [p for p in pool_run.pods if p.node is not None and p.admission and not p.admission.admitted]
        variants = [pool_run.settings, replace(pool_run.settings, topology_scope="pod"),
                    replace(pool_run.settings, topology_policy="best-effort"),
                    replace(pool_run.settings, topology_policy="none", memory_policy="None", reserved_memory={})]
        for pod in rejected:
            for settings in variants:
                assert _admitted_with(pool_run, pod, settings, analysis.sriov) == admitted_with_whole_pool(
                    analysis, pool_run, pod, settings)


@pytest.mark.parametrize("seed", range(200))
def test_the_scope_changes_no_admission_of_pods_of_one_container(tmp_path: Path, seed: int) -> None:
    """Why the fix search does not try the other topologyManagerScope on a pool of one-container pods
    (fixes._scope_matters): placed again under it, the pool admits the same pods, on the same nodes, with the same
    CPUs and NUMA nodes, and rejects the same ones."""
    analysis = build_analyses([str(_case(seed, tmp_path, alone=True))], Options(version=NEWEST))[0]
    for pool_run in analysis.pool_runs:
        if pool_run.start_error or pool_run.settings.topology_policy == "none":
            continue
        assert not _scope_matters(pool_run)
        other = "pod" if pool_run.settings.topology_scope == "container" else "container"
        replayed = replay_pool(pool_run, replace(pool_run.settings, topology_scope=other), pool_run.machine,
                               analysis.sriov)
        assert replayed is not None
        assert [(p.name, p.node, p.admission and p.admission.admitted, p.admission and p.admission.reason,
                 p.admission and p.admission.containers) for p in replayed.pods] == \
               [(p.name, p.node, p.admission and p.admission.admitted, p.admission and p.admission.reason,
                 p.admission and p.admission.containers) for p in pool_run.pods]


def test_the_one_container_cases_reject_pods(tmp_path: Path) -> None:
    """The cases above meet the kubelet's refusals, which a scope could change if it mattered."""
    rejected = 0
    for seed in range(200):
        analysis = build_analyses([str(_case(seed, tmp_path / str(seed), alone=True))], Options(version=NEWEST))[0]
        rejected += sum(1 for r in analysis.pool_runs for p in r.pods
                        if p.admission is not None and p.admission.reason == "TopologyAffinityError")
    assert rejected > 50


@pytest.mark.parametrize("seed", range(200))
def test_a_replay_under_best_effort_from_the_first_rejection_is_a_whole_replay(tmp_path: Path, seed: int) -> None:
    """The fix search's replay under topologyManagerPolicy best-effort starts at the pool's first rejected pod
    (simulate._resumable): it places every pod as a replay of the whole pool does."""
    analysis = build_analyses([str(_case(seed, tmp_path))], Options(version=NEWEST))[0]
    for pool_run in analysis.pool_runs:
        if pool_run.start_error or pool_run.settings.topology_policy not in ("restricted", "single-numa-node"):
            continue
        settings = replace(pool_run.settings, topology_policy="best-effort")
        resumed = replay_pool(pool_run, settings, pool_run.machine, analysis.sriov)
        first, pool_run.first_rejection = pool_run.first_rejection, None
        whole = replay_pool(pool_run, settings, pool_run.machine, analysis.sriov)
        pool_run.first_rejection = first
        assert resumed is not None and whole is not None
        assert _placements(resumed) == _placements(whole)


def _placements(pool_run: PoolRun) -> list[tuple[object, ...]]:
    """What a pod is given (its reported NUMA nodes aside: see simulate._resumable)."""
    return [(p.name, p.node, p.admission and p.admission.admitted, p.admission and p.admission.reason,
             p.admission and [(c.name, c.cpus, c.devices) for c in p.admission.containers]) for p in pool_run.pods]


def test_the_replays_start_from_a_first_rejection(tmp_path: Path) -> None:
    """The cases above give the replays a first rejection to start from, past the pools' first pods."""
    resumed = 0
    for seed in range(200):
        analysis = build_analyses([str(_case(seed, tmp_path / str(seed)))], Options(version=NEWEST))[0]
        resumed += sum(1 for r in analysis.pool_runs if r.first_rejection is not None and r.first_rejection.position
                       and r.settings.topology_policy in ("restricted", "single-numa-node")
                       and _resumable(r, replace(r.settings, topology_policy="best-effort"), r.machine))
    assert resumed > 10


def test_a_workload_larger_than_its_pool_meets_its_first_rejection(tmp_path: Path) -> None:
    """400 nodes of 63 allocatable CPUs hold 6,000 pods of 4 CPUs: 10,000 replicas leave 4,000 Pending. Replicas
    used to be simulated up to 2,000 only, and the run came out clean."""
    write(tmp_path, {
        "topology.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: big}\nspec:\n"
                         "  pool: {kubeletConfig: r, nodes: 400}\n  numaNodes:\n"
                         "    - {id: 0, cpus: \"0-63\", memory: 512Gi}\n",
        "r.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                  "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n",
        "web.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: COUNT\n"
                    "  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n"
                    "      containers: [{name: c, image: x, resources: {limits: {cpu: \"4\", memory: 8Gi}}}]\n"})
    web = (tmp_path / "web.yaml").read_text()
    for count, rejected in (("10000", True), ("6000", False)):
        (tmp_path / "web.yaml").write_text(web.replace("COUNT", count))
        result = run("check", "--format", "json", str(tmp_path))
        assert ("admission-failure" in result.rules()) is rejected, count
    # past the first 2,000 replicas, the first rejection stands for the rest (they meet the same pool): one
    # finding, not one per replica up to the cap
    (tmp_path / "web.yaml").write_text(web.replace("COUNT", "10000"))
    assert run("check", "--format", "json", str(tmp_path)).rules().count("admission-failure") == 1
