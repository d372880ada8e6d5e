"""Issue 12: the kubelet's start-up validation, version by version, through the command line.

Each test cites the Go source whose behaviour it pins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from numalint.catalogue import catalogue
from tests.conftest import run, write

HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
TOPOLOGY = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata:
  name: two-numa
spec:
  numaNodes:
    - id: 0
      cpus: "0-7"
      memory: 16Gi
    - id: 1
      cpus: "8-15"
      memory: 16Gi
"""


def check(tmp_path: Path, body: str, *args: str, topology: bool = False) -> list[dict[str, Any]]:
    files = {"kubelet.yaml": HEAD + body}
    if topology:
        files["topology.yaml"] = TOPOLOGY
    write(tmp_path, files)
    result = run("check", "--format", "json", *args, str(tmp_path))
    assert "Traceback" not in result.stderr
    assert result.exit_code in (0, 1), result.output
    findings: list[dict[str, Any]] = result.json()["findings"]
    return findings


def where(findings: list[dict[str, Any]], rule: str) -> list[tuple[int, int, str]]:
    return [(f["line"], f["column"], f["message"]) for f in findings if f["rule"] == rule]


# --- item 1 ----------------------------------------------------------------------------------------

def test_cpu_options_with_policy_none_stop_the_kubelet(tmp_path: Path) -> None:
    # pkg/kubelet/cm/cpumanager/cpu_manager.go NewManager -> policy_none.go NewNonePolicy
    found = where(check(tmp_path, 'cpuManagerPolicyOptions:\n  full-pcpus-only: "true"\n'), "policy-option")
    assert found and found[0][:2] == (3, 1)
    assert "None policy: received unsupported options=map[full-pcpus-only:true]" in found[0][2]


@pytest.mark.parametrize("resource", ["hugepages-2Mi", "nvidia.com/gpu"])
def test_reserving_anything_but_cpu_memory_storage_pid_stops_the_kubelet(tmp_path: Path, resource: str) -> None:
    # cmd/kubelet/app/server.go parseResourceList
    found = where(check(tmp_path, f'systemReserved:\n  memory: 1Gi\n  {resource}: "1"\n'), "kubelet-start")
    assert found == [(5, 3, f'the kubelet refuses to start: cannot reserve "{resource}" resource')]


def test_pid_and_ephemeral_storage_may_be_reserved(tmp_path: Path) -> None:
    # cmd/kubelet/app/server.go parseResourceList: cpu, memory, ephemeral-storage, pid
    found = check(tmp_path, 'kubeReserved:\n  pid: "1000"\n  ephemeral-storage: 1Gi\n')
    assert where(found, "kubelet-start") == []


def test_explain_page_never_advises_reserving_hugepages_in_system_reserved() -> None:
    rule = catalogue()["reserved-memory-mismatch"]
    text = f"{rule.rationale}\n{rule.how_to_fix}"
    assert "cannot reserve" in text and "hugepages" in text
    assert "systemReserved + kubeReserved + the hard-eviction threshold" not in text.replace("\n", " ")


def test_zero_reserved_memory_entries_are_refused(tmp_path: Path) -> None:
    # pkg/kubelet/apis/config/validation/validation_reserved_memory.go validateReservedMemoryConfiguration
    body = "reservedMemory:\n  - numaNode: 0\n    limits:\n      memory: \"0\"\n"
    found = where(check(tmp_path, body), "reserved-memory-numa")
    assert [(line, col) for line, col, _ in found] == [(6, 15)]
    assert 'reserved memory may not be zero for NUMA node 0 and resource "memory"' in found[0][2]


def test_static_memory_manager_nothing_reserved_anywhere(tmp_path: Path) -> None:
    # memory_manager.go validateReservedMemory passes (0 == 0), then policy_static.go NewPolicyStatic
    body = "memoryManagerPolicy: Static\nevictionHard:\n  nodefs.available: 10%\n"
    found = where(check(tmp_path, body), "reserved-memory-mismatch")
    assert len(found) == 1 and "[memorymanager] you should specify the system reserved memory" in found[0][2]


def test_static_memory_manager_nothing_reserved_default_eviction(tmp_path: Path) -> None:
    # memory_manager.go validateReservedMemory runs first: 0 != the default 100Mi eviction threshold
    found = where(check(tmp_path, "memoryManagerPolicy: Static\n"), "reserved-memory-mismatch")
    assert len(found) == 1
    assert 'the total amount "0" of type "memory" is not equal to the value "100Mi"' in found[0][2]


# --- item 2 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("value,words", [
    ('"0"', "eviction threshold memory.available must be positive: 0"),
    ("-1Gi", "eviction threshold memory.available must be positive: -1Gi"),
    ('"-5%"', "eviction percentage threshold memory.available must be >= 0%: -5%"),
    ('"20000%"', "eviction percentage threshold memory.available must be <= 100%: 20000%"),
    ('"abc%"', 'strconv.ParseFloat: parsing "abc": invalid syntax'),
])
def test_eviction_thresholds_the_kubelet_refuses(tmp_path: Path, value: str, words: str) -> None:
    # pkg/kubelet/eviction/helpers.go parseThresholdStatement / parsePercentage
    found = where(check(tmp_path, f"evictionHard:\n  memory.available: {value}\n"), "kubelet-start")
    assert [(line, col) for line, col, _ in found] == [(4, 3)] and words in found[0][2]


