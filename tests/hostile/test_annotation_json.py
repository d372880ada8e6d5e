"""JSON in annotations that Python's json module refuses and Go reads: nesting past Python's recursion limit and
integers of more than 4,300 digits. Each is a finding at the annotation, never a traceback."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run, write

DEEP = "[" * 1200 + "]" * 1200
BIG = "9" * 4400


def _pod(networks: str) -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
            f"    k8s.v1.cni.cncf.io/networks: '{networks}'\nspec:\n  containers: [{{name: c, image: c}}]\n")


def _profile(annotation: str) -> str:
    return (f"apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n  name: du\n"
            f"  annotations:\n    kubeletconfig.experimental: '{annotation}'\nspec:\n"
            '  cpu: {reserved: "0", isolated: "1-7"}\n  nodeSelector: {node-role.kubernetes.io/du: ""}\n')


def _findings(tmp_path: Path, text: str) -> list[tuple[str, int, str]]:
    write(tmp_path, {"doc.yaml": text})
    for fmt in ("text", "sarif"):
        result = run("check", "--format", fmt, str(tmp_path))
        assert "Traceback" not in result.stderr and result.exit_code in (0, 1), result.output
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    return [(f["rule"], f["line"], f["message"]) for f in found]


def test_a_networks_annotation_nested_too_deep_is_malformed(tmp_path: Path) -> None:
    found = _findings(tmp_path, _pod(DEEP))
    assert [(rule, line) for rule, line, _ in found] == [("networks-annotation", 6)]
    assert "nests deeper than numalint can read" in found[0][2]


def test_a_networks_annotation_with_a_long_number_is_read(tmp_path: Path) -> None:
    assert _findings(tmp_path, _pod(f'[{{"name": "net-a", "x": {BIG}}}]')) == []


def test_a_profile_annotation_with_a_long_number_is_beyond_every_go_integer(tmp_path: Path) -> None:
    found = _findings(tmp_path, _profile(f'{{"maxPods": {BIG}}}'))
    assert [(rule, line) for rule, line, _ in found] == [("performance-profile-invalid", 6)]
    assert "holds maxPods = 999999999999...(4400 digits)" in found[0][2]
    assert _findings(tmp_path, _profile(f'{{"notAField": {BIG}}}')) == []  # Go ignores unknown fields


def test_a_profile_annotation_nested_too_deep_is_a_finding(tmp_path: Path) -> None:
    found = _findings(tmp_path, _profile(DEEP))
    assert [(rule, line) for rule, line, _ in found] == [("performance-profile-invalid", 6)]
    assert "is a JSON array, not an object" in found[0][2]
    # an object deeper than numalint reads may be an unknown field Go ignores: no claim either way
    assert _findings(tmp_path, _profile('{"a":' * 1200 + "1" + "}" * 1200)) == []


def test_a_profile_annotation_nested_a_few_hundred_levels_is_read_without_a_traceback(tmp_path: Path) -> None:
    # deep enough that walking it again (dropping nulls) passes Python's recursion limit, though reading did not
    for depth in (500, 600, 950):
        deep = '{"cpuManagerPolicy": "static", "x": ' + '{"a":' * depth + "1" + "}" * depth + "}"
        found = _findings(tmp_path, _profile(deep))
        assert "performance-profile-invalid" not in [rule for rule, _, _ in found]  # an unknown field Go ignores
