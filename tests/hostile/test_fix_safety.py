"""`numalint fix` under hostile input, signals and permissions: edits land where the finding is, or nothing
is written; no temporaries survive; links, owners and read-only files keep their identity; diffs apply."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import run

HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
BAD = HEAD + "cpuManagerPolicy: Static\nreservedSystemCPUs: \"0\"\nclusterDomain: cluster.local\n"
GOOD = BAD.replace("Static", "static")
NOBODY = (65534, 65534)
BREAKS = {"CR": "\r", "NEL": "\x85", "LS": "\u2028", "PS": "\u2029"}


def cli(*args: str, stdin: str | None = None, cwd: Path | None = None,
        as_user: tuple[int, int] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess (signals, permissions and exit codes as a user gets them)."""
    python, env = (sys.executable, None) if as_user is None else _unprivileged_python()
    return subprocess.run([python, "-m", "numalint", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120, preexec_fn=_become_nobody if as_user else None)


def _become_nobody() -> None:
    os.setgroups([])
    os.setgid(NOBODY[1])
    os.setuid(NOBODY[0])


def _unprivileged_python() -> tuple[str, dict[str, str]]:
    """An interpreter of this Python version that another user may run, with numalint on its path."""
    import sysconfig

    path = os.pathsep.join([str(Path(__file__).resolve().parents[2]), sysconfig.get_paths()["purelib"]])
    env = dict(os.environ, PYTHONPATH=path)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (sys.executable, os.path.realpath(sys.executable), f"/usr/bin/{version}",
                      f"/usr/local/bin/{version}"):
        try:
            probe = subprocess.run([candidate, "-c", "import numalint.cli"], env=env, capture_output=True,
                                   timeout=60, preexec_fn=_become_nobody)
        except OSError:
            continue
        if probe.returncode == 0:
            return candidate, env
    pytest.skip("no Python interpreter with numalint's dependencies is readable by an unprivileged user")


def stray(directory: Path) -> list[str]:
    return sorted(str(p) for p in directory.rglob(".numalint*"))


def write_bytes(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


# 1. one line model


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_a_line_break_inside_a_comment_does_not_move_edits(tmp_path: Path, name: str) -> None:
    before = HEAD + f"# note{BREAKS[name]}# more\n" + BAD.removeprefix(HEAD)
    target = write_bytes(tmp_path / "k.yaml", before)
    found = run("check", "--format", "json", str(target)).json()["findings"]
    assert [(f["rule"], f["line"] if "line" in f else f["location"]["line"]) for f in found] == [
        ("invalid-policy-name", 4)]  # the 4th line as git, GitHub and `grep -n` count it
    result = cli("fix", str(target))
    assert target.read_bytes() == before.replace("Static", "static").encode("utf-8")
    assert result.returncode == 0 and "fixed 1 finding(s) in 1 file(s)" in result.stderr


def test_crlf_files_are_fixed_in_place(tmp_path: Path) -> None:
    before = (HEAD + "# x\r# y\n" + BAD.removeprefix(HEAD)).replace("\n", "\r\n")
    target = write_bytes(tmp_path / "k.yaml", before)
    assert cli("fix", str(target)).returncode == 0
    assert target.read_bytes() == before.replace("Static", "static").encode("utf-8")


def test_a_suppression_after_a_paragraph_separator_still_applies(tmp_path: Path) -> None:
    text = HEAD + "# a\u2029# b\ncpuManagerPolicy: Static  # numalint: disable=invalid-policy-name\n" \
        'reservedSystemCPUs: "0"\n'
    target = write_bytes(tmp_path / "k.yaml", text)
    assert cli("check", str(target)).returncode == 0


def test_an_edit_that_does_not_match_its_text_writes_nothing(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The old bug, put back on purpose: a line table that breaks at every libyaml break."""
    import numalint.checks.edits
    import numalint.fixer

    def libyaml_lines(text: str) -> list[int]:
        return [0] + [i + 1 for i, c in enumerate(text) if c in "\n\x85\u2028\u2029"]

    monkeypatch.setattr(numalint.fixer, "line_starts", libyaml_lines)
    monkeypatch.setattr(numalint.checks.edits, "line_starts", libyaml_lines)
    before = HEAD + "# note\u2028# more\n" + BAD.removeprefix(HEAD)
    target = write_bytes(tmp_path / "k.yaml", before)
    other = write_bytes(tmp_path / "other.yaml", BAD)
    result = run("fix", str(tmp_path))
    assert target.read_bytes() == before.encode("utf-8")
    assert other.read_text() == GOOD
    assert "k.yaml: not fixed, nothing written" in result.stderr and result.exit_code == 1


# 2. signals


def _many(directory: Path, count: int = 400) -> list[Path]:
    directory.mkdir(exist_ok=True)
    return [write_bytes(directory / f"k{i:04}.yaml", BAD) for i in range(count)]


def _each_whole(files: list[Path]) -> set[str]:
    states = set()
    for path in files:
        text = path.read_text()
        assert text in (BAD, GOOD), path
        states.add("fixed" if text == GOOD else "original")
    return states


@pytest.mark.parametrize("sig,code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
@pytest.mark.parametrize("after", [0, 150])
def test_a_signal_while_writing_leaves_whole_files_and_no_temporaries(tmp_path: Path, sig: int, code: int,
                                                                       after: int) -> None:
    files = _many(tmp_path / "repo")
    process = subprocess.Popen([sys.executable, "-m", "numalint", "fix", str(tmp_path / "repo")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    # files are written in name order: signal once file `after` is written. Watched without pausing and the process
    # stopped at once, the signal waiting for it to go on: 400 files can be written within a pause of 2 ms, and the
    # signal then came after the process had finished (exit status 0, a false failure)
    while process.poll() is None and files[after].read_text() != GOOD and time.monotonic() < deadline:
        pass
    process.send_signal(signal.SIGSTOP)
    running = process.poll() is None
    process.send_signal(sig)
    process.send_signal(signal.SIGCONT)
    _, err = process.communicate(timeout=60)
    states = _each_whole(files)
    if running:
        assert process.returncode == code, err
        assert "Traceback" not in err and "interrupted" in err and "fixed" in states
        # the count it prints is the files written (it said 0 when the signal came while writing)
        fixed = sum(1 for path in files if path.read_text() == GOOD)
        assert f"; {fixed} file(s) written whole" in err, (fixed, err)
    assert stray(tmp_path) == []


def test_temporaries_of_a_killed_run_are_removed_by_the_next(tmp_path: Path) -> None:
    files = _many(tmp_path / "repo")
    process = subprocess.Popen([sys.executable, "-m", "numalint", "fix", str(tmp_path / "repo")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.2)
    process.kill()
    process.wait(timeout=30)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    debris = tmp_path / "repo" / f".numalint-fix-{dead}-ab_cd123.tmp"  # as if killed while writing
    debris.write_text("half")
    mine = [tmp_path / "repo" / n for n in (".numalint-fix-notes.tmp", ".numalint-abcdefgh", ".numalint-fix-1-x.tmp")]
    for path in mine:
        path.write_text("a user's file")
    cli("fix", str(tmp_path / "repo"))
    assert _each_whole(files) == {"fixed"}
    assert stray(tmp_path) == sorted(str(p) for p in mine)


# 3. file identity


def test_fix_goes_through_symlinks_and_keeps_them(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    target = write_bytes(repo / "shared" / "kubelet.yaml", BAD)
    for name in ("a.yaml", "b.yaml"):
        (repo / name).symlink_to(target)
    result = cli("fix", str(repo))
    assert target.read_text() == GOOD
    assert all((repo / n).is_symlink() and os.readlink(repo / n) == str(target) for n in ("a.yaml", "b.yaml"))
    assert "in 1 file(s)" in result.stderr and result.returncode == 0
    assert stray(tmp_path) == []


def test_a_link_to_a_file_the_run_would_not_fix_is_not_written_through(tmp_path: Path) -> None:
    # fixing repo/ must not write outside it, nor into what it excludes or hides
    repo = tmp_path / "repo"
    targets = [write_bytes(tmp_path / "shared" / "kubelet.yaml", BAD), write_bytes(repo / "vendor" / "k.yaml", BAD),
               write_bytes(repo / ".hidden" / "k.yaml", BAD)]
    write_bytes(repo / ".numalint.yaml", "exclude:\n  - vendor\n")
    for name, target in zip(("a.yaml", "b.yaml", "c.yaml"), targets, strict=True):
        (repo / name).symlink_to(target)
    result = cli("fix", ".", cwd=repo)
    assert [t.read_text() for t in targets] == [BAD, BAD, BAD]
    assert "a.yaml: a symbolic link to " in result.stderr and "outside the paths named" in result.stderr
    assert result.stderr.count("which the run would not read (excluded, or in a hidden directory)") == 2
    assert result.returncode == 2
    diff = cli("fix", "--diff", ".", cwd=repo)
    assert diff.stdout == "" and "outside the paths named" in diff.stderr
    assert diff.returncode == 2  # as fix's: it would not write a file it names (it exited 0)
    # a link named itself, or reaching a file or directory named itself, is written through: that is what was asked
    assert cli("fix", "a.yaml", cwd=repo).returncode == 0
    assert targets[0].read_text() == GOOD and (repo / "a.yaml").is_symlink()
    write_bytes(targets[0], BAD)
    cli("fix", ".", ".hidden", str(targets[0]), cwd=repo)
    assert [t.read_text() for t in targets] == [GOOD, BAD, GOOD]
    assert stray(tmp_path) == [str(repo / ".numalint.yaml")]  # no temporary left


def test_extended_attributes_are_kept(tmp_path: Path) -> None:
    target = write_bytes(tmp_path / "k.yaml", BAD)
    try:
        os.setxattr(target, "user.numalint-test", b"kept")
    except (OSError, AttributeError):
        pytest.skip("this file system takes no user extended attributes")
    assert cli("fix", str(target)).returncode == 0
    assert target.read_text() == GOOD and os.getxattr(target, "user.numalint-test") == b"kept"


def test_mode_owner_and_group_are_kept(tmp_path: Path) -> None:
    target = write_bytes(tmp_path / "k.yaml", BAD)
    os.chmod(target, 0o640)
    if os.geteuid() == 0:
        os.chown(target, 1234, 5678)
    before = os.stat(target)
    assert cli("fix", str(target)).returncode == 0
    after = os.stat(target)
    assert target.read_text() == GOOD
    assert (after.st_mode, after.st_uid, after.st_gid) == (before.st_mode, before.st_uid, before.st_gid)


def test_a_read_only_file_is_not_replaced(tmp_path: Path) -> None:
    locked = write_bytes(tmp_path / "a-locked.yaml", BAD)
    other = write_bytes(tmp_path / "b-other.yaml", BAD)
    os.chmod(locked, 0o444)  # read-only for everyone: as root too, numalint must not replace it
    result = cli("fix", str(tmp_path))
    assert locked.read_text() == BAD and oct(os.stat(locked).st_mode & 0o777) == "0o444"
    assert other.read_text() == GOOD
    assert "a-locked.yaml: file is read-only; not written" in result.stderr
    assert "invalid-policy-name" in result.stdout  # what remains on disk is reported
    assert result.returncode == 2 and "Traceback" not in result.stderr


def _shared_directory() -> Path:
    """A directory another user can reach (pytest's tmp_path is private to root)."""
    directory = Path(tempfile.mkdtemp(prefix="numalint-perm-"))
    os.chmod(directory, 0o755)
    return directory


def _as_other_user() -> tuple[int, int] | None:
    return NOBODY if os.geteuid() == 0 else None


def test_an_unwritable_directory_is_a_clear_error(request: pytest.FixtureRequest) -> None:
    base = _shared_directory()
    request.addfinalizer(lambda: shutil.rmtree(base, ignore_errors=True))
    locked = base / "locked"
    locked.mkdir()
    target = write_bytes(locked / "k.yaml", BAD)
    user = _as_other_user()
    if user is not None:  # root writes anywhere: run as nobody, who may write the file but not its directory
        os.chown(target, *user)
        os.chmod(target, 0o644)
    else:
        os.chmod(locked, 0o555)
        request.addfinalizer(lambda: os.chmod(locked, 0o755))
    result = cli("fix", str(target), as_user=user)
    assert target.read_text() == BAD
    assert "cannot create a file in directory" in result.stderr and "not written" in result.stderr
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert stray(base) == []


def test_a_file_read_only_to_its_user_is_not_replaced(request: pytest.FixtureRequest) -> None:
    base = _shared_directory()
    request.addfinalizer(lambda: shutil.rmtree(base, ignore_errors=True))
    target = write_bytes(base / "k.yaml", BAD)
    user = _as_other_user()
    if user is not None:  # writable directory, file owned by root and not writable by nobody
        os.chmod(base, 0o777)
        os.chmod(target, 0o644)
    else:
        os.chmod(target, 0o444)
    result = cli("fix", str(target), as_user=user)
    assert target.read_text() == BAD and "file is read-only" in result.stderr and result.returncode == 2


# 4. diffs that apply


DIFF_FILES = {
    "a.yaml": BAD,
    "no-final-newline.yaml": BAD.rstrip("\n"),
    "sub/crlf.yaml": BAD.replace("\n", "\r\n"),
    "sub/with space.yaml": HEAD + "# x\u2028# y\n" + BAD.removeprefix(HEAD).rstrip("\n"),
    "untouched.yaml": GOOD,
}


def _git_repo(directory: Path) -> None:
    for name, text in DIFF_FILES.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        write_bytes(directory / name, text)
    subprocess.run(["git", "init", "-q", str(directory)], check=True)


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("patch") is None, reason="needs git and patch")
@pytest.mark.parametrize("tool", ["git", "patch"])
def test_every_diff_applies(tmp_path: Path, tool: str) -> None:
    repo, expected = tmp_path / "repo", tmp_path / "expected"
    _git_repo(repo)
    shutil.copytree(repo, expected)
    assert cli("fix", str(expected)).returncode == 0
    result = subprocess.run([sys.executable, "-m", "numalint", "fix", "--diff", "."], cwd=repo, capture_output=True,
                            timeout=120)  # bytes: CRLF lines must reach the patch as they are
    assert result.returncode == 1 and b"\\ No newline at end of file\n" in result.stdout
    patch = tmp_path / "fix.patch"
    patch.write_bytes(result.stdout)
    command = ["git", "apply", str(patch)] if tool == "git" else ["patch", "-p1", "-i", str(patch)]
    applied = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=60)
    assert applied.returncode == 0, applied.stderr + applied.stdout
    for name in DIFF_FILES:
        assert (repo / name).read_bytes() == (expected / name).read_bytes(), name


# 5. stdin


def test_stdin_with_other_paths_is_a_usage_error(tmp_path: Path) -> None:
    target = write_bytes(tmp_path / "k.yaml", BAD)
    for command in (["fix"], ["check", "--fix"]):
        result = cli(*command, "-", str(target), stdin=BAD)
        assert result.returncode == 2 and "cannot be combined" in result.stderr
        assert target.read_text() == BAD and result.stdout == ""


def test_stdin_fixed_text_out_and_findings_on_stderr() -> None:
    result = cli("fix", "-", stdin=BAD)
    assert result.stdout == GOOD and result.returncode == 0
    assert "fixed 1 finding(s) in 1 file(s)" in result.stderr


@pytest.mark.parametrize("make", [lambda: HEAD + "x: [\n", lambda: "\ufeffa: b: c\n"])
def test_broken_stdin_fails_with_its_finding(make: Callable[[], str]) -> None:
    text = make()
    result = cli("fix", "-", stdin=text)
    assert result.returncode == 2 and "yaml-syntax" in result.stderr
    assert result.stdout == text  # a filter: the input goes through unchanged
    assert json.loads(cli("check", "--format", "json", "-", stdin=text).stdout)["findings"][0]["rule"] == "yaml-syntax"


# 5. aliases


def test_an_alias_reading_the_value_a_fix_edits_follows_the_edit(tmp_path: Path) -> None:
    """`limits: {cpu: *c}` reads `requests: {cpu: &c 1500m}`: the fix edits the anchored value only, and the alias
    reads the new one (it was replaced by the value too, its anchor then read by nothing; found by the fix-safety
    review)."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: x\n"
           "    resources:\n      requests: {cpu: &c 1500m, memory: 1Gi}\n      limits: {cpu: *c, memory: 1Gi}\n")
    kubelet = HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\n'
    target = write_bytes(tmp_path / "pod.yaml", pod)
    write_bytes(tmp_path / "kubelet.yaml", kubelet)
    shown = json.loads(run("check", "--format", "json", str(tmp_path)).output)["findings"]
    [fractional] = [f for f in shown if f["rule"] == "fractional-cpu"]
    assert [(e["line"], e["text"]) for e in fractional["fix"]["edits"]] == [(9, '"2"')]
    run("fix", "--unsafe-fixes", str(tmp_path))
    assert target.read_text() == pod.replace("&c 1500m", '&c "2"')
    assert "fractional-cpu" not in run("check", "--format", "json", str(tmp_path)).rules()


def test_a_fix_never_replaces_an_alias_with_a_value(tmp_path: Path) -> None:
    """An alias under another key than its anchor (`kubeReserved: {cpu: *r}` reading `reservedSystemCPUs: &r 0`):
    quoting it would leave the anchor read by nothing; the fix is a hint, and fix writes nothing."""
    text = HEAD + "cpuManagerPolicy: static\nreservedSystemCPUs: &r 0\nkubeReserved:\n  cpu: *r\n"
    target = write_bytes(tmp_path / "k.yaml", text)
    shown = json.loads(run("check", "--format", "json", str(target)).output)["findings"]
    by_line = {f["line"]: f["fix"] for f in shown if f["rule"] == "schema"}
    assert set(by_line) == {4, 6} and not by_line[4]["edits"] and not by_line[6]["edits"]
    assert "would replace the alias *r" in by_line[6]["description"]
    run("fix", "--unsafe-fixes", str(target))
    assert target.read_text() == text
