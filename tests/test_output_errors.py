"""Reports that cannot be written, reports written over checked files, inputs that do not exist: a clear
message and exit 2 (README: exit codes), never a traceback, never another file's text in a report."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run, write

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: c
    image: x
    resources:
      requests: {{cpu: "2", memory: 1Gi, nvidia.com/gpu: 1}}
      limits: {{cpu: "3", memory: 1Gi, nvidia.com/gpu: 1}}
"""


def _pods(tmp_path: Path, count: int) -> list[str]:
    write(tmp_path, {f"p{i}.yaml": POD.format(name=f"p{i}") for i in range(1, count + 1)})
    return [str(tmp_path / f"p{i}.yaml") for i in range(1, count + 1)]


@pytest.mark.parametrize("option", [["-o", "{}"], ["-f", "sarif={}"], ["-f", "json={}"],
                                    ["-f", "text", "-f", "junit={}"]])
def test_a_report_over_a_checked_manifest_is_refused_and_the_manifest_kept(tmp_path: Path,
                                                                          option: list[str]) -> None:
    paths = _pods(tmp_path, 2)
    before = Path(paths[1]).read_bytes()
    result = run("check", str(tmp_path), *(part.format(paths[1]) for part in option))
    assert result.exit_code == 2
    assert f"refusing to write the report over {paths[1]}" in result.stderr
    assert result.output == ""  # not even the text report: nothing is written
    assert Path(paths[1]).read_bytes() == before


def test_a_report_of_an_earlier_run_found_in_the_checked_directory_is_replaced(tmp_path: Path) -> None:
    _pods(tmp_path, 1)
    for fmt in ("json", "sarif", "gitlab"):
        report = tmp_path / f"report-{fmt}.json"
        first = run("check", str(tmp_path), "-f", f"{fmt}={report}")
        again = run("check", str(tmp_path), "-f", f"{fmt}={report}")  # the report is now one of the inputs
        assert (first.exit_code, again.exit_code) == (1, 1), again.stderr
        assert "numalint" in report.read_text()


