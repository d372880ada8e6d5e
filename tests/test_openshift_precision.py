"""OpenShift precision (issue 11): built-in pools, PerformanceProfile pools and CPUs on real hardware,
the Node Tuning Operator's validation, unknown fields, NRT allocatable, profiles inside ConfigMaps.
Each test runs the command line on small files written here."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run, write


def findings(path: Path, rule: str | None = None) -> list[dict[str, Any]]:
    result = run("check", "--format", "json", "--fail-on", "never", str(path))
    assert "Traceback" not in result.stderr
    found = result.json()["findings"]
    return [f for f in found if rule is None or f["rule"] == rule]


def where(found: list[dict[str, Any]]) -> list[str]:
    return sorted(f"{Path(f['file']).name}:{f['line']}:{f['column']}" for f in found)


CUSTOM_POOL = """apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfigPool
metadata:
  name: worker-cnf
  labels: {machineconfiguration.openshift.io/role: worker-cnf}
spec:
  machineConfigSelector:
    matchExpressions:
      - {key: machineconfiguration.openshift.io/role, operator: In, values: [worker, worker-cnf]}
  nodeSelector:
    matchLabels: {node-role.kubernetes.io/worker-cnf: ""}
"""


def kubeletconfig(name: str, selector: str, settings: str = "{cpuManagerPolicy: static}") -> str:
    return f"""apiVersion: machineconfiguration.openshift.io/v1
kind: KubeletConfig
metadata: {{name: {name}}}
spec:
  machineConfigPoolSelector:
    matchLabels: {{{selector}}}
  kubeletConfig: {settings}
"""


CPUS = 'reserved: "0-1"\n    isolated: "2-7"'
WORKER = 'pools.operator.machineconfiguration.openshift.io/worker: ""'
# the custom pool's name under the built-in pools' label, which a custom pool does not carry unless written
NOT_ON_THE_POOL = 'pools.operator.machineconfiguration.openshift.io/worker-cnf: ""'


def profile(name: str, node_role: str = "worker-cnf", extra: str = "", cpu: str = CPUS) -> str:
    return f"""apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata: {{name: {name}}}
