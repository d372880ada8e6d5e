"""yaml-syntax points at the cause where it can: the missing ':' rather than the line after it, and the
structure that a mis-indented line breaks."""

from __future__ import annotations

from pathlib import Path

import pytest

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


@pytest.mark.parametrize("text,where", [
    ('apiVersion: v1\nkind: Pod\nmetadata: {name: "a\x1bb"}\n', "3:20"),  # ESC
    ("a: \u00e9\u00e9\r\nb: x\x00y\r\n", "2:5"),  # NUL after two-byte characters, CRLF lines
    ('apiVersion: v1\nkind: Pod\nmetadata: {name: "\u009b"}\n', "3:19"),  # a C1 control character
])
def test_a_control_character_is_reported_where_it_is(tmp_path: Path, text: str, where: str) -> None:
    """libyaml's reader error carries a UTF-8 byte offset, no mark: it was reported at 1:1."""
    (tmp_path / "f.yaml").write_bytes(text.encode("utf-8"))
    found = run("check", "--format", "json", str(tmp_path / "f.yaml")).json()["findings"]
    assert [(f["rule"], f"{f['line']}:{f['column']}") for f in found] == [("yaml-syntax", where)], found
