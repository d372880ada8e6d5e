"""SR-IOV VFs in the simulation, and OpenShift pools, KubeletConfigs and PerformanceProfiles."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from numalint.engine import Options, build_analyses
from numalint.k8s.versions import NEWEST
from tests.conftest import run, write

CORPUS = Path(__file__).parent / "corpus"
NTO = CORPUS / "openshift__cluster-node-tuning-operator"


def dual_socket_topology() -> str:
    """104 CPUs: NUMA 0 the even CPUs, NUMA 1 the odd ones, SMT siblings 52 apart; a NIC on NUMA 0."""
    def cores(parity: int) -> str:
        return "\n".join(f'        - "{c},{c + 52}"' for c in range(parity, 52, 2))

    return f"""apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata:
  name: dual-socket
spec:
  pool:
    nodeSelector: {{node-role.kubernetes.io/worker-cnf: ""}}
  sockets: 2
  numaNodes:
    - id: 0
      memory: 192Gi
      cores:
{cores(0)}
    - id: 1
      memory: 192Gi
      cores:
{cores(1)}
  nics:
    - {{pciAddress: "0000:3b:00.0", interface: ens1f0, vendor: "8086", deviceID: "158b", totalVfs: 64, numaNode: 0}}
"""


KUBELET = """apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "0,52"
topologyManagerPolicy: single-numa-node
topologyManagerScope: container
"""


def sriov(exclude: bool) -> str:
    return f"""apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata:
  name: fh
  namespace: openshift-sriov-network-operator
spec:
  resourceName: fh
  nodeSelector:
    node-role.kubernetes.io/worker-cnf: ""
  numVfs: 8
  nicSelector:
    pfNames: ["ens1f0"]
  deviceType: vfio-pci
  excludeTopology: {str(exclude).lower()}
---
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetwork
metadata:
  name: fh-net
  namespace: openshift-sriov-network-operator
spec:
  resourceName: fh
  networkNamespace: ran
"""


def du_pods() -> str:
    return "---\n".join(f"""apiVersion: v1
kind: Pod
metadata:
  name: du-{i}
  namespace: ran
  annotations:
    k8s.v1.cni.cncf.io/networks: fh-net
spec:
  nodeSelector:
    node-role.kubernetes.io/worker-cnf: ""
  containers:
    - name: du
      resources:
        limits: {{cpu: "16", memory: 8Gi}}
