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
    assert "kind's own evictionHard has no memory.available" in found[0]["message"]
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
    first control-plane node only, which runs pods when it is the cluster's only node."""
    static = "kind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
    assert findings(tmp_path, {"kind.yaml": _cluster(static)}) == []
    joined = static + ("---\nkind: JoinConfiguration\nnodeRegistration:\n  kubeletExtraArgs:\n"
                       "    topology-manager-policy: single-numa-node\n")
    assert [f["rule"] for f in findings(tmp_path, {"kind.yaml": _cluster(joined)})] == ["memory-manager-not-static"]
    init = joined.replace("JoinConfiguration", "InitConfiguration")
    assert findings(tmp_path, {"kind.yaml": _cluster(init)}) == []
    alone = _cluster(init, nodes="- role: control-plane\n")
    assert [f["rule"] for f in findings(tmp_path, {"kind.yaml": alone})] == ["memory-manager-not-static"]
    # two control-plane nodes and no worker: kind keeps their taint, no node runs pods, no kubelet is judged
    tainted = _cluster(init, nodes="- role: control-plane\n- role: control-plane\n")
    assert findings(tmp_path, {"kind.yaml": tainted}) == []


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
    assert "literal block scalar" in found[0]["message"]


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


def test_an_anchored_patch_and_its_alias_are_read_where_written(tmp_path: Path) -> None:
    """Found by a review: `- &join |` was taken for a patch numalint cannot place, and nothing was judged."""
    nodes = ("- role: control-plane\n- role: worker\n  kubeadmConfigPatches:\n  - &join |\n"
             "    kind: JoinConfiguration\n    nodeRegistration:\n      kubeletExtraArgs:\n"
             "        reserved-cpus: \"0\"\n- role: worker\n  kubeadmConfigPatches:\n  - *join\n")
    text = _cluster("kind: KubeletConfiguration\ncpuManagerPolicy: static\n", nodes)
    assert findings(tmp_path, {"kind.yaml": text}) == []
    unreserved = text.replace("  - *join\n", "")  # the second worker has no reserved CPUs now
    found = findings(tmp_path, {"kind.yaml": unreserved})
    assert [(f["rule"], f["line"]) for f in found] == [("no-cpu-reservation", 6)]
    assert found[0]["object"]["part"] == "kind worker 2"


def test_an_unplaceable_patch_the_kubelet_does_not_take_is_left_alone(tmp_path: Path) -> None:
    folded = ("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n- >-\n"
              "  kind: ClusterConfiguration\n- |\n  kind: KubeletConfiguration\n  cpuManagerPolicy: static\n")
    assert [(f["rule"], f["line"]) for f in findings(tmp_path, {"kind.yaml": folded})] == [("no-cpu-reservation", 8)]
    broken = folded.replace("kind: ClusterConfiguration", "kind: [ClusterConfiguration")
    found = findings(tmp_path, {"kind.yaml": broken})
    assert [(f["rule"], f["line"]) for f in found] == [("not-lintable", 4)] and "parse" in found[0]["message"]


def test_json6902_patches_of_the_kubelet_stop_the_judging(tmp_path: Path) -> None:
    text = _cluster("kind: KubeletConfiguration\ncpuManagerPolicy: static\n") + (
        "kubeadmConfigPatchesJSON6902:\n- group: kubelet.config.k8s.io\n  version: v1beta1\n"
        "  kind: KubeletConfiguration\n  patch: |\n    - op: add\n      path: /reservedSystemCPUs\n"
        "      value: \"0\"\n")
    found = findings(tmp_path, {"kind.yaml": text})
    assert [(f["rule"], f["severity"]) for f in found] == [("not-lintable", "info")]
    assert "kubeadmConfigPatchesJSON6902" in found[0]["message"]


