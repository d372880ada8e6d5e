"""KubeVirt VMs as numalint sees them: instancetypes (the run's and KubeVirt's common ones), hugepages alone,
devices; through the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import findings, run, write

NON_STATIC = """\
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    cpuManagerPolicy: none
    """
STATIC = """\
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    cpuManagerPolicy: static
    topologyManagerPolicy: single-numa-node
    reservedSystemCPUs: "0,16"
    memoryManagerPolicy: Static
    reservedMemory:
      - numaNode: 0
        limits: {memory: 100Mi}
    """
TOPOLOGY = """\
    apiVersion: numalint.io/v1alpha1
    kind: NodeTopology
    metadata:
      name: virt
    spec:
      numaNodes:
        - {id: 0, cpus: "0-15", memory: 64Gi, hugepages: {2Mi: 4096}}
        - {id: 1, cpus: "16-31", memory: 64Gi, hugepages: {2Mi: 4096}}
    """


def _vm(name: str, instancetype: str, kind: str | None = None, namespace: str = "") -> str:
    kind_line = f"\n        kind: {kind}" if kind else ""
    namespace_line = f"\n      namespace: {namespace}" if namespace else ""
    return f"""\
    apiVersion: kubevirt.io/v1
    kind: VirtualMachine
    metadata:
      name: {name}{namespace_line}
    spec:
      instancetype:
        name: {instancetype}{kind_line}
      template:
        spec:
          domain:
            devices: {{}}
    """


def test_common_instancetype_with_dedicated_cpus_is_pending_without_the_static_cpu_manager(tmp_path: Path) -> None:
    found = findings(tmp_path, {"kubelet.yaml": NON_STATIC, "vm.yaml": _vm("db", "cx1.large")})
    assert [(f["rule"], f["line"]) for f in found] == [("admission-failure", 4)]
    assert "cpumanager=true" in found[0]["message"]
    # the VM writes no dedicatedCpuPlacement: the advice names its instancetype, not a field it cannot write
    advice = found[0]["fix"]["description"]
    assert 'instancetype without dedicated CPUs (its VirtualMachineClusterInstancetype "cx1.large"' in advice
    assert "drop dedicatedCpuPlacement" not in advice


def test_common_instancetype_sizes_the_pod_and_the_advice_names_a_smaller_one(tmp_path: Path) -> None:
    # cx1.4xlarge: 16 dedicated vCPUs + 1 for the isolated emulator thread, 32Gi of 2Mi hugepages
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY,
                                "vm.yaml": _vm("db", "cx1.4xlarge")})
    by_rule = {f["rule"]: f for f in found}
    assert set(by_rule) == {"admission-failure", "exceeds-numa-node"}
    assert "17 CPUs requested" in by_rule["exceeds-numa-node"]["message"]
    assert "hugepages-2Mi 32Gi" in by_rule["exceeds-numa-node"]["message"]
    assert 'smaller instancetype than VirtualMachineClusterInstancetype "cx1.4xlarge"' in by_rule[
        "exceeds-numa-node"]["fix"]["description"]
    assert "smaller instancetype" in by_rule["admission-failure"]["fix"]["description"]


def test_instancetype_that_fits_is_placed_with_its_emulator_thread(tmp_path: Path) -> None:
    write(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, "vm.yaml": _vm("db", "cx1.xlarge")})
    result = run("check", "--format", "json", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.json()["findings"] == []
    shown = run("simulate", "--topology", str(tmp_path / "topology.yaml"), str(tmp_path))
    assert "VirtualMachine db" in shown.output
    assert "(compute: cpus 1-5)" in shown.output  # 4 vCPUs and the emulator thread, on NUMA 0


def test_namespaced_instancetype_from_another_file_of_the_run(tmp_path: Path) -> None:
    instancetype = """\
        apiVersion: instancetype.kubevirt.io/v1beta1
        kind: VirtualMachineInstancetype
        metadata:
          name: dpdk
          namespace: vnf
        spec:
          cpu:
            guest: 20
            dedicatedCPUPlacement: true
          memory:
            guest: 8Gi
        """
    vm = _vm("router", "dpdk", "VirtualMachineInstancetype", namespace="vnf")
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY,
                                "types/dpdk.yaml": instancetype, "vms/router.yaml": vm})
    exceeds = [f for f in found if f["rule"] == "exceeds-numa-node"]
    assert len(exceeds) == 1 and exceeds[0]["file"].endswith("router.yaml")
    assert "20 CPUs requested" in exceeds[0]["message"]
    assert 'VirtualMachineInstancetype "dpdk"' in exceeds[0]["fix"]["description"]


def test_namespaced_instancetype_of_another_namespace_is_not_used(tmp_path: Path) -> None:
    instancetype = """\
        apiVersion: instancetype.kubevirt.io/v1beta1
        kind: VirtualMachineInstancetype
        metadata: {name: dpdk, namespace: other}
        spec:
          cpu: {guest: 20, dedicatedCPUPlacement: true}
          memory: {guest: 8Gi}
        """
    vm = _vm("router", "dpdk", "VirtualMachineInstancetype", namespace="vnf")
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, "types.yaml": instancetype,
                                "vm.yaml": vm})
    assert found == []  # KubeVirt looks the namespaced kind up in the VM's namespace: nothing to judge


@pytest.mark.parametrize(("vm_namespace", "guest"), [
    ("vnf", 20),  # its namespace's, before one written without a namespace
    ("edge", 18),  # none in its namespace: the one written without a namespace (kustomize or -n gives it the VM's)
    ("", 16),  # a VM without a namespace: the first of the name
])
def test_which_namespaced_instancetype_a_vm_gets(tmp_path: Path, vm_namespace: str, guest: int) -> None:
    def instancetype(namespace: str, cpus: int) -> str:
        where = f", namespace: {namespace}" if namespace else ""
        return (f"apiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\n"
                f"metadata: {{name: dpdk{where}}}\nspec:\n  cpu: {{guest: {cpus}, dedicatedCPUPlacement: true}}\n"
                "  memory: {guest: 8Gi}\n")

    types = "---\n".join([instancetype("other", 16), instancetype("", 18), instancetype("vnf", 20)])
    vm = _vm("router", "dpdk", "VirtualMachineInstancetype", namespace=vm_namespace)
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, "types.yaml": types, "vm.yaml": vm})
    exceeds = [f for f in found if f["rule"] == "exceeds-numa-node"]
    assert len(exceeds) == 1 and f"{guest} CPUs requested" in exceeds[0]["message"], found


def test_unknown_instancetype_is_not_guessed(tmp_path: Path) -> None:
    found = findings(tmp_path, {"kubelet.yaml": NON_STATIC, "vm.yaml": _vm("db", "cx9.huge")})
    assert found == []


def test_a_kubelet_fix_proven_against_an_instancetype_vm_in_the_same_file(tmp_path: Path) -> None:
    """Fix proofs see the VM as the run does: correcting the misspelt topologyManagerPolicy would reject it."""
    node = STATIC.replace("topologyManagerPolicy:", "topologyManagerPolicys:") + "---\n" + _vm("db", "cx1.4xlarge")
    topology = TOPOLOGY.replace("4096", "20000")
    found = findings(tmp_path, {"node.yaml": node, "topology.yaml": topology})
    assert [f["rule"] for f in found] == ["unknown-field"]
    assert found[0]["fix"]["edits"] == []
    assert "would bring a new error (admission-failure" in found[0]["fix"]["description"]


def test_hugepages_alone_do_not_make_a_vm_ask_for_alignment(tmp_path: Path) -> None:
    """KubeVirt backs a VM's memory with hugepages for the TLB; it does not make such a VM Guaranteed, and
    neither should numalint ask for it (m1 instancetypes are hugepages alone)."""
    written = """\
        apiVersion: kubevirt.io/v1
        kind: VirtualMachine
        metadata: {name: hp}
        spec:
          template:
            spec:
              domain:
                resources: {requests: {memory: 4Gi}}
                memory: {hugepages: {pageSize: 1Gi}}
                devices: {}
        """
    kubelet = """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        cpuManagerPolicy: static
        reservedSystemCPUs: "0"
        memoryManagerPolicy: Static
        reservedMemory:
          - numaNode: 0
            limits: {memory: 100Mi}
        """
    found = findings(tmp_path, {"kubelet.yaml": kubelet, "hp.yaml": written, "m1.yaml": _vm("m1", "m1.large")})
    assert found == []


def test_a_vms_gpus_are_device_requests_aligned_with_its_cpus(tmp_path: Path) -> None:
    """virt-launcher asks the device plugin for each gpus/hostDevices deviceName: the VM goes to the GPU's NUMA
    node, and the GPU is not "stranded" beside it."""
    kubelet = STATIC.replace('"0,16"', '"0"')
    topology = """\
        apiVersion: numalint.io/v1alpha1
        kind: NodeTopology
        metadata: {name: gpu}
        spec:
          numaNodes:
            - {id: 0, cpus: "0-7", memory: 32Gi}
            - {id: 1, cpus: "8-15", memory: 32Gi}
          devices:
            - {resource: nvidia.com/GA100_A100, numaNode: 1, count: 1}
        """
    vm = """\
        apiVersion: kubevirt.io/v1
        kind: VirtualMachine
        metadata: {name: gpu-vm}
        spec:
          template:
            spec:
              domain:
                cpu: {cores: 8, dedicatedCpuPlacement: true}
                memory: {guest: 8Gi}
                devices:
                  gpus: [{name: g, deviceName: nvidia.com/GA100_A100}]
        """
    found = findings(tmp_path, {"kubelet.yaml": kubelet, "topology.yaml": topology, "vm.yaml": vm})
    assert found == []
    shown = run("simulate", "--topology", str(tmp_path / "topology.yaml"), str(tmp_path))
    assert "gpu-vm -> gpu-0 NUMA 1  (compute: cpus 8-15)" in shown.output


def test_a_vms_required_node_affinity_chooses_its_pool_as_a_nodeselector_does(tmp_path: Path) -> None:
    pools = """\
        apiVersion: numalint.io/v1alpha1
        kind: NodeTopology
        metadata: {name: cnf}
        spec:
          pool: {nodeSelector: {node-role.kubernetes.io/cnf: ""}, kubeletConfig: static}
          numaNodes: [{id: 0, cpus: "0-15", memory: 64Gi}]
        ---
        apiVersion: numalint.io/v1alpha1
        kind: NodeTopology
        metadata: {name: general}
        spec:
          pool: {nodeSelector: {node-role.kubernetes.io/general: ""}, kubeletConfig: plain}
          numaNodes: [{id: 0, cpus: "0-15", memory: 64Gi}]
        """
    vm = """\
        apiVersion: kubevirt.io/v1
        kind: VirtualMachine
        metadata: {name: pinned}
        spec:
          template:
            spec:
              affinity:
                nodeAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                    - matchExpressions:
                      - {key: node-role.kubernetes.io/general, operator: Exists}
              domain:
                cpu: {cores: 2, dedicatedCpuPlacement: true}
                memory: {guest: 4Gi}
                devices: {}
        """
    static = """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        cpuManagerPolicy: static
        reservedSystemCPUs: "0"
        """
    found = findings(tmp_path, {"static.yaml": static, "plain.yaml": NON_STATIC, "pools.yaml": pools, "vm.yaml": vm})
    assert [(f["rule"], f["file"].rsplit("/", 1)[-1]) for f in found] == [("admission-failure", "vm.yaml")]
    assert 'pool "general"' in found[0]["message"] and "cpumanager=true" in found[0]["message"]


def test_a_guaranteed_vm_with_hugepages_and_a_fraction_of_a_cpu_is_told_as_a_pod_would_be(tmp_path: Path) -> None:
    vm = """\
        apiVersion: kubevirt.io/v1
        kind: VirtualMachine
        metadata: {name: hp}
        spec:
          template:
            spec:
              domain:
                resources:
                  requests: {cpu: 1500m, memory: 2Gi}
                  limits: {cpu: 1500m, memory: 2Gi}
                memory: {hugepages: {pageSize: 2Mi}}
                devices: {}
        """
    found = findings(tmp_path, {"vm.yaml": vm})
    assert [f["rule"] for f in found] == ["fractional-cpu"]
    assert "hugepages-2Mi" in found[0]["message"]


def test_a_vm_whose_instancetype_cannot_be_known_is_not_checked(tmp_path: Path) -> None:
    """inferFromVolume names the instancetype on a volume's labels; a kind KubeVirt does not know is refused:
    either way numalint does not judge the VM's own domain as if it had no instancetype."""
    own = """\
        apiVersion: kubevirt.io/v1
        kind: VirtualMachine
        metadata: {name: db}
        spec:
          instancetype: %s
          template:
            spec:
              domain:
                cpu: {dedicatedCpuPlacement: true}
                devices: {}
        """
    for i, written in enumerate(["{inferFromVolume: rootdisk}", "{name: cx1.large, kind: Flavor}"]):
        assert findings(tmp_path / str(i), {"kubelet.yaml": NON_STATIC, "vm.yaml": own % written}) == []


