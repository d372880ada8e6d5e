"""Bugs a review of this change found, each pinned through the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import run, write

BAD_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: c
      image: c
      resources:
        requests: {hugepages-2Mi: 1Gi, memory: 1Gi, cpu: "1"}
        limits: {hugepages-2Mi: 2Gi, memory: 1Gi, cpu: "1"}
"""


def test_selection_never_hides_unreadable_input(tmp_path: Path) -> None:
    write(tmp_path, {"bad.yaml": "a: [\n"})
    result = run("check", "--format", "json", "--select", "NL2", str(tmp_path / "bad.yaml"),
                 str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2 and result.rules() == ["yaml-syntax", "yaml-syntax"]
    assert run("check", "--select", "", str(tmp_path)).exit_code == 2


def test_suppressions_of_rules_not_run_are_not_unused(tmp_path: Path) -> None:
    suppressed = BAD_POD.replace("        requests:", "        # numalint: disable=NL203\n        requests:")
    write(tmp_path, {"p.yaml": suppressed})
    assert run("check", "--format", "json", "--select", "NL1", str(tmp_path)).rules() == []
    assert run("check", "--format", "json", "--ignore", "NL203", str(tmp_path)).rules() == []


def test_context_files_report_no_unused_suppression(tmp_path: Path) -> None:
    write(tmp_path, {"nodes/k.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                     "cpuManagerPolicy: none  # numalint: disable=schema\n",
                     "apps/p.yaml": BAD_POD, ".numalint.yaml": "context: [nodes]\n"})
    files = {Path(f["file"]).name for f in run("check", "--format", "json", "apps", cwd=tmp_path).json()["findings"]}
    assert files == {"p.yaml"}


def test_disable_file_in_a_helm_stream_covers_its_own_template_only(tmp_path: Path) -> None:
    stream = ("---\n# Source: chart/templates/a.yaml\n# numalint: disable-file\n"
              "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
              "---\n# Source: chart/templates/b.yaml\n" + BAD_POD)
    result = run("check", "--format", "json", "-", stdin=stream)
    assert {f["file"] for f in result.json()["findings"] if f["rule"] == "invalid-resources"} == {
        "chart/templates/b.yaml"}


def test_several_disable_file_lines_add_up(tmp_path: Path) -> None:
    write(tmp_path, {"p.yaml": "# numalint: disable-file=NL203\n# numalint: disable-file=NL202\n"
                               + BAD_POD.replace('cpu: "1"', "cpu: 1500m, nvidia.com/gpu: 1")})
    assert run("check", "--format", "json", str(tmp_path)).rules() == []


def test_cluster_globs_naming_directories_cover_their_files(tmp_path: Path) -> None:
    kubelet = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
    write(tmp_path, {"g/east-prod/k.yaml": kubelet, ".numalint.yaml": "clusters:\n  prod: ['g/*-prod']\n"})
    [finding] = run("check", "--format", "json", str(tmp_path / "g")).json()["findings"]
    assert finding["cluster"] == "prod"


def test_statistics_replace_json_on_stdout(tmp_path: Path) -> None:
    write(tmp_path, {"p.yaml": BAD_POD})
    out = run("check", "--statistics", "-f", "json", str(tmp_path)).output
    assert "invalid-resources" in out
    try:
        json.loads(out)
    except json.JSONDecodeError:
        pass
    else:
        raise AssertionError("statistics should replace the JSON on stdout")


def test_a_patch_named_alone_is_still_a_patch(tmp_path: Path) -> None:
    write(tmp_path, {"overlay/kustomization.yaml": "resources: [../base]\npatches:\n  - path: patch.yaml\n",
                     "overlay/patch.yaml": BAD_POD})
    result = run("check", "--format", "json", str(tmp_path / "overlay" / "patch.yaml"))
    assert result.rules() == ["not-lintable"] and result.exit_code == 0


def test_no_cpu_reservation_does_not_suggest_reserved_cpus_next_to_a_reserved_cgroup(tmp_path: Path) -> None:
    """reservedSystemCPUs with systemReservedCgroup stops the kubelet (reserved-cpus-conflict): the hint offers
    only the quantities, and following it leaves a kubelet that starts."""
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
               "systemReservedCgroup: /system.slice\nenforceNodeAllocatable: [pods, system-reserved]\n"
               "systemReserved: {memory: 1Gi}\n")
    write(tmp_path, {"kc.yaml": kubelet})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    hint = next(f["fix"]["description"] for f in found if f["rule"] == "no-cpu-reservation")
    assert "reservedSystemCPUs:" not in hint and 'systemReserved: {cpu: "1"}' in hint
    write(tmp_path, {"kc.yaml": kubelet.replace("{memory: 1Gi}", '{memory: 1Gi, cpu: "1"}')})
    assert run("check", "--format", "json", str(tmp_path)).rules() == []


