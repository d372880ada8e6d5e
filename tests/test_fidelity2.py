"""Issue 12, second part: API-server validation, version-dependent fields, OpenShift release by release,
proven kubelet fixes and the Topology Manager merge with impossible providers; through the command line.

Each test cites the Go source whose behaviour it pins."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from numalint.catalogue import catalogue
from tests.conftest import findings, run, write

HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


def where(found: list[dict[str, Any]], rule: str) -> list[tuple[int, int, str]]:
    return [(f["line"], f["column"], f["message"]) for f in found if f["rule"] == rule]


# --- item 6: the merge with a provider that has no possible NUMA affinity ------------------------------

FOUR = {"nodes": [0, 1, 2, 3], "distances": None}


def _case(name: str, policy: str, providers: list[Any], hint: dict[str, Any], admit: bool) -> str:
    return json.dumps({"source": "numalint tests/test_fidelity2.py", "name": name, "policy": policy,
                       "policy_options": {}, "numa": FOUR, "providers": providers,
                       "expected": {"hint": hint, "admit": admit}})


# pkg/kubelet/cm/topologymanager/policy.go (v1.32 and later):
#   filterProvidersHints turns a resource's empty list `[]` into [{nil, false}];
#   NewHintMerger sets BestNonPreferredAffinityCount = maxOfMinAffinityCounts(hints), and
#   maxOfMinAffinityCounts skips every list whose narrowestHint is nil -- narrowestHint ignores nil
#   affinities, so a `[]` provider contributes nothing (it does NOT count as "all NUMA nodes").
# Here the CPU list's narrowest hint is {0}: the count to aim for is 1, so among the (all non-preferred)
# merged hints {0} and {0,1}, HintMerger.compare keeps {0} (case 2: current count == best, candidate's
# is not). Counting the `[]` provider as 4 would make {0,1} win (case 3ca).
IMPOSSIBLE = [{"gpu": []}, {"cpu": [{"numa": [0], "preferred": True}, {"numa": [0, 1], "preferred": False}]}]
MERGE_VECTORS = [
    _case("[] provider, best-effort: aim at the CPU's narrowest count", "best-effort", IMPOSSIBLE,
          {"numa": [0], "preferred": False}, True),
    _case("[] provider, restricted: same merged hint, rejected", "restricted", IMPOSSIBLE,
          {"numa": [0], "preferred": False}, False),
    # policy_single_numa_node.go filterSingleNumaHints drops {nil, false}: an empty list, no permutation,
    # the default {all, false} and then {nil, false}
    _case("[] provider, single-numa-node: nothing merges", "single-numa-node", IMPOSSIBLE,
          {"numa": None, "preferred": False}, False),
    # the order of the lists does not matter: the `[]` provider last
    _case("[] provider last", "best-effort", IMPOSSIBLE[::-1], {"numa": [0], "preferred": False}, True),
    # a `[]` next to a nil (no preference) list and a wide list: best count 2 from the wide list
    _case("[] provider with a nil list", "best-effort",
          [{"gpu": [], "nic": None}, {"cpu": [{"numa": [0, 1], "preferred": True},
                                              {"numa": [0, 1, 2], "preferred": False}]}],
          {"numa": [0, 1], "preferred": False}, True),
]


def test_merge_with_an_impossible_provider_matches_policy_go(tmp_path: Path) -> None:
    vectors = tmp_path / "impossible.jsonl"
    vectors.write_text("\n".join(MERGE_VECTORS) + "\n")
    proc = subprocess.run([sys.executable, "-m", "numalint.conformance.runner", str(vectors)],
                          capture_output=True, text=True)
    assert proc.stdout.strip() == f"topologymanager merge (cases): {len(MERGE_VECTORS)} passed, 0 failed", proc.stdout
    assert proc.returncode == 0


# --- item 1: what the API server rejects ----------------------------------------------------------------

def pod(resources: str, pod_level: str = "", kind: str = "Pod") -> str:
    """A Pod (or Deployment) with one container whose resources block is ``resources`` (indented 10)."""
    if kind == "Pod":
        head, indent = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n", "  "
    else:
        head = ("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: p\nspec:\n  template:\n"
                "    spec:\n")
        indent = "      "
    body = pod_level + "containers:\n  - name: app\n    image: app:1\n    resources:\n" + resources
    return head + "".join(indent + line + "\n" for line in body.splitlines())


@pytest.mark.parametrize("amount,ok", [("3Mi", False), ("4Mi", True), ("2097153", False), ("1.5Gi", True),
                                       ("3M", False), ("0", True)])
def test_hugepages_must_be_whole_pages(tmp_path: Path, amount: str, ok: bool) -> None:
    # pkg/apis/core/validation/validation.go validateResourceQuantityHugePageValue /
    # pkg/apis/core/helper IsHugePageResourceValueDivisible: Quantity.Value() % page size == 0
    resources = f"      limits:\n        cpu: \"1\"\n        memory: 1Gi\n        hugepages-2Mi: {amount}\n"
    found = where(findings(tmp_path, {"pod.yaml": pod(resources)}), "invalid-resources")
    if ok:
        assert found == []
        return
    assert [(line, col) for line, col, _ in found] == [(13, 26)]
    assert "spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value:" in found[0][2]
    assert "is not positive integer multiple of hugepages-2Mi" in found[0][2]


def test_hugepages_message_is_the_api_servers(tmp_path: Path) -> None:
    # validation.go: field.Invalid(fldPath, quantity.String(), "%s is not positive integer multiple of %s")
    resources = "      limits:\n        cpu: \"1\"\n        memory: 1Gi\n        hugepages-2Mi: 3Mi\n"
    found = where(findings(tmp_path, {"d.yaml": pod(resources, kind="Deployment")}), "invalid-resources")
    assert len(found) == 1
    assert ('spec.template.spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not '
            "positive integer multiple of hugepages-2Mi") in found[0][2]


@pytest.mark.parametrize("amount,shown", [("500m", "500m"), ("0.5", "500m"), ("1500m", "1500m")])
def test_fractional_extended_resources_are_rejected(tmp_path: Path, amount: str, shown: str) -> None:
    # validation.go ValidateResourceQuantityValue: IsIntegerResourceName (extended resources) ->
    # isNotIntegerErrorMsg "must be an integer", for limits and for written requests
    resources = (f"      requests:\n        nvidia.com/gpu: {amount}\n"
                 f"      limits:\n        nvidia.com/gpu: {amount}\n")
    found = where(findings(tmp_path, {"pod.yaml": pod(resources)}), "invalid-resources")
    assert [(line, col) for line, col, _ in found] == [(11, 27), (13, 27)]
    assert (f'spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: "{shown}": must be an integer'
            in found[1][2])
    assert "resources.requests[nvidia.com/gpu]" in found[0][2]


def test_whole_extended_resources_are_accepted(tmp_path: Path) -> None:
    resources = "      limits:\n        nvidia.com/gpu: 2\n        example.com/foo: \"1000m\"\n"
    assert where(findings(tmp_path, {"pod.yaml": pod(resources)}), "invalid-resources") == []


# the container asks for what the pod-level limits give: pod-level requests default to the containers'
# effective requests (defaults.go defaultPodRequests), so the pod is Guaranteed
POD_LEVEL = "resources:\n  limits:\n    cpu: \"4\"\n    memory: 2Gi\n"
HUGE = "      limits:\n        cpu: \"4\"\n        memory: 2Gi\n        hugepages-1Gi: 2Gi\n"


@pytest.mark.parametrize("version", ["1.34", "1.35", "1.37"])
def test_pod_level_resources_get_no_exclusive_cpus(tmp_path: Path, version: str) -> None:
    # pkg/kubelet/cm/cpumanager/policy_static.go Allocate and memorymanager/policy_static.go Allocate:
    # IsPodLevelResourcesSet -> "allocation skipped" (PodLevelResources beta/on from 1.34;
    # PodLevelResourceManagers, 1.36+, off by default)
    found = where(findings(tmp_path, {"pod.yaml": pod(HUGE, POD_LEVEL)}, "--kubernetes-version", version),
                  "pod-level-resources")
    assert [(line, col) for line, col, _ in found] == [(6, 3)]
    assert "CPU Manager allocation skipped, pod is using pod-level resources" in found[0][2]
    assert "QoS class (Guaranteed)" in found[0][2]


def test_pod_level_resource_managers_gate_lifts_it(tmp_path: Path) -> None:
    # policy_static.go (1.36+): the skip applies only while PodLevelResourceManagers is off
    kubelet = HEAD + ('cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
                      "featureGates:\n  PodLevelResourceManagers: true\n")
    files = {"pod.yaml": pod(HUGE, POD_LEVEL), "kubelet.yaml": kubelet}
    assert where(findings(tmp_path, files, "--kubernetes-version", "1.36"), "pod-level-resources") == []
    assert len(where(findings(tmp_path, files, "--kubernetes-version", "1.35"), "pod-level-resources")) == 1


def test_pod_level_resources_before_1_34_are_dropped(tmp_path: Path) -> None:
    # pkg/api/pod/util.go dropDisabledPodFields: spec.resources needs PodLevelResources (off before 1.34)
    found = [f for f in findings(tmp_path, {"pod.yaml": pod(HUGE, POD_LEVEL)}, "--kubernetes-version", "1.33")
             if f["rule"] == "pod-level-resources"]
    assert len(found) == 1 and found[0]["severity"] == "info" and "drops spec.resources" in found[0]["message"]


@pytest.mark.parametrize("pod_level,qos", [
    ('resources:\n  limits:\n    cpu: "4"\n    memory: 2Gi\n', "Guaranteed"),
    # pod-level requests default to the containers' (cpu 4, memory 2Gi), not to the pod-level limits
    # (defaults.go defaultPodRequests, KEP-2837 pod-level defaulting): memory 2Gi requested, 4Gi limited
    ('resources:\n  limits:\n    cpu: "4"\n    memory: 4Gi\n', "Burstable"),
    ('resources:\n  requests:\n    cpu: "4"\n    memory: 4Gi\n', "Burstable"),
    ('resources:\n  requests:\n    cpu: "2"\n  limits:\n    cpu: "4"\n    memory: 4Gi\n', "Burstable"),
    ('resources:\n  limits:\n    cpu: "4"\n', "Burstable"),
])
def test_pod_level_qos(tmp_path: Path, pod_level: str, qos: str) -> None:
    # pkg/apis/core/v1/helper/qos/qos.go ComputePodQOS with spec.resources: only pod-level cpu and memory count
    found = where(findings(tmp_path, {"pod.yaml": pod(HUGE, pod_level)}), "pod-level-resources")
    assert len(found) == 1 and f"QoS class ({qos})" in found[0][2]


# --- item 2: fractional-cpu says what is lost and what is kept --------------------------------------------

FRACTIONAL = ("      limits:\n        cpu: 1500m\n        memory: 1Gi\n        hugepages-1Gi: 2Gi\n"
              "        nvidia.com/gpu: 1\n")
SELECTOR = "nodeSelector:\n  role: numa\n"
NUMA_TOPOLOGY = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata:
  name: numa
spec:
  pool:
    nodeSelector: {role: numa}
    kubeletConfig: kubelet
  numaNodes:
    - {id: 0, cpus: "0-7", memory: 16Gi, hugepages: {1Gi: 4}}
    - {id: 1, cpus: "8-15", memory: 16Gi, hugepages: {1Gi: 4}}
  devices:
    - {resource: nvidia.com/gpu, numaNode: 0, count: 2}
"""