def test_plural_kinds_and_the_vms_own_namespace_win(tmp_path: Path) -> None:
    """KubeVirt accepts the plural resource name as kind; a namespaced instancetype of the VM's own namespace is
    chosen over one written without a namespace."""
    types = """\
        apiVersion: instancetype.kubevirt.io/v1beta1
        kind: VirtualMachineInstancetype
        metadata: {name: dpdk}
        spec: {cpu: {guest: 40, dedicatedCPUPlacement: true}, memory: {guest: 8Gi}}
        ---
        apiVersion: instancetype.kubevirt.io/v1beta1
        kind: VirtualMachineInstancetype
        metadata: {name: dpdk, namespace: vnf}
        spec: {cpu: {guest: 2, dedicatedCPUPlacement: true}, memory: {guest: 2Gi}}
        """
    vm = _vm("router", "dpdk", "virtualmachineinstancetypes", namespace="vnf")
    assert findings(tmp_path / "a", {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, "types.yaml": types,
                                     "vm.yaml": vm}) == []
    plural = _vm("db", "cx1.8xlarge", "VirtualMachineClusterInstancetypes")
    found = findings(tmp_path / "b", {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, "vm.yaml": plural})
    assert "exceeds-numa-node" in [f["rule"] for f in found]


def test_a_vms_own_dedicated_placement_beside_a_shared_instancetype_is_its_own_to_drop(tmp_path: Path) -> None:
    vm = _vm("db", "u1.large").replace("devices: {}", "cpu: {dedicatedCpuPlacement: true}\n            devices: {}")
    found = findings(tmp_path, {"kubelet.yaml": NON_STATIC, "vm.yaml": vm})
    assert [f["rule"] for f in found] == ["admission-failure"]
    assert "drop dedicatedCpuPlacement from the VM" in found[0]["fix"]["description"]