def test_fix_refuses_a_report_over_an_input_before_writing_any_fix(tmp_path: Path) -> None:
    write(tmp_path, {"kc.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                "cpuManagerPolicy: static\nreservedSystemCPUs: 0\n"})
    kubelet = tmp_path / "kc.yaml"
    before = kubelet.read_bytes()
    result = run("check", "--fix", str(kubelet), "-f", f"sarif={kubelet}")
    assert result.exit_code == 2 and "refusing to write the report" in result.stderr
    assert kubelet.read_bytes() == before  # neither fixed nor replaced
    assert run("fix", str(kubelet)).exit_code in (0, 1) and kubelet.read_bytes() != before  # a fix was there


def test_simulate_refuses_to_write_over_an_input(tmp_path: Path) -> None:
    paths = _pods(tmp_path, 1)
    before = Path(paths[0]).read_bytes()
    result = run("simulate", paths[0], "-o", paths[0])
    assert result.exit_code == 2 and "refusing to write the report" in result.stderr
    assert Path(paths[0]).read_bytes() == before


def test_a_report_file_that_cannot_be_written_exits_2(tmp_path: Path) -> None:
    paths = _pods(tmp_path, 1)
    (tmp_path / "adir").mkdir()
    result = run("check", *paths, "-f", f"json={tmp_path / 'adir'}")
    assert result.exit_code == 2
    assert "could not write the json report" in result.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk_behind_stdout_exits_2_without_a_traceback(tmp_path: Path) -> None:
    paths = _pods(tmp_path, 1)
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "numalint", "check", *paths], stdout=full,
                              stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "could not write the text report to stdout" in proc.stderr


def test_simulate_names_an_input_that_does_not_exist(tmp_path: Path) -> None:
    write(tmp_path, {
        "kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                        "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
                        "topologyManagerPolicy: single-numa-node\n",
        "topology.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata:\n  name: t\nspec:\n"
                         "  numaNodes:\n  - id: 0\n    cpus: \"0-7\"\n    memory: 16Gi\n",
    })
    result = run("simulate", str(tmp_path / "kubelet.yaml"), str(tmp_path / "missing.yaml"),
                 "--topology", str(tmp_path / "topology.yaml"))
    assert result.exit_code == 2
    assert "missing.yaml:1:1: error [yaml-syntax] no such file or directory" in result.stderr


def test_inputs_of_every_kind_are_protected_and_earlier_reports_replaced(tmp_path: Path) -> None:
    """The configuration file and a hard link to a manifest are inputs too; a simulate report and a text report
    written into the checked directory are replaced on the next run."""
    paths = _pods(tmp_path, 1)
    manifest = Path(paths[0]).read_bytes()
    os.link(paths[0], tmp_path / "linked.txt")
    (tmp_path / ".numalint.yaml").write_text("failOn: error\n")
    for target in ("linked.txt", ".numalint.yaml"):
        result = run("check", paths[0], "-o", str(tmp_path / target))
        assert result.exit_code == 2 and "refusing to write the report" in result.stderr, target
    assert Path(paths[0]).read_bytes() == manifest and (tmp_path / ".numalint.yaml").read_text() == "failOn: error\n"
    for command in (["simulate", "-f", "json", "-o"], ["check", "-o"], ["check", "-f", "junit", "-o"]):
        target = str(tmp_path / "report.json")
        first, again = run(*command, target, str(tmp_path)), run(*command, target, str(tmp_path))
        assert first.exit_code != 2 and again.exit_code != 2, (command, again.stderr)


def test_a_kustomization_read_beside_a_named_patch_is_protected(tmp_path: Path) -> None:
    """`check overlay/patch.yaml` reads overlay/kustomization.yaml to tell the patch is one: it is an input."""
    write(tmp_path, {"overlay/kustomization.yaml": "resources: [../base]\npatches: [{path: patch.yaml}]\n",
                     "overlay/patch.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"})
    kustomization = (tmp_path / "overlay" / "kustomization.yaml").read_bytes()
    result = run("check", str(tmp_path / "overlay" / "patch.yaml"), "-o", str(tmp_path / "overlay" /
                                                                          "kustomization.yaml"))
    assert result.exit_code == 2 and (tmp_path / "overlay" / "kustomization.yaml").read_bytes() == kustomization


def test_large_and_quiet_text_reports_of_earlier_runs_are_replaced(tmp_path: Path) -> None:
    """A text report's summary comes last (past the first 64 KiB of a large one); `-q` with nothing to report
    writes an empty file."""
    _pods(tmp_path, 400)
    for flags in (["-o"], ["-q", "-o"], ["-f", "github", "-o"]):
        target = str(tmp_path / "report.json")
        first = run("check", str(tmp_path), *flags, target)  # a report of 400 files' findings, over 64 KiB
        again = run("check", str(tmp_path), *flags, target)
        assert first.exit_code != 2 and again.exit_code != 2, (flags, again.stderr)
    (tmp_path / "report.json").unlink()
    quiet = [run("check", str(tmp_path), "-q", "--select", "schema", "-o", str(tmp_path / "q.json"))
             for _ in range(2)]
    assert [r.exit_code for r in quiet] == [0, 0] and (tmp_path / "q.json").read_text() == ""


KUBELET_TO_FIX = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                  "cpuManagerPolicy: static\nreservedSystemCPUs: 0\n# padding\n" + "# keep me\n" * 400)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["fix", "-"], ["fix", "--diff", "-"]])
def test_fix_output_that_cannot_be_written_exits_2(args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "numalint", *args], input=KUBELET_TO_FIX, stdout=full,
                              stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "could not write" in proc.stderr and "it is incomplete" in proc.stderr


def test_fixed_text_cut_short_by_a_file_size_limit_exits_2(tmp_path: Path) -> None:
    import resource

    def limit() -> None:  # 1 KiB, in the child only; Python ignores SIGXFSZ, so the write fails instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    out = tmp_path / "fixed.yaml"
    with open(out, "w") as handle:
        proc = subprocess.run([sys.executable, "-m", "numalint", "fix", "-"], input=KUBELET_TO_FIX, stdout=handle,
                              stderr=subprocess.PIPE, text=True, preexec_fn=limit)
    assert proc.returncode == 2 and "it is incomplete" in proc.stderr, proc.stderr


def test_fix_diff_of_a_missing_or_broken_file_exits_2(tmp_path: Path) -> None:
    write(tmp_path, {"broken.yaml": "a: [\n"})
    for name in ("missing.yaml", "broken.yaml"):
        result = run("fix", "--diff", str(tmp_path / name))
        assert result.exit_code == 2 and result.output == ""
        assert f"{name}:1:" in result.stderr and "not fixed" in result.stderr