""" for i in range(4))


def test_vfs_on_numa_0_admit_three_pods_and_reject_the_fourth(tmp_path: Path) -> None:
    write(tmp_path, {"topology.yaml": dual_socket_topology(), "kubelet.yaml": KUBELET, "sriov.yaml": sriov(False),
                     "pods.yaml": du_pods()})
    data = json.loads(run("simulate", "--format", "json", str(tmp_path)).output)
    pods = {p["name"]: p for p in data["pods"]}
    for name in ("du-0", "du-1", "du-2"):
        assert pods[name]["admitted"] and pods[name]["numa_nodes"] == [0]
        assert all(c % 2 == 0 for c in pods[name]["containers"][0]["cpus"])
        assert list(pods[name]["containers"][0]["devices"]) == ["openshift.io/fh"]
    assert (pods["du-3"]["admitted"], pods["du-3"]["reason"]) == (False, "TopologyAffinityError")
    findings = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    failure = next(f for f in findings if f["rule"] == "admission-failure")
    assert "du-3" in failure["message"] and "NUMA 0: 2 CPUs" in failure["message"]
    assert "excludeTopology: true in SriovNetworkNodePolicy fh" in failure["fix"]["description"]
    assert "remote NUMA node" in failure["fix"]["description"]


def test_exclude_topology_admits_the_fourth_pod_on_numa_1(tmp_path: Path) -> None:
    write(tmp_path, {"topology.yaml": dual_socket_topology(), "kubelet.yaml": KUBELET, "sriov.yaml": sriov(True),
                     "pods.yaml": du_pods()})
    result = run("simulate", "--format", "json", str(tmp_path))
    assert result.exit_code == 0
    pods = {p["name"]: p for p in json.loads(result.output)["pods"]}
    assert [pods[f"du-{i}"]["numa_nodes"] for i in range(4)] == [[0], [0], [0], [1]]
    assert all(c % 2 == 1 for c in pods["du-3"]["containers"][0]["cpus"])


def test_sriov_rules(tmp_path: Path) -> None:
    conflicting = sriov(False) + "---\n" + sriov(True).split("---\n")[0].replace("name: fh\n", "name: fh-2\n").replace(
        'pfNames: ["ens1f0"]', 'pfNames: ["ens1f1"]').replace("deviceType: vfio-pci", "deviceType: netdevice")
    write(tmp_path, {"sriov.yaml": conflicting, "topology.yaml": dual_socket_topology().replace(
        "totalVfs: 64", "totalVfs: 4"), "pod.yaml": du_pods().split("---\n")[0].replace("fh-net", "fh-net, other")})
    findings = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    rules = sorted({f["rule"] for f in findings if f["rule"].startswith("sriov")})
    assert rules == ["sriov-numvfs", "sriov-policy-conflict", "sriov-unknown-resource"]
    conflict = [f["message"] for f in findings if f["rule"] == "sriov-policy-conflict"]
    assert any("excludeTopology" in m for m in conflict) and any("deviceType" in m for m in conflict)
    assert any('"other"' in f["message"] for f in findings if f["rule"] == "sriov-unknown-resource")
    assert any("above the 4 VFs" in f["message"] for f in findings if f["rule"] == "sriov-numvfs")


def test_networks_annotation_forms() -> None:
    from numalint.model.sriov import parse_networks

    assert parse_networks("a, ns/b@eth1,c") == [(None, "a"), ("ns", "b"), (None, "c")]
    assert parse_networks('[{"name": "a", "namespace": "x", "interface": "net1"}, {"name": "a"}]') == [
        ("x", "a"), (None, "a")]
    assert parse_networks("[broken") == []


def test_performance_profile_renders_like_the_node_tuning_operator() -> None:
    options = Options(version=NEWEST)
    rendered = next(p for p in build_analyses([str(NTO / (
        "test__e2e__performanceprofile__cluster-setup__manual-cluster__performance__performance_profile.yaml"))],
        options)[0].profiles)
    expected = next(p for p in build_analyses([str(NTO / (
        "test__e2e__performanceprofile__testdata__render-expected-output__manual_kubeletconfig.yaml"))],
        options)[0].profiles)
    for attribute in ("cpu_manager_policy", "cpu_options", "topology_policy", "memory_policy",
                      "reserved_cpus_text", "system_reserved", "kube_reserved", "eviction_memory"):
        assert getattr(rendered, attribute) == getattr(expected, attribute), attribute
    assert [(e.numa_node, e.limits) for e in rendered.reserved_memory] == [
        (e.numa_node, e.limits) for e in expected.reserved_memory]
    assert rendered.ref.kind == "PerformanceProfile"


def test_performance_profile_pool_chain_and_simulation(tmp_path: Path) -> None:
    profile = "test__e2e__performanceprofile__cluster-setup__manual-cluster__performance__performance_profile.yaml"
    shutil.copy(NTO / profile, tmp_path / "profile.yaml")
    shutil.copy(NTO / "test__e2e__performanceprofile__cluster-setup__base__performance__machine_config_pool.yaml",
                tmp_path / "mcp.yaml")
    write(tmp_path, {
        "topology.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata:\n  name: cnf\nspec:\n"
                         "  pool:\n    nodeSelector: {node-role.kubernetes.io/worker-cnf: \"\"}\n"
                         "  numaNodes:\n    - {id: 0, cpus: \"0-3\", memory: 16Gi, hugepages: {1Gi: 1}}\n",
        "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: rt\nspec:\n  nodeSelector:\n"
                    "    node-role.kubernetes.io/worker-cnf: \"\"\n  containers:\n    - name: app\n"
                    "      resources:\n        limits: {cpu: \"1\", memory: 1Gi, hugepages-1Gi: 1Gi}\n"})
    data = json.loads(run("simulate", "--format", "json", str(tmp_path)).output)
    pool = data["pools"][0]
    assert pool["kubelet_config"] == "manual" and pool["topology_policy"] == "single-numa-node"
    assert pool["nodes"][0]["numa_nodes"][0]["resources"]["memory"]["reserved"] == 1100 * 2**20
    pod = data["pods"][0]
    assert pod["admitted"] and pod["containers"][0]["cpus"] == [1]
    findings = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    cpus = [f for f in findings if f["rule"] == "performance-profile-cpus"]
    assert not cpus  # reserved 0, isolated 1, offlined 2-3 cover the 4 CPUs


def test_openshift_kubeletconfig_reaches_nodes_through_its_machineconfigpool(tmp_path: Path) -> None:
    shutil.copy(CORPUS / "openshift__machine-config-operator" / "manifests__worker.machineconfigpool.yaml",
                tmp_path / "mcp.yaml")
    write(tmp_path, {
        "kc.yaml": "apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata:\n"
                   "  name: numa\nspec:\n  machineConfigPoolSelector:\n    matchLabels:\n"
                   "      pools.operator.machineconfiguration.openshift.io/worker: \"\"\n  kubeletConfig:\n"
                   "    cpuManagerPolicy: static\n    reservedSystemCPUs: \"0\"\n"
                   "    topologyManagerPolicy: single-numa-node\n",
        "kc2.yaml": "apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata:\n"
                    "  name: lost\nspec:\n  machineConfigPoolSelector:\n    matchLabels:\n"
                    "      pools.operator.machineconfiguration.openshift.io/workr: \"\"\n"
                    "  kubeletConfig:\n    maxPods: 300\n",
        "topology.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata:\n  name: w\nspec:\n"
                         "  pool:\n    nodeSelector: {node-role.kubernetes.io/worker: \"\"}\n"
                         "  numaNodes:\n    - {id: 0, cpus: \"0-7\", memory: 16Gi}\n"
                         "    - {id: 1, cpus: \"8-15\", memory: 16Gi}\n",
    })
    data = json.loads(run("simulate", "--format", "json", str(tmp_path)).output)
    assert [(p["name"], p["kubelet_config"], p["topology_policy"]) for p in data["pools"]][0] == (
        "w", "numa", "single-numa-node")
    findings = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    pool_findings = [f for f in findings if f["rule"] == "kubeletconfig-pool"]
    assert len(pool_findings) == 1 and "lost" in pool_findings[0]["message"]
