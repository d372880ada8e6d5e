"""Printed advice that works: following a finding's own fix or hint, as printed, clears it without a new
error, and a finding does not go silent once its advice is followed. Through the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import findings, run, write
from tests.test_openshift_precision import CUSTOM_POOL

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


def test_fractional_cpu_spares_an_infrastructure_daemonset_but_not_one_asking_for_more(tmp_path: Path) -> None:
    """A node agent's Guaranteed 500m on a static pool is meant for the shared CPU pool (its unsafe fix pinned a
    whole CPU on every node); a DaemonSet with hugepages asks for alignment and is still told."""
    agent = """\
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: agent}
        spec:
          selector: {matchLabels: {app: agent}}
          template:
            metadata: {labels: {app: agent}}
            spec:
              containers:
                - name: c
                  image: x
                  resources: {limits: {cpu: 500m, memory: 100Mi}}
        """
    assert "kind: DaemonSet" in agent and "500m" in agent
    assert [f for f in findings(tmp_path / "a", {"kubelet.yaml": KUBELET, "agent.yaml": agent})
            if f["rule"] == "fractional-cpu"] == []
    data_plane = agent.replace("{cpu: 500m, memory: 100Mi}", "{cpu: 500m, memory: 100Mi, hugepages-2Mi: 64Mi}")
    found = [f for f in findings(tmp_path / "b", {"kubelet.yaml": KUBELET, "agent.yaml": data_plane})
             if f["rule"] == "fractional-cpu"]
    assert len(found) == 1 and "hugepages-2Mi" in found[0]["message"]
    with_device = agent.replace("{cpu: 500m, memory: 100Mi}", "{cpu: 500m, memory: 100Mi, nvidia.com/gpu: 1}")
    assert len([f for f in findings(tmp_path / "c", {"kubelet.yaml": KUBELET, "agent.yaml": with_device})
                if f["rule"] == "fractional-cpu"]) == 1


def _numa_nodes(count: int) -> str:
    return ("apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: big}\nspec:\n  numaNodes:\n"
            + "".join(f'  - {{id: {i}, cpus: "{i * 4}-{i * 4 + 3}", memory: 8Gi}}\n' for i in range(count)))


def test_too_many_numa_nodes_offers_only_what_the_target_version_knows(tmp_path: Path) -> None:
    """max-allowable-numa-nodes exists from 1.31 (topologymanager/policy_options.go): before, the advice is to
    turn the policy off; writing the option would be a new error (policy-option, unknown option)."""
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
               "topologyManagerPolicy: best-effort\n")
    files = {"topo.yaml": _numa_nodes(16), "kc.yaml": kubelet}
    old = [f for f in findings(tmp_path, files, "--kubernetes-version", "1.30") if f["rule"] == "too-many-numa-nodes"]
    assert len(old) == 1 and "max-allowable-numa-nodes:" not in old[0]["fix"]["description"]
    assert old[0]["fix"]["description"].startswith("use topologyManagerPolicy: none")
    new = [f for f in findings(tmp_path, files, "--kubernetes-version", "1.35") if f["rule"] == "too-many-numa-nodes"]
    assert 'add topologyManagerPolicyOptions: {max-allowable-numa-nodes: "16"}' in new[0]["fix"]["description"]
    # following the 1.35 advice clears it, and brings no error
    files["kc.yaml"] = kubelet + 'topologyManagerPolicyOptions: {max-allowable-numa-nodes: "16"}\n'
    after = findings(tmp_path, files, "--kubernetes-version", "1.35")
    assert not [f for f in after if f["rule"] == "too-many-numa-nodes" or f["severity"] == "error"], after



SRIOV_TOPOLOGY = """\
    apiVersion: numalint.io/v1alpha1
    kind: NodeTopology
    metadata: {name: w}
    spec:
      pool: {nodeSelector: {node-role.kubernetes.io/worker: ""}}
      numaNodes: [{id: 0, cpus: "0-7", memory: 16Gi}]
      nics:
        - {pciAddress: "0000:3b:00.0", interface: ens1f0, totalVfs: 64, numaNode: 0}
        - {pciAddress: "0000:3b:00.1", interface: ens1f1, totalVfs: 64, numaNode: 0}
    """


def _policy(num_vfs: int, pf: str) -> str:
    return f"""\
        apiVersion: sriovnetwork.openshift.io/v1
        kind: SriovNetworkNodePolicy
        metadata: {{name: fh, namespace: openshift-sriov-network-operator}}
        spec:
          resourceName: fh
          nodeSelector: {{node-role.kubernetes.io/worker: ""}}
          numVfs: {num_vfs}
          nicSelector: {{pfNames: [ens1f0, "{pf}"]}}
        """


def test_sriov_numvfs_range_and_count_advice_hold_together(tmp_path: Path) -> None:
    """numVfs 128 on PFs of 64 VFs and a range #2-200: the range advice is cut below what the lowered numVfs
    gives (#2-63), so following both fixes leaves no sriov-numvfs error (it said #2-127)."""
    files = {"topology.yaml": SRIOV_TOPOLOGY, "policy.yaml": _policy(128, "ens1f1#2-200")}
    found = [f for f in findings(tmp_path, files) if f["rule"] == "sriov-numvfs"]
    advice = sorted(f["fix"]["description"] for f in found)
    assert advice == ["set numVfs to at most 64, and pfNames to ens1f1#2-63", "use ens1f1#2-63"], advice
    after = findings(tmp_path, {"topology.yaml": SRIOV_TOPOLOGY, "policy.yaml": _policy(64, "ens1f1#2-63")})
    assert not [f for f in after if f["rule"] == "sriov-numvfs"], after


TRAINER = """\
    apiVersion: v1
    kind: Pod
    metadata:
      name: trainer
    spec:
      containers:
        - name: app
          image: x
          resources:
            requests: {cpu: 2, memory: "8Gi"}   # keep this comment
            limits:
              cpu: "4"
              memory: 8Gi
              nvidia.com/gpu: 1
    """


def test_the_catalogue_says_what_fixes_a_rule_makes(tmp_path: Path) -> None:
    """`numalint rules` shows each rule's fix safety: a "display" rule's findings carry no edit, and a rule that
    promises safe or unsafe fixes makes one of that safety on one of its bad examples (not-guaranteed promised
    an unsafe fix it never made)."""
    from numalint.catalogue import catalogue

    for slug, rule in catalogue().items():
        made: set[str] = set()
        for index, example in enumerate(e for e in rule.examples if e["expect"] == "bad"):
            folder = write(tmp_path / f"{slug}-{index}", dict(example["files"]))
            report = run("check", "--format", "json", "--fail-on", "never", str(folder))
            found = [f for f in report.json()["findings"] if f["rule"] == slug and f["fix"] and f["fix"]["edits"]]
            made |= {f["fix"]["safety"] for f in found}
        if rule.fix_safety == "display":
            assert not made, (slug, made)
        else:
            assert rule.fix_safety in made, (slug, rule.fix_safety, made)


GPU_POOL = """\
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    cpuManagerPolicy: static
    reservedSystemCPUs: "0"
    topologyManagerPolicy: single-numa-node
    ---
    apiVersion: numalint.io/v1alpha1
    kind: NodeTopology
    metadata: {name: w}
    spec:
      numaNodes: [{id: 0, cpus: "0-7", memory: 16Gi}]
      devices:
        - {resource: nvidia.com/gpu, numaNode: 0, count: 2}
    """


def _gpu_pod(resource: str) -> str:
    return ("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - name: c\n    image: x\n"
            f"    resources: {{limits: {{cpu: '2', memory: 1Gi, {resource}: 1}}}}\n")


def test_a_resource_no_node_has_is_no_matter_of_adding_nodes(tmp_path: Path) -> None:
    """admission-failure said "lower its requests or add nodes to the pool" for a resource no node of the pool
    has: no number of nodes provides it. The advice names the resource, and a close name the pool has."""
    found = [f for f in findings(tmp_path, {"pool.yaml": GPU_POOL, "pod.yaml": _gpu_pod("nvidia.com/gpus")})
             if f["rule"] == "admission-failure"]
    assert [f["fix"]["description"] for f in found] == [
        'no node of the pool has nvidia.com/gpus: correct the name (use "nvidia.com/gpu") or declare the device '
        "on the pool's nodes (its topology, an SR-IOV policy)"]
    found = [f for f in findings(tmp_path, {"pod.yaml": _gpu_pod("example.com/fpga")})
             if f["rule"] == "admission-failure"]
    assert "add nodes" not in found[0]["fix"]["description"]
    assert not [f for f in findings(tmp_path, {"pod.yaml": _gpu_pod("nvidia.com/gpu")})
                if f["rule"] == "admission-failure"]


def test_a_pod_larger_than_any_node_is_no_matter_of_adding_nodes(tmp_path: Path) -> None:
    """A pod asking for more than one node of its pool can allocate was told "lower its requests or add nodes to
    the pool": more nodes of the same size never take it (found by a review of public CNF manifests)."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  containers:\n  - name: c\n    image: x\n"
           "    resources: {limits: {cpu: '12', memory: 1Gi}}\n")
    found = [f for f in findings(tmp_path, {"pool.yaml": GPU_POOL, "pod.yaml": pod})
             if f["rule"] == "admission-failure"]
    assert [f["fix"]["description"] for f in found] == [
        "lower its requests to what one node of the pool can allocate, or run it on a pool of larger nodes"]
    shown = " ".join(run("simulate", str(tmp_path)).output.split())  # as wrapped on a terminal
    assert "or run it on a pool of larger nodes" in shown and "add nodes" not in shown
    # a pod that fits one node but finds none with room left: more nodes do take it
    many = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n"
            "  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n"
            "      containers: [{name: c, image: x, resources: {limits: {cpu: '5', memory: 1Gi}}}]\n")
    found = [f for f in findings(tmp_path, {"pool.yaml": GPU_POOL, "pod.yaml": many})
             if f["rule"] == "admission-failure"]
    assert found and {f["fix"]["description"] for f in found} == {"lower its requests or add nodes to the pool"}


MCP = CUSTOM_POOL  # MachineConfigPool "worker-cnf", labelled machineconfiguration.openshift.io/role: worker-cnf


NOT_ON_THE_POOL = 'pools.operator.machineconfiguration.openshift.io/worker-cnf: ""'  # a custom pool carries none


def _kubeletconfig(labels: str) -> str:
    return ("apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {name: cpu}\nspec:\n"
            f"  machineConfigPoolSelector:\n    matchLabels: {{{labels}}}\n"
            "  kubeletConfig: {cpuManagerPolicy: static}\n")


def test_kubeletconfig_pool_names_the_labels_of_the_runs_pools(tmp_path: Path) -> None:
    """The generic example (pools.operator.machineconfiguration.openshift.io/<pool>) is not on a custom pool:
    the advice lists the labels the run's pools carry, and selecting by them clears the finding."""
    found = [f for f in findings(tmp_path, {"mcp.yaml": MCP, "kc.yaml": _kubeletconfig(NOT_ON_THE_POOL)})
             if f["rule"] == "kubeletconfig-pool"]
    assert [f["fix"]["description"] for f in found] == [
        'select the intended MachineConfigPool by its labels: "worker-cnf" carries '
        'machineconfiguration.openshift.io/role: "worker-cnf"']
    after = findings(tmp_path, {"kc.yaml": _kubeletconfig('machineconfiguration.openshift.io/role: "worker-cnf"')})
    assert not [f for f in after if f["rule"] == "kubeletconfig-pool"], after


@pytest.mark.parametrize("policy,stranded", [("single-numa-node", True), ("restricted", True),
                                             ("best-effort", False)])
def test_numa_imbalance_is_about_stranded_devices(tmp_path: Path, policy: str, stranded: bool) -> None:
    """A pod needing no GPU fills the GPUs' NUMA node: the GPUs are stranded where alignment is enforced; under
    best-effort a GPU pod is admitted anyway (unaligned). The same pod on a topology without devices is no
    finding: NUMA 1 stays free for the next pod (a single pod filling one NUMA node was reported)."""
    from numalint.catalogue import catalogue

    files = dict(catalogue()["numa-imbalance"].examples[0]["files"])
    files["kubelet.yaml"] = files["kubelet.yaml"].replace("single-numa-node", policy)
    found = [f for f in findings(tmp_path / "gpu", files) if f["rule"] == "numa-imbalance"]
    assert bool(found) is stranded, found
    files["topology.yaml"] = files["topology.yaml"].split("  devices:")[0]
    assert not [f for f in findings(tmp_path / "plain", files) if f["rule"] == "numa-imbalance"]


RAN = {
    "kubelet.yaml": """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        cpuManagerPolicy: static
        reservedSystemCPUs: "0,8"
        topologyManagerPolicy: single-numa-node
        """,
    "topology.yaml": """\
        apiVersion: numalint.io/v1alpha1
        kind: NodeTopology
        metadata: {name: ran}
        spec:
          pool: {nodes: 1, nodeSelector: {node-role.kubernetes.io/worker: ""}}
          numaNodes:
            - {id: 0, cpus: "0-7", memory: 32Gi}
            - {id: 1, cpus: "8-15", memory: 32Gi}
          nics:
            - {pciAddress: "0000:3b:00.0", interface: ens1f0, vendor: "8086", totalVfs: 64, numaNode: 0}
        """,
    "sriov.yaml": """\
        apiVersion: sriovnetwork.openshift.io/v1
        kind: SriovNetworkNodePolicy
        metadata: {name: fh, namespace: openshift-sriov-network-operator}
        spec:
          resourceName: fh
          nodeSelector: {node-role.kubernetes.io/worker: ""}
          numVfs: 8
          nicSelector: {pfNames: ["ens1f0"]}
        ---
        apiVersion: sriovnetwork.openshift.io/v1
        kind: SriovNetwork
        metadata: {name: fh-net, namespace: openshift-sriov-network-operator}
        spec:
          resourceName: fh
          networkNamespace: ran
        """,
}
DU = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: du\n  namespace: ran\n  annotations: "
      "{k8s.v1.cni.cncf.io/networks: fh-net}\nspec:\n  nodeSelector: {node-role.kubernetes.io/worker: \"\"}\n"
      "  containers:\n  - name: c\n    image: x\n    resources: {limits: {cpu: \"4\", memory: 1Gi}}\n")
