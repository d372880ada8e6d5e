"""An RKE2 or K3s node's config.yaml: its kubelet-arg flags over the distribution's defaults, whose eviction-hard
(imagefs and nodefs only) reserves no memory. Before, such files were not read."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import findings, run

MEMORY = ('kubelet-arg:\n  - "cpu-manager-policy=static"\n  - "--reserved_cpus=0,1"\n'
          '  - "memory-manager-policy=Static"\n  - "kube-reserved=memory=512Mi"\n'
          '  - "system-reserved=memory=512Mi"\n  - "reserved-memory=0:memory={total}"\n')


def test_the_distributions_eviction_reserves_no_memory(tmp_path: Path) -> None:
    """RKE2 and K3s replace the kubelet's default eviction-hard with imagefs and nodefs signals: no 100Mi."""
    assert findings(tmp_path, {"config.yaml": MEMORY.format(total="1Gi")}) == []
    found = findings(tmp_path, {"config.yaml": MEMORY.format(total="1124Mi")})
    assert [(f["rule"], f["line"]) for f in found] == [("reserved-memory-mismatch", 7)]
    assert "RKE2's and K3s's default eviction-hard" in found[0]["message"]
    assert "kubelet-arg" in found[0]["fix"]["description"] and not found[0]["fix"]["edits"]
    # an eviction-hard flag replaces the default: now 100Mi is reserved
    evicting = MEMORY.format(total="1124Mi") + '  - "eviction-hard=memory.available<100Mi"\n'
    assert findings(tmp_path, {"config.yaml": evicting}) == []


def test_a_static_node_without_reservation_and_a_refused_flag(tmp_path: Path) -> None:
    text = 'token: t\nkubelet-arg:\n- cpu-manager-policy=static\n- "system-reserved=cpu=0,31"\n'
    found = findings(tmp_path, {"config.yaml": text})
    assert [(f["rule"], f["line"]) for f in found] == [("no-cpu-reservation", 3), ("kubelet-start", 4)]
    assert "reserved-cpus" in found[0]["fix"]["description"] and "kubelet-arg system-reserved" in found[1]["message"]
    path = tmp_path / "config.yaml"
    before = path.read_bytes()
    run("fix", "--unsafe-fixes", str(path))
    assert path.read_bytes() == before


def test_a_node_that_asks_no_alignment_is_not_judged(tmp_path: Path) -> None:
    assert findings(tmp_path, {"config.yaml": "kubelet-arg: \"max-pods=250\"\ncni: calico\n"}) == []


def test_drop_ins_are_not_judged_alone(tmp_path: Path) -> None:
    """A drop-in is merged over config.yaml: judged alone it would miss the flags written before it."""
    (tmp_path / "config.yaml.d").mkdir()
    (tmp_path / "config.yaml.d" / "50-cpu.yaml").write_text('kubelet-arg+:\n- "cpu-manager-policy=static"\n')
    found = findings(tmp_path, {"config.yaml": 'kubelet-arg:\n- "reserved-cpus=0"\n- "cpu-manager-policy=static"\n'})
    assert {(Path(f["file"]).name, f["rule"], f["severity"]) for f in found} == {
        ("config.yaml", "not-lintable", "info"), ("50-cpu.yaml", "not-lintable", "info")}


def test_a_drop_in_that_cannot_be_read_is_said_and_does_not_hang(tmp_path: Path) -> None:
    """A FIFO among the drop-ins blocked the run for ever (a review)."""
    (tmp_path / "config.yaml.d").mkdir()
    os.mkfifo(tmp_path / "config.yaml.d" / "50-cpu.yaml")
    path = tmp_path / "config.yaml"
    path.write_text('kubelet-arg:\n- "cpu-manager-policy=static"\n')
    result = run("check", "--format", "json", str(path))
    found = result.json()["findings"]
    assert [f["rule"] for f in found] == ["not-lintable"] and "cannot be read" in found[0]["message"]


def test_k3s_flag_forms(tmp_path: Path) -> None:
    """kubelet-arg+ beside kubelet-arg in one file appends to it; eviction-hard+= adds to the default (whose
    signals hold no memory.available: the memory threshold is the one written); only the first document is K3s's."""
    both = 'kubelet-arg:\n- "cpu-manager-policy=static"\nkubelet-arg+:\n- "reserved-cpus=0"\n'
    assert findings(tmp_path, {"config.yaml": both}) == []
    added = MEMORY.format(total="1124Mi") + '  - "eviction-hard+=memory.available<100Mi"\n'
    assert findings(tmp_path, {"config.yaml": added}) == []
    second = 'token: t\n---\nkubelet-arg:\n- "cpu-manager-policy=static"\n'
    assert findings(tmp_path, {"config.yaml": second}) == []


def test_other_files_with_a_kubelet_arg_key_are_not_node_configurations(tmp_path: Path) -> None:
    """A Helm values file or Ansible vars with a kubelet-arg key is no RKE2 configuration (a review: two errors, and
    a Pod beside it judged on it)."""
    values = 'kubelet-arg:\n- "cpu-manager-policy=static"\n- "memory-manager-policy=Static"\nreplicas: 2\n'
    assert findings(tmp_path, {"values.yaml": values}) == []
    assert [f["rule"] for f in findings(tmp_path, {"rke2-agent.yaml": values})] == ["no-cpu-reservation",
                                                                                  "reserved-memory-mismatch"]


def test_thousands_of_repeated_map_flags_add_up(tmp_path: Path) -> None:
    """Each repeated flag copied everything before it (40 s for 20,000 repeated map flags); they add up, combined
    once."""
    nodes = "".join(f'- "reserved-memory={i}:memory=1Mi"\n' for i in range(1000))
    text = ('kubelet-arg:\n- "memory-manager-policy=Static"\n- "kube-reserved=memory={kube}"\n'
            '- "kube-reserved=cpu=1"\n' + nodes)
    assert findings(tmp_path, {"config.yaml": text.format(kube="1000Mi")}) == []
    found = findings(tmp_path, {"config.yaml": text.format(kube="999Mi")})
    assert [f["rule"] for f in found] == ["reserved-memory-mismatch"] and "sums to 1000Mi" in found[0]["message"]
