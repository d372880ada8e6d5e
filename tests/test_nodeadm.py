"""An Amazon EKS NodeConfig (nodeadm, node.eks.aws): its spec.kubelet over nodeadm's own kubelet configuration,
which writes the reserved cgroups and computes kubeReserved from the instance. Before, such files were not read."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import findings, run

HEAD = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nmetadata:\n  name: numa\nspec:\n  kubelet:\n"
ALIGNED = HEAD + "    config:\n      cpuManagerPolicy: static\n      topologyManagerPolicy: single-numa-node\n"
STATIC_MEMORY = ALIGNED + ("      memoryManagerPolicy: Static\n{more}      reservedMemory:\n        - numaNode: 0\n"
                           "          limits:\n            memory: {total}\n")


def test_the_static_policy_needs_no_written_reservation(tmp_path: Path) -> None:
    """nodeadm always reserves kubeReserved cpu (computed from the cores): the static policy has its reservation.
    Only the Memory Manager is missing (a true warning, as on any kubelet)."""
    found = findings(tmp_path, {"node.yaml": ALIGNED})
    assert [(f["rule"], f["severity"]) for f in found] == [("memory-manager-not-static", "warning")]


def test_a_nodeconfig_that_asks_no_alignment_is_not_judged(tmp_path: Path) -> None:
    text = HEAD + "    config:\n      maxPods: 110\n    flags:\n      - --node-labels=team=a\n"
    assert findings(tmp_path, {"node.yaml": text}) == []


def test_reserved_cpus_meet_nodeadms_reserved_cgroups(tmp_path: Path) -> None:
    """nodeadm writes systemReservedCgroup /system and kubeReservedCgroup /runtime: reservedSystemCPUs beside them
    stops the kubelet (awslabs/amazon-eks-ami#1334) unless the configuration clears both."""
    text = ALIGNED + '      reservedSystemCPUs: "0-1"\n      memoryManagerPolicy: Static\n'
    found = [f for f in findings(tmp_path, {"node.yaml": text}) if f["rule"] == "reserved-cpus-conflict"]
    assert [(f["severity"], f["line"]) for f in found] == [("error", 10)]
    assert "systemReservedCgroup /system and kubeReservedCgroup /runtime: nodeadm writes them" in found[0]["message"]
    assert 'systemReservedCgroup: ""' in found[0]["fix"]["description"] and not found[0]["fix"]["edits"]
    cleared = text + '      systemReservedCgroup: ""\n      kubeReservedCgroup: ""\n'
    assert not [f for f in findings(tmp_path, {"node.yaml": cleared}) if f["rule"] == "reserved-cpus-conflict"]
    # a flag sets it too (flags win over the configuration)
    flagged = HEAD + '    flags:\n      - --cpu-manager-policy=static\n      - "--reserved-cpus 0,1"\n'
    found = findings(tmp_path, {"node.yaml": flagged})
    assert [(f["rule"], f["line"]) for f in found] == [("reserved-cpus-conflict", 9)]


def test_memory_left_to_nodeadm_depends_on_the_instance_type(tmp_path: Path) -> None:
    """kubeReserved memory is 11Mi x the instance type's max pods + 255Mi: a total no count of pods gives fails on
    every instance (error); one that some count gives works on those instance types only (warning)."""
    found = findings(tmp_path, {"node.yaml": STATIC_MEMORY.format(more="", total="1100Mi")})
    assert [(f["rule"], f["severity"], f["line"]) for f in found] == [("reserved-memory-mismatch", "error", 12)]
    assert "no count of max pods gives" in found[0]["message"] and "network interfaces" in found[0]["message"]
    # 100Mi eviction + 255Mi + 11Mi x 67 pods
    found = findings(tmp_path, {"node.yaml": STATIC_MEMORY.format(more="", total="1092Mi")})
    assert [(f["rule"], f["severity"]) for f in found] == [("reserved-memory-mismatch", "warning")]
    assert "max pods come to 67" in found[0]["message"] and "kubeReserved.memory" in found[0]["fix"]["description"]
    nothing = ALIGNED + "      memoryManagerPolicy: Static\n"
    found = findings(tmp_path, {"node.yaml": nothing})
    assert [(f["rule"], f["severity"]) for f in found] == [("reserved-memory-mismatch", "error")]
    assert "never zero" in found[0]["message"]


def test_max_pods_expression_sets_the_reserved_memory(tmp_path: Path) -> None:
    """spec.kubelet.maxPodsExpression replaces the instance type's max pods in nodeadm's formula: a constant one
    settles the total (checked exactly), another leaves it to the node, said as such (a review found the
    instance-type message wrong there)."""
    constant = "    maxPodsExpression: \"110\"\n" + STATIC_MEMORY.format(more="", total="1565Mi")[len(HEAD):]
    assert findings(tmp_path, {"node.yaml": HEAD + constant}) == []  # 11Mi x 110 + 255Mi + 100Mi
    wrong = constant.replace("1565Mi", "993Mi")
    found = findings(tmp_path, {"node.yaml": HEAD + wrong})
    assert [(f["rule"], f["severity"]) for f in found] == [("reserved-memory-mismatch", "error")]
    assert "1565Mi" in found[0]["message"]
    varying = wrong.replace('"110"', "default_enis * (ips_per_eni - 1) + 2")
    found = findings(tmp_path, {"node.yaml": HEAD + varying})
    assert [(f["rule"], f["severity"]) for f in found] == [("reserved-memory-mismatch", "warning")]
    assert "maxPodsExpression" in found[0]["message"] and "network interfaces" not in found[0]["message"]


def test_flags_as_the_kubelet_gets_them(tmp_path: Path) -> None:
    """nodeadm joins the items with spaces and systemd splits them again: several flags in one item all count
    (a public Outposts NodeConfig wrote them so), and --name= clears a value."""
    packed = HEAD + ("    flags:\n      - --node-labels=a=b --topology-manager-policy=single-numa-node "
                     "--cpu-manager-policy=static --reserved-cpus 0\n")
    found = findings(tmp_path, {"node.yaml": packed})
    assert [(f["rule"], f["line"]) for f in found] == [("memory-manager-not-static", 8), ("reserved-cpus-conflict", 8)]
    cleared = packed + "      - --kube-reserved-cgroup=\n      - --system-reserved-cgroup=\n"
    assert [f["rule"] for f in findings(tmp_path, {"node.yaml": cleared})] == ["memory-manager-not-static"]
    one = packed + "      - --kube-reserved-cgroup=\n"
    found = [f for f in findings(tmp_path, {"node.yaml": one}) if f["rule"] == "reserved-cpus-conflict"]
    assert "(systemReservedCgroup /system: nodeadm writes it for every EKS node" in found[0]["message"]


def test_written_kube_reserved_memory_is_checked_exactly(tmp_path: Path) -> None:
    """kubeReserved.memory written: the drop-in merge keeps nodeadm's cpu and takes the memory; the total must be it
    + the 100Mi eviction threshold nodeadm writes."""
    more = "      kubeReserved:\n        memory: 1Gi\n"
    assert findings(tmp_path, {"node.yaml": STATIC_MEMORY.format(more=more, total="1124Mi")}) == []
    found = findings(tmp_path, {"node.yaml": STATIC_MEMORY.format(more=more, total="1Gi")})
    assert [(f["rule"], f["severity"]) for f in found] == [("reserved-memory-mismatch", "error")]
    assert "1124Mi" in found[0]["message"] and "NodeConfig's spec.kubelet" in found[0]["fix"]["description"]
    # evictionHard written without memory.available: the merge keeps nodeadm's 100Mi (maps merge key by key)
    evicting = more + '      evictionHard:\n        nodefs.available: "5%"\n'
    assert findings(tmp_path, {"node.yaml": STATIC_MEMORY.format(more=evicting, total="1124Mi")}) == []


def test_templated_and_unreadable_settings(tmp_path: Path) -> None:
    templated = HEAD + "    config:\n      cpuManagerPolicy: ${POLICY}\n"
    found = findings(tmp_path, {"node.yaml": templated})
    assert [(f["rule"], f["line"]) for f in found] == [("not-lintable", 8)]
    refused = HEAD + "    flags:\n      - --cpu-manager-policy=static\n      - --system-reserved=cpu=abc\n"
    found = findings(tmp_path, {"node.yaml": refused})
    assert [f["rule"] for f in found] == ["kubelet-start"]
    for odd in ("    config: [1, 2]\n", "    flags: {a: b}\n", "    config:\n      cpuManagerPolicy: [static]\n",
                "    flags:\n      - 7\n      - --\n      - '--cpu-manager-policy'\n"):
        result = run("check", "--format", "json", "--fail-on", "never", "-", stdin=HEAD + odd)
        assert result.exit_code == 0 and "Traceback" not in result.output + result.stderr, odd


def test_fix_leaves_a_nodeconfig_alone(tmp_path: Path) -> None:
    path = tmp_path / "node.yaml"
    path.write_text(STATIC_MEMORY.format(more="      kubeReserved:\n        memory: 1Gi\n", total="1Gi"))
    before = path.read_bytes()
    run("fix", "--unsafe-fixes", str(path))
    assert path.read_bytes() == before


NODE_CLASS = ("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: numa\nspec:\n"
              "  amiSelectorTerms:\n    - alias: al2023@latest\n{kubelet}  userData: {style}\n{data}")
NODE_CONFIG = ("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n"
               "      cpuManagerPolicy: static\n      memoryManagerPolicy: Static\n      reservedMemory:\n"
               "        - numaNode: 0\n          limits:\n            memory: 1124Mi\n")
MIME = ('MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n--B\n'
        'Content-Type: text/x-shellscript; charset="us-ascii"\n\n#!/bin/bash\necho hi\n\n--B\n'
        "Content-Type: application/node.eks.aws\n{encoding}\n---\n" + NODE_CONFIG + "\n--B--\n")


def _node_class(data: str, kubelet: str = "", style: str = "|") -> str:
    indented = "".join(f"    {line}\n" if line else "\n" for line in data.split("\n")[:-1])
    return NODE_CLASS.format(kubelet=kubelet, style=style, data=indented)


def test_a_karpenter_node_class_carries_its_nodeconfig_in_user_data(tmp_path: Path) -> None:
    """The NodeConfig parts of MIME user data, or a NodeConfig written as it is; the class's spec.kubelet comes last
    (Karpenter's own NodeConfig) and wins. Findings point into the user data."""
    pinned = "  kubelet:\n    kubeReserved:\n      memory: 1Gi\n"
    assert findings(tmp_path, {"class.yaml": _node_class(MIME.format(encoding=""), pinned)}) == []
    found = findings(tmp_path, {"class.yaml": _node_class(MIME.format(encoding=""))})
    assert [(f["rule"], f["severity"]) for f in found] == [("reserved-memory-mismatch", "error")]
    text = (tmp_path / "class.yaml").read_text().splitlines()
    assert text[found[0]["line"] - 1].strip() == "- numaNode: 0"  # the reservedMemory list in the MIME part
    bare = findings(tmp_path, {"class.yaml": _node_class(NODE_CONFIG, "  kubelet:\n    kubeReserved:\n"
                                                                       "      memory: 2Gi\n")})
    assert [(f["rule"], f["severity"]) for f in bare] == [("reserved-memory-mismatch", "error")]
    assert "2148Mi" in bare[0]["message"] and "EC2NodeClass's spec.kubelet" in bare[0]["fix"]["description"]


def test_node_class_user_data_numalint_cannot_read_is_said(tmp_path: Path) -> None:
    """An encoded NodeConfig part is said when it asks for alignment (its settings cannot be located), a folded
    scalar always (it cannot be located either)."""
    import base64
    import gzip

    def encoded(config: str, compress: bool = False) -> str:
        data = gzip.compress(config.encode()) if compress else config.encode()
        return MIME.replace("{encoding}\n---\n" + NODE_CONFIG, "Content-Transfer-Encoding: base64\n\n"
                            + base64.b64encode(data).decode())

    for compress in (False, True):
        found = findings(tmp_path, {"class.yaml": _node_class(encoded(NODE_CONFIG, compress))})
        assert [(f["rule"], f["severity"]) for f in found] == [("not-lintable", "info")]
        assert "encoded" in found[0]["message"]
    plain = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 9\n"
    assert findings(tmp_path, {"class.yaml": _node_class(encoded(plain, True))}) == []
    folded = findings(tmp_path, {"class.yaml": _node_class(NODE_CONFIG, style=">")})
    assert [f["rule"] for f in folded] == ["not-lintable"] and "literal block" in folded[0]["message"]
    assert findings(tmp_path, {"class.yaml": _node_class(plain, style=">")}) == []  # asks nothing: not said
    # shell user data (AL2, Bottlerocket's TOML), or Karpenter's v1beta1 classes: not read
    shell = _node_class("#!/bin/bash\necho node.eks.aws\n")
    older = _node_class(NODE_CONFIG).replace("karpenter.k8s.aws/v1\n", "karpenter.k8s.aws/v1beta1\n")
    assert findings(tmp_path, {"class.yaml": shell, "old.yaml": older}) == []


def test_what_a_review_found_in_the_reader(tmp_path: Path) -> None:
    """A maxPodsExpression of a digit Python reads but int() does not ("²") ended the run; a --kube-reserved flag
    replaces nodeadm's computed map; hugepages in reservedMemory are still refused under nodeadm's memory."""
    odd = HEAD + '    maxPodsExpression: "²"\n    config:\n      cpuManagerPolicy: static\n'
    assert [f["rule"] for f in findings(tmp_path, {"node.yaml": odd})] == []
    flagged = HEAD + ("    config:\n      cpuManagerPolicy: static\n      memoryManagerPolicy: Static\n"
                      "      reservedMemory:\n        - numaNode: 0\n          limits:\n            memory: 1124Mi\n"
                      "    flags:\n      - --kube-reserved=memory=1Gi\n")
    assert findings(tmp_path, {"node.yaml": flagged}) == []  # 1Gi + 100Mi: exact, the flag's map replaces nodeadm's
    no_cpu = flagged.replace("memory=1Gi", "memory=1Gi,cpu=0")
    assert [f["rule"] for f in findings(tmp_path, {"node.yaml": no_cpu})] == ["no-cpu-reservation"]
    huge = STATIC_MEMORY.format(more="", total="1092Mi") + "            hugepages-1Gi: 2Gi\n"
    found = findings(tmp_path, {"node.yaml": huge})
    assert sorted((f["rule"], f["severity"]) for f in found) == [("reserved-memory-mismatch", "error"),
                                                                 ("reserved-memory-mismatch", "warning")]
    assert any("hugepages-1Gi sums to 2Gi; the kubelet requires 0" in f["message"] for f in found)


def test_mime_parts_are_documents_of_their_own_merged_in_order(tmp_path: Path) -> None:
    """Parts without a leading --- were read as one mapping (the last part's keys only); a constant
    maxPodsExpression is nodeadm's own configuration, under every part's kubeReserved; an encoded part that names no
    kubelet setting does not stop the others being judged."""
    part = "--B\nContent-Type: application/node.eks.aws\n\n" + "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n"
    cpus = part + "spec:\n  kubelet:\n    flags:\n      - --reserved-cpus=0\n\n"
    policy = part + "spec:\n  kubelet:\n    flags:\n      - --cpu-manager-policy=static\n\n"
    mime = 'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="B"\n\n{parts}--B--\n'
    found = findings(tmp_path, {"class.yaml": _node_class(mime.format(parts=cpus + policy))})
    assert [f["rule"] for f in found] == ["reserved-cpus-conflict"]
    pinned = part + ("spec:\n  kubelet:\n    config:\n      cpuManagerPolicy: static\n"
                     "      memoryManagerPolicy: Static\n      kubeReserved: {memory: 2Gi}\n"
                     "      reservedMemory: [{numaNode: 0, limits: {memory: 2148Mi}}]\n\n")
    constant = part + 'spec:\n  kubelet:\n    maxPodsExpression: "110"\n\n'
    assert findings(tmp_path, {"class.yaml": _node_class(mime.format(parts=pinned + constant))}) == []
    encoded = ("--B\nContent-Type: application/node.eks.aws\nContent-Transfer-Encoding: base64\n\n"
               "YXBpVmVyc2lvbjogbm9kZS5la3MuYXdzL3YxYWxwaGExCmtpbmQ6IE5vZGVDb25maWcK\n\n")  # no kubelet setting
    found = findings(tmp_path, {"class.yaml": _node_class(mime.format(parts=encoded + cpus + policy))})
    assert [f["rule"] for f in found] == ["reserved-cpus-conflict"]