def test_a_number_for_a_cpu_list_is_not_offered_as_written_when_cpuset_parse_refuses_it(tmp_path: Path) -> None:
    """`reservedSystemCPUs: 1.0`: quoting "1.0" as written stops the kubelet as surely (cpuset.Parse refuses
    it), so the hint offers only what YAML read; `010` is read as written ("010" is CPU 10) and is fixed."""
    for written, hint in (("1.0", 'write "1" if that is what you mean'), ("0x1", 'write "1" if'),
                          ("1_0", 'write "10" if')):
        write(tmp_path, {"kc.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                    f"cpuManagerPolicy: static\nreservedSystemCPUs: {written}\n"})
        found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
        fix = next(f["fix"] for f in found if f["rule"] == "schema")
        assert fix["description"].startswith(hint) and f'"{written}" as written' not in fix["description"], fix
        assert not fix["edits"]


def test_not_guaranteed_says_to_add_the_limits_a_container_lacks(tmp_path: Path) -> None:
    """"set requests equal to its limits" told a container without limits nothing it could do."""
    write(tmp_path, {"pod.yaml": """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: a, image: x, resources: {limits: {cpu: "4", memory: 1Gi}}}
  - {name: b, image: x}
  - {name: c, image: x, resources: {requests: {cpu: 100m, memory: 64Mi}}}
  - {name: d, image: x, resources: {requests: {cpu: "1", memory: 1Gi}, limits: {cpu: "2"}}}
  - {name: e, image: x, resources: {requests: {cpu: "0", memory: 1Gi}, limits: {memory: 1Gi}}}
"""})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [f["fix"]["description"] for f in found if f["rule"] == "not-guaranteed"] == [
        'container "b": add cpu and memory limits (the requests default to them)',
        'container "c": add cpu and memory limits equal to its requests',
        'container "d": set its cpu request equal to its limit; add a memory limit equal to its request',
        'container "e": set its cpu request and limit to the same amount above 0']  # a written 0 stays 0


def test_an_admission_fix_that_would_reject_another_pod_is_not_offered(tmp_path: Path) -> None:
    """Pod scope admits b, but a (two containers of 3 CPUs, admitted one per NUMA node under container scope)
    no longer fits one NUMA node: "set topologyManagerScope: pod" is no fix. Following each hint offered leaves
    no admission-failure."""
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
               'reservedSystemCPUs: "0"\ntopologyManagerPolicy: single-numa-node\n')
    pods = """apiVersion: v1
kind: Pod
metadata: {name: a}
spec:
  containers:
  - {name: a1, image: x, resources: {limits: {cpu: "3", memory: 1Gi}}}
  - {name: a2, image: x, resources: {limits: {cpu: "3", memory: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec:
  containers:
  - {name: b1, image: x, resources: {limits: {cpu: "1", memory: 1Gi, nvidia.com/gpu: 1}}}
"""
    topology = """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: box}
spec:
  numaNodes:
    - {id: 0, cpus: "0-3", memory: 16Gi}
    - {id: 1, cpus: "4-7", memory: 16Gi}
  devices:
    - {resource: nvidia.com/gpu, numaNode: 0, count: 1}
"""
    write(tmp_path, {"kc.yaml": kubelet, "pods.yaml": pods, "topo.yaml": topology})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    hint = next(f["fix"]["description"] for f in found if f["rule"] == "admission-failure")
    assert "topologyManagerScope: pod" not in hint and "topologyManagerPolicy: best-effort" in hint, hint
    for change in ("topologyManagerScope: pod\n", "topologyManagerPolicy: best-effort\n"):
        write(tmp_path, {"kc.yaml": kubelet.replace("topologyManagerPolicy: single-numa-node\n", "")
                         + (change if "Policy" in change else "topologyManagerPolicy: single-numa-node\n" + change)})
        rejected = [f for f in run("check", "--format", "json", str(tmp_path)).json()["findings"]
                    if f["rule"] == "admission-failure"]
        assert bool(rejected) == ("Scope" in change), rejected


def test_too_many_numa_nodes_names_the_feature_gate_a_beta_option_needs(tmp_path: Path) -> None:
    topology = ("apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: big}\nspec:\n  numaNodes:\n"
                + "".join(f'  - {{id: {i}, cpus: "{i * 4}-{i * 4 + 3}", memory: 8Gi}}\n' for i in range(10)))
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
               'reservedSystemCPUs: "0"\ntopologyManagerPolicy: restricted\nmemoryManagerPolicy: None\n'
               "featureGates: {TopologyManagerPolicyBetaOptions: false}\n")
    write(tmp_path, {"topo.yaml": topology, "kc.yaml": kubelet})
    found = run("check", "--format", "json", "--kubernetes-version", "1.33", str(tmp_path)).json()["findings"]
    hint = next(f["fix"]["description"] for f in found if f["rule"] == "too-many-numa-nodes")
    # the gate is written (false): "set" it, not a second featureGates
    assert "set featureGates.TopologyManagerPolicyBetaOptions: true" in hint, hint
    write(tmp_path, {"kc.yaml": kubelet.replace("false}", "true}") + 'topologyManagerPolicyOptions: '
                     '{max-allowable-numa-nodes: "10"}\n'})
    found = run("check", "--format", "json", "--kubernetes-version", "1.33", str(tmp_path)).json()["findings"]
    assert "too-many-numa-nodes" not in [f["rule"] for f in found]


