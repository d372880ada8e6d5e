"""Printed fixes followed by hand, as a user reads them: the finding goes and no other comes (found by a review
that followed every rule's fix text by hand)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import run, write

KUBELET = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


def _check(tmp_path: Path, files: dict[str, str]) -> list[dict[str, Any]]:
    for old in tmp_path.glob("*.yaml"):
        old.unlink()
    write(tmp_path, files)
    found: list[dict[str, Any]] = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    return found


def _only(found: list[dict[str, Any]], rule: str) -> dict[str, Any]:
    [finding] = [f for f in found if f["rule"] == rule]
    return finding


def test_a_cpu_reservation_beside_a_written_zero_quantity(tmp_path: Path) -> None:
    """no-cpu-reservation said 'e.g. reservedSystemCPUs: "0"' to a configuration writing systemReserved cpu "0";
    followed, reserved-cpus-conflict then said the quantity is overridden."""
    kubelet = KUBELET + 'cpuManagerPolicy: static\nsystemReserved: {cpu: "0", memory: 1Gi}\n'
    fix = _only(_check(tmp_path, {"k.yaml": kubelet}), "no-cpu-reservation")["fix"]["description"]
    assert "raise systemReserved.cpu" in fix and "remove the cpu of systemReserved" in fix
    assert _check(tmp_path, {"k.yaml": kubelet.replace('cpu: "0"', 'cpu: "1"')}) == []
    listed = KUBELET + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\nsystemReserved: {memory: 1Gi}\n'
    assert _check(tmp_path, {"k.yaml": listed}) == []


SMT = {"k.yaml": KUBELET + 'cpuManagerPolicy: static\ncpuManagerPolicyOptions: {full-pcpus-only: "true"}\n'
                           'reservedSystemCPUs: "0,8"\n',
       "t.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: smt}\nspec:\n"
                 "  threadsPerCore: 2\n  numaNodes: [{id: 0, cpus: \"0-15\", memory: 64Gi}]\n",
       "p.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: odd}\nspec:\n  containers:\n  - name: app\n"
                 "    resources: {limits: {cpu: \"3\", memory: 1Gi}}\n"}


def test_an_odd_cpu_count_is_not_told_to_free_cores(tmp_path: Path) -> None:
    """SMTAlignmentError for a count not a multiple of the threads per core: no number of free cores admits it."""
    assert _only(_check(tmp_path, SMT), "smt-alignment")["fix"]["description"] == \
        "request a multiple of 2 CPUs per container"
    assert _check(tmp_path, {**SMT, "p.yaml": SMT["p.yaml"].replace('"3"', '"4"')}) == []
    shown = " ".join(run("simulate", str(tmp_path)).output.split())
    assert "free whole cores" not in shown


def test_a_negative_hugepages_reservation_is_removed_not_made_positive(tmp_path: Path) -> None:
    """reserved-memory-numa said 'reserve a positive amount' of hugepages, which the sum rule then refuses: no
    hugepages are reserved for the system, their entries must add up to 0."""
    kubelet = (KUBELET + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\nmemoryManagerPolicy: Static\n'
               "reservedMemory:\n  - numaNode: 0\n    limits: {memory: 100Mi, hugepages-2Mi: -2Mi}\n")
    fix = _only(_check(tmp_path, {"k.yaml": kubelet}), "reserved-memory-numa")["fix"]["description"]
    assert fix.startswith("remove the limit (no hugepages are reserved for the system")
    assert _check(tmp_path, {"k.yaml": kubelet.replace(", hugepages-2Mi: -2Mi", "")}) == []


SRIOV = """\
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata: {name: fh, namespace: openshift-sriov-network-operator}
spec:
  resourceName: fh
  nodeSelector: {node-role.kubernetes.io/worker: ""}
  numVfs: 80
  nicSelector: {pfNames: ["ens1f0#0-71"]}
"""
NICS = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: w}
spec:
  pool: {nodeSelector: {node-role.kubernetes.io/worker: ""}}
  numaNodes:
    - {id: 0, cpus: "0-15", memory: 64Gi}
  nics:
    - {pciAddress: "0000:3b:00.0", interface: ens1f0, vendor: "8086", deviceID: "158b", totalVfs: 64, numaNode: 0}
"""


