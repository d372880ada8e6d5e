"""Issue 12, third part: the disagreements an audit against the Go sources found (kubelet start-up
validation, exact quantities, feature gates per version, the machine-config operator release by release);
through the command line. Each test cites the Go source whose behaviour it pins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import findings

HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


def messages(found: list[dict[str, Any]], rule: str) -> list[str]:
    return [f["message"] for f in found if f["rule"] == rule]


def errors(found: list[dict[str, Any]]) -> list[str]:
    return [f"{f['rule']}: {f['message']}" for f in found if f["severity"] == "error"]


# --- rows 1-3: evictionHard percentages are parsed by strconv.ParseFloat(s, 32) -------------------------

@pytest.mark.parametrize("value,refused", [
    ("150%", "eviction percentage threshold memory.available must be <= 100%: 150%"),
    ("100.5%", "eviction percentage threshold memory.available must be <= 100%: 100.5%"),
    # underscores between digits and hexadecimal floats with a p exponent are Go float syntax
    # (src/strconv/atof.go readFloat, src/strconv/atoi.go underscoreOK): 8% and 10% are fine
    ("0x1p3%", None), ("1_0%", None), ("0x_1p3%", None),
    ("1__0%", 'strconv.ParseFloat: parsing "1__0": invalid syntax'),
    ("_10%", 'strconv.ParseFloat: parsing "_10": invalid syntax'),
    ("0x1%", 'strconv.ParseFloat: parsing "0x1": invalid syntax'),  # a hex float needs its p exponent
    # special() accepts a sign only before Inf/Infinity: a signed NaN is a syntax error
    ("-NaN%", 'strconv.ParseFloat: parsing "-NaN": invalid syntax'),
    ("+nan%", 'strconv.ParseFloat: parsing "+nan": invalid syntax'),
    ("+Inf%", "eviction percentage threshold memory.available must be <= 100%: +Inf%"),
])
def test_eviction_percentages_parse_like_go(tmp_path: Path, value: str, refused: str | None) -> None:
    # pkg/kubelet/eviction/helpers.go parseThresholdStatement: percentage (a fraction) > 1 is refused;
    # parsePercentage is strconv.ParseFloat(strings.TrimRight(input, "%"), 32) / 100
    found = findings(tmp_path, {"k.yaml": HEAD + f'evictionHard:\n  memory.available: "{value}"\n'})
    start = messages(found, "kubelet-start")
    if refused is None:
        assert start == [], start
    else:
        assert len(start) == 1 and refused in start[0], start


# --- rows 11-16: the machine-config operator, release by release -------------------------------------

def kubelet_config(body: str, spec: str = "") -> str:
    """An OpenShift KubeletConfig for the worker pool; ``body`` is its spec.kubeletConfig (indented 4)."""
    text = ("apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata:\n  name: workers\n"
            "spec:\n" + spec + "  machineConfigPoolSelector:\n    matchLabels:\n"
            '      pools.operator.machineconfiguration.openshift.io/worker: ""\n')
    if body:
        text += "  kubeletConfig:\n" + "".join("    " + line + "\n" for line in body.splitlines())
    return text


def unsupported(tmp_path: Path, text: str, release: str) -> list[str]:
    return messages(findings(tmp_path, {"kc.yaml": text}, "--openshift-version", release),
                    "kubeletconfig-unsupported-field")


@pytest.mark.parametrize("release,refused", [("4.17", False), ("4.20", False), ("4.21", True), ("4.24", True)])
def test_fail_swap_on_and_swap_behavior_are_refused_from_4_21(tmp_path: Path, release: str, refused: bool) -> None:
    # machine-config-operator pkg/controller/kubelet-config/helpers.go validateUserKubeletConfig:
    # `kcDecoded.FailSwapOn != nil` and `kcDecoded.MemorySwap.SwapBehavior != ""`, both arriving with
    # platform-managed worker swap (kubelet_config_failswapon_test.go); the version that added the
    # autoSizingReserved check has neither. The release is read from outside the Go code (no branch of
    # machine-config-operator was readable): machine-config-operator PR 5294 (approved October 2025, the 4.21
    # development branch) and openshift-docs PR 102957 ("4.21 Remove swap feature from docs"). One CNV document
    # (openshift-docs PR 104592) speaks of "OCP 4.22 breaking changes" for swap: if 4.22 proves right, change
    # OPENSHIFT_REFUSED_SINCE and this test together.
    assert (len(unsupported(tmp_path, kubelet_config("failSwapOn: true\n"), release)) == 1) is refused
    swap = kubelet_config("memorySwap:\n  swapBehavior: LimitedSwap\n")
    assert (len(unsupported(tmp_path, swap, release)) == 1) is refused


@pytest.mark.parametrize("release", ["4.20", "4.21", "4.22"])
def test_an_empty_swap_behavior_is_go_zero(tmp_path: Path, release: str) -> None:
    # validateUserKubeletConfig compares SwapBehavior with "" (an empty string passes); staticPodPath likewise
    body = 'memorySwap:\n  swapBehavior: ""\nstaticPodPath: ""\n'
    assert unsupported(tmp_path, kubelet_config(body), release) == []


@pytest.mark.parametrize("spec,body", [("  logLevel: 0\n", ""), ("  logLevel: 11\n", "maxPods: 100\n")])
def test_log_level_is_checked_even_without_kubelet_config(tmp_path: Path, spec: str, body: str) -> None:
    # validateUserKubeletConfig checks cfg.Spec.LogLevel before `if cfg.Spec.KubeletConfig == nil ... return nil`
    found = unsupported(tmp_path, kubelet_config(body, spec), "4.21")
    assert len(found) == 1 and "LogLevel is not valid [1,10]" in found[0]


@pytest.mark.parametrize("release", ["4.17", "4.22"])
def test_runtime_request_timeout_is_accepted(tmp_path: Path, release: str) -> None:
    # validateUserKubeletConfig has no runtimeRequestTimeout check in any release numalint models: it is gone
    # already from the version that added the autoSizingReserved check (older than 4.17)
    assert unsupported(tmp_path, kubelet_config("runtimeRequestTimeout: 5m\n"), release) == []


@pytest.mark.parametrize("release,refused", [("4.21", False), ("4.22", True)])
def test_system_reserved_cgroup_must_match_system_cgroups_from_4_22(tmp_path: Path, release: str,
                                                                     refused: bool) -> None:
    # machine-config-operator pkg/controller/kubelet-config/helpers.go validateUserKubeletConfig:
    # "systemReservedCgroup (%s) must match systemCgroups (%s)" when both are non-empty, added with
    # system-reserved-compressible by default (machine-config-operator PR 5408, merged on the 4.22 development
    # branch)
    body = "systemReservedCgroup: /system.slice\nsystemCgroups: /other.slice\n"
    found = unsupported(tmp_path, kubelet_config(body), release)
    assert (found == ["systemReservedCgroup (/system.slice) must match systemCgroups (/other.slice); the "
                      "machine-config operator rejects the whole KubeletConfig"]) is refused, found
    assert unsupported(tmp_path, kubelet_config("systemReservedCgroup: /system.slice\nsystemCgroups: /system.slice\n"),
                       release) == []


ALPHA = 'cpuManagerPolicy: static\nreservedSystemCPUs: "0-1"\ncpuManagerPolicyOptions:\n  align-by-socket: "true"\n'


def feature_gate(feature_set: str) -> str:
    return ("apiVersion: config.openshift.io/v1\nkind: FeatureGate\nmetadata:\n  name: cluster\nspec:\n"
            f"  featureSet: {feature_set}\n")


@pytest.mark.parametrize("feature_set,release,refused", [
    ("TechPreviewNoUpgrade", "4.23", True), ("DevPreviewNoUpgrade", "4.23", False), ("Default", "4.23", True),
    # no earlier openshift/api feature set names CPUManagerPolicyAlphaOptions: only CustomNoUpgrade enables it
    ("TechPreviewNoUpgrade", "4.21", True), ("DevPreviewNoUpgrade", "4.22", True),
])
def test_only_dev_preview_enables_alpha_cpu_options(tmp_path: Path, feature_set: str, release: str,
                                                    refused: bool) -> None:
    # openshift/api features/zz_generated.upstreamfeaturegates.go (the release shipping Kubernetes 1.36: it lists
    # 1.36's DRAListTypeAttributes): FeatureGateCPUManagerPolicyAlphaOptions is enable(inDevPreviewNoUpgrade())
    # only; pkg/kubelet/cm/cpumanager/policy_options.go then refuses align-by-socket without it. The earlier
    # releases are a reading of absence (no openshift/api feature set found naming the gate), pinned here.
    files = {"kc.yaml": kubelet_config(ALPHA), "featuregate.yaml": feature_gate(feature_set)}
    found = messages(findings(tmp_path, files, "--openshift-version", release), "policy-option")
    assert (len(found) == 1) is refused, found


# --- row 5: an empty option map with its gate off -------------------------------------------------------

@pytest.mark.parametrize("body,words", [
    ('cpuManagerPolicy: static\nreservedSystemCPUs: "0"\ncpuManagerPolicyOptions: {}\n'
     "featureGates: {CPUManagerPolicyOptions: false}\n",
     'CPU Manager policy options map[] require feature gates "CPUManager", "CPUManagerPolicyOptions" enabled'),
    ("topologyManagerPolicy: best-effort\ntopologyManagerPolicyOptions: {}\n"
     "featureGates: {TopologyManagerPolicyOptions: false}\n",
     'topology manager policy options map[] require feature gates "TopologyManagerPolicyOptions" enabled'),
])
def test_an_empty_option_map_with_its_gate_off_stops_the_kubelet(tmp_path: Path, body: str, words: str) -> None:
    # cmd/kubelet/app/server.go run(): `else if s.CPUManagerPolicyOptions != nil` (and the topology twin)
    # returns the error; a decoded `{}` is a non-nil map. 1.30: both gates exist and are not locked yet.
    found = findings(tmp_path, {"k.yaml": HEAD + body}, "--kubernetes-version", "1.30")
    assert any(words in m for m in messages(found, "policy-option")), found


def test_a_null_option_map_is_nil(tmp_path: Path) -> None:
    # `cpuManagerPolicyOptions: null` decodes to a nil map: server.go's `!= nil` is false
    body = "cpuManagerPolicyOptions: null\nfeatureGates: {CPUManagerPolicyOptions: false}\n"
    found = findings(tmp_path, {"k.yaml": HEAD + body}, "--kubernetes-version", "1.30")
    assert messages(found, "policy-option") == []


# --- row 6: a misspelt feature gate -------------------------------------------------------------------

@pytest.mark.parametrize("gate,meant", [("CPUManagerPolicyAlphaOptionz", "CPUManagerPolicyAlphaOptions"),
                                        ("cpumanagerpolicyoptions", "CPUManagerPolicyOptions"),
                                        ("TopologyManagerPolicyBetaOption", "TopologyManagerPolicyBetaOptions")])
def test_a_misspelt_feature_gate_stops_the_kubelet(tmp_path: Path, gate: str, meant: str) -> None:
    # k8s.io/component-base/featuregate feature_gate.go SetFromMap: "unrecognized feature gate: %s" (names are
    # matched exactly, case included)
    found = messages(findings(tmp_path, {"k.yaml": HEAD + f"featureGates:\n  {gate}: true\n"}), "kubelet-start")
    assert found == [f'the kubelet refuses to start: unrecognized feature gate: {gate} (did you mean "{meant}"?)']


# GA gates removed from pkg/features/kube_features.go: TopologyManager by kubernetes#121252 (1.29; 1.27 and 1.28
# register it locked, "GA in 1.27; remove in 1.29"), CPUManager by kubernetes#129296 (1.33; locked since its GA in
# 1.26), MemoryManager by kubernetes#136381 (1.36; locked since its GA in 1.32). SPEC.md's version table gives
# their stage, not when the name went: these tests pin that reading (found by a precision review: configurations
# and guides still write TopologyManager: true).
@pytest.mark.parametrize("gate,version,said", [
    ("TopologyManager", "1.28", None),
    ("TopologyManager", "1.29", "unrecognized feature gate: TopologyManager (a gate removed in Kubernetes 1.29: the "
                                "feature is always on)"),
    ("CPUManager", "1.32", None),
    ("MemoryManager", "1.35", None),
    ("MemoryManager", "1.36", "unrecognized feature gate: MemoryManager (a gate removed in Kubernetes 1.36: the "
                              "feature is always on)"),
    ("CPUManager", "1.33", "unrecognized feature gate: CPUManager (a gate removed in Kubernetes 1.33: the feature is "
                           "always on)"),
    ("TopologyManagr", "1.28", 'unrecognized feature gate: TopologyManagr (did you mean "TopologyManager"?)'),
    ("TopologyManagr", "1.37", "unrecognized feature gate: TopologyManagr (it misspells TopologyManager, a gate "
                               "removed in Kubernetes 1.29: the feature is always on)"),
])
def test_a_removed_feature_gate_stops_the_kubelet(tmp_path: Path, gate: str, version: str, said: str | None) -> None:
    # k8s.io/component-base/featuregate SetFromMap: a name its version does not register, true or false alike
    found = [f for f in findings(tmp_path, {"k.yaml": HEAD + f"featureGates:\n  {gate}: true\n"},
                                 "--kubernetes-version", version) if f["rule"] == "kubelet-start"]
    assert [f["message"] for f in found] == ([f"the kubelet refuses to start: {said}"]
                                             if said else []), found
    if said and "removed" in said:
        assert found[0]["fix"]["description"] == f"remove {gate} from featureGates"


KIND = """\
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
featureGates: {TopologyManager: true}
kubeadmConfigPatches:
- |
  kind: KubeletConfiguration
  cpuManagerPolicy: static
  reservedSystemCPUs: "0"
