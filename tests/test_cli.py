"""The command line as a user meets it: formats, exit codes, configuration, suppressions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run, write

STATIC_NO_RESERVATION = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
"""
CLEAN = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "0"
"""


def test_text_output_has_location_severity_slug_and_fix(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": STATIC_NO_RESERVATION})
    result = run("check", str(tmp_path / "k.yaml"))
    assert result.exit_code == 1
    first, why, fix = result.output.splitlines()[:3]
    assert first == f"{tmp_path / 'k.yaml'}:3:19: error [no-cpu-reservation] KubeletConfiguration k: static CPU " \
                    "manager without reserved CPUs"
    assert why.startswith("  why: the kubelet will not start")
    assert fix.startswith("  fix: reserve CPUs")
    assert "\033[" not in result.output


def test_exit_codes(tmp_path: Path) -> None:
    write(tmp_path, {"clean.yaml": CLEAN, "bad.yaml": STATIC_NO_RESERVATION, "broken.yaml": "a: [\n"})
    assert run("check", str(tmp_path / "clean.yaml")).exit_code == 0
    assert run("check", str(tmp_path / "bad.yaml")).exit_code == 1
    assert run("check", "--fail-on", "never", str(tmp_path / "bad.yaml")).exit_code == 0
    assert run("check", str(tmp_path / "broken.yaml")).exit_code == 2  # nothing could be read
    assert run("check", str(tmp_path / "missing.yaml")).exit_code == 2
    assert run("check", "--format", "xml", str(tmp_path)).exit_code == 2
    assert run("check").exit_code == 2
    assert run("check", "--kubernetes-version", "one", str(tmp_path)).exit_code == 2


def test_fail_on_thresholds(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                               "topologyManagerPolicy: best-effort\n"})  # a warning only
    assert run("check", str(tmp_path)).exit_code == 1
    assert run("check", "--fail-on", "error", str(tmp_path)).exit_code == 0
    assert run("check", "--fail-on", "info", str(tmp_path)).exit_code == 1


def test_json_output_contract(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": STATIC_NO_RESERVATION})
    data = run("check", "--format", "json", str(tmp_path)).json()
    assert data["version"] == 1
    (finding,) = data["findings"]
    assert finding["rule"] == "no-cpu-reservation" and finding["code"] == "NL104"
    assert finding["severity"] == "error"
    assert (finding["line"], finding["column"], finding["end_line"], finding["end_column"]) == (3, 19, 3, 25)
    assert finding["object"] == {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration",
                                 "name": "k", "namespace": None}
    assert finding["fix"]["description"] and finding["fix"]["safety"] == "display"
    assert data["summary"] == {"files": 1, "findings": 1, "error": 1, "warning": 0, "info": 0}


def test_sarif_is_valid_and_has_rules_and_regions(tmp_path: Path) -> None:
    from jsonschema import Draft4Validator

    write(tmp_path, {"k.yaml": STATIC_NO_RESERVATION})
    result = run("check", "--format", "sarif", str(tmp_path))
    log = json.loads(result.output)
    schema = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
    Draft4Validator(schema).validate(log)
    driver = log["runs"][0]["tool"]["driver"]
    assert any(r["id"] == "no-cpu-reservation" and r["help"]["text"] for r in driver["rules"])
    (res,) = log["runs"][0]["results"]
    assert res["ruleId"] == "no-cpu-reservation" and res["level"] == "error"
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == 3


def test_github_annotations(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": STATIC_NO_RESERVATION})
    out = run("check", "--format", "github", str(tmp_path)).output
    assert out.startswith(f"::error file={tmp_path / 'k.yaml'},line=3,col=19,")
    assert "title=numalint no-cpu-reservation::" in out


def test_stdin(tmp_path: Path) -> None:
    result = run("check", "--format", "json", "-", stdin=STATIC_NO_RESERVATION)
    assert result.exit_code == 1
    assert result.json()["findings"][0]["file"] == "-"


def test_config_file_found_upwards_rules_severity_and_exclude(tmp_path: Path) -> None:
    write(tmp_path, {
        ".numalint.yaml": "rules:\n  no-cpu-reservation: warning\n  cpu-manager-not-static: off\n"
                          "exclude: ['vendor/*']\nfailOn: error\n",
        "k.yaml": STATIC_NO_RESERVATION,
        "vendor/x.yaml": STATIC_NO_RESERVATION,
        "t.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                  "topologyManagerPolicy: best-effort\n",
    })
    sub = tmp_path / "sub"
    sub.mkdir()
    result = run("check", "--format", "json", str(tmp_path), cwd=sub)
    findings = result.json()["findings"]
    assert [(Path(f["file"]).name, f["rule"], f["severity"]) for f in findings] == [
        ("k.yaml", "no-cpu-reservation", "warning")]
    assert result.exit_code == 0  # failOn: error


@pytest.mark.parametrize("config,message", [
    ("rules:\n  no-such-rule: off\n", "unknown rule"),
    ("rules:\n  schema: loud\n", "rules.schema"),
    ("kubernetesVersion: 1.30\n", "kubernetesVersion"),
    ("colour: true\n", "colour"),
    ("rules: [\n", "YAML syntax error"),
])
def test_invalid_config_is_a_usage_error(tmp_path: Path, config: str, message: str) -> None:
    write(tmp_path, {"cfg.yaml": config, "k.yaml": CLEAN})
    result = run("check", "--config", str(tmp_path / "cfg.yaml"), str(tmp_path / "k.yaml"))
    assert result.exit_code == 2
    assert message in result.stderr


def test_suppression_comment_on_line_or_line_above_and_unused_ones(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        # numalint: disable=no-cpu-reservation -- lab node
        cpuManagerPolicy: static
        memoryManagerPolicy: static  # numalint: disable=invalid-policy-name,cpu-manager-not-static
        topologyManagerPolicy: none  # numalint: disable=nonsense
        """})
    result = run("check", "--format", "json", str(tmp_path))
    findings = [(f["rule"], f["line"], f["message"]) for f in result.json()["findings"]]
    assert [(r, line) for r, line, _ in findings] == [("unused-suppression", 5), ("unused-suppression", 6)]
    assert "cpu-manager-not-static" in findings[0][2] and "unknown rule" in findings[1][2]
    assert result.exit_code == 0


