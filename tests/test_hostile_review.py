"""What a hostile-input hunt found in the node-tool readers and around them: each was a traceback, a finding at the
wrong place, or a file `fix` wrote though numalint said kubectl refuses it."""

from __future__ import annotations

import base64
from pathlib import Path

from tests.conftest import run

CLUSTER = "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n"


def _check(path: Path) -> tuple[int, list[dict[str, object]]]:
    result = run("check", "--format", "json", "--fail-on", "never", str(path))
    assert "Traceback" not in result.output + result.stderr
    return result.exit_code, result.json()["findings"]


def test_a_binary_patch_is_not_read_as_the_patch_it_decodes_to(tmp_path: Path) -> None:
    """A !!binary patch that decodes to bytes that are no UTF-8 ended the whole run in a traceback; one that
    decodes to a patch was located as if its base64 lines were the patch's."""
    (tmp_path / "good.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                                        "  containers: [{name: c, image: x}]\n")
    (tmp_path / "bytes.yaml").write_text(CLUSTER + "- !!binary /w==\n")
    encoded = base64.b64encode(b"kind: KubeletConfiguration\ncpuManagerPolicy: statik\n").decode()
    (tmp_path / "patch.yaml").write_text(CLUSTER + f"- !!binary |\n  {encoded}\n")
    code, found = _check(tmp_path)
    assert code == 0
    assert {(Path(str(f["file"])).name, f["rule"]) for f in found} == {("bytes.yaml", "not-lintable"),
                                                                       ("patch.yaml", "not-lintable")}


def test_a_null_that_removes_a_repeated_key(tmp_path: Path) -> None:
    """kind's merge patch removes a key written twice: its duplicate finding read the removed key (KeyError)."""
    path = tmp_path / "kind.yaml"
    path.write_text(CLUSTER + "- |\n  kind: KubeletConfiguration\n  cpuManagerPolicy: static\n"
                              "  cpuManagerPolicy: null\n")
    _, found = _check(path)
    assert [(f["rule"], f["line"]) for f in found] == [("unknown-field", 7)]
    assert "a null, which removes the field" in str(found[0]["fix"])


def test_a_deeply_nested_performance_profile(tmp_path: Path) -> None:
    """The template test walked a PerformanceProfile recursively: 330 levels raised RecursionError."""
    depth = 390  # deeper than 330, and within the 400 levels numalint reads (yamlpos.MAX_DEPTH)
    path = tmp_path / "pp.yaml"
    path.write_text("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {name: p}\n"
                    'spec:\n  cpu: {isolated: "1", reserved: "0"}\n  nodeSelector: {a: b}\n  numa: '
                    + "{a: " * depth + "1" + "}" * depth + "\n")
    code, _ = _check(path)
    assert code == 0


def test_fix_never_writes_a_file_kubectl_refuses(tmp_path: Path) -> None:
    """A document with a mapping as a key is a yaml-syntax error (kubectl refuses it); `fix` still wrote the
    file's other fixes."""
    path = tmp_path / "pod.yaml"
    path.write_text('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n'
                    'reservedSystemCPUs: "0"\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n'
                    "  containers:\n  - name: c\n    ? image: x\n    resources:\n"
                    "      limits: {cpu: 2500m, memory: 1Gi, hugepages-1Gi: 1Gi}\n")
    before = path.read_bytes()
    result = run("fix", "--unsafe-fixes", str(path))
    assert path.read_bytes() == before
    assert "1 fix(es) left alone in a document kubectl refuses" in result.output + result.stderr


def test_fix_edits_the_other_documents_of_such_a_file(tmp_path: Path) -> None:
    """Only the refused document is left alone: a fix in another document of the file is applied (a review found
    the whole file refused)."""
    path = tmp_path / "two.yaml"
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  labels:\n    null: b\nspec:\n"
           "  containers: [{name: c, image: i}]\n")
    path.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: Static\n"
                    'reservedSystemCPUs: "0-1"\n---\n' + pod)
    run("fix", str(path))
    assert path.read_text() == ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                'cpuManagerPolicy: static\nreservedSystemCPUs: "0-1"\n---\n' + pod)