nodes:
- role: control-plane
  image: IMAGE
- role: worker
  image: IMAGE
"""
KUBEADM = """\
apiVersion: kubeadm.k8s.io/v1beta3
kind: ClusterConfiguration
kubernetesVersion: VERSION
---
apiVersion: kubeadm.k8s.io/v1beta3
kind: JoinConfiguration
nodeRegistration:
  kubeletExtraArgs: {feature-gates: "TopologyManager=true"}
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "0"
"""


@pytest.mark.parametrize("text,refused", [
    (KIND.replace("IMAGE", "kindest/node:v1.27.3@sha256:9b5ff23b"), False),
    (KIND.replace("IMAGE", "kindest/node:v1.30.0"), True),
    (KIND.replace("  image: IMAGE\n", "", 1).replace("IMAGE", "kindest/node:v1.27.3"), True),  # a node of kind's own
    (KUBEADM.replace("VERSION", "v1.28.4"), False),
    (KUBEADM.replace("VERSION", '"v1.29.0"'), True),
    (KUBEADM.replace("VERSION", "stable"), True),
    # read as YAML, not by line: a flow mapping, an anchored value, a decoy inside a quoted string
    (KUBEADM.replace("kind: ClusterConfiguration\nkubernetesVersion: VERSION\n",
                     "kind: ClusterConfiguration\nkubernetesVersion: &v v1.27.0\n"), False),
    (KUBEADM.replace("apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\nkubernetesVersion: VERSION\n",
                     "{apiVersion: kubeadm.k8s.io/v1beta3, kind: ClusterConfiguration, kubernetesVersion: v1.27.0}\n"),
     False),
    (KUBEADM.replace("kubernetesVersion: VERSION\n", 'clusterName: "a\n  kubernetesVersion: v1.27.0"\n'
                     "kubernetesVersion: v1.30.0\n"), True),
])
def test_a_removed_gate_is_judged_at_the_version_the_file_pins(tmp_path: Path, text: str, refused: bool) -> None:
    """A kind cluster whose nodes all run one kindest/node image, or a kubeadm file whose ClusterConfiguration says
    its kubernetesVersion, runs that version's kubelet whatever the run's target: TopologyManager was still a gate
    in 1.27 and 1.28 (a precision review found such files reported at the default target, 1.37)."""
    found = [f for f in findings(tmp_path, {"c.yaml": text}) if f["rule"] == "kubelet-start"]
    assert any("unrecognized feature gate: TopologyManager" in f["message"] for f in found) is refused, found
    if refused and text.startswith("apiVersion: kubeadm"):  # written in kubeletExtraArgs: the flag is named
        assert found[0]["fix"]["description"] == "remove TopologyManager from the kubelet's --feature-gates flag"


@pytest.mark.parametrize("gate,version,locked", [
    ("CPUManager", "1.26", True), ("TopologyManager", "1.26", False), ("TopologyManager", "1.27", True),
    ("MemoryManager", "1.31", False), ("MemoryManager", "1.32", True), ("MemoryManager", "1.35", True),
    # GA in 1.32 without LockToDefault until kubernetes#136380 (1.36): SPEC.md says "always on since 1.32"
    ("TopologyManagerPolicyOptions", "1.33", False), ("TopologyManagerPolicyOptions", "1.36", True)])
def test_a_ga_feature_gate_set_false_stops_the_kubelet(tmp_path: Path, gate: str, version: str, locked: bool) -> None:
    # featuregate Set: a gate registered with LockToDefault refuses another value (MemoryManager: GA and locked in
    # 1.32, pkg/features/versioned_kube_features.go)
    found = [f for f in findings(tmp_path, {"k.yaml": HEAD + f"featureGates:\n  {gate}: false\n"},
                                 "--kubernetes-version", version) if f["rule"] == "kubelet-start"]
    words = f"cannot set feature gate {gate} to false, feature is locked to true"
    assert [words in f["message"] for f in found] == ([True] if locked else []), found
    if locked:
        assert found[0]["fix"]["description"] == f"remove {gate}: false from featureGates (the feature is always on)"


@pytest.mark.parametrize("gate", ["InPlacePodVerticalScaling", "MemoryQoS", "KubeletPSI", "CPUManagerPolicyOptions"])
def test_real_gates_numalint_does_not_read_are_not_reported(tmp_path: Path, gate: str) -> None:
    # numalint has no complete gate list per version: only near misses of the gates it reads are reported
    found = findings(tmp_path, {"k.yaml": HEAD + f"featureGates:\n  {gate}: true\n"})
    assert not any("unrecognized feature gate" in m for m in messages(found, "kubelet-start"))


# --- row 4: reservedSystemCPUs overwrites the cpu reservations before they are parsed ----------------------

@pytest.mark.parametrize("reserved", ['kubeReserved: {cpu: "bogus"}', 'systemReserved: {cpu: "-1"}'])
def test_reserved_cpus_overwrite_cpu_before_parse_resource_list(tmp_path: Path, reserved: str) -> None:
    # cmd/kubelet/app/server.go run(): with a non-empty reservedSystemCPUs it deletes KubeReserved["cpu"] and
    # sets SystemReserved["cpu"] before parseResourceList, so the written cpu values are never parsed
    body = f'cpuManagerPolicy: static\nreservedSystemCPUs: "0,1"\n{reserved}\n'
    assert messages(findings(tmp_path, {"k.yaml": HEAD + body}), "kubelet-start") == []


def test_without_reserved_cpus_the_cpu_reservation_is_parsed(tmp_path: Path) -> None:
    # the same parseResourceList refuses the value when reservedSystemCPUs does not overwrite it
    found = messages(findings(tmp_path, {"k.yaml": HEAD + 'kubeReserved: {cpu: "bogus"}\n'}), "kubelet-start")
    assert len(found) == 1 and 'failed to parse quantity "bogus" for "cpu" resource' in found[0]


# --- rows 7/8: reservedMemory compared as exact quantities -----------------------------------------------

TOPOLOGY = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata:
  name: workers
spec:
  pool:
    kubeletConfig: k
  numaNodes:
    - {id: 0, cpus: "0-7", memory: 64Gi}
    - {id: 1, cpus: "8-15", memory: 64Gi}
"""


