"""Per-document input checks run while a file is read: schema and unknown fields."""

from __future__ import annotations

import difflib
from typing import Any

from numalint.findings import SAFE, Edit, Finding, Fix, ObjectRef
from numalint.k8s.kinds import KUBELET_CONFIG, KUBELET_CONFIGURATION, SCHEMA_FILES
from numalint.reading.locate import Path, get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import YMap
from numalint.views.schema import conforms, kubelet_field_names, load_schema, validate_document

# kind -> the mappings whose keys must be fields the kind's JSON schema (schemas/) declares at that path.
# A custom resource's unknown field is pruned by the API server (kubectl only warns), so it never applies.
UNKNOWN_FIELD_PATHS: dict[str, tuple[Path, ...]] = {
    "SriovNetworkNodePolicy": (("spec",), ("spec", "nicSelector")),
    "SriovNetwork": (("spec",),),
    "SriovIBNetwork": (("spec",),),
    "OVSNetwork": (("spec",),),
}
# (kind, path) -> (selector fields of which one must survive pruning, who rejects the object when none does,
# what a pruned selector field costs when others remain)
REQUIRED_ONE_OF: dict[tuple[str, Path], tuple[tuple[str, ...], str, str]] = {
    ("SriovNetworkNodePolicy", ("spec", "nicSelector")): (
        ("vendor", "deviceID", "pfNames", "rootDevices", "netFilter"), "the operator webhook rejects the policy",
        "the policy then configures every NIC the rest of spec.nicSelector matches"),
}


def input_findings(doc: Document) -> list[Finding]:
    findings = validate_document(doc)
    ref = _ref(doc)
    if doc.kind == KUBELET_CONFIGURATION:
        findings.extend(_unknown_kubelet_fields(doc, doc.root, (), case_insensitive=False))
    elif doc.kind == KUBELET_CONFIG:
        embedded = get(doc.root, ("spec", "kubeletConfig"))
        if isinstance(embedded, YMap):
            findings.extend(_unknown_kubelet_fields(doc, embedded, ("spec", "kubeletConfig"), case_insensitive=True))
    findings.extend(unknown_fields(doc))
    for finding in findings:
        finding.obj = ref
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


def _schema_at(schema: dict[str, Any], path: Path) -> dict[str, Any] | None:
    node: Any = schema
    for step in path:
        node = node.get("properties", {}).get(step) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def unknown_fields(doc: Document) -> list[Finding]:
    """Keys of ``UNKNOWN_FIELD_PATHS`` mappings that the kind's schema does not declare, with the closest
    declared field (a safe rename when the value fits that field's type)."""
    findings: list[Finding] = []
    schema_file = SCHEMA_FILES.get(doc.kind)
    if schema_file is None:
        return findings
    schema = load_schema(schema_file)
    for path in UNKNOWN_FIELD_PATHS.get(doc.kind, ()):
        node = get(doc.root, path)
        declared = _schema_at(schema, path)
        if not isinstance(node, YMap) or declared is None or "properties" not in declared:
            continue
        properties: dict[str, Any] = declared["properties"]
        known = frozenset(properties)
        unknown = [k for k in node if isinstance(k, str) and k not in known]
        if not unknown:
            continue
        required, rejecter, widened = REQUIRED_ONE_OF.get((doc.kind, path), ((), "", ""))
        emptied = bool(required) and not any(k in node for k in required)
        where = ".".join(path)
        for key in unknown:
            span = node.key_spans[key]
            message = (f'unknown field "{where}.{key}": the API server prunes fields the {doc.kind} schema does not '
                       "declare (kubectl only warns), so this setting never applies")
            if emptied:
                message += f"; {where} is then left without any of {', '.join(required)}, and {rejecter}"
            suggestion = closest_field(key, known)
            if not emptied and suggestion in required:
                message += f"; {widened}"
            fix = None
            if suggestion and suggestion not in node:
                message += f'; did you mean "{suggestion}"?'
                if conforms(node[key], properties[suggestion], schema):
                    fix = Fix(f'rename "{key}" to "{suggestion}"', [Edit(span, suggestion)], SAFE)
                else:
                    fix = Fix(f'rename "{key}" to "{suggestion}" and give it the value that field takes')
            findings.append(Finding("unknown-field", message, doc.file, span, fix=fix,
                                    severity="error" if emptied else None))
    return findings
