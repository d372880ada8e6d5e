"""Disagreements with the kubelet that a fidelity review found end to end (device reuse and fallback order, the
Memory Manager's pod-scope request), through the command line. Each test cites the Go source it pins."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import findings, run, write

KUBELET = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "{reserved}"
topologyManagerPolicy: best-effort
"""
TOPOLOGY = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {{name: w}}
spec:
  pool: {{nodes: 1, kubeletConfig: kc.yaml}}
  numaNodes:
{numa}
  devices:
{devices}
"""


def _pools(tmp_path: Path) -> list[dict[str, Any]]:
    pools: list[dict[str, Any]] = run("simulate", "--format", "json", str(tmp_path)).json()["pools"]
    return pools


def _devices_per_numa(pool: dict[str, Any], resource: str) -> dict[int, int]:
    return {n["id"]: n["resources"][resource]["allocated"] for n in pool["nodes"][0]["numa_nodes"]
            if resource in n["resources"]}


def test_an_app_container_reuses_its_init_containers_device_first(tmp_path: Path) -> None:
    """devicemanager/manager.go devicesToAllocate: "Allocates from reusableDevices list first". The app
    container takes over the GPU its init container held, whatever the hint, so the second GPU stays free for
    the next pod (numalint gave the app the other GPU and rejected q: UnexpectedAdmissionError)."""
    write(tmp_path, {
        "kc.yaml": KUBELET.format(reserved="0"),
        "topo.yaml": TOPOLOGY.format(
            numa='    - {id: 0, cpus: "0-3", memory: 16Gi}\n    - {id: 1, cpus: "4-7", memory: 16Gi}',
            devices="    - {resource: nvidia.com/gpu, numaNode: 0, count: 1}\n"
                    "    - {resource: nvidia.com/gpu, numaNode: 1, count: 1}"),
        "p.yaml": """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
    - {name: init, image: x, resources: {limits: {cpu: 4, memory: 1Gi, nvidia.com/gpu: 1}}}
  containers:
    - {name: app, image: x, resources: {limits: {cpu: 6, memory: 1Gi, nvidia.com/gpu: 1}}}
""",
        "q.yaml": """apiVersion: v1
kind: Pod
metadata: {name: q}
spec:
  containers:
    - {name: app, image: x, resources: {limits: {nvidia.com/gpu: 1}}}
"""})
    assert [f["rule"] for f in findings(tmp_path, {}) if f["severity"] == "error"] == []
    pool = _pools(tmp_path)[0]
    assert pool["nodes"][0]["pods"] == ["p", "q"]
    assert _devices_per_numa(pool, "nvidia.com/gpu") == {0: 1, 1: 1}


def test_devices_off_the_hint_come_before_devices_without_numa_affinity(tmp_path: Path) -> None:
    """devicesToAllocate after filterByAffinity: the hint's devices, then (without a plugin's preferred allocation)
    the unaligned devices of other NUMA nodes, and only then those with no NUMA affinity."""
    write(tmp_path, {
        "kc.yaml": KUBELET.format(reserved="3"),
        "topo.yaml": TOPOLOGY.format(
            numa='    - {id: 0, cpus: "0-3", memory: 16Gi}\n    - {id: 1, cpus: "4", memory: 16Gi}\n'
                 '    - {id: 2, cpus: "5", memory: 16Gi}',
            devices="    - {resource: example.com/acc, numaNode: 1, count: 1}\n"
                    "    - {resource: example.com/acc, numaNode: 2, count: 1}\n"
                    "    - {resource: example.com/acc, numaNode: null, count: 1}"),
        "a.yaml": """apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  containers:
    - {name: app, image: x, resources: {limits: {cpu: 3, memory: 1Gi, example.com/acc: 2}}}
