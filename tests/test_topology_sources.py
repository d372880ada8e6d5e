"""Topologies from sysfs trees, numactl text, lscpu output and NodeResourceTopology objects."""

from __future__ import annotations

import json
import os
from pathlib import Path

from numalint.reading.yamlpos import load_all
from tests.conftest import run, write

CORPUS = Path(__file__).parent / "corpus"


def fake_sysfs(root: Path) -> None:
    """Two NUMA nodes, 2 sockets, 4 cores x 2 threads each (siblings 8 apart), one GPU, one SR-IOV NIC."""
    def put(path: str, text: str) -> None:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text + "\n")

    for node, cpus in ((0, [0, 1, 2, 3, 8, 9, 10, 11]), (1, [4, 5, 6, 7, 12, 13, 14, 15])):
        base = f"sys/devices/system/node/node{node}"
        put(f"{base}/cpulist", ",".join(map(str, cpus)))
        put(f"{base}/distance", "10 21" if node == 0 else "21 10")
        put(f"{base}/meminfo", f"Node {node} MemTotal:       65536000 kB\nNode {node} MemFree:        1000 kB")
        put(f"{base}/hugepages/hugepages-1048576kB/nr_hugepages", "4" if node == 0 else "0")
        put(f"{base}/hugepages/hugepages-2048kB/nr_hugepages", "0")
        for cpu in cpus:
            topo = f"sys/devices/system/cpu/cpu{cpu}/topology"
            put(f"{topo}/physical_package_id", str(node))
            core = cpu % 8
            put(f"{topo}/thread_siblings_list", f"{core},{core + 8}")
            put(f"sys/devices/system/cpu/cpu{cpu}/cache/index3/level", "3")
            put(f"sys/devices/system/cpu/cpu{cpu}/cache/index3/id", str(core // 2))
    gpu = "sys/bus/pci/devices/0000:3b:00.0"
    put(f"{gpu}/vendor", "0x10de")
    put(f"{gpu}/class", "0x030200")
    put(f"{gpu}/numa_node", "0")
    nic = "sys/bus/pci/devices/0000:5e:00.0"
    put(f"{nic}/vendor", "0x8086")
    put(f"{nic}/device", "0x158b")
    put(f"{nic}/class", "0x020000")
    put(f"{nic}/numa_node", "1")
    put(f"{nic}/sriov_totalvfs", "64")
    (root / nic / "net" / "ens5f0").mkdir(parents=True)
    floating = "sys/bus/pci/devices/0000:af:00.0"
    put(f"{floating}/vendor", "0x10de")
    put(f"{floating}/class", "0x030000")
    put(f"{floating}/numa_node", "-1")


def _snapshot(root: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime for p in root.rglob("*")}


def test_capture_from_a_recorded_sysfs_tree(tmp_path: Path) -> None:
    root = tmp_path / "sysroot"
    fake_sysfs(root)
    before = _snapshot(root)
    result = run("topology", "capture", "--sysfs-root", str(root), "--name", "r750")
    assert result.exit_code == 0, result.output + result.stderr
    assert _snapshot(root) == before  # read-only
    (doc, _), = load_all(result.output)
    spec = doc["spec"]
    assert doc["metadata"]["name"] == "r750" and spec["sockets"] == 2
    node0, node1 = spec["numaNodes"]
    assert node0["memory"] == "64000Mi" and node0["hugepages"] == {"1Gi": 4, "2Mi": 0}
    assert node0["distances"] == [10, 21]
    assert node0["cores"][0] == {"cpus": "0,8", "l3": 0} and len(node0["cores"]) == 4
    assert spec["devices"] == [{"resource": "nvidia.com/gpu", "numaNode": 0, "count": 1, "id": "0000:3b:00.0"},
                               {"resource": "nvidia.com/gpu", "numaNode": None, "count": 1, "id": "0000:af:00.0"}]
    assert spec["nics"] == [{"pciAddress": "0000:5e:00.0", "interface": "ens5f0", "vendor": "8086",
                             "deviceID": "158b", "totalVfs": 64, "numaNode": 1}]
    # the captured document is itself a valid topology for `check`
    write(tmp_path / "repo", {"topology.yaml": result.output})
    assert run("check", "--format", "json", str(tmp_path / "repo")).json()["findings"] == []


def test_capture_without_sysfs_is_a_clear_error(tmp_path: Path) -> None:
    result = run("topology", "capture", "--sysfs-root", str(tmp_path))
    assert result.exit_code == 1 and "no NUMA nodes" in result.stderr


NUMACTL = """available: 2 nodes (0-1)
node 0 cpus: 0 2 4 6
node 0 size: 191892 MB
node 0 free: 180231 MB
node 1 cpus: 1 3 5 7
node 1 size: 193528 MB
node 1 free: 188004 MB
node distances:
node   0   1
  0:  10  21
  1:  21  10
"""

LSCPU = """# The following is the parsable format, which can be fed to other
# programs. Each different item in every column has an unique ID
# starting usually from zero.
# CPU,Core,Socket,Node,,L1d,L1i,L2,L3
0,0,0,0,,0,0,0,0
1,1,0,0,,1,1,1,0
2,0,0,0,,0,0,0,0
3,1,0,0,,1,1,1,0
"""


def test_import_numactl(tmp_path: Path) -> None:
    write(tmp_path, {"numactl.txt": NUMACTL})
    result = run("topology", "import", str(tmp_path / "numactl.txt"), "--name", "box")
    assert result.exit_code == 0, result.stderr
    (doc, _), = load_all(result.output)
    nodes = doc["spec"]["numaNodes"]
    assert [n["memory"] for n in nodes] == ["191892Mi", "193528Mi"]
    assert [n["distances"] for n in nodes] == [[10, 21], [21, 10]]
    assert nodes[1]["cores"] == ["1", "3", "5", "7"]


def test_import_lscpu_groups_threads_into_cores(tmp_path: Path) -> None:
    write(tmp_path, {"lscpu.txt": LSCPU})
    (doc, _), = load_all(run("topology", "import", str(tmp_path / "lscpu.txt")).output)
    assert doc["spec"]["numaNodes"][0]["cores"] == ["0,2", "1,3"]


def test_import_node_resource_topology_and_use_it_directly(tmp_path: Path) -> None:
    nrt = CORPUS / "kubernetes-sigs__scheduler-plugins" / "manifests__noderesourcetopology__worker-node-A.yaml"
    result = run("topology", "import", str(nrt))
    (doc, _), = load_all(result.output)
    assert doc["metadata"]["name"] == "worker-node-a"
    assert [len(n["cores"]) for n in doc["spec"]["numaNodes"]] == [4, 4]
    assert sum(d["count"] for d in doc["spec"]["devices"] if d["resource"] == "example.com/deviceA") == 3
    # NodeResourceTopology objects are accepted wherever a topology is
    write(tmp_path, {"kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                     "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
                                     "topologyManagerPolicy: single-numa-node\n",
                     "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
                                 "    - name: a\n      resources:\n        limits: {cpu: \"2\", memory: 1Gi, "
                                 "example.com/deviceA: 2}\n"})
    data = run("simulate", "--format", "json", "--topology", str(nrt), str(tmp_path)).output
    import json

    pod = json.loads(data)["pods"][0]
    assert pod["admitted"] and pod["numa_nodes"] == [1]  # two deviceA only on node-1


def test_import_rejects_unknown_text(tmp_path: Path) -> None:
    write(tmp_path, {"x.txt": "hello"})
    result = run("topology", "import", str(tmp_path / "x.txt"))
    assert result.exit_code == 1 and "not numactl" in result.stderr


def test_node_state_starts_the_simulation_from_live_allocations(tmp_path: Path) -> None:
    write(tmp_path, {
        "kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                        "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
                        "topologyManagerPolicy: single-numa-node\n",
        "topology.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata:\n  name: n\nspec:\n"
                         "  numaNodes:\n    - {id: 0, cpus: \"0-7\", memory: 32Gi}\n"
                         "    - {id: 1, cpus: \"8-15\", memory: 32Gi}\n",
        "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: new\nspec:\n  containers:\n    - name: a\n"
                    "      resources:\n        limits: {cpu: \"6\", memory: 1Gi}\n",
    })
    state = tmp_path / "state"
    state.mkdir()
    (state / "cpu_manager_state").write_text(
        '{"policyName":"static","defaultCpuSet":"0-2,13-15","entries":{"uid":{"db":"3-12"}},"checksum":0}')
    fresh = run("simulate", "--format", "json", str(tmp_path))
    assert fresh.exit_code == 0
    now = run("simulate", "--format", "json", "--node-state", str(state), str(tmp_path))
    import json

    pod = json.loads(now.output)["pods"][0]
    assert now.exit_code == 1 and pod["reason"] == "TopologyAffinityError"
    (state / "cpu_manager_state").write_text('{"policyName":"none","defaultCpuSet":"","checksum":0}')
    findings = run("check", "--format", "json", "--node-state", str(state), str(tmp_path)).json()["findings"]
    stale = [f for f in findings if f["rule"] == "node-state"]
    assert stale and 'differs from state checkpoint policy "none"' in stale[0]["message"]
    assert stale[0]["file"] == os.path.join(str(state), "cpu_manager_state")
    # deleting the checkpoint on the node leaves the copy --node-state reads: the advice says to check without it
    assert "then check without --node-state" in stale[0]["fix"]["description"]


def test_nrt_attributes_give_the_policy_when_no_kubelet_configuration_is_given(tmp_path: Path) -> None:
    import json

    nrt = CORPUS / "kubernetes-sigs__scheduler-plugins" / "manifests__noderesourcetopology__worker-node-A.yaml"
    write(tmp_path, {"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n"
                                 "    - name: a\n      resources:\n        limits: {example.com/deviceA: 3}\n"})
    data = json.loads(run("simulate", "--format", "json", "--topology", str(nrt), str(tmp_path)).output)
    assert (data["pools"][0]["topology_policy"], data["pools"][0]["topology_scope"]) == (
        "single-numa-node", "container")
    pod = data["pods"][0]
    assert (pod["admitted"], pod["reason"]) == (False, "TopologyAffinityError")  # 3 deviceA span both zones


def test_a_cpu_on_two_numa_nodes_is_reported_and_stays_on_the_first(tmp_path: Path) -> None:
    """A CPU belongs to one NUMA node: listed on two, the second listing is an error, and the simulation keeps it
    on the first (it used to move every such CPU to the last node, leaving the first with fewer CPUs)."""
    write(tmp_path, {"t.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n"
                               "  numaNodes:\n    - {id: 0, cpus: \"0-3\", memory: 8Gi}\n"
                               "    - {id: 1, cpus: \"2-5\", memory: 8Gi}\n"})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(f["rule"], f["line"]) for f in found] == [("schema", 7)] and "CPUs 2-3" in found[0]["message"]
    numa = json.loads(run("simulate", "--format", "json", str(tmp_path)).output)["pools"][0]["nodes"][0]["numa_nodes"]
    assert [(n["id"], n["resources"]["cpu"]["capacity"]) for n in numa] == [(0, 4), (1, 2)]


def test_pool_kubelet_config_names_a_file_with_or_without_its_extension_and_says_when_it_names_nothing(
        tmp_path: Path) -> None:
    """The schema says pool.kubeletConfig is a metadata.name or a file name: `static.yaml` finds static.yaml (it
    ran the kubelet's defaults, silently); a name of nothing is said where the pool is shown."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  nodeSelector: {role: cnf}\n  containers:\n"
           "    - {name: a, image: x, resources: {limits: {cpu: \"12\", memory: 1Gi}}}\n")
    topology = ("apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: cnf}\nspec:\n"
                "  pool: {nodeSelector: {role: cnf}, kubeletConfig: %s}\n"
                "  numaNodes:\n    - {id: 0, cpus: \"0-7\", memory: 32Gi}\n"
                "    - {id: 1, cpus: \"8-15\", memory: 32Gi}\n")
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
               "reservedSystemCPUs: \"0\"\ntopologyManagerPolicy: single-numa-node\nmemoryManagerPolicy: Static\n"
               "reservedMemory:\n  - numaNode: 0\n    limits: {memory: 100Mi}\n")
    other = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: none\n"
    write(tmp_path, {"static.yaml": kubelet, "plain.yaml": other, "pod.yaml": pod,
                     "topology.yaml": topology % "static.yaml"})
    found = run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
    assert sorted(f["rule"] for f in found) == ["admission-failure", "exceeds-numa-node"]  # 12 CPUs, 8-CPU nodes
    write(tmp_path, {"topology.yaml": topology % "missing"})
    shown = run("simulate", "--topology", str(tmp_path / "topology.yaml"), str(tmp_path)).output
    assert 'pool.kubeletConfig "missing" names no kubelet configuration of the run' in " ".join(shown.split())
    # one topology, one configuration: paired as before, the name that finds nothing said all the same
    (tmp_path / "plain.yaml").unlink()
    shown = " ".join(run("simulate", "--topology", str(tmp_path / "topology.yaml"), str(tmp_path)).output.split())
    assert ('pool.kubeletConfig "missing" names no kubelet configuration of the run: numalint pairs it with the '
            'only one, "static"') in shown