def _domain_vm(name: str, domain: str) -> str:
    indented = "".join(f"        {line}\n" for line in domain.split("\n"))
    return (f"apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {{name: {name}}}\nspec:\n  template:\n"
            f"    spec:\n      domain:\n{indented}        devices: {{}}\n")


def test_what_kubevirts_webhook_refuses_is_an_error_and_the_vm_takes_no_room(tmp_path: Path) -> None:
    """validateCpuPinning and validateHugepagesMemoryRequests (after virt-api's defaults): such a VM never runs, so
    it is neither placed nor told about QoS, only refused; a VM that passes is checked as before."""
    vms = {
        "frac.yaml": _domain_vm("frac", "cpu: {dedicatedCpuPlacement: true}\nresources:\n"
                                        "  requests: {cpu: 1500m, memory: 2Gi}"),
        "cores.yaml": _domain_vm("cores", "cpu: {cores: 4, dedicatedCpuPlacement: true}\nresources:\n"
                                          "  requests: {cpu: \"2\", memory: 2Gi}"),
        "badhp.yaml": _domain_vm("badhp", "cpu: {cores: 2, dedicatedCpuPlacement: true}\n"
                                          "resources: {requests: {memory: 1536Mi}}\n"
                                          "memory: {hugepages: {pageSize: 1Gi}}"),
        "numa.yaml": _domain_vm("numa", "cpu: {cores: 2, numa: {guestMappingPassthrough: {}}}\n"
                                        "resources: {requests: {memory: 2Gi}}"),
        "fine.yaml": _domain_vm("fine", "cpu: {cores: 2, dedicatedCpuPlacement: true}\n"
                                        "resources: {requests: {memory: 2Gi}}\nmemory: {hugepages: {pageSize: 1Gi}}"),
    }
    found = findings(tmp_path, {**vms, "kubelet.yaml": NON_STATIC})
    by_file = sorted((f["file"].rsplit("/", 1)[-1], f["rule"]) for f in found)
    assert by_file == [("badhp.yaml", "invalid-resources"), ("cores.yaml", "invalid-resources"),
                       ("fine.yaml", "admission-failure"), ("frac.yaml", "invalid-resources"),
                       ("numa.yaml", "invalid-resources"), ("numa.yaml", "invalid-resources")]
    messages = " ".join(f["message"] for f in found)
    assert "'1536Mi' is not a multiple of the page size '1Gi'" in messages
    assert "CPU requests must be an integer" in messages
    assert "must not be provided at the same time with spec.template.spec.domain.cpu.cores" in messages
    assert "memory.hugepages must be requested when NUMA topology strategy is set" in messages


