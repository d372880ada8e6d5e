"""Rendering findings: text and JSON here; SARIF 2.1.0 in ``sarif``; GitHub, GitLab and JUnit in ``ci``."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from numalint import __version__
from numalint.catalogue import rule as catalogue_rule
from numalint.findings import Finding
from numalint.output import ci, jsontext, sarif
from numalint.output.context import RenderContext
from numalint.output.escape import escape_text, safe_line_start
from numalint.output.grouping import group_findings
from numalint.output.sources import SourceFiles

JSON_FORMAT_VERSION = 1
_COLOURS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
_RESET, _DIM, _BOLD, _CYAN = "\033[0m", "\033[2m", "\033[1m", "\033[36m"


def summary(findings: list[Finding], files: int) -> dict[str, Any]:
    counts = Counter(f.severity for f in findings)
    return {"files": files, "findings": len(findings), "error": counts.get("error", 0),
            "warning": counts.get("warning", 0), "info": counts.get("info", 0)}


# heads that only name something ('container "app"', the kubelet's "invalid configuration"): the reason comes later
_NAME_ONLY = re.compile(r'[\w.-]+ "[^"]*"|invalid configuration', re.IGNORECASE)


def split_message(message: str) -> tuple[str, str | None]:
    """A message as headline and reason: split at the first ``": "`` or ``"; "`` outside quotes and brackets
    whose head is more than a bare field path (``reservedSystemCPUs: 0 is not a string`` stays together) and
    whose rest does not start with a quoted value (``unknown option: "x"`` stays together), nor a head that
    only names something (``container "app": ...``)."""
    depth, quoted = 0, False
    for i, char in enumerate(message):
        if char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and char in ":;" and message[i + 1:i + 2] == " ":
            head, rest = message[:i].strip(), message[i + 2:].strip()
            if " " in head and not rest.startswith('"') and not _NAME_ONLY.fullmatch(head):
                return head, rest or None
    return message, None


def object_label(f: Finding) -> str | None:
    if f.obj is None:
        return None
    return f.obj.kind if f.obj.name in ("", "<unnamed>") else f.obj.label()


def _headline(f: Finding) -> tuple[str, str | None]:
    headline, why = split_message(f.message)
    label = object_label(f)
    if label and f.obj is not None and not any(
            name.lower() in headline.lower() for name in (label, f.obj.label(), f"{f.obj.kind} {f.obj.name}")):
        headline = f"{label}: {headline}"
    return headline, why


def source_excerpt(f: Finding, sources: SourceFiles) -> list[str]:
    """The finding's first line with a caret under its span, ruff style; escaped like every file content."""
    text = sources.line(f.input, f.span.line)
    if text is None:
        return []
    start = max(0, min(f.span.col - 1, len(text)))
    end = f.span.end_col - 1 if f.span.end_line == f.span.line else len(text)
    end = max(start + 1, min(end, len(text)))
    shown, prefix, marked = escape_text(text), escape_text(text[:start]), escape_text(text[start:end])
    gutter = " " * len(str(f.span.line))
    return [f"  {gutter} |", f"  {f.span.line} | {shown}", f"  {gutter} | {' ' * len(prefix)}{'^' * len(marked)}"]


def render_text(findings: list[Finding], files: int | RenderContext, colour: bool = False) -> str:
    """A headline per finding (location, severity, rule, the object), the reason on ``why:``, the fix on ``fix:``;
    per-replica repeats grouped. Text from the checked files is escaped, numalint's colours are not."""
    ctx = files if isinstance(files, RenderContext) else RenderContext(files, colour=colour)
    return "".join(text_chunks(findings, ctx))


