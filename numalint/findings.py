"""What a check reports: findings, their fixes and the objects they concern."""

from __future__ import annotations

from dataclasses import dataclass, field

from numalint.reading.yamlpos import Span


@dataclass(frozen=True)
class ObjectRef:
    """The Kubernetes object a finding is about."""

    api_version: str
    kind: str
    name: str
    namespace: str | None = None

    def label(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {ns}{self.name}"


@dataclass(frozen=True)
class Edit:
    """Replace the text at ``span`` (1-based, end-exclusive) with ``text``.

    ``expected`` is the value of the scalar at ``span`` as YAML read it, before type resolution and
    without quotes (``Static`` for ``'Static'``); the fixer refuses to write a file where it differs.
    None: only checked to cover one whole YAML node.
    """

    span: Span
    text: str
    expected: str | None = None


@dataclass
class Fix:
    """A concrete repair; ``edits`` is empty when the fix can only be described."""

    description: str
    edits: list[Edit] = field(default_factory=list)


@dataclass
class Finding:
    """One problem at one place in one file."""

    rule: str
    message: str
    file: str
    span: Span
    obj: ObjectRef | None = None
    fix: Fix | None = None
    severity: str | None = None  # None: the rule's configured severity

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.file, self.span.line, self.span.col, self.rule)