FILLER = ("apiVersion: v1\nkind: Pod\nmetadata: {name: filler, namespace: ran}\nspec:\n  nodeSelector: "
          "{node-role.kubernetes.io/worker: \"\"}\n  containers:\n  - name: c\n    image: x\n"
          "    resources: {limits: {cpu: \"7\", memory: 1Gi}}\n")


def _reserved_hint(tmp_path: Path, pods: str, reserved: str = "0,8") -> tuple[str, list[str]]:
    files = {**RAN, "pods.yaml": pods}
    files["kubelet.yaml"] = files["kubelet.yaml"].replace('"0,8"', f'"{reserved}"')
    found = findings(tmp_path, files)
    hint = next((f["fix"]["description"] for f in found if f["rule"] == "reserved-cpus-on-device-numa"), "")
    return hint, [f["message"] for f in found if f["rule"] == "admission-failure"]


def test_moving_reserved_cpus_off_the_nic_is_proven_on_the_pools_pods(tmp_path: Path) -> None:
    """reserved-cpus-on-device-numa said "reserve CPUs on NUMA 1 instead" unproven. With the DU first, both pods
    fit; moved to NUMA 1 the filler no longer does: the hint says so. With the filler first the DU is rejected
    either way, and the move, which keeps every admitted pod, is offered with the CPUs to write."""
    hint, rejected = _reserved_hint(tmp_path / "a", DU + "---\n" + FILLER)
    assert not rejected and hint.startswith('reserving CPUs on NUMA 1 instead (reservedSystemCPUs: "8-9") would '
                                            "reject a pod the pool admits now"), hint
    hint, rejected = _reserved_hint(tmp_path / "b", DU + "---\n" + FILLER, reserved="8-9")
    assert hint == "" and len(rejected) == 1 and "filler" in rejected[0]  # what the hint foretold
    hint, rejected = _reserved_hint(tmp_path / "c", FILLER + "---\n" + DU)
    assert hint == ('reserve CPUs on NUMA 1 instead, such as reservedSystemCPUs: "8-9" (verified: every pod the '
                    "pool admits stays admitted)"), hint