@pytest.mark.parametrize("memory_policy,kept", [
    (None, "memory and hugepages-1Gi are not pinned either"),
    ("Static", "still pinned to the NUMA nodes the Topology Manager picks, by the Static memory manager"),
])
def test_fractional_cpu_says_what_is_lost_and_kept(tmp_path: Path, memory_policy: str | None, kept: str) -> None:
    # cpumanager/policy_static.go guaranteedCPUs: a non-integer request gets 0 exclusive CPUs;
    # memorymanager/policy_static.go Allocate pins every Guaranteed pod; devicemanager/topology_hints.go
    kubelet = HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
    if memory_policy:
        kubelet += ("memoryManagerPolicy: Static\nreservedMemory:\n  - numaNode: 0\n    limits:\n"
                    "      memory: 100Mi\n")
    files = {"pod.yaml": pod(FRACTIONAL, SELECTOR), "kubelet.yaml": kubelet, "topology.yaml": NUMA_TOPOLOGY}
    found = where(findings(tmp_path, files), "fractional-cpu")
    assert len(found) == 1
    message = found[0][2]
    assert "loses its exclusive CPUs" in message and kept in message
    assert "its devices (nvidia.com/gpu) are still aligned" in message


def test_fractional_cpu_without_a_pool_says_it_depends_on_the_node(tmp_path: Path) -> None:
    found = where(findings(tmp_path, {"pod.yaml": pod(FRACTIONAL)}), "fractional-cpu")
    assert len(found) == 1 and "still pinned where the node runs the Static memory manager" in found[0][2]


