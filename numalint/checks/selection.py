"""Rule selectors as ruff has them: a slug (``not-guaranteed``), a code (``NL201``), a code prefix
(``NL2``, ``NL``) or ``ALL``; accepted wherever a rule is named (command line, configuration,
suppression comments, annotations)."""

from __future__ import annotations

from collections.abc import Iterable

from numalint.catalogue import catalogue


class SelectorError(ValueError):
    """A selector that names no rule."""


def resolve(selector: str) -> frozenset[str]:
    """The slugs ``selector`` names; SelectorError when it names none."""
    rules = catalogue()
    text = selector.strip()
    if text in rules:
        return frozenset({text})
    upper = text.upper()
    if upper == "ALL":
        return frozenset(rules)
    named = frozenset(slug for slug, rule in rules.items() if rule.code.upper().startswith(upper)) if upper else None
    if not named:
        raise SelectorError(f'"{selector}" names no rule (a slug, a code such as NL203, a code prefix such as NL3, '
                            "or ALL); see `numalint rules`")
    return named


def matches(selectors: Iterable[str], slug: str) -> str | None:
    """The first selector (as written) that names ``slug``, or None; unknown selectors name nothing."""
    for selector in selectors:
        if selector == "all" or selector == slug:
            return selector
        try:
            if slug in resolve(selector):
                return selector
        except SelectorError:
            continue
    return None


def split(values: Iterable[str]) -> list[str]:
    """``--select NL1,NL2 --select fractional-cpu`` -> each selector once, in order."""
    return list(dict.fromkeys(s.strip() for value in values for s in value.split(",") if s.strip()))


def enabled_rules(select: Iterable[str] | None, extend_select: Iterable[str],
                  ignore: Iterable[str]) -> frozenset[str] | None:
    """The rules a run reports: ``select`` (default ALL) plus ``extend_select``, minus ``ignore``; None (every
    rule) when nothing is selected or ignored, so a plain run never loads the catalogue to list it."""
    if select is not None and not list(select):
        raise SelectorError("an empty selection names no rule (leave --select / select: out to report every rule)")
    extend_select, ignore = list(extend_select), list(ignore)
    if select is None and not extend_select and not ignore:
        return None
    chosen: set[str] = set(catalogue()) if select is None else set()
    for selector in (*(select or ()), *extend_select):
        chosen |= resolve(selector)
    for selector in ignore:
        chosen -= resolve(selector)
    return frozenset(chosen)
