"""Reading faster changes nothing a user sees (issue 13): same findings on a generated repository whatever the
number of processes, the same errors and positions whether a document is built or only read, and the same
rule catalogue whether examples are parsed at start-up or later. Speed itself is measured in bench/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from numalint.catalogue import Rule, catalogue
from numalint.data import data_dir
from numalint.reading.sources import _wanted
from numalint.reading.yamlpos import Skipped, YamlError, load_all

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "speed" / "generated-400-findings.json"
KEYS = ("rule", "severity", "message", "file", "line", "column", "end_line", "end_column", "fix")


@pytest.mark.parametrize("jobs", [["-j", "1"], ["-j", "2"], ["-j", "3"]])
def test_generated_repository_findings_unchanged(repository: Path, jobs: list[str]) -> None:
    ran = subprocess.run([sys.executable, "-m", "numalint", "check", "-f", "json", "--fail-on", "never", *jobs, "repo"],
                         cwd=repository, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    found = [{key: finding[key] for key in KEYS} for finding in json.loads(ran.stdout)["findings"]]
    assert found == json.loads(GOLDEN.read_text())


POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
SERVICE = "apiVersion: v1\nkind: Service\n"
HOSTILE = [
    SERVICE + "l0: &l0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 9)),
    SERVICE + "x: " + "[" * 600 + "]" * 600 + "\n",
    SERVICE + "a: &a\n  b: *a\n",
    SERVICE + "a: *nope\n",
    SERVICE + "a: [1, 2\nb: c\n",
    SERVICE + "spec: {a: 1}\nkind: Pod\nx: y\n",
    "b: &b {kind: Pod, apiVersion: v1}\n" + SERVICE + "<<: *b\n",
    "k: &k kind\n" + SERVICE + "*k : Pod\n",
    SERVICE + "a: 1\n---\n" + SERVICE + "q: &q [1]\nr: *q\n---\n" + POD + "--- \n" + SERVICE + "s: [1, {a: *q}]\n",
    "--- &r\n" + SERVICE + "a: *r\n",
    SERVICE + "".join(f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]\n" if i else "a0: &a0 '{{ x }}'\n" for i in range(23)),
    SERVICE + "a: &a {x: [1, 2, {y: 3}]}\nb: [*a, *a]\nc: *a\n",
    "metadata: {name: x}\nspec: {a: [1, 2]}\n" + SERVICE + "z: 1\n",
    "apiVersion: v1\nkind: List\nitems:\n- " + POD.replace("\n", "\n  "),
    SERVICE + "x:\r  y: 1\u2028z: [\x85]\n",
]


def _outcome(text: str, keep: object) -> object:
    try:
        docs = load_all(text, keep)  # type: ignore[arg-type]
    except YamlError as err:
        return ("error", err.message, err.line, err.col, err.hostile)
    return [(type(root).__name__, tuple(span), getattr(root, "span", None)) for root, span in docs]


@pytest.mark.parametrize("text", HOSTILE)
def test_documents_read_without_building_fail_and_end_alike(text: str) -> None:
    """A document of a kind numalint does not check is read, not built: same errors at the same places, same
    spans; only its root's contents differ."""
    built = _outcome(text, None)
    for keep in (_wanted(text), lambda api_version, kind: False):
        skipped = _outcome(text, keep)
        if isinstance(built, tuple):
            assert skipped == built
        else:
            assert isinstance(skipped, list) and [s[1:] for s in skipped] == [b[1:] for b in built]


def test_checked_kinds_are_built_whole() -> None:
    text = SERVICE + "a: 1\n---\n" + POD + "spec:\n  containers: [{name: c}]\n"
    (service, _), (pod, _) = load_all(text, _wanted(text))
    assert isinstance(service, Skipped) and dict(service) == {"apiVersion": "v1", "kind": "Service"}
    assert not isinstance(pod, Skipped) and pod["spec"]["containers"][0]["name"] == "c"


def test_catalogue_examples_parsed_later_are_the_same() -> None:
    rules = catalogue()
    for path in sorted(data_dir("rules").glob("*.yaml")):
        (raw, _), *_ = load_all(path.read_text(encoding="utf-8"))
        rule: Rule = rules[raw["slug"]]
        examples = tuple(raw.get("examples") or ())
        assert repr(rule.examples) == repr(examples)
        assert [e.span for e in rule.examples] == [e.span for e in examples]  # positions as in the file
        assert rule.start_problems == tuple(raw.get("start_problems") or ())