def test_a_duplicate_kubelet_field_hint_keeps_the_one_the_kubelet_uses(tmp_path: Path) -> None:
    """`topologyManagerPolicy: Restricted` then `best-effort`: the kubelet runs with the last; "remove one of
    them" could remove it and bring the invalid first one back. Following the hint leaves nothing to report."""
    head = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
    tail = 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\ntopologyManagerPolicy: best-effort\n'
    write(tmp_path, {"kc.yaml": head + "topologyManagerPolicy: Restricted\n" + tail})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [f["rule"] for f in found] == ["unknown-field"]
    assert 'remove the earlier "topologyManagerPolicy" entries and keep the last (line 6)' in \
        found[0]["fix"]["description"]
    write(tmp_path, {"kc.yaml": head + tail})
    assert run("check", "--format", "json", str(tmp_path)).rules() == []


def test_a_kubelet_change_is_judged_on_the_pool_placed_again(tmp_path: Path) -> None:
    """Under best-effort pod a (5 CPUs) is admitted on w-0, and the scheduler then puts b on w-1: both run.
    Replaying the old placements kept b on w-0 and called it lost, so the working change was not offered."""
    write(tmp_path, {
        "kc.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
                   'reservedSystemCPUs: "0"\ntopologyManagerPolicy: single-numa-node\n',
        "pods.yaml": "".join(
            f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers:\n  - {{name: c, "
            f'image: x, resources: {{limits: {{cpu: "{cpu}", memory: 1Gi}}}}}}\n'
            for name, cpu in (("a", 5), ("b", 4))),
        "topo.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: w}\nspec:\n"
                     "  pool: {nodes: 2}\n  numaNodes:\n  - {id: 0, cpus: \"0-3\", memory: 16Gi}\n"
                     "  - {id: 1, cpus: \"4-7\", memory: 16Gi}\n"})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    hint = next(f["fix"]["description"] for f in found if f["rule"] == "admission-failure")
    assert "topologyManagerPolicy: best-effort" in hint, hint
    kubelet = (tmp_path / "kc.yaml").read_text().replace("single-numa-node", "best-effort")
    write(tmp_path, {"kc.yaml": kubelet})
    assert "admission-failure" not in run("check", "--format", "json", str(tmp_path)).rules()


KC_SNN = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmetadata: {name: kubelet}\n"
          'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\ntopologyManagerPolicy: single-numa-node\n')


def _topology(name: str, nodes: int, numa1: str = "4-7", selector: str = "", extra: str = "") -> str:
    pool = f"{{nodes: {nodes}, kubeletConfig: kubelet{', nodeSelector: {' + selector + '}' if selector else ''}}}"
    return (f"---\napiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: {name}}}\nspec:\n"
            f"  pool: {pool}\n  numaNodes:\n  - {{id: 0, cpus: \"0-3\", memory: 16Gi}}\n"
            f"  - {{id: 1, cpus: \"{numa1}\", memory: 16Gi}}\n{extra}")


def _pod(name: str, cpu: str, namespace: str = "ns", selector: str = "", kind: str = "Pod",
         containers: str = "") -> str:
    spec = "spec:\n" + (f"  nodeSelector: {{{selector}}}\n" if selector else "")
    body = containers or f'  - {{name: c, image: x, resources: {{limits: {{cpu: "{cpu}", memory: 1Gi}}}}}}\n'
    if kind == "Pod":
        return f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: {namespace}}}\n{spec}" \
               f"  containers:\n{body}"
    return (f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}, namespace: {namespace}}}\n"
            "spec:\n  replicas: 1\n  template:\n    spec:\n" + "".join("    " + line + "\n" for line in (
                spec.splitlines()[1:] + ["  containers:"] + body.splitlines())))


