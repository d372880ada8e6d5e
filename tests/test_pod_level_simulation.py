"""The simulation agrees with pod-level-resources: a pod with spec.resources gets no exclusive CPUs or
pinned memory (pkg/kubelet/cm/cpumanager/policy_static.go and memorymanager/policy_static.go return
early when IsPodLevelResourcesSet), unless PodLevelResourceManagers is on (1.36+)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run, write

FILES = {
    "kubelet.yaml": """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        cpuManagerPolicy: static
        reservedSystemCPUs: "0"
        topologyManagerPolicy: single-numa-node
        featureGates: {GATES}
        """,
    "topology.yaml": """\
        apiVersion: numalint.io/v1alpha1
        kind: NodeTopology
        metadata: {name: t}
        spec:
          numaNodes:
            - {id: 0, cpus: "0-3", memory: 8Gi}
            - {id: 1, cpus: "4-7", memory: 8Gi}
        """,
    "pod.yaml": """\
        apiVersion: v1
        kind: Pod
        metadata: {name: p}
        spec:
          resources:
            limits: {cpu: "6", memory: 1Gi}
          containers:
            - name: c
              image: c
        """,
}


def test_pod_level_resources_run_in_the_shared_pool(tmp_path: Path) -> None:
    write(tmp_path, {**FILES, "kubelet.yaml": FILES["kubelet.yaml"].replace("GATES", "")})
    result = run("simulate", "--format", "json", str(tmp_path))
    [pod] = result.json()["pods"]
    assert pod["admitted"] and pod["containers"][0]["cpus"] == []

# With PodLevelResourceManagers (1.36+, alpha) the managers allocate from the pod-level budget; numalint's
# core allocates per container, so that case is not simulated here (documented in README).


def test_the_scheduler_counts_pod_level_requests(tmp_path: Path) -> None:
    """component-helpers PodRequests: a pod's spec.resources requests replace its containers' for cpu and
    memory. Three pods of 10 CPUs at the pod level on two 15-CPU nodes: one per node, the third Pending (they
    were counted as asking nothing and all went to the first node)."""
    write(tmp_path, {
        "kc.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
                   'reservedSystemCPUs: "0"\n',
        "topo.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: w}\nspec:\n"
                     "  pool: {nodes: 2}\n  numaNodes:\n  - {id: 0, cpus: \"0-15\", memory: 64Gi}\n",
        "dep.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: pl}\nspec:\n  replicas: 3\n"
                    "  template:\n    spec:\n      resources:\n        limits: {cpu: \"10\", memory: 1Gi}\n"
                    "      containers:\n      - {name: c, image: x}\n"})
    placed = run("simulate", "--format", "json", "--kubernetes-version", "1.34", str(tmp_path)).json()
    pods = {node["name"]: node["pods"] for pool in placed["pools"] for node in pool["nodes"]}
    assert pods == {"w-0": ["pl-0"], "w-1": ["pl-1"]}, pods
    found = run("check", "--format", "json", "--kubernetes-version", "1.34", str(tmp_path)).json()["findings"]
    assert [f["rule"] for f in found if f["rule"] == "admission-failure"] == ["admission-failure"]