def test_a_block_scalar_policy_name_says_its_line_break_and_is_fixed(tmp_path: Path) -> None:
    """`memoryManagerPolicy: >` over `None` is "None\\n" (clip chomping keeps the line break): the kubelet refuses
    it. The advice said "use one of None, Static", which is what the author wrote; it names the line break and
    writes the plain value (proven like every kubelet fix)."""
    text = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmemoryManagerPolicy: >\n  None\n"
    found = [f for f in findings(tmp_path, {"k.yaml": text}) if f["rule"] == "invalid-policy-name"]
    assert len(found) == 1 and "block scalar keeps its last line break" in found[0]["message"]
    assert found[0]["fix"]["safety"] == "safe"
    run("fix", str(tmp_path))
    assert (tmp_path / "k.yaml").read_text() == text.replace(">\n  None\n", '"None"\n')
    assert findings(tmp_path, {}) == []


DEDICATED_VM = """\
    apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    metadata: {name: vm1}
    spec:
      template:
        spec:
          domain:
            cpu: {cores: 4, dedicatedCpuPlacement: true}
            resources:
              requests: {memory: 4Gi}
            devices: {}
    """


@pytest.mark.parametrize("policy,topology", [("none", False), ("none", True), ("static", False), ("static", True)])
def test_a_vm_with_dedicated_cpus_needs_a_static_cpu_manager(tmp_path: Path, policy: str, topology: bool) -> None:
    """virt-controller gives a dedicatedCpuPlacement VM's pod nodeSelector cpumanager=true, which virt-handler
    sets only where the kubelet runs the static CPU manager: on a pool of another policy the VM stays Pending,
    simulated or not."""
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
               f"cpuManagerPolicy: {policy}\n" + ('reservedSystemCPUs: "0"\n' if policy == "static" else ""))
    files = {"kubelet.yaml": kubelet, "vm.yaml": DEDICATED_VM}
    if topology:
        files["topology.yaml"] = UNLABELLED_TOPOLOGY
    found = [f for f in findings(tmp_path, files) if f["rule"] == "admission-failure"]
    if policy == "static":
        assert found == []
        return
    assert len(found) == 1 and "labelled cpumanager=true" in found[0]["message"]
    assert found[0]["fix"]["description"].startswith("set cpuManagerPolicy: static")


