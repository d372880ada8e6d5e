"""Fixes in a file with more than a hundred findings of one rule (the report shows the first hundred, then
"… and N more"): each fix moves which findings are the first hundred, which is no new error."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  labels: {{dedicated: yes}}\nspec:\n" \
      "  containers:\n    - name: c\n      image: x\n"


def _pods(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "pods.yaml"
    path.write_text("---\n".join(POD.format(i=i) for i in range(count)))
    return path


def test_fixes_past_the_hundredth_finding_are_offered_and_applied(tmp_path: Path) -> None:
    path = _pods(tmp_path, 150)
    found = run("check", "--format", "json", str(path)).json()["findings"]
    assert len(found) == 101 and found[-1]["message"].startswith("… and more schema finding(s) in this file")
    fixes = [f["fix"] for f in found[:100]]
    assert all(f["safety"] == "safe" and f["edits"] for f in fixes), fixes[0]  # proven, not turned into hints
    original = path.read_text()
    result = run("fix", str(path))
    assert "fixed 150 finding(s) in 1 file(s)" in result.stderr and "left for another run" not in result.stderr
    assert path.read_text() == original.replace("dedicated: yes", 'dedicated: "yes"')
    assert run("check", "--format", "json", str(path)).json()["findings"] == []


def test_fix_says_when_its_passes_ran_out(tmp_path: Path) -> None:
    path = _pods(tmp_path, 750)  # six passes of a hundred, then 150 left
    result = run("fix", str(path))
    assert "fixed 600 finding(s) in 1 file(s)" in result.stderr
    assert "100 or more fix(es) left for another run (fix stops after 6 passes; run fix again)" in result.stderr
    result = run("fix", str(path))
    assert "fixed 150 finding(s) in 1 file(s)" in result.stderr and "left for another run" not in result.stderr
    assert run("check", "--format", "json", str(path)).json()["findings"] == []


def test_a_rule_without_fixes_past_its_hundredth_finding_is_not_counted_as_fixes_left(tmp_path: Path) -> None:
    # 620 fixable labels (six passes of a hundred leave 20) and 620 Burstable pods asking for alignment
    # (not-guaranteed, a hint only): only the summary of a rule with fixes left means "or more"
    burstable = ('      resources:\n        limits: {cpu: "4", memory: 1Gi, hugepages-1Gi: 1Gi}\n'
                 '        requests: {cpu: "2", memory: 1Gi, hugepages-1Gi: 1Gi}\n')
    path = tmp_path / "pods.yaml"
    path.write_text("---\n".join(POD.format(i=i) + burstable for i in range(620)))
    result = run("fix", str(path))
    assert "fixed 600 finding(s) in 1 file(s)" in result.stderr
    assert "; 20 fix(es) left for another run" in result.stderr, result.stderr