def test_milli_bytes_are_not_zero(tmp_path: Path) -> None:
    # pkg/kubelet/apis/config/validation/validation_reserved_memory.go validateReservedMemoryConfiguration:
    # q.IsZero() is false for 100m; memory_manager.go validateReservedMemory then compares the exact sum
    body = ("memoryManagerPolicy: Static\nsystemReserved: {memory: 1Gi}\nreservedMemory:\n"
            "  - {numaNode: 0, limits: {memory: 1124Mi}}\n  - {numaNode: 1, limits: {memory: 100m}}\n")
    found = findings(tmp_path, {"k.yaml": HEAD + body, "t.yaml": TOPOLOGY})
    assert not any("may not be zero" in m for m in errors(found))
    mismatch = messages(found, "reserved-memory-mismatch")
    assert len(mismatch) == 1 and 'the total amount "1178599424100m" of type "memory" is not equal to the value ' \
        '"1124Mi"' in mismatch[0]


@pytest.mark.parametrize("reserved,words", [
    # the sums differ by half a byte: validateReservedMemory's Quantity.Equal sees it
    ('"1178599424"', 'the total amount "1124Mi" of type "memory" is not equal to the value "1178599424500m"'),
    # the sums agree, then convertReserved (memory_manager.go) fails on q.AsInt64()
    ('"1178599424.5"', "could not covert a variable of type Quantity to int64"),
])
def test_fractional_bytes_compare_exactly(tmp_path: Path, reserved: str, words: str) -> None:
    body = (f'memoryManagerPolicy: Static\nsystemReserved: {{memory: "1073741824.5"}}\nreservedMemory:\n'
            f"  - {{numaNode: 0, limits: {{memory: {reserved}}}}}\n")
    found = errors(findings(tmp_path, {"k.yaml": HEAD + body, "t.yaml": TOPOLOGY}))
    assert any(words in m for m in found), found


