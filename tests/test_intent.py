"""Which workloads ask for NUMA alignment: evidence in the workload, not the node it lands on."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run, write

STATIC_POOL = {
    "kubelet.yaml": """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        cpuManagerPolicy: static
        reservedSystemCPUs: "0,1"
        """,
    "topology.yaml": """\
        apiVersion: numalint.io/v1alpha1
        kind: NodeTopology
        metadata:
          name: cnf
        spec:
          pool:
            nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}
            kubeletConfig: kubelet
          numaNodes:
            - {id: 0, cpus: "0-7", memory: 32Gi}
            - {id: 1, cpus: "8-15", memory: 32Gi}
        """,
}


def _pod(resources: str, annotations: str = "", second: str = "") -> str:
    return f"""\
apiVersion: v1
kind: Pod
metadata:
  name: app
  {annotations}
spec:
  nodeSelector: {{node-role.kubernetes.io/worker-cnf: ""}}
  containers:
    - name: main
      image: app
      resources: {resources}
{second}"""


def _findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, str | None]]:
    write(tmp_path, files)
    result = run("check", "--format", "json", str(tmp_path))
    assert not {"schema", "yaml-syntax"} & set(result.rules()), result.output
    return [(f["rule"], f["severity"]) for f in result.json()["findings"] if f["rule"] == "not-guaranteed"]


def test_a_resource_without_numa_topology_asks_for_nothing(tmp_path: Path) -> None:
    sgx = '{requests: {sgx.intel.com/epc: "512Ki", cpu: 500m}, limits: {sgx.intel.com/epc: "512Ki"}}'
    assert _findings(tmp_path, {"pod.yaml": _pod(sgx)}) == []


def test_a_device_alone_asks_for_nothing_guaranteed_qos_would_add(tmp_path: Path) -> None:
    # the device manager gives topology hints for pods of every QoS class: a GPU smoke test is aligned
    smoke = '{limits: {nvidia.com/gpu: 1}}'
    assert _findings(tmp_path, {"pod.yaml": _pod(smoke)}) == []
    assert _findings(tmp_path, {"pod.yaml": _pod('{requests: {cpu: 500m}, limits: {nvidia.com/gpu: 1}}')}) == []


def test_a_gpu_with_whole_cpus_asks_for_alignment(tmp_path: Path) -> None:
    """A whole cpu limit beside a GPU asks for exclusive CPUs anywhere; a whole request without a limit only on a
    pool whose kubelet runs the static CPU manager: elsewhere it is a training worker's usual Burstable sizing
    (found by a precision review: a Volcano TensorFlow job's `cpu: 1` beside its GPU)."""
    capped = '{requests: {cpu: "4"}, limits: {cpu: "4", nvidia.com/gpu: 1}}'
    assert _findings(tmp_path / "capped", {"pod.yaml": _pod(capped)}) == [("not-guaranteed", "warning")]
    requested = '{requests: {cpu: "4"}, limits: {nvidia.com/gpu: 1}}'
    assert _findings(tmp_path / "plain", {"pod.yaml": _pod(requested)}) == []
    assert _findings(tmp_path / "static", {"pod.yaml": _pod(requested), **STATIC_POOL}) == [
        ("not-guaranteed", "warning")]
    # an init container's whole limit says nothing of the app's CPUs: it is done before the app starts
    init = _pod(requested).replace("  containers:\n", "  initContainers:\n    - name: fetch\n      image: x\n"
                                   "      resources: {limits: {cpu: '1', memory: 512Mi}}\n  containers:\n")
    assert _findings(tmp_path / "init", {"pod.yaml": init}) == []


def test_a_data_plane_asks_for_alignment(tmp_path: Path) -> None:
    dpdk = """{requests: {cpu: 500m}}
      securityContext: {capabilities: {add: [IPC_LOCK]}}
  volumes:
    - {name: vfio, hostPath: {path: /dev/vfio}}"""
    assert _findings(tmp_path, {"pod.yaml": _pod(dpdk)}) == [("not-guaranteed", "warning")]
    rdma = """{requests: {cpu: 500m}, limits: {rdma/hca: 1}}
      securityContext: {capabilities: {add: [IPC_LOCK]}}"""  # RDMA needs IPC_LOCK to register memory
    assert _findings(tmp_path, {"pod.yaml": _pod(rdma)}) == []


def test_a_resource_numalint_cannot_place_is_info(tmp_path: Path) -> None:
    unknown = '{requests: {cpu: "2"}, limits: {cpu: "2", example.com/widget: 1}}'
    assert _findings(tmp_path, {"pod.yaml": _pod(unknown)}) == [("not-guaranteed", "info")]


def test_a_static_cpu_node_alone_is_not_evidence(tmp_path: Path) -> None:
    daemonset = """\
        apiVersion: apps/v1
        kind: DaemonSet
        metadata:
          name: node-exporter
        spec:
          template:
            spec:
              nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}
              containers:
                - name: exporter
                  image: exporter
                  resources: {requests: {cpu: 100m, memory: 64Mi}}
        """
    assert _findings(tmp_path, {**STATIC_POOL, "ds.yaml": daemonset}) == []


def test_whole_cpus_next_to_a_burstable_sidecar_are_evidence(tmp_path: Path) -> None:
    second = """\
    - name: logger
      image: logger
      resources: {requests: {cpu: 100m}}
"""
    pod = _pod('{limits: {cpu: "4", memory: 4Gi}}', second=second)
    findings = _findings(tmp_path, {**STATIC_POOL, "pod.yaml": pod})
    assert findings == [("not-guaranteed", "warning")]


def test_a_network_whose_policy_excludes_topology_asks_for_nothing(tmp_path: Path) -> None:
    policy = """\
        apiVersion: sriovnetwork.openshift.io/v1
        kind: SriovNetworkNodePolicy
        metadata:
          name: mgmt
          namespace: openshift-sriov-network-operator
        spec:
          resourceName: mgmt_vfs
          numVfs: 8
          excludeTopology: {exclude}
          nodeSelector: {{node-role.kubernetes.io/worker-cnf: ""}}
          nicSelector: {{pfNames: [ens1f0]}}
        """
    network = """\
        apiVersion: sriovnetwork.openshift.io/v1
        kind: SriovNetwork
        metadata:
          name: mgmt-net
          namespace: openshift-sriov-network-operator
        spec:
          resourceName: mgmt_vfs
          networkNamespace: default
        """
    pod = _pod('{requests: {cpu: "2"}, limits: {cpu: "2"}}',
               annotations='annotations: {k8s.v1.cni.cncf.io/networks: mgmt-net}')
    files = {"policy.yaml": policy.format(exclude="true"), "network.yaml": network, "pod.yaml": pod}
    assert _findings(tmp_path, files) == []
    files["policy.yaml"] = policy.format(exclude="false")
    assert _findings(tmp_path, files) == [("not-guaranteed", "warning")]


def test_a_kubevirt_vm_with_dedicated_cpus_is_a_guaranteed_pod_in_disguise(tmp_path: Path) -> None:
    vm = """\
        apiVersion: kubevirt.io/v1
        kind: VirtualMachine
        metadata:
          name: vran
        spec:
          template:
            spec:
              domain:
                cpu:
                  dedicatedCpuPlacement: true
                resources:
                  requests: {cpu: "4", memory: 4Gi}
                  limits: {memory: {limit}}
        """
    write(tmp_path, {"vm.yaml": vm.replace("{limit}", "8Gi")})
    # a memory request below its limit beside dedicated CPUs: KubeVirt's webhook refuses the VM (validateCpuPinning)
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    hits = result.json()["findings"]
    assert [(h["rule"], h["line"], h["object"]["kind"]) for h in hits] == [("invalid-resources", 12, "VirtualMachine")]
    assert "requests.memory must be equal to spec.template.spec.domain.resources.limits.memory" in hits[0]["message"]
    write(tmp_path, {"vm.yaml": vm.replace("{limit}", "4Gi")})  # KubeVirt copies cpu into limits
    assert run("check", "--format", "json", str(tmp_path)).rules() == []


def test_an_ordinary_vm_is_not_a_workload_asking_for_alignment(tmp_path: Path) -> None:
    write(tmp_path, {"vm.yaml": """\
        apiVersion: kubevirt.io/v1
        kind: VirtualMachine
        metadata:
          name: desktop
        spec:
          template:
            spec:
              domain:
                resources:
                  requests: {cpu: 500m, memory: 4Gi}
        """})
    assert run("check", "--format", "json", str(tmp_path)).rules() == []


def test_the_only_pool_takes_no_workload_that_selects_other_nodes(tmp_path: Path) -> None:
    """One labelled pool (a NodeTopology, a PerformanceProfile) is not every node of the cluster: a workload whose
    nodeSelector its labels do not satisfy never lands there, so nothing is said about it on that pool."""
    guaranteed = "{limits: {cpu: 500m, memory: 1Gi}}"
    big = "{limits: {cpu: '12', memory: 8Gi}}"
    profile = ("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n  name: cnf\nspec:\n"
               "  cpu: {isolated: 2-31, reserved: 0-1}\n  nodeSelector: {node-role.kubernetes.io/worker-cnf: ''}\n")
    aligned = {**STATIC_POOL, "kubelet.yaml": STATIC_POOL["kubelet.yaml"].replace(
        "static\n", "static\n        topologyManagerPolicy: single-numa-node\n")}
    for pool in (aligned, {"profile.yaml": profile}):
        # the pool declares only its role label: a feature or OS label beside it may well be on its nodes (so
        # the pod is on the pool), a hostname alone says nothing of the pool (no guess: on no pool)
        for selector, expected in (("node-role.kubernetes.io/worker-cnf", True),
                                   ('node-role.kubernetes.io/worker-cnf: "", kubernetes.io/os: linux, x', True),
                                   ("node-role.kubernetes.io/infra", False),
                                   ("kubernetes.io/hostname: cnf-1, x", False)):
            folder = tmp_path / f"{len(pool)}-{len(selector)}"
            pods = {name + ".yaml": _pod(resources).replace("node-role.kubernetes.io/worker-cnf", selector)
                    .replace("name: app", f"name: {name}") for name, resources in (("web", guaranteed), ("batch", big))}
            write(folder, {**pool, **pods})
            rules = set(run("check", "--format", "json", str(folder)).rules())
            assert ("fractional-cpu" in rules) is expected, (pool.keys(), selector, rules)
            if "topology.yaml" in pool:
                assert ("exceeds-numa-node" in rules) is expected, rules


VMI = """\
    apiVersion: kubevirt.io/v1
    kind: VirtualMachineInstance
    metadata:
      name: vmi
    spec:
      domain:
        cpu: {dedicatedCpuPlacement: true, cores: 2}
        memory: MEMORY
        resources: RESOURCES
    """


def test_virt_api_defaults_the_memory_request_from_the_guest_memory(tmp_path: Path) -> None:
    """KubeVirt's own example (guest memory, no resources) is a Guaranteed virt-launcher pod: virt-api takes the
    memory request from memory.guest, and pinning copies requests into limits; with nothing to take it from,
    KubeVirt's webhook refuses the VMI (validateMemoryLimitAndRequestProvided)."""
    write(tmp_path, {"vmi.yaml": VMI.replace("MEMORY", "{guest: 1024M}").replace("RESOURCES", "{}")})
    assert run("check", "--format", "json", str(tmp_path)).rules() == []
    write(tmp_path, {"vmi.yaml": VMI.replace("MEMORY", "{}").replace("RESOURCES", "{}")})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [f["rule"] for f in found] == ["invalid-resources"]
    assert "limits.memory should be provided" in found[0]["message"]
    assert "refuses the VirtualMachineInstance" in found[0]["message"]


def test_a_hugepage_backed_vm_asks_for_hugepages_not_memory(tmp_path: Path) -> None:
    """renderresources.go WithHugePages: the guest's memory is a hugepages-1Gi request; a node without 1Gi pages
    can never take the VM, one with enough can."""
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
               "reservedSystemCPUs: '0'\n")
    topology = """\
        apiVersion: numalint.io/v1alpha1
        kind: NodeTopology
        metadata: {name: box}
        spec:
          numaNodes:
            - {id: 0, cpus: "0-15", memory: 16Gi, hugepages: {1Gi: PAGES}}
        """
    vmi = VMI.replace("MEMORY", "{hugepages: {pageSize: 1Gi}}").replace("RESOURCES", "{requests: {memory: 4Gi}}")
    for pages, placed in (("0", False), ("8", True)):
        write(tmp_path, {"kubelet.yaml": kubelet, "topology.yaml": topology.replace("PAGES", pages), "vmi.yaml": vmi})
        report = run("simulate", "--format", "json", str(tmp_path))
        assert (report.exit_code == 0) is placed, report.output
        if not placed:
            assert "hugepages-1Gi 4Gi > allocatable 0" in report.output


