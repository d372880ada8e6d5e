"""Fixes that are proven (issue 12): every fix offered as automatic on a kubelet configuration removes its finding
and brings no new error, over every bad example of the catalogue and over generated kubelet configurations;
a fix the kubelet would refuse is shown as a hint and never written. Through the command line."""

from __future__ import annotations

import random
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from numalint.catalogue import catalogue
from numalint.k8s.quantity import try_quantity
from tests.conftest import run, write

KUBELET_KINDS = {"KubeletConfiguration", "KubeletConfig", "PerformanceProfile"}
MEMORY_RULES = {"reserved-memory-mismatch", "reserved-memory-numa"}
FRACTION = re.compile(r'"?[+-]?(?:[0-9]*\.[0-9]+|[0-9]+m)"?')  # 0.5 or 1500m: thousandths once quoted


def _findings(path: Path) -> list[dict[str, Any]]:
    result = run("check", "--format", "json", "--fail-on", "never", str(path))
    assert "Traceback" not in result.stderr, result.stderr
    findings: list[dict[str, Any]] = result.json()["findings"]
    return findings


def _on_kubelet_config(finding: dict[str, Any]) -> bool:
    return (finding.get("object") or {}).get("kind") in KUBELET_KINDS


def _offered(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in findings if _on_kubelet_config(f) and f["fix"] and f["fix"]["edits"]]


def _written(tmp_path: Path, finding: dict[str, Any], edit: dict[str, Any]) -> str | None:
    """The text an edit replaces, when it sits on one line."""
    if edit["line"] != edit["end_line"]:
        return None
    lines = (tmp_path / finding["file"]).read_text().split("\n") if not Path(finding["file"]).is_absolute() else \
        Path(finding["file"]).read_text().split("\n")
    return lines[edit["line"] - 1][edit["column"] - 1:edit["end_column"] - 1]


def _assert_fixes_hold(tmp_path: Path, files: dict[str, str], numa_memory: int | None = None) -> None:
    """fix --unsafe-fixes on a copy, then check: each automatic kubelet fix's finding is gone, no error is new."""
    write(tmp_path, files)
    before = _findings(tmp_path)
    offered = _offered(before)
    for finding in offered:
        for edit in finding["fix"]["edits"]:
            text = edit["text"]
            # a fraction is written only as the author wrote it, quoted (a CPU quantity "0.5" is 500m CPU)
            assert not FRACTION.fullmatch(text) or text.strip('"') == _written(tmp_path, finding, edit), \
                f"a fraction or milli-value written: {finding}"
            if finding["rule"] in MEMORY_RULES:  # validateReservedMemoryConfiguration: never zero, whole bytes
                amount = try_quantity(text.strip('"'))
                assert amount is not None and amount > 0 and Fraction(amount).denominator == 1, finding
                if numa_memory is not None:  # getTotalMemoryTypeReserved: only onto a node that has it
                    assert amount <= numa_memory, finding
    result = run("fix", "--unsafe-fixes", str(tmp_path))
    assert "Traceback" not in result.stderr, result.stderr
    after = _findings(tmp_path)
    at = Counter((f["rule"], f["file"], f["line"], f["column"]) for f in after)
    was = Counter((f["rule"], f["file"], f["line"], f["column"]) for f in before)
    for finding in offered:
        key = (finding["rule"], finding["file"], finding["line"], finding["column"])
        assert at[key] < was[key], f"an automatic fix left its finding: {finding['message']} ({finding['fix']})"
    old = Counter((f["rule"], f["file"], f["line"]) for f in before if f["severity"] == "error")
    new = Counter((f["rule"], f["file"], f["line"]) for f in after if f["severity"] == "error") - old
    assert not new, f"fixing brought new errors: {[f for f in after if (f['rule'], f['file'], f['line']) in new]}"
    duplicates = [f for f in after if f["message"].startswith("duplicate field")]
    assert len(duplicates) <= sum(1 for f in before if f["message"].startswith("duplicate field")), duplicates


BAD = [(slug, i, ex) for slug, rule in sorted(catalogue().items()) for i, ex in enumerate(rule.examples)
       if ex["expect"] == "bad" and not any(name.startswith("state/") for name in ex["files"])]


@pytest.mark.parametrize("slug,index,example", BAD, ids=[f"{s}-{i}" for s, i, _ in BAD])
def test_fixes_hold_on_every_bad_example(tmp_path: Path, slug: str, index: int, example: dict[str, Any]) -> None:
    _assert_fixes_hold(tmp_path, dict(example["files"]))


# --- generated kubelet configurations ---------------------------------------------------------------------

GIB = 1 << 30
CPU_LISTS = ("0", '"0"', '"0-1"', '"0-63"', '"x"')
QUOTED_TRUE, QUOTED_110 = '"true"', '"110"'
SWAP = ('"false"', "false", '"False"')
MIB = 1 << 20


def _topology(numa: int, memory_gib: int) -> str:
    nodes = "".join(f'    - id: {n}\n      cpus: "{n * 4}-{n * 4 + 3}"\n      memory: {memory_gib}Gi\n'
                    for n in range(numa))
    return f"apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata:\n  name: gen\nspec:\n  numaNodes:\n{nodes}"