# --- item 3: fields a kubelet of the target version does not know yet -----------------------------------

MERGE = ("memoryManagerPolicy: Static\nmergeDefaultEvictionSettings: true\nevictionHard:\n"
         "  nodefs.available: 10%\nreservedMemory:\n  - numaNode: 0\n    limits:\n      memory: 100Mi\n")


def test_a_field_before_its_version_is_an_unknown_field(tmp_path: Path) -> None:
    # staging/src/k8s.io/kubelet/config/v1beta1/types.go: mergeDefaultEvictionSettings appears in 1.33;
    # pkg/kubelet/kubeletconfig/util/codec decodes leniently after a strict failure: the field is dropped,
    # so the default memory.available threshold is gone and reservedMemory no longer adds up
    old = findings(tmp_path, {"kubelet.yaml": HEAD + MERGE}, "--kubernetes-version", "1.32")
    dropped = where(old, "unknown-field")
    assert [(line, col) for line, col, _ in dropped] == [(4, 1)]
    assert "not a field of the kubelet configuration at Kubernetes 1.32 (it exists from 1.33)" in dropped[0][2]
    assert "drops it" in dropped[0][2]
    assert len(where(old, "reserved-memory-mismatch")) == 1
    new = findings(tmp_path, {"kubelet.yaml": HEAD + MERGE}, "--kubernetes-version", "1.33")
    assert where(new, "unknown-field") == [] and where(new, "reserved-memory-mismatch") == []