def test_a_zero_limit_counts_as_none(tmp_path: Path) -> None:
    """qos.go counts only quantities above zero: a helper container limited to cpu 0 and memory 0 makes the pod
    Burstable, and not-guaranteed says which container and why."""
    second = "    - name: helper\n      image: busybox\n      resources: {limits: {cpu: '0', memory: '0'}}\n"
    dpdk = "{limits: {cpu: '4', memory: 2Gi, hugepages-1Gi: 4Gi}}"
    write(tmp_path, {"pod.yaml": _pod(dpdk, second=second)})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [f["rule"] for f in found] == ["not-guaranteed"]
    assert 'container "helper" has cpu limit 0, which counts as none; memory limit 0' in found[0]["message"]
    write(tmp_path, {"pod.yaml": _pod(dpdk, second=second.replace("'0'", "'1'"))})
    assert run("check", "--format", "json", str(tmp_path)).rules() == []


def test_a_key_written_twice_in_a_workload_is_reported_where_it_repeats(tmp_path: Path) -> None:
    """go-yaml keeps the last `containers:`; the first list (here the DPDK container) silently never runs."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: dpdk\n    image: x\n"
           "  containers:\n  - name: helper\n    image: y\n")
    write(tmp_path, {"pod.yaml": pod, "list.yaml": "apiVersion: v1\nkind: List\nitems:\n- " + pod.replace(
        "\n", "\n  ").rstrip() + "\n"})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(Path(f["file"]).name, f["rule"], f["line"], f["column"]) for f in found] == [
        ("list.yaml", "unknown-field", 11, 5), ("pod.yaml", "unknown-field", 8, 3)]
    assert 'duplicate field "containers"' in found[1]["message"]
    write(tmp_path, {"pod.yaml": pod.replace("  containers:\n  - name: helper", "  - name: helper"),
                     "list.yaml": "apiVersion: v1\nkind: List\nitems: []\n"})
    assert run("check", "--format", "json", str(tmp_path)).rules() == []


def test_replica_counts_the_api_server_refuses(tmp_path: Path) -> None:
    """replicas is an int32 that ValidateNonnegativeField checks: a negative count or one beyond int32 is refused,
    not simulated as one pod."""
    deployment = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: COUNT\n"
                  "  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n"
                  "    spec:\n      containers: [{name: c, image: x}]\n")
    for count, refused in (("-5", True), ("9223372036854775807", True), ("2147483647", False), ("0", False)):
        write(tmp_path, {"d.yaml": deployment.replace("COUNT", count)})
        found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
        assert ([(f["rule"], f["line"]) for f in found] == [("schema", 5)]) is refused, (count, found)


def test_keys_json_cannot_hold_are_errors_where_they_sit(tmp_path: Path) -> None:
    """sigs.k8s.io/yaml converts YAML to JSON before anything reads it: a key that is a list or a mapping, or null,
    is refused ("unsupported map key"), and the kubelet or kubectl with it. numalint said the kubelet ignores
    such a key, or nothing."""
    write(tmp_path, {
        "k.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
                  "reservedSystemCPUs: '0'\n? [a, b]\n: c\n",
        "p.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: x\n"
                  "    resources:\n      limits: {~: 1, cpu: '1'}\n"})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(Path(f["file"]).name, f["rule"], f["line"]) for f in found] == [("k.yaml", "yaml-syntax", 5),
                                                                             ("p.yaml", "yaml-syntax", 9)]
    assert "a mapping or a list" in found[0]["message"] and "null" in found[1]["message"]


def test_a_vm_without_hugepages_asks_for_its_memory_plus_virt_launchers_overhead(tmp_path: Path) -> None:
    """renderresources.go WithMemoryOverhead: the compute container asks for the guest's memory plus the
    overhead (the fixed 220Mi numalint counts), on the request and the limit alike; overcommitGuestOverhead keeps
    it off the request."""
    base = """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: box}
