"""The reports' JSON writer (issue 13: output time) writes exactly what ``json.dumps(value, indent=2)`` writes,
for every kind of value a report can hold and for the ones it never should (they go to the standard library)."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

from numalint.output import jsontext
from tests.conftest import run, write


class Named(str):
    """A str subclass (YAML keys that are not strings arrive as one)."""


STRINGS = ["", "plain", 'quote " and \\ backslash', "line\nbreak\ttab", "\x00\x1f\x7f", "é ü 日本", "\U0001f600",
           "\ud800 lone surrogate", "</script>", Named("1")]
SCALARS: list[Any] = [None, True, False, 0, -1, 2 ** 70, 1.5, -0.0, float("inf"), float("nan"), 1e300, *STRINGS]


def _value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.45:
        return rng.choice(SCALARS)
    if roll < 0.7:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if roll < 0.75:
        return tuple(_value(rng, depth + 1) for _ in range(rng.randrange(3)))
    keys: list[Any] = [rng.choice(STRINGS) for _ in range(rng.randrange(4))]
    if rng.random() < 0.1:
        keys.append(rng.choice([1, True, None, 2.5]))
    return {key: _value(rng, depth + 1) for key in keys}


@pytest.mark.parametrize("seed", range(40))
def test_random_values_are_written_as_the_standard_library_writes_them(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        value = _value(rng, 0)
        assert jsontext.dumps(value) == json.dumps(value, indent=2)
        assert jsontext.indented(value, "    ") == json.dumps(value, indent=2).replace("\n", "\n    ")


def test_every_scalar_alone_and_nested() -> None:
    for scalar in SCALARS:
        for value in (scalar, [scalar], {"k": scalar}, {"k": [scalar, {"j": scalar}]}):
            assert jsontext.dumps(value) == json.dumps(value, indent=2), value
    assert math.isnan(json.loads(jsontext.dumps(float("nan"))))


def test_json_and_sarif_reports_are_the_standard_librarys_text(tmp_path: Any) -> None:
    write(tmp_path, {"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: \"p\\u00e9\"}\nspec:\n  containers:\n"
                                 "  - name: c\n    resources:\n      limits: {hugepages-1Gi: 1Gi, cpu: 1500m, "
                                 "memory: 1Gi, nvidia.com/gpu: 1}\n"})
    for fmt in ("json", "sarif", "gitlab"):
        result = run("check", "--format", fmt, "--fail-on", "never", str(tmp_path))
        assert result.output == json.dumps(json.loads(result.output), indent=2) + "\n", fmt
        assert fmt != "json" or "p\\u00e9" in result.output  # the object's name, escaped as json escapes it
