"""ruff's options and habits: rule selection by slug, code or prefix; per-path settings; file-level
suppression; statistics, quiet, fix hints; usage errors for nonsensical options."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run, write

KUBELET = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
topologyManagerPolicy: Best-Effort
memoryManagerPolicy: static
"""


def _rules(*args: str) -> list[str]:
    return sorted(run("check", "--format", "json", *args).rules())


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return write(tmp_path, {"kubelet.yaml": KUBELET})


def test_select_and_ignore_take_slugs_codes_and_prefixes(repo: Path) -> None:
    everything = _rules(str(repo))
    assert {"no-cpu-reservation", "invalid-policy-name"} <= set(everything)
    assert _rules("--select", "NL104", str(repo)) == ["no-cpu-reservation"]
    assert _rules("--select", "no-cpu-reservation,NL101", str(repo)) == sorted(
        r for r in everything if r in ("no-cpu-reservation", "invalid-policy-name"))
    assert "no-cpu-reservation" not in _rules("--ignore", "NL1", str(repo))
    assert _rules("--select", "NL104", "--extend-select", "invalid-policy-name", str(repo)) == sorted(
        r for r in everything if r in ("no-cpu-reservation", "invalid-policy-name"))
    bad = run("check", "--select", "NL9", str(repo))
    assert bad.exit_code == 2 and "names no rule" in bad.stderr


def test_selection_and_per_path_settings_in_the_configuration(repo: Path) -> None:
    write(repo, {".numalint.yaml": "ignore: [NL101]\nrules:\n  NL1: info\n  no-cpu-reservation: error\n"
                                   "perPath:\n  'legacy/*':\n    NL1: off\n",
                 "legacy/kubelet.yaml": KUBELET})
    found = run("check", "--format", "json", str(repo)).json()["findings"]
    assert "invalid-policy-name" not in {f["rule"] for f in found}
    assert {(f["rule"], f["severity"]) for f in found if Path(f["file"]).parent == repo} >= {
        ("no-cpu-reservation", "error")}
    assert not [f for f in found if "legacy" in f["file"] and f["rule"].startswith(("no-cpu", "invalid"))]


def test_codes_in_suppression_comments_and_a_file_level_suppression(tmp_path: Path) -> None:
    suppressed = "cpuManagerPolicy: static  # numalint: disable=NL104 -- reserved by MCO"
    write(tmp_path, {"a.yaml": KUBELET.replace("cpuManagerPolicy: static", suppressed),
                     "b.yaml": "# numalint: disable-file=NL1 -- generated, checked upstream\n" + KUBELET})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert not [f for f in found if f["file"].endswith("a.yaml") and f["rule"] == "no-cpu-reservation"]
    assert not [f for f in found if f["file"].endswith("b.yaml") and f["rule"] != "unused-suppression"]
    write(tmp_path, {"c.yaml": "# numalint: disable-file=NL4\n" + KUBELET})
    unused = [f for f in run("check", "--format", "json", str(tmp_path)).json()["findings"]
              if f["rule"] == "unused-suppression"]
    assert [(Path(f["file"]).name, f["line"]) for f in unused] == [("c.yaml", 1)]


@pytest.mark.parametrize("second", ["same", "different"])
def test_suppressions_in_a_repeat_nothing_checks_are_not_called_unused(tmp_path: Path, second: str) -> None:
    """A named object repeated (merged when identical; a different KubeletConfig is a duplicate and only the first
    is used) is checked once: the copy's suppressions silence nothing, but were not idle either."""
    config = """\
apiVersion: machineconfiguration.openshift.io/v1
kind: KubeletConfig
metadata:
  name: worker
spec:
  kubeletConfig:
    cpuManagerPolicy: static
    topologyManagerPolicy: Restricted  # numalint: disable=invalid-policy-name -- a test pool
"""
    other = config + "    cpuManagerReconcilePeriod: 5s\n" if second == "different" else config
    write(tmp_path, {"a/kubelet.yaml": config, "b/kubelet.yaml": other,
                     "c/idle.yaml": "# numalint: disable-file=NL4\n" + KUBELET})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    unused = [(Path(f["file"]).parent.name, f["line"]) for f in found if f["rule"] == "unused-suppression"]
    assert unused == [("c", 1)]  # an idle suppression elsewhere is still reported
    assert [f["rule"] for f in found if "/b/" in f["file"]] == ([] if second == "same" else ["duplicate-object"])


def test_statistics_quiet_and_fix_hints(repo: Path) -> None:
    stats = run("check", "--statistics", str(repo))
    lines = stats.output.splitlines()
    assert any(line.split()[-1] == "no-cpu-reservation" and line.split()[1] == "NL104" for line in lines)
    assert all(line.split()[0].isdigit() for line in lines)
    text = run("check", str(repo)).output
    assert "finding(s) fixable with `numalint fix`" in text and "file(s) checked" in text
    quiet = run("check", "--quiet", str(repo)).output
    assert "file(s) checked" not in quiet and "fixable" not in quiet and "no-cpu-reservation" in quiet
    listed = run("check", "--show-fixes", str(repo)).output
    assert "safe fix: write" in listed


POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    image: x
    resources:
      requests: {cpu: 1500m, memory: 1Gi}
      limits: {cpu: 1500m, memory: 1Gi}
"""


@pytest.mark.parametrize("flags", [["--quiet"], ["--statistics"], ["--show-fixes"], []])
def test_check_fix_shows_what_remains_as_check_would(tmp_path: Path, flags: list[str]) -> None:
    """`check --fix` honours --quiet, --statistics and --show-fixes on what remains after fixing, as `check` does
    on what it finds: the case fix makes the kubelet start, which brings the pod's unsafe rounding fix up."""
    write(tmp_path, {"kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                     "cpuManagerPolicy: Static\nreservedSystemCPUs: '0'\n", "pod.yaml": POD})
    result = run("check", "--fix", *flags, str(tmp_path))
    assert "cpuManagerPolicy: static" in (tmp_path / "kubelet.yaml").read_text()
    assert result.exit_code == 1
    remaining = run("check", "--format", "json", str(tmp_path)).rules()
    assert "fractional-cpu" in remaining and "invalid-policy-name" not in remaining
    if flags == ["--statistics"]:
        assert {line.split()[-1] for line in result.output.splitlines()} == set(remaining)
    else:
        assert "[fractional-cpu]" in result.output
    summary = flags not in (["--quiet"], ["--statistics"])  # the text report's summary line
    assert ("file(s) checked" in result.output) is summary
    assert ("numalint: fixed 1 finding(s) in 1 file(s)" in result.stderr) is (flags != ["--quiet"])
    assert ("unsafe fix: use a whole number of CPUs" in result.output) is (flags == ["--show-fixes"])


@pytest.mark.parametrize("args, message", [
    (["-j", "0"], "--jobs"),
    (["-j", "-2"], "--jobs"),
    (["--unsafe-fixes"], "--unsafe-fixes"),
    (["--topology", "missing.yaml"], "--topology"),
    (["--kubernetes-version", "2.0"], "kubernetes"),
])
def test_nonsensical_options_are_usage_errors(repo: Path, args: list[str], message: str) -> None:
    result = run("check", *args, str(repo), cwd=repo)
    assert result.exit_code == 2 and (message in result.stderr or message in result.stderr.lower())


def test_simulate_refuses_a_topology_it_cannot_read(repo: Path) -> None:
    result = run("simulate", str(repo), "--topology", str(repo / "nope.yaml"))
    assert result.exit_code == 2 and "--topology" in result.stderr
