"""The rule catalogue: one YAML file per rule under ``rules/``.

Rules are data (code, severity, documentation, examples) plus a check
function registered under the same slug in ``numalint.checks``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from pathlib import Path
from typing import Any

from numalint.data import data_dir
from numalint.findings import Finding
from numalint.reading.yamlpos import Span, load_all


@dataclass(frozen=True)
class Rule:
    """One catalogue entry, as written in ``rules/<slug>.yaml``."""

    slug: str
    code: str
    severity: str
    category: str
    summary: str
    rationale: str
    how_to_fix: str
    fix_safety: str
    references: tuple[str, ...]
    # the alignment core's start-up problem reasons this rule reports (the rest go to kubelet-start)
    start_problems: tuple[str, ...] = ()
    # the ``examples:`` block of the rule's file, as (text, lines before it): parsed when first asked for
    examples_source: tuple[str, int] = field(default=("", 0), repr=False, compare=False)

    @cached_property
    def examples(self) -> tuple[dict[str, Any], ...]:
        """The rule's examples (only ``explain`` and the tests read them: a check run never parses them)."""
        text, lines_before = self.examples_source
        if not text:
            return ()
        (raw, _), *_ = load_all("\n" * lines_before + text)  # positions as in the rule's file
        return tuple(raw.get("examples") or ())


@lru_cache(maxsize=1)
def slugs() -> frozenset[str]:
    """The slug of every rule (file names only: cheap enough for reading workers)."""
    return frozenset(p.stem for p in data_dir("rules").glob("*.yaml"))


def finding(slug: str, message: str, file: str, span: Span, *details: Any, **named: Any) -> Finding:
    """A finding of a rule that no check function produces (reading, schema, suppressions); the one
    registry every finding goes through, so no producer can invent a rule."""
    if slug not in slugs():
        raise KeyError(f"no rule {slug!r} in the catalogue")
    return Finding(slug, message, file, span, *details, **named)


# The examples block ends a rule file: a line at column 0 after it that is not a list item or a comment means
# something else follows, and the whole file is read at once.
_EXAMPLES = re.compile(r"^examples:[ \t]*(?:#.*)?$", re.M)
_TOP_LEVEL = re.compile(r"^(?![ \t#\n]|-[ \t\n]|-$|\Z)", re.M)


def _split_examples(text: str) -> tuple[str, tuple[str, int]]:
    """(the rule's fields, (its examples block, lines before it)); start-up parses only the fields."""
    match = _EXAMPLES.search(text)
    if match is None or _TOP_LEVEL.search(text, match.end() + 1) is not None:
        return text, ("", 0)
    return text[:match.start()], (text[match.start():], text.count("\n", 0, match.start()))


def _read(path: Path) -> Rule:
    fields, examples = _split_examples(path.read_text(encoding="utf-8"))
    (raw, _), *_ = load_all(fields)
    if examples[0] == "" and "examples" in raw:  # read at once: keep what was read
        examples = (fields, 0)
    return Rule(
        slug=raw["slug"], code=raw["code"], severity=raw["severity"], category=raw["category"],
        summary=raw["summary"].strip(), rationale=raw["rationale"].strip(),
        how_to_fix=raw["how_to_fix"].strip(), fix_safety=raw.get("fix_safety", "display"),
        references=tuple(raw.get("references") or ()),
        start_problems=tuple(raw.get("start_problems") or ()),
        examples_source=examples,
    )


@cache
def _file(path: Path) -> Rule:
    return _read(path)


@cache
def rule(slug: str) -> Rule | None:
    """One rule, read from its own file ``rules/<slug>.yaml``: a run with findings reads the rules it reports,
    not all of them (start-up time); the same Rule the catalogue holds (asked once per slug: every finding
    asks)."""
    if slug not in slugs():
        return None
    found = _file(data_dir("rules") / f"{slug}.yaml")
    return found if found.slug == slug else catalogue().get(slug)  # a file named apart from its slug


@lru_cache(maxsize=1)
def catalogue() -> dict[str, Rule]:
    """All rules by slug, sorted by code."""
    rules = [_file(path) for path in sorted(data_dir("rules").glob("*.yaml"))]
    rules.sort(key=lambda r: r.code)
    return {r.slug: r for r in rules}


def lookup(name: str) -> Rule | None:
    """A rule by slug or by code (case-insensitive code)."""
    rules = catalogue()
    if name in rules:
        return rules[name]
    for rule in rules.values():
        if rule.code.lower() == name.lower():
            return rule
    return None


def markdown_table() -> str:
    """The rule table of README.md, generated so the two cannot drift apart."""
    rows = ["| code | slug | severity | what |", "|---|---|---|---|"]
    for rule in catalogue().values():
        summary = " ".join(rule.summary.split()).replace("|", "\\|")
        rows.append(f"| {rule.code} | `{rule.slug}` | {rule.severity} | {summary} |")
    return "\n".join(rows) + "\n"