spec:
  numaNodes:
    - {id: 0, cpus: "0-7", memory: 16Gi}
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "0"
---
apiVersion: kubevirt.io/v1
kind: VirtualMachineInstance
metadata: {name: vmi}
spec:
  domain:
    cpu: {dedicatedCpuPlacement: true, cores: 2}
    resources:
      requests: {memory: 4Gi}
"""
    for extra, memory in (("", 4 * 2**30 + 220 * 2**20), ("      overcommitGuestOverhead: true\n", 4 * 2**30)):
        write(tmp_path, {"all.yaml": base + extra})
        placed = run("simulate", "--format", "json", str(tmp_path / "all.yaml")).json()
        assert placed["pools"][0]["nodes"][0]["requested"]["memory"] == str(memory)


def test_a_vm_that_isolates_its_emulator_thread_asks_for_one_cpu_more(tmp_path: Path) -> None:
    """renderresources.go WithCPUPinning: isolateEmulatorThread adds one CPU to the compute container (two when
    the EmulatorThreadCompleteToEvenParity annotation is set and the vCPU count is even), so under full-pcpus-only
    on 2-thread cores one vCPU is admitted and two are refused; the hint says what to write for a VM."""
    node = """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: smt}
spec: {sockets: 1, threadsPerCore: 2, numaNodes: [{id: 0, socket: 0, cpus: "0-15", memory: 64Gi}]}
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
cpuManagerPolicyOptions: {full-pcpus-only: "true"}
reservedSystemCPUs: "0,8"
"""
    vm = """---