def test_a_kustomize_target_pattern_is_matched_as_go_matches_it(tmp_path: Path) -> None:
    """kustomize matches a target's name with Go's regexp (RE2): ``(a|a)*b`` against a name of many a's took seconds
    per two letters with a backtracking matcher; a pattern Go refuses (lookahead) matches nothing but itself."""
    base = tmp_path / "base"
    base.mkdir()
    (base / "kustomization.yaml").write_text("resources:\n- pp.yaml\n")
    (base / "pp.yaml").write_text("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n"
                                  f"  name: {'a' * 30}\nspec:\n  cpu: {{isolated: \"2-3\", reserved: \"0-1\"}}\n")
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    patch = ("patches:\n- target:\n    kind: PerformanceProfile\n    name: \"{name}\"\n  patch: |\n"
             "    - op: add\n      path: /spec/nodeSelector\n      value: {{node-role.kubernetes.io/a: \"\"}}\n")
    for name, selected in (("(a|a)*b", False), ("(a|a)*", True), ("(?=a)a*", False)):
        (overlay / "kustomization.yaml").write_text("resources:\n- ../base\n" + patch.format(name=name))
        _, found = _check(tmp_path)
        missing = [f for f in found if "spec.nodeSelector is required" in str(f["message"])]
        assert bool(missing) != selected, name


def test_an_alias_names_the_latest_anchor_of_its_name(tmp_path: Path) -> None:
    """A patch anchored again under an earlier patch's name (here as a quoted string, which numalint does not
    locate) is what a later alias means: the earlier patch was applied again (a false error)."""
    path = tmp_path / "kind.yaml"
    path.write_text(CLUSTER + "- &p |\n  kind: KubeletConfiguration\n  cpuManagerPolicy: statik\n"
                              "- |\n  kind: KubeletConfiguration\n  cpuManagerPolicy: static\n"
                              '  reservedSystemCPUs: "0"\n'
                              '- &p "kind: ClusterConfiguration\\n"\n'
                              "nodes:\n- role: control-plane\n  kubeadmConfigPatches:\n  - *p\n")
    assert _check(path)[1] == []
    again = path.read_text().replace('- &p "kind: ClusterConfiguration\\n"\n', "")  # *p: the first patch
    path.write_text(again)
    assert [f["rule"] for f in _check(path)[1]] == ["invalid-policy-name"]


def test_a_patch_nested_hundreds_of_levels(tmp_path: Path) -> None:
    depth = 400
    path = tmp_path / "kind.yaml"
    path.write_text(CLUSTER + "- |\n  kind: KubeletConfiguration\n  cpuManagerPolicy: static\n  x: "
                    + "[" * depth + "]" * depth + "\n")
    code, found = _check(path)
    assert code == 0 and "x" in " ".join(str(f["message"]) for f in found)


def test_a_tuning_block_with_an_anchor_or_a_string_tag_is_read(tmp_path: Path) -> None:
    """``tuning: &a |`` and ``tuning: !!str |`` are literal blocks: their PerformanceProfile was skipped silently;
    one numalint cannot locate (a quoted scalar) is said."""
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: t, namespace: c}\ndata:\n  tuning: "
    body = (" |\n    apiVersion: performance.openshift.io/v2\n    kind: PerformanceProfile\n    metadata: {name: pp}\n"
            '    spec:\n      cpu: {isolated: "2-3", reserved: "0-2"}\n')
    path = tmp_path / "tuning.yaml"
    for properties in ("&a", "!!str", "&a !!str"):
        path.write_text(head + properties + body)
        assert [(f["rule"], f["line"]) for f in _check(path)[1]] == [("performance-profile-cpus", 10)], properties
    quoted = ('"apiVersion: performance.openshift.io/v2\\nkind: PerformanceProfile\\nmetadata: {name: pp}\\n'
              'spec: {cpu: {isolated: 2-3, reserved: 0-2}}\\n"\n')
    path.write_text(head + quoted)
    assert [f["rule"] for f in _check(path)[1]] == ["not-lintable"]
