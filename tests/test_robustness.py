"""Hostile input never produces a traceback: real documents with values swapped for wrong types."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from numalint.catalogue import catalogue
from numalint.reading.yamlpos import load_all
from tests.conftest import run

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