"""})
    pool = _pools(tmp_path)[0]
    assert _devices_per_numa(pool, "example.com/acc") == {0: 0, 1: 1, 2: 1}


def test_pod_scope_memory_hints_size_only_what_the_app_containers_ask_for(tmp_path: Path) -> None:
    """memorymanager/policy_static.go getPodRequestedResources sums per resource of the app containers only: 1Gi
    hugepages that only the init container asks for get no pod hint. The pod hint is then NUMA 0 (memory), and
    allocating the init container has to extend it to NUMA 0-1, which a preferred hint refuses: "failed to find
    the extended preferred hint" (numalint placed the pod on NUMA 1)."""
    write(tmp_path, {
        "all.yaml": """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: w}
spec:
  numaNodes:
    - {id: 0, cpus: "0-7", memory: 16Gi}
    - {id: 1, cpus: "8-15", memory: 16Gi, hugepages: {1Gi: 4}}
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "0"
memoryManagerPolicy: Static
topologyManagerPolicy: restricted
topologyManagerScope: pod
systemReserved: {memory: 1Gi}
reservedMemory: [{numaNode: 0, limits: {memory: 1124Mi}}]
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
    - {name: init, image: x, resources: {limits: {cpu: "1", memory: 1Gi, hugepages-1Gi: 2Gi}}}
  containers:
    - {name: app, image: x, resources: {limits: {cpu: "1", memory: 1Gi, HUGE}}}
"""})
    text = (tmp_path / "all.yaml").read_text()
    (tmp_path / "all.yaml").write_text(text.replace(", HUGE", ""))
    found = findings(tmp_path, {})
    assert [f["rule"] for f in found if f["severity"] == "error"] == ["admission-failure"], found
    assert "failed to find the extended preferred hint" in found[0]["message"]
    assert "topologyManagerScope: container" in found[0]["fix"]["description"]
    # the app asking for the hugepages too: the pod hint covers them (NUMA 1), and the pod is admitted
    (tmp_path / "all.yaml").write_text(text.replace("HUGE", "hugepages-1Gi: 1Gi"))
    assert [f for f in findings(tmp_path, {}) if f["severity"] == "error"] == []


