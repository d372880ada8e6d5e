"""JSON Schema validation of known kinds, and the kubelet's field catalogue.

jsonschema costs ~70 ms to import, so it is imported only when a document of a
known kind is validated; field names come straight from the schema JSON.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from .data import data_dir
from .findings import Finding
from .kinds import KUBELET_CONFIG, KUBELET_CONFIGURATION, NODE_TOPOLOGY, SCHEMA_FILES
from .locate import Path, locate
from .sources import Document

KUBELET_SCHEMA = "kubelet-config.schema.json"


@lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    with open(data_dir("schemas") / name, encoding="utf-8") as handle:
        result: dict[str, Any] = json.load(handle)
    return result


@lru_cache(maxsize=None)
def kubelet_field_names() -> frozenset[str]:
    return frozenset(load_schema(KUBELET_SCHEMA)["properties"])


@lru_cache(maxsize=None)
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name))


def validate_document(doc: Document) -> list[Finding]:
    """Schema findings for one known document (and its embedded kubelet config)."""
    findings: list[Finding] = []
    name = SCHEMA_FILES.get(doc.kind)
    if name is not None:
        findings.extend(_validate(doc, name, doc.root, ()))
    if doc.kind == KUBELET_CONFIG:
        embedded = doc.root.get("spec", {}).get("kubeletConfig") if isinstance(doc.root.get("spec"), dict) else None
        if isinstance(embedded, dict):
            findings.extend(_validate(doc, KUBELET_SCHEMA, embedded, ("spec", "kubeletConfig")))
    return findings


def _validate(doc: Document, schema: str, instance: Any, base: Path) -> list[Finding]:
    findings = []
    for error in _validator(schema).iter_errors(instance):
        if error.validator == "type" and error.instance is None:
            continue  # Go decodes null into any field as its zero value
        if error.validator == "oneOf" and not isinstance(error.instance, dict):
            continue  # the type error already says it
        path = base + tuple(error.absolute_path)
        findings.append(Finding("schema", _describe(error, path, doc.kind), doc.file, locate(doc.root, path)))
    return findings


def _describe(error: Any, path: Path, kind: str) -> str:
    where = ".".join(str(p) for p in path) or "document"
    value = error.instance
    if isinstance(value, dict):
        shown = "a mapping"
    elif isinstance(value, list):
        shown = "a list"
    else:
        shown = json.dumps(value)
    if error.validator == "type":
        expected = error.validator_value
        if isinstance(expected, str):
            expected = {"object": "mapping", "array": "list"}.get(expected, expected)
        hint = ""
        if expected == "string" and isinstance(value, bool):
            hint = f'; YAML reads unquoted {str(value).lower()} as a boolean, quote it: "{str(value).lower()}"'
        elif expected == "string" and isinstance(value, (int, float)):
            hint = f'; quote it: "{value}"'
        elif expected == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
            hint = f"; write it unquoted: {value.lower()}"
        decoder = {KUBELET_CONFIGURATION: "the kubelet", KUBELET_CONFIG: "the kubelet",
                   NODE_TOPOLOGY: "numalint"}.get(kind, "the API server")
        return f"{where}: {shown} is not a {expected}; {decoder} fails to decode it{hint}"
    if error.validator == "pattern":
        return f"{where}: {shown} is not a valid value (expected to match {error.validator_value})"
    if error.validator == "anyOf":
        return f"{where}: {shown} is not a valid Kubernetes quantity (e.g. 2, 500m, 1Gi)"
    if error.validator == "oneOf":
        return f"{where}: give exactly one of the alternatives ({error.message.split(' is ', 1)[-1]})"
    if error.validator == "required":
        return f"{where}: {error.message}"
    return f"{where}: {error.message}"
