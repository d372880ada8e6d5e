"""maxPods and podsPerCore: the scheduler's NodeResourcesFit counts one pod against the node's allocatable "pods"
(pkg/scheduler/framework/plugins/noderesources/fit.go, "Too many pods"); the kubelet sets it from maxPods, lowered
to podsPerCore times the logical CPUs when that is set (pkg/kubelet/kubelet_node_status.go)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import run, write

TOPOLOGY = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: small}
spec:
  pool:
    nodeSelector: {role: small}
    nodes: 2
    %s
  numaNodes:
    - {id: 0, cpus: "0-7", memory: 32Gi}
"""


def _deployment(replicas: int, selector: str = "{role: small}") -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: {replicas}
  template:
    spec:
      nodeSelector: {selector}
      containers:
        - name: web
          image: web
          resources: {{requests: {{cpu: 10m, memory: 16Mi}}}}
"""


def _kubelet(settings: str) -> str:
    return f"apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmetadata: {{name: k}}\n{settings}"


def _rejected(tmp_path: Path, files: dict[str, str]) -> list[dict[str, Any]]:
    write(tmp_path, files)
    result = run("check", "--format", "json", str(tmp_path))
    assert result.exit_code in (0, 1), result.output
    return [f for f in result.json()["findings"] if f["rule"] == "admission-failure"]


def test_pods_beyond_max_pods_stay_pending(tmp_path: Path) -> None:
    files = {"kubelet.yaml": _kubelet("maxPods: 3\n"), "topology.yaml": TOPOLOGY % "kubeletConfig: k"}
    assert _rejected(tmp_path, {**files, "app.yaml": _deployment(6)}) == []  # 3 on each of the 2 nodes
    found = _rejected(tmp_path, {**files, "app.yaml": _deployment(7)})
    assert len(found) == 1
    assert "pod web-6 cannot be scheduled" in found[0]["message"]
    assert 'already runs its maxPods of 3 pods (the scheduler\'s "Too many pods")' in found[0]["message"]
    assert found[0]["fix"]["description"].startswith("raise maxPods (or podsPerCore)")
    text = run("simulate", str(tmp_path)).output
    assert "web-6 -> -: Unschedulable: every node of pool" in text and "3 pod(s)" in text


def test_pods_per_core_lowers_max_pods(tmp_path: Path) -> None:
    # 8 logical CPUs x podsPerCore 1 = 8 pods a node, below maxPods
    files = {"kubelet.yaml": _kubelet("maxPods: 100\npodsPerCore: 1\n"), "topology.yaml": TOPOLOGY % "kubeletConfig: k"}
    assert _rejected(tmp_path, {**files, "app.yaml": _deployment(16)}) == []
    found = _rejected(tmp_path, {**files, "app.yaml": _deployment(17)})
    assert len(found) == 1 and "maxPods of 8 pods" in found[0]["message"]


def test_the_default_is_110_pods_a_node(tmp_path: Path) -> None:
    files = {"kubelet.yaml": _kubelet("cpuManagerPolicy: none\n"), "topology.yaml": TOPOLOGY % "kubeletConfig: k"}
    assert _rejected(tmp_path, {**files, "app.yaml": _deployment(220)}) == []
    found = _rejected(tmp_path, {**files, "app.yaml": _deployment(221)})
    assert len(found) == 1 and "maxPods of 110 pods" in found[0]["message"]


def test_an_openshift_pool_takes_250_pods_a_node(tmp_path: Path) -> None:
    # the machine-config operator's kubelet.yaml template writes maxPods: 250 under every KubeletConfig
    pool = """\
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfigPool
metadata:
  name: small
  labels: {machineconfiguration.openshift.io/role: small}
spec:
  machineConfigSelector:
    matchExpressions:
      - {key: machineconfiguration.openshift.io/role, operator: In, values: [worker, small]}
  nodeSelector:
    matchLabels: {role: small}
"""
    config = """\
apiVersion: machineconfiguration.openshift.io/v1
kind: KubeletConfig
metadata: {name: k}
spec:
  machineConfigPoolSelector:
    matchLabels: {machineconfiguration.openshift.io/role: small}
  kubeletConfig: {cpuManagerPolicy: none}
"""
    files = {"mcp.yaml": pool, "kc.yaml": config, "topology.yaml": TOPOLOGY % ""}
    assert _rejected(tmp_path, {**files, "app.yaml": _deployment(500)}) == []
    found = _rejected(tmp_path, {**files, "app.yaml": _deployment(501)})
    assert len(found) == 1 and "maxPods of 250 pods" in found[0]["message"]


def test_max_pods_zero_is_the_default(tmp_path: Path) -> None:
    # v1beta1 defaults.go sets maxPods 0 to 110
    files = {"kubelet.yaml": _kubelet("maxPods: 0\n"), "topology.yaml": TOPOLOGY % "kubeletConfig: k"}
    assert _rejected(tmp_path, {**files, "app.yaml": _deployment(220)}) == []


def test_an_openshift_pool_without_a_kubeletconfig_takes_250_pods_a_node(tmp_path: Path) -> None:
    pool = """\
apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfigPool
metadata: {name: small}
spec:
  nodeSelector:
    matchLabels: {role: small}
"""
    files = {"mcp.yaml": pool, "topology.yaml": TOPOLOGY % ""}
    assert _rejected(tmp_path, {**files, "app.yaml": _deployment(500)}) == []
    found = _rejected(tmp_path, {**files, "app.yaml": _deployment(501)})
    assert len(found) == 1 and "maxPods of 250 pods" in found[0]["message"]
    assert '(the only topology of the run)' in found[0]["message"]


def test_a_daemonset_pod_waits_for_its_own_node(tmp_path: Path) -> None:
    daemonset = """\
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  template:
    spec:
      nodeSelector: {role: small}
      containers:
        - {name: agent, image: agent, resources: {requests: {cpu: 10m, memory: 16Mi}}}
"""
    # 5 web pods on 2 nodes of 3 slots: small-0 takes 3, small-1 takes 2, so only small-0 has no slot left
    files = {"kubelet.yaml": _kubelet("maxPods: 3\n"), "topology.yaml": TOPOLOGY % "kubeletConfig: k",
             "app.yaml": _deployment(5) + "---\n" + daemonset}
    found = _rejected(tmp_path, files)
    assert len(found) == 1 and "pod agent-0 cannot be scheduled" in found[0]["message"]
    assert "node small-0 already runs its maxPods of 3 pods" in found[0]["message"]


def test_a_machineconfigpool_of_another_clusters_tree_leaves_a_plain_pool_at_110(tmp_path: Path) -> None:
    pool = "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata: {name: rt}\n" \
           "spec:\n  nodeSelector:\n    matchLabels: {role: rt}\n"
    files = {"openshift/pools/mcp.yaml": pool, "vanilla/nodes/topology.yaml": TOPOLOGY % "",
             "vanilla/nodes/app.yaml": _deployment(221)}
    write(tmp_path, files)
    for target in (tmp_path, tmp_path / "vanilla"):
        found = [f for f in run("check", "--format", "json", str(target)).json()["findings"]
                 if f["rule"] == "admission-failure"]
        assert len(found) == 1 and "maxPods of 110 pods" in found[0]["message"], target