def _variant(seed: int) -> tuple[dict[str, str], int | None]:
    """One kubelet configuration from ``seed``: misspelt keys, wrong scalar types, wrong-case policy names,
    reservedMemory off by various amounts on 1-4 NUMA nodes, with or without a topology."""
    rng = random.Random(seed)
    numa = rng.randint(1, 4)
    memory_gib = rng.choice((4, 16))
    lines: list[str] = []
    cpu_key = rng.choice(("cpuManagerPolicy", "cpuManagerPolicy", "cpuManagerPolicyy", "CPUManagerPolicy"))
    lines.append(f"{cpu_key}: {rng.choice(('static', 'Static', 'STATIC', 'none', 'static'))}")
    cpus_key = rng.choice(("reservedSystemCPUs", "reservedSystemCpus", "reservedSystemCPU", None))
    if cpus_key:
        lines.append(f"{cpus_key}: {rng.choice(CPU_LISTS)}")
    if rng.random() < 0.3:
        lines.append("systemReservedCgroup: /system.slice")
    topo_key = rng.choice(("topologyManagerPolicy", "topologyManagerPolicys", "topologyManagerPolicy"))
    lines.append(f"{topo_key}: {rng.choice(('single-numa-node', 'Single-Numa-Node', 'restricted', 'best-effort'))}")
    if rng.random() < 0.5:
        lines.append(f"cpuManagerPolicyOptions:\n  full-pcpus-only: {rng.choice(('true', QUOTED_TRUE))}")
    if rng.random() < 0.3:
        lines.append(f"failSwapOn: {rng.choice(SWAP)}")
    if rng.random() < 0.3:
        lines.append(f"maxPods: {rng.choice(('110', QUOTED_110))}")
    memory_key = rng.choice(("memoryManagerPolicy", "memoryManagerPolicy", "memoryManagerPolcy"))
    lines.append(f"{memory_key}: {rng.choice(('Static', 'static', 'None'))}")
    reserved = rng.choice((100 * MIB, GIB, 1500 * MIB, 3 * GIB))
    lines.append(f"systemReserved:\n  memory: {reserved // MIB}Mi")
    if rng.random() < 0.8:
        entries = rng.randint(1, numa)
        off = rng.choice((0, 100 * MIB, -100 * MIB, -reserved, GIB, 20 * GIB, 1))
        split = [reserved // entries] * entries
        split[0] += reserved - sum(split) + off + 100 * MIB  # + the default evictionHard memory.available
        lines.append("reservedMemory:")
        for node, amount in enumerate(split):
            value = f"{amount // MIB}Mi" if amount % MIB == 0 else str(amount)
            lines.append(f"  - numaNode: {node}\n    limits:\n      memory: {value}")
    body = "\n".join(lines) + "\n"
    files: dict[str, str]
    if rng.random() < 0.3:  # the same settings in an OpenShift KubeletConfig
        nested = "".join(f"    {line}\n" for line in body.splitlines())
        files = {"kc.yaml": "apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata:\n"
                 "  name: gen\nspec:\n  machineConfigPoolSelector:\n    matchLabels:\n"
                 f'      pools.operator.machineconfiguration.openshift.io/worker: ""\n  kubeletConfig:\n{nested}'}
    else:
        files = {"kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n" + body}
    with_topology = rng.random() < 0.7
    if with_topology:
        files["topology.yaml"] = _topology(numa, memory_gib)
    return files, memory_gib * GIB if with_topology else None


@pytest.mark.parametrize("seed", range(80))
def test_fixes_hold_on_generated_kubelet_configurations(tmp_path: Path, seed: int) -> None:
    files, numa_memory = _variant(seed)
    _assert_fixes_hold(tmp_path, files, numa_memory)


def test_the_generator_makes_fixes_of_every_kind() -> None:
    # the property above must not hold vacuously: the variants offer renames, retypes, case fixes and
    # reservedMemory corrections, and some of each are refused
    import tempfile

    offered: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    for seed in range(80):
        with tempfile.TemporaryDirectory() as directory:
            write(Path(directory), _variant(seed)[0])
            for finding in _findings(Path(directory)):
                fix = finding["fix"] or {}
                if fix.get("edits"):
                    offered[finding["rule"]] += 1
                elif "not offered automatically" in fix.get("description", ""):
                    refused[finding["rule"]] += 1
    for rule in ("unknown-field", "schema", "invalid-policy-name", "reserved-memory-mismatch"):
        assert offered[rule] > 0, (rule, offered)
    assert sum(refused.values()) > 0 and refused["unknown-field"] > 0, refused


# --- fixes that are refused: a hint, and `fix` leaves the file alone ----------------------------------------

HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


def _refused(tmp_path: Path, files: dict[str, str], rule: str) -> dict[str, Any]:
    write(tmp_path, files)
    found = [f for f in _findings(tmp_path) if f["rule"] == rule]
    assert len(found) == 1, found
    fix: dict[str, Any] = found[0]["fix"]
    assert fix["safety"] == "display" and fix["edits"] == [], fix
    assert "not offered automatically" in fix["description"] and "decide by hand" in fix["description"]
    texts = {name: (tmp_path / name).read_text() for name in files}
    result = run("fix", "--unsafe-fixes", str(tmp_path))
    assert "Traceback" not in result.stderr
    assert {name: (tmp_path / name).read_text() for name in files} == texts  # not a byte changed
    text = run("check", str(tmp_path)).output
    assert "not offered automatically" in text
    return fix


def test_a_rename_that_meets_a_reserved_cgroup_is_only_a_hint(tmp_path: Path) -> None:
    # pkg/kubelet/apis/config/validation/validation.go ValidateKubeletConfiguration: "can't use reservedSystemCPUs
    # (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup": the rename
    # would turn on a setting that stops the kubelet
    fix = _refused(tmp_path, {"kubelet.yaml": HEAD + "cpuManagerPolicy: static\nsystemReservedCgroup: /system.slice\n"
                              'reservedSystemCpus: "0"\n'}, "unknown-field")
    assert 'rename "reservedSystemCpus" to "reservedSystemCPUs"' in fix["description"]
    assert "reserved-cpus-conflict" in fix["description"]


def test_a_rename_that_reserves_cpus_the_machine_lacks_is_only_a_hint(tmp_path: Path) -> None:
    # cmd/kubelet/app/server.go getReservedCPUs: "reserved-cpus: <list> is not a subset of online-cpus"
    topology = _topology(2, 16)  # CPUs 0-7
    fix = _refused(tmp_path, {"kubelet.yaml": HEAD + 'cpuManagerPolicy: static\nreservedSystemCPU: "0-15"\n',
                              "topology.yaml": topology}, "unknown-field")
    assert "reserved-cpus-invalid" in fix["description"]


def test_a_rename_that_turns_on_the_static_memory_manager_without_reservations_is_only_a_hint(tmp_path: Path) -> None:
    # pkg/kubelet/cm/memorymanager/memory_manager.go validateReservedMemory: the reservedMemory sums must equal
    # the Node Allocatable reservation; the misspelt key kept the None policy, the rename turns Static on
    fix = _refused(tmp_path, {"kubelet.yaml": HEAD + "memoryManagerPolcy: Static\nsystemReserved:\n  memory: 1Gi\n",
                              "topology.yaml": _topology(2, 16)}, "unknown-field")
    assert "reserved-memory-mismatch" in fix["description"]


def test_quoting_a_number_that_is_no_policy_name_is_only_a_hint(tmp_path: Path) -> None:
    # pkg/kubelet/apis/config/validation/validation.go: topologyManagerPolicy "1" must be one of "none",
    # "best-effort", "restricted", "single-numa-node": quoting makes it decode, then validation refuses it
    fix = _refused(tmp_path, {"kubelet.yaml": HEAD + "topologyManagerPolicy: 1\n"}, "schema")
    assert fix["description"].startswith('write "1"') and "invalid-policy-name" in fix["description"]


def test_a_rename_that_gets_a_pod_rejected_is_only_a_hint(tmp_path: Path) -> None:
    # pkg/kubelet/cm/topologymanager/scope_container.go admit: with single-numa-node, a container whose 10 CPUs
    # fit on no single NUMA node is rejected (TopologyAffinityError); the misspelt key kept the policy "none"
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\nspec:\n  containers:\n    - name: c\n      image: x\n"
           "      resources:\n        requests: {cpu: '10', memory: 1Gi}\n        limits: {cpu: '10', memory: 1Gi}\n")
    fix = _refused(tmp_path, {"kubelet.yaml": HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
                              "topologyManagerPolicys: single-numa-node\n",
                              "topology.yaml": _topology(2, 16).replace('"0-3"', '"0-7"').replace('"4-7"', '"8-15"'),
                              "pod.yaml": pod}, "unknown-field")
    assert "admission-failure" in fix["description"]