apiVersion: kubevirt.io/v1
kind: VirtualMachineInstance
metadata:
  name: vm-{cores}{suffix}
  annotations: {annotations}
spec:
  domain:
    cpu: {{cores: {cores}, dedicatedCpuPlacement: true, isolateEmulatorThread: true}}
    memory: {{guest: 1Gi}}
"""
    even = "{alpha.kubevirt.io/EmulatorThreadCompleteToEvenParity: ''}"
    vms = (vm.format(cores=1, suffix="", annotations="{}") + vm.format(cores=2, suffix="", annotations="{}")
           + vm.format(cores=2, suffix="-even", annotations=even))
    write(tmp_path, {"all.yaml": node + vms})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(f["rule"], f["object"]["name"]) for f in found] == [("smt-alignment", "vm-2")]
    assert "requested 3 cpus" in found[0]["message"]
    assert "one short of a multiple of 2" in found[0]["fix"]["description"]
    placed = run("simulate", "--format", "json", str(tmp_path / "all.yaml")).json()
    requested = placed["pools"][0]["nodes"][0]["requested"]["cpu"]
    assert requested == "6"  # vm-1: 1 + 1, vm-2-even: 2 + 2; vm-2 (2 + 1) is refused


def test_a_device_declared_by_several_node_topologies_is_placed(tmp_path: Path) -> None:
    """One NodeResourceTopology per node (the usual export): a pod that selects no nodes is on no particular one,
    yet every one declares its device on a NUMA node. It was "no topology in the run declares it" (info)."""
    nrt = """apiVersion: topology.node.k8s.io/v1alpha2