def test_every_tabled_field_is_a_known_kubelet_field() -> None:
    # the table only names fields of the newest KubeletConfiguration (schemas/kubeletconfiguration)
    from numalint.k8s.versions import FIELD_SINCE
    from numalint.views.schema import kubelet_field_names

    assert set(FIELD_SINCE) <= kubelet_field_names()


# --- item 4: OpenShift release by release ----------------------------------------------------------------

def kubelet_config(body: str, spec: str = "") -> str:
    """An OpenShift KubeletConfig for the worker pool; ``body`` is its spec.kubeletConfig (indented 4)."""
    return ("apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata:\n  name: workers\n"
            "spec:\n" + spec + "  machineConfigPoolSelector:\n    matchLabels:\n"
            '      pools.operator.machineconfiguration.openshift.io/worker: ""\n  kubeletConfig:\n'
            + "".join("    " + line + "\n" for line in body.splitlines()))


ALPHA = 'cpuManagerPolicy: static\nreservedSystemCPUs: "0-1"\ncpuManagerPolicyOptions:\n  align-by-socket: "true"\n'


def feature_gate(feature_set: str, enabled: str = "") -> str:
    custom = f"  customNoUpgrade:\n    enabled: [{enabled}]\n" if enabled else ""
    return ("apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata:\n  name: cluster\nspec:\n"
            f"  featureSet: {feature_set}\n" + custom)


def test_openshift_default_feature_set_refuses_alpha_cpu_options(tmp_path: Path) -> None:
    # pkg/kubelet/cm/cpumanager/policy_options.go CheckPolicyOptionAvailable: align-by-socket is alpha and
    # needs CPUManagerPolicyAlphaOptions, which OpenShift's Default feature set does not enable
    # (machine-config-operator renders the kubelet's featureGates from the cluster FeatureGate)
    found = where(findings(tmp_path, {"kc.yaml": kubelet_config(ALPHA)}, "--openshift-version", "4.20"),
                  "policy-option")
    assert len(found) == 1 and found[0][:2] == (13, 7)
    assert 'CPU Manager Policy Alpha-level Options not enabled, but option "align-by-socket" provided' in found[0][2]
    assert "OpenShift 4.20" in found[0][2]


