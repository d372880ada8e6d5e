"""The GitHub Action (action.yml): its check step run as the script it is, with the inputs as the runner
passes them; the install step is the project's own `pip install`, which CI already exercises."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from numalint.reading.yamlpos import load_all

CHECKOUT = Path(__file__).resolve().parent.parent


def _step(tmp_path: Path, **inputs: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "GITHUB_OUTPUT": str(tmp_path / "output"), **inputs}
    return subprocess.run(["bash", str(CHECKOUT / "action" / "check.sh")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


def test_action_declares_its_inputs_and_runs_the_check_script() -> None:
    (action, _span), = load_all((CHECKOUT / "action.yml").read_text(encoding="utf-8"))
    assert set(action["inputs"]) == {"paths", "fail-on", "kubernetes-version", "config", "sarif-file"}
    steps = action["runs"]["steps"]
    assert action["runs"]["using"] == "composite"
    assert 'pip install --quiet "${GITHUB_ACTION_PATH}"' in steps[0]["run"]
    assert "action/check.sh" in steps[1]["run"]


def test_check_step_annotates_writes_sarif_and_keeps_the_exit_code(tmp_path: Path) -> None:
    (tmp_path / "kubelet.yaml").write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                           "cpuManagerPolicy: static\n")
    result = _step(tmp_path, NUMALINT_PATHS=".", NUMALINT_FAIL_ON="warning", NUMALINT_SARIF="out.sarif")
    assert result.returncode == 1, result.stderr
    assert any(line.startswith("::error file=") and "no-cpu-reservation" in line
               for line in result.stdout.splitlines())
    sarif = json.loads((tmp_path / "out.sarif").read_text())
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["no-cpu-reservation"]
    assert "sarif-file=out.sarif" in (tmp_path / "output").read_text()
    never = _step(tmp_path, NUMALINT_PATHS=".", NUMALINT_FAIL_ON="never", NUMALINT_SARIF="")
    assert never.returncode == 0 and not (tmp_path / "output").read_text().count("\n") > 1


def test_check_step_does_not_hide_a_usage_error(tmp_path: Path) -> None:
    result = _step(tmp_path, NUMALINT_PATHS="nothing-here", NUMALINT_KUBERNETES_VERSION="9.9", NUMALINT_SARIF="")
    assert result.returncode == 2
