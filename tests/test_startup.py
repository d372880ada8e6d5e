"""A run imports what its content needs: workloads alone never load the alignment core, the simulation or the
node-side views (issue 13, start-up time). Speed itself is measured in bench/startup.py, never here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from numalint.catalogue import catalogue
from tests.conftest import write

ROOT = Path(__file__).parent.parent
NODE_SIDE = ("numalint.alignment.node", "numalint.simulation.simulate", "numalint.views.kubelet",
             "numalint.views.topology", "numalint.checks.kubelet_rules", "numalint.checks.alignment_rules")
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - name: web
        image: nginx
        resources: {requests: {cpu: "2", memory: 1Gi}, limits: {cpu: "2", memory: 1Gi}}
"""
KUBELET = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
topologyManagerPolicy: single-numa-node
"""


def _modules_after_check(*paths: Path) -> tuple[int, str, set[str]]:
    """(exit code, stdout, the numalint modules imported) of a whole `numalint check` process."""
    script = ("import runpy, sys\n"
              "sys.argv = ['numalint', 'check', *sys.argv[1:]]\n"
              "try:\n    runpy.run_module('numalint', run_name='__main__')\n"
              "except SystemExit as exit:\n    code = exit.code\n"
              "sys.stderr.write('\\nMODULES ' + ' '.join(sorted(m for m in sys.modules if m.startswith('numalint'))))\n"
              "sys.exit(code)\n")
    proc = subprocess.run([sys.executable, "-c", script, *map(str, paths)], capture_output=True, text=True,
                          cwd=ROOT)
    modules = set(proc.stderr.rpartition("MODULES ")[2].split())
    return proc.returncode, proc.stdout, modules


def test_a_workload_alone_imports_nothing_node_side(tmp_path: Path) -> None:
    write(tmp_path, {"web.yaml": DEPLOYMENT})
    code, out, modules = _modules_after_check(tmp_path / "web.yaml")
    assert code == 0 and "1 file(s) checked" in out
    assert "numalint.engine" in modules  # the listing works
    assert modules.isdisjoint(NODE_SIDE), sorted(modules & set(NODE_SIDE))


def test_a_kubelet_configuration_brings_the_node_side_in(tmp_path: Path) -> None:
    write(tmp_path, {"kubelet.yaml": KUBELET, "web.yaml": DEPLOYMENT})
    code, out, modules = _modules_after_check(tmp_path / "kubelet.yaml", tmp_path / "web.yaml")
    assert "no-cpu-reservation" in out and code == 1  # static CPU manager without reserved CPUs
    assert set(NODE_SIDE) - {"numalint.views.topology"} <= modules


def test_node_checks_find_nothing_without_a_pool(tmp_path: Path) -> None:
    """The kubelet and alignment checks are skipped (not even imported) when a run has no pool: safe only while
    each of them reads nothing but kubelet configurations, pools and their simulation. Every rule example that
    builds no pool is run through them to show it."""
    from numalint.checks import NODE_MODULES, all_checks
    from numalint.engine import Options, build_analyses
    from numalint.k8s.versions import NEWEST

    node_checks = {slug: func for slug, func in all_checks().items() if func.__module__ in NODE_MODULES}
    assert node_checks
    without_pool = 0
    for slug, rule in catalogue().items():
        for index, example in enumerate(rule.examples):
            folder = tmp_path / f"{slug}-{index}"
            write(folder, dict(example["files"]))
            for analysis in build_analyses([str(folder)], Options(version=NEWEST)):
                if analysis.pools:
                    continue
                without_pool += 1
                for check_slug, func in node_checks.items():
                    assert list(func(analysis)) == [], f"{check_slug} on {slug} example {index}"
    assert without_pool > 10