@pytest.mark.parametrize("gate,release", [(feature_gate("DevPreviewNoUpgrade"), "4.23"),
                                          (feature_gate("CustomNoUpgrade", "CPUManagerPolicyAlphaOptions"), "4.20")])
def test_a_feature_gate_in_the_run_enables_alpha_cpu_options(tmp_path: Path, gate: str, release: str) -> None:
    # the cluster FeatureGate (config.openshift.io/v1) decides the kubelet's gates on OpenShift; openshift/api
    # features/zz_generated.upstreamfeaturegates.go enables CPUManagerPolicyAlphaOptions in DevPreviewNoUpgrade
    # only (TechPreviewNoUpgrade, which this test used before, does not: tests/test_fidelity3.py)
    files = {"kc.yaml": kubelet_config(ALPHA), "featuregate.yaml": gate}
    assert where(findings(tmp_path, files, "--openshift-version", release), "policy-option") == []


def test_openshift_custom_feature_set_without_the_gate(tmp_path: Path) -> None:
    files = {"kc.yaml": kubelet_config(ALPHA), "featuregate.yaml": feature_gate("CustomNoUpgrade", "SomethingElse")}
    assert len(where(findings(tmp_path, files, "--openshift-version", "4.20"), "policy-option")) == 1


@pytest.mark.parametrize("release,refused", [("4.20", False), ("4.21", True), ("4.22", True)])
def test_fail_swap_on_is_refused_from_4_21(tmp_path: Path, release: str, refused: bool) -> None:
    # machine-config-operator pkg/controller/kubelet-config/helpers.go validateUserKubeletConfig:
    # "failSwapOn is not allowed to be set" arrives with platform-managed worker swap in 4.21 (this test had it
    # inverted: accepted from 4.21); tests/test_fidelity3.py says where the release comes from
    found = where(findings(tmp_path, {"kc.yaml": kubelet_config("failSwapOn: false\n")}, "--openshift-version",
                           release), "kubeletconfig-unsupported-field")
    assert (len(found) == 1) is refused


@pytest.mark.parametrize("release,refused", [("4.21", True), ("4.22", False)])
def test_written_system_reserved_cgroup_is_cleared_only_from_4_22(tmp_path: Path, release: str,
                                                                  refused: bool) -> None:
    # machine-config-operator kubelet-config controller: clears systemReservedCgroup next to
    # reservedSystemCPUs from 4.22; before, pkg/kubelet/apis/config/validation/validation.go refuses the pair
    body = 'reservedSystemCPUs: "0-1"\nsystemReservedCgroup: /system.slice\n'
    found = where(findings(tmp_path, {"kc.yaml": kubelet_config(body)}, "--openshift-version", release),
                  "reserved-cpus-conflict")
    assert (len(found) == 1) is refused
    if refused:
        assert found[0][:2] == (11, 5) and "only from 4.22" in found[0][2]


SIZED = "memoryManagerPolicy: Static\nreservedMemory:\n  - numaNode: 0\n    limits:\n      memory: {amount}\n"
BIG_TOPOLOGY = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata:
  name: big
spec:
  pool:
    kubeletConfig: workers
  numaNodes:
    - {id: 0, cpus: "0-63", memory: 64Gi}
    - {id: 1, cpus: "64-127", memory: 64Gi}
