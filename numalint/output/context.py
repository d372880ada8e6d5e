"""What a renderer may need beyond the findings (one home, so every output module can use it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from numalint.findings import Finding
from numalint.output.sources import SourceFiles


@dataclass
class RenderContext:
    """What a renderer may need beyond the findings: the run's files, the findings suppressions silenced (SARIF
    shows them), where paths are relative to, and how the terminal wants text."""

    files: int
    checked: Sequence[str] = field(default_factory=list)  # (a ``PathList`` in a streamed run)
    suppressed: list[Finding] = field(default_factory=list)
    root: str | None = None  # the repository root, absolute (SARIF %SRCROOT%, GitLab paths)
    docs_url: str | None = None  # docsUrl: of the configuration
    colour: bool = False
    show_source: bool = False
    quiet: bool = False  # --quiet: the findings only, no summary line
    notification: str | None = None  # why nothing could be checked
    sources: SourceFiles = field(default_factory=SourceFiles)