def text_chunks(findings: list[Finding], ctx: RenderContext) -> Iterator[str]:
    """``render_text`` a finding at a time, so a long report is written without being held whole."""
    colour = ctx.colour
    findings = group_findings(findings, ctx.sources)

    def paint(code: str, text: str) -> str:
        return f"{code}{text}{_RESET}" if colour else text

    for f in findings:
        lines = []
        severity = f.severity or "error"
        file = safe_line_start(f.file)
        headline, why = _headline(f)
        cluster = f" (cluster {escape_text(f.cluster)})" if f.cluster else ""
        if f.stream:
            cluster += " (line and column in the helm stream on stdin)"
        lines.append(f"{paint(_BOLD, f'{file}:{f.span.line}:{f.span.col}:')} {paint(_COLOURS[severity], severity)} "
                     f"{paint(_DIM, f'[{f.rule}]')} {escape_text(headline)}{cluster}")
        if ctx.show_source:
            lines.extend(source_excerpt(f, ctx.sources))
        if why:
            lines.append(f"  {paint(_DIM, 'why:')} {escape_text(why)}")
        for related in f.related:
            lines.append(f"  {paint(_DIM, 'related:')} {escape_text(related.file)}:{related.span.line}:"
                         f"{related.span.col}: {escape_text(related.message)}")
        if f.fix is not None:
            lines.append(f"  {paint(_CYAN, 'fix:')} {escape_text(f.fix.description)}")
        yield "".join(line + "\n" for line in lines)
    if not ctx.quiet:
        s = summary(findings, ctx.files)
        yield (f"{s['files']} file(s) checked: {s['error']} error(s), {s['warning']} warning(s), "
               f"{s['info']} info\n")


def finding_dict(f: Finding) -> dict[str, Any]:
    rule = catalogue_rule(f.rule)
    fix = None
    if f.fix is not None:
        fix = {"description": f.fix.description, "safety": f.fix.safety,
               "edits": [{"line": e.span.line, "column": e.span.col, "end_line": e.span.end_line,
                          "end_column": e.span.end_col, "text": e.text} for e in f.fix.edits]}
    obj = None
    if f.obj is not None:
        obj = {"apiVersion": f.obj.api_version, "kind": f.obj.kind, "name": f.obj.name,
               "namespace": f.obj.namespace}
        if f.obj.part is not None:  # the pod template of an object with one per role ("Worker")
            obj["part"] = f.obj.part
    related = [{"file": r.file, "line": r.span.line, "column": r.span.col, "message": r.message}
               for r in f.related]
    return {"rule": f.rule, "code": rule.code if rule else None, "severity": f.severity, "message": f.message,
            "file": f.file, "line": f.span.line, "column": f.span.col, "end_line": f.span.end_line,
            "end_column": f.span.end_col, "object": obj, "fix": fix, "related": related, "cluster": f.cluster,
            "stream": f.stream}


def render_json(findings: list[Finding], files: int) -> str:
    return "".join(json_chunks(findings, files))


def json_chunks(findings: list[Finding], files: int) -> Iterator[str]:
    """The JSON report a finding at a time: byte for byte ``json.dumps(report, indent=2)``, without building
    the whole document (its dicts and the pure-Python encoder's pieces took ~20 MiB for 4,400 findings)."""
    document = {"version": JSON_FORMAT_VERSION, "tool": {"name": "numalint", "version": __version__},
                "findings": [], "summary": summary(findings, files)}
    text = jsontext.dumps(document) + "\n"
    if not findings:
        yield text
        return
    head, tail = text.split('"findings": []', 1)  # the only empty list of the document
    yield head + '"findings": [\n'
    last = len(findings) - 1
    for i, f in enumerate(findings):  # each item at depth 2: its lines indented by four more spaces
        yield "    " + jsontext.indented(finding_dict(f), "    ") + (",\n" if i < last else "\n")
    yield "  ]" + tail


def render_chunks(output_format: str, findings: list[Finding], ctx: RenderContext) -> Iterator[str]:
    """``render`` in pieces to write one after another (text and JSON a finding at a time)."""
    if output_format == "text":
        return text_chunks(findings, ctx)
    if output_format == "json":
        return json_chunks(findings, ctx.files)
    return iter((render(output_format, findings, ctx),))


def render(output_format: str, findings: list[Finding], ctx: RenderContext) -> str:
    """Findings in one of FORMATS."""
    if output_format == "text":
        return render_text(findings, ctx)
    if output_format == "json":
        return render_json(findings, ctx.files)
    renderer = {"sarif": sarif.render_sarif, "github": ci.render_github, "gitlab": ci.render_gitlab,
                "junit": ci.render_junit}[output_format]
    return renderer(findings, ctx)


FORMATS = ("text", "json", "sarif", "github", "gitlab", "junit")