def test_a_rename_that_is_clean_is_offered_and_applied(tmp_path: Path) -> None:
    # the same rename with nothing in its way: offered as safe, and `fix` writes exactly that key
    write(tmp_path, {"kubelet.yaml": HEAD + 'cpuManagerPolicy: static\nreservedSystemCpus: "0"\n'})
    found = [f for f in _findings(tmp_path) if f["rule"] == "unknown-field"]
    assert found[0]["fix"]["safety"] == "safe"
    run("fix", str(tmp_path))
    assert (tmp_path / "kubelet.yaml").read_text() == HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'


def test_a_performance_profile_retype_is_proven_too(tmp_path: Path) -> None:
    # a PerformanceProfile renders into kubelet settings (reservedSystemCPUs = spec.cpu.reserved): quoting 0 is
    # clean and offered; quoting 99 on a machine without CPU 99 would stop the kubelet (cmd/kubelet/app/server.go
    # getReservedCPUs) and is only a hint
    profile = ("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n  name: perf\nspec:\n"
               "  cpu:\n    isolated: \"1-7\"\n    reserved: {reserved}\n  nodeSelector:\n"
               '    node-role.kubernetes.io/worker: ""\n')
    write(tmp_path, {"pp.yaml": profile.format(reserved="0")})
    schema = [f for f in _findings(tmp_path) if f["rule"] == "schema"]
    assert schema and schema[0]["fix"]["safety"] == "safe"
    write(tmp_path, {"pp.yaml": profile.format(reserved="99"), "topology.yaml": _topology(2, 16)})
    schema = [f for f in _findings(tmp_path) if f["rule"] == "schema"]
    assert schema and schema[0]["fix"]["edits"] == [] and "not offered automatically" in schema[0]["fix"]["description"]


def test_a_fraction_is_never_quoted_into_thousandths(tmp_path: Path) -> None:
    # k8s.io/apimachinery/pkg/api/resource: "0.5" is the quantity 500m; as memory, half a byte
    write(tmp_path, {"kubelet.yaml": HEAD + "evictionHard:\n  memory.available: 0.5\n"})
    found = [f for f in _findings(tmp_path) if f["rule"] == "schema"]
    assert len(found) == 1 and not (found[0]["fix"] or {}).get("edits")
    assert "500m" in found[0]["message"]


def test_a_rename_never_adds_a_field_the_operator_already_has(tmp_path: Path) -> None:
    # the machine-config operator reads kubeletConfig field names case-insensitively (encoding/json):
    # "ReservedSystemCPUs" is already reservedSystemCPUs, so "reservedSystemCpu" is not renamed onto it
    write(tmp_path, {"kc.yaml": "apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata:\n"
                     '  name: w\nspec:\n  kubeletConfig:\n    ReservedSystemCPUs: "0"\n    reservedSystemCpu: "1"\n'})
    found = [f for f in _findings(tmp_path) if f["rule"] == "unknown-field"]
    assert len(found) == 1 and not (found[0]["fix"] or {}).get("edits")


def test_a_correction_that_would_zero_an_entry_says_to_remove_the_key(tmp_path: Path) -> None:
    # pkg/kubelet/apis/config/validation/validation_reserved_memory.go: "reserved memory may not be zero"
    write(tmp_path, {"kubelet.yaml": HEAD + "memoryManagerPolicy: Static\nsystemReserved:\n  memory: 100Mi\n"
                     "evictionHard:\n  memory.available: \"0%\"\nreservedMemory:\n  - numaNode: 0\n    limits:\n"
                     "      memory: 100Mi\n  - numaNode: 1\n    limits:\n      memory: 100Mi\n"})
    found = [f for f in _findings(tmp_path) if f["rule"] == "reserved-memory-mismatch"]
    assert len(found) == 1 and found[0]["fix"]["edits"] == []
    assert "remove memory from the reservedMemory entry of NUMA node 0" in found[0]["fix"]["description"]


@pytest.mark.parametrize("gates,expected", [
    ("featureGates:\n  CPUManagerPolicyAlphaOptions: false\n", "set featureGates.CPUManagerPolicyAlphaOptions: true"),
    ("featureGates:\n  MemoryQoS: true\n", "add CPUManagerPolicyAlphaOptions: true to featureGates"),
    ("", "add featureGates: {CPUManagerPolicyAlphaOptions: true}"),
])
def test_a_gate_hint_never_adds_a_gate_that_is_written(tmp_path: Path, gates: str, expected: str) -> None:
    # pkg/kubelet/cm/cpumanager/policy_options.go CheckPolicyOptionAvailable: an alpha option needs
    # CPUManagerPolicyAlphaOptions; a gate written false is set to true, not added a second time
    write(tmp_path, {"kubelet.yaml": HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
                     'cpuManagerPolicyOptions:\n  strict-cpu-reservation: "true"\n' + gates})
    result = run("check", "--format", "json", "--kubernetes-version", "1.32", str(tmp_path))
    fixes = [f["fix"]["description"] for f in result.json()["findings"] if f["rule"] == "policy-option"]
    assert fixes == [expected]


@pytest.mark.parametrize("options,expected", [
    ('topologyManagerPolicyOptions:\n  max-allowable-numa-nodes: "8"\n',
     'set topologyManagerPolicyOptions.max-allowable-numa-nodes: "9"'),
    ('topologyManagerPolicyOptions:\n  prefer-closest-numa-nodes: "true"\n',
     'add max-allowable-numa-nodes: "9" to topologyManagerPolicyOptions'),
    ("", 'add topologyManagerPolicyOptions: {max-allowable-numa-nodes: "9"}'),
])
def test_a_numa_count_hint_never_adds_an_option_that_is_written(tmp_path: Path, options: str, expected: str) -> None:
    # pkg/kubelet/cm/topologymanager/topology_manager.go NewManager: more NUMA nodes than
    # max-allowable-numa-nodes (default 8) stops the kubelet; a written option is raised, not added again
    nodes = "".join(f'    - id: {n}\n      cpus: "{n}"\n      memory: 1Gi\n' for n in range(9))
    write(tmp_path, {"kubelet.yaml": HEAD + "topologyManagerPolicy: restricted\n" + options,
                     "topology.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata:\n  name: nine\n"
                                      f"spec:\n  numaNodes:\n{nodes}"})
    result = run("check", "--format", "json", str(tmp_path))
    fixes = [f["fix"]["description"] for f in result.json()["findings"] if f["rule"] == "too-many-numa-nodes"]
    assert fixes and all(fix.startswith(expected) for fix in fixes), fixes


