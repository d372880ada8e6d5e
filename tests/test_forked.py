"""Work shared out among processes (issue 13). Proofs: the fixes and hints are those of one process, whatever
process proves what, and a child process that dies only costs time (the cost threshold below which numalint
proves in one process is lowered so that these small files are shared out). Reading: the files of a worker
that dies are reported as not checked. Through the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import write
from tests.test_fix_proofs import POD as FIX_POD
from tests.test_fix_proofs import TWO_NUMA

ROOT = Path(__file__).resolve().parents[1]
SHARE_ALWAYS = "import numalint.checks.forked as forked; forked.MIN_COST = 0; "

KUBELET = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "0"
cpuManagerReconcilePeriods: 10s
topologyManagerPolicy: single-numa-node
"""

# the pool and workload of the workload-proof tests, one pool per NAME
TOPOLOGY = TWO_NUMA.replace("name: t", "name: NAME").replace("role: numa", "role: NAME").replace(
    "kubeletConfig: kc.yaml", "kubeletConfig: NAME-kubelet")  # a configuration is named by its file, suffix off
POD = FIX_POD.replace("name: p", "name: NAME-CPU").replace("role: numa", "role: NAME")


def _pools(tmp_path: Path) -> None:
    """Two pools, each with a kubelet rename to prove and two workload roundings: 1500m -> 2 fits a NUMA node
    of the pool, 4500m -> 5 does not (TopologyAffinityError), so one is a fix and the other a hint."""
    files = {}
    for name in ("east", "west"):
        files[f"{name}-kubelet.yaml"] = KUBELET
        files[f"{name}-topology.yaml"] = TOPOLOGY.replace("NAME", name)
        for cpu in ("1500m", "4500m"):
            files[f"{name}-{cpu}.yaml"] = POD.replace("NAME", name).replace("CPU", cpu)
    write(tmp_path, files)