def test_lowering_numvfs_cuts_the_pfnames_range_too(tmp_path: Path) -> None:
    """'set numVfs to at most 64' left the range ens1f0#0-71 past it, which the webhook refuses in turn."""
    fix = _only(_check(tmp_path, {"p.yaml": SRIOV, "t.yaml": NICS}), "sriov-numvfs")["fix"]["description"]
    assert fix == "set numVfs to at most 64, and pfNames to ens1f0#0-63"
    followed = SRIOV.replace("numVfs: 80", "numVfs: 64").replace("#0-71", "#0-63")
    assert _check(tmp_path, {"p.yaml": followed, "t.yaml": NICS}) == []


def test_a_network_in_another_namespace_is_named_with_it(tmp_path: Path) -> None:
    """A SriovNetwork whose networkNamespace is another than the pod's: 'no network of that name is in the run' was
    false, and 'create the network' made a duplicate; naming it with its namespace is the fix."""
    network = ("apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetwork\nmetadata: {name: fh-net, "
               "namespace: openshift-sriov-network-operator}\nspec: {resourceName: fh, networkNamespace: ran}\n")
    policy = SRIOV.replace("numVfs: 80", "numVfs: 8").replace("#0-71", "#0-7")
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: du\n  namespace: app\n  annotations:\n"
           "    k8s.v1.cni.cncf.io/networks: fh-net\nspec:\n  containers: [{name: c, image: x}]\n")
    found = _only(_check(tmp_path, {"n.yaml": network, "p.yaml": policy, "pod.yaml": pod}), "sriov-unknown-resource")
    assert 'is in namespace "ran", not in "app"' in found["message"]
    assert found["fix"]["description"].startswith('name it with its namespace in the annotation ("ran/fh-net")')
    fixed = pod.replace("networks: fh-net", "networks: ran/fh-net")
    assert _check(tmp_path, {"n.yaml": network, "p.yaml": policy, "pod.yaml": fixed}) == []
    # written as JSON, the entry's "namespace" is the field to set
    listed = pod.replace("networks: fh-net", "networks: '[{\"name\": \"fh-net\"}]'")
    found = _only(_check(tmp_path, {"n.yaml": network, "p.yaml": policy, "pod.yaml": listed}), "sriov-unknown-resource")
    assert found["fix"]["description"].startswith('set "namespace": "ran" in its entry of the annotation')


def test_texts_name_where_the_setting_goes(tmp_path: Path) -> None:
    """Fix texts that named a field without where it lives, or a second setting the first one needs."""
    openshift = ("apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {name: mm}\n"
                 "spec:\n  machineConfigPoolSelector:\n    matchLabels: {pools.operator.machineconfiguration.openshift"
                 ".io/worker: \"\"}\n  kubeletConfig:\n    memoryManagerPolicy: Static\n"
                 "    topologyManagerPolicy: single-numa-node\n")
    found = [f for f in _check(tmp_path, {"kc.yaml": openshift}) if f["rule"] == "reserved-memory-mismatch"]
    assert found and all("spec.autoSizingReserved: false" in f["fix"]["description"] for f in found)
    duplicate = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: x\n"
                 "    resources:\n      limits: {cpu: \"1\"}\n      limits: {cpu: \"2\"}\n")
    fix = _only(_check(tmp_path, {"p.yaml": duplicate}), "unknown-field")["fix"]["description"]
    assert fix == 'merge the "limits" entries into one (the last one\'s value is the one read now)'


def test_enforce_node_allocatable_on_openshift_is_the_operators(tmp_path: Path) -> None:
    """The machine-config operator writes enforceNodeAllocatable itself ([pods] with reservedSystemCPUs): what a
    KubeletConfig lists never reaches the kubelet (found by the review of this change)."""
    kubeletconfig = ("apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {name: r}\n"
                     "spec:\n  machineConfigPoolSelector:\n    matchLabels: {pools.operator.machineconfiguration"
                     ".openshift.io/worker: \"\"}\n  kubeletConfig:\n    reservedSystemCPUs: \"0-1\"\n"
                     "    enforceNodeAllocatable: [pods, system-reserved]\n")
    assert "kubelet-start" not in [f["rule"] for f in _check(tmp_path, {"kc.yaml": kubeletconfig})]
    # without reservedSystemCPUs the list applies: the template gives systemReservedCgroup, no kubeReservedCgroup
    unreserved = kubeletconfig.replace('    reservedSystemCPUs: "0-1"\n', "")
    assert "kubelet-start" not in [f["rule"] for f in _check(tmp_path, {"kc.yaml": unreserved})]
    kube = unreserved.replace("system-reserved]", "kube-reserved]")
    assert "kubelet-start" in [f["rule"] for f in _check(tmp_path, {"kc.yaml": kube})]
    kubelet = (KUBELET + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
               "enforceNodeAllocatable: [pods, kube-reserved]\n")
    assert _only(_check(tmp_path, {"k.yaml": kubelet}), "kubelet-start")["line"] == 5