def test_a_vm_writing_what_its_instancetype_decides_is_refused_not_placed(tmp_path: Path) -> None:
    vm = _vm("db", "cx1.large").replace("devices: {}", "cpu: {cores: 30}\n            resources:\n"
                                        "              requests: {cpu: \"20\"}\n            devices: {}")
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, "vm.yaml": vm})
    assert sorted((f["rule"], f["line"]) for f in found) == [("invalid-resources", 11), ("invalid-resources", 13)]
    assert all("may not write domain." in f["message"] for f in found)
    shown = run("simulate", "--topology", str(tmp_path / "topology.yaml"), str(tmp_path)).output
    assert "VirtualMachine db" not in shown


def test_more_of_what_kubevirts_webhook_refuses(tmp_path: Path) -> None:
    cases = {
        "nomem.yaml": _domain_vm("nomem", "cpu: {cores: 2, dedicatedCpuPlacement: true}"),
        "zero.yaml": _domain_vm("zero", "cpu: {cores: 2, dedicatedCpuPlacement: true}\nresources:\n"
                                        "  requests: {memory: \"0\"}\n"
                                        "memory: {guest: 2Gi, hugepages: {pageSize: 1Gi}}"),
        "guest.yaml": _domain_vm("guest", "memory: {guest: 4Gi}\ncpu: {dedicatedCpuPlacement: true}\n"
                                          "resources: {limits: {memory: 2Gi, cpu: \"2\"}}"),
        "page.yaml": _domain_vm("page", "memory: {guest: 2Gi, hugepages: {pageSize: 2Mb}}"),
        "cores.yaml": _domain_vm("cores", "cpu: {cores: \"40\", dedicatedCpuPlacement: true}\nmemory: {guest: 2Gi}"),
    }
    found = findings(tmp_path, {**cases, "kubelet.yaml": NON_STATIC})
    refused = sorted({f["file"].rsplit("/", 1)[-1] for f in found if f["rule"] == "invalid-resources"})
    assert refused == sorted(cases)
    assert not [f for f in found if f["rule"] != "invalid-resources"]  # refused VMs take no part in the run


