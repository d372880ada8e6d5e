"""Admission simulated end to end through `check` and `simulate` on declared topologies."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run, write

KUBELET = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "{reserved}"
topologyManagerPolicy: {policy}
topologyManagerScope: {scope}
memoryManagerPolicy: Static
systemReserved:
  memory: 1Gi
reservedMemory:
  - numaNode: 0
    limits:
      memory: 1124Mi
{extra}"""


def kubelet(policy: str = "single-numa-node", reserved: str = "0", scope: str = "container", extra: str = "") -> str:
    return KUBELET.format(policy=policy, reserved=reserved, scope=scope, extra=extra)


def topology(nodes: list[tuple[str, str]], devices: str = "", threads: int = 1) -> str:
    numa = "\n".join(f"    - {{id: {i}, cpus: \"{cpus}\", memory: {mem}}}" for i, (cpus, mem) in enumerate(nodes))
    return (f"apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata:\n  name: box\nspec:\n"
            f"  threadsPerCore: {threads}\n  numaNodes:\n{numa}\n{devices}")


def pod(name: str, cpu: str, memory: str, extra: str = "") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers:\n    - name: app\n"
            f"      resources:\n        limits: {{cpu: \"{cpu}\", memory: {memory}{extra}}}\n")


def simulate(directory: Path, *extra: str) -> dict:  # type: ignore[type-arg]
    result = run("simulate", "--format", "json", *extra, str(directory))
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)


def pods_by_name(data: dict) -> dict:  # type: ignore[type-arg]
    return {p["name"]: p for p in data["pods"]}


def test_pod_too_large_for_any_numa_node(tmp_path: Path) -> None:
    write(tmp_path, {"kubelet.yaml": kubelet(), "topology.yaml": topology([("0-15", "64Gi"), ("16-31", "64Gi")]),
                     "pod.yaml": pod("big", "20", "4Gi")})
    findings = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    exceeds = [f for f in findings if f["rule"] == "exceeds-numa-node"]
    assert len(exceeds) == 1 and exceeds[0]["severity"] == "error"
    assert "20 CPUs requested, at most 16 exclusive CPUs on one NUMA node" in exceeds[0]["message"]
    rejected = pods_by_name(simulate(tmp_path))["big"]
    assert (rejected["admitted"], rejected["reason"]) == (False, "TopologyAffinityError")
    assert rejected["message"] == "Resources cannot be allocated with Topology locality"


def test_best_effort_only_informs_about_a_pod_spanning_numa_nodes(tmp_path: Path) -> None:
    write(tmp_path, {"kubelet.yaml": kubelet("best-effort"),
                     "topology.yaml": topology([("0-15", "64Gi"), ("16-31", "64Gi")]),
                     "pod.yaml": pod("big", "20", "4Gi")})
    findings = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(f["rule"], f["severity"]) for f in findings if f["rule"] == "exceeds-numa-node"] == [
        ("exceeds-numa-node", "info")]
    assert not [f for f in findings if f["severity"] == "error"]
    placed = pods_by_name(simulate(tmp_path))["big"]
    assert placed["admitted"] and placed["numa_nodes"] == [0, 1]
    assert len(placed["containers"][0]["cpus"]) == 20


def test_fragmentation_free_cpus_on_one_node_free_memory_on_the_other(tmp_path: Path) -> None:
    write(tmp_path, {
        "kubelet.yaml": kubelet(),
        "topology.yaml": topology([("0-7", "16Gi"), ("8-15", "32Gi")]),
        "pods.yaml": pod("a", "3", "14Gi") + "---\n" + pod("b", "8", "2Gi") + "---\n" + pod("c", "4", "4Gi"),
    })
    data = pods_by_name(simulate(tmp_path))
    assert data["a"]["numa_nodes"] == [0] and data["b"]["numa_nodes"] == [1]
    assert (data["c"]["admitted"], data["c"]["reason"]) == (False, "TopologyAffinityError")
    findings = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    failure = next(f for f in findings if f["rule"] == "admission-failure")
    assert "pod c" in failure["message"]
    assert "NUMA 0: 4 CPUs, 924Mi free | NUMA 1: 0 CPUs, 30Gi free" in failure["message"]
    # NUMA 0 still has the CPUs: a smaller memory request fits there (verified by re-simulating)
    assert 'lower container "app" to memory: 924Mi' in failure["fix"]["description"]