def test_a_profile_carried_in_a_configmap_is_proven_at_its_own_lines(tmp_path: Path) -> None:
    # HyperShift NodePools take a PerformanceProfile from a ConfigMap's data.tuning; quoting reserved 99 would
    # stop the kubelet on a machine with CPUs 0-7 (cmd/kubelet/app/server.go getReservedCPUs), quoting 0 not
    carrier = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: perf\n  namespace: clusters\ndata:\n  tuning: |\n"
               "    apiVersion: performance.openshift.io/v2\n    kind: PerformanceProfile\n    metadata:\n"
               "      name: perf\n    spec:\n      cpu:\n        isolated: \"1-3\"\n        reserved: {reserved}\n"
               "      nodeSelector:\n        node-role.kubernetes.io/worker-cnf: \"\"\n")
    fix = _refused(tmp_path, {"cm.yaml": carrier.format(reserved="99"), "topology.yaml": _topology(2, 16)}, "schema")
    assert "reserved-cpus-invalid" in fix["description"]
    (tmp_path / "topology.yaml").unlink()  # with CPUs 4-7 in no pool, quoting 0 would bring its own error
    write(tmp_path, {"cm.yaml": carrier.format(reserved="0")})
    found = [f for f in _findings(tmp_path) if f["rule"] == "schema"]
    assert found[0]["fix"]["safety"] == "safe" and found[0]["fix"]["edits"][0]["text"] == '"0"'
    # and `fix` writes exactly that edit inside the block scalar, nothing else
    before = (tmp_path / "cm.yaml").read_text()
    result = run("fix", str(tmp_path / "cm.yaml"))
    after = (tmp_path / "cm.yaml").read_text()
    assert after == before.replace('reserved: 0\n', 'reserved: "0"\n'), (result.output, result.stderr)
    assert not [f for f in _findings(tmp_path) if f["rule"] == "schema"]


# --- holes a review found: selection, fixes applied together, rename targets, one-line Lists, workloads ------

CONFLICT = HEAD + ('cpuManagerPolicy: static\nkubeReserved: {cpu: "1"}\nreservedSystemCpus: "0"\n'
                   "systemReservedCgroup: /s\n")


@pytest.mark.parametrize("selection", [["--select", "unknown-field"], ["--ignore", "reserved-cpus-conflict"],
                                       ["--config", "cfg.yaml"]], ids=["select", "ignore", "off"])
def test_selection_never_switches_the_proof_off(tmp_path: Path, selection: list[str]) -> None:
    # --select/--ignore and a rule set "off" decide what is reported and fixed, not what the kubelet refuses:
    # the rename would still stop it (pkg/kubelet/apis/config/validation/validation.go: reservedSystemCPUs with
    # systemReservedCgroup)
    write(tmp_path, {"kubelet.yaml": CONFLICT, "cfg.yaml": "rules:\n  reserved-cpus-conflict: off\n"})
    args = [a if a != "cfg.yaml" else str(tmp_path / "cfg.yaml") for a in selection]
    result = run("fix", *args, str(tmp_path / "kubelet.yaml"))
    assert "Traceback" not in result.stderr
    assert (tmp_path / "kubelet.yaml").read_text() == CONFLICT, result.stderr
    shown = run("check", "--format", "json", *args, str(tmp_path / "kubelet.yaml")).json()["findings"]
    fix = next(f["fix"] for f in shown if f["rule"] == "unknown-field")
    assert fix["edits"] == [] and "reserved-cpus-conflict" in fix["description"], fix


def test_a_severity_override_does_not_make_a_fix_safe(tmp_path: Path) -> None:
    # the proof judges "error" by the rule's own severity: a user's `warning` does not make the kubelet start
    write(tmp_path, {"kubelet.yaml": CONFLICT, "cfg.yaml": "rules:\n  reserved-cpus-conflict: info\n"})
    result = run("fix", "--config", str(tmp_path / "cfg.yaml"), str(tmp_path / "kubelet.yaml"))
    assert (tmp_path / "kubelet.yaml").read_text() == CONFLICT, result.stderr


@pytest.mark.parametrize("kind,head,indent", [
    ("KubeletConfiguration", HEAD, ""),
    ("KubeletConfig", "apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata:\n  name: w\n"
     "spec:\n  machineConfigPoolSelector:\n    matchLabels:\n"
     "      {pools.operator.machineconfiguration.openshift.io/worker: ''}\n  kubeletConfig:\n", "    "),
], ids=["KubeletConfiguration", "KubeletConfig"])
def test_two_keys_meant_for_one_field_get_no_rename(tmp_path: Path, kind: str, head: str, indent: str) -> None:
    # renaming both would write reservedSystemCPUs twice and lose one of the values: a hint naming both
    text = head + "".join(f"{indent}{line}\n" for line in
                          ("cpuManagerPolicy: static", 'reservedSystemCPU: "0"', 'reservedSytemCPUs: "1"'))
    write(tmp_path, {"k.yaml": text})
    found = [f for f in _findings(tmp_path) if f["rule"] == "unknown-field"]
    assert len(found) == 2
    for finding in found:
        assert finding["fix"]["edits"] == [], finding
        assert all(f'"{k}"' in finding["fix"]["description"] for k in ("reservedSystemCPU", "reservedSytemCPUs"))
    run("fix", str(tmp_path))
    assert (tmp_path / "k.yaml").read_text() == text


def test_one_key_meant_for_a_field_is_still_renamed(tmp_path: Path) -> None:
    # the control: a single misspelling of the same field keeps its rename
    write(tmp_path, {"k.yaml": HEAD + 'cpuManagerPolicy: static\nreservedSystemCpus: "0"\n'})
    run("fix", str(tmp_path))
    assert 'reservedSystemCPUs: "0"' in (tmp_path / "k.yaml").read_text()


def _kubelet_config(name: str, pool: str, config: str) -> str:
    return ('{"apiVersion": "machineconfiguration.openshift.io/v1", "kind": "KubeletConfig", "metadata": {"name": "'
            + name + '"}, "spec": {"machineConfigPoolSelector": {"matchLabels": {"pools.operator.machineconfiguration'
            '.openshift.io/' + pool + '": ""}}, "kubeletConfig": ' + config + "}}")


def test_a_one_line_list_proves_each_fix_on_its_own_configuration(tmp_path: Path) -> None:
    # two KubeletConfigs on one line: the rename in the second must be proven on the second (where "x-y" is no
    # CPU list and the kubelet would refuse to start), not on the first that merely shares the line
    items = [_kubelet_config("a", "master", '{"cpuManagerPolicy": "static"}'),
             _kubelet_config("b", "worker", '{"cpuManagerPolicy": "static", "reservedSystemCPU": "x-y"}')]
    text = '{"apiVersion": "v1", "kind": "List", "items": [' + ", ".join(items) + "]}\n"
    write(tmp_path, {"list.json": text})
    found = [f for f in _findings(tmp_path) if f["rule"] == "unknown-field"]
    assert len(found) == 1 and found[0]["fix"]["edits"] == [], found
    assert "reserved-cpus-invalid" in found[0]["fix"]["description"]
    run("fix", str(tmp_path))
    assert (tmp_path / "list.json").read_text() == text


