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