def test_gpu_job_rejected_when_the_gpu_numa_node_has_no_cpus_but_admitted_under_best_effort(tmp_path: Path) -> None:
    gpu = "  devices:\n    - {resource: nvidia.com/gpu, numaNode: 0, count: 1}\n"
    files = {"topology.yaml": topology([("0-15", "64Gi"), ("16-31", "64Gi")], gpu),
             "pods.yaml": pod("db", "15", "8Gi") + "---\n" + pod("train", "4", "8Gi", ", nvidia.com/gpu: 1")}
    strict = tmp_path / "strict"
    write(strict, {"kubelet.yaml": kubelet(), **files})
    train = pods_by_name(simulate(strict))["train"]
    assert (train["admitted"], train["reason"]) == (False, "TopologyAffinityError")
    failure = next(f for f in run("check", "--format", "json", str(strict)).json()["findings"]
                   if f["rule"] == "admission-failure")
    assert "NUMA 0: 0 CPUs" in failure["message"] and "GPU 1" in failure["message"]
    assert "topologyManagerPolicy: best-effort" in failure["fix"]["description"]
    relaxed = tmp_path / "relaxed"
    write(relaxed, {"kubelet.yaml": kubelet("best-effort"), **files})
    train = pods_by_name(simulate(relaxed))["train"]
    assert train["admitted"] and train["reason"] is None
    assert train["containers"][0]["cpus"] and min(train["containers"][0]["cpus"]) >= 16  # CPUs on NUMA 1
    assert train["containers"][0]["devices"] == {"nvidia.com/gpu": ["nvidia.com/gpu-0-0"]}


def test_smt_alignment(tmp_path: Path) -> None:
    extra = "cpuManagerPolicyOptions:\n  full-pcpus-only: \"true\"\n"
    write(tmp_path, {"kubelet.yaml": kubelet(reserved="0,8", extra=extra),
                     "topology.yaml": topology([("0-15", "64Gi")], threads=2),
                     "pods.yaml": pod("odd", "3", "1Gi") + "---\n" + pod("even", "4", "1Gi")})
    data = pods_by_name(simulate(tmp_path))
    assert data["odd"]["reason"] == "SMTAlignmentError"
    assert data["odd"]["message"] == "SMT Alignment Error: requested 3 cpus not multiple cpus per core = 2"
    assert data["even"]["admitted"] and data["even"]["containers"][0]["cpus"] == [1, 2, 9, 10]
    findings = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [f["rule"] for f in findings if f["severity"] == "error"] == ["smt-alignment"]


def test_sixteen_numa_nodes_refused_without_max_allowable(tmp_path: Path) -> None:
    nodes = [(f"{4 * i}-{4 * i + 3}", "8Gi") for i in range(16)]
    write(tmp_path, {"kubelet.yaml": kubelet("best-effort"), "topology.yaml": topology(nodes)})
    findings = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    too_many = [f for f in findings if f["rule"] == "too-many-numa-nodes"]
    assert len(too_many) == 1 and "more than 8 NUMA Nodes" in too_many[0]["message"]
    assert simulate(tmp_path)["pools"][0]["start_error"] == "unsupported on machines with more than 8 NUMA Nodes"
    raised = kubelet("best-effort", extra="topologyManagerPolicyOptions:\n  max-allowable-numa-nodes: \"16\"\n")
    write(tmp_path, {"kubelet.yaml": raised})
    assert not [f for f in run("check", "--format", "json", str(tmp_path)).json()["findings"]
                if f["rule"] == "too-many-numa-nodes"]
    assert simulate(tmp_path)["pools"][0]["start_error"] is None