def test_two_renames_fine_alone_are_not_applied_together_into_a_conflict(tmp_path: Path) -> None:
    # each rename alone is proven; together they write reservedSystemCPUs with systemReservedCgroup, which stops
    # the kubelet (pkg/kubelet/apis/config/validation/validation.go): fix applies one and holds the other back
    text = HEAD + ('cpuManagerPolicy: static\nkubeReserved:\n  cpu: "1"\nreservedSystemCpus: "0"\n'
                   "systemReservedcgroup: /system.slice\n")
    write(tmp_path, {"kc.yaml": text})
    assert all(f["fix"]["edits"] for f in _findings(tmp_path) if f["rule"] == "unknown-field")  # each one proven
    result = run("fix", str(tmp_path))
    assert "Traceback" not in result.stderr
    after = _findings(tmp_path)
    assert not [f for f in after if f["severity"] == "error"], after
    assert (tmp_path / "kc.yaml").read_text() == text.replace("reservedSystemCpus", "reservedSystemCPUs")
    left = [f for f in after if f["rule"] == "unknown-field"]
    assert len(left) == 1 and left[0]["fix"]["edits"] == [], left
    assert "reserved-cpus-conflict" in left[0]["fix"]["description"]


SMT2_TOPOLOGY = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata:
  name: t
spec:
  pool:
    nodes: 1
    nodeSelector: {role: numa}
    kubeletConfig: kc.yaml
  sockets: 1
  threadsPerCore: 2
  numaNodes:
    - id: 0
      socket: 0
      cpus: "0-7"
      memory: 32Gi
"""
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  nodeSelector: {role: numa}
  containers:
    - name: c
      image: x
      resources:
        requests: {cpu: CPU, memory: 1Gi}
        limits: {cpu: CPU, memory: 1Gi}
"""


def test_a_safe_rename_and_an_unsafe_rounding_are_not_applied_together_into_a_rejection(tmp_path: Path) -> None:
    # the rename turns full-pcpus-only on (an odd CPU count is then rejected: pkg/kubelet/cm/cpumanager/
    # policy_static.go SMTAlignmentError); rounding 2500m to 3 alone was fine on the pool as it is. Together they
    # reject the pod, so fix keeps the rename and holds "3" back; on the renamed pool the rounding is then "2"
    kubelet = HEAD + ('cpuManagerPolicy: static\ncpuManagerPolicyoptions:\n  full-pcpus-only: "true"\n'
                      'reservedSystemCPUs: "0,4"\ntopologyManagerPolicy: single-numa-node\n')
    write(tmp_path, {"kc.yaml": kubelet, "pod.yaml": POD.replace("CPU", "2500m"), "topo.yaml": SMT2_TOPOLOGY})
    offered = [f["fix"] for f in _findings(tmp_path) if f["rule"] == "fractional-cpu"]
    assert offered[0]["edits"] and offered[0]["edits"][0]["text"] == '"3"', offered  # proven alone
    result = run("fix", "--unsafe-fixes", str(tmp_path))
    assert "Traceback" not in result.stderr
    after = _findings(tmp_path)
    assert not [f for f in after if f["severity"] == "error"], after
    assert "cpuManagerPolicyOptions:" in (tmp_path / "kc.yaml").read_text()
    assert '"3"' not in (tmp_path / "pod.yaml").read_text()


def test_a_rounding_under_full_pcpus_only_takes_whole_cores(tmp_path: Path) -> None:
    # full-pcpus-only with 2 threads per core rejects 3 CPUs (SMTAlignmentError): 2500m rounds to 2, which the
    # pool admits, and fix writes it with no error
    kubelet = HEAD + ('cpuManagerPolicy: static\ncpuManagerPolicyOptions:\n  full-pcpus-only: "true"\n'
                      'reservedSystemCPUs: "0,4"\ntopologyManagerPolicy: single-numa-node\n')
    write(tmp_path, {"kc.yaml": kubelet, "pod.yaml": POD.replace("CPU", "2500m"), "topo.yaml": SMT2_TOPOLOGY})
    fix = next(f["fix"] for f in _findings(tmp_path) if f["rule"] == "fractional-cpu")
    assert [e["text"] for e in fix["edits"]] == ['"2"', '"2"'], fix
    run("fix", "--unsafe-fixes", str(tmp_path))
    assert (tmp_path / "pod.yaml").read_text() == POD.replace("CPU", '"2"')
    after = _findings(tmp_path)
    assert not [f for f in after if f["severity"] == "error" or f["rule"] == "fractional-cpu"], after


TWO_NUMA = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata:
  name: t
spec:
  pool:
    nodes: 1
    nodeSelector: {role: numa}
    kubeletConfig: kc.yaml
  numaNodes:
    - id: 0
      cpus: "0-3"
      memory: 32Gi
    - id: 1
      cpus: "4-7"
      memory: 32Gi
"""


@pytest.mark.parametrize("cpu,rounded,proven", [("4500m", '"5"', False), ("2500m", '"3"', True)])
def test_a_workload_fix_is_proven_on_its_pool(tmp_path: Path, cpu: str, rounded: str, proven: bool) -> None:
    # 4500m rounds to 5 exclusive CPUs, which no NUMA node of 4 (one reserved) holds: single-numa-node rejects
    # the pod (pkg/kubelet/cm/topologymanager/policy_single_numa_node.go, TopologyAffinityError) that ran in the
    # shared pool before, so the rounding is only a hint; 2500m -> 3 fits and stays an (unsafe) fix
    kubelet = HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\ntopologyManagerPolicy: single-numa-node\n'
    pod = POD.replace("CPU", cpu)
    write(tmp_path, {"kc.yaml": kubelet, "pod.yaml": pod, "topo.yaml": TWO_NUMA})
    fix = next(f["fix"] for f in _findings(tmp_path) if f["rule"] == "fractional-cpu")
    assert rounded in fix["description"]
    run("fix", "--unsafe-fixes", str(tmp_path))
    if proven:
        assert fix["safety"] == "unsafe" and fix["edits"], fix
        assert (tmp_path / "pod.yaml").read_text() == pod.replace(cpu, rounded)
    else:
        assert fix["edits"] == [] and "TopologyAffinityError" in fix["description"], fix
        assert (tmp_path / "pod.yaml").read_text() == pod
    assert not [f for f in _findings(tmp_path) if f["severity"] == "error"]


OPENSHIFT_SIZED = """\
apiVersion: machineconfiguration.openshift.io/v1
kind: KubeletConfig
metadata:
  name: cnf