def test_what_the_kubelet_cannot_decode_in_a_patch_is_said_there(tmp_path: Path) -> None:
    text = _cluster("kind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
                    "topologyManagerpolicy: restricted\nsystemReserved: 1Gi\n")
    found = {f["rule"]: f for f in findings(tmp_path, {"kind.yaml": text})}
    assert (found["unknown-field"]["line"], found["schema"]["line"]) == (8, 9)
    assert "kubeadmConfigPatches" in found["unknown-field"]["fix"]["description"]
    assert not found["unknown-field"]["fix"]["edits"]


def test_a_null_node_registration_clears_the_flags(tmp_path: Path) -> None:
    nodes = ("- role: control-plane\n- role: worker\n  kubeadmConfigPatches:\n  - |\n"
             "    kind: JoinConfiguration\n    nodeRegistration: null\n")
    patch = ("kind: KubeletConfiguration\ncpuManagerPolicy: static\n---\nkind: JoinConfiguration\n"
             "nodeRegistration:\n  kubeletExtraArgs:\n    reserved-cpus: \"0\"\n")
    assert findings(tmp_path, {"kind.yaml": _cluster(patch)}) == []
    assert [f["rule"] for f in findings(tmp_path, {"kind.yaml": _cluster(patch, nodes)})] == ["no-cpu-reservation"]


def test_the_clusters_name_names_its_kubelet(tmp_path: Path) -> None:
    text = _cluster("kind: KubeletConfiguration\ncpuManagerPolicy: static\n", top="name: numa-e2e\n")
    assert [f["object"]["name"] for f in findings(tmp_path, {"kind.yaml": text})] == ["numa-e2e"]
    # kind refuses a cluster without a control-plane node: no kubelet is judged
    assert findings(tmp_path, {"kind.yaml": _cluster("kind: KubeletConfiguration\ncpuManagerPolicy: static\n",
                                                     "- role: worker\n")}) == []


def test_a_patch_that_reaches_no_kubelet_is_said(tmp_path: Path) -> None:
    """A worker's own KubeletConfiguration patch (kubeadm join takes the cluster's), a JoinConfiguration patch of the
    node that runs kubeadm init, and a patch naming an apiVersion kind does not write are never applied."""
    worker = ("- role: control-plane\n  kubeadmConfigPatches:\n  - |\n    kind: JoinConfiguration\n"
              "    nodeRegistration:\n      kubeletExtraArgs:\n        max-pods: \"200\"\n"
              "- role: worker\n  kubeadmConfigPatches:\n  - |\n    kind: KubeletConfiguration\n"
              "    cpuManagerPolicy: static\n")
    text = _cluster("apiVersion: kubelet.config.k8s.io/v1\nkind: KubeletConfiguration\nmaxPods: 200\n", worker)
    found = findings(tmp_path, {"kind.yaml": text})
    assert [(f["rule"], f["line"]) for f in found] == [("unknown-field", 6), ("unknown-field", 12),
                                                         ("unknown-field", 19)]
    assert ["dropped" in found[0]["message"], "kubeadm init" in found[1]["message"],
            "kubeadm join" in found[2]["message"]] == [True, True, True]
    assert found[1]["fix"]["description"] == "write it as an InitConfiguration patch"
    # beside an InitConfiguration patch that reaches the node: merge into it (found by a precision review)
    merged = worker.replace("- role: worker", "  - |\n    kind: InitConfiguration\n    nodeRegistration: {name: cp}\n"
                                              "- role: worker")
    found = findings(tmp_path, {"kind.yaml": _cluster("kind: KubeletConfiguration\nmaxPods: 200\n", merged)})
    assert [f["fix"]["description"] for f in found if "kubeadm init" in f["message"]] == [
        "merge its nodeRegistration into the InitConfiguration patch that reaches this node (line 16)"]
    # one kind drops (an apiVersion it does not write) is not the one to merge into
    dropped = merged.replace("    kind: InitConfiguration\n", "    apiVersion: kubeadm.k8s.io/v1beta2\n"
                                                                "    kind: InitConfiguration\n")
    found = findings(tmp_path, {"kind.yaml": _cluster("kind: KubeletConfiguration\nmaxPods: 200\n", dropped)})
    assert [f["fix"]["description"] for f in found if "kubeadm init" in f["message"]] == [
        "write it as an InitConfiguration patch"]
    # the Cluster's own JoinConfiguration on a cluster of one node is not said: scripts append workers to such files
    alone = _cluster("kind: JoinConfiguration\nnodeRegistration:\n  kubeletExtraArgs:\n    max-pods: \"200\"\n",
                     "- role: control-plane\n")
    assert findings(tmp_path, {"kind.yaml": alone}) == []