def test_a_pod_asking_a_page_size_no_node_has_gets_the_same_advice_from_simulate(tmp_path: Path) -> None:
    """simulate advised "run it on a pool of larger nodes" where check says to set up those pages."""
    files = {**SMT, "p.yaml": SMT["p.yaml"].replace("memory: 1Gi}", "memory: 1Gi, hugepages-2Mi: 2Mi}")
             .replace('"3"', '"4"')}
    fix = _only(_check(tmp_path, files), "admission-failure")["fix"]["description"]
    assert fix.startswith("no node of the pool has hugepages-2Mi: set up 2Mi pages on its nodes")
    assert fix in " ".join(run("simulate", str(tmp_path)).output.split())


def test_a_profile_the_api_server_refuses_is_not_told_again_in_kubelet_words(tmp_path: Path) -> None:
    """A PerformanceProfile's topologyPolicy or reserved CPU list that its own validation refuses was reported a
    second time at the same place by the kubelet rule, in the kubelet's field names (topologyManagerPolicy,
    reservedSystemCPUs): no kubelet ever gets the value (found by the review that followed every fix)."""
    profile = ("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {name: cnf}\nspec:\n"
               '  cpu: {isolated: "2-7", reserved: "0-1,x"}\n  numa: {topologyPolicy: single-numa}\n'
               '  nodeSelector: {node-role.kubernetes.io/cnf: ""}\n')
    found = _check(tmp_path, {"pp.yaml": profile})
    assert sorted((f["rule"], f["line"]) for f in found) == [("performance-profile-cpus", 5), ("schema", 6)]
    kubelet = KUBELET + 'reservedSystemCPUs: "0-1,x"\ntopologyManagerPolicy: single-numa\n'
    assert {f["rule"] for f in _check(tmp_path, {"k.yaml": kubelet})} == {"reserved-cpus-invalid",
                                                                          "invalid-policy-name"}


def test_options_that_cannot_go_together_are_said_with_their_gate(tmp_path: Path) -> None:
    """An option refused for its gate hid its conflict with another option: enabling the gate, as the fix says,
    brought a new refusal. Both are said now, as the kubelet would say them one after the other."""
    kubelet = (KUBELET + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
               'cpuManagerPolicyOptions: {distribute-cpus-across-cores: "true", full-pcpus-only: "true"}\n')
    messages = [f["message"] for f in _check(tmp_path, {"k.yaml": kubelet}) if f["rule"] == "policy-option"]
    assert len(messages) == 2 and "can not be used at the same time" in messages[1]
    enabled = kubelet + "featureGates: {CPUManagerPolicyAlphaOptions: true}\n"
    assert [f["message"] for f in _check(tmp_path, {"k.yaml": enabled})] == messages[1:]


def test_renaming_the_legacy_networks_key_says_what_else_to_mend(tmp_path: Path) -> None:
    """Renamed as the fix said, a value Multus cannot parse turned the warning into an error: the fix says it."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
           '    kubernetes.v1.cni.cncf.io/networks: "fh-net,"\nspec:\n  containers: [{name: c, image: x}]\n')
    fix = _only(_check(tmp_path, {"p.yaml": pod}), "networks-annotation")["fix"]["description"]
    assert fix.endswith("which Multus cannot parse: entry 2 of the comma list is empty (a stray or trailing comma)")
    network = ("apiVersion: k8s.cni.cncf.io/v1\nkind: NetworkAttachmentDefinition\nmetadata: {name: fh-net}\n"
               'spec: {config: \'{"type": "macvlan"}\'}\n')
    followed = pod.replace("kubernetes.v1.cni.cncf.io/networks", "k8s.v1.cni.cncf.io/networks").replace(",\"", "\"")
    assert _check(tmp_path, {"p.yaml": followed, "n.yaml": network}) == []


def test_a_profile_rule_switched_off_leaves_the_kubelet_rule_said(tmp_path: Path) -> None:
    profile = ("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {name: cnf}\nspec:\n"
               '  cpu: {isolated: "2-7", reserved: "0-1"}\n  numa: {topologyPolicy: Single-numa-node}\n'
               '  nodeSelector: {node-role.kubernetes.io/cnf: ""}\n')
    write(tmp_path, {"pp.yaml": profile})
    shown = run("check", "--format", "json", "--ignore", "schema", str(tmp_path)).json()["findings"]
    assert [f["rule"] for f in shown] == ["invalid-policy-name"]