spec:
  machineConfigPoolSelector:
    matchLabels:
      pools.operator.machineconfiguration.openshift.io/worker: ""
  kubeletConfig:
    cpuManagerPolicy: static
    reservedSystemCPUs: "0"
    memoryManagerPolicy: {policy}
{reserved}"""


def test_a_proof_uses_only_the_topologies_the_run_gave_the_configuration(tmp_path: Path) -> None:
    # alone in a run, a configuration pairs with the run's only topology; proving a fix must not make the topology
    # of another configuration (here a KubeletConfiguration named by it) this one's, or its node sizing is computed
    # for hardware it never runs on
    reserved = "    reservedMemory:\n    - numaNode: 0\n      limits:\n        memory: 1Gi\n"
    topology = _topology(2, 16).replace("spec:\n", "spec:\n  pool:\n    kubeletConfig: kubelet\n", 1)
    write(tmp_path, {"kc.yaml": OPENSHIFT_SIZED.format(policy="static", reserved=reserved),
                     "nodes/kubelet.yaml": HEAD + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n",
                     "nodes/topology.yaml": topology})
    found = [f for f in _findings(tmp_path) if f["rule"] == "invalid-policy-name"]
    assert found and found[0]["fix"]["safety"] == "safe", found
    assert found[0]["fix"]["description"] == 'write "Static"', found  # no reservedMemory "follow-up" for 32Gi nodes


def test_static_memory_manager_on_a_sized_openshift_pool_with_nothing_reserved_is_an_error(tmp_path: Path) -> None:
    # pkg/kubelet/cm/memorymanager/memory_manager.go validateReservedMemory: the reservedMemory total (0) must equal
    # the Node Allocatable reservation, and the machine-config operator's node sizing (4.21+) is never zero
    write(tmp_path, {"kc.yaml": OPENSHIFT_SIZED.format(policy="Static", reserved="")})
    result = run("check", "--openshift-version", "4.21", "--format", "json", str(tmp_path))
    found = [f for f in result.json()["findings"] if f["rule"] == "reserved-memory-mismatch"]
    assert len(found) == 1 and found[0]["severity"] == "error", found
    assert 'the total amount "0" of type "memory"' in found[0]["message"]
    # with memory listed, only its total is unknown without the node's size: a warning that says so
    write(tmp_path, {"kc.yaml": OPENSHIFT_SIZED.format(
        policy="Static", reserved="    reservedMemory:\n    - numaNode: 0\n      limits:\n        memory: 1Gi\n")})
    result = run("check", "--openshift-version", "4.21", "--format", "json", str(tmp_path))
    found = [f for f in result.json()["findings"] if f["rule"] == "reserved-memory-mismatch"]
    assert len(found) == 1 and found[0]["severity"] == "warning" and "node size" in found[0]["message"], found


def test_a_reservation_of_a_fraction_of_a_byte_is_not_met_by_listing_it(tmp_path: Path) -> None:
    # convertReserved (pkg/kubelet/cm/memorymanager/memory_manager.go) reads each reservedMemory limit with AsInt64:
    # no list can add up to 100m bytes, so the hint asks for whole bytes first
    write(tmp_path, {"kc.yaml": HEAD + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
                                       "memoryManagerPolicy: Static\nsystemReserved: {memory: 100m}\n"
                                       "reservedMemory: []\n"})
    found = [f for f in _findings(tmp_path) if f["rule"] == "reserved-memory-mismatch"]
    assert len(found) == 1 and found[0]["fix"]["safety"] == "display", found
    assert "whole bytes" in found[0]["fix"]["description"] and "list reservedMemory entries adding up to" not in \
        found[0]["fix"]["description"].split(", then")[0]


def test_an_item_of_a_pretty_printed_json_list_is_proven_alone(tmp_path: Path) -> None:
    """The items of `kubectl get -o json` end with `},`: read alone by whole lines, the item did not parse and its
    fix was only a hint. Read from its first character to its last, it is proven and applied, and the other
    item is untouched."""
    item = ('    {\n      "apiVersion": "kubelet.config.k8s.io/v1beta1",\n      "kind": "KubeletConfiguration",\n'
            '      "cpuManagerPolicy": "POLICY",\n      "reservedSystemCPUs": "0"\n    }')
    text = ('{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": [\n' + item.replace("POLICY", "Static") + ",\n"
            + item.replace("POLICY", "none") + "\n  ]\n}\n")
    write(tmp_path, {"list.json": text})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(f["rule"], f["line"], f["fix"]["safety"]) for f in found] == [("invalid-policy-name", 8, "safe")]
    run("fix", str(tmp_path))
    assert (tmp_path / "list.json").read_text() == text.replace('"Static"', '"static"')


SRIOV_POLICY = """apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata: {{name: {name}, namespace: openshift-sriov-network-operator}}
spec:
  resourceName: res_{name}
  nodeSelector: {{node-role.kubernetes.io/worker-cnf: ""}}
  numVfs: 8
  nicSelector:
    {pf}: ["ens1f0#{vfs}"]
"""


def test_a_rename_on_an_sriov_policy_is_proven_on_the_whole_run(tmp_path: Path) -> None:
    """pfName -> pfNames makes policy b claim VFs 4-7 of ens1f0, which policy a holds: the webhook rejects it.
    check offered the rename as safe and fix held it back; now the proof says so, and the diff says why it is
    empty. Without the overlap, the same rename is offered and fix applies it."""
    write(tmp_path, {"p.yaml": SRIOV_POLICY.format(name="a", pf="pfNames", vfs="0-7") + "---\n"
                     + SRIOV_POLICY.format(name="b", pf="pfName", vfs="4-7")})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    rename = next(f for f in found if f["rule"] == "unknown-field")
    assert not rename["fix"]["edits"] and "sriov-policy-conflict" in rename["fix"]["description"], rename
    diff = run("fix", "--diff", str(tmp_path))
    assert diff.output == "" and diff.exit_code == 0
    # each rename alone holds; together they overlap: fix applies the first, and the second becomes a hint
    write(tmp_path, {"p.yaml": SRIOV_POLICY.format(name="a", pf="pfName", vfs="0-7") + "---\n"
                     + SRIOV_POLICY.format(name="b", pf="pfName", vfs="4-7")})
    assert "not in the diff: 1 fix(es) held back" in run("fix", "--diff", str(tmp_path)).stderr
    run("fix", str(tmp_path))
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(f["rule"], f["line"], f["fix"]["edits"]) for f in found] == [("unknown-field", 19, [])], found
    write(tmp_path, {"p.yaml": SRIOV_POLICY.format(name="a", pf="pfNames", vfs="0-3") + "---\n"
                     + SRIOV_POLICY.format(name="b", pf="pfName", vfs="4-7")})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert next(f for f in found if f["rule"] == "unknown-field")["fix"]["safety"] == "safe"
    run("fix", str(tmp_path))
    assert 'pfNames: ["ens1f0#4-7"]' in (tmp_path / "p.yaml").read_text()
    assert run("check", "--format", "json", str(tmp_path)).rules() == []


def test_a_fix_of_an_item_whose_anchor_another_item_merges_is_proven_with_both(tmp_path: Path) -> None:
    """Item 2 merges item 1 (`<<: *base`) and adds systemReservedCgroup: the rename in item 1 gives item 2
    reservedSystemCPUs too, and its kubelet would refuse to start. Read alone, item 1 hid that."""
    text = """apiVersion: v1