def _hints(tmp_path: Path, *args: str) -> list[str]:
    found = run("check", "--format", "json", *args, str(tmp_path)).json()["findings"]
    return [f["fix"]["description"] for f in found if f["rule"] == "admission-failure"]


def test_a_working_kubelet_change_is_offered_for_every_pod_it_admits(tmp_path: Path) -> None:
    """Under best-effort a goes to w-0 and t to w-1; replaying t's old node first (where a now runs) vetoed it."""
    write(tmp_path, {"all.yaml": KC_SNN + _topology("w", 2) + _pod("a", "5") + _pod("t", "5")})
    hints = _hints(tmp_path)
    assert len(hints) == 2 and all("best-effort" in h for h in hints), hints


def test_a_kubelet_change_is_verified_from_the_node_state(tmp_path: Path) -> None:
    """--node-state: CPUs 4-7 are taken already; under best-effort the pod is still short of CPUs."""
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "cpu_manager_state").write_text(
        '{"policyName":"static","defaultCpuSet":"0-3","entries":{"u":{"app":"4-7"}},"checksum":1}')
    write(tmp_path, {"all.yaml": KC_SNN + _topology("w", 1) + _pod("t", "4")})
    hints = _hints(tmp_path, "--node-state", str(tmp_path / "state"))
    assert hints and all("best-effort" not in h and "Scope" not in h for h in hints), hints


def test_pods_of_the_same_name_are_told_apart_when_a_change_is_verified(tmp_path: Path) -> None:
    """Pod ns/web (3 + 5 CPUs, admitted by container scope) and Deployment ns/web: pod scope admits the
    Deployment's pod but rejects the Pod; the names matched, so the change was offered."""
    two = ('  - {name: a, image: x, resources: {limits: {cpu: "3", memory: 1Gi}}}\n'
           '  - {name: b, image: x, resources: {limits: {cpu: "5", memory: 1Gi}}}\n')
    gpu = '  - {name: c, image: x, resources: {limits: {cpu: "1", memory: 1Gi, example.com/gpu: 1}}}\n'
    write(tmp_path, {"all.yaml": KC_SNN + _topology("w", 1, "4-10", extra="  devices:\n  - {resource: "
                                                    "example.com/gpu, numaNode: 0, count: 1}\n")
                     + _pod("web", "", containers=two) + _pod("web", "", kind="Deployment", containers=gpu)})
    assert all("topologyManagerScope: pod" not in h for h in _hints(tmp_path))