"""


@pytest.mark.parametrize("release,amount,spec,clean", [
    ("4.20", "1124Mi", "", True),   # static sizing: 1Gi + the 100Mi eviction threshold
    ("4.20", "8292Mi", "", False),
    # from 4.21 node sizing is on by default only on clusters installed at 4.21 or later; upgraded clusters keep
    # it off (machine-config-operator pkg/controller/kubelet-config/kubelet_config_autosizing.go creates
    # 50-<pool>-auto-sizing-disabled with NODE_SIZING_ENABLED=false): either total may be right (an info says
    # which kind of cluster refuses it, see test_advice.py), neither is
    ("4.21", "1124Mi", "", True),
    ("4.21", "8292Mi", "", True),   # node sizing on a 128Gi node: 1Gi + 6% of 120Gi = 8.2 -> 8Gi, + 100Mi
    ("4.21", "2000Mi", "", False),
    # autoSizingReserved says which
    ("4.21", "1124Mi", "  autoSizingReserved: true\n", False),
    ("4.21", "8292Mi", "  autoSizingReserved: false\n", False),
])
def test_openshift_node_sizing_from_4_21(tmp_path: Path, release: str, amount: str, spec: str, clean: bool) -> None:
    # machine-config-operator templates/common/_base/files/kubelet-auto-sizing.yaml
    # (dynamic-system-reserved-calc.sh dynamic_memory_sizing); pkg/kubelet/cm/memorymanager/memory_manager.go
    # validateReservedMemory
    files = {"kc.yaml": kubelet_config(SIZED.format(amount=amount), spec), "topology.yaml": BIG_TOPOLOGY}
    result = run("check", "--format", "json", "--openshift-version", release, str(tmp_path / "kc.yaml"),
                 "--topology", str(write(tmp_path, files) / "topology.yaml"))
    found = [f for f in result.json()["findings"] if f["rule"] == "reserved-memory-mismatch"
             and f["severity"] != "info"]
    assert (found == []) is clean
    if found and "autoSizingReserved: true" in spec:
        assert "8292Mi = systemReserved 8Gi (OpenShift node sizing for 128Gi of memory)" in found[0]["message"]
    if found and not spec and release == "4.21":  # neither total: both are named, and no edit is offered
        assert "1124Mi" in found[0]["message"] and "8292Mi" in found[0]["message"]
        assert found[0]["fix"] is not None and not found[0]["fix"]["edits"]


def test_openshift_node_sizing_without_topology_depends_on_node_size(tmp_path: Path) -> None:
    files = {"kc.yaml": kubelet_config(SIZED.format(amount="2000Mi"))}
    found = where(findings(tmp_path, files, "--openshift-version", "4.21"), "reserved-memory-mismatch")
    assert len(found) == 1 and "depends on the node size" in found[0][2] and "1124Mi" in found[0][2]
    # the static total is right where node sizing is off (upgraded clusters): an info, no error
    files = {"kc.yaml": kubelet_config(SIZED.format(amount="1124Mi"))}
    found = [f for f in findings(tmp_path, files, "--openshift-version", "4.21")
             if f["rule"] == "reserved-memory-mismatch"]
    assert [f["severity"] for f in found] == ["info"], found
    # autoSizingReserved: true sizes it on every cluster
    files = {"kc.yaml": kubelet_config(SIZED.format(amount="1124Mi"), "  autoSizingReserved: true\n")}
    found = where(findings(tmp_path, files, "--openshift-version", "4.21"), "reserved-memory-mismatch")
    assert len(found) == 1 and "depends on the node size" in found[0][2]
    # autoSizingReserved: false keeps the static 1Gi
    files = {"kc.yaml": kubelet_config(SIZED.format(amount="2000Mi"), "  autoSizingReserved: false\n")}
    found = where(findings(tmp_path, files, "--openshift-version", "4.21"), "reserved-memory-mismatch")
    assert len(found) == 1 and "1124Mi" in found[0][2] and "depends" not in found[0][2]


@pytest.mark.parametrize("gib,expected", [(8, 1), (16, 1), (64, 4), (128, 8), (256, 10), (1024, 26)])
def test_dynamic_memory_sizing_formula(gib: int, expected: int) -> None:
    # dynamic-system-reserved-calc.sh: 1 + 6% of (total - 8) up to 120, then 6.72 + 2% of (total - 8 - 112)
    from numalint.views.kubelet import dynamic_system_reserved_memory

    assert dynamic_system_reserved_memory(gib * 2**30) == expected * 2**30


@pytest.mark.parametrize("option,version", [("4.21", "1.34"), ("4.17", "1.30"), ("4.22", "1.35")])
def test_openshift_version_is_an_alias(tmp_path: Path, option: str, version: str) -> None:
    # the same findings as the Kubernetes version the release ships
    files = {"kc.yaml": kubelet_config("failSwapOn: false\n" + ALPHA)}
    assert findings(tmp_path, files, "--openshift-version", option) == findings(
        tmp_path, files, "--kubernetes-version", version)


@pytest.mark.parametrize("args", [["--openshift-version", "4.99"], ["--openshift-version", "3.11"],
                                  ["--openshift-version", "4.21", "--kubernetes-version", "1.34"]])
def test_bad_openshift_versions_are_usage_errors(tmp_path: Path, args: list[str]) -> None:
    write(tmp_path, {"kc.yaml": kubelet_config("failSwapOn: false\n")})
    result = run("check", *args, str(tmp_path))
    assert result.exit_code == 2 and "Traceback" not in result.stderr


# --- item 5: every printed kubelet fix is proven ---------------------------------------------------------

def _fix_of(found: list[dict[str, Any]], rule: str) -> dict[str, Any]:
    fixes = [f["fix"] for f in found if f["rule"] == rule]
    assert len(fixes) == 1, found
    fix: dict[str, Any] = fixes[0]
    return fix


def test_a_case_fix_that_would_not_start_the_kubelet_is_only_a_hint(tmp_path: Path) -> None:
    # pkg/kubelet/cm/cpumanager/cpu_manager.go NewManager: "Static" is an unknown policy, but "static" without
    # reserved CPUs fails too ("unable to determine reserved CPU resources for static policy"): the rename
    # alone brings a new error with no automatic fix, so it is not offered as an edit
    fix = _fix_of(findings(tmp_path, {"kubelet.yaml": HEAD + "cpuManagerPolicy: Static\n"}), "invalid-policy-name")
    assert fix["safety"] == "display" and fix["edits"] == [] and "not offered automatically" in fix["description"]
    fix = _fix_of(findings(tmp_path, {"kubelet.yaml": HEAD + 'cpuManagerPolicy: Static\nreservedSystemCPUs: "0"\n'}),
                  "invalid-policy-name")
    assert fix["safety"] == "safe" and fix["edits"][0]["text"] == "static"


def _policy_variants() -> list[dict[str, str]]:
    """Kubelet configurations with policy names in the wrong case, with and without what they need."""
    from tests.test_fidelity import TOPOLOGY

    out = []
    for cpu in ("Static", "STATIC", "static", "None"):
        for memory in ("static", "STATIC", "None", "none"):
            for topo in ("Single-Numa-Node", "best-effort", "Restricted"):
                for extra in ("", 'reservedSystemCPUs: "0"\n',
                              'reservedSystemCPUs: "0"\nreservedMemory:\n  - numaNode: 0\n    limits:\n'
                              "      memory: 100Mi\n"):
                    body = (f"cpuManagerPolicy: {cpu}\nmemoryManagerPolicy: {memory}\n"
                            f"topologyManagerPolicy: {topo}\n{extra}")
                    out.append({"kubelet.yaml": HEAD + body, "topology.yaml": TOPOLOGY})
    return out


POLICY_VARIANTS = _policy_variants()


KUBELET_RULES = {slug for slug, rule in catalogue().items() if rule.category == "kubelet"}


@pytest.mark.parametrize("index", range(0, len(POLICY_VARIANTS), 3))
def test_policy_name_fixes_are_proven_on_generated_variants(tmp_path: Path, index: int) -> None:
    # every offered edit removes its finding; after fixing (all passes), no kubelet error that was not there
    write(tmp_path, POLICY_VARIANTS[index])
    before = run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
    offered = [f for f in before if f["rule"] in KUBELET_RULES and f["fix"] and f["fix"]["edits"]]
    run("fix", "--unsafe-fixes", str(tmp_path))
    after = run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
    for finding in offered:
        assert not any(f["rule"] == finding["rule"] and (f["line"], f["column"]) == (finding["line"], finding["column"])
                       for f in after), finding
    old = {(f["rule"], f["line"]) for f in before if f["severity"] == "error"}
    new = [f for f in after if f["rule"] in KUBELET_RULES and f["severity"] == "error"
           and (f["rule"], f["line"]) not in old]
    assert new == [], new


def test_the_static_total_with_a_percentage_threshold_is_not_called_zero(tmp_path: Path) -> None:
    """Without a topology and with evictionHard memory.available as a percentage, the static total depends on
    the node as well: the warning names what it is made of, never "0"."""
    body = 'evictionHard: {memory.available: "5%"}\n' + SIZED.format(amount="2000Mi")
    found = where(findings(tmp_path, {"kc.yaml": kubelet_config(body)}, "--openshift-version", "4.21"),
                  "reserved-memory-mismatch")
    assert len(found) == 1 and "must be 0" not in found[0][2]
    assert "the eviction threshold of the node's memory" in found[0][2]
