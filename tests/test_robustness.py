"""Hostile input never produces a traceback: real documents with values swapped for wrong types."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from numalint.catalogue import catalogue
from numalint.reading.yamlpos import load_all
from tests.conftest import run, write

CORPUS = Path(__file__).parent / "corpus"
WEIRD: list[Any] = [None, 0, -1, 3.5, True, "x", "", [], {}, [1, "a"], {"a": None}, "0-3", "1Gi", "-5", 10**20,
                    "0-99999999", {"matchLabels": 5}, [[1]]]


def _documents() -> list[dict[str, Any]]:
    texts = [p.read_text() for p in sorted(CORPUS.rglob("*.yaml"))]
    texts += [t for r in catalogue().values() for ex in r.examples for t in ex["files"].values()]
    docs = []
    for text in texts:
        try:
            parsed = load_all(text)
        except Exception:
            continue
        docs.extend(json.loads(json.dumps(root, default=str)) for root, _ in parsed if isinstance(root, dict))
    return docs


def _mutate(node: Any, rng: random.Random, rate: float) -> Any:
    if isinstance(node, dict):
        return {k: rng.choice(WEIRD) if rng.random() < rate else _mutate(v, rng, rate) for k, v in node.items()}
    if isinstance(node, list):
        return [rng.choice(WEIRD) if rng.random() < rate else _mutate(v, rng, rate) for v in node]
    return node


DOCS = _documents()


@pytest.mark.parametrize("seed", range(12))
def test_mutated_documents_are_checked_and_simulated_without_traceback(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    for i, doc in enumerate(rng.sample(DOCS, 30)):
        (tmp_path / f"doc{i}.json").write_text(json.dumps(_mutate(doc, rng, 0.1)))
    checked = run("check", "--format", "json", str(tmp_path))
    assert checked.exit_code in (0, 1, 2)
    json.loads(checked.output)
    simulated = run("simulate", "--format", "json", str(tmp_path))
    assert simulated.exit_code in (0, 1)
    json.loads(simulated.output)
    fixed = run("fix", "--unsafe-fixes", "--diff", str(tmp_path))
    assert fixed.exit_code in (0, 1)


def test_a_document_with_an_empty_kind_is_an_error_not_skipped(tmp_path: Path) -> None:
    """`kind:` left empty (an SR-IOV policy of a real repository): kubectl refuses it ("Object 'Kind' is
    missing"), and numalint skipped it silently, blaming the network that named its resource instead. A file
    without any kind key (a Helm Chart.yaml, a kustomization) is no Kubernetes object and stays quiet."""
    write(tmp_path, {"p.yaml": "apiVersion: sriovnetwork.openshift.io/v1\nkind:\nmetadata: {name: eno4}\n",
                     "Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
                     "kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind:\nresources: [p.yaml]\n"})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(Path(f["file"]).name, f["rule"], f["line"]) for f in found] == [("p.yaml", "schema", 2)], found
    assert "kind is empty" in found[0]["message"]


def test_a_kind_numalint_reads_in_the_core_api_group_is_an_error_not_skipped(tmp_path: Path) -> None:
    """`apiVersion: v1` on a KubeletConfig (a public test repository): the API server refuses it (no matches for
    kind), so its topologyManagerScope never applies, and numalint skipped it silently. The core group serves none
    of the kinds numalint reads but Pod, ReplicationController and PodTemplate; the same kind in another group is
    some other CRD and stays quiet."""
    write(tmp_path, {"kc.yaml": "apiVersion: v1\nkind: KubeletConfig\nmetadata: {name: tm}\n"
                                "spec: {kubeletConfig: {topologyManagerScope: pod}}\n",
                     "apps.yaml": "apiVersion: v1\nkind: Deployment\nmetadata: {name: d}\n---\n"
                                  "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\n"
                                  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
                     "list.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: PerformanceProfile\n"
                                  "  metadata: {name: pp}\n",
                     "other.yaml": "apiVersion: example.com/v1\nkind: KubeletConfig\nmetadata: {name: x}\n",
                     # a placeholder a template fills in is no core-group version (found by review)
                     "templated.yaml": "apiVersion: ${DEPLOY_API}\nkind: Deployment\nmetadata: {name: t}\n---\n"
                                       "apiVersion: '{{ .Values.api }}'\nkind: Deployment\nmetadata: {name: u}\n"})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    schema = sorted((Path(f["file"]).name, f["line"], f["column"], f["fix"]["description"]) for f in found
                    if f["rule"] == "schema")
    assert schema == [("apps.yaml", 1, 13, "set apiVersion: apps/v1"),
                      ("kc.yaml", 1, 13, "set apiVersion: machineconfiguration.openshift.io/v1"),
                      ("list.yaml", 4, 15, "set apiVersion: performance.openshift.io/v2")], found
    assert all(f["severity"] == "error" for f in found if f["rule"] == "schema")
    message = next(f["message"] for f in found if f["file"].endswith("kc.yaml"))
    assert 'no matches for kind "KubeletConfig" in version "v1"' in message