# --- lower severity: one finding where validation stops the kubelet first ------------------------------

@pytest.mark.parametrize("text", ["0, 1", "1-0", "0-1,"])
def test_a_malformed_reserved_cpu_list_is_one_finding(tmp_path: Path, text: str) -> None:
    # pkg/kubelet/apis/config/validation/validation.go: "unable to parse reservedSystemCPUs" stops the kubelet
    # before cpumanager.NewManager could miss a reservation
    found = errors(findings(tmp_path, {"k.yaml": HEAD + f'cpuManagerPolicy: static\nreservedSystemCPUs: "{text}"\n'}))
    assert len(found) == 1 and found[0].startswith("reserved-cpus-invalid"), found


def test_a_zero_reserved_memory_entry_is_one_finding(tmp_path: Path) -> None:
    # validateReservedMemoryConfiguration refuses the zero before NewPolicyStatic could ask for reserved memory
    body = 'memoryManagerPolicy: Static\nreservedMemory:\n  - {numaNode: 0, limits: {memory: "0"}}\n'
    found = errors(findings(tmp_path, {"k.yaml": HEAD + body}))
    assert len(found) == 1 and "reserved memory may not be zero for NUMA node 0" in found[0], found


def test_a_negative_reserved_memory_limit_is_not_a_kubelet_refusal(tmp_path: Path) -> None:
    # validateReservedMemoryConfiguration checks zero, type and duplicates only: no kubelet message to quote;
    # convertReserved stores uint64(q.AsInt64())
    body = ("memoryManagerPolicy: Static\nsystemReserved: {memory: 1Gi}\nreservedMemory:\n"
            '  - {numaNode: 0, limits: {memory: "-1Gi"}}\n  - {numaNode: 1, limits: {memory: 2148Mi}}\n')
    found = messages(findings(tmp_path, {"k.yaml": HEAD + body}), "reserved-memory-numa")
    assert len(found) == 1 and "does not refuse it" in found[0] and "unsigned 64-bit" in found[0], found