STATIC_RESERVATION_KC = """\
    apiVersion: machineconfiguration.openshift.io/v1
    kind: KubeletConfig
    metadata: {name: virt}
    spec:
      machineConfigPoolSelector:
        matchLabels: {pools.operator.machineconfiguration.openshift.io/worker: ""}
      kubeletConfig:
        cpuManagerPolicy: static
        reservedSystemCPUs: "0-1"
        memoryManagerPolicy: Static
        reservedMemory:
          - numaNode: 0
            limits: {memory: 1124Mi}
    """


BIG_NODE = """\
    apiVersion: numalint.io/v1alpha1
    kind: NodeTopology
    metadata: {name: big}
    spec:
      pool: {kubeletConfig: virt}
      numaNodes:
        - {id: 0, cpus: "0-63", memory: 64Gi}
        - {id: 1, cpus: "64-127", memory: 64Gi}
    """


@pytest.mark.parametrize("release,amount,expected,pin", [
    ("4.20", "1124Mi", [], None), ("4.21", "1124Mi", ["info"], "false"),
    ("4.21", "8292Mi", ["info"], "true"),  # node sizing on the 128Gi node: 1Gi + 6% of 120Gi -> 8Gi, + 100Mi
])
def test_a_reservation_right_for_one_kind_of_cluster_says_so(tmp_path: Path, release: str, amount: str,
                                                             expected: list[str], pin: str | None) -> None:
    """OpenShift 4.21 sizes a worker pool's systemReserved from each node where autoSizingReserved is unwritten
    on a cluster installed at 4.21, and keeps the static 1Gi on a cluster upgraded to it. A total right for one
    kind is refused by the other's kubelet (a public repository's 1124Mi crash-looped on fresh 4.21 clusters):
    no error, but an info; writing autoSizingReserved as it says settles it."""
    kc = STATIC_RESERVATION_KC.replace("1124Mi", amount)
    found = [f for f in findings(tmp_path, {"kc.yaml": kc, "topology.yaml": BIG_NODE}, "--openshift-version",
                                 release) if f["rule"] == "reserved-memory-mismatch"]
    assert [f["severity"] for f in found] == expected, found
    if pin is not None:
        assert f"autoSizingReserved: {pin}" in found[0]["fix"]["description"]
        settled = kc.replace("    spec:\n", f"    spec:\n      autoSizingReserved: {pin}\n")
        assert not [f for f in findings(tmp_path, {"kc.yaml": settled}, "--openshift-version", release)
                    if f["rule"] == "reserved-memory-mismatch"]


