"""`--stdin-filename`: stdin's text checked and fixed as the file it stands for, as an editor holding the file
unsaved would have it judged (found by a fix-safety hunt: a KubeletConfiguration without metadata takes its file's
name, so on stdin a NodeTopology naming it found no pool, and `fix -` offered a rounding the pool's
full-pcpus-only rejects)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run

# a NodeTopology naming the KubeletConfiguration of this file by the file's name (another one, named, beside it),
# and a pod on its pool
NODE = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: workers}
spec:
  pool: {nodeSelector: {role: numa}, nodes: 1, kubeletConfig: node}
  sockets: 1
  threadsPerCore: 2
  numaNodes:
    - {id: 0, cpus: "0-15", memory: 64Gi}
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
cpuManagerPolicyOptions: {full-pcpus-only: "true"}
reservedSystemCPUs: "0,1"
topologyManagerPolicy: single-numa-node
memoryManagerPolicy: Static
reservedMemory: [{numaNode: 0, limits: {memory: 100Mi}}]
evictionHard: {memory.available: 100Mi}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  nodeSelector: {role: numa}
  containers:
    - name: c
      image: x
      resources:
        limits: {cpu: 2500m, memory: 2Gi}
---
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
metadata: {name: spare}
cpuManagerPolicy: none
"""


def test_stdin_standing_for_a_file_is_fixed_as_that_file(tmp_path: Path) -> None:
    (tmp_path / "node.yaml").write_text(NODE)
    on_disk = run("fix", "--unsafe-fixes", "--diff", "node.yaml", cwd=tmp_path)
    assert '+        limits: {cpu: "2", memory: 2Gi}' in on_disk.output  # full-pcpus-only: whole cores
    named = run("fix", "--unsafe-fixes", "-", "--stdin-filename", "node.yaml", stdin=NODE, cwd=tmp_path)
    assert "fixed 1 finding(s) in 1 file(s)" in named.stderr
    assert named.output == NODE.replace("cpu: 2500m", 'cpu: "2"')
    assert (tmp_path / "node.yaml").read_text() == NODE  # nothing written to the file it stands for
    # the file need not exist; without the option the file's name is unknown, and the pool with it
    named = run("fix", "--unsafe-fixes", "-", "--stdin-filename", "new/node.yaml", stdin=NODE, cwd=tmp_path)
    assert named.output == NODE.replace("cpu: 2500m", 'cpu: "2"')
    assert not (tmp_path / "new").exists()
    unnamed = run("fix", "--unsafe-fixes", "-", stdin=NODE, cwd=tmp_path)
    assert 'cpu: "2"' not in unnamed.output


def test_findings_name_the_file_and_its_configuration_applies(tmp_path: Path) -> None:
    (tmp_path / ".numalint.yaml").write_text("perPath:\n  quiet/*.yaml: {fractional-cpu: off}\n")
    result = run("check", "--format", "json", "--fail-on", "never", "-", "--stdin-filename", "apps/node.yaml",
                 stdin=NODE, cwd=tmp_path)
    found = json.loads(result.output)["findings"]
    assert [(f["file"], f["rule"]) for f in found if f["rule"] == "fractional-cpu"] == [("apps/node.yaml",
                                                                                         "fractional-cpu")]
    result = run("check", "--format", "json", "--fail-on", "never", "-", "--stdin-filename", "quiet/node.yaml",
                 stdin=NODE, cwd=tmp_path)
    assert "fractional-cpu" not in [f["rule"] for f in json.loads(result.output)["findings"]]


def test_the_option_needs_stdin_and_a_file(tmp_path: Path) -> None:
    (tmp_path / "node.yaml").write_text(NODE)
    result = run("check", "node.yaml", "--stdin-filename", "node.yaml", cwd=tmp_path)
    assert result.exit_code == 2 and "give '-' as the path" in result.stderr
    result = run("fix", "-", "--stdin-filename", ".", stdin=NODE, cwd=tmp_path)
    assert result.exit_code == 2 and "give the path of a file" in result.stderr


def test_an_excluded_path_is_excluded_whether_or_not_it_exists(tmp_path: Path) -> None:
    """`exclude` applies to the file stdin stands for as to the file itself, on disk or not (found by a review:
    a path not on disk was checked anyway)."""
    (tmp_path / ".numalint.yaml").write_text("exclude:\n  - vendor/\n")
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "node.yaml").write_text(NODE)
    for name in ("vendor/node.yaml", "vendor/new.yaml"):
        result = run("check", "-", "--stdin-filename", name, stdin=NODE, cwd=tmp_path)
        assert result.exit_code == 2 and "no YAML or JSON files found" in result.stderr, (name, result.stderr)
        fixed = run("fix", "--unsafe-fixes", "-", "--stdin-filename", name, stdin=NODE, cwd=tmp_path)
        assert fixed.output == NODE, name


def test_simulate_places_stdin_as_the_file_it_stands_for(tmp_path: Path) -> None:
    """`simulate -` names the pool of a nameless KubeletConfiguration by the file stdin stands for, as for a file."""
    (tmp_path / "node.yaml").write_text(NODE)
    on_disk = run("simulate", "--format", "json", "node.yaml", cwd=tmp_path)
    named = run("simulate", "--format", "json", "-", "--stdin-filename", "elsewhere/node.yaml", stdin=NODE,
                cwd=tmp_path)
    assert named.exit_code == on_disk.exit_code and named.json()["pools"] == on_disk.json()["pools"]
    unnamed = run("simulate", "--format", "json", "-", stdin=NODE, cwd=tmp_path)
    assert unnamed.json()["pools"] != on_disk.json()["pools"]
