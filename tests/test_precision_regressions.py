"""False findings seen on public configurations, each pinned by a small file written here."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run, write

PROFILE = """\
apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata:
  name: perf
spec:
  cpu: {{reserved: "0-1", isolated: "{isolated}"}}
  nodeSelector: {{node-role.kubernetes.io/worker-cnf: ""}}
"""


def test_a_repeated_performance_profile_is_one_duplicate(tmp_path: Path) -> None:
    write(tmp_path, {"a/p.yaml": PROFILE.format(isolated="2-7"), "b/p.yaml": PROFILE.format(isolated="2-15")})
    rules = run("check", "--format", "json", str(tmp_path)).rules()
    assert rules.count("duplicate-object") == 1


def test_runtime_request_timeout_is_accepted_by_the_operator(tmp_path: Path) -> None:
    # machine-config-operator pkg/controller/kubelet-config/helpers.go validateUserKubeletConfig: the
    # "runtimeRequestTimeout is not allowed" check of old releases is gone from every release numalint models
    # (this test asserted the refusal before)
    kubeletconfig = """\
        apiVersion: machineconfiguration.openshift.io/v1
        kind: KubeletConfig
        metadata: {{name: rendered}}
        spec:
          machineConfigPoolSelector: {{matchLabels: {{pools.operator.machineconfiguration.openshift.io/worker: ""}}}}
          kubeletConfig:
            runtimeRequestTimeout: {value}
        """
    write(tmp_path, {"kc.yaml": kubeletconfig.format(value="0s")})
    assert "kubeletconfig-unsupported-field" not in run("check", "--format", "json", str(tmp_path)).rules()
    for release in ("4.17", "4.22"):
        write(tmp_path, {"kc.yaml": kubeletconfig.format(value="10m")})
        rules = run("check", "--format", "json", "--openshift-version", release, str(tmp_path)).rules()
        assert "kubeletconfig-unsupported-field" not in rules


def test_a_namesake_policy_does_not_hide_the_resource_its_network_uses(tmp_path: Path) -> None:
    policy = """\
        apiVersion: sriovnetwork.openshift.io/v1
        kind: SriovNetworkNodePolicy
        metadata: {{name: fh, namespace: openshift-sriov-network-operator}}
        spec:
          resourceName: {resource}
          numVfs: 8
          nodeSelector: {{node-role.kubernetes.io/worker: ""}}
          nicSelector: {{pfNames: [ens1f0]}}
        """
    network = """\
        apiVersion: sriovnetwork.openshift.io/v1
        kind: SriovNetwork
        metadata: {name: fh-net, namespace: openshift-sriov-network-operator}
        spec:
          resourceName: fh_base
        """
    write(tmp_path, {"base/policy.yaml": policy.format(resource="fh_base"), "base/net.yaml": network,
                     "overlay/policy.yaml": policy.format(resource="fh_overlay")})
    rules = run("check", "--format", "json", str(tmp_path)).rules()
    assert "duplicate-object" in rules and "sriov-unknown-resource" not in rules


def test_a_kubelet_field_of_the_newest_releases_is_known(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                               "podHousekeepingPeriod: 2s\n"})
    assert "unknown-field" not in run("check", "--format", "json", str(tmp_path)).rules()


GPU_POOL = """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: gpu}
spec:
  pool: {nodes: 2, kubeletConfig: kubelet}
  numaNodes:
    - {id: 0, cpus: "0-7", memory: 64Gi}
    - {id: 1, cpus: "8-15", memory: 64Gi}
  devices:
    - {resource: nvidia.com/gpu, numaNode: 0, count: GPUS}
    - {resource: nvidia.com/gpu, numaNode: 1, count: GPUS}
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
metadata: {name: kubelet}
cpuManagerPolicy: static
topologyManagerPolicy: single-numa-node
reservedSystemCPUs: "8-13"
---
apiVersion: batch/v1
kind: Job
metadata: {name: a-smoke}
spec:
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: cuda
        resources:
          limits: {nvidia.com/gpu: 1}
"""
GUARANTEED_GPU_POD = """---
apiVersion: v1
kind: Pod
metadata: {name: b-infer}
spec:
  containers:
  - name: c
    image: vllm
    resources:
      limits: {cpu: "4", memory: 8Gi, nvidia.com/gpu: 1}