TWO_POOLS = """\
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    metadata: {name: general}
    cpuManagerPolicy: none
    ---
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    metadata: {name: pinned}
    cpuManagerPolicy: PINNED_POLICY
    reservedSystemCPUs: "0"
    ---
    apiVersion: numalint.io/v1alpha1
    kind: NodeTopology
    metadata: {name: gen}
    spec:
      pool: {kubeletConfig: general, nodes: 2}
      numaNodes: [{id: 0, cpus: "0-7", memory: 16Gi}]
    ---
    apiVersion: numalint.io/v1alpha1
    kind: NodeTopology
    metadata: {name: pin}
    spec:
      pool: {kubeletConfig: pinned, nodes: 2, nodeSelector: {node-role.kubernetes.io/virt: ""}}
      numaNodes: [{id: 0, cpus: "0-7", memory: 16Gi}]
    """


@pytest.mark.parametrize("pinned,pending", [("static", False), ("none", True)])
def test_a_vm_with_dedicated_cpus_goes_to_the_static_pool(tmp_path: Path, pinned: str, pending: bool) -> None:
    """KubeVirt's cpumanager=true nodeSelector steers the VM to the pool whose kubelet runs the static CPU manager,
    whatever its other labels: no finding; only when no pool runs it does the VM stay Pending."""
    files = {"pools.yaml": TWO_POOLS.replace("PINNED_POLICY", pinned), "vm.yaml": DEDICATED_VM}
    found = [f for f in findings(tmp_path, files) if f["rule"] == "admission-failure"]
    assert bool(found) is pending, found
    placed = run("simulate", "--format", "json", str(tmp_path)).json()
    pools = {pool["name"]: [p for node in pool["nodes"] for p in node["pods"]] for pool in placed["pools"]}
    assert pools["pin"] == ([] if pending else ["vm1"]), pools
    expected = [(False, "Unschedulable")] if pending else [(True, None)]
    assert [(p["admitted"], p["reason"]) for p in placed["pods"]] == expected, placed["pods"]


