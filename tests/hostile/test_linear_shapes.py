"""Shapes that were quadratic or worse (found by hostile-input hunts): each is read in time linear in its size. Each
input below took from 8 s to over 30 s before; the limit only catches a return to that."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile.test_output_and_values import _timed

POD = "apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, labels: {{dedicated: {label}}}}}\nspec:\n" \
      "  containers: [{{name: c, image: x}}]\n"


def test_wrong_types_in_thousands_of_documents_of_one_file(tmp_path: Path) -> None:
    # each finding looked for its line from the start of the file
    (tmp_path / "pods.yaml").write_text("---\n".join(POD.format(i=i, label="[1]") for i in range(4000)))
    result = _timed("check", "--format", "json", "pods.yaml", cwd=tmp_path)
    schema = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "schema"]
    assert (schema[0]["line"], schema[0]["column"]) == (3, 42)
    assert (schema[99]["line"], schema[99]["column"]) == (3 + 6 * 99, 43)  # the hundredth (p99), then a summary


def test_an_unclosed_placeholder_repeated_in_a_value(tmp_path: Path) -> None:
    # "${a-" thousands of times and no "}": no envsubst placeholder, so the pod is checked as written
    (tmp_path / "pod.yaml").write_text(POD.format(i=0, label="'" + "${a-" * 40000 + "'"))
    result = _timed("check", "--format", "json", "pod.yaml", cwd=tmp_path)
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == []
    (tmp_path / "pod.yaml").write_text(POD.format(i=0, label="'" + "${a-" * 40000 + "}'"))
    result = _timed("check", "--format", "json", "pod.yaml", cwd=tmp_path)
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["not-lintable"]


def test_a_suppression_comment_followed_by_a_long_run_of_spaces(tmp_path: Path) -> None:
    pod = POD.format(i=0, label='"x"')
    for directive in ("disable=", "disable-file="):
        (tmp_path / "pod.yaml").write_text(pod + f"# numalint: {directive}NL001" + " " * 40000 + "!\n")
        result = _timed("check", "--format", "json", "pod.yaml", cwd=tmp_path)
        assert json.loads(result.stdout)["findings"] == []  # not a suppression (the "!"), so none is unused
        (tmp_path / "pod.yaml").write_text(pod + f"# numalint: {directive}NL001" + " " * 40000 + "-- kept\n")
        result = _timed("check", "--format", "json", "pod.yaml", cwd=tmp_path)
        found = json.loads(result.stdout)["findings"]  # a suppression with its reason, with nothing to suppress
        assert [f["rule"] for f in found] == ["unused-suppression"] and "NL001" in found[0]["message"]


def test_thousands_of_suppression_directives_on_one_line(tmp_path: Path) -> None:
    pod = POD.format(i=0, label='"x"')
    for directive in ("disable-file!", "disable=x!"):
        (tmp_path / "pod.yaml").write_text(pod + f"# numalint: {directive}" * 8000 + "\n")
        result = _timed("check", "--format", "json", "pod.yaml", cwd=tmp_path)
        assert json.loads(result.stdout)["findings"] == []


def test_a_node_checkpoint_of_thousands_of_entries_overlapping_a_large_default_cpuset(tmp_path: Path) -> None:
    # each overlapping entry wrote the default cpuset of 65,536 CPUs out again for its message
    (tmp_path / "topology.yaml").write_text(
        "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n"
        "  pool: {nodes: 1, kubeletConfig: kubelet}\n  sockets: 1\n  threadsPerCore: 1\n  numaNodes:\n"
        "  - {id: 0, cpus: '0-65535', memory: 1000Gi}\n")
    (tmp_path / "kubelet.yaml").write_text(
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
        "reservedSystemCPUs: '0'\ntopologyManagerPolicy: single-numa-node\nmemoryManagerPolicy: None\n")
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "cpu_manager_state").write_text(json.dumps(
        {"policyName": "static", "defaultCpuSet": "0-65535", "checksum": 0,
         "entries": {f"pod{i}": {"c": str(i)} for i in range(4000)}}))
    result = _timed("check", "--format", "json", "--node-state", "state", "topology.yaml", "kubelet.yaml",
                    cwd=tmp_path)
    found = [f["message"] for f in json.loads(result.stdout)["findings"] if f["rule"] == "node-state"]
    assert found[0] == 'pod: pod0, container: c cpuset: "0" overlaps with default cpuset "0-65535"', found[:2]
    assert found[99] == 'pod: pod99, container: c cpuset: "99" overlaps with default cpuset "0-65535"'


def test_hundreds_of_workload_fixes_that_all_bring_an_error(tmp_path: Path) -> None:
    # every pod's rounded CPU count no longer fits a NUMA node: halving down to each fix admitted the pool's
    # hundreds of workloads again some 2n times
    (tmp_path / "topology.yaml").write_text(
        "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n"
        "  pool: {nodes: 101, kubeletConfig: kubelet}\n  sockets: 1\n  threadsPerCore: 1\n  numaNodes:\n"
        + "".join(f"  - {{id: {i}, cpus: '{2 * i}-{2 * i + 1}', memory: 100Gi}}\n" for i in range(4)))
    (tmp_path / "kubelet.yaml").write_text(
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
        "reservedSystemCPUs: '0'\ntopologyManagerPolicy: single-numa-node\nmemoryManagerPolicy: None\n")
    for k in range(0, 200, 50):
        (tmp_path / f"pods{k}.yaml").write_text("".join(
            f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec:\n  containers:\n  - name: c\n"
            "    image: x\n    resources: {limits: {cpu: 2500m, memory: 1Gi}}\n" for i in range(k, k + 50)))
    result = _timed("check", "--format", "json", ".", cwd=tmp_path)
    fixes = [f["fix"] for f in json.loads(result.stdout)["findings"] if f["rule"] == "fractional-cpu"]
    assert len(fixes) == 200 and all(fix["safety"] == "display" and not fix["edits"] for fix in fixes)
    assert "it would bring a new error (admission-failure" in fixes[0]["description"]
    assert "numalint stopped trying" in fixes[-1]["description"]


@pytest.mark.parametrize("shape", ["one glob per directory", "globs of every length"])
def test_thousands_of_exclude_globs(tmp_path: Path, shape: str) -> None:
    # every glob was tried on every file (and, globs bucketed by literal start, one lookup per distinct length)
    for i in range(4000):
        (tmp_path / f"c{i}").mkdir()
        (tmp_path / f"c{i}" / "p.yaml").write_text(POD.format(i=i, label="[1]"))  # a schema finding each
        if i % 800 == 0:
            (tmp_path / f"c{i}" / "generated-x.yaml").write_text(POD.format(i=i, label="[1]"))
    (tmp_path / "z").mkdir()
    (tmp_path / "z" / "p.yaml").write_text(POD.format(i=0, label="[1]"))
    globs = ([f"c{i}/generated-*.yaml" for i in range(4000)] if shape == "one glob per directory" else
             ["z" * length + "*" for length in range(2, 4000)] + ["c*/generated-*.yaml"]) + ["z/"]
    (tmp_path / ".numalint.yaml").write_text("exclude:\n" + "".join(f"  - '{glob}'\n" for glob in globs))
    result = _timed("check", "-j", "1", "--format", "json", ".", cwd=tmp_path)
    report = json.loads(result.stdout)
    assert report["summary"]["files"] == 4000, report["summary"]
    files = {Path(f["file"]).as_posix().removeprefix(tmp_path.as_posix() + "/") for f in report["findings"]}
    assert "c0/p.yaml" in files and "c0/generated-x.yaml" not in files and "z/p.yaml" not in files


def test_a_pod_on_fifteen_numa_nodes(tmp_path: Path) -> None:
    # max-allowable-numa-nodes lets the Topology Manager run on up to 64 NUMA nodes: every pair of the 2^15 hint
    # masks of two providers was ANDed (4^15 pairs, some 40 s for one container); now counted over the 2^15 masks
    numa = "".join(f"  - {{id: {i}, cpus: '{16 * i}-{16 * i + 15}', memory: 64Gi}}\n" for i in range(15))
    (tmp_path / "topology.yaml").write_text(
        "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n"
        "  pool: {nodes: 1, kubeletConfig: kubelet}\n  sockets: 1\n  threadsPerCore: 1\n  numaNodes:\n" + numa)
    (tmp_path / "kubelet.yaml").write_text(
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
        'reservedSystemCPUs: "0"\nmemoryManagerPolicy: Static\ntopologyManagerPolicy: best-effort\n'
        'topologyManagerPolicyOptions: {max-allowable-numa-nodes: "16"}\nsystemReserved: {memory: 1Gi}\n'
        "reservedMemory: [{numaNode: 0, limits: {memory: 1124Mi}}]\n")
    (tmp_path / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: a\n    image: x\n"
        "    resources: {limits: {cpu: '2', memory: 1Gi}}\n")
    result = _timed("simulate", ".", cwd=tmp_path)
    assert "1 workload(s): 1 placed, 0 with rejected pods" in result.stdout, result.stdout


def test_hundreds_of_pods_rejected_by_a_node_of_65536_cpus(tmp_path: Path) -> None:
    # each rejection kept its own copy of the node's state (4 MiB here): 300 took 1.4 GB; rejections in a row share
    # one, the node being as it was
    (tmp_path / "topology.yaml").write_text(
        "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n"
        "  pool: {nodes: 1, kubeletConfig: kubelet}\n  sockets: 2\n  threadsPerCore: 1\n  numaNodes:\n"
        "  - {id: 0, cpus: '0-32767', memory: 1000Gi}\n  - {id: 1, cpus: '32768-65535', memory: 1000Gi}\n")
    (tmp_path / "kubelet.yaml").write_text(
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
        "reservedSystemCPUs: '0'\ntopologyManagerPolicy: single-numa-node\nmaxPods: 1000000\n")
    (tmp_path / "pods.yaml").write_text("".join(
        f"---\n{{apiVersion: v1, kind: Pod, metadata: {{name: p{i}}}, spec: {{containers: [{{name: c, image: x, "
        "resources: {limits: {cpu: 32769, memory: 1Gi}}}]}}\n" for i in range(300)))
    # the peak of the numalint process alone: a fresh parent that waits for nothing else
    measure = ("import resource, subprocess, sys\n"
               "with open('out.json', 'w') as out:\n"
               "    subprocess.run([sys.executable, '-m', 'numalint', 'simulate', '--format', 'json', '.'],\n"
               "                   stdout=out)\n"
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    peak = int(subprocess.run([sys.executable, "-c", measure], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120).stdout)
    assert peak < 600 * 1024, f"peak {peak // 1024} MiB"  # kilobytes on Linux
    pods = json.loads((tmp_path / "out.json").read_text())["pods"]
    assert len(pods) == 300 and not any(p["admitted"] for p in pods)
    assert pods[0]["free_summary"] == pods[-1]["free_summary"]


def test_thousands_of_pods_each_asking_a_device_of_thousands(tmp_path: Path) -> None:
    # each pod's hints counted every device for every NUMA mask, and each admission copied every allocation made
    devices = "".join(f"  - {{resource: vendor.com/gpu, numaNode: {i % 2}, count: 1}}\n" for i in range(4000))
    (tmp_path / "topology.yaml").write_text(
        "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n"
        "  pool: {nodes: 1, kubeletConfig: kubelet}\n  sockets: 1\n  threadsPerCore: 1\n  numaNodes:\n"
        "  - {id: 0, cpus: '0-63', memory: 1000Gi}\n  - {id: 1, cpus: '64-127', memory: 1000Gi}\n  devices:\n"
        + devices)
    (tmp_path / "kubelet.yaml").write_text(
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ntopologyManagerPolicy: best-effort\n"
        "maxPods: 100000\n")
    (tmp_path / "pods.yaml").write_text("".join(
        f"---\n{{apiVersion: v1, kind: Pod, metadata: {{name: p{i}}}, spec: {{containers: [{{name: c, image: x, "
        "resources: {limits: {vendor.com/gpu: 1}}}]}}\n" for i in range(4001)))
    result = _timed("simulate", "--format", "json", ".", cwd=tmp_path)
    pods = json.loads(result.stdout)["pods"]
    assert [p["admitted"] for p in pods].count(True) == 4000 and not pods[-1]["admitted"]
    # the narrowest preferred hint, NUMA 0, while it holds a free device; then NUMA 1
    assert [p["numa_nodes"] for p in pods[:4000]] == [[0]] * 2000 + [[1]] * 2000


def test_required_affinity_in_thousands_of_hostnames_beside_as_many_pools(tmp_path: Path) -> None:
    # every pool a workload was tried on listed the expression's values again, and looked its label up in the list
    (tmp_path / "topo.yaml").write_text("".join(
        f"---\napiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: t{i}}}\nspec:\n"
        f"  pool: {{nodeSelector: {{kubernetes.io/hostname: node{i}}}, nodes: 1}}\n  sockets: 1\n"
        "  threadsPerCore: 1\n  numaNodes: [{id: 0, cpus: '0-3', memory: 8Gi}]\n" for i in range(3000)))
    (tmp_path / "deploy.yaml").write_text("".join(  # each leaves one node out: a node selection of its own
        f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d{p}}}\nspec:\n  template:\n    spec:\n"
        "      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
        "[{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: ["
        + ", ".join(f"node{i}" for i in range(3000) if i != p) + "]}]}]}}}\n"
        "      containers: [{name: c, image: x, resources: {limits: {cpu: 1500m, memory: 1Gi}}}]\n"
        for p in range(60)))
    result = _timed("check", "--format", "json", ".", cwd=tmp_path)
    assert json.loads(result.stdout)["summary"]["files"] == 2


def test_thousands_of_workloads_asking_unknown_devices_beside_as_many_policies(tmp_path: Path) -> None:
    # each workload's device was compared with the resource of every SR-IOV policy
    (tmp_path / "policies.yaml").write_text("".join(
        f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata: {{name: p{i}, "
        "namespace: openshift-sriov-network-operator}\nspec: {"
        f"resourceName: r{i}, numVfs: 8, nicSelector: {{pfNames: [ens{i}f0]}}, nodeSelector: {{a: b}}}}\n"
        for i in range(14000)))
    (tmp_path / "deploy.yaml").write_text("".join(
        f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d{i}}}\nspec:\n  template:\n    spec:\n"
        f"      containers: [{{name: c, image: x, resources: {{limits: {{cpu: '2', memory: 1Gi, "
        f"example.com/dev{i}: 1}}}}}}]\n" for i in range(14000)))
    result = _timed("check", "--format", "json", ".", cwd=tmp_path, limit=10)
    assert json.loads(result.stdout)["summary"]["files"] == 2


def test_thousands_of_networks_naming_resources_no_policy_creates_beside_as_many_policies(tmp_path: Path) -> None:
    # each network's "did you mean" compared its resource with every policy's, and each policy's "unused" check
    # compared its resource with every missing one (difflib on every pair)
    (tmp_path / "policies.yaml").write_text("".join(
        f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata: {{name: p{i}, "
        "namespace: openshift-sriov-network-operator}\nspec: {"
        f"resourceName: netdev_{i}, numVfs: 8, nicSelector: {{pfNames: [ens{i}f0]}}, nodeSelector: {{a: b}}}}\n"
        for i in range(1500)))
    (tmp_path / "networks.yaml").write_text("".join(
        f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetwork\nmetadata: {{name: n{i}, "
        f"namespace: openshift-sriov-network-operator}}\nspec: {{resourceName: missing_{i}, networkNamespace: d}}\n"
        for i in range(1500)))
    result = _timed("check", "--format", "json", ".", cwd=tmp_path)
    rules = [f["rule"] for f in json.loads(result.stdout)["findings"]]
    assert rules.count("sriov-unknown-resource") == 101 and rules.count("sriov-unused-resource") == 101


def test_a_fix_joining_lines_at_the_top_of_a_file_of_thousands_of_alike_documents(tmp_path: Path) -> None:
    # the proof mapped each line after the fix to its line before with difflib over the whole file, quadratic in
    # its repeated lines; now only the lines between the first edit and the last are compared
    head = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: |-\n  Static\n"
            "reservedSystemCPUs: \"0\"\ntopologyManagerPolicy: single-numa-node\n---\napiVersion: v1\nkind: Pod\n"
            "metadata: {name: bad}\nspec:\n  containers:\n  - name: c\n    image: x\n    resources:\n"
            "      limits: {cpu: \"1\", memory: 1Gi, hugepages-2Mi: 3Mi}\n")
    (tmp_path / "k.yaml").write_text(head + "".join(
        f"---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\nspec:\n  containers:\n  - name: c\n"
        "    image: x\n    resources:\n      limits:\n        cpu: 500m\n        memory: 1Gi\n" for i in range(4000)))
    result = _timed("fix", "--diff", "k.yaml", cwd=tmp_path)
    assert '-cpuManagerPolicy: |-\n-  Static\n+cpuManagerPolicy: "static"\n' in result.stdout, result.stdout


def test_thousands_of_pools_each_asking_which_kubeletconfigs_target_it(tmp_path: Path) -> None:
    # each topology's MachineConfigPool asked every KubeletConfig which pools it targets (twice: its own, then
    # those whose MachineConfigs it takes)
    (tmp_path / "topologies.yaml").write_text("".join(
        f"---\napiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: t{i}}}\nspec:\n"
        f"  pool: {{nodeSelector: {{node-role.kubernetes.io/w{i}: ''}}, nodes: 1}}\n  sockets: 1\n"
        "  threadsPerCore: 1\n  numaNodes: [{id: 0, cpus: '0-3', memory: 16Gi}]\n" for i in range(2500)))
    (tmp_path / "pools.yaml").write_text("".join(
        f"---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata: {{name: w{i}, "
        f"labels: {{pools.operator.machineconfiguration.openshift.io/w{i}: ''}}}}\nspec:\n"
        "  machineConfigSelector: {matchExpressions: [{key: machineconfiguration.openshift.io/role, operator: In, "
        f"values: [worker, w{i}]}}]}}\n  nodeSelector: {{matchLabels: {{node-role.kubernetes.io/w{i}: ''}}}}\n"
        for i in range(2500)))
    (tmp_path / "kubeletconfigs.yaml").write_text("".join(
        f"---\napiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {{name: kc{i}}}\n"
        f"spec:\n  machineConfigPoolSelector: {{matchLabels: {{pools.operator.machineconfiguration.openshift.io/x{i}: "
        "''}}\n  kubeletConfig: {cpuManagerPolicy: static, reservedSystemCPUs: '0'}\n" for i in range(2500)))
    result = _timed("check", "--format", "json", ".", cwd=tmp_path)
    rules = {f["rule"] for f in json.loads(result.stdout)["findings"]}
    assert "kubeletconfig-pool" in rules, rules  # the KubeletConfigs target no pool


def test_one_directory_per_machineconfigpool_each_with_a_kubeletconfig_of_no_pool(tmp_path: Path) -> None:
    # every directory's configuration asked each pool directory whether it lies near, and listed every near pool
    # for its fix (in one directory per pool, every pool is near every other)
    for i in range(3000):
        (tmp_path / "c" / f"p{i}").mkdir(parents=True)
        (tmp_path / "c" / f"p{i}" / "pool.yaml").write_text(
            f"apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata: {{name: w{i}, "
            f"labels: {{pools.operator.machineconfiguration.openshift.io/w{i}: ''}}}}\nspec:\n"
            f"  machineConfigSelector: {{matchLabels: {{machineconfiguration.openshift.io/role: w{i}}}}}\n"
            f"  nodeSelector: {{matchLabels: {{node-role.kubernetes.io/w{i}: ''}}}}\n---\n"
            f"apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {{name: kc{i}}}\n"
            f"spec:\n  machineConfigPoolSelector: {{matchLabels: {{pools.operator.machineconfiguration.openshift.io/"
            f"x{i}: ''}}}}\n  kubeletConfig: {{cpuManagerPolicy: static, reservedSystemCPUs: '0'}}\n")
    result = _timed("check", "-j", "1", "--format", "json", ".", cwd=tmp_path)
    fix = next(f["fix"]["description"] for f in json.loads(result.stdout)["findings"]
               if f["rule"] == "kubeletconfig-pool")
    assert fix.startswith('select the intended MachineConfigPool by its labels: "w0" carries '), fix
    assert fix.endswith("; and 2990 more pools"), fix


def test_thousands_of_pods_attaching_misspelt_networks_among_as_many_look_alike_names(tmp_path: Path) -> None:
    # every missing name was compared with every network by difflib: names of a few letters all share most of their
    # characters, so no index prunes them (an index now compares a bounded number of names, then suggests nothing)
    import random

    rng = random.Random(5)

    def word() -> str:
        return "".join(rng.choice("abcdefgh") for _ in range(10))

    (tmp_path / "nets.yaml").write_text("".join(
        f"---\napiVersion: k8s.cni.cncf.io/v1\nkind: NetworkAttachmentDefinition\nmetadata: {{name: {word()}, "
        "namespace: ran}\nspec: {config: '{}'}\n" for _ in range(6000)))
    (tmp_path / "policy.yaml").write_text(
        "apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata: {name: p, namespace: "
        "openshift-sriov-network-operator}\nspec: {resourceName: r, numVfs: 4, nicSelector: {pfNames: [ens1]}, "
        "nodeSelector: {a: b}}\n")
    (tmp_path / "pods.yaml").write_text("".join(
        f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, namespace: ran, annotations: "
        f"{{k8s.v1.cni.cncf.io/networks: {word()}}}}}\nspec: {{containers: [{{name: c, image: x}}]}}\n"
        for i in range(6000)))
    result = _timed("check", "--format", "json", ".", cwd=tmp_path)
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]].count("sriov-unknown-resource") == 101


def test_thousands_of_wrong_typed_labels_in_one_large_file(tmp_path: Path) -> None:
    # the line starts of the file were cached by its text: the proofs read the file again into an equal string,
    # which every later look-up compared with the first, whole (9,600 pods over 7.9 MB: 24 s)
    pad = "# " + "p" * 700 + "\n"
    (tmp_path / "all.yaml").write_text("".join(
        f"---\n{pad}{{apiVersion: v1, kind: Pod, metadata: {{name: p{i}, labels: {{x: yes}}}}, spec: "
        "{containers: [{name: c, image: x}]}}\n" for i in range(9600)))
    result = _timed("check", "--format", "json", "all.yaml", cwd=tmp_path)
    found = json.loads(result.stdout)["findings"]
    assert [f["fix"]["description"] for f in found[:1]] == ['write "yes"']


def test_thousands_of_pods_each_choosing_its_own_pool_by_node_affinity(tmp_path: Path) -> None:
    # the pools were indexed by label key only for node affinity: every pool of the key was tried for every pod
    # (5,000 pools and pods: about 33 s)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    try:
        from hostile import own_affinity_pools  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    for name, text in own_affinity_pools(5000).items():
        (tmp_path / name).write_text(text)
    result = _timed("check", "--format", "json", ".", cwd=tmp_path)
    assert json.loads(result.stdout)["summary"]["files"] == 102
