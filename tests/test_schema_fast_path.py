"""The fast conformance check agrees with jsonschema on every document it sees."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from numalint.catalogue import catalogue
from numalint.k8s.kinds import SCHEMA_FILES
from numalint.reading.yamlpos import load_all
from numalint.views.schema import KUBELET_SCHEMA, conforms, load_schema

CORPUS = Path(__file__).parent / "corpus"


def _documents() -> list[tuple[str, object]]:
    docs = []
    texts = [p.read_text() for p in sorted(CORPUS.rglob("*.yaml"))]
    texts += [t for r in catalogue().values() for ex in r.examples for t in ex["files"].values()]
    for text in texts:
        try:
            parsed = load_all(text)
        except Exception:
            continue
        for root, _ in parsed:
            if isinstance(root, dict) and isinstance(root.get("kind"), str):
                docs.append((root["kind"], root))
                embedded = (root.get("spec") or {}).get("kubeletConfig") if isinstance(root.get("spec"), dict) else None
                if embedded is not None:
                    docs.append(("KubeletConfiguration", embedded))
    return docs


SAMPLES = [(k, d) for k, d in _documents() if k in SCHEMA_FILES or k == "KubeletConfiguration"] + [
    ("KubeletConfiguration", {"cpuManagerPolicyOptions": {"full-pcpus-only": True}}),
    ("KubeletConfiguration", {"featureGates": {"A": "true"}, "reservedSystemCPUs": 0}),
    ("KubeletConfiguration", {"syncFrequency": "1m30s", "memoryThrottlingFactor": 0.9}),
    ("NodeTopology", {"apiVersion": "numalint.io/v1alpha1", "kind": "NodeTopology", "metadata": {"name": "x"},
                      "spec": {"numaNodes": [{"id": 0, "memory": "1Gi", "cpus": "0", "cores": ["0"]}]}}),
    ("Pod", {"spec": {"containers": [{"name": "a", "resources": {"limits": {"cpu": "1.5.1"}}}]}}),
]


@pytest.mark.parametrize("kind,instance", SAMPLES)
def test_fast_check_agrees_with_jsonschema(kind: str, instance: object) -> None:
    name = KUBELET_SCHEMA if kind == "KubeletConfiguration" else SCHEMA_FILES[kind]
    schema = load_schema(name)
    assert conforms(instance, schema, schema) == Draft202012Validator(schema).is_valid(instance)