def test_pod_scope_aligns_the_whole_pod(tmp_path: Path) -> None:
    two = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: pair\nspec:\n  containers:\n"
           "    - name: a\n      resources:\n        limits: {cpu: \"6\", memory: 1Gi}\n"
           "    - name: b\n      resources:\n        limits: {cpu: \"6\", memory: 1Gi}\n")
    write(tmp_path, {"kubelet.yaml": kubelet(scope="pod"),
                     "topology.yaml": topology([("0-7", "64Gi"), ("8-15", "64Gi")]), "pod.yaml": two})
    pair = pods_by_name(simulate(tmp_path))["pair"]
    assert (pair["admitted"], pair["reason"]) == (False, "TopologyAffinityError")  # 12 CPUs > 8 per NUMA node
    write(tmp_path, {"kubelet.yaml": kubelet(scope="container")})
    pair = pods_by_name(simulate(tmp_path))["pair"]
    assert pair["admitted"] and [c["numa_nodes"] for c in pair["containers"]] == [[0], [1]]


def test_simulate_text_shows_bars_and_pods(tmp_path: Path) -> None:
    write(tmp_path, {"kubelet.yaml": kubelet(), "topology.yaml": topology([("0-7", "16Gi"), ("8-15", "32Gi")]),
                     "pod.yaml": pod("web", "2", "1Gi")})
    result = run("simulate", str(tmp_path))
    assert result.exit_code == 0
    assert "    0    cpu " in result.output and "[" in result.output
    assert "  placed    Pod web\n    web -> box-0 NUMA 0  (app: cpus 1-2)" in result.output


def test_replicas_and_daemonsets_spread_over_the_pool(tmp_path: Path) -> None:
    pool = "  pool:\n    nodes: 3\n"
    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 4\n"
                  "  template:\n    spec:\n      containers:\n        - name: api\n          resources:\n"
                  "            limits: {cpu: \"2\", memory: 1Gi}\n")
    daemonset = deployment.replace("Deployment", "DaemonSet").replace("name: api", "name: agent").replace(
        "  replicas: 4\n", "")
    write(tmp_path, {"kubelet.yaml": kubelet(), "topology.yaml": topology([("0-7", "16Gi"), ("8-15", "32Gi")],
                                                                          pool),
                     "w.yaml": deployment + "---\n" + daemonset})
    pods = simulate(tmp_path)["pods"]
    assert [(p["name"], p["node"]) for p in pods] == [
        ("api-0", "box-0"), ("api-1", "box-1"), ("api-2", "box-2"), ("api-3", "box-0"),
        ("agent-0", "box-0"), ("agent-1", "box-1"), ("agent-2", "box-2")]


def test_init_container_cpus_are_reused_but_a_sidecars_are_not(tmp_path: Path) -> None:
    pod_text = """apiVersion: v1
kind: Pod
metadata: {name: withinit}
spec:
  initContainers:
    - name: setup
      resources: {limits: {cpu: "4", memory: 1Gi}}
    - name: proxy
      restartPolicy: Always
      resources: {limits: {cpu: "1", memory: 1Gi}}
  containers:
    - name: app
      resources: {limits: {cpu: "4", memory: 1Gi}}
"""
    write(tmp_path, {"kubelet.yaml": kubelet(), "topology.yaml": topology([("0-5", "16Gi"), ("6-11", "16Gi")]),
                     "pod.yaml": pod_text})
    containers = {c["name"]: c["cpus"] for c in pods_by_name(simulate(tmp_path))["withinit"]["containers"]}
    assert containers == {"setup": [1, 2, 3, 4], "proxy": [1], "app": [2, 3, 4, 5]}


def test_admission_failure_proposes_the_largest_memory_that_fits(tmp_path: Path) -> None:
    write(tmp_path, {"kubelet.yaml": kubelet(), "topology.yaml": topology([("0-7", "16Gi"), ("8-15", "16Gi")]),
                     "pod.yaml": pod("big", "2", "20Gi")})
    failure = next(f for f in run("check", "--format", "json", str(tmp_path)).json()["findings"]
                   if f["rule"] == "admission-failure")
    assert 'lower container "app" to memory: 16Gi' in failure["fix"]["description"]
    assert "NUMA 0: 7 CPUs, 15260Mi free | NUMA 1: 8 CPUs, 16Gi free" in failure["message"]