kind: NodeResourceTopology
metadata: {name: NAME}
attributes: [{name: topologyManagerPolicy, value: single-numa-node}]
zones:
  - name: node-0
    type: Node
    resources:
      - {name: cpu, capacity: "8", allocatable: "8", available: "8"}
      - {name: example.com/dev, capacity: "2", allocatable: "2", available: "2"}
"""
    pod = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: c
      image: x
      resources:
        limits: {cpu: "1", example.com/dev: "1"}
"""
    write(tmp_path, {"a.yaml": nrt.replace("NAME", "worker-a"), "b.yaml": nrt.replace("NAME", "worker-b"),
                     "pod.yaml": pod})
    found = [f for f in run("check", "--format", "json", str(tmp_path)).json()["findings"]
             if f["rule"] == "not-guaranteed"]
    assert [f["severity"] for f in found] == ["warning"], found
    assert "cannot place" not in found[0]["message"] and "requests example.com/dev" in found[0]["message"]


HUGEPAGES_ONLY = """{limits: {hugepages-2Mi: 100Mi, memory: 100Mi}, requests: {memory: 100Mi}}
      volumeMounts: [{mountPath: /hugepages-2Mi, name: hugepage-2mi}]
  volumes:
    - {name: hugepage-2mi, emptyDir: {medium: HugePages-2Mi}}"""