def test_a_patch_left_for_a_template_tool_is_not_judged(tmp_path: Path) -> None:
    text = _cluster("kind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"${RESERVED}\"\n")
    found = findings(tmp_path, {"kind.yaml": text})
    assert [(f["rule"], f["line"]) for f in found] == [("not-lintable", 4)] and "template" in found[0]["message"]


def test_thousands_of_patches_and_nodes_stay_linear_and_alike_nodes_share_a_kubelet(tmp_path: Path) -> None:
    """Each patch split the whole file into lines again (20,000 patches took 56 s); nodes whose flags are alike,
    each in its own patch, run one kubelet, said once."""
    worker = ("- role: worker\n  kubeadmConfigPatches:\n  - |\n    kind: JoinConfiguration\n    nodeRegistration:\n"
              "      kubeletExtraArgs:\n        cpu-manager-policy: static\n")
    text = _cluster("kind: KubeletConfiguration\nmaxPods: 100\n" * 1, "- role: control-plane\n" + worker * 3000)
    found = findings(tmp_path, {"kind.yaml": text})
    assert [(f["rule"], f["object"]["part"]) for f in found] == [("no-cpu-reservation", "kind workers")]


def test_review_cases_of_kind_patches(tmp_path: Path) -> None:
    """Found by a review: a kind that is a list stopped the whole run (unhashable); an alias in a flow list was
    taken for a patch numalint cannot place; a later patch hid an earlier patch's repeated key; an aliased Cluster
    patch reused on a worker was said to change nothing, at the Cluster's own patch."""
    listed = _cluster("kind: [KubeletConfiguration]\ncpuManagerPolicy: static\n")
    assert findings(tmp_path, {"kind.yaml": listed}) == []
    flow = ("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n- &p |\n"
            "  kind: KubeletConfiguration\n  cpuManagerPolicy: static\nnodes:\n- role: control-plane\n"
            "- role: worker\n  kubeadmConfigPatches: [*p]\n")
    assert [(f["rule"], f["line"]) for f in findings(tmp_path, {"kind.yaml": flow})] == [("no-cpu-reservation", 6)]
    repeated = _cluster("kind: KubeletConfiguration\nmaxPods: 10\nmaxPods: 20\n").replace(
        "nodes:\n", "- |\n  kind: KubeletConfiguration\n  podsPerCore: 2\nnodes:\n")
    assert [(f["rule"], f["line"]) for f in findings(tmp_path, {"kind.yaml": repeated})] == [("unknown-field", 7)]


def test_a_pod_after_a_cluster_on_its_last_line_keeps_its_fix(tmp_path: Path) -> None:
    """Fixes inside the Cluster are hints; a Pod that starts on the line the Cluster ends on is not inside it."""
    pod = ("--- {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c, image: x, resources: "
           "{requests: {cpu: 1500m, memory: 1Gi}, limits: {cpu: 1500m, memory: 1Gi}}}]}}\n")
    text = _cluster("kind: KubeletConfiguration\ncpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n") + pod
    found = {f["rule"]: f for f in findings(tmp_path, {"kind.yaml": text})}
    assert found["fractional-cpu"]["fix"]["edits"]
