"""CI and terminal outputs through the command line: SARIF for code scanning, GitHub, GitLab, JUnit, several
outputs in one run, colour, and text a person reads at a glance."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.conftest import run, write

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
KUBELET = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
NO_RESERVATION = KUBELET + "cpuManagerPolicy: static\n"
TOPOLOGY = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: t}
spec:
  numaNodes:
    - {id: 0, cpus: "0-7", memory: 64Gi}
    - {id: 1, cpus: "8-15", memory: 64Gi}
"""
POOL = {"kubelet.yaml": KUBELET + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
                                  "topologyManagerPolicy: single-numa-node\nmemoryManagerPolicy: Static\n"
                                  "reservedMemory: [{numaNode: 0, limits: {memory: 100Mi}}]\n",
        "topology.yaml": TOPOLOGY}
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: inference, namespace: ml}
spec:
  replicas: 10
  template:
    spec:
      containers:
        - name: c
          image: x
          resources:
            limits: {cpu: "6", memory: 1Gi}
"""
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def sarif(result_output: str) -> dict:  # type: ignore[type-arg]
    import jsonschema

    log = json.loads(result_output)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    return log  # type: ignore[no-any-return]


def _uris(log: dict) -> list[dict]:  # type: ignore[type-arg]
    return [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]]


# -- SARIF ---------------------------------------------------------------------------------------------------------


def test_sarif_paths_are_relative_to_the_git_root_whatever_the_working_directory(tmp_path: Path) -> None:
    write(tmp_path, {"clusters/prod/k.yaml": NO_RESERVATION, "other/sub/.keep": ""})
    (tmp_path / ".git").mkdir()
    runs = [run("check", "-f", "sarif", "prod", cwd=tmp_path / "clusters"),
            run("check", "-f", "sarif", "../../clusters/prod/k.yaml", cwd=tmp_path / "other" / "sub"),
            run("check", "-f", "sarif", str(tmp_path / "clusters" / "prod" / "k.yaml"))]
    for result in runs:
        assert result.exit_code == 1
        log = sarif(result.output)
        assert _uris(log) == [{"uri": "clusters/prod/k.yaml", "uriBaseId": "%SRCROOT%"}]
        assert log["runs"][0]["originalUriBaseIds"] == {"%SRCROOT%": {"uri": tmp_path.as_uri() + "/"}}


def test_a_file_name_that_is_not_utf8_is_its_own_bytes_in_sarif_and_gitlab(tmp_path: Path) -> None:
    """A name the file system gives as bytes (Latin-1 "café") is percent-encoded byte for byte in SARIF's URI, and
    GitLab's report is written too (both raised UnicodeEncodeError before)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / os.fsdecode(b"caf\xe9.yaml")).write_text(NO_RESERVATION)
    result = run("check", "-f", "sarif", str(tmp_path))
    assert result.exit_code == 1
    assert _uris(sarif(result.output)) == [{"uri": "caf%E9.yaml", "uriBaseId": "%SRCROOT%"}]
    gitlab = run("check", "-f", "gitlab", str(tmp_path))
    assert gitlab.exit_code == 1 and len(json.loads(gitlab.output)) == 1


def test_sarif_root_is_the_configuration_directory_outside_git(tmp_path: Path) -> None:
    write(tmp_path, {"repo/.numalint.yaml": "failOn: error\n", "repo/nodes/k.yaml": NO_RESERVATION})
    log = sarif(run("check", "-f", "sarif", "repo/nodes", cwd=tmp_path).output)
    assert _uris(log) == [{"uri": "nodes/k.yaml", "uriBaseId": "%SRCROOT%"}]
    assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == (tmp_path / "repo").as_uri() + "/"