kind: List
items:
- &base
  apiVersion: kubelet.config.k8s.io/v1beta1
  kind: KubeletConfiguration
  cpuManagerPolicy: static
  reservedSystemCpus: "0"
  kubeReserved: {cpu: "1"}
- <<: *base
  systemReservedCgroup: /system.slice
"""
    write(tmp_path, {"list.yaml": text})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert found and all(not f["fix"]["edits"] for f in found if f["rule"] == "unknown-field"), found
    assert "reserved-cpus-conflict" in found[0]["fix"]["description"]
    run("fix", str(tmp_path))
    assert (tmp_path / "list.yaml").read_text() == text


def test_many_fixes_that_each_bring_an_error_stop_the_proofs_in_time(tmp_path: Path) -> None:
    """300 policies whose pfName rename each makes them overlap another: halving the fixes down to each one
    would analyse the whole run hundreds of times. The proofs stop after a bounded number of tries and leave
    the rest as hints; nothing is offered unproven."""
    files = {}
    for i in range(300):
        files[f"p{i:03d}a.yaml"] = SRIOV_POLICY.format(name=f"a{i}", pf="pfNames", vfs="0-7").replace(
            "ens1f0", f"ens{i}f0")
        files[f"p{i:03d}b.yaml"] = SRIOV_POLICY.format(name=f"b{i}", pf="pfName", vfs="4-7").replace(
            "ens1f0", f"ens{i}f0")
    write(tmp_path, files)
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    renames = [f for f in found if f["rule"] == "unknown-field"]
    assert len(renames) == 300 and all(not f["fix"]["edits"] for f in renames)
    assert any("stopped trying" in f["fix"]["description"] for f in renames)


def test_a_workload_fix_on_a_value_shared_through_an_anchor_is_only_a_hint(tmp_path: Path) -> None:
    """Pod "aligned" defines ``requests: &r {cpu: 1.5}``, Pod "other" reads ``requests: *r`` under a 1800m limit:
    rounding aligned's request to 2 would give other a request above its limit (refused by the API server).
    The proof replaced only the fixed workload, so the fix was offered and `fix --unsafe-fixes` wrote it."""
    items = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: aligned}
  spec:
    containers:
    - name: a
      image: x
      resources:
        requests: &r {cpu: 1.5, memory: 1Gi, hugepages-2Mi: 2Mi}
        limits: {cpu: 1.5, memory: 1Gi, hugepages-2Mi: 2Mi}
- apiVersion: v1
  kind: Pod
  metadata: {name: other}
  spec:
    containers:
    - name: b
      image: x
      resources:
        requests: *r
        limits: {cpu: 1800m, memory: 1Gi, hugepages-2Mi: 2Mi}
"""
    kubelet = HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
    write(tmp_path, {"list.yaml": items, "kubelet.yaml": kubelet})
    found = [f for f in _findings(tmp_path) if f["rule"] == "fractional-cpu"]
    assert len(found) == 1 and not found[0]["fix"]["edits"], found
    assert "shares YAML anchors with another object" in found[0]["fix"]["description"]
    assert run("fix", "--unsafe-fixes", str(tmp_path)).exit_code in (0, 1)
    assert (tmp_path / "list.yaml").read_text() == items
    # the same pods without the alias: the fix is offered
    write(tmp_path, {"list.yaml": items.replace("&r ", "").replace("requests: *r",
                                                                     "requests: {cpu: 1.5, memory: 1Gi}")})
    found = [f for f in _findings(tmp_path) if f["rule"] == "fractional-cpu"]
    assert found and all(f["fix"]["edits"] for f in found), found


def test_a_cpu_request_above_its_limit_is_refused_by_the_api_server(tmp_path: Path) -> None:
    """ValidateResourceRequirements: "must be less than or equal to cpu limit of 1800m", for any pod."""
    pod = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: app
    image: x
    resources:
      requests: {cpu: "2", memory: 2Gi}
      limits: {cpu: 1800m, memory: MEMORY}
"""
    write(tmp_path, {"pod.yaml": pod.replace("MEMORY", "1Gi")})
    found = [(f["rule"], f["line"], f["column"], f["message"]) for f in _findings(tmp_path)]
    assert [f[:3] for f in found] == [("invalid-resources", 9, 23), ("invalid-resources", 9, 36)], found
    assert "must be less than or equal to cpu limit of 1800m" in found[0][3]
    assert "must be less than or equal to memory limit of 1Gi" in found[1][3]
    write(tmp_path, {"pod.yaml": pod.replace('cpu: "2"', "cpu: 1800m").replace("MEMORY", "2Gi")})
    assert _findings(tmp_path) == []


def test_roundings_fine_alone_but_not_together_are_settled_in_halves(tmp_path: Path) -> None:
    """Four Pods of 1500m on 7 allocatable CPUs: each rounding to 2 is proven alone (6.5 CPUs), all four together
    need 8 (a pod stays Pending). `fix` keeps the first two (7 CPUs) and holds the others back; they stay hints
    on the fixed run. The trials of a pass whose fixes interact are checked without proving the other findings'
    fixes (100 such pods took two minutes; the proofs, not the checks, cost it)."""
    kubelet = HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
    topology = TWO_NUMA.replace('cpus: "4-7"\n      memory: 32Gi\n', 'cpus: "4-7"\n      memory: 32Gi\n'
                                '      hugepages: {2Mi: 64}\n').replace('"0-3"', '"0-3"')
    pods = {f"p{i}.yaml": POD.replace("name: p", f"name: p{i}").replace("CPU", "1500m")
            .replace("memory: 1Gi}", "memory: 1Gi, hugepages-2Mi: 2Mi}") for i in range(4)}
    write(tmp_path, {"kc.yaml": kubelet, "topo.yaml": topology, **pods})
    before = [f for f in _findings(tmp_path) if f["rule"] == "fractional-cpu"]
    assert len(before) == 4 and all(f["fix"]["edits"] for f in before), before
    result = run("fix", "--unsafe-fixes", "--diff", str(tmp_path))
    assert "2 fix(es) held back" in result.stderr, result.stderr
    run("fix", "--unsafe-fixes", str(tmp_path))
    rounded = sorted(name for name in pods if '"2"' in (tmp_path / name).read_text())
    assert rounded == ["p0.yaml", "p1.yaml"], rounded
    after = _findings(tmp_path)
    assert not [f for f in after if f["severity"] == "error"], after
    left = [f for f in after if f["rule"] == "fractional-cpu"]
    assert len(left) == 2 and not any(f["fix"]["edits"] for f in left), left


def test_a_workload_with_two_fixes_that_leave_their_findings_keeps_both_as_hints(tmp_path: Path) -> None:
    """Two extended resources whose requests are set to a limit of 1500m: the API server still rejects both (not an
    integer), so neither fix holds. Tried in halves, the workload counts once before and once after (it was counted
    once per fix before, and each half's fix passed as proven; found by a review)."""
    kubelet = HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\ntopologyManagerPolicy: single-numa-node\n'
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: x\n"
           "    resources:\n      requests: {cpu: \"2\", memory: 1Gi, example.com/foo: \"1\", example.com/bar: \"1\"}\n"
           "      limits: {cpu: \"2\", memory: 1Gi, example.com/foo: 1500m, example.com/bar: 1500m}\n")
    write(tmp_path, {"kc.yaml": kubelet, "pod.yaml": pod})
    fixes = [f["fix"] for f in _findings(tmp_path) if f["rule"] == "invalid-resources" and "!= limit" in f["message"]]
    assert len(fixes) == 2 and all(f["edits"] == [] and "would remain" in f["description"] for f in fixes), fixes
    run("fix", "--unsafe-fixes", str(tmp_path))
    assert (tmp_path / "pod.yaml").read_text() == pod