def test_a_vm_on_a_pool_of_unknown_kubelet_is_no_pending_claim(tmp_path: Path) -> None:
    """A topology without a kubelet configuration says nothing of its CPU manager."""
    assert not [f for f in findings(tmp_path / "a", {"topology.yaml": UNLABELLED_TOPOLOGY, "vm.yaml": DEDICATED_VM})
                if f["rule"] == "admission-failure"]


def test_a_resource_name_differing_only_in_case_is_still_proposed(tmp_path: Path) -> None:
    """Numbers make siblings (port3, port4), case does not: DU_FH is a misspelling of du_fh."""
    from tests.test_sriov_precision import network, policy

    found = [f for f in findings(tmp_path, {"p.yaml": policy("p", "du_fh"), "n.yaml": network("net", "DU_FH")})
             if f["rule"] == "sriov-unknown-resource"]
    assert [f["fix"]["description"] for f in found] == ['correct resourceName (use "du_fh") or add the '
                                                        "SriovNetworkNodePolicy"]


def _imbalance(tmp_path: Path, topology_change: tuple[str, str] = ("", ""), pods: str | None = None) -> list[str]:
    from numalint.catalogue import catalogue

    files = dict(catalogue()["numa-imbalance"].examples[0]["files"])
    files["topology.yaml"] = files["topology.yaml"].replace(*topology_change)
    if pods is not None:
        files["pod.yaml"] = pods
    return [f["fix"]["description"] for f in findings(tmp_path, files) if f["rule"] == "numa-imbalance"]


GPU_POD = ("apiVersion: v1\nkind: Pod\nmetadata: {name: gpu}\nspec:\n  containers:\n    - name: app\n"
           "      resources: {limits: {cpu: '8', memory: 1Gi, nvidia.com/gpu: 1}}\n")


def test_numa_imbalance_only_where_the_next_device_pod_is_rejected(tmp_path: Path) -> None:
    """Not when another node of the pool has the device free beside free CPUs (the scheduler prefers it), not on
    a node that is simply full, nor on a single NUMA node; and the advice names what took the CPUs."""
    assert len(_imbalance(tmp_path / "one")) == 1
    assert _imbalance(tmp_path / "spare", ("spec:\n", "spec:\n  pool: {nodes: 3}\n")) == []
    full = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: two}\nspec:\n  replicas: 2\n  template:\n"
            "    spec:\n      containers:\n        - name: app\n"
            "          resources: {limits: {cpu: '8', memory: 1Gi}}\n")
    assert _imbalance(tmp_path / "full", pods=full) == []
    single = ('    - {id: 1, cpus: "9-16", memory: 64Gi}\n', "")
    assert _imbalance(tmp_path / "single", single) == []
    advice = _imbalance(tmp_path / "itself", pods=GPU_POD)  # the GPU pod took every CPU of its NUMA node
    assert len(advice) == 1 and advice[0].startswith("size the pods on NUMA 0 so that each device keeps CPUs"), advice


