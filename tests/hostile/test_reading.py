"""Reading hostile input: YAML keys, aliases, special files, cost, dead workers, permissions, stdin.

Every input is built in tmp_path at test time; the CLI runs as a subprocess with a timeout, so a hang
fails the test instead of the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
KUBELET = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


class Ran:
    def __init__(self, proc: subprocess.CompletedProcess[bytes]) -> None:
        self.code = proc.returncode
        self.out = proc.stdout.decode("utf-8", "replace")
        self.err = proc.stderr.decode("utf-8", "replace")
        assert "Traceback" not in self.err, self.err

    def findings(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = json.loads(self.out)["findings"]
        return result


def cli(*args: str, stdin: bytes = b"", cwd: Path | None = None, timeout: float = 20,
        env: dict[str, str] | None = None, user: tuple[int, int] | None = None) -> Ran:
    """Run ``python -m numalint`` (optionally as another uid/gid) and fail on a hang or a traceback."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}

    def drop() -> None:
        if user is not None:
            os.setgid(user[1])
            os.setuid(user[0])

    proc = subprocess.run([sys.executable, "-m", "numalint", *args], input=stdin, capture_output=True,
                          cwd=cwd or ROOT, timeout=timeout, env=full_env, preexec_fn=drop if user else None)
    return Ran(proc)


def by_rule(ran: Ran, rule: str) -> list[dict[str, Any]]:
    return [f for f in ran.findings() if f["rule"] == rule]


# --- YAML keys read as Kubernetes reads them -------------------------------------------------------------


def test_key_beside_merge_overrides_without_duplicate(tmp_path: Path) -> None:
    (tmp_path / "k.yaml").write_text(KUBELET + "x: &base\n  cpuManagerPolicy: static\n"
                                     "spec:\n  <<: *base\n  cpuManagerPolicy: none\n"
                                     "<<: *base\ncpuManagerPolicy: none\n")
    ran = cli("check", "-f", "json", str(tmp_path / "k.yaml"))
    assert not [f for f in ran.findings() if "duplicate" in f["message"]]


def test_keys_one_true_and_one_point_zero_are_distinct(tmp_path: Path) -> None:
    (tmp_path / "k.yaml").write_text(KUBELET + "1: a\ntrue: b\n1.0: c\n")
    ran = cli("check", "-f", "json", str(tmp_path / "k.yaml"))
    messages = [f["message"] for f in ran.findings()]
    assert not [m for m in messages if "duplicate" in m]
    assert sum('unknown field "' in m for m in messages) == 3
    (tmp_path / "k.yaml").write_text(KUBELET + "true: a\nyes: b\n")  # the same boolean key twice
    assert [f for f in cli("check", "-f", "json", str(tmp_path / "k.yaml")).findings()
            if 'duplicate field "yes"' in f["message"]]


# --- Aliases ---------------------------------------------------------------------------------------------


def _laughs(field: str, levels: int, width: int = 9, comment: str = "") -> str:
    lines = [KUBELET.rstrip("\n"), comment, "l0: &a0 [lol]"]
    lines += [f"l{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join([*lines, f"{field}: *a{levels - 1}"]) + "\n"


@pytest.mark.parametrize("field", ["featureGates", "cpuManagerPolicyOptions", "reservedMemory", "evictionHard",
                                   "systemReserved", "kubeReserved"])
def test_billion_laughs_under_typed_field_is_one_finding(tmp_path: Path, field: str) -> None:
    (tmp_path / "b.yaml").write_text(_laughs(field, 10))
    (tmp_path / "ok.yaml").write_text(KUBELET + "cpuManagerPolicy: Static\n")
    ran = cli("check", "-f", "json", str(tmp_path))
    syntax = by_rule(ran, "yaml-syntax")
    assert len(syntax) == 1 and "alias expansion too large" in syntax[0]["message"]
    assert syntax[0]["file"].endswith("b.yaml") and syntax[0]["line"] > 1
    assert any(f["file"].endswith("ok.yaml") for f in ran.findings())  # the run went on
    assert ran.code == 1


def test_small_alias_fan_out_is_described_by_size_not_repr(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text(_laughs("featureGates", 4))
    ran = cli("check", "-f", "json", str(tmp_path / "b.yaml"))
    [schema] = by_rule(ran, "schema")
    assert "a list of 9 item(s)" in schema["message"] and "lol" not in schema["message"]


@pytest.mark.parametrize("comment", ["# {{ .Values.x }}", "a: '{{ .Values.x }}'"])
def test_nested_aliases_with_template_text_do_not_hang(tmp_path: Path, comment: str) -> None:
    (tmp_path / "t.yaml").write_text(_laughs("featureGates", 5, width=9, comment=comment))  # ~7,000 nodes
    ran = cli("check", "-f", "json", str(tmp_path / "t.yaml"))
    assert ran.code in (0, 1) and {f["rule"] for f in ran.findings()} & {"schema", "not-lintable"}
    (tmp_path / "t.yaml").write_text(_laughs("featureGates", 30, width=2, comment=comment))  # 2^29 nodes
    [syntax] = by_rule(cli("check", "-f", "json", str(tmp_path / "t.yaml")), "yaml-syntax")
    assert "alias expansion too large" in syntax["message"]
    (tmp_path / "t.yaml").write_text(KUBELET + comment + "\nx: &a [*a, *a, *a]\n")
    [syntax] = by_rule(cli("check", "-f", "json", str(tmp_path / "t.yaml")), "yaml-syntax")
    assert "contains itself" in syntax["message"]
