"""Every rule's bad examples raise it and its good examples do not (the catalogue is executable)."""

from __future__ import annotations

from pathlib import Path

import pytest

from numalint.catalogue import catalogue
from tests.conftest import run, write

EXAMPLES = [(slug, i, ex) for slug, rule in catalogue().items() for i, ex in enumerate(rule.examples)]


def test_every_rule_has_bad_and_good_examples() -> None:
    for slug, rule in catalogue().items():
        kinds = {ex.get("expect") for ex in rule.examples}
        assert kinds == {"bad", "good"}, f"{slug} needs bad and good examples"


@pytest.mark.parametrize("slug,index,example", EXAMPLES, ids=[f"{s}-{i}" for s, i, _ in EXAMPLES])
def test_example(tmp_path: Path, slug: str, index: int, example: dict) -> None:  # type: ignore[type-arg]
    write(tmp_path, dict(example["files"]))
    extra = ["--node-state", str(tmp_path / "state")] if any(n.startswith("state/") for n in example["files"]) else []
    result = run("check", "--format", "json", *extra, str(tmp_path))
    assert "Traceback" not in result.stderr
    assert result.exit_code in (0, 1, 2), result.output
    hits = [f for f in result.json()["findings"] if f["rule"] == slug]
    if example["expect"] == "bad":
        assert hits, f"{slug}: {example.get('description')} raised nothing"
        where = sorted({f"{Path(h['file']).relative_to(tmp_path)}:{h['line']}:{h['column']}" for h in hits})
        assert where == sorted(example["reports"]), f"{slug}: {example.get('description')}"
        for hit in hits:
            assert hit["code"] == catalogue()[slug].code
            assert hit["message"] != slug
    else:
        assert not hits, f"{slug}: {example.get('description')} raised {hits}"


def test_every_rule_has_a_check_or_is_an_input_rule() -> None:
    from numalint.checks import all_checks

    input_rules = {"yaml-syntax", "schema", "unknown-field", "not-lintable", "unused-suppression", "duplicate-object"}
    assert set(catalogue()) == set(all_checks()) | input_rules


@pytest.mark.parametrize("slug", sorted(catalogue()))
def test_explain_page(slug: str) -> None:
    rule = catalogue()[slug]
    by_slug = run("explain", slug)
    by_code = run("explain", rule.code.lower())
    assert by_slug.exit_code == 0 and by_slug.output == by_code.output
    assert rule.code in by_slug.output and "How to fix" in by_slug.output and "Bad:" in by_slug.output


def test_readme_rule_table_is_the_catalogue() -> None:
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    begin = readme.index("\n", readme.index("<!-- rules:begin")) + 1
    table = readme[begin:readme.index("<!-- rules:end -->")]
    assert table == run("rules", "--format", "markdown").output, "regenerate: numalint rules --format markdown"
