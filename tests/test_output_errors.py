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


def test_a_report_written_over_a_checked_file_leaves_the_next_report_its_text(tmp_path: Path) -> None:
    # more files than the renderers keep read back at once: p1 is read again after the SARIF report replaced it
    paths = _pods(tmp_path, 6)
    result = run("check", *paths, "-f", f"sarif={paths[0]}", "-f", "text", "--show-source")
    assert result.exit_code == 1
    block = result.output.split(f"{paths[0]}:9:5:", 1)[1].split("\n\n", 1)[0]
    assert "resources:" in block and '"version"' not in block, block


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