def _check(where: Path, jobs: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    code = f"import sys; {prelude}from numalint.cli import main; sys.argv[0] = 'numalint'; main()"
    return subprocess.run([sys.executable, "-c", code, "check", "-f", "json", "--fail-on", "never", "-j", jobs, "."],
                          cwd=where, capture_output=True, text=True, timeout=180,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def _fixes(ran: subprocess.CompletedProcess[str]) -> list[tuple[str, str, dict[str, Any]]]:
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    return [(f["rule"], f["file"], f["fix"]) for f in json.loads(ran.stdout)["findings"] if f["fix"]]


def test_proofs_in_several_processes_give_the_fixes_of_one(tmp_path: Path) -> None:
    _pools(tmp_path)
    marker = tmp_path.parent / f"{tmp_path.name}-child"
    one = _check(tmp_path, "1")
    # a child records that it ran its share: the proofs were shared out, not all proven here
    shared = _check(tmp_path, "3", SHARE_ALWAYS + "worker = forked._worker; forked._worker = lambda *a: (open("
                    f"{str(marker)!r}, 'a').write('ran\\n'), worker(*a)); ")
    assert marker.exists()
    assert shared.stdout == one.stdout
    fixes = _fixes(one)
    rounded = {(Path(file).name, bool(fix["edits"])) for rule, file, fix in fixes if rule == "fractional-cpu"}
    assert rounded == {(f"{n}-{cpu}.yaml", cpu == "1500m") for n in ("east", "west") for cpu in ("1500m", "4500m")}
    renames = [fix for rule, _, fix in fixes if rule == "unknown-field"]
    assert len(renames) == 2 and all(fix["safety"] == "safe" and fix["edits"] for fix in renames), renames


def test_a_child_that_dies_costs_time_not_fixes(tmp_path: Path) -> None:
    _pools(tmp_path)
    one = _check(tmp_path, "1")
    dying = _check(tmp_path, "2", SHARE_ALWAYS + "import os; forked._worker = lambda *a: os._exit(9); ")
    assert dying.stdout == one.stdout
    garbling = _check(tmp_path, "2", SHARE_ALWAYS + "forked._worker = lambda conn, tasks: [conn.send_bytes(b'junk') "
                                                    "for _ in iter(conn.recv, None)]; ")
    assert garbling.stdout == one.stdout


def test_a_child_dead_before_its_first_task_reaches_it_costs_time_not_the_run(tmp_path: Path) -> None:
    """Sending to a worker that is already gone (killed at once) fails: its tasks are lost, not the run (the
    error used to reach click, which ended the run with exit 1 and no output at all)."""
    _pools(tmp_path)
    one = _check(tmp_path, "1")
    gone = ("import os, multiprocessing.context as mc; forked._worker = lambda *a: os._exit(9); "
            "start = mc.ForkProcess.start; mc.ForkProcess.start = lambda self: (start(self), self.join()); ")
    dead = _check(tmp_path, "2", SHARE_ALWAYS + gone)
    assert (dead.returncode, dead.stderr) == (0, "") and dead.stdout == one.stdout


def test_files_of_a_reader_that_dies_are_reported_not_checked(tmp_path: Path) -> None:
    """Reading is shared out the same way: the chunks a dead worker held become "not checked" findings (rerun
    them, or run with -j 1); every other file is read, and the run says it is incomplete."""
    write(tmp_path, {f"s{i:03}.yaml": f"apiVersion: v1\nkind: Service\nmetadata: {{name: s{i}}}\n" for i in range(400)})
    whole = _check(tmp_path, "1")
    assert json.loads(whole.stdout)["findings"] == []
    dies = "import os, numalint.checks.forked as forked; forked._worker = lambda *a: os._exit(9); "
    ran = _check(tmp_path, "2", dies)
    lost = [f for f in json.loads(ran.stdout)["findings"] if "not checked" in f["message"]]
    assert lost and all("worker process reading it died" in f["message"] for f in lost)
    # whole chunks, the others read here: engine._read_all shares 400 files in chunks of min(64, max(8, 400 // (2
    # processes * 16))) = 12, the last one of 400 % 12 = 4
    assert len(lost) < 400 and len(lost) % 12 in (0, 4)
    assert ran.returncode == 2  # an incomplete run


def test_a_huge_jobs_count_forks_no_more_processes_than_tasks(tmp_path: Path) -> None:
    """-j 400 on 310 files: reading is cut into 39 chunks, so at most 38 workers are forked (each would otherwise
    be started before any task is handed out)."""
    write(tmp_path, {f"s{i:03}.yaml": f"apiVersion: v1\nkind: Service\nmetadata: {{name: s{i}}}\n" for i in range(310)})
    marker = tmp_path.parent / f"{tmp_path.name}-forks"
    count = ("import multiprocessing.context as mc; start = mc.ForkProcess.start; "
             f"mc.ForkProcess.start = lambda self: (open({str(marker)!r}, 'a').write('x'), start(self))[1]; ")
    many = _check(tmp_path, "400", count)
    assert many.returncode == 0 and many.stdout == _check(tmp_path, "1").stdout
    assert 0 < len(marker.read_text()) < 39


def test_a_streamed_run_whose_workers_die_reports_their_files_not_checked(tmp_path: Path,
                                                                           monkeypatch: Any) -> None:
    """A streamed run's process only gathers (it receives in its own thread): when its workers die, the files they
    held are reported not checked, the rest are read and checked by it, and the run ends incomplete, as whole."""
    write(tmp_path, {f"s{i:03}.yaml": f"apiVersion: v1\nkind: Service\nmetadata: {{name: s{i}}}\n" for i in range(400)})
    monkeypatch.setenv("NUMALINT_STREAM", "always")
    dies = "import os, numalint.checks.forked as forked; forked._worker = lambda *a: os._exit(9); "
    ran = _check(tmp_path, "2", dies)
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    lost = [f for f in json.loads(ran.stdout)["findings"] if "not checked" in f["message"]]
    assert 0 < len(lost) < 400 and all("worker process reading it died" in f["message"] for f in lost)