def test_hugepages_alone_ask_for_nothing(tmp_path: Path) -> None:
    # the documentation's hugepages pod (Burstable): hugepages come from any NUMA node unless the Static memory
    # manager pins them, and it pins only Guaranteed pods; nothing here says the pod wants that
    assert _findings(tmp_path, {"pod.yaml": _pod(HUGEPAGES_ONLY)}) == []
    assert _findings(tmp_path, {**STATIC_POOL, "pod.yaml": _pod(HUGEPAGES_ONLY)}) == []  # static CPU manager only


def test_hugepages_on_a_static_memory_manager_pool_ask_for_alignment(tmp_path: Path) -> None:
    pool = {"kubelet.yaml": """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        cpuManagerPolicy: static
        reservedSystemCPUs: "0,1"
        memoryManagerPolicy: Static
        reservedMemory:
          - numaNode: 0
            limits: {memory: 100Mi}
        """, "topology.yaml": STATIC_POOL["topology.yaml"].replace("32Gi}", "32Gi, hugepages: {2Mi: 512}}")}
    assert _findings(tmp_path, {**pool, "pod.yaml": _pod(HUGEPAGES_ONLY)}) == [("not-guaranteed", "warning")]


def test_a_workload_that_selects_no_nodes_is_not_asked_to_align_by_a_labelled_pool(tmp_path: Path) -> None:
    # a PerformanceProfile's worker-cnf pool runs the Static memory manager; a database with hugepages and no
    # nodeSelector lands there only by chance: that says nothing of what it wants
    profile = """\
        apiVersion: performance.openshift.io/v2
        kind: PerformanceProfile
        metadata: {name: cnf}
        spec:
          cpu: {reserved: "0-1", isolated: "2-31"}
          nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}
          numa: {topologyPolicy: single-numa-node}
        """
    database = _pod("{requests: {memory: 2Gi, hugepages-2Mi: 512Mi}, limits: {memory: 2Gi, hugepages-2Mi: 512Mi}}")
    assert _findings(tmp_path, {"pp.yaml": profile, "db.yaml": database}) == [("not-guaranteed", "warning")]
    unselected = database.replace('  nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}\n', "")
    assert _findings(tmp_path, {"pp.yaml": profile, "db.yaml": unselected}) == []


def test_hugepages_with_whole_cpus_or_a_device_ask_for_alignment(tmp_path: Path) -> None:
    whole = '{requests: {cpu: "4", memory: 1Gi}, limits: {cpu: "4", hugepages-1Gi: 2Gi, memory: 2Gi}}'
    assert _findings(tmp_path, {"pod.yaml": _pod(whole)}) == [("not-guaranteed", "warning")]
    # a Burstable database asking for 4 CPUs with no limit is not shaped for exclusive CPUs
    database = '{requests: {cpu: "4", memory: 1Gi}, limits: {hugepages-1Gi: 2Gi, memory: 2Gi}}'
    assert _findings(tmp_path, {"pod.yaml": _pod(database)}) == []
    gpu = '{requests: {cpu: 500m}, limits: {hugepages-1Gi: 2Gi, memory: 2Gi, nvidia.com/gpu: 1}}'
    assert _findings(tmp_path, {"pod.yaml": _pod(gpu)}) == [("not-guaranteed", "warning")]