def test_a_kubelet_change_is_verified_on_every_pool_the_configuration_runs(tmp_path: Path) -> None:
    """Pools pa and pb both run kubelet.yaml: best-effort admits ns/x on pa but loses nb/small on pb."""
    write(tmp_path, {"all.yaml": KC_SNN + _topology("pa", 1, "4-10", "pool: a") + _topology("pb", 1, "4-10", "pool: b")
                     + _pod("x", "8", selector="pool: a") + _pod("x", "8", "nb", "pool: b")
                     + _pod("small", "3", "nb", "pool: b")})
    hints = _hints(tmp_path)
    assert hints and all("best-effort" not in h for h in hints), hints


def test_a_pod_level_request_defaults_to_what_the_containers_request(tmp_path: Path) -> None:
    """KEP-2837: with a pod-level cpu limit of 3 and a container requesting 1, the pod requests 1, not 3: three
    replicas fit one 7-CPU node."""
    dep = ("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: pl, namespace: ns}\nspec:\n  replicas: 3\n"
           "  template:\n    spec:\n      resources: {limits: {cpu: \"3\", memory: 1Gi}}\n      containers:\n"
           '      - {name: c, image: x, resources: {requests: {cpu: "1"}}}\n')
    write(tmp_path, {"all.yaml": KC_SNN + _topology("w", 1) + dep})
    assert _hints(tmp_path, "--kubernetes-version", "1.34") == []


def test_a_template_annotation_covers_the_document_even_when_its_spec_is_wrong(tmp_path: Path) -> None:
    write(tmp_path, {"d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
                               "  selector: {matchLabels: {a: b}}\n  template:\n    metadata:\n      annotations:\n"
                               "        numalint.io/disable: schema\n    spec: 5\n"})
    found = run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
    assert [f["rule"] for f in found if f["rule"] == "schema"] == []


def test_not_guaranteed_says_the_cpu_must_be_whole_where_no_container_would_have_whole_cpus(tmp_path: Path) -> None:
    """Following "add cpu and memory limits" with a fraction made the pod Guaranteed and still gave it no exclusive
    CPUs (fractional-cpu then said so): where no container would have whole CPUs once Guaranteed, the fix says the
    cpu must be whole (found by a review of public manifests: a CRI-O-annotated Deployment with no resources)."""
    write(tmp_path, {"pods.yaml": """apiVersion: apps/v1
kind: Deployment
metadata: {name: tuned}
spec:
  selector: {matchLabels: {app: t}}
  template:
    metadata:
      labels: {app: t}
      annotations: {cpu-quota.crio.io: "disable"}
    spec:
      containers:
      - {name: c, image: x}
---
apiVersion: v1
kind: Pod
metadata: {name: fraction, annotations: {cpu-load-balancing.crio.io: "disable"}}
spec:
  containers:
  - {name: app, image: x, resources: {requests: {cpu: 1500m, memory: 1Gi}}}
---
apiVersion: v1
kind: Pod
metadata: {name: whole, annotations: {cpu-load-balancing.crio.io: "disable"}}
spec:
  containers:
  - {name: app, image: x, resources: {requests: {cpu: "2", memory: 1Gi}}}
  - {name: logs, image: x}
"""})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [f["fix"]["description"] for f in found if f["rule"] == "not-guaranteed"] == [
        'container "c": add cpu and memory limits (the requests default to them); make the cpu a whole number: only '
        'whole CPUs are exclusive',
        'container "app": add cpu and memory limits equal to its requests; make its cpu a whole number: 1500m gets '
        'no exclusive CPUs',
        # beside a container that would have whole CPUs, the others may be its sidecars: nothing more is said
        'container "app": add cpu and memory limits equal to its requests',
        'container "logs": add cpu and memory limits (the requests default to them)']


