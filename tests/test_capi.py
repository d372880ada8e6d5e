"""A Cluster API KubeadmConfigTemplate's kubeletExtraArgs are its machines' kubelet flags, over the kubelet's
defaults (the cluster's kubelet-config holds kubeadm's); judged when they ask for alignment. Before, such templates
were not read."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import findings, run


def _template(flags: str, api: str = "v1beta1", extra: str = "") -> str:
    return (f"apiVersion: bootstrap.cluster.x-k8s.io/{api}\nkind: KubeadmConfigTemplate\nmetadata:\n  name: md-0\n"
            f"spec:\n  template:\n    spec:\n      joinConfiguration:\n{extra}        nodeRegistration:\n"
            f"          kubeletExtraArgs:\n{flags}")


def test_a_static_pool_without_reservation_is_said_at_its_flag(tmp_path: Path) -> None:
    text = _template("            cloud-provider: external\n            cpu-manager-policy: static\n")
    found = findings(tmp_path, {"md.yaml": text})
    assert [(f["rule"], f["line"]) for f in found] == [("no-cpu-reservation", 12)]
    assert found[0]["object"]["kind"] == "KubeadmConfigTemplate" and not found[0]["fix"]["edits"]
    reserved = text + "            reserved-cpus: \"0-1\"\n"
    assert findings(tmp_path, {"md.yaml": reserved}) == []
    path = tmp_path / "md.yaml"
    path.write_text(text)
    before = path.read_bytes()
    run("fix", "--unsafe-fixes", str(path))
    assert path.read_bytes() == before


def test_v1beta2_lists_its_flags_and_a_refused_flag_stops_the_kubelet(tmp_path: Path) -> None:
    flags = ("          - name: cpu-manager-policy\n            value: static\n"
             "          - name: reserved-cpus\n            value: \"0\"\n"
             "          - name: max-pods\n            value: lots\n")
    found = findings(tmp_path, {"md.yaml": _template(flags, "v1beta2")})
    assert [(f["rule"], f["line"]) for f in found] == [("kubelet-start", 16)]


def test_a_template_that_asks_no_alignment_is_not_judged(tmp_path: Path) -> None:
    plain = _template("            cloud-provider: aws\n            max-pods: \"200\"\n")
    assert findings(tmp_path, {"md.yaml": plain}) == []


def test_a_template_whose_kubelet_configuration_is_elsewhere_is_said_unjudged(tmp_path: Path) -> None:
    patched = _template("            cpu-manager-policy: static\n",
                        extra="        patches:\n          directory: /etc/kubernetes/patches\n")
    found = findings(tmp_path, {"md.yaml": patched})
    assert [(f["rule"], f["line"], f["severity"]) for f in found] == [("not-lintable", 9, "info")]
    config = _template("            cpu-manager-policy: static\n            config: /etc/kubelet-custom.yaml\n")
    assert [f["rule"] for f in findings(tmp_path, {"md.yaml": config})] == ["not-lintable"]


def test_fixes_name_the_flags_a_template_writes(tmp_path: Path) -> None:
    """A fix of a configuration made of flags names the flag of each field it names, in the flag's syntax (a
    review: `reservedSystemCPUs: "0"` is no kubeletExtraArgs entry)."""
    found = findings(tmp_path, {"md.yaml": _template("            cpu-manager-policy: static\n")})
    description = found[0]["fix"]["description"]
    assert "reservedSystemCPUs is reserved-cpus" in description
    assert "kube-reserved (written cpu=<quantity>" in description


def test_flags_left_for_clusterctl_are_not_judged(tmp_path: Path) -> None:
    """clusterctl fills ${VAR} in before the objects exist: five false errors before (a review)."""
    text = _template("            cpu-manager-policy: static\n"
                     "            reserved-memory: \"${WORKER_RESERVED_MEMORY}\"\n"
                     "            max-pods: \"${MAX_PODS}\"\n")
    found = findings(tmp_path, {"md.yaml": text})
    assert [(f["rule"], f["severity"]) for f in found] == [("not-lintable", "info")]
    assert "clusterctl generate cluster" in found[0]["message"]


def test_a_drop_in_directory_or_a_clusterclass_leaves_the_kubelet_unjudged(tmp_path: Path) -> None:
    dropin = _template("            cpu-manager-policy: static\n"
                       "            config-dir: /etc/kubernetes/kubelet.conf.d\n")
    assert [f["rule"] for f in findings(tmp_path, {"md.yaml": dropin})] == ["not-lintable"]
    clusterclass = ("apiVersion: cluster.x-k8s.io/v1beta1\nkind: ClusterClass\nmetadata:\n  name: numa\nspec: {}\n"
                    "---\n" + _template("            cpu-manager-policy: static\n"))
    found = findings(tmp_path, {"md.yaml": clusterclass})
    assert [f["rule"] for f in found] == ["not-lintable"] and "ClusterClass" in found[0]["message"]
