"""Keeping less per file changes nothing a user sees (issue 13, target 4): on a generated repository every
output format is the same whatever the number of processes (so whatever crosses a pipe and however the files are
cut into chunks), reports written as they are rendered equal reports rendered whole, and renderers that read the
checked files back give the same answer however few of them they keep. Memory itself is measured in bench/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORMATS = ("text", "json", "sarif", "gitlab", "junit")


def _numalint(where: Path, *args: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    code = f"import sys; {prelude}from numalint.cli import main; sys.argv[0] = 'numalint'; main()"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=where, capture_output=True, text=True,
                          timeout=180, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.fixture(scope="module")
def outputs(repository: Path) -> dict[tuple[str, str], str]:
    """Every format with one, two and three processes (stdout, so text and JSON are streamed)."""
    found = {}
    for jobs in ("1", "2", "3"):
        for fmt in FORMATS:
            ran = _numalint(repository, "check", "-f", fmt, "--fail-on", "never", "-j", jobs, "repo")
            assert ran.returncode == 0 and not ran.stderr, ran.stderr
            found[(fmt, jobs)] = ran.stdout
    return found


@pytest.mark.parametrize("fmt", FORMATS)
def test_outputs_do_not_depend_on_processes(outputs: dict[tuple[str, str], str], fmt: str) -> None:
    assert outputs[(fmt, "1")].count("\n") > 100  # the generated repository has findings to show
    assert outputs[(fmt, "2")] == outputs[(fmt, "1")]
    assert outputs[(fmt, "3")] == outputs[(fmt, "1")]


def test_streamed_json_is_the_json_encoding_of_itself(outputs: dict[tuple[str, str], str]) -> None:
    text = outputs[("json", "1")]
    report = json.loads(text)
    assert len(report["findings"]) > 50
    assert text == json.dumps(report, indent=2) + "\n"


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_streamed_report_equals_report_written_to_a_file(repository: Path, fmt: str) -> None:
    """Text to a file is rendered whole (it reads the checked files back); stdout gets it a finding at a time."""
    target = repository / f"report.{fmt}"
    to_file = _numalint(repository, "check", "-q", "-f", f"{fmt}={target}", "--fail-on", "never", "repo")
    streamed = _numalint(repository, "check", "-q", "-f", fmt, "--fail-on", "never", "repo")
    assert to_file.returncode == 0 and not to_file.stderr, to_file.stderr
    assert streamed.stdout.count("\n") > 100
    assert target.read_text() == streamed.stdout


def test_empty_json_report_streams_whole(tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
    ran = _numalint(tmp_path, "check", "-f", "json", "ok.yaml")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["findings"] == []
    assert ran.stdout == json.dumps(json.loads(ran.stdout), indent=2) + "\n"


@pytest.mark.parametrize("fmt", ["sarif", "text"])
def test_renderers_keeping_few_files_answer_alike(repository: Path, outputs: dict[tuple[str, str], str],
                                                 fmt: str) -> None:
    """SARIF fingerprints (key paths), grouped replicas and --show-source read the checked files back; keeping
    every file read, or only one, gives the same report."""
    args = ("check", "-f", fmt, "--fail-on", "never", "--show-source", "repo")
    every = _numalint(repository, *args, prelude="from numalint.output.sources import SourceFiles; "
                                                   "SourceFiles.KEPT = 10 ** 9; ")
    one = _numalint(repository, *args, prelude="from numalint.output.sources import SourceFiles; "
                                                 "SourceFiles.KEPT = 1; ")
    assert every.returncode == 0 and not every.stderr, every.stderr
    assert one.stdout == every.stdout
    if fmt == "sarif":
        assert one.stdout == outputs[("sarif", "1")]


def test_patch_reached_through_a_symlink_of_another_name_is_still_a_patch(tmp_path: Path) -> None:
    """Patches are recognised by real path once reading is done; a symlink named otherwise is still one."""
    (tmp_path / "kustomization.yaml").write_text("resources: [dep.yaml]\npatches:\n- path: real.yaml\n")
    (tmp_path / "real.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
                                        "  template:\n    spec:\n      containers:\n      - name: c\n"
                                        "        resources: {limits: {cpu: 500m}}\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "link.yaml").symlink_to(tmp_path / "real.yaml")
    ran = _numalint(tmp_path, "check", "-f", "json", "kustomization.yaml", "other/link.yaml")
    found = [(f["rule"], f["file"]) for f in json.loads(ran.stdout)["findings"]]
    assert found == [("not-lintable", "other/link.yaml")]
