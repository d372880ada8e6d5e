"""What checks report: located hits, the findings the framework makes of them, and their fixes."""

from __future__ import annotations

from dataclasses import dataclass, field

from numalint.reading.yamlpos import Span

SAFE, UNSAFE, DISPLAY = "safe", "unsafe", "display"
# the other objects a finding names (competing configurations, pools, namespaces); the rest are counted
MAX_NAMED = 10


@dataclass(frozen=True, slots=True)
class ObjectRef:
    """The Kubernetes object a finding is about."""

    api_version: str
    kind: str
    name: str
    namespace: str | None = None
    # the pod template of an object with one per role ("Worker" of a PyTorchJob, a JobSet's replicated job)
    part: str | None = None

    def label(self) -> str:
        ns = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind} {ns}{self.name}" + (f" ({self.part})" if self.part else "")

    def pod_prefix(self) -> str:
        """What the simulation names this workload's pods before their number (``train-worker`` of ``train-worker-0``,
        as the training operators name them)."""
        return f"{self.name}-{self.part.lower()}" if self.part else self.name


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text at ``span`` (1-based, end-exclusive) with ``text``.

    ``expected`` is the value of the scalar at ``span`` as YAML read it, before type resolution and
    without quotes (``Static`` for ``'Static'``); the fixer refuses to write a file where it differs.
    None: only checked to cover one whole YAML node.

    ``string``: ``text`` is a string value rather than YAML; the run writes it in the quoting style of the
    scalar it replaces (``checks/edits.py``), so a JSON file stays JSON and ``'x'`` stays single-quoted.
    """

    span: Span
    text: str
    expected: str | None = None
    string: bool = False


@dataclass(slots=True)
class Fix:
    """A concrete repair. ``safety`` belongs to the fix, not the rule: one rule may offer a safe
    rename and an unsafe guess. A fix without edits can only be shown (``display``)."""

    description: str
    edits: list[Edit] = field(default_factory=list)
    safety: str = DISPLAY

    def __post_init__(self) -> None:
        if not self.edits:
            self.safety = DISPLAY
        elif self.safety == DISPLAY:
            raise ValueError("a fix with edits must say whether it is safe or unsafe")

    def as_hint(self, why: str) -> Fix:
        """This fix as a hint only, saying why it is not applied automatically (a proof refuted it, ``fix`` would
        refuse its edits, it was held back)."""
        return Fix(f"{self.description} -- not offered automatically: {why}")


@dataclass(frozen=True, slots=True)
class Related:
    """Another place a finding depends on: the kubelet configuration or topology that rejects a pod."""

    file: str
    span: Span
    message: str


@dataclass(slots=True)
class Hit:
    """What a check yields: a message at one place; the framework adds the check's rule."""

    message: str
    file: str
    span: Span
    obj: ObjectRef | None = None
    fix: Fix | None = None
    severity: str | None = None  # None: the rule's configured severity
    related: tuple[Related, ...] = ()
    key: str | None = None  # the offending key's path (``spec.cpu.reserved``) when the check knows it


@dataclass(slots=True)
class Finding:
    """One problem at one place in one file, under one rule."""

    rule: str
    message: str
    file: str
    span: Span
    obj: ObjectRef | None = None
    fix: Fix | None = None
    severity: str | None = None  # None: the rule's configured severity
    related: tuple[Related, ...] = ()
    cluster: str | None = None  # the .numalint.yaml cluster the finding belongs to, when clusters are declared
    stream: str | None = None  # "-" when ``file`` names a helm template inside stdin ("# Source:" comments)
    key: str | None = None  # the offending key's path when known (output derives it from the file otherwise)
    justification: str | None = None  # a suppressed finding: the text after "--" of its comment ("" if none)

    @property
    def input(self) -> str:
        """The input the finding's line and column are in: the file, or stdin for a helm stream."""
        return self.stream or self.file

    @classmethod
    def of(cls, rule: str, hit: Hit, cluster: str | None = None) -> Finding:
        return cls(rule, hit.message, hit.file, hit.span, hit.obj, hit.fix, hit.severity, hit.related, cluster,
                   key=hit.key)

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.file, self.span.line, self.span.col, self.rule)


def shorten(message: str, limit: int = 160) -> str:
    """``message`` cut to ``limit`` characters at a word's end, for quoting a finding inside another's hint."""
    if len(message) <= limit:
        return message
    cut = message[:limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:(") + "…"
