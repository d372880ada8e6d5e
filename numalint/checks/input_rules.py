"""Per-document input checks run while a file is read: schema and unknown fields."""

from __future__ import annotations

import difflib

from numalint.findings import SAFE, Edit, Finding, Fix, ObjectRef
from numalint.k8s.kinds import KUBELET_CONFIG, KUBELET_CONFIGURATION
from numalint.reading.locate import Path, get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import YMap
from numalint.views.schema import kubelet_field_names, validate_document


def input_findings(doc: Document) -> list[Finding]:
    findings = validate_document(doc)
    ref = _ref(doc)
    if doc.kind == KUBELET_CONFIGURATION:
        findings.extend(_unknown_kubelet_fields(doc, doc.root, (), case_insensitive=False))
    elif doc.kind == KUBELET_CONFIG:
        embedded = get(doc.root, ("spec", "kubeletConfig"))
        if isinstance(embedded, YMap):
            findings.extend(_unknown_kubelet_fields(doc, embedded, ("spec", "kubeletConfig"), case_insensitive=True))
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
            fix = Fix(f'rename "{key}" to "{suggestion}"', [Edit(span, suggestion, key)], SAFE)
        findings.append(Finding("unknown-field", message, doc.file, span, fix=fix))
    for key, span in config.duplicates:
        findings.append(Finding("unknown-field", f'duplicate field "{key}": the kubelet keeps only the last one',
                                doc.file, span, fix=Fix(f'remove one of the "{key}" entries')))
    return findings