def test_prefer_closest_on_a_topology_without_distances_is_not_simulated_not_a_kubelet_failure(
        tmp_path: Path) -> None:
    """topologymanager/numa_info.go NewNUMAInfo refuses to start without NUMA distances, but a node always has
    them (cadvisor reads nodeN/distance from sysfs): a topology that leaves them out is incomplete, so the pool
    is not simulated and a warning says what to declare; with distances it is simulated."""
    numa = "".join(f'    - {{id: {n}, cpus: "{2 * n}-{2 * n + 1}", memory: 4Gi@D{n}@}}\n' for n in range(4))
    topology = TOPOLOGY.format(numa=numa.rstrip("\n"), devices="    []").replace("  devices:\n    []\n", "")
    files = {
        "kc.yaml": KUBELET.format(reserved="0")
        + 'topologyManagerPolicyOptions: {prefer-closest-numa-nodes: "true"}\n',
        "topo.yaml": re.sub(r"@D[0-9]@", "", topology),
        "p.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                  "    - {name: app, image: x, resources: {limits: {cpu: 1, memory: 1Gi}}}\n"}
    found = findings(tmp_path, files)
    assert [(f["rule"], f["severity"]) for f in found] == [("policy-option", "warning")], found
    assert 'topology "w" does not declare' in found[0]["message"] and "refuses" not in found[0]["message"]
    assert _pools(tmp_path)[0]["status"] != "simulated"
    for n in range(4):
        row = ", ".join("10" if m == n else "20" for m in range(4))
        topology = topology.replace(f"@D{n}@", f", distances: [{row}]")
    write(tmp_path, {"topo.yaml": topology})
    assert findings(tmp_path, {}) == []
    assert _pools(tmp_path)[0]["nodes"][0]["pods"] == ["p"]


@pytest.mark.parametrize("policy,numa_nodes", [("single-numa-node", 4), ("best-effort", 2), ("restricted", 2)])
def test_prefer_closest_without_distances_is_simulated_where_distances_change_nothing(
        tmp_path: Path, policy: str, numa_nodes: int) -> None:
    """single-numa-node ignores prefer-closest-numa-nodes (NewHintMerger), and on two NUMA nodes no two equally
    wide masks differ in average distance (the local distance is 10 on every node): the kubelet places pods as it
    would with any distances, so the pool is simulated and a pod no NUMA node holds is still rejected (found by
    a review: the option hid the admission-failure it had without it)."""
    numa = "".join(f'    - {{id: {n}, cpus: "{4 * n}-{4 * n + 3}", memory: 16Gi}}\n' for n in range(numa_nodes))
    policy_line = f"topologyManagerPolicy: {policy}\n"
    files = {
        "kc.yaml": KUBELET.format(reserved="0").replace("topologyManagerPolicy: best-effort\n", policy_line)
        + 'topologyManagerPolicyOptions: {prefer-closest-numa-nodes: "true"}\n',
        "topo.yaml": TOPOLOGY.format(numa=numa.rstrip("\n"), devices="    []").replace("  devices:\n    []\n", ""),
        "p.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                  "    - {name: app, image: x, resources: {limits: {cpu: 3, memory: 1Gi}}}\n"}
    assert [f for f in findings(tmp_path, files) if f["rule"] == "policy-option"] == []
    pool = _pools(tmp_path)[0]
    assert pool["status"] == "simulated" and pool["nodes"][0]["pods"] == ["p"], pool
    # 6 exclusive CPUs: more than one NUMA node holds (4, one reserved on node 0): single-numa-node rejects the pod
    write(tmp_path, {"p.yaml": files["p.yaml"].replace("cpu: 3", "cpu: 6")})
    with_option = [(f["rule"], f["line"], f["message"]) for f in findings(tmp_path, {})]
    assert any(rule == "admission-failure" for rule, _, _ in with_option) == (policy == "single-numa-node")
    # the option changes nothing there: the same findings without it
    write(tmp_path, {"kc.yaml": files["kc.yaml"].replace('topologyManagerPolicyOptions: {prefer-closest-numa-nodes: '
                                                         '"true"}\n', "")})
    assert [(f["rule"], f["line"], f["message"]) for f in findings(tmp_path, {})] == with_option


def test_a_best_effort_hint_on_a_pool_without_distances_is_offered_only_where_they_are_declared(
        tmp_path: Path) -> None:
    """single-numa-node on 4 NUMA nodes without distances is simulated (the option is ignored), but best-effort
    would use them: the fix search cannot verify that change on stand-in distances, so it offers it only once the
    topology declares them (found by a review)."""
    numa = "".join(f'    - {{id: {n}, cpus: "{4 * n}-{4 * n + 3}", memory: 16Gi@D{n}@}}\n' for n in range(4))
    topology = TOPOLOGY.format(numa=numa.rstrip("\n"), devices="    []").replace("  devices:\n    []\n", "")
    files = {
        "kc.yaml": KUBELET.format(reserved="0").replace("best-effort", "single-numa-node")
        + 'topologyManagerPolicyOptions: {prefer-closest-numa-nodes: "true"}\n',
        "topo.yaml": re.sub(r"@D[0-9]@", "", topology),
        "p.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                  "    - {name: app, image: x, resources: {limits: {cpu: 6, memory: 1Gi}}}\n"}
    rejected = [f for f in findings(tmp_path, files) if f["rule"] == "admission-failure"]
    assert len(rejected) == 1 and "best-effort" not in rejected[0]["fix"]["description"], rejected
    for n in range(4):
        row = ", ".join("10" if m == n else "20" for m in range(4))
        topology = topology.replace(f"@D{n}@", f", distances: [{row}]")
    rejected = [f for f in findings(tmp_path, {"topo.yaml": topology}) if f["rule"] == "admission-failure"]
    assert len(rejected) == 1 and "topologyManagerPolicy: best-effort" in rejected[0]["fix"]["description"], rejected


def test_a_sidecar_is_a_plain_init_container_before_1_29(tmp_path: Path) -> None:
    """SidecarContainers is alpha and off in 1.28 (on from 1.29): the API server drops an init container's
    restartPolicy (pkg/api/pod/util.go dropDisabledFields), so its CPUs are reusable by the app container and a
    pod of 2 + 2 CPUs fits 3; from 1.29 the sidecar keeps its 2 CPUs beside the app's, and the pod cannot fit."""
    write(tmp_path, {"all.yaml": """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: w}
spec:
  numaNodes:
    - {id: 0, cpus: "0-3", memory: 16Gi}
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "0"
topologyManagerPolicy: restricted
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers:
    - {name: side, image: x, restartPolicy: Always, resources: {limits: {cpu: "2", memory: 1Gi}}}
  containers:
    - {name: app, image: x, resources: {limits: {cpu: "2", memory: 1Gi}}}
"""})
    placed = {}
    for version in ("1.28", "1.29"):
        pools = run("simulate", "--format", "json", "--kubernetes-version", version, str(tmp_path)).json()["pools"]
        placed[version] = pools[0]["nodes"][0]["pods"]
    assert placed == {"1.28": ["p"], "1.29": []}, placed


@pytest.mark.parametrize("field,fits,overflows,bits", [
    ("maxPods", "2147483647", "2147483648", 32), ("podsPerCore", "-2147483648", "-2147483649", 32),
    ("podPidsLimit", "9223372036854775807", "9223372036854775808", 64)])
def test_a_kubelet_integer_beyond_its_go_type_is_refused(tmp_path: Path, field: str, fits: str, overflows: str,
                                                         bits: int) -> None:
    """The kubelet decodes its configuration into Go ints (maxPods int32, podPidsLimit int64): encoding/json refuses
    a number the type cannot hold ("cannot unmarshal number ... of type int32") and the kubelet does not start."""
    head = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
    assert [f for f in findings(tmp_path, {"kc.yaml": head + f"{field}: {fits}\n"}) if f["rule"] == "schema"] == []
    found = [f for f in findings(tmp_path, {"kc.yaml": head + f"{field}: {overflows}\n"}) if f["rule"] == "schema"]
    assert [(f["line"], f["severity"]) for f in found] == [(3, "error")], found
    assert f"does not fit the field's Go type, int{bits}" in found[0]["message"], found
    assert "the kubelet fails to decode it" in found[0]["message"] + (found[0].get("why") or ""), found
