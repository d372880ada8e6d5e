"""The real pre-commit framework runs this checkout's hook and a bad file fails it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parent.parent


def _precommit() -> list[str]:
    exe = shutil.which("pre-commit", path=os.path.dirname(sys.executable)) or shutil.which("pre-commit")
    if exe is None:
        pytest.fail("pre-commit is a test dependency: pip install -e '.[test]'")
    return [exe]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"})


def test_hook_fails_on_a_bad_file_and_passes_a_good_one(tmp_path: Path) -> None:
    repo = tmp_path / "gitops"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "kubelet.yaml").write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                       "cpuManagerPolicy: static\n")
    (repo / "ok.yaml").write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                  "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n")
    _git(repo, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    bad = subprocess.run(_precommit() + ["try-repo", str(CHECKOUT), "numalint", "--files", "kubelet.yaml"],
                         cwd=repo, capture_output=True, text=True, env=env, timeout=900)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "no-cpu-reservation" in bad.stdout
    good = subprocess.run(_precommit() + ["try-repo", str(CHECKOUT), "numalint", "--files", "ok.yaml"],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=900)
    assert good.returncode == 0, good.stdout + good.stderr


def test_fix_hook_applies_safe_fixes(tmp_path: Path) -> None:
    repo = tmp_path / "gitops"
    repo.mkdir()
    _git(repo, "init", "-q")
    target = repo / "kubelet.yaml"
    target.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                      "cpuManagerPolicy: static\nreservedSystemCPUs: 0  # the first core\n")
    _git(repo, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    proc = subprocess.run(_precommit() + ["try-repo", str(CHECKOUT), "numalint-fix", "--files", "kubelet.yaml"],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # pre-commit fails a hook that modified files
    assert target.read_text().endswith('reservedSystemCPUs: "0"  # the first core\n')


def test_hook_reports_the_unchanged_pod_a_changed_kubelet_file_breaks(tmp_path: Path) -> None:
    repo = tmp_path / "gitops"
    (repo / "nodes").mkdir(parents=True)
    (repo / "apps").mkdir()
    (repo / ".numalint.yaml").write_text("context: [nodes, apps]\n")
    (repo / "nodes" / "topology.yaml").write_text(
        "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata:\n  name: two-numa\nspec:\n  numaNodes:\n"
        "    - {id: 0, cpus: \"0-7\", memory: 32Gi}\n    - {id: 1, cpus: \"8-15\", memory: 32Gi}\n")
    (repo / "apps" / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: engine\nspec:\n  containers:\n    - name: app\n"
        "      image: app\n      resources:\n        limits: {cpu: \"6\", memory: 1Gi}\n")
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
               "topologyManagerPolicy: single-numa-node\nmemoryManagerPolicy: None\nreservedSystemCPUs: \"{}\"\n")
    (repo / "nodes" / "kubelet.yaml").write_text(kubelet.format("0"))
    (repo / ".numalint.yaml").write_text("context: [nodes, apps]\nrules:\n  memory-manager-not-static: off\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    command = _precommit() + ["try-repo", str(CHECKOUT), "numalint", "--files", "nodes/kubelet.yaml"]
    before = subprocess.run(command, cwd=repo, capture_output=True, text=True, env=env, timeout=900)
    assert before.returncode == 0, before.stdout + before.stderr
    (repo / "nodes" / "kubelet.yaml").write_text(kubelet.format("0-2,8-10"))  # 5 CPUs left per NUMA node
    _git(repo, "add", ".")
    after = subprocess.run(command, cwd=repo, capture_output=True, text=True, env=env, timeout=900)
    assert after.returncode == 1, after.stdout + after.stderr
    assert "apps/pod.yaml" in after.stdout and "admission-failure" in after.stdout
    assert "related: nodes/kubelet.yaml" in after.stdout
