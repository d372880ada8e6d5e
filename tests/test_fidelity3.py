"""Issue 12, third part: the disagreements an audit against the Go sources found (kubelet start-up
validation, exact quantities, feature gates per version, the machine-config operator release by release);
through the command line. Each test cites the Go source whose behaviour it pins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run, write

HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


def findings(tmp_path: Path, files: dict[str, str], *args: str) -> list[dict[str, Any]]:
    write(tmp_path, files)
    result = run("check", "--format", "json", "--fail-on", "never", *args, str(tmp_path))
    assert "Traceback" not in result.stderr
    assert result.exit_code == 0, result.output + result.stderr
    found: list[dict[str, Any]] = result.json()["findings"]
    return found


def messages(found: list[dict[str, Any]], rule: str) -> list[str]:
    return [f["message"] for f in found if f["rule"] == rule]


def errors(found: list[dict[str, Any]]) -> list[str]:
    return [f"{f['rule']}: {f['message']}" for f in found if f["severity"] == "error"]


# --- rows 1-3: evictionHard percentages are parsed by strconv.ParseFloat(s, 32) -------------------------

@pytest.mark.parametrize("value,refused", [
    ("150%", "eviction percentage threshold memory.available must be <= 100%: 150%"),
    ("100.5%", "eviction percentage threshold memory.available must be <= 100%: 100.5%"),
    # underscores between digits and hexadecimal floats with a p exponent are Go float syntax
    # (src/strconv/atof.go readFloat, src/strconv/atoi.go underscoreOK): 8% and 10% are fine
    ("0x1p3%", None), ("1_0%", None), ("0x_1p3%", None),
    ("1__0%", 'strconv.ParseFloat: parsing "1__0": invalid syntax'),
    ("_10%", 'strconv.ParseFloat: parsing "_10": invalid syntax'),
    ("0x1%", 'strconv.ParseFloat: parsing "0x1": invalid syntax'),  # a hex float needs its p exponent
    # special() accepts a sign only before Inf/Infinity: a signed NaN is a syntax error
    ("-NaN%", 'strconv.ParseFloat: parsing "-NaN": invalid syntax'),
    ("+nan%", 'strconv.ParseFloat: parsing "+nan": invalid syntax'),
    ("+Inf%", "eviction percentage threshold memory.available must be <= 100%: +Inf%"),
])
def test_eviction_percentages_parse_like_go(tmp_path: Path, value: str, refused: str | None) -> None:
    # pkg/kubelet/eviction/helpers.go parseThresholdStatement: percentage (a fraction) > 1 is refused;
    # parsePercentage is strconv.ParseFloat(strings.TrimRight(input, "%"), 32) / 100
    found = findings(tmp_path, {"k.yaml": HEAD + f'evictionHard:\n  memory.available: "{value}"\n'})
    start = messages(found, "kubelet-start")
    if refused is None:
        assert start == [], start
    else:
        assert len(start) == 1 and refused in start[0], start