def test_unused_suppressions_past_a_hundred_are_summed_up_at_the_configured_severity(tmp_path: Path) -> None:
    # a hundred per file, as every rule, and the summary at the severity the configuration gives the rule
    (tmp_path / ".numalint.yaml").write_text("rules:\n  unused-suppression: error\n")
    (tmp_path / "p.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n" + "".join(
        f"# numalint: disable-file=nosuchrule{i}\n" for i in range(105)))
    result = run("check", "--format", "json", str(tmp_path))
    found = result.json()["findings"]
    assert len(found) == 101 and {f["severity"] for f in found} == {"error"} and result.exit_code == 1
    assert found[-1]["message"].startswith("… and 5 more unused-suppression finding(s) in this file")


def test_annotation_suppression(tmp_path: Path) -> None:
    write(tmp_path, {"pod.yaml": """\
        apiVersion: v1
        kind: Pod
        metadata:
          name: gpu
          annotations:
            numalint.io/disable: "not-guaranteed"
        spec:
          containers:
            - name: app
              resources:
                requests:
                  cpu: "2"
                limits:
                  cpu: "2"
                  nvidia.com/gpu: 1
        """})
    result = run("check", "--format", "json", str(tmp_path))
    assert result.json()["findings"] == []
    text = (tmp_path / "pod.yaml").read_text()  # what the annotation suppresses
    (tmp_path / "pod.yaml").write_text(text.replace('    numalint.io/disable: "not-guaranteed"\n', "    a: b\n"))
    assert [f["rule"] for f in run("check", "--format", "json", str(tmp_path)).json()["findings"]] == [
        "not-guaranteed"]


def test_kubernetes_version_drives_option_gates(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": CLEAN + "cpuManagerPolicyOptions:\n  strict-cpu-reservation: \"true\"\n"})
    old = run("check", "--format", "json", "--kubernetes-version", "1.32", str(tmp_path))
    new = run("check", "--format", "json", "--kubernetes-version", "1.35", str(tmp_path))
    older = run("check", "--format", "json", "--kubernetes-version", "1.31", str(tmp_path))
    assert "Alpha-level Options not enabled" in old.json()["findings"][0]["message"]
    assert new.json()["findings"] == []
    assert "unknown CPU Manager Policy option" in older.json()["findings"][0]["message"]


def test_rules_listing_and_unknown_explain() -> None:
    listing = run("rules")
    assert listing.exit_code == 0 and "NL104  no-cpu-reservation" in listing.output
    assert json.loads(run("rules", "--format", "json").output)[0]["code"] == "NL001"
    assert run("explain", "no-such-rule").exit_code == 2


