"""Printed advice that works: following a finding's own fix or hint, as printed, clears it without a new
error, and a finding does not go silent once its advice is followed. Through the command line."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import findings

KUBELET = """\
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    cpuManagerPolicy: static
    reservedSystemCPUs: "0"
    """

FRACTIONAL_POD = """\
    apiVersion: v1
    kind: Pod
    metadata: {name: a}
    spec:
      containers:
      - name: c
        image: x
        resources: {limits: {cpu: 3500m, memory: 1Gi}}
    """

UNLABELLED_TOPOLOGY = """\
    apiVersion: numalint.io/v1alpha1
    kind: NodeTopology
    metadata: {name: box}
    spec:
      numaNodes: [{id: 0, cpus: "0-7", memory: 16Gi}]
    """


def test_fractional_cpu_stays_once_the_pool_is_declared(tmp_path: Path) -> None:
    """fractional-cpu on the assumed default node says "declare pools with a NodeTopology"; declaring one of no
    node labels makes it the only pool, every node of the run: the pod still runs there in the shared CPU pool
    (cpumanager/policy_static.go guaranteedCPUs: 0 exclusive CPUs for 3500m), so the finding stays."""
    before = [f for f in findings(tmp_path / "a", {"kubelet.yaml": KUBELET, "pod.yaml": FRACTIONAL_POD})
              if f["rule"] == "fractional-cpu"]
    assert len(before) == 1 and "declare pools with a NodeTopology" in before[0]["message"]
    after = [f for f in findings(tmp_path / "b", {"kubelet.yaml": KUBELET, "pod.yaml": FRACTIONAL_POD,
                                                  "topology.yaml": UNLABELLED_TOPOLOGY})
             if f["rule"] == "fractional-cpu"]
    assert len(after) == 1 and 'it runs on pool "box"' in after[0]["message"]
    assert "declare pools" not in after[0]["message"]