@pytest.mark.parametrize("value", ['"0%"', '"100%"', '"5%"', '"100.000001%"'])
def test_eviction_percentages_the_kubelet_accepts(tmp_path: Path, value: str) -> None:
    # parseThresholdStatement ignores exactly "0%" and "100%"; its upper bound compares the float32 fraction
    # with 1 ("100.000001" rounds to the float32 100, so the fraction is exactly 1)
    found = check(tmp_path, f"evictionHard:\n  memory.available: {value}\n")
    assert where(found, "kubelet-start") == []


# --- item 3 ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,ok", [("+1", True), ("0-+3", True), ("0-²", False), ("١", False), ("1_0", False),
                                     (" 1", False), ("3-1", False), ("0,,1", False), ("-1", False)])
def test_reserved_cpus_parse_like_go(tmp_path: Path, text: str, ok: bool) -> None:
    # k8s.io/utils/cpuset Parse (strconv.Atoi per bound); pkg/kubelet/apis/config/validation/validation.go
    found = where(check(tmp_path, f'cpuManagerPolicy: static\nreservedSystemCPUs: "{text}"\n'),
                  "reserved-cpus-invalid")
    assert (found == []) is ok
    if not ok:
        assert found[0][:2] == (4, 21) and "unable to parse reservedSystemCPUs" in found[0][2]


# --- item 4 ----------------------------------------------------------------------------------------

def test_no_reserved_cpus_message_is_the_branch_the_kubelet_takes(tmp_path: Path) -> None:
    # node_container_manager_linux.go GetNodeAllocatableReservation drops zero sums, so
    # cpu_manager.go NewManager says "unable to determine" even for kubeReserved cpu: "0"
    found = where(check(tmp_path, 'cpuManagerPolicy: static\nkubeReserved:\n  cpu: "0"\n'), "no-cpu-reservation")
    assert len(found) == 1 and "unable to determine reserved CPU resources for static policy" in found[0][2]


def test_cpu_policy_options_gate_off(tmp_path: Path) -> None:
    # cmd/kubelet/app/server.go: options need CPUManagerPolicyOptions (beta before 1.33, GA and locked after)
    body = ('cpuManagerPolicy: static\nreservedSystemCPUs: "0"\nfeatureGates:\n  CPUManagerPolicyOptions: false\n'
            'cpuManagerPolicyOptions:\n  full-pcpus-only: "true"\n')
    old = check(tmp_path, body, "--kubernetes-version", "1.32")
    assert any('require feature gates "CPUManager", "CPUManagerPolicyOptions" enabled' in m
               for _, _, m in where(old, "policy-option"))
    new = check(tmp_path, body, "--kubernetes-version", "1.34")
    assert any("cannot set feature gate CPUManagerPolicyOptions to false, feature is locked to true" in m
               for _, _, m in where(new, "kubelet-start"))


def test_merge_default_eviction_settings_before_1_33_is_dropped(tmp_path: Path) -> None:
    # pkg/kubelet/apis/config/v1beta1/defaults.go: mergeDefaultEvictionSettings exists from 1.33; older
    # kubelets drop the unknown field, so evictionHard without memory.available reserves no memory
    body = ("memoryManagerPolicy: Static\nmergeDefaultEvictionSettings: true\nevictionHard:\n"
            "  nodefs.available: 10%\nreservedMemory:\n  - numaNode: 0\n    limits:\n      memory: 100Mi\n")
    assert where(check(tmp_path, body, "--kubernetes-version", "1.34"), "reserved-memory-mismatch") == []
    old = where(check(tmp_path, body, "--kubernetes-version", "1.32"), "reserved-memory-mismatch")
    assert len(old) == 1 and 'the value "0" determined by Node Allocatable' in old[0][2]


@pytest.mark.parametrize("version", ["2.0", "1.9", "1.38", "x"])
def test_unknown_kubernetes_versions_are_usage_errors(tmp_path: Path, version: str) -> None:
    write(tmp_path, {"kubelet.yaml": HEAD})
    result = run("check", "--kubernetes-version", version, str(tmp_path))
    assert result.exit_code == 2 and "Traceback" not in result.stderr


# --- item 8 ----------------------------------------------------------------------------------------

def test_a_correction_never_writes_zero_nor_overfills_a_numa_node(tmp_path: Path) -> None:
    # memory_manager.go validateReservedMemory + validation_reserved_memory.go: a proven fix only
    body = ("memoryManagerPolicy: Static\nsystemReserved:\n  memory: 20Gi\nreservedMemory:\n"
            "  - numaNode: 0\n    limits:\n      memory: 100Mi\n  - numaNode: 1\n    limits:\n      memory: 100Mi\n")
    found = [f for f in check(tmp_path, body, topology=True) if f["rule"] == "reserved-memory-mismatch"]
    assert len(found) == 1
    fix = found[0]["fix"]
    assert fix["safety"] == "display"  # 20Gi + 100Mi fits on no single 16Gi NUMA node
    body = ("memoryManagerPolicy: Static\nsystemReserved:\n  memory: 1Gi\nreservedMemory:\n"
            "  - numaNode: 0\n    limits:\n      memory: 1Gi\n")
    found = [f for f in check(tmp_path, body, topology=True) if f["rule"] == "reserved-memory-mismatch"]
    assert found[0]["fix"]["safety"] == "unsafe" and found[0]["fix"]["edits"][0]["text"] == "1124Mi"


