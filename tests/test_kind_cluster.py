"""A kind cluster configuration's kubeadmConfigPatches give its nodes' kubelet: kind's own KubeletConfiguration (whose
evictionHard has no memory.available) with the patches merged over it, the joining nodes' flags from the
JoinConfiguration patches. Before, the file was not read at all (NUMA projects test on kind: FORMATS.md 1.3)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import findings, run


def _cluster(patch: str, nodes: str = "- role: control-plane\n- role: worker\n", top: str = "") -> str:
    body = "".join(f"  {line}\n" if line else "\n" for line in patch.splitlines())
    return (f"kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n{top}kubeadmConfigPatches:\n- |\n{body}"
            f"nodes:\n{nodes}")


MEMORY = ("kind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
          "topologyManagerPolicy: single-numa-node\nmemoryManagerPolicy: Static\n"
          "systemReserved:\n  memory: 256Mi\nkubeReserved:\n  memory: 256Mi\n"
          "reservedMemory:\n- numaNode: 0\n  limits:\n    memory: {total}\n")


def test_kinds_eviction_reserves_no_memory(tmp_path: Path) -> None:
    """kind's evictionHard sets nodefs and imagefs only: with no evictionHard in the patch the kubelet reserves
    systemReserved + kubeReserved, not the 100Mi a kubelet of its own adds."""
    assert findings(tmp_path, {"kind.yaml": _cluster(MEMORY.format(total="512Mi"))}) == []
    found = findings(tmp_path, {"kind.yaml": _cluster(MEMORY.format(total="612Mi"))})
    assert [(f["rule"], f["line"]) for f in found] == [("reserved-memory-mismatch", 15)]
    assert "kind's evictionHard has no memory.available" in found[0]["message"]
    assert "512Mi" in found[0]["fix"]["description"] and not found[0]["fix"]["edits"]
    assert found[0]["object"]["part"] == "kind workers"


def test_a_patched_evictionhard_is_merged_with_kinds(tmp_path: Path) -> None:
    patched = MEMORY.format(total="612Mi") + "evictionHard:\n  memory.available: 100Mi\n"
    assert findings(tmp_path, {"kind.yaml": _cluster(patched)}) == []
    # null deletes a key (a JSON merge patch): the 100Mi written above is gone again
    removed = _cluster(patched).replace("nodes:\n", "- |\n  kind: KubeletConfiguration\n  evictionHard:\n"
                                                    "    memory.available: null\nnodes:\n")
    assert [f["rule"] for f in findings(tmp_path, {"kind.yaml": removed})] == ["reserved-memory-mismatch"]


def test_a_joining_nodes_flags_are_its_kubelets(tmp_path: Path) -> None:
    """Workers join: the JoinConfiguration's kubeletExtraArgs are their flags; the InitConfiguration's reach the
    first control-plane node only."""
    static = "kind: KubeletConfiguration\ncpuManagerPolicy: static\n"
    assert "no-cpu-reservation" in [f["rule"] for f in findings(tmp_path, {"kind.yaml": _cluster(static)})]
    joined = static + ("---\nkind: JoinConfiguration\nnodeRegistration:\n  kubeletExtraArgs:\n"
                       "    reserved-cpus: \"0-1\"\n")
    assert "no-cpu-reservation" not in [f["rule"] for f in findings(tmp_path, {"kind.yaml": _cluster(joined)})]
    init = joined.replace("JoinConfiguration", "InitConfiguration")
    assert "no-cpu-reservation" in [f["rule"] for f in findings(tmp_path, {"kind.yaml": _cluster(init)})]
    # with no worker the control-plane node runs the pods: its InitConfiguration flags count
    alone = _cluster(init, nodes="- role: control-plane\n")
    assert "no-cpu-reservation" not in [f["rule"] for f in findings(tmp_path, {"kind.yaml": alone})]


def test_a_joining_nodes_own_kubelet_patch_changes_nothing(tmp_path: Path) -> None:
    """kubeadm join takes the kubelet configuration from the kubelet-config ConfigMap, not from its own file: a
    worker's KubeletConfiguration patch is not its kubelet, the first control-plane node's is."""
    worker = ("- role: control-plane\n- role: worker\n  kubeadmConfigPatches:\n  - |\n"
              "    kind: KubeletConfiguration\n    cpuManagerPolicy: none\n")
    static = "kind: KubeletConfiguration\ncpuManagerPolicy: static\n"
    assert "no-cpu-reservation" in [f["rule"] for f in findings(tmp_path, {"kind.yaml": _cluster(static, worker)})]


def test_a_flag_the_kubelet_cannot_parse_stops_any_node(tmp_path: Path) -> None:
    init = "kind: InitConfiguration\nnodeRegistration:\n  kubeletExtraArgs:\n    max-pods: \"lots\"\n"
    found = findings(tmp_path, {"kind.yaml": _cluster(init)})
    assert [(f["rule"], f["line"]) for f in found] == [("kubelet-start", 8)]


def test_a_patch_numalint_cannot_place_is_said_and_nothing_is_judged(tmp_path: Path) -> None:
    text = ("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n"
            "- \"kind: KubeletConfiguration\\ncpuManagerPolicy: static\\n\"\n")
    found = findings(tmp_path, {"kind.yaml": text})
    assert [(f["rule"], f["line"], f["severity"]) for f in found] == [("not-lintable", 4, "info")]


def test_a_patch_for_another_api_version_is_dropped(tmp_path: Path) -> None:
    """kind applies a patch that names an apiVersion only to documents of that version (v1beta2 is older than any
    template kind uses for a current Kubernetes)."""
    static = ("kind: KubeletConfiguration\ncpuManagerPolicy: static\n---\napiVersion: kubeadm.k8s.io/v1beta2\n"
              "kind: JoinConfiguration\nnodeRegistration:\n  kubeletExtraArgs:\n    reserved-cpus: \"0\"\n")
    assert "no-cpu-reservation" in [f["rule"] for f in findings(tmp_path, {"kind.yaml": _cluster(static)})]
    current = static.replace("v1beta2", "v1beta3")
    assert "no-cpu-reservation" not in [f["rule"] for f in findings(tmp_path, {"kind.yaml": _cluster(current)})]


def test_a_cluster_that_asks_nothing_of_the_kubelet_is_not_judged(tmp_path: Path) -> None:
    text = _cluster("kind: ClusterConfiguration\napiServer:\n  extraArgs:\n    v: \"4\"\n",
                    top="featureGates:\n  InPlacePodVerticalScaling: true\n")
    assert findings(tmp_path, {"kind.yaml": text}) == []


def test_fix_leaves_the_patches_alone(tmp_path: Path) -> None:
    path = tmp_path / "kind.yaml"
    path.write_text(_cluster(MEMORY.format(total="612Mi")))
    before = path.read_bytes()
    result = run("fix", "--unsafe-fixes", str(path))
    assert path.read_bytes() == before and result.exit_code == 1 and "kubeadmConfigPatches" in result.output