spec:
  cpu:
    {cpu}
  nodeSelector: {{node-role.kubernetes.io/{node_role}: ""}}
{extra}"""


# --- built-in pools -------------------------------------------------------------------------------

def test_built_in_worker_and_master_pools_exist_beside_a_custom_pool(tmp_path: Path) -> None:
    write(tmp_path, {"mcp.yaml": CUSTOM_POOL,
                     "worker.yaml": kubeletconfig("pods", WORKER),
                     "master.yaml": kubeletconfig("sizing-master", "machineconfiguration.openshift.io/role: master",
                                                  "{maxPods: 300}"),
                     "cnf.yaml": kubeletconfig("cnf", "machineconfiguration.openshift.io/role: worker-cnf")})
    assert findings(tmp_path, "kubeletconfig-pool") == []


def test_a_profile_for_the_worker_nodes_finds_the_built_in_pool_by_node_selector(tmp_path: Path) -> None:
    write(tmp_path, {"mcp.yaml": CUSTOM_POOL, "profile.yaml": profile("workers", "worker")})
    assert findings(tmp_path, "kubeletconfig-pool") == []


def test_a_redefined_built_in_pool_is_taken_from_the_run(tmp_path: Path) -> None:
    worker = CUSTOM_POOL.replace("name: worker-cnf", "name: worker").replace(
        "labels: {machineconfiguration.openshift.io/role: worker-cnf}", "labels: {custom: yes-please}")
    write(tmp_path, {"mcp.yaml": worker,
                     "kc.yaml": kubeletconfig("pods", 'pools.operator.machineconfiguration.openshift.io/worker: ""')})
    found = findings(tmp_path, "kubeletconfig-pool")
    assert where(found) == ["kc.yaml:5:3"]
    assert "selects no MachineConfigPool" in found[0]["message"]


def test_no_pool_finding_points_at_the_selector(tmp_path: Path) -> None:
    write(tmp_path, {"mcp.yaml": CUSTOM_POOL, "kc.yaml": kubeletconfig("cpu", NOT_ON_THE_POOL)})
    found = findings(tmp_path, "kubeletconfig-pool")
    assert where(found) == ["kc.yaml:5:3"]


def test_a_label_no_pool_of_the_run_uses_may_be_set_by_hand_on_a_pool(tmp_path: Path) -> None:
    """OpenShift's documentation labels the built-in worker pool by hand (`oc label mcp worker
    custom-kubelet=cpumanager-enabled`) and selects that label: no file shows it, so a selector asking only for keys
    no pool of the run carries is no finding (one was, with a fix retargeting it to the run's custom pool: found by
    a precision review). A key the run's pools do carry, a pool's role, or no selector at all still select nothing."""
    hand = kubeletconfig("cpu", "custom-kubelet: cpumanager-enabled", "{cpuManagerPolicy: static, "
                         "reservedSystemCPUs: '0', topologyManagerPolicy: single-numa-node}")
    topology = ("apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n  numaNodes:\n"
                "    - {id: 0, cpus: '0-7', memory: 16Gi}\n    - {id: 1, cpus: '8-15', memory: 16Gi}\n")
    write(tmp_path / "hand", {"mcp.yaml": CUSTOM_POOL, "kc.yaml": hand, "topo.yaml": topology})
    assert findings(tmp_path / "hand", "kubeletconfig-pool") == []
    # it reaches some nodes, then: the only configuration is the only topology's kubelet (not the defaults)
    pools = run("simulate", "--format", "json", str(tmp_path / "hand")).json()["pools"]
    assert [(p["name"], p["kubelet_config"], p["topology_policy"]) for p in pools] == [
        ("t", "cpu", "single-numa-node")]
    labelled = CUSTOM_POOL.replace("labels: {", "labels: {custom-kubelet: cnf, ")
    write(tmp_path / "used", {"mcp.yaml": labelled, "kc.yaml": kubeletconfig("cpu", "custom-kubelet: cfn")})
    assert where(findings(tmp_path / "used", "kubeletconfig-pool")) == ["kc.yaml:5:3"]
    # NotIn and DoesNotExist are met by a pool without the label: the built-in pools, or any labelled by hand
    write(tmp_path / "absent", {"mcp.yaml": CUSTOM_POOL, "kc.yaml": kubeletconfig("cpu", "").replace(
        "    matchLabels: {}\n", "    matchExpressions: [{key: machineconfiguration.openshift.io/role, "
        "operator: NotIn, values: [worker-cnf]}]\n")})
    assert findings(tmp_path / "absent", "kubeletconfig-pool") == []
    # a misspelling of a key the run's pools carry is no hand label (found by a review of the change)
    write(tmp_path / "typo", {"mcp.yaml": labelled, "kc.yaml": kubeletconfig("cpu", "custom-kublet: cnf")})
    assert where(findings(tmp_path / "typo", "kubeletconfig-pool")) == ["kc.yaml:5:3"]
    write(tmp_path / "role", {"mcp.yaml": CUSTOM_POOL, "kc.yaml": kubeletconfig(
        "cpu", "machineconfiguration.openshift.io/role: worker-cfn")})
    assert where(findings(tmp_path / "role", "kubeletconfig-pool")) == ["kc.yaml:5:3"]
    write(tmp_path / "none", {"mcp.yaml": CUSTOM_POOL, "kc.yaml": kubeletconfig("cpu", "").replace(
        "  machineConfigPoolSelector:\n    matchLabels: {}\n", "")})
    found = findings(tmp_path / "none", "kubeletconfig-pool")
    assert len(found) == 1 and "selects no MachineConfigPool" in found[0]["message"]


def test_without_any_pool_in_the_run_nothing_is_said_about_unknown_selectors(tmp_path: Path) -> None:
    write(tmp_path, {"kc.yaml": kubeletconfig("cpu", NOT_ON_THE_POOL)})
    assert findings(tmp_path, "kubeletconfig-pool") == []


def test_a_pool_declared_for_another_cluster_directory_says_nothing_of_a_profile_here(tmp_path: Path) -> None:
    # one tree per cluster: cluster-a's pool says nothing of the pools cluster-b's profile is meant for
    write(tmp_path, {"cluster-a/pools/mcp.yaml": CUSTOM_POOL,
                     "cluster-b/tuning/profile.yaml": profile("ht", "worker-ht"),
                     "cluster-b/tuning/kc.yaml": kubeletconfig("cpu", NOT_ON_THE_POOL)})
    assert findings(tmp_path, "kubeletconfig-pool") == []
    # one directory per cluster is too close to tell from one cluster's layout: the finding says how to tell
    write(tmp_path / "flat", {"cluster-a/mcp.yaml": CUSTOM_POOL, "cluster-b/kc.yaml": kubeletconfig(
        "cpu", NOT_ON_THE_POOL)})
    flat = findings(tmp_path / "flat", "kubeletconfig-pool")
    assert len(flat) == 1 and "declare the clusters under `clusters:`" in flat[0]["message"]
    # beside the pool, or under its directory, the same profile selects none of the pools it sits with
    write(tmp_path, {"cluster-a/nested/profile.yaml": profile("ht", "worker-ht")})
    assert where(findings(tmp_path, "kubeletconfig-pool")) == ["profile.yaml:8:3"]


def test_two_configurations_selecting_one_pool_outside_the_run_compete(tmp_path: Path) -> None:
    # a PerformanceProfile and a KubeletConfig with one machineConfigPoolSelector select the same pool, whichever
    # it is: the newest KubeletConfig wins, so the topology scope here or the profile's settings are lost
    extra = "  machineConfigPoolSelector: {machineconfiguration.openshift.io/role: ht}\n"
    pair = {"deploy/profile.yaml": profile("snn", "ht", extra),
            "deploy/kc.yaml": kubeletconfig("scope", "machineconfiguration.openshift.io/role: ht",
                                            "{topologyManagerScope: pod}")}
    write(tmp_path, pair)
    found = findings(tmp_path, "kubeletconfig-pool")
    assert where(found) == ["kc.yaml:5:3", "profile.yaml:9:3"]
    assert found[0]["message"].startswith("MachineConfigPool with labels machineconfiguration.openshift.io/role=ht "
                                          "(not in the run) is selected by ")
    # in two trees (two clusters, two variants) they may never meet: nothing is said
    write(tmp_path / "apart", {"a/deploy/profile.yaml": pair["deploy/profile.yaml"],
                               "b/deploy/kc.yaml": pair["deploy/kc.yaml"]})
    assert findings(tmp_path / "apart", "kubeletconfig-pool") == []


def test_nearness_does_not_depend_on_how_paths_are_written(tmp_path: Path) -> None:
    write(tmp_path, {"a.yaml": profile("du"), "x/b.yaml": profile("cu"), "mcp.yaml": CUSTOM_POOL})
    by_dir = findings(tmp_path, "performance-profile-invalid")
    named = run("check", "--format", "json", "--fail-on", "never", "a.yaml", "./x/b.yaml", "mcp.yaml",
                cwd=tmp_path).json()["findings"]
    assert len(by_dir) == 2 and where(by_dir) == where([f for f in named if f["rule"] == "performance-profile-invalid"])


def test_each_configuration_is_named_with_those_near_it_only(tmp_path: Path) -> None:
    role = "machineconfiguration.openshift.io/role: ht"
    write(tmp_path, {f"clusters/{c}/kubelet/{n}.yaml": kubeletconfig(n, role) for c in "ab"
                     for n in (f"{c}1", f"{c}2")})
    found = findings(tmp_path, "kubeletconfig-pool")
    assert len(found) == 4
    for finding in found:
        mine = Path(finding["file"]).parent.parent.name
        assert all(f"KubeletConfig {c}" not in finding["message"] for c in ("a1", "a2", "b1", "b2")
                   if not c.startswith(mine)), finding["message"]


def test_a_pool_declared_for_another_directory_leaves_a_configuration_on_its_topology(tmp_path: Path) -> None:
    topology = """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: ht-nodes}
spec:
  pool:
    nodeSelector: {node-role.kubernetes.io/ht: ""}
  numaNodes:
    - {id: 0, memory: 64Gi, cpus: "0-7"}
"""
    write(tmp_path, {"cluster-a/pools/mcp.yaml": CUSTOM_POOL, "cluster-b/nodes/topology.yaml": topology,
                     "cluster-b/nodes/kc.yaml": kubeletconfig("ht", "machineconfiguration.openshift.io/role: ht",
                                                        '{cpuManagerPolicy: static, reservedSystemCPUs: "0"}')})
    alone = json.loads(run("simulate", "--format", "json", str(tmp_path / "cluster-b")).output)
    both = json.loads(run("simulate", "--format", "json", str(tmp_path)).output)
    assert alone["pools"][0]["kubelet_config"] == both["pools"][0]["kubelet_config"] == "ht"


def test_competing_configurations_are_each_named_once(tmp_path: Path) -> None:
    rendered = kubeletconfig("performance-du", 'pools.operator.machineconfiguration.openshift.io/worker-cnf: ""')
    write(tmp_path, {"mcp.yaml": CUSTOM_POOL.replace(
        "labels: {machineconfiguration.openshift.io/role: worker-cnf}",
        'labels: {pools.operator.machineconfiguration.openshift.io/worker-cnf: ""}'),
        "profile.yaml": profile("du"), "rendered.yaml": rendered,
        "user.yaml": kubeletconfig("user", 'pools.operator.machineconfiguration.openshift.io/worker-cnf: ""')})
    found = findings(tmp_path, "kubeletconfig-pool")
    assert where(found) == ["profile.yaml:8:3", "user.yaml:5:3"]
    for finding in found:
        assert "performance-du" not in finding["message"]
        assert finding["message"].count("PerformanceProfile du") == 1


def test_a_custom_pool_inherits_the_worker_kubeletconfig(tmp_path: Path) -> None:
    topology = """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: cnf-nodes}
spec:
  pool:
    nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}
  numaNodes:
    - {id: 0, memory: 64Gi, cpus: "0-7"}
"""
    pod = """apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}
  containers:
    - name: app
      resources:
        limits: {cpu: "1500m", memory: 1Gi}
"""
    write(tmp_path, {"mcp.yaml": CUSTOM_POOL, "topology.yaml": topology, "pod.yaml": pod,
                     "worker.yaml": kubeletconfig("cpu", 'pools.operator.machineconfiguration.openshift.io/worker: ""',
                                                  '{cpuManagerPolicy: static, reservedSystemCPUs: "0"}'),
                     "other.yaml": kubeletconfig("other", "custom: unrelated", "{maxPods: 100}")})
    data = json.loads(run("simulate", "--format", "json", str(tmp_path)).output)
    assert data["pools"][0]["kubelet_config"] == "cpu"
    assert "fractional-cpu" in [f["rule"] for f in findings(tmp_path)]


def test_a_profile_without_node_selector_is_reported_for_that_only(tmp_path: Path) -> None:
    text = profile("cnf").replace('  nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}\n', "")
    write(tmp_path, {"mcp.yaml": CUSTOM_POOL, "profile.yaml": text})
    found = findings(tmp_path)
    assert [f["rule"] for f in found if f["rule"].startswith(("kubeletconfig-pool", "performance"))] == [
        "performance-profile-invalid"]
    assert "nodeSelector is required" in found[0]["message"]


# --- PerformanceProfile CPUs on real hardware ------------------------------------------------------

SMT_TOPOLOGY = """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: smt}
spec:
  pool:
    nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}
  numaNodes:
    - id: 0
      memory: 64Gi
      cores: ["0,8", "1,9", "2,10", "3,11", "4,12", "5,13", "6,14", "7,15"]
"""


def test_nosmt_siblings_are_offline_and_never_allocated(tmp_path: Path) -> None:
    write(tmp_path, {"topology.yaml": SMT_TOPOLOGY,
                     "profile.yaml": profile("cnf", extra="  additionalKernelArgs: [nosmt]\n")})
    assert findings(tmp_path, "performance-profile-cpus") == []
    data = json.loads(run("simulate", "--format", "json", str(tmp_path)).output)
    cpu = data["pools"][0]["nodes"][0]["numa_nodes"][0]["resources"]["cpu"]
    assert (cpu["capacity"], cpu["reserved"], cpu["allocatable"]) == (8, 2, 6)


def test_offlined_cpus_complete_the_sets_and_leave_the_simulated_node(tmp_path: Path) -> None:
    cpu = 'reserved: "0-1"\n    isolated: "2-7"\n    offlined: "8-15"'
    pod = """apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}
  containers:
    - name: c
      resources:
        limits: {cpu: "6", memory: 1Gi}
"""
    write(tmp_path, {"topology.yaml": SMT_TOPOLOGY, "profile.yaml": profile("cnf", cpu=cpu), "pod.yaml": pod})
    assert findings(tmp_path, "performance-profile-cpus") == []
    data = json.loads(run("simulate", "--format", "json", str(tmp_path)).output)
    assert data["pods"][0]["admitted"]
    assert set(data["pods"][0]["containers"][0]["cpus"]) == set(range(2, 8))


def test_siblings_left_out_without_nosmt_are_still_reported(tmp_path: Path) -> None:
    write(tmp_path, {"topology.yaml": SMT_TOPOLOGY, "profile.yaml": profile("cnf")})
    found = findings(tmp_path, "performance-profile-cpus")
    assert where(found) == ["profile.yaml:7:15"]
    assert "8-15" in found[0]["message"]


def test_reserved_cpus_that_nosmt_takes_offline_are_reported(tmp_path: Path) -> None:
    cpu = 'reserved: "0,8"\n    isolated: "1-7"'
    write(tmp_path, {"topology.yaml": SMT_TOPOLOGY,
                     "profile.yaml": profile("cnf", cpu=cpu, extra="  additionalKernelArgs: [nosmt]\n")})
    found = findings(tmp_path, "performance-profile-cpus")
    assert len(found) == 1 and "nosmt" in found[0]["message"] and "CPUs 8 " in found[0]["message"]


def test_templates_and_kustomize_patches_are_not_checked_as_profiles(tmp_path: Path) -> None:
    template = profile("cnf", cpu="reserved: $reserved\n    isolated: 4-$lastcpu", extra="""  hugepages:
    pages: [{size: 1G, count: $count, node: $node}]
""").replace('node-role.kubernetes.io/worker-cnf: ""', 'node-role.kubernetes.io/$mcp: ""')
    patch = """apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata: {name: perf}
spec:
  nodeSelector:
    $patch: replace
    node-role.kubernetes.io/notexisting: ""
"""
    write(tmp_path, {"template.yaml": template, "patch.yaml": patch, "mcp.yaml": CUSTOM_POOL})
    # each file is not lintable as it is, said once; nothing is checked as a profile
    assert sorted((f["rule"], Path(f["file"]).name) for f in findings(tmp_path)) == [
        ("not-lintable", "patch.yaml"), ("not-lintable", "template.yaml")]


# --- the Node Tuning Operator's webhook -----------------------------------------------------------

def test_reserved_and_isolated_are_required_and_non_empty(tmp_path: Path) -> None:
    write(tmp_path, {"a.yaml": profile("a", "a", cpu='reserved: "0-1"'),
                     "b.yaml": profile("b", "b", cpu='reserved: ""\n    isolated: "2-7"')})
    found = findings(tmp_path, "performance-profile-invalid")
    messages = {Path(f["file"]).name: f["message"] for f in found}
    assert where(found) == ["a.yaml:5:3", "b.yaml:6:15"]
    assert "spec.cpu.isolated is required" in messages["a.yaml"]
    assert "reserved CPUs can not be empty" in messages["b.yaml"]


def test_two_profiles_with_one_node_selector(tmp_path: Path) -> None:
    write(tmp_path, {"a.yaml": profile("du"), "b.yaml": profile("cu"), "mcp.yaml": CUSTOM_POOL})
    found = findings(tmp_path, "performance-profile-invalid")
    assert where(found) == ["a.yaml:8:3", "b.yaml:8:3"]
    assert all("same node selector" in f["message"] and "clusters:" not in f["message"] for f in found)
    assert findings(tmp_path, "kubeletconfig-pool") == []  # said once, by the webhook's rule
    # in two directories they may be two clusters' profiles: the message says how to tell numalint so
    write(tmp_path / "other", {"b.yaml": profile("cu")})
    (tmp_path / "b.yaml").unlink()
    found = findings(tmp_path, "performance-profile-invalid")
    assert len(found) == 2 and all("declare them under `clusters:`" in f["message"] for f in found)
    # two trees (cluster-setup/ci-cluster/performance, cluster-setup/manual-cluster/performance) are taken as two
    # clusters' profiles: the webhook of one cluster never sees the other's
    write(tmp_path / "apart", {"ci-cluster/performance/a.yaml": profile("du"),
                               "manual-cluster/performance/b.yaml": profile("cu")})
    assert findings(tmp_path / "apart", "performance-profile-invalid") == []
    # declared one cluster, they are compared whatever their directories
    write(tmp_path / "apart", {".numalint.yaml": "clusters:\n  lab: [ci-cluster, manual-cluster]\n"})
    found = run("check", "--format", "json", "--fail-on", "never", ".", cwd=tmp_path / "apart").json()["findings"]
    assert len([f for f in found if "same node selector" in f["message"]]) == 2
    # one directory per object inside one cluster's tree (node-tuning/du/, node-tuning/cu/): one webhook sees both
    write(tmp_path / "one", {"node-tuning/du/a.yaml": profile("du"), "node-tuning/cu/b.yaml": profile("cu")})
    assert len(findings(tmp_path / "one", "performance-profile-invalid")) == 2


def test_hugepage_sizes_in_the_operators_spelling(tmp_path: Path) -> None:
    extra = """  hugepages:
    defaultHugepagesSize: 1Gi
    pages:
      - {size: 1G, count: 4, node: 0}
      - {size: 2Mi, count: 128}
      - {size: 1G, count: 2, node: 0}
"""
    write(tmp_path, {"profile.yaml": profile("cnf", extra=extra)})
    found = findings(tmp_path, "performance-profile-invalid")
    assert where(found) == ["profile.yaml:10:27", "profile.yaml:13:16", "profile.yaml:14:9"]
    text = " ".join(f["message"] for f in found)
    assert 'write "1G"' in text and 'write "2M"' in text and "repeats size" in text


def test_a_valid_profile_is_not_reported(tmp_path: Path) -> None:
    extra = """  hugepages:
    defaultHugepagesSize: 1G
    pages: [{size: 1G, count: 4, node: 0}, {size: 2M, count: 128}]
"""
    write(tmp_path, {"profile.yaml": profile("cnf", extra=extra)})
    assert findings(tmp_path, "performance-profile-invalid") == []


# --- unknown fields in the custom resources ---------------------------------------------------------

def test_unknown_fields_of_a_profile_a_kubeletconfig_and_a_topology(tmp_path: Path) -> None:
    write(tmp_path, {
        "profile.yaml": profile("cnf", cpu='reserved: "0-1"\n    isolated: "2-7"\n    offline: "8-15"',
                                extra="  additionalKernelArg: [nosmt]\n"),
        "kc.yaml": """apiVersion: machineconfiguration.openshift.io/v1
kind: KubeletConfig
metadata: {name: k}
spec:
  machineConfigPoolSelectors:
    matchLabels: {pools.operator.machineconfiguration.openshift.io/worker: ""}
  autoSizingReserved: true
  kubeletConfig: {maxPods: 300}
""",
        "topology.yaml": """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: t}
spec:
  socket: 1
  numaNodes:
    - {id: 0, memory: 64Gi, cpus: "0-15", hugepages: {1Gi: 4}}
"""})
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    found = [f for f in result.json()["findings"] if f["rule"] in ("unknown-field", "schema")]
    assert {f["rule"] for f in found} == {"unknown-field"}
    assert where(found) == ["kc.yaml:5:3", "profile.yaml:10:3", "profile.yaml:8:5", "topology.yaml:5:3"]
    suggestions = sorted(f["fix"]["description"] for f in found)
    assert suggestions == ['rename "additionalKernelArg" to "additionalKernelArgs"',
                           'rename "machineConfigPoolSelectors" to "machineConfigPoolSelector"',
                           'rename "offline" to "offlined"', 'rename "socket" to "sockets"']
    fixed = run("fix", str(tmp_path))
    assert fixed.exit_code in (0, 1)
    assert "offlined: " in (tmp_path / "profile.yaml").read_text()
    assert findings(tmp_path, "unknown-field") == []


# --- NodeResourceTopology allocatable / available ----------------------------------------------------

NRT = """apiVersion: topology.node.k8s.io/v1alpha2
kind: NodeResourceTopology
metadata: {name: worker-0}
attributes:
  - {name: topologyManagerPolicy, value: single-numa-node}
zones:
  - name: node-0
    type: Node
    resources:
      - {name: cpu, capacity: "16", allocatable: "14", available: "4"}
      - {name: memory, capacity: 64Gi, allocatable: 63Gi, available: 20Gi}
  - name: node-1
    type: Node
    resources:
      - {name: cpu, capacity: "16", allocatable: "14"}
      - {name: memory, capacity: 64Gi}
"""


def test_the_simulation_starts_from_what_the_nrt_scheduler_plugin_sees(tmp_path: Path) -> None:
    write(tmp_path, {"nrt.yaml": NRT})
    data = json.loads(run("simulate", "--format", "json", str(tmp_path)).output)
    zones = {z["id"]: z["resources"] for z in data["pools"][0]["nodes"][0]["numa_nodes"]}
    assert (zones[0]["cpu"]["capacity"], zones[1]["cpu"]["capacity"]) == (4, 14)
    assert zones[0]["memory"]["capacity"] == 20 * 2**30 and zones[1]["memory"]["capacity"] == 64 * 2**30


def test_topology_import_of_an_nrt_keeps_the_hardware(tmp_path: Path) -> None:
    write(tmp_path, {"nrt.yaml": NRT})
    result = run("topology", "import", str(tmp_path / "nrt.yaml"))
    assert result.exit_code == 0
    assert '- "31"' in result.output and '- "32"' not in result.output  # 2 x 16 CPUs, not 4 + 14


# --- a PerformanceProfile inside a HyperShift ConfigMap ---------------------------------------------

CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: perfprof-1
  namespace: clusters
data:
  tuning: |
    apiVersion: performance.openshift.io/v2
    kind: PerformanceProfile
    metadata:
      name: performance
    spec:
      cpu:
        isolated: "2-7"
        reserved: "0-3"
        offline: "8-15"
      hugepages:
        pages:
          - {size: 1Gi, count: 2}
"""


def test_a_profile_in_a_configmap_is_checked_at_its_lines_in_the_configmap(tmp_path: Path) -> None:
    write(tmp_path, {"cm.yaml": CONFIGMAP, "mcp.yaml": CUSTOM_POOL})
    found = findings(tmp_path)
    assert sorted((f["rule"], f"{f['line']}:{f['column']}") for f in found) == [
        ("performance-profile-cpus", "14:19"), ("performance-profile-invalid", "19:20"),
        ("unknown-field", "16:9")]
    assert all(f["object"]["kind"] == "PerformanceProfile" for f in found)
    run("fix", str(tmp_path))
    assert '        offlined: "8-15"\n' in (tmp_path / "cm.yaml").read_text()


def test_a_profile_in_a_block_with_an_indentation_indicator_is_located_by_it(tmp_path: Path) -> None:
    # "tuning: |2": the content is 2 columns right of the key, whatever the first line's own indentation
    text = CONFIGMAP.replace("  tuning: |\n", "  tuning: |2\n").replace("\n    ", "\n      ")
    write(tmp_path, {"cm.yaml": text, "mcp.yaml": CUSTOM_POOL})
    found = findings(tmp_path)
    assert sorted((f["rule"], f"{f['line']}:{f['column']}") for f in found) == [
        ("performance-profile-cpus", "14:21"), ("performance-profile-invalid", "19:22"),
        ("unknown-field", "16:11")]
    run("fix", str(tmp_path))
    assert '          offlined: "8-15"\n' in (tmp_path / "cm.yaml").read_text()


def test_a_configmap_holding_a_tuned_or_plain_data_is_skipped(tmp_path: Path) -> None:
    tuned = CONFIGMAP.replace("performance.openshift.io/v2", "tuned.openshift.io/v1").replace(
        "PerformanceProfile", "Tuned")
    write(tmp_path, {"tuned.yaml": tuned, "plain.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
                     "data: {tuning: 'kind: PerformanceProfile'}\n"})
    assert findings(tmp_path) == []


def test_a_profile_the_operator_cannot_render_changes_no_kubelet(tmp_path: Path) -> None:
    """A percentage memory.available under restricted: the Node Tuning Operator cannot add it into reservedMemory
    (addStringToQuantity), renders nothing and the profile is Degraded. That is the finding; no kubelet start
    problem of a configuration that is never rendered."""
    profile = """\
apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata:
  name: p
  annotations:
    kubeletconfig.experimental: '{"evictionHard": {"memory.available": "AMOUNT"}}'
spec:
  cpu: {reserved: "0", isolated: "1-7"}
  numa: {topologyPolicy: restricted}
  nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}
"""
    write(tmp_path, {"pp.yaml": profile.replace("AMOUNT", "5%")})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(f["rule"], f["line"]) for f in found] == [("performance-profile-invalid", 6)]
    assert "renders no kubelet configuration" in found[0]["message"]
    write(tmp_path, {"pp.yaml": profile.replace("AMOUNT", "200Mi")})
    assert "performance-profile-invalid" not in run("check", "--format", "json", str(tmp_path)).rules()


ANNOTATED_PROFILE = """apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata:
  name: cnf
  annotations:
    kubeletconfig.experimental: {annotation}
spec:
  cpu: {{reserved: "0", isolated: "1-7"}}
  nodeSelector: {{node-role.kubernetes.io/worker-cnf: ""}}
  numa: {{topologyPolicy: restricted}}
"""
CNF_TOPOLOGY = """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: box}
spec:
  pool:
    nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}
  numaNodes:
  - {id: 0, cpus: "0-3", memory: 16Gi}
  - {id: 1, cpus: "4-7", memory: 16Gi}
"""


def test_a_fix_of_a_value_inside_the_kubeletconfig_annotation_is_a_hint_and_the_annotation_is_kept(
        tmp_path: Path) -> None:
    """Values a PerformanceProfile takes from its kubeletconfig.experimental annotation are located at the whole
    annotation: an edit there replaced the annotation (every other setting in it) with one quantity or word."""
    annotations = [
        "|\n      {\"reservedMemory\": [{\"numaNode\": 0, \"limits\": {\"memory\": \"1Gi\"}}],\n"
        "       \"cpuManagerPolicyOptions\": {\"full-pcpus-only\": \"yes\"}}",
        "'{\"topologyManagerScope\": \"Pod\", "
        "\"reservedMemory\": [{\"numaNode\": 0, \"limits\": {\"memory\": \"1Gi\"}}]}'",
    ]
    for annotation in annotations:
        write(tmp_path, {"pp.yaml": ANNOTATED_PROFILE.format(annotation=annotation), "topo.yaml": CNF_TOPOLOGY})
        before = (tmp_path / "pp.yaml").read_bytes()
        found = findings(tmp_path)
        inside = [f for f in found if f["rule"] in ("reserved-memory-mismatch", "invalid-policy-name",
                                                     "policy-option")]
        assert len(inside) == 2, found
        assert all(not f["fix"]["edits"] for f in inside)
        assert any("kubeletconfig.experimental annotation (by hand" in f["fix"]["description"] for f in inside)
        for command in (["fix", "--unsafe-fixes"], ["check", "--fix", "--unsafe-fixes"]):
            run(*command, str(tmp_path))
            assert (tmp_path / "pp.yaml").read_bytes() == before


def test_a_kubeletconfig_that_selects_no_pool_is_not_the_topologys_kubelet(tmp_path: Path) -> None:
    """The only KubeletConfig of a run went with the only NodeTopology even when it selected none of the run's
    MachineConfigPools (kubeletconfig-pool said its settings reach no node): its single-numa-node policy then
    rejected a pod the nodes, running the kubelet's defaults, admit."""
    selector = "machineConfigPoolSelector:\n    matchLabels: {machineconfiguration.openshift.io/role: ROLE}\n"
    kubelet = ("apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {name: cnf}\n"
               "spec:\n  " + selector + "  kubeletConfig:\n    cpuManagerPolicy: static\n"
               "    reservedSystemCPUs: \"0\"\n    topologyManagerPolicy: single-numa-node\n")
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  nodeSelector: "
           "{node-role.kubernetes.io/worker-cnf: \"\"}\n  containers:\n  - name: c\n    image: x\n    resources:\n"
           "      limits: {cpu: \"6\", memory: 1Gi}\n")
    for role, rejected in (("worker-cnf", True), ("worker-cnff", False)):
        write(tmp_path, {"mcp.yaml": CUSTOM_POOL, "kc.yaml": kubelet.replace("ROLE", role),
                         "topo.yaml": CNF_TOPOLOGY, "pod.yaml": pod})
        rules = {f["rule"] for f in findings(tmp_path)}
        assert ("admission-failure" in rules) == rejected, rules
        assert ("kubeletconfig-pool" in rules) == (not rejected), rules


@pytest.mark.parametrize(("annotation", "why"), [
    ('"pod"', "is not JSON"),
    ("'{bad'", "is not JSON"),
    ("'[1]'", "is a JSON array, not an object"),
    ("'{\"cpuManagerPolicyOptions\": {\"full-pcpus-only\": true}}'", "cpuManagerPolicyOptions.full-pcpus-only = true"),
    ("'{\"systemReserved\": {\"memory\": 600}}'", "systemReserved.memory = 600"),
    ("'{\"CPUManagerPolicy\": 3}'", "cpuManagerPolicy = 3"),  # Go matches field names without regard to case
    ("'{\"cpuManagerReconcilePeriod\": \"5 s\"}'", 'cpuManagerReconcilePeriod = "5 s"'),
    ("'{\"maxPods\": 1e2}'", "maxPods = 1e2"),  # Go decodes no exponent into an int32
    ("'{\"maxPods\": 3000000000}'", "maxPods = 3000000000"),  # nor a number beyond an int32
    ("'{\"maxPods\": NaN}'", "is not JSON"),
])
def test_an_annotation_the_operator_cannot_unmarshal_is_reported(tmp_path: Path, annotation: str, why: str) -> None:
    """NTO json.Unmarshal-s the annotation into a KubeletConfiguration: text that is not a JSON object, or a
    value of another type, fails it, and the profile renders nothing (it is Degraded)."""
    write(tmp_path, {"pp.yaml": ANNOTATED_PROFILE.format(annotation=annotation).replace(
        "  numa: {topologyPolicy: restricted}\n", "")})
    found = findings(tmp_path)
    assert [f["rule"] for f in found] == ["performance-profile-invalid"], found
    assert why in found[0]["message"] and "cannot unmarshal" in found[0]["message"]


@pytest.mark.parametrize("annotation", ["'null'",
                                        "'{\"systemReserved\": {\"memory\": \"600Mi\"}, \"unknownField\": 1}'",
                                        "'{\"reservedMemory\": null, \"topologyManagerScope\": null}'",
                                        "'{\"cpuManagerReconcilePeriod\": \".5s\", \"maxPods\": 500}'",
                                        "'{\"maxPods\": 2147483647, \"podPidsLimit\": 9223372036854775807}'",
                                        "'{\"clusterDNS\": [null]}'"])
def test_an_annotation_the_operator_unmarshals_is_not_reported(tmp_path: Path, annotation: str) -> None:
    write(tmp_path, {"pp.yaml": ANNOTATED_PROFILE.format(annotation=annotation).replace(
        "  numa: {topologyPolicy: restricted}\n", "")})
    assert "performance-profile-invalid" not in [f["rule"] for f in findings(tmp_path)]


TEN_NUMA = ("apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: big}\nspec:\n  pool:\n"
            '    nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}\n  numaNodes:\n'
            + "".join(f'  - {{id: {i}, cpus: "{i * 4}-{i * 4 + 3}", memory: 8Gi}}\n' for i in range(10)))


def test_hints_on_a_performance_profile_pool_name_what_the_profile_can_hold(tmp_path: Path) -> None:
    """A PerformanceProfile has no topologyManagerPolicyOptions or topologyManagerScope: written into its spec,
    they are pruned. The hints name spec.numa.topologyPolicy and the kubeletconfig.experimental annotation, and
    following the annotation hint clears the error."""
    profile = ANNOTATED_PROFILE.replace("  annotations:\n    kubeletconfig.experimental: {annotation}\n", "{extra}")
    profile = profile.replace('isolated: "1-7"', 'isolated: "1-39"')
    write(tmp_path, {"pp.yaml": profile.format(extra=""), "topo.yaml": TEN_NUMA})
    hint = next(f["fix"]["description"] for f in findings(tmp_path, "too-many-numa-nodes"))
    assert '"max-allowable-numa-nodes": "10"' in hint and "kubeletconfig.experimental annotation" in hint, hint
    assert "spec.numa.topologyPolicy: none" in hint
    annotation = ("  annotations:\n    kubeletconfig.experimental: "
                  "'{\"topologyManagerPolicyOptions\": {\"max-allowable-numa-nodes\": \"10\"}}'\n")
    write(tmp_path, {"pp.yaml": profile.format(extra=annotation)})
    assert findings(tmp_path, "too-many-numa-nodes") == []


def test_an_admission_hint_on_a_performance_profile_pool_names_its_topology_policy(tmp_path: Path) -> None:
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec:\n  nodeSelector: "
           "{node-role.kubernetes.io/worker-cnf: \"\"}\n  containers:\n  - {name: c, image: x, resources: "
           "{limits: {cpu: \"6\", memory: 1Gi}}}\n")
    profile = ANNOTATED_PROFILE.replace("  annotations:\n    kubeletconfig.experimental: {annotation}\n", "").format()
    write(tmp_path, {"pp.yaml": profile, "topo.yaml": CNF_TOPOLOGY, "pod.yaml": pod})
    hint = next(f["fix"]["description"] for f in findings(tmp_path, "admission-failure"))
    assert "set spec.numa.topologyPolicy: best-effort in PerformanceProfile cnf" in hint, hint
    assert "kubelet configuration" not in hint
    write(tmp_path, {"pp.yaml": profile.replace("topologyPolicy: restricted", "topologyPolicy: best-effort")})
    assert findings(tmp_path, "admission-failure") == []


POD = """apiVersion: v1
kind: Pod
metadata: {{name: dpdk}}
spec:
  containers:
    - name: app
      image: x
      resources: {{limits: {{cpu: "2", memory: 1Gi, hugepages-1Gi: {limit}}}, requests: {{hugepages-1Gi: 1Gi}}}}
"""


def test_one_workload_name_in_two_clusters_trees_is_two_objects_each_checked(tmp_path: Path) -> None:
    # clusters/east/... and clusters/west/...: a Pod of one name in each is each cluster's own, not a duplicate;
    # west's hugepages request below its limit is reported
    write(tmp_path, {"clusters/east/apps/pod.yaml": POD.format(limit="1Gi"),
                     "clusters/west/apps/pod.yaml": POD.format(limit="2Gi")})
    found = findings(tmp_path)
    assert [f["rule"] for f in found] == ["invalid-resources"], found
    assert "clusters/west/" in found[0]["file"]
    # in one tree, the second definition is a duplicate
    write(tmp_path / "one", {"apps/a/pod.yaml": POD.format(limit="1Gi"), "apps/b/pod.yaml": POD.format(limit="2Gi")})
    assert sorted(f["rule"] for f in findings(tmp_path / "one")) == ["duplicate-object", "invalid-resources"]


def test_node_side_namesakes_in_two_trees_stay_one_definition(tmp_path: Path) -> None:
    # kubelet configurations, pools and topologies are looked up by name across the run: the second definition
    # of a name is a duplicate however far apart, and the finding says how to declare the clusters
    write(tmp_path, {"clusters/east/node-tuning/kc.yaml": kubeletconfig("cpumanager", WORKER),
                     "clusters/west/node-tuning/kc.yaml": kubeletconfig(
                         "cpumanager", WORKER, "{cpuManagerPolicy: static, topologyManagerPolicy: single-numa-nod}")})
    found = findings(tmp_path)
    assert [f["rule"] for f in found] == ["duplicate-object"], found
    assert "declare them under `clusters:`" in found[0]["message"]
    write(tmp_path, {".numalint.yaml": "clusters:\n  east: [clusters/east]\n  west: [clusters/west]\n"})
    result = run("check", "--format", "json", "--fail-on", "never", "clusters", cwd=tmp_path)
    assert [f["rule"] for f in result.json()["findings"]] == ["invalid-policy-name"]


def test_configurations_for_the_built_in_worker_pool_compete_only_near_each_other(tmp_path: Path) -> None:
    write(tmp_path, {"clusters/east/tuning/kc.yaml": kubeletconfig("pods", WORKER),
                     "clusters/west/tuning/kc.yaml": kubeletconfig("cpu", WORKER)})
    assert findings(tmp_path, "kubeletconfig-pool") == []
    # one directory: they compete, and nothing hints at clusters
    write(tmp_path, {"clusters/west/tuning/kc2.yaml": kubeletconfig("scope", WORKER)})
    found = findings(tmp_path, "kubeletconfig-pool")
    assert where(found) == ["kc.yaml:5:3", "kc2.yaml:5:3"]
    assert all("KubeletConfig cpu" in f["message"] and "KubeletConfig pods" not in f["message"]
               and "`clusters:`" not in f["message"] for f in found), found
    # one directory per cluster is too close to tell: they compete, and the finding says how to tell
    write(tmp_path / "flat", {"east/kc.yaml": kubeletconfig("pods", WORKER),
                              "west/kc.yaml": kubeletconfig("cpu", WORKER)})
    flat = findings(tmp_path / "flat", "kubeletconfig-pool")
    assert len(flat) == 2 and all("declare the clusters under `clusters:`" in f["message"] for f in flat)
    # declared as one cluster, two trees compete
    write(tmp_path, {".numalint.yaml": "clusters:\n  all: [clusters]\n"})
    declared = run("check", "--format", "json", "--fail-on", "never", "clusters", cwd=tmp_path).json()["findings"]
    assert len([f for f in declared if f["rule"] == "kubeletconfig-pool"]) == 3


def test_configurations_compete_for_the_only_pool_of_its_name_wherever_it_is_defined(tmp_path: Path) -> None:
    # one cluster: the pool under day2/, its two KubeletConfigs under tuning/ (each two directories below the
    # cluster's): with one definition of the pool, nearness to its file does not matter
    role = "machineconfiguration.openshift.io/role: worker-cnf"
    write(tmp_path, {"cluster/day2/mcp/worker-cnf.yaml": CUSTOM_POOL,
                     "cluster/tuning/kubelet/cpu.yaml": kubeletconfig("cpu", role),
                     "cluster/tuning/kubelet/pods.yaml": kubeletconfig("pods", role)})
    assert where(findings(tmp_path, "kubeletconfig-pool")) == ["cpu.yaml:5:3", "pods.yaml:5:3"]


def test_forty_clusters_trees_of_one_workload_name_are_each_checked(tmp_path: Path) -> None:
    files = {f"clusters/c{n:02}/apps/pod.yaml": POD.format(limit="1Gi") for n in range(1, 41)}
    files["clusters/c40/apps/pod.yaml"] = POD.format(limit="2Gi")
    write(tmp_path, files)
    assert [(f["rule"], Path(f["file"]).parts[-3]) for f in findings(tmp_path)] == [("invalid-resources", "c40")]


def test_among_many_profiles_a_workload_goes_to_the_pools_its_node_selection_picks(tmp_path: Path) -> None:
    # past 16 pools only those declaring a label a workload asks for are tried (an index): the same pools as before
    profiles = "".join(f"---\napiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {{name: "
                       f"pp{i}}}\nspec: {{cpu: {{isolated: '2-3', reserved: '0-1'}}, nodeSelector: "
                       f"{{node-role.kubernetes.io/w{i}: ''}}}}\n" for i in range(20))

    def pod(name: str, selection: str) -> str:
        return (f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{selection}  containers:\n"
                "  - {name: c, image: x, resources: {limits: {cpu: 500m, memory: 1Gi}}}\n")

    def affinity(expression: str) -> str:
        return ("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
                f"[{{matchExpressions: [{expression}]}}]}}}}}}\n")
    pods = (pod("by-selector", "  nodeSelector: {node-role.kubernetes.io/w7: ''}\n")
            + pod("by-in", affinity("{key: node-role.kubernetes.io/w12, operator: In, values: ['']}"))
            + pod("by-exists", affinity("{key: node-role.kubernetes.io/w15, operator: Exists}"))
            + pod("by-selector-and-in", "  nodeSelector: {feature: x, node-role.kubernetes.io/w3: ''}\n"
                  + affinity("{key: node-role.kubernetes.io/w3, operator: In, values: ['']}"))
            + pod("contradicting", "  nodeSelector: {node-role.kubernetes.io/w3: 'no'}\n")
            + pod("unknown-label", "  nodeSelector: {kubernetes.io/hostname: n1}\n")
            + pod("anywhere", ""))
    write(tmp_path, {"profiles.yaml": profiles, "pods.yaml": pods})
    pools = {f["object"]["name"]: re.findall(r'pool "(pp\d+)"', f["message"])
             for f in findings(tmp_path, "fractional-cpu")}
    assert pools == {"by-selector": ["pp7"], "by-in": ["pp12"], "by-exists": ["pp15"], "by-selector-and-in": ["pp3"]}


def test_a_profile_without_a_node_selector_is_told_the_label_of_its_pools_nodes(tmp_path: Path) -> None:
    """The hint names the node label of the one MachineConfigPool the profile's machineConfigPoolSelector picks,
    not an example label of another role (found by a precision review: worker-cnf beside a pool of role ht)."""
    profile = ("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {name: ht}\nspec:\n"
               "  cpu: {isolated: 2-15, reserved: 0-1}\n"
               "  machineConfigPoolSelector: {machineconfiguration.openshift.io/role: ht}\n")
    pool = ("apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata:\n  name: ht\n"
            "  labels: {machineconfiguration.openshift.io/role: ht}\nspec:\n"
            "  machineConfigSelector: {matchExpressions: [{key: machineconfiguration.openshift.io/role, "
            "operator: In, values: [worker, ht]}]}\n"
            "  nodeSelector: {matchLabels: {node-role.kubernetes.io/ht: ''}}\n")
    write(tmp_path / "pool", {"pp.yaml": profile, "mcp.yaml": pool})
    [found] = [f for f in findings(tmp_path / "pool", "performance-profile-invalid") if "nodeSelector" in f["message"]]
    assert found["fix"]["description"] == ('add spec.nodeSelector, {node-role.kubernetes.io/ht: ""}, the nodes of '
                                           "MachineConfigPool ht it configures")
    write(tmp_path / "alone", {"pp.yaml": profile})
    [found] = [f for f in findings(tmp_path / "alone", "performance-profile-invalid") if "nodeSelector" in f["message"]]
    assert found["fix"]["description"] == 'add spec.nodeSelector, e.g. {node-role.kubernetes.io/worker-cnf: ""}'
