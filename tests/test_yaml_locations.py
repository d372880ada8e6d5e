"""yaml-syntax points at the cause where it can: the missing ':' rather than the line after it, and the
structure that a mis-indented line breaks."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run, write


def _syntax(tmp_path: Path, text: str) -> dict:  # type: ignore[type-arg]
    write(tmp_path, {"x.yaml": text})
    [finding] = [f for f in run("check", "--format", "json", str(tmp_path)).json()["findings"]
                 if f["rule"] == "yaml-syntax"]
    return finding  # type: ignore[no-any-return]


def test_a_missing_colon_is_reported_on_its_own_line(tmp_path: Path) -> None:
    finding = _syntax(tmp_path, "apiVersion: v1\nkind: Pod\nmetadata:\n  name x\n  labels: {}\n")
    assert (finding["line"], finding["column"]) == (4, 3)
    assert "line 4 has no ':'" in finding["message"]


def test_a_misindented_line_names_the_structure_it_breaks(tmp_path: Path) -> None:
    finding = _syntax(tmp_path, "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    image: i\n"
                                "   resources: {}\n")
    assert finding["line"] == 7
    assert "that starts at line" in finding["message"]