def test_moving_reserved_cpus_claims_nothing_it_did_not_prove(tmp_path: Path) -> None:
    """Without pods nothing is verified (the hint names the CPUs, no "verified"); with CPUs reserved by quantity
    beside kubeReservedCgroup, naming CPUs takes reservedSystemCPUs, which the kubelet refuses with that cgroup."""
    files = {**RAN, "pods.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: none}\n"}
    hint = next(f["fix"]["description"] for f in findings(tmp_path / "a", files)
                if f["rule"] == "reserved-cpus-on-device-numa")
    assert hint == 'reserve CPUs on NUMA 1 instead, such as reservedSystemCPUs: "8-9"', hint
    files["kubelet.yaml"] = files["kubelet.yaml"].replace(
        'reservedSystemCPUs: "0,8"', "kubeReserved: {cpu: '1'}\n        kubeReservedCgroup: /kube.slice")
    found = [f["fix"]["description"] for f in findings(tmp_path / "b", files, "--fail-on", "never")
             if f["rule"] == "reserved-cpus-on-device-numa"]
    assert found == ["reserve CPUs on NUMA 1 instead, with reservedSystemCPUs, which the kubelet refuses together "
                     "with kubeReservedCgroup: remove those first"], found


def test_kubeletconfig_pool_lists_only_the_pools_of_its_cluster(tmp_path: Path) -> None:
    east = MCP.replace("worker-cnf", "east-cnf")
    west = MCP.replace("worker-cnf", "west-cnf")
    files = {"clusters/east/mc/mcp.yaml": east, "clusters/west/mc/mcp.yaml": west,
             "clusters/west/mc/kc.yaml": _kubeletconfig(NOT_ON_THE_POOL)}
    found = [f for f in findings(tmp_path, files) if f["rule"] == "kubeletconfig-pool"]
    assert [f["fix"]["description"] for f in found] == [
        'select the intended MachineConfigPool by its labels: "west-cnf" carries '
        'machineconfiguration.openshift.io/role: "west-cnf"'], found


def test_a_dedicated_vm_keeps_to_the_pools_it_selects_and_fits(tmp_path: Path) -> None:
    """KubeVirt's cpumanager=true only narrows the nodes the VM's own nodeSelector chooses: a VM selecting the
    virt label with another value is on no pool (no guess), not on the static pool; a VM selecting nothing may
    go to any static pool, and goes to the one it fits (1Gi hugepages)."""
    pools = TWO_POOLS.replace("PINNED_POLICY", "static")
    selecting = DEDICATED_VM.replace(
        "          domain:", "          nodeSelector: {node-role.kubernetes.io/virt: other}\n          domain:")
    folder = write(tmp_path / "a", {"pools.yaml": pools, "vm.yaml": selecting})
    placed = run("simulate", "--format", "json", str(folder))
    assert placed.json()["pods"] == [], placed.output
    both_static = pools.replace("pool: {kubeletConfig: general, nodes: 2}", "pool: {kubeletConfig: pinned, nodes: 2}")
    huge = both_static.replace('nodeSelector: {node-role.kubernetes.io/virt: ""}}\n      numaNodes: [{id: 0, cpus: '
                               '"0-7", memory: 16Gi}]', 'nodeSelector: {node-role.kubernetes.io/virt: ""}}\n      '
                               'numaNodes: [{id: 0, cpus: "0-7", memory: 32Gi, hugepages: {1Gi: 8}}]')
    assert huge != both_static
    vm = DEDICATED_VM.replace("            resources:",
                              "            memory: {hugepages: {pageSize: 1Gi}, guest: 4Gi}\n            resources:")
    placed = run("simulate", "--format", "json", str(write(tmp_path / "b", {"pools.yaml": huge, "vm.yaml": vm})))
    assert [(p["pool"], p["admitted"]) for p in placed.json()["pods"]] == [("pin", True)], placed.output


@pytest.mark.parametrize("reserved,amount,expected", [
    ("{ephemeral-storage: 2Gi}", "1124Mi", []), ("{ephemeral-storage: 2Gi}", "8292Mi", ["error"]),
    # pid is not among what the operator moves to the node-sizing file: sizing stays unsettled, as without it
    ('{pid: "1000"}', "8292Mi", ["info"]),
])
def test_a_written_system_reserved_turns_node_sizing_off(tmp_path: Path, reserved: str, amount: str,
                                                          expected: list[str]) -> None:
    """Any systemReserved entry with autoSizingReserved unwritten makes the machine-config operator write
    NODE_SIZING_ENABLED=false (createNewKubeletDynamicSystemReservedIgnition): the static total is right on every
    4.21 cluster, the node-sized one wrong on every cluster; no "right for one kind of cluster" info."""
    kc = STATIC_RESERVATION_KC.replace("1124Mi", amount).replace(
        "        memoryManagerPolicy: Static\n", f"        memoryManagerPolicy: Static\n        systemReserved: "
        f"{reserved}\n")
    found = [f for f in findings(tmp_path, {"kc.yaml": kc, "topology.yaml": BIG_NODE}, "--openshift-version", "4.21")
             if f["rule"] == "reserved-memory-mismatch"]
    assert [f["severity"] for f in found] == expected, found


