"""Applying fixes as text edits at the parser's exact spans.

Everything outside an edit stays byte for byte: comments, quoting, indentation, key order and the
other documents. Edits that overlap are left for a later pass (the file is checked again after each
pass) and reported if they never apply. A file is written only when its text changed, never when it
failed to parse, and always atomically (temporary file in the same directory, renamed over it, mode
kept).
"""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass, field

from numalint.engine import Options, Report, run_check
from numalint.findings import SAFE, UNSAFE, Edit, Finding

MAX_PASSES = 6


@dataclass
class FixResult:
    texts: dict[str, str]  # path -> fixed text, for files that changed
    originals: dict[str, str]
    applied: list[Finding] = field(default_factory=list)
    skipped: list[Finding] = field(default_factory=list)  # fixes whose edits never applied
    broken: list[str] = field(default_factory=list)  # files whose fixed text would not parse: left alone
    report: Report | None = None  # the check after fixing

    def diff(self) -> str:
        chunks: list[str] = []
        for path in sorted(self.texts):
            old, new = (path, path) if os.path.isabs(path) else (f"a/{path}", f"b/{path}")
            chunks.extend(difflib.unified_diff(self.originals[path].splitlines(keepends=True),
                                               self.texts[path].splitlines(keepends=True), fromfile=old, tofile=new))
        return "".join(chunks)


def allowed(finding: Finding, unsafe: bool) -> bool:
    """Each fix says how safe it is: safe fixes always apply, unsafe ones only when asked for."""
    if finding.fix is None or not finding.fix.edits:
        return False
    return finding.fix.safety == SAFE or (unsafe and finding.fix.safety == UNSAFE)


def _offsets(text: str) -> list[int]:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    return starts


def _range(edit: Edit, starts: list[int], length: int) -> tuple[int, int] | None:
    span = edit.span
    if not (1 <= span.line <= len(starts) and 1 <= span.end_line <= len(starts)):
        return None
    begin = starts[span.line - 1] + span.col - 1
    end = starts[span.end_line - 1] + span.end_col - 1
    return (begin, end) if 0 <= begin <= end <= length else None


def apply_edits(text: str, edits: list[tuple[Edit, Finding]]) -> tuple[str, list[Finding], list[Finding]]:
    """Apply the non-overlapping edits; return (text, findings fixed, findings deferred)."""
    starts = _offsets(text)
    placed: list[tuple[int, int, str, Finding]] = []
    deferred: list[Finding] = []
    for edit, finding in edits:
        where = _range(edit, starts, len(text))
        if where is None:
            deferred.append(finding)
            continue
        if text[where[0]:where[1]] == edit.text:
            continue  # already as wanted
        placed.append((where[0], where[1], edit.text, finding))
    placed.sort(key=lambda item: (item[0], item[1]))
    chosen: list[tuple[int, int, str, Finding]] = []
    for item in placed:
        if chosen and item[:3] == chosen[-1][:3]:
            continue  # the same edit proposed twice
        if chosen and item[0] < chosen[-1][1]:
            deferred.append(item[3])  # overlaps: retry after the file is checked again
            continue
        chosen.append(item)
    for begin, end, replacement, _ in reversed(chosen):
        text = text[:begin] + replacement + text[end:]
    fixed = list({id(f): f for *_, f in chosen}.values())
    return text, fixed, deferred


def fix(paths: list[str], options: Options, unsafe: bool = False, stdin_text: str | None = None) -> FixResult:
    """Fix until nothing applicable is left (or MAX_PASSES), checking the files again after each pass."""
    texts: dict[str, str] = {}
    originals: dict[str, str] = {}
    if stdin_text is not None:
        texts["-"] = originals["-"] = stdin_text
    result = FixResult({}, originals)
    deferred: list[Finding] = []
    for _ in range(MAX_PASSES):
        report = run_check(paths, options, texts=texts)
        result.report = report
        per_file: dict[str, list[tuple[Edit, Finding]]] = {}
        for finding in report.findings:
            if allowed(finding, unsafe) and finding.file not in report.unparsed and finding.fix is not None:
                for edit in finding.fix.edits:
                    per_file.setdefault(finding.file, []).append((edit, finding))
        changed = False
        deferred = []
        for path, edits in per_file.items():
            current = texts.get(path)
            if current is None:
                current = _read(path)
                if current is None:
                    continue
                originals[path] = current
            new, fixed, later = apply_edits(current, edits)
            deferred.extend(later)
            if new != current:
                texts[path] = new
                result.applied.extend(fixed)
                changed = True
        if not changed:
            break
    else:
        result.report = run_check(paths, options, texts=texts)
    result.skipped = deferred
    assert result.report is not None
    result.broken = sorted(p for p in texts if p in result.report.unparsed and p in originals)
    result.texts = {p: t for p, t in texts.items() if t != originals.get(p) and p not in result.broken}
    return result


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None


def write_atomically(path: str, text: str) -> None:
    """Replace ``path`` by ``text`` through a temporary file in the same directory; keep its mode and BOM."""
    with open(path, "rb") as handle:
        bom = handle.read(3) == b"\xef\xbb\xbf"
    mode = os.stat(path).st_mode & 0o7777
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(prefix=".numalint-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