def _fingerprints(log: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {r["ruleId"]: r["partialFingerprints"]["numalint/v1"] for r in log["runs"][0]["results"]}


def test_sarif_fingerprints_survive_unrelated_edits_and_tell_findings_apart(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    text = KUBELET + "cpuManagerPolicy: static\ntopologyManagerPolicies: best-effort\n"
    write(tmp_path, {"k.yaml": text})
    before = sarif(run("check", "-f", "sarif", ".", cwd=tmp_path).output)
    write(tmp_path, {"k.yaml": "# owned by the platform team\n\n" + text.replace(
        "cpuManagerPolicy", "failSwapOn: false\ncpuManagerPolicy")})
    after = sarif(run("check", "-f", "sarif", ".", cwd=tmp_path).output)
    lines = {r["ruleId"]: r["locations"][0]["physicalLocation"]["region"]["startLine"]
             for r in after["runs"][0]["results"]}
    assert lines["no-cpu-reservation"] == 6  # moved down three lines ...
    assert _fingerprints(before) == _fingerprints(after)  # ... the alerts stay the same
    assert len(set(_fingerprints(after).values())) == 2
    sub = tmp_path / "sub"
    sub.mkdir()
    assert _fingerprints(sarif(run("check", "-f", "sarif", "..", cwd=sub).output)) == _fingerprints(after)
    (tmp_path / "k.yaml").rename(tmp_path / "w.yaml")  # another file (and object): another alert
    renamed = _fingerprints(sarif(run("check", "-f", "sarif", ".", cwd=tmp_path).output))
    assert set(renamed.values()).isdisjoint(_fingerprints(before).values())


def test_suppressed_findings_are_sarif_results_with_their_justification(tmp_path: Path) -> None:
    write(tmp_path, {
        "k.yaml": KUBELET + "cpuManagerPolicy: static  # numalint: disable=no-cpu-reservation -- the MCO reserves\n",
        "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
                    "    numalint.io/disable: fractional-cpu\nspec:\n  containers:\n    - name: c\n      image: x\n"
                    "      resources: {limits: {cpu: 1500m, memory: 1Gi, nvidia.com/gpu: 1}}\n"})
    text = run("check", ".", cwd=tmp_path)
    assert text.exit_code == 0 and "no-cpu-reservation" not in text.output and "fractional-cpu" not in text.output
    assert run("check", "-f", "json", ".", cwd=tmp_path).json()["findings"] == []
    result = run("check", "-f", "sarif", ".", cwd=tmp_path)
    assert result.exit_code == 0
    results = {r["ruleId"]: r for r in sarif(result.output)["runs"][0]["results"]}
    assert results["no-cpu-reservation"]["suppressions"] == [
        {"kind": "inSource", "status": "accepted", "justification": "the MCO reserves"}]
    assert results["fractional-cpu"]["suppressions"] == [{"kind": "inSource", "status": "accepted"}]


def test_sarif_rule_help_is_the_explain_page_and_help_uri_comes_from_docs_url(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": NO_RESERVATION})
    rules = {r["id"]: r for r in sarif(run("check", "-f", "sarif", ".", cwd=tmp_path).output)
             ["runs"][0]["tool"]["driver"]["rules"]}
    markdown = rules["no-cpu-reservation"]["help"]["markdown"]
    for part in ("**NL104 no-cpu-reservation**", "### Why", "### How to fix", "### References", "### Bad",
                 "### Good", "```yaml\napiVersion: kubelet.config.k8s.io/v1beta1"):
        assert part in markdown, part
    assert not any("helpUri" in r for r in rules.values())
    write(tmp_path, {".numalint.yaml": "docsUrl: https://docs.example.com/numalint/{code}-{slug}.html\n"})
    rules = {r["id"]: r for r in sarif(run("check", "-f", "sarif", ".", cwd=tmp_path).output)
             ["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["no-cpu-reservation"]["helpUri"] == "https://docs.example.com/numalint/NL104-no-cpu-reservation.html"
    write(tmp_path, {".numalint.yaml": "docsUrl: https://docs.example.com/rules\n"})
    rules = {r["id"]: r for r in sarif(run("check", "-f", "sarif", ".", cwd=tmp_path).output)
             ["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["schema"]["helpUri"] == "https://docs.example.com/rules/schema"
    write(tmp_path, {".numalint.yaml": "docsUrl: docs/rules\n"})
    invalid = run("check", "-f", "sarif", ".", cwd=tmp_path)
    assert invalid.exit_code == 2 and "docsUrl" in invalid.stderr


def test_nothing_to_check_still_writes_valid_sarif_with_a_notification(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run("check", "-f", "sarif", "empty", cwd=tmp_path)
    assert result.exit_code == 2
    log = sarif(result.output)
    assert log["runs"][0]["results"] == []
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert "no YAML or JSON files found" in invocation["toolExecutionNotifications"][0]["message"]["text"]
    write(tmp_path, {"broken/a.yaml": "a: [\n"})
    broken = run("check", "-f", "text", "-f", "sarif=out.sarif", "broken", cwd=tmp_path)
    assert broken.exit_code == 2 and "yaml-syntax" in broken.output
    log = sarif((tmp_path / "out.sarif").read_text())
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["yaml-syntax"]
    assert log["runs"][0]["invocations"][0]["toolExecutionNotifications"]


# -- GitHub --------------------------------------------------------------------------------------------------------


def test_github_format_annotates_prints_readable_lines_a_notice_and_a_step_summary(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"k.yaml": NO_RESERVATION, "x|y.yaml": KUBELET + "topologyManagerPolicies: none\n"})
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run("check", "-f", "github", ".", cwd=tmp_path)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("::error file=./k.yaml,line=3,col=19,")
    assert any(line.startswith("./k.yaml:3:19: error [no-cpu-reservation] static CPU manager without reserved CPUs: "
                               "the kubelet will not start") and line.endswith(")") for line in lines)
    assert lines[-1] == "::notice title=numalint::2 file(s) checked: 1 error(s), 1 warning(s), 0 info"
    table = summary.read_text()
    assert table.startswith("earlier step\n### numalint\n")
    assert "| severity | rule | where | finding | fix |" in table
    assert r"| error | NL104 no\-cpu\-reservation | \./k\.yaml:3:19 |" in table
    assert r"x\|y\.yaml" in table  # a | in a file name cannot break the table
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    assert run("check", "-f", "github", ".", cwd=tmp_path).exit_code == 1  # no summary file: fine


# -- GitLab and JUnit ----------------------------------------------------------------------------------------------


def test_gitlab_code_quality_report(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path, {"nodes/k.yaml": NO_RESERVATION,
                     "nodes/t.yaml": KUBELET + "topologyManagerPolicy: best-effort\n"
                                     "# numalint: disable=schema\n",
                     "bad.yaml": "a: [\n"})
    result = run("check", "-f", "gitlab", ".", cwd=tmp_path / "nodes")
    issues = json.loads(result.output)
    assert isinstance(issues, list)
    by_rule = {i["check_name"]: i for i in issues}
    assert set(by_rule) == {"no-cpu-reservation", "cpu-manager-not-static", "unused-suppression"}
    for issue in issues:
        assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["location"]["path"].startswith("nodes/")
        assert isinstance(issue["location"]["lines"]["begin"], int)
    assert by_rule["no-cpu-reservation"]["severity"] == "critical"  # the kubelet does not start
    assert by_rule["cpu-manager-not-static"]["severity"] == "minor"
    assert by_rule["unused-suppression"]["severity"] == "info"
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    broken = json.loads(run("check", "-f", "gitlab", "..", cwd=tmp_path / "nodes").output)
    assert [i["severity"] for i in broken if i["check_name"] == "yaml-syntax"] == ["blocker"]
    assert [i["location"]["path"] for i in broken if i["check_name"] == "yaml-syntax"] == ["bad.yaml"]


def test_junit_has_a_testcase_per_file_and_a_failure_per_finding(tmp_path: Path) -> None:
    write(tmp_path, {"a.yaml": KUBELET + "cpuManagerPolicy: static\ntopologyManagerPolicies: x\n",
                     "b.yaml": KUBELET + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n',
                     "c.yaml": KUBELET + "topologyManagerPolicy: best-effort\n"})
    result = run("check", "-f", "junit", ".", cwd=tmp_path)
    assert result.exit_code == 1
    root = ElementTree.fromstring(result.output.encode())
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert set(cases) == {"./a.yaml", "./b.yaml", "./c.yaml"}
    assert suite.get("tests") == "3" and suite.get("failures") == "2" and root.get("failures") == "2"
    assert sorted(f.get("type") for f in cases["./a.yaml"].findall("failure")) == [
        "no-cpu-reservation", "unknown-field"]
    assert cases["./b.yaml"].findall("failure") == []
    (failure,) = cases["./c.yaml"].findall("failure")
    assert failure.get("message", "").startswith("warning [cpu-manager-not-static] topologyManagerPolicy")
    assert "fix: " in (failure.text or "")


# -- several outputs -----------------------------------------------------------------------------------------------


def test_several_formats_in_one_run_and_output_file(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": NO_RESERVATION})
    result = run("check", "-f", "text", "--format", "sarif=out/n.sarif", "-f", "junit=n.xml", "-f", "gitlab=cq.json",
                 "k.yaml", cwd=tmp_path)
    assert result.exit_code == 1, result.stderr
    assert result.output.startswith("k.yaml:3:19: error [no-cpu-reservation]")
    log = sarif((tmp_path / "out/n.sarif").read_text())  # the directory is created
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["no-cpu-reservation"]
    ElementTree.fromstring((tmp_path / "n.xml").read_bytes())
    assert json.loads((tmp_path / "cq.json").read_text())[0]["check_name"] == "no-cpu-reservation"
    only = run("check", "-f", "sarif", "-o", "only.sarif", "k.yaml", cwd=tmp_path)
    assert only.exit_code == 1 and only.output == ""
    sarif((tmp_path / "only.sarif").read_text())
    default = run("check", "--output-file", "report.txt", "k.yaml", cwd=tmp_path)
    assert default.output == "" and "[no-cpu-reservation]" in (tmp_path / "report.txt").read_text()
    for bad in (["-f", "text", "-f", "json"], ["-f", "xml"], ["-f", "sarif="], ["-f", "sarif=a", "-f", "json=a"],
                ["-f", "sarif=a", "-o", "b"]):
        usage = run("check", *bad, "k.yaml", cwd=tmp_path)
        assert usage.exit_code == 2, bad


def test_a_file_that_cannot_be_written_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": NO_RESERVATION})
    result = run("check", "-f", "sarif=k.yaml/x.sarif", "k.yaml", cwd=tmp_path)
    assert result.exit_code == 2 and "k.yaml/x.sarif" in result.stderr  # not a finding: exit 2


# -- terminal ------------------------------------------------------------------------------------------------------


def test_color_always_never_auto_and_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {"k.yaml": NO_RESERVATION})
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert "\x1b[" in run("check", "--color", "always", "k.yaml", cwd=tmp_path).output  # piped, coloured
    assert "\x1b[" in run("check", "--color=always", "k.yaml", cwd=tmp_path).output
    assert "\x1b[" in run("check", "--color", "k.yaml", cwd=tmp_path).output  # the old flag still works
    assert "\x1b[" not in run("check", "--color", "never", "k.yaml", cwd=tmp_path).output
    assert "\x1b[" not in run("check", "--no-color", "k.yaml", cwd=tmp_path).output
    assert "\x1b[" not in run("check", "--color", "auto", "k.yaml", cwd=tmp_path).output  # not a terminal
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in run("check", "k.yaml", cwd=tmp_path).output
    assert "\x1b[" not in run("check", "--color", "never", "k.yaml", cwd=tmp_path).output
    monkeypatch.delenv("FORCE_COLOR")
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run("check", "--color", "auto", "k.yaml", cwd=tmp_path).output
    assert "\x1b[" in run("check", "--color", "always", "k.yaml", cwd=tmp_path).output
    coloured = run("check", "--color", "always", "-f", "text", "-f", "sarif=x.sarif", "k.yaml", cwd=tmp_path)
    assert "\x1b[" not in (tmp_path / "x.sarif").read_text() and "\x1b[" in coloured.output


def test_text_names_the_object_and_says_why_and_how_to_fix(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": NO_RESERVATION})
    lines = run("check", "k.yaml", cwd=tmp_path).output.splitlines()
    assert lines[0] == "k.yaml:3:19: error [no-cpu-reservation] KubeletConfiguration k: static CPU manager " \
                       "without reserved CPUs"
    assert lines[1].startswith("  why: the kubelet will not start ([cpumanager] unable to determine reserved CPU")
    assert lines[2].startswith("  fix: reserve CPUs")


def test_show_source_prints_the_line_with_a_caret_escaped(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": KUBELET + "cpuManagerPolicy: static\nx\u202ey: 1 # \u2066\n"})
    output = run("check", "--show-source", "k.yaml", cwd=tmp_path).output
    assert "    |\n  3 | cpuManagerPolicy: static\n    |                   ^^^^^^\n" in output
    # escaped as everywhere else, the caret under the whole escaped key
    assert "    |\n  4 | x\\u202ey: 1 # \\u2066\n    | ^^^^^^^^\n" in output
    assert "\u202e" not in output and "\u2066" not in output


def test_replicas_rejected_for_one_reason_are_one_finding(tmp_path: Path) -> None:
    write(tmp_path, dict(POOL, **{"deploy.yaml": DEPLOYMENT}))
    text = run("check", "--fail-on", "error", ".", cwd=tmp_path)
    failures = [line for line in text.output.splitlines() if "[admission-failure]" in line]
    assert failures == ["./deploy.yaml:3:18: error [admission-failure] Deployment ml/inference: "
                        "8 of 10 replicas rejected (N = 2-9)"]
    assert '  why: pod ml/inference-N cannot be scheduled in pool "t"' in text.output
    json_findings = run("check", "-f", "json", ".", cwd=tmp_path).rules()
    assert json_findings.count("admission-failure") == 8  # JSON keeps every replica
    results = sarif(run("check", "-f", "sarif", ".", cwd=tmp_path).output)["runs"][0]["results"]
    assert [r["ruleId"] for r in results].count("admission-failure") == 1


def test_candidate_lists_are_cut_to_the_closest_three(tmp_path: Path) -> None:
    write(tmp_path, {"k.yaml": KUBELET + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
                                         'cpuManagerPolicyOptions: {full-pcpu-only: "true"}\n'})
    (finding,) = run("check", "-f", "json", "k.yaml", cwd=tmp_path).json()["findings"]
    assert finding["rule"] == "policy-option"
    mean = re.search(r"did you mean ([^?]*)\?", finding["message"])
    assert mean and mean.group(1).startswith('"full-pcpus-only", ') and mean.group(1).count('"') == 6


# -- hostile content in the new outputs ------------------------------------------------------------------------------

INJECTION = "a\n::error file=x.yaml::pwned\r\x1b]0;t\x07\u202e##[set-env]|<b>&x</b>"


def test_hostile_names_and_keys_stay_inert_in_every_new_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    from tests.hostile.test_output_and_values import assert_inert

    name = "::warning::x|<i>.yaml"
    (tmp_path / name).write_text(KUBELET + json.dumps(INJECTION) + ": 1\ncpuManagerPolicy: static\n")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    text = ANSI.sub("", run("check", "--show-source", "--color", "always", ".", cwd=tmp_path).output)
    assert_inert(text)
    assert "./::warning::x|<i>.yaml:3:1:" in text and '  3 | "a\\n::error file=x.yaml::pwned\\r\\u001b' in text
    assert_inert(run("check", "-f", "github", ".", cwd=tmp_path).output, github=True)
    table = summary.read_text()
    assert_inert(table)
    assert "<b>" not in table and "<i>" not in table and r"\<b\>" in table
    assert len([line for line in table.splitlines() if line.startswith("| ")]) == 1 + 2  # header + 2 findings
    junit = run("check", "-f", "junit", ".", cwd=tmp_path).output
    root = ElementTree.fromstring(junit.encode())
    failures = root.findall("testsuite/testcase/failure")
    assert len(failures) == 2 and all("\x1b" not in (f.text or "") + f.get("message", "") for f in failures)
    assert root.find("testsuite/testcase").get("name") == "./::warning::x|<i>.yaml"  # type: ignore[union-attr]
    gitlab = json.loads(run("check", "-f", "gitlab", ".", cwd=tmp_path).output)
    assert {i["location"]["path"] for i in gitlab} == {name}


def test_sarif_columns_are_code_points_and_say_so(tmp_path: Path) -> None:
    """A character outside the Basic Multilingual Plane before a finding is one column (a code point, as libyaml
    and editors count), two UTF-16 units: the run states its columnKind so consumers do not shift the column."""
    write(tmp_path, {"k.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                               "cpuManagerPolicy: {\"\U0001F600\": 1, policy: Static}\n"})
    log = sarif(run("check", "-f", "sarif", "--fail-on", "never", str(tmp_path)).output)
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"
    text = run("check", "-f", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
    columns = {r["locations"][0]["physicalLocation"]["region"]["startColumn"] for r in log["runs"][0]["results"]}
    assert columns == {f["column"] for f in text}