"""


def test_pods_without_cpu_or_memory_requests_spread_over_the_nodes(tmp_path: Path) -> None:
    """The scheduler's score counts a missing cpu/memory request as 100m/200MB (NonMissingContainerRequests):
    GPU-only pods do not all go to the first node, and a Guaranteed pod after them is not rejected there while
    another node stands empty."""
    write(tmp_path, {"all.yaml": GPU_POOL.replace("GPUS", "2")})
    placed = run("simulate", "--format", "json", str(tmp_path / "all.yaml")).json()
    pods = {node["name"]: node["pods"] for pool in placed["pools"] for node in pool["nodes"]}
    assert pods == {"gpu-0": ["a-smoke-0"], "gpu-1": ["a-smoke-1"]}, pods
    found = run("check", "--format", "json", str(tmp_path)).rules()
    assert "numa-imbalance" not in found and "admission-failure" not in found, found  # a pod per node
    write(tmp_path, {"all.yaml": GPU_POOL.replace("GPUS", "1").replace("parallelism: 2", "parallelism: 1")
                     + GUARANTEED_GPU_POD})
    found = run("check", "--format", "json", str(tmp_path)).rules()
    # b-infer is admitted on the other node; one GPU per NUMA node taken is no imbalance
    assert "admission-failure" not in found and "numa-imbalance" not in found, found


def _job(*containers: str, init: str = "") -> str:
    listed = "".join(f"      - name: {c.split(':')[0]}\n        image: x\n        resources:\n"
                     f"          limits: {{{c.split(':', 1)[1]}}}\n" for c in containers)
    inits = (f"      initContainers:\n      - name: {init.split(':')[0]}\n        image: x\n        resources:\n"
             f"          limits: {{{init.split(':', 1)[1]}}}\n") if init else ""
    return ("apiVersion: batch/v1\nkind: Job\nmetadata: {name: train}\nspec:\n  template:\n    spec:\n"
            "      restartPolicy: Never\n" + inits + "      containers:\n" + listed)


def _fractional(tmp_path: Path, text: str) -> list[str]:
    static = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
              'reservedSystemCPUs: "0"\ntopologyManagerPolicy: single-numa-node\n')
    write(tmp_path, {"kubelet.yaml": static, "job.yaml": text})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    return sorted(f["message"].split('"')[1] for f in found if f["rule"] == "fractional-cpu")


def test_a_fractional_sidecar_beside_the_containers_that_ask_for_alignment_is_not_reported(tmp_path: Path) -> None:
    """A log shipper of 100m beside a trainer with whole CPUs and a GPU was told to take a whole CPU "(it requests
    nvidia.com/gpu)", which it does not: a sidecar asking for no device or hugepages is meant for the shared pool
    (found by following not-guaranteed's fix by hand, which then brought fractional-cpu)."""
    trainer, logger = 'trainer: cpu: "8", memory: 32Gi, nvidia.com/gpu: 1', "logger: cpu: 100m, memory: 64Mi"
    assert _fractional(tmp_path, _job(trainer, logger)) == []
    # the container holding the GPU with a fraction still loses its alignment; its sidecar is still no matter
    assert _fractional(tmp_path, _job(trainer.replace('"8"', "1500m"), logger)) == ["trainer"]
    # an init container of half a CPU before a hugepages app
    app = 'app: cpu: "4", memory: 1Gi, hugepages-1Gi: 2Gi'
    assert _fractional(tmp_path, _job(app, init="setup: cpu: 500m, memory: 64Mi")) == []
    # a container that asks for hugepages itself is no sidecar
    assert _fractional(tmp_path, _job(app, "cache: cpu: 500m, memory: 64Mi, hugepages-1Gi: 1Gi")) == ["cache"]


def test_a_fractional_main_container_is_still_reported(tmp_path: Path) -> None:
    """The container that gets the pod's VF from the network resources injector, or a fractional one larger than
    the whole-CPU agent beside it, is the pod's main one (found by the review of this change)."""
    agent, du = 'agent: cpu: "1", memory: 64Mi', "du: cpu: 3500m, memory: 1Gi"
    assert _fractional(tmp_path, _job(du, agent)) == ["du"]
    network = ("apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata: {name: fh, "
               "namespace: openshift-sriov-network-operator}\nspec:\n  resourceName: fh\n  numVfs: 8\n"
               "  nodeSelector: {a: b}\n  nicSelector: {pfNames: [ens1f0]}\n---\n"
               "apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetwork\nmetadata: {name: fh-net, namespace: "
               "openshift-sriov-network-operator}\nspec: {resourceName: fh}\n")
    small = _job("du: cpu: 500m, memory: 1Gi", agent.replace('"1"', '"2"')).replace(
        "    spec:\n      restartPolicy",
        "    metadata:\n      annotations: {k8s.v1.cni.cncf.io/networks: fh-net}\n    spec:\n      restartPolicy")
    (tmp_path / "net.yaml").write_text(network)
    assert _fractional(tmp_path, small) == ["du"]


def test_a_fractional_container_larger_than_the_one_asking_for_devices_is_the_main_one(tmp_path: Path) -> None:
    """3500m beside a 1-CPU agent that asks for hugepages: the large one is what the pod is for (found by a sweep of
    public manifests); 100m beside the same agent is its sidecar."""
    agent = 'agent: cpu: "1", memory: 1Gi, hugepages-2Mi: 512Mi'
    assert _fractional(tmp_path, _job("main: cpu: 3500m, memory: 8Gi", agent)) == ["main"]
    assert _fractional(tmp_path, _job("logs: cpu: 100m, memory: 64Mi", agent)) == []
    # beside a fractional GPU container the log shipper is still a sidecar; the GPU one is reported
    gpu = "trainer: cpu: 1500m, memory: 8Gi, nvidia.com/gpu: 1"
    assert _fractional(tmp_path, _job(gpu, "logs: cpu: 100m, memory: 64Mi")) == ["trainer"]