KUBELET_RULES = {slug for slug, rule in catalogue().items() if rule.category == "kubelet"}
BAD = [(slug, i, ex) for slug, rule in sorted(catalogue().items()) for i, ex in enumerate(rule.examples)
       if ex["expect"] == "bad"]


def _variants() -> list[dict[str, str]]:
    """Generated reservedMemory configurations: reservations, entries and hugepages that do and do not add up."""
    out = []
    for reserved in ("1Gi", "1500Mi", "100Mi", "15Gi", "31Gi"):
        for entries in (["512Mi"], ["512Mi", "512Mi"], ["100Mi", "16Gi"], ["1", "2Gi"]):
            for extra in ("", "      hugepages-1Gi: 1Gi\n"):
                body = f"memoryManagerPolicy: Static\nsystemReserved:\n  memory: {reserved}\nreservedMemory:\n"
                for numa, amount in enumerate(entries):
                    body += f"  - numaNode: {numa}\n    limits:\n      memory: {amount}\n" + (extra if numa else "")
                out.append({"kubelet.yaml": HEAD + body, "topology.yaml": TOPOLOGY})
    return out


def _errors(path: Path) -> list[tuple[str, str]]:
    result = run("check", "--format", "json", "--fail-on", "never", str(path))
    return sorted((f["rule"], f["file"]) for f in result.json()["findings"]
                  if f["rule"] in KUBELET_RULES and f["severity"] == "error")


def _fix_is_proven(tmp_path: Path, files: dict[str, str]) -> None:
    write(tmp_path, files)
    before = run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
    fixed = [f for f in before if f["rule"] in KUBELET_RULES and f["fix"] and f["fix"]["edits"]]
    for finding in fixed:  # never a zero, a milli-byte or a value the kubelet cannot read
        for edit in finding["fix"]["edits"]:
            assert edit["text"].strip('"') not in ("0", "") and "m" not in edit["text"].rstrip("Mi"), finding
    run("fix", "--unsafe-fixes", str(tmp_path))
    after = _errors(tmp_path)
    counts_before = {key: sum(1 for f in before if (f["rule"], f["file"]) == key) for key in
                     {(f["rule"], f["file"]) for f in before}}
    for key in set(after):
        assert after.count(key) <= counts_before.get(key, 0), f"new error {key} after fixing"
    for finding in fixed:
        key = (finding["rule"], finding["file"])
        assert after.count(key) < counts_before[key], f"fix did not remove {finding['message']}"


@pytest.mark.parametrize("slug,index,example", BAD, ids=[f"{s}-{i}" for s, i, _ in BAD])
def test_kubelet_fixes_are_proven_on_rule_examples(tmp_path: Path, slug: str, index: int,
                                                   example: dict[str, Any]) -> None:
    # every printed kubelet fix: re-checked in memory before it is offered (item 8 of issue 12)
    if any(name.startswith("state/") for name in example["files"]):
        pytest.skip("node-state examples need --node-state")
    _fix_is_proven(tmp_path, dict(example["files"]))


@pytest.mark.parametrize("index", range(len(_variants())))
def test_kubelet_fixes_are_proven_on_generated_variants(tmp_path: Path, index: int) -> None:
    # memory_manager.go validateReservedMemory; validation_reserved_memory.go (no zero entries)
    _fix_is_proven(tmp_path, _variants()[index])


# --- item 7 ----------------------------------------------------------------------------------------

OPENSHIFT = """\
apiVersion: machineconfiguration.openshift.io/v1
kind: KubeletConfig
metadata:
  name: workers
spec:
  logLevel: {level}
  machineConfigPoolSelector:
    matchLabels:
      pools.operator.machineconfiguration.openshift.io/worker: ""
  kubeletConfig:
    staticPodPath: /etc/kubernetes/manifests
"""


def test_machine_config_operator_refuses_static_pod_path_and_log_level(tmp_path: Path) -> None:
    # machine-config-operator pkg/controller/kubelet-config/helpers.go validateUserKubeletConfig
    write(tmp_path, {"kc.yaml": OPENSHIFT.format(level=11)})
    findings = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    found = sorted((f["line"], f["column"]) for f in findings if f["rule"] == "kubeletconfig-unsupported-field")
    assert found == [(6, 13), (11, 5)]
    write(tmp_path, {"kc.yaml": OPENSHIFT.format(level=4).replace("    staticPodPath: /etc/kubernetes/manifests\n",
                                                                  "    cpuManagerPolicy: none\n")})
    findings = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [f for f in findings if f["rule"] == "kubeletconfig-unsupported-field"] == []
