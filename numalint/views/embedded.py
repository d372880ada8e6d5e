"""Documents that are not plain objects: templates and patches (``unfinished``), and documents carried as text
inside another object (``EmbeddedDocument``). Apart from the PerformanceProfile view, so the OpenShift checks
can tell them apart without importing that view and the kubelet view it renders into (start-up time)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from numalint.reading.sources import Document

PLACEHOLDER = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")  # a ZTP PolicyGenerator / template variable


def unfinished(node: Any) -> bool:
    """Is this a template or a patch rather than an object: a ``$variable`` (ZTP source CRs,
    PolicyGenTemplate) or a kustomize ``$patch`` directive in a key or a string value?"""
    if isinstance(node, dict):
        return any((isinstance(k, str) and PLACEHOLDER.search(k)) or unfinished(v) for k, v in node.items())
    if isinstance(node, list):
        return any(unfinished(v) for v in node)
    return isinstance(node, str) and PLACEHOLDER.search(node) is not None


@dataclass
class EmbeddedDocument(Document):
    """A document carried as text inside another object (a ConfigMap's ``data.tuning``)."""

    carrier: str = ""  # "ConfigMap <namespace>/<name>"