def test_the_master_pool_chosen_by_an_expression_is_never_sized(tmp_path: Path) -> None:
    kc = STATIC_RESERVATION_KC.replace(
        'matchLabels: {pools.operator.machineconfiguration.openshift.io/worker: ""}',
        "matchExpressions: [{key: pools.operator.machineconfiguration.openshift.io/master, operator: Exists}]")
    found = [f for f in findings(tmp_path, {"kc.yaml": kc}, "--openshift-version", "4.21")
             if f["rule"] == "reserved-memory-mismatch"]
    assert found == [], found


def test_a_device_on_a_numa_node_the_topology_lacks_is_no_traceback(tmp_path: Path) -> None:
    topology = UNLABELLED_TOPOLOGY.replace('      numaNodes: [{id: 0, cpus: "0-7", memory: 16Gi}]\n',
                                           '      numaNodes: [{id: 0, cpus: "0-7", memory: 16Gi}]\n      devices:\n'
                                           '        - {resource: nvidia.com/gpu, numaNode: 3, count: 1}\n')
    assert topology != UNLABELLED_TOPOLOGY
    found = findings(tmp_path, {"kubelet.yaml": KUBELET, "topology.yaml": topology})
    assert not [f for f in found if f["rule"] == "reserved-cpus-on-device-numa"], found


def test_numa_imbalance_asks_a_daemonset_only_for_less(tmp_path: Path) -> None:
    """A DaemonSet runs on every node: it can only lower its requests; a Deployment can also go elsewhere."""
    pods = ("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  template:\n    spec:\n"
            "      containers:\n        - name: a\n          resources: {limits: {cpu: '4', memory: 1Gi}}\n---\n"
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n"
            "      containers:\n        - name: w\n          resources: {limits: {cpu: '4', memory: 1Gi}}\n")
    advice = _imbalance(tmp_path, pods=pods)
    assert len(advice) == 1 and "run the pods that need no device (web)" in advice[0], advice
    assert "lower the requests of the DaemonSet agent" in advice[0] and "(agent" not in advice[0], advice


def test_a_kubeletconfig_field_written_inside_kubeletconfig_is_moved_up_and_the_move_clears_it(
        tmp_path: Path) -> None:
    """autoSizingReserved is a field of the KubeletConfig, not of the kubelet: inside spec.kubeletConfig the
    operator drops it; the advice moves it up, and following it leaves nothing to report."""
    head = ("apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {name: sizing}\nspec:\n"
            "  machineConfigPoolSelector:\n    matchLabels:\n"
            "      pools.operator.machineconfiguration.openshift.io/worker: \"\"\n")
    inside = head + "  kubeletConfig:\n    autoSizingReserved: true\n    maxPods: 250\n"
    found = findings(tmp_path / "a", {"kc.yaml": inside})
    assert [(f["rule"], f["line"]) for f in found] == [("unknown-field", 9)]
    assert found[0]["fix"]["description"] == "move it up to spec.autoSizingReserved"
    moved = head + "  autoSizingReserved: true\n  kubeletConfig:\n    maxPods: 250\n"
    assert findings(tmp_path / "b", {"kc.yaml": moved}) == []
    both = head + "  autoSizingReserved: true\n  kubeletConfig:\n    autoSizingReserved: true\n"
    found = findings(tmp_path / "c", {"kc.yaml": both})
    assert found[0]["fix"]["description"] == "remove it: spec.autoSizingReserved is already written"


def test_a_field_written_one_level_too_high_is_moved_where_it_belongs(tmp_path: Path) -> None:
    """spec.userLevelNetworking is pruned from a PerformanceProfile; it belongs in spec.net, and written there it
    is no longer reported."""
    profile = ("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {name: p}\nspec:\n"
               "  cpu: {isolated: \"2-7\", reserved: \"0-1\"}\n"
               "  nodeSelector: {node-role.kubernetes.io/worker-cnf: \"\"}\n%s")
    found = [f for f in findings(tmp_path / "a", {"pp.yaml": profile % "  userLevelNetworking: true\n"})
             if f["rule"] == "unknown-field"]
    assert len(found) == 1 and "spec.net.userLevelNetworking" in found[0]["message"]
    assert found[0]["fix"]["description"] == "move it into spec.net"
    assert [f for f in findings(tmp_path / "b", {"pp.yaml": profile % "  net:\n    userLevelNetworking: true\n"})
            if f["rule"] == "unknown-field"] == []
