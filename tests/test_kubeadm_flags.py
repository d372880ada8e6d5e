"""kubeadm's kubeletExtraArgs beside a KubeletConfiguration of the same file are kubelet flags, which win over the
configuration's fields (found by a review of public kubeadm configurations: a reservation made by flag was reported
as missing, "the kubelet will not start")."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import findings, run, write

KUBELET = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
           "cpuManagerPolicy: static\ntopologyManagerPolicy: single-numa-node\n")


def _kubeadm(kind: str, arguments: str, api: str = "v1beta3") -> str:
    return f"apiVersion: kubeadm.k8s.io/{api}\nkind: {kind}\nnodeRegistration:\n  kubeletExtraArgs:\n{arguments}"


def _rules(tmp_path: Path, text: str) -> list[str]:
    return sorted(f["rule"] for f in findings(tmp_path, {"kubeadm.yaml": text}))


def test_a_reservation_made_by_flag_is_a_reservation(tmp_path: Path) -> None:
    without = _rules(tmp_path, KUBELET)
    assert "no-cpu-reservation" in without
    flagged = _rules(tmp_path, _kubeadm("JoinConfiguration", '    reserved-cpus: "0-1"\n') + "---\n" + KUBELET)
    assert "no-cpu-reservation" not in flagged and "memory-manager-not-static" in flagged


def test_a_policy_set_by_flag_is_the_kubelets(tmp_path: Path) -> None:
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
               "topologyManagerPolicy: restricted\n")
    assert "cpu-manager-not-static" in _rules(tmp_path, kubelet)
    flagged = _kubeadm("InitConfiguration", "    cpu-manager-policy: static\n    reserved-cpus: \"0\"\n")
    assert "cpu-manager-not-static" not in _rules(tmp_path, flagged + "---\n" + kubelet)


def test_kubeadm_v1beta4_lists_its_flags(tmp_path: Path) -> None:
    """v1beta4 writes kubeletExtraArgs as a list of name and value; reserved-memory as the kubelet's flag reads it
    (NUMA node:type=quantity, nodes apart with ';')."""
    flags = ("  - name: memory-manager-policy\n    value: Static\n"
             "  - name: reserved-memory\n    value: \"0:memory=50Mi;1:memory=50Mi\"\n"
             "  - name: reserved-cpus\n    value: \"0\"\n")
    assert _rules(tmp_path, _kubeadm("JoinConfiguration", flags, "v1beta4") + "---\n" + KUBELET) == []


def test_a_wrong_flag_is_reported_at_the_flag_and_fixed_by_hand(tmp_path: Path) -> None:
    text = _kubeadm("JoinConfiguration", "    memory-manager-policy: Static\n    reserved-memory: \"0:memory=1Gi\"\n"
                                         "    cpu-manager-policy: Static\n    kube-reserved: cpu=1,memory=500Mi\n")
    text += "---\n" + KUBELET.replace("cpuManagerPolicy: static", "cpuManagerPolicy: none")
    found = {f["rule"]: f for f in findings(tmp_path, {"kubeadm.yaml": text})}
    assert set(found) == {"reserved-memory-mismatch", "invalid-policy-name"}
    assert (found["reserved-memory-mismatch"]["line"], found["invalid-policy-name"]["line"]) == (6, 7)
    assert "600Mi" in found["reserved-memory-mismatch"]["fix"]["description"]
    for finding in found.values():
        assert "kubeletExtraArgs" in finding["fix"]["description"] and not finding["fix"]["edits"]
    path = tmp_path / "kubeadm.yaml"
    before = path.read_bytes()
    run("fix", "--unsafe-fixes", str(path))
    assert path.read_bytes() == before


def test_the_joining_nodes_flags_win_and_unreadable_flags_are_left_out(tmp_path: Path) -> None:
    init = _kubeadm("InitConfiguration", "    reserved-cpus: \"0\"\n")
    join = _kubeadm("JoinConfiguration", "    max-pods: \"300\"\n")
    assert "no-cpu-reservation" in _rules(tmp_path, init + "---\n" + join + "---\n" + KUBELET)
    # the kubelet would not parse these: numalint reads the configuration's own fields
    odd = _kubeadm("JoinConfiguration", "    reserved-cpus: {a: b}\n    kube-reserved: cpu\n"
                                        "    reserved-memory: \"x:memory=1Gi\"\n    feature-gates: A=maybe\n")
    assert "no-cpu-reservation" in _rules(tmp_path, odd + "---\n" + KUBELET)


def test_flags_apply_only_within_their_file_and_odd_shapes_are_no_traceback(tmp_path: Path) -> None:
    files = {"kubeadm.yaml": _kubeadm("JoinConfiguration", '    reserved-cpus: "0-1"\n'), "kubelet.yaml": KUBELET}
    assert "no-cpu-reservation" in [f["rule"] for f in findings(tmp_path, files)]
    for arguments in ("    null\n", "  - reserved-cpus\n", "  - {name: 3, value: x}\n  - {value: y}\n",
                      "    ? [a]\n    : b\n"):
        result = run("check", "--format", "json", str(write(tmp_path / "odd", {
            "kubeadm.yaml": _kubeadm("JoinConfiguration", arguments) + "---\n" + KUBELET})))
        assert result.exit_code == 1 and "Traceback" not in result.output + result.stderr


def test_flags_read_as_the_kubelets_parsers_read_them(tmp_path: Path) -> None:
    """Found by the review of this change: an int flag of two signs ended in a traceback; a map flag with a trailing
    comma was left out (cliflag skips empty items); a feature-gates flag dropped the gates the file sets (the kubelet
    adds them back); an empty map flag clears the field."""
    for count in ('"+-5"', '"--5"', '"0x"', '"1_"', '"99999999999"', '"010"'):
        text = _kubeadm("JoinConfiguration", f"    max-pods: {count}\n") + "---\n" + KUBELET
        rules = _rules(tmp_path, text)  # and no traceback (findings would fail)
        assert "no-cpu-reservation" in rules
        # a value the kubelet's flag parser refuses stops it: said where it is written ("010" is octal 8)
        assert ("kubelet-start" in rules) is (count != '"010"'), count
    trailing = _kubeadm("JoinConfiguration", '    kube-reserved: "cpu=1,memory=1Gi,"\n')
    assert "no-cpu-reservation" not in _rules(tmp_path, trailing + "---\n" + KUBELET)
    gates = _kubeadm("JoinConfiguration", '    feature-gates: "KubeletTracing=true"\n    reserved-cpus: "0"\n')
    kubelet = (KUBELET.replace("single-numa-node", "restricted")
               + 'cpuManagerPolicyOptions: {align-by-socket: "true"}\n'
               + "featureGates: {CPUManagerPolicyAlphaOptions: true}\n")
    off = gates.replace("KubeletTracing=true", "CPUManagerPolicyAlphaOptions=false")
    assert "policy-option" in _rules(tmp_path, off + "---\n" + kubelet)
    assert "policy-option" not in _rules(tmp_path, gates + "---\n" + kubelet)
    cleared = _kubeadm("JoinConfiguration", '    kube-reserved: ""\n')
    assert "no-cpu-reservation" in _rules(tmp_path, cleared + "---\n" + KUBELET + 'kubeReserved: {cpu: "1"}\n')
    assert "no-cpu-reservation" not in _rules(tmp_path, KUBELET + 'kubeReserved: {cpu: "1"}\n')


def test_a_flag_given_twice_adds_up_and_is_never_edited(tmp_path: Path) -> None:
    """v1beta4 lists a flag as often as it is given: reserved-memory adds NUMA nodes, a map flag its items; every
    place a flag was read from counts as a flag's (fixes there are hints), not only the last one's."""
    flags = ("  - name: memory-manager-policy\n    value: Static\n  - name: reserved-cpus\n    value: \"0\"\n"
             "  - name: reserved-memory\n    value: \"0:memory=1Gi\"\n"
             "  - name: reserved-memory\n    value: \"1:memory=1Gi\"\n")
    path = write(tmp_path, {"kubeadm.yaml": _kubeadm("JoinConfiguration", flags, "v1beta4") + "---\n" + KUBELET})
    found = {f["rule"]: f for f in findings(tmp_path, {})}
    assert "reserved-memory-mismatch" in found and "2Gi" in found["reserved-memory-mismatch"]["message"]
    assert all(not f["fix"]["edits"] for f in found.values() if f["fix"])
    before = (path / "kubeadm.yaml").read_bytes()
    run("fix", "--unsafe-fixes", str(path))
    assert (path / "kubeadm.yaml").read_bytes() == before


def test_the_first_nodes_flags_never_reach_the_joining_ones(tmp_path: Path) -> None:
    """An InitConfiguration's flags go to the first node only: beside a JoinConfiguration whose flags numalint does
    not model, the workers run the KubeletConfiguration alone (found by a sweep of public configurations)."""
    init = _kubeadm("InitConfiguration", '    reserved-cpus: "0-1"\n')
    join = _kubeadm("JoinConfiguration", '    node-labels: "role=worker"\n')
    assert "no-cpu-reservation" in _rules(tmp_path, init + "---\n" + join + "---\n" + KUBELET)
    assert "no-cpu-reservation" not in _rules(tmp_path, init + "---\n" + KUBELET)


def test_enforce_node_allocatable_given_by_flag(tmp_path: Path) -> None:
    """The flag's list, without the cgroup it names, stops the kubelet as the field does (found by a sweep of public
    configurations); with the cgroup flag beside it, it starts."""
    flags = '    enforce-node-allocatable: "pods,system-reserved"\n    reserved-cpus: "0"\n'
    assert "kubelet-start" in _rules(tmp_path, _kubeadm("JoinConfiguration", flags) + "---\n" + KUBELET)
    flags = flags.replace('    reserved-cpus: "0"\n', "    system-reserved-cgroup: /system.slice\n"
                                                       '    kube-reserved: "cpu=1"\n')
    assert "kubelet-start" not in _rules(tmp_path, _kubeadm("JoinConfiguration", flags) + "---\n" + KUBELET)
