"""SARIF 2.1.0 for GitHub code scanning (and any SARIF viewer).

Paths are relative to the repository root (``%SRCROOT%``, declared in ``originalUriBaseIds``) whatever the
working directory; ``partialFingerprints`` keep an alert the same across unrelated edits; suppressed findings are
results with an ``inSource`` suppression; each rule's ``help.markdown`` is its ``explain`` page.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from numalint import __version__
from numalint.catalogue import Rule, catalogue
from numalint.findings import Finding
from numalint.output import jsontext
from numalint.output.escape import path_uri
from numalint.output.grouping import group_findings
from numalint.output.sources import SourceFiles, normalised, relative_to_root

if TYPE_CHECKING:
    from numalint.output.context import RenderContext

SRCROOT = "%SRCROOT%"
FINGERPRINT = "numalint/v1"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def help_uri(docs_url: str | None, rule: Rule) -> str | None:
    """``docsUrl`` with ``{slug}`` / ``{code}`` filled in; without either, the slug appended as a path segment."""
    if not docs_url:
        return None
    if "{slug}" in docs_url or "{code}" in docs_url:
        return docs_url.replace("{slug}", rule.slug).replace("{code}", rule.code)
    return docs_url.rstrip("/") + "/" + rule.slug


def _fence(text: str, info: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{info}\n{text.rstrip()}\n{ticks}"


def help_markdown(rule: Rule) -> str:
    """What ``numalint explain`` shows, as Markdown: why, how to fix, references, bad and good examples."""
    parts = [f"**{rule.code} {rule.slug}** ({rule.severity}, {rule.category})", rule.summary, "### Why",
             rule.rationale, "### How to fix", rule.how_to_fix, f"Automatic fix: {rule.fix_safety}"]
    if rule.references:
        parts += ["### References", "\n".join(f"- <{r}>" if "://" in r else f"- {r}" for r in rule.references)]
    for example in rule.examples:
        verdict = "Bad" if example.get("expect", "bad") == "bad" else "Good"
        description = str(example.get("description") or "").strip()
        parts.append(f"### {verdict}" + (f": {description}" if description else ""))
        for name, text in (example.get("files") or {}).items():
            parts += [f"`{name}`", _fence(str(text), "yaml")]
    return "\n\n".join(parts)


def _rule(rule: Rule, docs_url: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": rule.slug, "name": rule.slug, "shortDescription": {"text": rule.summary.splitlines()[0]},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": f"{rule.rationale}\n\nHow to fix: {rule.how_to_fix}", "markdown": help_markdown(rule)},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"code": rule.code, "category": rule.category, "tags": [rule.category, rule.code]}}
    uri = help_uri(docs_url, rule)
    if uri:
        entry["helpUri"] = uri
    return entry


def artifact_location(file: str, stream: str | None, root: str | None) -> tuple[dict[str, Any], str]:
    """The artifactLocation of a file and the path fingerprints use: relative to %SRCROOT% when the file is
    inside the root; as given otherwise (stdin ``-``, a helm ``# Source:`` name, a file outside the root)."""
    relative = relative_to_root(file, root) if root and not stream else None
    if relative is not None:
        return {"uri": path_uri(relative), "uriBaseId": SRCROOT}, relative
    return {"uri": path_uri(file.replace("\\", "/"))}, file


def fingerprint(f: Finding, path: str, sources: SourceFiles) -> str:
    """rule, file (relative to the root), object identity and the offending key's path (the message with
    its numbers blanked when the key is unknown): no line number, so unrelated edits keep it."""
    obj = f"{f.obj.api_version.split('/')[0]}|{f.obj.kind}|{f.obj.namespace or ''}|{f.obj.name}" if f.obj else ""
    if f.obj is not None and f.obj.part is not None:
        obj += f"|{f.obj.part}"
    key = sources.key_path(f) or normalised(f.message)
    import hashlib  # here, not at the top: only SARIF output needs it (OpenSSL's start-up, ~3 ms per run)

    return hashlib.sha256("\0".join((f.rule, path, obj, key, f.cluster or "")).encode("utf-8", "surrogatepass")
                          ).hexdigest()[:32]


def _result(f: Finding, ctx: RenderContext, index: dict[str, int], seen: Counter[str]) -> dict[str, Any]:
    location, path = artifact_location(f.file, f.stream, ctx.root)
    result: dict[str, Any] = {
        "ruleId": f.rule, "level": _LEVEL[f.severity or "error"],
        "message": {"text": f.message + (f"\nFix: {f.fix.description}" if f.fix else "")},
        "locations": [{"physicalLocation": {
            "artifactLocation": location,
            "region": {"startLine": f.span.line, "startColumn": f.span.col,
                       "endLine": f.span.end_line, "endColumn": max(f.span.end_col, 1)}}}],
    }
    if f.rule in index:
        result["ruleIndex"] = index[f.rule]
    base = fingerprint(f, path, ctx.sources)
    seen[base] += 1  # two findings of one rule on one key of one object: told apart by their order
    result["partialFingerprints"] = {FINGERPRINT: f"{base}:{seen[base]}"}
    if f.related:
        result["relatedLocations"] = [
            {"id": i, "message": {"text": r.message}, "physicalLocation": {
                "artifactLocation": artifact_location(r.file, None, ctx.root)[0],
                "region": {"startLine": r.span.line, "startColumn": r.span.col}}}
            for i, r in enumerate(f.related)]
    properties: dict[str, Any] = {}
    if f.cluster:
        properties["cluster"] = f.cluster
    if f.obj is not None:
        properties["object"] = f.obj.label()
    if properties:
        result["properties"] = properties
    if f.justification is not None:
        suppression: dict[str, Any] = {"kind": "inSource", "status": "accepted"}
        if f.justification:
            suppression["justification"] = f.justification
        result["suppressions"] = [suppression]
    return result


def render_sarif(findings: list[Finding], ctx: RenderContext) -> str:
    rules = list(catalogue().values())
    index = {r.slug: i for i, r in enumerate(rules)}
    seen: Counter[str] = Counter()
    shown = group_findings(findings, ctx.sources) + group_findings(ctx.suppressed, ctx.sources)
    results = [_result(f, ctx, index, seen) for f in shown]
    invocation: dict[str, Any] = {"executionSuccessful": ctx.notification is None}
    if ctx.notification is not None:
        invocation["toolExecutionNotifications"] = [{"level": "error", "message": {"text": ctx.notification},
                                                     "descriptor": {"id": "nothing-checked"}}]
    run: dict[str, Any] = {
        "tool": {"driver": {"name": "numalint", "version": __version__, "semanticVersion": __version__,
                            "informationUri": "https://github.com/numalint/numalint",
                            "rules": [_rule(r, ctx.docs_url) for r in rules]}},
        # columns count characters (Unicode code points), as libyaml and editors do: said, so that consumers
        # defaulting to UTF-16 code units do not shift a column per astral character before it
        "columnKind": "unicodeCodePoints", "invocations": [invocation], "results": results}
    if ctx.root:
        uri = path_uri(ctx.root.rstrip("/\\") + "/", "\\" if "\\" in ctx.root else "/")
        run["originalUriBaseIds"] = {SRCROOT: {"uri": uri if uri.startswith("file:") else "file://" + uri}}
    log = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}
    return jsontext.dumps(log) + "\n"
