"""CI outputs: GitHub workflow commands (with a readable log and a step summary), GitLab Code Quality, JUnit XML."""

from __future__ import annotations

import os
import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from numalint.catalogue import rule as catalogue_rule
from numalint.findings import Finding
from numalint.output import jsontext
from numalint.output.escape import escape_text, escape_workflow, safe_line_start
from numalint.output.grouping import group_findings
from numalint.output.sarif import artifact_location, fingerprint

if TYPE_CHECKING:
    from numalint.output.context import RenderContext

_WORKFLOW_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _counts(findings: list[Finding], files: int) -> str:
    counts = Counter(f.severity or "error" for f in findings)
    return (f"{files} file(s) checked: {counts['error']} error(s), {counts['warning']} warning(s), "
            f"{counts['info']} info")


def readable_line(f: Finding) -> str:
    """One line a person reads in a CI log: location, severity, rule, message, fix; escaped, and never
    starting with text a runner would act on."""
    fix = f" (fix: {f.fix.description})" if f.fix else ""
    return (f"{safe_line_start(f.file)}:{f.span.line}:{f.span.col}: {f.severity or 'error'} [{f.rule}] "
            f"{escape_text(f.message + fix)}")


def render_github(findings: list[Finding], ctx: RenderContext) -> str:
    """An annotation per finding, the same findings as readable log lines, and a ``::notice`` summary; the
    Markdown table goes to ``$GITHUB_STEP_SUMMARY`` when it is set (see ``write_step_summary``)."""
    findings = group_findings(findings, ctx.sources)
    lines = []
    for f in findings:
        message = f.message + (f" Fix: {f.fix.description}" if f.fix else "")
        lines.append(f"::{_WORKFLOW_LEVEL[f.severity or 'error']} file={escape_workflow(f.file, True)},"
                     f"line={f.span.line},col={f.span.col},endLine={f.span.end_line},endColumn={f.span.end_col},"
                     f"title={escape_workflow('numalint ' + f.rule, True)}::{escape_workflow(message)}")
    lines += [readable_line(f) for f in findings]
    lines.append(f"::notice title=numalint::{escape_workflow(_counts(findings, ctx.files))}")
    return "\n".join(lines) + "\n"


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~@])")


def markdown_cell(text: str) -> str:
    """Text from checked files made inert in a Markdown table cell: escaped controls, every punctuation a
    Markdown or HTML reader acts on backslash-escaped, ``&`` as an entity."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", escape_text(text).replace("&", "&amp;"))


def step_summary(findings: list[Finding], ctx: RenderContext) -> str:
    findings = group_findings(findings, ctx.sources)
    lines = ["### numalint", "", _counts(findings, ctx.files), ""]
    if findings:
        lines += ["| severity | rule | where | finding | fix |", "|---|---|---|---|---|"]
        for f in findings:
            rule = catalogue_rule(f.rule)
            code = rule.code if rule else ""
            lines.append(f"| {f.severity or 'error'} | {code} {markdown_cell(f.rule)} | "
                         f"{markdown_cell(f'{f.file}:{f.span.line}:{f.span.col}')} | {markdown_cell(f.message)} | "
                         f"{markdown_cell(f.fix.description) if f.fix else ''} |")
    return "\n".join(lines) + "\n"


def write_step_summary(findings: list[Finding], ctx: RenderContext) -> None:
    """Append the Markdown summary to the file ``$GITHUB_STEP_SUMMARY`` names, when it is set."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    with open(target, "a", encoding="utf-8", errors="backslashreplace") as handle:
        handle.write(step_summary(findings, ctx))


# GitLab Code Quality: info, minor, major, critical, blocker
_KUBELET_DOWN = frozenset({"kubelet-start", "kubeletconfig-unsupported-field"})


def gitlab_severity(f: Finding) -> str:
    """info -> info, warning -> minor, error -> major; an error that stops a kubelet (or makes the
    machine-config operator refuse its configuration) -> critical; a file that cannot be read at all -> blocker."""
    severity = f.severity or "error"
    if severity != "error":
        return "info" if severity == "info" else "minor"
    rule = catalogue_rule(f.rule)
    if f.rule == "yaml-syntax":
        return "blocker"
    if f.rule in _KUBELET_DOWN or (rule is not None and rule.start_problems) or "refuses to start" in f.message:
        return "critical"
    return "major"


def render_gitlab(findings: list[Finding], ctx: RenderContext) -> str:
    """GitLab Code Quality JSON (a Code Climate subset): what merge requests show."""
    seen: Counter[str] = Counter()
    issues: list[dict[str, Any]] = []
    for f in group_findings(findings, ctx.sources):
        path = artifact_location(f.file, f.stream, ctx.root)[1]
        base = fingerprint(f, path, ctx.sources)
        seen[base] += 1
        issue: dict[str, Any] = {
            "type": "issue", "engine_name": "numalint", "check_name": f.rule,
            "description": f"[{f.rule}] {f.message}", "categories": ["Bug Risk"],
            "fingerprint": f"{base}:{seen[base]}", "severity": gitlab_severity(f),
            "location": {"path": path, "lines": {"begin": f.span.line, "end": max(f.span.end_line, f.span.line)}}}
        if f.fix is not None:
            issue["content"] = {"body": f"Fix: {f.fix.description}"}
        issues.append(issue)
    return jsontext.dumps(issues) + "\n"


def _xml_text(text: str) -> str:
    """Escaped controls (XML 1.0 forbids most of them) and no lone surrogates."""
    return escape_text(text).encode("utf-8", "backslashreplace").decode("utf-8")


def render_junit(findings: list[Finding], ctx: RenderContext) -> str:
    """JUnit XML: one testcase per checked file, a failure per finding (type: the rule)."""
    from xml.etree import ElementTree  # here, not at the top: only JUnit output needs it (start-up time)

    findings = group_findings(findings, ctx.sources)
    by_file: dict[str, list[Finding]] = {}
    for path in ctx.checked:
        by_file.setdefault(path, [])
    for f in findings:
        by_file.setdefault(f.file, []).append(f)
    failed = sum(1 for found in by_file.values() if found)
    suites = ElementTree.Element("testsuites", name="numalint", tests=str(len(by_file)), failures=str(failed),
                                 errors="0")
    suite = ElementTree.SubElement(suites, "testsuite", name="numalint", tests=str(len(by_file)),
                                   failures=str(failed), errors="0", skipped="0")
    for path, found in by_file.items():
        case = ElementTree.SubElement(suite, "testcase", classname="numalint", name=_xml_text(path),
                                      file=_xml_text(path))
        for f in found:
            failure = ElementTree.SubElement(
                case, "failure", type=f.rule,
                message=_xml_text(f"{f.severity or 'error'} [{f.rule}] {f.message}"))
            body = [f"{f.file}:{f.span.line}:{f.span.col}: {f.severity or 'error'} [{f.rule}] {f.message}"]
            body += [f"related: {r.file}:{r.span.line}:{r.span.col}: {r.message}" for r in f.related]
            if f.fix is not None:
                body.append(f"fix: {f.fix.description}")
            failure.text = "\n".join(_xml_text(line) for line in body)
    ElementTree.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(suites, encoding="unicode") + "\n"
