"""Rendering findings: text, JSON, SARIF 2.1.0 and GitHub workflow commands."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

from numalint import __version__
from numalint.catalogue import Rule, catalogue
from numalint.findings import Finding
from numalint.output.escape import escape_text, escape_workflow, path_uri, safe_line_start

JSON_FORMAT_VERSION = 1
_COLOURS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
_RESET, _DIM, _BOLD = "\033[0m", "\033[2m", "\033[1m"


def summary(findings: list[Finding], files: int) -> dict[str, Any]:
    counts = Counter(f.severity for f in findings)
    return {"files": files, "findings": len(findings), "error": counts.get("error", 0),
            "warning": counts.get("warning", 0), "info": counts.get("info", 0)}


def render_text(findings: list[Finding], files: int, colour: bool) -> str:
    """One line per finding (plus its fix); text from the checked files is escaped, numalint's colours are not."""
    lines = []
    for f in findings:
        severity = f.severity or "error"
        file, message = safe_line_start(f.file), escape_text(f.message)
        if colour:
            head = f"{_BOLD}{file}:{f.span.line}:{f.span.col}:{_RESET} {_COLOURS[severity]}{severity}{_RESET}"
            slug = f"{_DIM}[{f.rule}]{_RESET}"
        else:
            head, slug = f"{file}:{f.span.line}:{f.span.col}: {severity}", f"[{f.rule}]"
        cluster = f" (cluster {escape_text(f.cluster)})" if f.cluster else ""
        if f.stream:
            cluster += " (line and column in the helm stream on stdin)"
        lines.append(f"{head} {slug} {message}{cluster}")
        for related in f.related:
            lines.append(f"  related: {escape_text(related.file)}:{related.span.line}:{related.span.col}: "
                         f"{escape_text(related.message)}")
        if f.fix is not None:
            lines.append(f"  fix: {escape_text(f.fix.description)}")
    s = summary(findings, files)
    lines.append(f"{s['files']} file(s) checked: {s['error']} error(s), {s['warning']} warning(s), "
                 f"{s['info']} info")
    return "\n".join(lines) + "\n"


def finding_dict(f: Finding) -> dict[str, Any]:
    rule = catalogue().get(f.rule)
    fix = None
    if f.fix is not None:
        fix = {"description": f.fix.description, "safety": f.fix.safety,
               "edits": [{"line": e.span.line, "column": e.span.col, "end_line": e.span.end_line,
                          "end_column": e.span.end_col, "text": e.text} for e in f.fix.edits]}
    obj = None
    if f.obj is not None:
        obj = {"apiVersion": f.obj.api_version, "kind": f.obj.kind, "name": f.obj.name,
               "namespace": f.obj.namespace}
    related = [{"file": r.file, "line": r.span.line, "column": r.span.col, "message": r.message}
               for r in f.related]
    return {"rule": f.rule, "code": rule.code if rule else None, "severity": f.severity, "message": f.message,
            "file": f.file, "line": f.span.line, "column": f.span.col, "end_line": f.span.end_line,
            "end_column": f.span.end_col, "object": obj, "fix": fix, "related": related, "cluster": f.cluster,
            "stream": f.stream}


def render_json(findings: list[Finding], files: int) -> str:
    return json.dumps({"version": JSON_FORMAT_VERSION, "tool": {"name": "numalint", "version": __version__},
                       "findings": [finding_dict(f) for f in findings], "summary": summary(findings, files)},
                      indent=2) + "\n"


_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _sarif_rule(rule: Rule) -> dict[str, Any]:
    return {"id": rule.slug, "name": rule.slug, "shortDescription": {"text": rule.summary.splitlines()[0]},
            "fullDescription": {"text": rule.rationale},
            "help": {"text": f"{rule.rationale}\n\nHow to fix: {rule.how_to_fix}",
                     "markdown": f"**{rule.code} {rule.slug}**\n\n{rule.rationale}\n\n"
                                 f"**How to fix:** {rule.how_to_fix}"},
            "defaultConfiguration": {"level": _SARIF_LEVEL[rule.severity]},
            "properties": {"code": rule.code, "category": rule.category}}


def render_sarif(findings: list[Finding], files: int) -> str:
    rules = list(catalogue().values())
    index = {r.slug: i for i, r in enumerate(rules)}
    results = []
    for f in findings:
        result: dict[str, Any] = {
            "ruleId": f.rule, "level": _SARIF_LEVEL[f.severity or "error"],
            "message": {"text": f.message + (f"\nFix: {f.fix.description}" if f.fix else "")},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": path_uri(f.file, os.sep)},
                "region": {"startLine": f.span.line, "startColumn": f.span.col,
                           "endLine": f.span.end_line, "endColumn": max(f.span.end_col, 1)}}}],
        }
        if f.related:
            result["relatedLocations"] = [
                {"id": i, "message": {"text": r.message}, "physicalLocation": {
                    "artifactLocation": {"uri": r.file.replace("\\", "/").removeprefix("./")},
                    "region": {"startLine": r.span.line, "startColumn": r.span.col}}}
                for i, r in enumerate(f.related)]
        if f.cluster:
            result["properties"] = {"cluster": f.cluster}
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        results.append(result)
    log = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
           "runs": [{"tool": {"driver": {"name": "numalint", "version": __version__,
                                         "informationUri": "https://github.com/numalint/numalint",
                                         "rules": [_sarif_rule(r) for r in rules]}},
                     "results": results}]}
    return json.dumps(log, indent=2) + "\n"


def render_github(findings: list[Finding], files: int) -> str:
    level = {"error": "error", "warning": "warning", "info": "notice"}
    lines = []
    for f in findings:
        message = f.message + (f" Fix: {f.fix.description}" if f.fix else "")
        lines.append(f"::{level[f.severity or 'error']} file={escape_workflow(f.file, True)},line={f.span.line},"
                     f"col={f.span.col},endLine={f.span.end_line},endColumn={f.span.end_col},"
                     f"title={escape_workflow('numalint ' + f.rule, True)}::{escape_workflow(message)}")
    return "\n".join(lines) + ("\n" if lines else "")


RENDERERS = {"json": render_json, "sarif": render_sarif, "github": render_github}