# --- row 9: the hint for a zero Node Allocatable memory reservation works ----------------------------------

def test_zero_allocatable_memory_hint_leads_to_a_clean_configuration(tmp_path: Path) -> None:
    # parseThresholdStatement ignores "0%", so systemReserved + kubeReserved + eviction is 0 while reservedMemory
    # holds 100Mi (memory_manager.go validateReservedMemory). Removing the entries would bring NewPolicyStatic's
    # "you should specify the system reserved memory"; reserving the memory in systemReserved works.
    body = ('memoryManagerPolicy: Static\nevictionHard: {memory.available: "0%"}\n'
            "reservedMemory:\n  - {numaNode: 0, limits: {memory: 100Mi}}\n")
    found = [f for f in findings(tmp_path, {"k.yaml": HEAD + body, "t.yaml": TOPOLOGY})
             if f["rule"] == "reserved-memory-mismatch"]
    assert len(found) == 1
    hint = found[0]["fix"]["description"]
    assert "set systemReserved: {memory: 100Mi}" in hint and "remove memory" not in hint
    fixed = HEAD + body + "systemReserved: {memory: 100Mi}\n"
    assert errors(findings(tmp_path, {"k.yaml": fixed, "t.yaml": TOPOLOGY})) == []


# --- row 10: pod-level resources follow the version's PodLevelResources gate -----------------------------