def test_context_files_feed_cross_document_checks_without_being_reported(tmp_path: Path) -> None:
    write(tmp_path, {
        "cluster/topology.yaml": """\
            apiVersion: numalint.io/v1alpha1
            kind: NodeTopology
            metadata:
              name: small
            spec:
              numaNodes:
                - id: 0
                  cpus: "0-3"
                  memory: 16Gi
                  bad: field
            """,
        "nodes/kubelet.yaml": CLEAN.replace('"0"', '"0,9"'),
        ".numalint.yaml": "context: [cluster]\n",
    })
    result = run("check", "--format", "json", str(tmp_path / "nodes"), cwd=tmp_path)
    rules = [(Path(f["file"]).name, f["rule"]) for f in result.json()["findings"]]
    assert rules == [("kubelet.yaml", "reserved-cpus-invalid")]


def test_version_flag() -> None:
    out = run("--version").output
    assert "numalint" in out and "libyaml" in out


def test_dash_as_a_report_file_is_stdout(tmp_path: Path) -> None:
    """`-o -`, `-f json=-` and `simulate -o -` write to stdout, as `-` means everywhere else (a file named "-"
    was written)."""
    write(tmp_path, {"k.yaml": STATIC_NO_RESERVATION})
    for args in (("check", "-o", "-"), ("check", "-f", "json=-"), ("simulate", "-o", "-")):
        result = run(*args, str(tmp_path / "k.yaml"), cwd=tmp_path)
        assert result.output.strip(), args
        assert not (tmp_path / "-").exists(), args
    assert json.loads(run("check", "-f", "json=-", str(tmp_path / "k.yaml")).output)["findings"]


def test_diff_with_a_report_file_is_a_usage_error(tmp_path: Path) -> None:
    """`check --diff -o r.json` wrote no report and said nothing (a CI step uploading it failed later)."""
    write(tmp_path, {"k.yaml": STATIC_NO_RESERVATION})
    result = run("check", "--diff", "-o", str(tmp_path / "r.json"), str(tmp_path / "k.yaml"))
    assert result.exit_code == 2 and "--diff" in result.stderr
    assert not (tmp_path / "r.json").exists()


def test_a_fix_that_could_not_be_written_is_not_counted_as_fixed(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": CLEAN.replace('"0"', "010")})
    target = tmp_path / "k.yaml"
    target.chmod(0o444)
    try:
        result = run("fix", str(target))
    finally:
        target.chmod(0o644)
    assert result.exit_code == 2 and "read-only" in result.stderr
    assert "fixed 0 finding(s) in 0 file(s)" in result.stderr, result.stderr


def test_the_diff_leaves_out_what_fix_would_not_write_and_names_a_link_by_its_target(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`fix --diff` printed patches for a read-only and a hard-linked file, which `fix` refuses to write, and named a
    symbolic link, through which `patch -p1` and `git apply` do not patch (found by a fix-safety hunt)."""
    import os

    write(tmp_path, {"ro.yaml": CLEAN.replace('"0"', "010"), "hard.yaml": CLEAN.replace('"0"', "010"),
                     "real.yaml": CLEAN.replace('"0"', "010")})
    os.link(tmp_path / "hard.yaml", tmp_path / "other-name")
    (tmp_path / "link.yaml").symlink_to("real.yaml")
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub", {"kc.yaml": CLEAN.replace('"0"', "010")})
    (tmp_path / "dirlink").symlink_to("sub")  # a directory link on the path: git apply refuses "beyond a link"
    (tmp_path / "ro.yaml").chmod(0o444)
    monkeypatch.chdir(tmp_path)
    try:
        shown = run("fix", "--diff", "ro.yaml", "hard.yaml", "link.yaml", "dirlink/kc.yaml")
        written = run("fix", "ro.yaml", "hard.yaml")
    finally:
        (tmp_path / "ro.yaml").chmod(0o644)
    assert "read-only; not written" in shown.stderr and "2 hard links" in shown.stderr
    assert sorted(line for line in shown.output.splitlines() if line.startswith(("---", "+++"))) == [
        "+++ b/real.yaml", "+++ b/sub/kc.yaml", "--- a/real.yaml", "--- a/sub/kc.yaml"]
    assert shown.exit_code == written.exit_code == 2


def test_a_topology_without_numa_nodes_is_an_error_and_is_never_imported(tmp_path: Path) -> None:
    write(tmp_path, {"t.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: x}\n"
                               "spec:\n  sockets: 1\n  numaNodes:\n",
                     "lscpu.txt": "# CPU,Core,Socket,Node\n"})
    found = run("check", "--format", "json", str(tmp_path / "t.yaml")).json()["findings"]
    assert [(f["rule"], f["line"]) for f in found] == [("schema", 6)], found
    result = run("topology", "import", str(tmp_path / "lscpu.txt"))
    assert result.exit_code != 0 and "without CPU rows" in result.stderr
