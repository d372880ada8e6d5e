"""Per-document input checks run while a file is read: schema and unknown fields."""

from __future__ import annotations

import difflib
import re
from typing import Any

from numalint.findings import SAFE, Edit, Finding, Fix, ObjectRef
from numalint.k8s.kinds import KUBELET_CONFIG, KUBELET_CONFIGURATION, NODE_TOPOLOGY, PERFORMANCE_PROFILE
from numalint.reading.locate import Path, get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import YMap, YSeq
from numalint.views.schema import kubelet_field_names, load_schema, validate_document

# kind -> (schema whose properties are the known fields, where they start, who drops an unknown one);
# spec.kubeletConfig has no properties in its schema and keeps the kubelet's own check below
UNKNOWN_FIELDS: dict[str, tuple[str, Path, str]] = {
    PERFORMANCE_PROFILE: ("performanceprofile.schema.json", ("spec",), "the API server prunes it"),
    KUBELET_CONFIG: ("kubeletconfig.schema.json", ("spec",), "the API server prunes it"),
    NODE_TOPOLOGY: ("nodetopology.schema.json", ("spec",), "numalint ignores it"),
}


# a schema complaint about a template variable ("$count" is not a integer): the file is a template
# (ZTP PolicyGenerator source CRs), not the object; the value is filled in later
_PLACEHOLDER_VALUE = re.compile(r': "\$\{?[A-Za-z_][A-Za-z0-9_]*\}?" is not ')


def input_findings(doc: Document) -> list[Finding]:
    findings = [f for f in validate_document(doc) if not _PLACEHOLDER_VALUE.search(f.message)]
    ref = _ref(doc)
    if doc.kind == KUBELET_CONFIGURATION:
        findings.extend(_unknown_kubelet_fields(doc, doc.root, (), case_insensitive=False))
    elif doc.kind == KUBELET_CONFIG:
        embedded = get(doc.root, ("spec", "kubeletConfig"))
        if isinstance(embedded, YMap):
            findings.extend(_unknown_kubelet_fields(doc, embedded, ("spec", "kubeletConfig"), case_insensitive=True))
    if doc.kind in UNKNOWN_FIELDS:
        schema, base, who = UNKNOWN_FIELDS[doc.kind]
        loaded = load_schema(schema)
        unknown = _unknown_fields(doc, get(doc.root, base), _at(loaded, base), base, who)
        keys = {f.message.split('"')[1] for f in unknown}  # the schema's "additional properties" error says less
        findings = [f for f in findings if not (f.rule == "schema" and "Additional properties" in f.message
                                                and any(f"'{k}'" in f.message for k in keys))] + unknown
    for finding in findings:
        finding.obj = ref
    return findings


def _at(schema: dict[str, Any], path: Path) -> dict[str, Any]:
    for step in path:
        schema = schema.get("properties", {}).get(step, {})
    return schema


def _unknown_fields(doc: Document, node: Any, schema: dict[str, Any], path: Path, who: str) -> list[Finding]:
    """Keys the schema's ``properties`` do not name (maps with ``additionalProperties`` schemas are free)."""
    if isinstance(node, YSeq):
        items = schema.get("items", {})
        return [f for i, item in enumerate(node) for f in _unknown_fields(doc, item, items, path + (i,), who)]
    if not isinstance(node, YMap):
        return []
    schema = next((s for s in schema.get("anyOf", []) if "properties" in s), schema)
    known = schema.get("properties")
    if not known:
        return []
    findings = []
    for key, value in node.items():
        if key in known:
            findings.extend(_unknown_fields(doc, value, known[key], path + (key,), who))
            continue
        if not isinstance(key, str) or isinstance(schema.get("additionalProperties"), dict):
            continue
        span = node.key_spans[key]
        suggestion = closest_field(key, frozenset(known))
        where = ".".join(str(p) for p in path)
        message = f'unknown field "{key}" in {where}: {who}, so this setting never applies'
        fix = None
        if suggestion and suggestion not in node:
            message += f'; did you mean "{suggestion}"?'
            fix = Fix(f'rename "{key}" to "{suggestion}"', [Edit(span, suggestion)], SAFE)
        findings.append(Finding("unknown-field", message, doc.file, span, fix=fix))
    return findings


def _ref(doc: Document) -> ObjectRef:
    name = get(doc.root, ("metadata", "name"))
    namespace = get(doc.root, ("metadata", "namespace"))
    return ObjectRef(doc.api_version, doc.kind, str(name) if name is not None else "<unnamed>",
                     str(namespace) if namespace is not None else None)


def closest_field(key: str, known: frozenset[str]) -> str | None:
    """The known field a misspelt key most likely meant."""
    lowered = {k.lower(): k for k in known}
    if key.lower() in lowered:
        return lowered[key.lower()]
    match = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
    if match:
        return match[0]
    match = difflib.get_close_matches(key.lower(), sorted(lowered), n=1, cutoff=0.75)
    return lowered[match[0]] if match else None


def _unknown_kubelet_fields(doc: Document, config: YMap, base: Path, case_insensitive: bool) -> list[Finding]:
    known = kubelet_field_names()
    lowered = {k.lower() for k in known}
    findings = []
    who = "the machine-config operator drops it" if case_insensitive else "the kubelet ignores it"
    for key in config:
        if not isinstance(key, str) or key in known:
            continue
        if case_insensitive and key.lower() in lowered:
            continue
        span = config.key_spans[key]
        suggestion = closest_field(key, known)
        message = f'unknown field "{key}": {who}, so this setting never applies'
        fix = None
        if suggestion and suggestion not in config:
            message += f'; did you mean "{suggestion}"?'
            fix = Fix(f'rename "{key}" to "{suggestion}"', [Edit(span, suggestion)], SAFE)
        findings.append(Finding("unknown-field", message, doc.file, span, fix=fix))
    for key, span in config.duplicates:
        findings.append(Finding("unknown-field", f'duplicate field "{key}": the kubelet keeps only the last one',
                                doc.file, span, fix=Fix(f'remove one of the "{key}" entries')))
    return findings
