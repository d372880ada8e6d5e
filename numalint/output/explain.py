"""The ``explain`` page of a rule: its documentation and its examples."""

from __future__ import annotations

import textwrap

from numalint.catalogue import Rule
from numalint.output.escape import escape_lines


def render_rule(rule: Rule) -> str:
    parts = [f"{rule.code} {rule.slug} ({rule.severity}, {rule.category})", "", rule.summary, "",
             "Why", textwrap.indent(rule.rationale, "  "), "", "How to fix",
             textwrap.indent(rule.how_to_fix, "  "), f"  Automatic fix: {rule.fix_safety}"]
    if rule.references:
        parts += ["", "References"] + [f"  - {r}" for r in rule.references]
    for example in rule.examples:
        verdict = "Bad" if example.get("expect", "bad") == "bad" else "Good"
        parts += ["", f"{verdict}: {example.get('description', '')}".rstrip(": ")]
        for name, text in (example.get("files") or {}).items():
            parts += [f"  # {name}", textwrap.indent(str(text).rstrip("\n"), "  ")]
    return escape_lines("\n".join(parts))  # rule files may be edited by anyone: keep them inert too