def test_fixes_left_untried_are_not_said_to_bring_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the checks a pass may make (MAX_TRIES, here 1), the fixes not yet tried are held back: their hint and
    the closing line say they were not tried, not that they would bring an error (found by a review)."""
    import numalint.fixer

    monkeypatch.setattr(numalint.fixer, "MAX_TRIES", 1)
    kubelet = HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
    topology = TWO_NUMA.replace('cpus: "4-7"\n      memory: 32Gi\n', 'cpus: "4-7"\n      memory: 32Gi\n'
                                '      hugepages: {2Mi: 64}\n')
    pods = {f"p{i}.yaml": POD.replace("name: p", f"name: p{i}").replace("CPU", "1500m")
            .replace("memory: 1Gi}", "memory: 1Gi, hugepages-2Mi: 2Mi}") for i in range(4)}
    write(tmp_path, {"kc.yaml": kubelet, "topo.yaml": topology, **pods})
    result = run("fix", "--unsafe-fixes", str(tmp_path))
    assert "2 fix(es) held back untried (too many fixes of one pass interact; run fix again)" in result.stderr, \
        result.stderr
    assert "would bring a new error" not in result.stderr, result.stderr
    rounded = sorted(name for name in pods if '"2"' in (tmp_path / name).read_text())
    assert rounded == ["p0.yaml", "p1.yaml"], rounded


def test_a_rename_that_puts_a_kubeletconfig_on_a_pool_is_proven_on_that_pool(tmp_path: Path) -> None:
    # the misspelt selector selects nothing: renamed, full-pcpus-only reaches worker-cnf, whose 3-CPU pod it rejects
    write(tmp_path, {
        "kc.yaml": """\
            apiVersion: machineconfiguration.openshift.io/v1
            kind: KubeletConfig
            metadata: {name: cnf-kubelet}
            spec:
              machineConfigPoolSelectr:
                matchLabels: {machineconfiguration.openshift.io/role: worker-cnf}
              kubeletConfig:
                cpuManagerPolicy: static
                reservedSystemCPUs: "0,16"
                cpuManagerPolicyOptions: {full-pcpus-only: "true"}
            """,
        "mcp.yaml": """\
            apiVersion: machineconfiguration.openshift.io/v1
            kind: MachineConfigPool
            metadata:
              name: worker-cnf
              labels: {machineconfiguration.openshift.io/role: worker-cnf}
            spec:
              nodeSelector: {matchLabels: {node-role.kubernetes.io/worker-cnf: ""}}
            """,
        "topo.yaml": """\
            apiVersion: numalint.io/v1alpha1
            kind: NodeTopology
            metadata: {name: cnf}
            spec:
              pool: {nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}, nodes: 1}
              threadsPerCore: 2
              numaNodes:
                - {id: 0, cpus: "0-7,16-23", memory: 64Gi}
                - {id: 1, cpus: "8-15,24-31", memory: 64Gi}
            """,
        "pod.yaml": """\
            apiVersion: v1
            kind: Pod
            metadata: {name: app}
            spec:
              nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}
              containers:
                - {name: app, image: x, resources: {limits: {cpu: "3", memory: 1Gi}}}
            """})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    rename = next(f for f in found if f["rule"] == "unknown-field")
    assert rename["fix"]["edits"] == [] and "smt-alignment" in rename["fix"]["description"]


def _check_closure(rule: str) -> str:
    """The source of ``rule``'s check function and of the numalint functions it calls by name, transitively (in
    any module: a helper imported from another module reads as much as one of the check's own)."""
    import ast
    import inspect
    import textwrap

    from numalint.checks import all_checks

    seen: dict[object, str] = {}
    todo: list[object] = [inspect.unwrap(all_checks()[rule])]
    while todo:
        function = todo.pop()
        if not inspect.isfunction(function) or function in seen or not function.__module__.startswith("numalint."):
            continue
        source = textwrap.dedent(inspect.getsource(function))
        seen[function] = source
        names = function.__globals__
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Name) and node.id in names:
                todo.append(names[node.id])
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and inspect.ismodule(names.get(node.value.id)):
                todo.append(getattr(names[node.value.id], node.attr, None))
    return "\n".join(seen.values())


# what each list of rules a proof leaves out must never read, as attributes of the analysis, a pool or a pool's run
# (the check's own functions, followed by name): the reason the proof may leave them out
_LEFT_OUT_NEVER_READ = {
    # a workload fix's proof does not run NODE_ALONE: none of them reads a workload, its pools or the placements
    "NODE_ALONE": r"pods|pool_runs|simulation|pools_for|pods_of|pods_on",
    # a kubelet configuration fix's proof does not run POD_ALONE: they judge the workload alone, not its nodes
    "POD_ALONE": r"profiles?|pools|pool_runs|pools_for|simulation|topology|sriov|performance_profiles|of_kind"
                 r"|settings|start_problems|node_memory",
    # nor SRIOV_ALONE: they read the SR-IOV objects, the pools' labels and topologies and the workloads, never a
    # kubelet configuration (a profile, its settings, a start problem) nor where the simulation placed a workload
    "SRIOV_ALONE": r"profiles?|performance_profiles|settings|pool_runs|simulation|start_problems|node_memory"
                   r"|pods_of|pods_on",
    # a workload fix's proof runs WORKLOAD_ALONE on the workloads it tries only: they never read where the
    # simulation placed a workload (nor, with it, the other workloads of a node)
    "WORKLOAD_ALONE": r"simulation|pods_of|pods_on|scheduler|replays|first_rejection|allocatable",
}


@pytest.mark.parametrize("name", sorted(_LEFT_OUT_NEVER_READ))
def test_the_rules_a_proof_leaves_out_never_read_what_its_fix_changes(name: str) -> None:
    from numalint.checks import proofs

    for rule in sorted(getattr(proofs, name)):
        source = _check_closure(rule)
        assert source, rule
        read = re.findall(r"\.(" + _LEFT_OUT_NEVER_READ[name] + r")\b", source)
        assert not read, (name, rule, read)