def test_hugepages_in_a_guaranteed_pod_ask_for_alignment(tmp_path: Path) -> None:
    # requests equal to limits and hugepages: a DPDK testpmd with 2.5 CPUs loses its exclusive CPUs
    write(tmp_path, {"pod.yaml": _pod('{limits: {cpu: 2500m, memory: 2Gi, hugepages-1Gi: 2Gi}}')})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(f["rule"], f["severity"]) for f in found] == [("fractional-cpu", "warning")]
    assert "(it requests hugepages-1Gi)" in found[0]["message"]


def test_crio_cpu_tuning_annotations_ask_for_exclusive_cpus(tmp_path: Path) -> None:
    """cpu-load-balancing.crio.io: disable (with the performance-<profile> runtime class) acts only on a Guaranteed
    pod's exclusive CPUs: a pod that writes it without a memory limit is told, one that is Guaranteed is not."""
    pod = """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: cyclictest
          annotations:
            cpu-load-balancing.crio.io: "disable"
            irq-load-balancing.crio.io: "disable"
        spec:
          runtimeClassName: performance-rt
          containers:
            - name: c
              image: x
              resources:
                limits: {cpu: "4"%s}
        """
    write(tmp_path / "a", {"pod.yaml": pod % ""})
    found = run("check", "--format", "json", "--fail-on", "never", str(tmp_path / "a")).json()["findings"]
    assert [f["rule"] for f in found] == ["not-guaranteed"]
    assert "cpu-load-balancing.crio.io, irq-load-balancing.crio.io" in found[0]["message"]
    write(tmp_path / "b", {"pod.yaml": pod % ", memory: 1Gi"})
    assert run("check", "--format", "json", str(tmp_path / "b")).json()["findings"] == []
    write(tmp_path / "c", {"pod.yaml": (pod % "").replace('"disable"', '"enable"')})  # nothing asked
    assert run("check", "--format", "json", str(tmp_path / "c")).json()["findings"] == []


def test_crio_annotations_on_a_deployment_itself_reach_no_pod(tmp_path: Path) -> None:
    deployment = """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: rt
          annotations: {cpu-quota.crio.io: "disable"}
        spec:
          selector: {matchLabels: {app: rt}}
          template:
            metadata: {labels: {app: rt}}
            spec:
              containers:
                - name: c
                  image: x
                  resources: {limits: {cpu: "4"}}
        """
    write(tmp_path, {"deployment.yaml": deployment})
    # no intent read from them (the pod is not said to be not Guaranteed); only where they are written is wrong
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [f["rule"] for f in found] == ["crio-annotations-ignored"]
    assert "on its own metadata, not on its pod template" in found[0]["message"]


def test_crio_annotations_do_not_make_a_fractional_sidecar_beside_whole_cpus_a_mistake(tmp_path: Path) -> None:
    """The annotations ask exclusive CPUs of the main container; a 250m sidecar is meant for the shared pool. With
    no container of whole CPUs they tune nothing, which fractional-cpu says."""
    pod = """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: rt
          annotations: {cpu-load-balancing.crio.io: "disable"}
        spec:
          containers:
            - {name: app, image: x, resources: {limits: {cpu: "%s", memory: 1Gi}}}
            - {name: metrics, image: x, resources: {limits: {cpu: 250m, memory: 64Mi}}}
        """
    write(tmp_path / "a", {"pod.yaml": pod % "4"})
    assert run("check", "--format", "json", str(tmp_path / "a")).json()["findings"] == []
    write(tmp_path / "b", {"pod.yaml": pod % "3500m"})
    found = run("check", "--format", "json", "--fail-on", "never", str(tmp_path / "b")).json()["findings"]
    assert sorted(f["rule"] for f in found) == ["fractional-cpu", "fractional-cpu"]