KUBELET_SNN = ('cpuManagerPolicy: static\nreservedSystemCPUs: "0"\nmemoryManagerPolicy: Static\n'
               "topologyManagerPolicy: single-numa-node\nsystemReserved: {memory: 1Gi}\n"
               "reservedMemory:\n  - {numaNode: 0, limits: {memory: 1124Mi}}\n")
BIG_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  resources:
    limits: {cpu: "12", memory: 2Gi}
  containers:
  - name: c
    image: x
    resources:
      limits: {cpu: "12", memory: 2Gi}
"""


@pytest.mark.parametrize("version,rejected", [("1.33", True), ("1.34", False)])
def test_pod_level_resources_follow_the_gate_of_the_version(tmp_path: Path, version: str, rejected: bool) -> None:
    # pkg/features/kube_features.go PodLevelResources: 1.32 alpha default false, 1.34 beta default true. While it
    # is off the API server drops spec.resources (pkg/api/pod/util.go dropDisabledFields), so the Guaranteed
    # container asks for 12 exclusive CPUs on one 8-CPU NUMA node: single-numa-node rejects it. From 1.34 the
    # static policy skips a pod with pod-level resources (policy_static.go IsPodLevelResourcesSet).
    files = {"k.yaml": HEAD + KUBELET_SNN, "t.yaml": TOPOLOGY, "pod.yaml": BIG_POD}
    found = findings(tmp_path, files, "--kubernetes-version", version)
    assert bool(messages(found, "admission-failure")) is rejected, found


BETA = ('cpuManagerPolicy: static\nreservedSystemCPUs: "0-1"\ncpuManagerPolicyOptions:\n'
        '  distribute-cpus-across-numa: "true"\n')


@pytest.mark.parametrize("feature_set,release,refused", [
    (None, "4.22", False), (None, "4.23", True), ("Default", "4.23", True),
    ("TechPreviewNoUpgrade", "4.23", False), ("DevPreviewNoUpgrade", "4.23", False),
])
def test_openshift_default_set_turns_beta_cpu_options_off_from_4_23(tmp_path: Path, feature_set: str | None,
                                                                    release: str, refused: bool) -> None:
    # openshift/api features/zz_generated.upstreamfeaturegates.go registers CPUManagerPolicyBetaOptions with
    # enable(inTechPreviewNoUpgrade(), inDevPreviewNoUpgrade()); machine-config-operator kubelet_config_features.go
    # generateFeatureMap renders every known gate, `rv[feat] = false` when not enabled, so the Default set gives
    # the kubelet CPUManagerPolicyBetaOptions: false and the beta option distribute-cpus-across-numa stops it
    # (policy_options.go). Before the release with that file the kubelet's default (true) applies.
    files = {"kc.yaml": kubelet_config(BETA)}
    if feature_set is not None:
        files["featuregate.yaml"] = feature_gate(feature_set)
    found = messages(findings(tmp_path, files, "--openshift-version", release), "policy-option")
    assert (len(found) == 1) is refused, found
    if refused:
        assert 'Beta-level Options not enabled, but option "distribute-cpus-across-numa" provided' in found[0]