def test_an_instancetype_zero_topology_is_none_and_an_applied_instancetype_can_be_refused(tmp_path: Path) -> None:
    zero = _vm("db", "cx1.large").replace("devices: {}", "cpu: {sockets: 0}\n            devices: {}")
    found = findings(tmp_path / "a", {"kubelet.yaml": NON_STATIC, "vm.yaml": zero})
    assert [f["rule"] for f in found] == ["admission-failure"]  # cpu.go validateCPU: 0 is not written
    numa_only = """\
        apiVersion: instancetype.kubevirt.io/v1beta1
        kind: VirtualMachineClusterInstancetype
        metadata: {name: numa}
        spec: {cpu: {guest: 2, numa: {guestMappingPassthrough: {}}}, memory: {guest: 2Gi}}
        """
    found = findings(tmp_path / "b", {"kubelet.yaml": NON_STATIC, "types.yaml": numa_only,
                                      "vm.yaml": _vm("db", "numa")})
    assert found == []  # refused by KubeVirt once applied: not told to become Guaranteed, not placed


def test_a_page_size_the_pool_lacks_is_advised_as_such_not_as_a_smaller_instancetype(tmp_path: Path) -> None:
    kubelet = STATIC.replace("    topologyManagerPolicy: single-numa-node\n", "")
    vm = _vm("db", "cx1.large1gi")
    found = findings(tmp_path, {"kubelet.yaml": kubelet, "topology.yaml": TOPOLOGY, "vm.yaml": vm})
    assert [f["rule"] for f in found] == ["admission-failure"]
    assert found[0]["fix"]["description"] == ("no node of the pool has hugepages-1Gi: set up 1Gi pages on its nodes, "
                                              "or ask for hugepages-2Mi (an instancetype with those pages)")


def test_a_hugepages_refusal_points_at_the_memory_an_overlay_patches(tmp_path: Path) -> None:
    """The refusal is about the memory request: it points there, so an overlay that patches the request to a
    multiple of the page size settles it on the base (the base alone is never applied)."""
    base = _domain_vm("db", "cpu: {cores: 2, dedicatedCpuPlacement: true}\nresources: {requests: {memory: 1536Mi}}\n"
                            "memory: {hugepages: {pageSize: 1Gi}}")
    overlay = ("resources: [../base]\npatches:\n- target: {kind: VirtualMachine, name: db}\n  patch: |\n"
               "    - op: replace\n      path: /spec/template/spec/domain/resources/requests/memory\n"
               "      value: 2Gi\n")
    found = findings(tmp_path / "a", {"base/vm.yaml": base, "base/kustomization.yaml": "resources: [vm.yaml]\n"})
    assert [(f["rule"], f["line"]) for f in found] == [("invalid-resources", 9)]  # the memory request
    found = findings(tmp_path / "b", {"base/vm.yaml": base, "base/kustomization.yaml": "resources: [vm.yaml]\n",
                                      "overlay/kustomization.yaml": overlay})
    assert [f["rule"] for f in found if f["rule"] == "invalid-resources"] == []
