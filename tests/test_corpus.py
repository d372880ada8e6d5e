"""Real YAML written by others (tests/corpus, see SOURCES.md) is read without a traceback."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run

CORPUS = Path(__file__).parent / "corpus"


def test_whole_corpus_reads_cleanly_with_located_findings() -> None:
    files = sorted(p for p in CORPUS.rglob("*.yaml"))
    assert len(files) > 150
    result = run("check", "--format", "json", str(CORPUS))
    assert result.exit_code in (0, 1)
    data = result.json()
    assert data["summary"]["files"] == len(files)
    for finding in data["findings"]:
        assert finding["line"] >= 1 and finding["column"] >= 1
        assert Path(finding["file"]).exists()
    assert not any(f["rule"] == "yaml-syntax" for f in data["findings"])


def test_each_corpus_file_alone() -> None:
    for path in sorted(CORPUS.rglob("*.yaml")):
        result = run("check", "--format", "json", str(path))
        assert result.exit_code in (0, 1), path