def test_a_pod_scope_finding_lists_its_resources_in_the_same_order_in_every_run(tmp_path: Path) -> None:
    """The pod's resources came from a set, whose order changes from one process to the next (string hashing):
    exceeds-numa-node listed "b.com/nic" and "c.com/x" one way or the other (found by comparing runs)."""
    write(tmp_path, {"topology.yaml": """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: t}
spec:
  pool: {nodes: 1, kubeletConfig: kubelet}
  sockets: 1
  threadsPerCore: 1
  numaNodes:
  - {id: 0, cpus: '0-7', memory: 64Gi}
  - {id: 1, cpus: '8-15', memory: 64Gi}
  devices:
  - {resource: c.com/x, numaNode: 0, count: 3}
  - {resource: b.com/nic, numaNode: 1, count: 1}
  - {resource: e.com/a, numaNode: 0, count: 1}
  - {resource: a.com/b, numaNode: 1, count: 1}
  - {resource: d.com/c, numaNode: 0, count: 1}
""", "kubelet.yaml": """apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "0"
topologyManagerPolicy: single-numa-node
topologyManagerScope: pod
""", "pod.yaml": """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - {name: a, image: x, resources: {limits: {cpu: "1", memory: 1Gi, c.com/x: "7", b.com/nic: "3", e.com/a: "2",
                                              a.com/b: "2", d.com/c: "2"}}}
"""})
    messages = set()
    for seed in ("1", "2", "3", "4", "5", "6"):
        result = subprocess.run([sys.executable, "-m", "numalint", "check", "--format", "json", str(tmp_path)],
                                capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        messages.add(next(f["message"] for f in json.loads(result.stdout)["findings"]
                          if f["rule"] == "exceeds-numa-node"))
    assert len(messages) == 1, messages
    assert ("7 c.com/x requested, at most 3 on one NUMA node; 3 b.com/nic requested, at most 1 on one NUMA node; 2 "
            "e.com/a requested, at most 1 on one NUMA node; 2 a.com/b requested") in messages.pop()


def test_resources_alike_but_for_their_case_are_all_suggested_in_the_same_order_in_every_run(tmp_path: Path) -> None:
    """Two policies' resourceNames alike but for their case (sriovNic, SriovNic): the fix of a network naming
    sriovNlc named one or the other, as a set's order came out in that run (found comparing runs under several
    hash seeds)."""
    policy = ("apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata: {{name: {name}, "
              "namespace: openshift-sriov-network-operator}}\nspec: {{resourceName: {resource}, numVfs: 8, "
              "nicSelector: {{pfNames: [{pf}]}}, nodeSelector: {{node-role.kubernetes.io/worker: ''}}}}\n")
    write(tmp_path, {"sriov.yaml": policy.format(name="a", resource="sriovNic", pf="ens1f0") + "---\n"
                     + policy.format(name="b", resource="SriovNic", pf="ens2f0") + "---\n"
                     "apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetwork\nmetadata: {name: net, "
                     "namespace: openshift-sriov-network-operator}\nspec: {resourceName: sriovNlc, "
                     "networkNamespace: default}\n"})
    fixes = set()
    for seed in ("1", "2", "3", "4", "5"):
        result = subprocess.run([sys.executable, "-m", "numalint", "check", "--format", "json", str(tmp_path)],
                                capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": seed})
        fixes.add(next(f["fix"]["description"] for f in json.loads(result.stdout)["findings"]
                       if f["rule"] == "sriov-unknown-resource"))
    assert fixes == {'correct resourceName (use "SriovNic" or "sriovNic") or add the SriovNetworkNodePolicy'}


def test_devices_whose_ids_repeat_are_allocated_in_the_machines_order(tmp_path: Path) -> None:
    """A topology naming one id for two devices: the free devices were merged in order of each id's first place,
    and a pod was given id A twice (found by the review of the device manager's rewrite)."""
    write(tmp_path, {"kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                     "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
                                     "topologyManagerPolicy: best-effort\n",
                     "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                                 "  - {name: app, image: x, resources: {limits: {cpu: '2', memory: 1Gi, "
                                 "example.com/dev: 3}}}\n",
                     "topology.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: box}\n"
                                      "spec:\n  numaNodes:\n  - {id: 0, cpus: '0-7', memory: 16Gi}\n"
                                      "  - {id: 1, cpus: '8-15', memory: 16Gi}\n  devices:\n"
                                      "  - {resource: example.com/dev, numaNode: 1, id: A}\n"
                                      "  - {resource: example.com/dev, numaNode: 0, id: M}\n"
                                      "  - {resource: example.com/dev, numaNode: 1, id: Q}\n"
                                      "  - {resource: example.com/dev, numaNode: 0, id: A}\n"})
    pods = run("simulate", "--format", "json", str(tmp_path)).json()["pods"]
    assert [c["devices"] for c in pods[0]["containers"]] == [{"example.com/dev": ["A", "M", "Q"]}]
