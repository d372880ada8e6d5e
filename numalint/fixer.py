"""Applying fixes as text edits at the parser's exact spans, and writing them without losing data.

Everything outside an edit stays byte for byte: comments, quoting, indentation, key order and the
other documents. Spans and offsets use one line model (``yamlpos.line_starts``), and every edit is
checked against the text before it is applied: it must cover exactly one YAML node, holding the value the
finding was about when the edit says which (``Edit.expected``). A file with an edit that does not match is
not written at all. Edits that overlap are left for a later pass (the file is checked again after each
pass) and reported if they never apply. A file is written only when its text changed, never when it
failed to parse, and always atomically: a temporary ``.numalint-fix-<pid>-<random>.tmp`` in the same
directory, renamed over the target of any symlink, mode, owner and group kept. SIGINT and SIGTERM are
held off while one file is written, so an interrupted run leaves whole files and no temporaries; those of
a killed run are removed by the next ``fix`` that writes to their directory.
"""

from __future__ import annotations

import difflib
import os
import re
import signal
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from zlib import crc32

from numalint.checks import within
from numalint.checks.edits import edit_range, verify_edits
from numalint.checks.input_rules import is_summary
from numalint.engine import Options, Report, run_check
from numalint.findings import SAFE, UNSAFE, Edit, Finding, shorten
from numalint.reading.yamlpos import line_starts

MAX_PASSES = 6
MAX_TRIES = 64  # checks per pass whose fixes interact (``_in_halves``)
UNTRIED = "untried"  # why a fix is held back when the checks of its pass ran out before it was tried
BOM = b"\xef\xbb\xbf"
TEMP_PREFIX = ".numalint-fix-"
TEMP_SUFFIX = ".tmp"
_TEMP_NAME = re.compile(r"\.numalint-fix-([0-9]+)-[a-z0-9_]{8}\.tmp")  # what mkstemp makes of the affixes
_HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM}


class WriteError(Exception):
    """A fixed file that could not be written; the message says why."""


@dataclass
class FixResult:
    texts: dict[str, str]  # path -> fixed text, for files that changed
    originals: dict[str, str]
    applied: list[Finding] = field(default_factory=list)
    skipped: list[Finding] = field(default_factory=list)  # fixes whose edits never applied
    broken: list[str] = field(default_factory=list)  # files whose fixed text would not parse: left alone
    refused: dict[str, str] = field(default_factory=dict)  # path -> why its edits did not match its text
    held: list[Finding] = field(default_factory=list)  # fixes held back: with the others they bring an error
    not_tried: list[Finding] = field(default_factory=list)  # fixes held back untried (``untried``)
    in_refused: list[Finding] = field(default_factory=list)  # fixes in a document kubectl refuses: not applied
    held_back: int = 0  # fixes held back in any pass (a later proof may have turned one into a hint)
    untried: int = 0  # of which not tried at all: the checks of their pass ran out first (MAX_TRIES)
    report: Report | None = None  # the check after fixing
    first: Report | None = None  # the check before fixing (every error, for judging what the run leaves)
    unfinished: int = 0  # fixes still applicable when MAX_PASSES ran out (another run applies them)
    unfinished_more: bool = False  # and more beyond the findings shown (a file over the per-rule cap)
    boms: set[str] = field(default_factory=set)  # files that start with a UTF-8 BOM (kept when written)

    def diff(self) -> str:
        """A unified diff that ``git apply`` and ``patch -p1`` accept (paths relative to the working directory).

        The texts are decoded without their BOM; a file that has one gets it back on its first line, as on
        disk: a context or removed first line without it matches nothing there."""
        chunks: list[str] = []
        for path in sorted(self.texts):
            # a file reached through a symbolic link (itself or a directory on its path) by the file it is, which
            # `fix` edits: ``patch`` and ``git apply`` do not patch through a link
            real = os.path.realpath(path) if path != "-" else path
            name = _diff_name(real if real != os.path.abspath(path) and path != "-" else path)
            # stdin and absolute paths are labelled as they are (as GNU diff labels stdin "-"): no a/ b/ tree
            old, new = (name, name) if path == "-" or os.path.isabs(name) else (f"a/{name}", f"b/{name}")
            old, new = _patch_name(old), _patch_name(new)
            bom = "\ufeff" if path in self.boms else ""
            lines = difflib.unified_diff(_lines(bom + self.originals[path]), _lines(bom + self.texts[path]),
                                         fromfile=old, tofile=new)
            for line in lines:
                chunks.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        return "".join(chunks)


def _diff_name(path: str) -> str:
    relative = os.path.relpath(path) if os.path.isabs(path) else os.path.normpath(path)
    return path if relative.startswith("..") else relative.replace(os.sep, "/")


def _patch_name(name: str) -> str:
    """A name as git writes it in ---/+++ lines: C-quoted when needed, a tab after a name with spaces."""
    if any(c in '"\\' or ord(c) < 0x20 or ord(c) == 0x7F for c in name):
        escapes = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
        return '"' + "".join(escapes.get(c) or (f"\\{ord(c):03o}" if ord(c) < 0x20 or ord(c) == 0x7F else c)
                             for c in name) + '"'
    return name + "\t" if " " in name else name


def _lines(text: str) -> list[str]:
    """Lines ending at LF only: the line model of the spans, and the one of diff and patch."""
    return [line for line in re.split(r"(?<=\n)", text) if line]


def allowed(finding: Finding, unsafe: bool) -> bool:
    """Each fix says how safe it is: safe fixes always apply, unsafe ones only when asked for."""
    if finding.fix is None or not finding.fix.edits:
        return False
    return finding.fix.safety == SAFE or (unsafe and finding.fix.safety == UNSAFE)


def apply_edits(text: str, edits: list[tuple[Edit, Finding]]) -> tuple[str, list[Finding], list[Finding]]:
    """Apply the non-overlapping edits; return (text, findings fixed, findings deferred)."""
    starts = line_starts(text)
    placed: list[tuple[int, int, str, Finding]] = []
    deferred: list[Finding] = []
    for edit, finding in edits:
        where = edit_range(edit, starts, len(text))
        if where is None:
            deferred.append(finding)
            continue
        if text[where[0]:where[1]] == edit.text:
            continue  # already as wanted
        placed.append((where[0], where[1], edit.text, finding))
    placed.sort(key=lambda item: (item[0], item[1]))
    chosen: list[tuple[int, int, str, Finding]] = []
    for item in placed:
        if chosen and item[:3] == chosen[-1][:3]:
            continue  # the same edit proposed twice
        if chosen and item[0] < chosen[-1][1]:
            deferred.append(item[3])  # overlaps: retry after the file is checked again
            continue
        chosen.append(item)
    for begin, end, replacement, _ in reversed(chosen):
        text = text[:begin] + replacement + text[end:]
    fixed = list({id(f): f for *_, f in chosen}.values())
    return text, fixed, deferred


def fix(paths: list[str], options: Options, unsafe: bool = False, stdin_text: str | None = None,
        stdin_name: str = "-") -> FixResult:
    """Fix until nothing applicable is left (or MAX_PASSES), checking the files again after each pass.

    Each fix was proven alone (``checks/proofs.py``); fixes applied together can still interact (two renames
    that meet, a rename and a workload's rounding). So the check after a pass judges what the pass applied: an
    error that was not there before it (every rule, by the rule's own severity; on a workload only when its
    kubelet started before), unless its own automatic fix is applied by the next pass, undoes the pass, which is
    then made again in halves in the report's order (``_in_halves``), each kept only when it brings no such
    error. The others are held back: their findings stay, with a hint saying which error they would bring.

    A follow-up can still stay unapplied (its own fix held back in turn, or the passes ran out): the files as
    the run leaves them are judged against the files as they were, and when they hold an error that was not
    there the run is made again with no follow-up allowed. So a run never leaves an error it brought.
    """
    result = _fix(paths, options, unsafe, stdin_text, stdin_name, follow_ups=True)
    first, last = result.first, result.report
    if first is not None and last is not None and _new_errors(first, last, {}, result.texts, result.originals):
        result = _fix(paths, options, unsafe, stdin_text, stdin_name, follow_ups=False)
    return result


def _in_refused(finding: Finding, report: Report) -> bool:
    """Whether an edit of ``finding``'s fix falls in a document kubectl refuses (a null or collection key: a
    yaml-syntax finding): such a document is corrected by hand first; the file's other documents are fixed."""
    documents = report.refused.get(finding.input, ())
    return finding.fix is not None and any(
        within(edit.span, document) for edit in finding.fix.edits for document in documents)


def _fix(paths: list[str], options: Options, unsafe: bool, stdin_text: str | None, stdin_name: str,
         follow_ups: bool) -> FixResult:
    """``stdin_name``: the path stdin's text stands for ("-", or --stdin-filename's: never written)."""
    texts: dict[str, str] = {}
    originals: dict[str, str] = {}
    if stdin_text is not None:
        texts[stdin_name] = originals[stdin_name] = stdin_text
    result = FixResult({}, originals)
    applied: dict[str, list[Finding]] = {}
    deferred: list[Finding] = []
    held: dict[tuple[str, str, int, str], str] = {}  # a fix held back -> the error it would bring
    report = result.first = run_check(paths, options, texts=texts, judge=True)
    result.in_refused = [f for f in report.findings if allowed(f, unsafe) and _in_refused(f, report)]
    for _ in range(MAX_PASSES):
        chosen = [f for f in report.findings if allowed(f, unsafe) and f.input not in report.unparsed
                  and f.input not in result.refused and _held_key(f) not in held and not _in_refused(f, report)]
        start = dict(texts)
        fixed, deferred = _apply_pass(chosen, texts, result, report.stamps)
        if texts == start:
            break
        after = run_check(paths, options, texts=texts, judge=True)
        if _new_errors(report, after, start, texts, originals, _followed(after, unsafe, held, follow_ups)):
            texts.clear()
            texts.update(start)
            fixed, deferred, after = _in_halves(paths, options, chosen, report, texts, result, held, unsafe,
                                                follow_ups)
        for finding in fixed:
            applied.setdefault(finding.input, []).append(finding)
        report = after
    else:  # every pass fixed something: what the last one leaves applicable waits for another run
        left = [f for f in report.findings if allowed(f, unsafe) and f.input not in report.unparsed
                and f.input not in result.refused and _held_key(f) not in held and not _in_refused(f, report)]
        result.unfinished = len(left)
        result.unfinished_more = bool({(f.rule, f.input) for f in report.findings if is_summary(f)}
                                      & {(f.rule, f.input) for f in left})
    result.report = report
    result.held_back = len(held)
    result.untried = sum(1 for why in held.values() if why == UNTRIED)
    result.skipped = [f for f in deferred if f.file not in result.refused]
    result.broken = sorted(p for p in texts if p in report.unparsed and p in originals and texts[p] != originals[p])
    if result.broken:  # not written: what remains is what the files hold, never findings of a text not written
        texts.update({p: originals[p] for p in result.broken})
        report = result.report = run_check(paths, options, texts=texts, judge=True)
    result.texts = {p: t for p, t in texts.items() if t != originals.get(p) and p not in result.broken
                    and p not in result.refused}
    result.applied = [f for p in sorted(applied) if p in result.texts for f in applied[p]]
    for finding in report.findings:
        why = held.get(_held_key(finding))
        if why is not None and finding.fix is not None and finding.fix.edits:
            finding.fix = finding.fix.as_hint(
                "numalint stopped trying the fixes of its pass, too many of which interact, before it tried this "
                "one; run fix again to try it, or decide by hand" if why == UNTRIED else
                f"together with the fixes applied with it, it would bring a new error ({why}); decide by hand")
            (result.not_tried if why == UNTRIED else result.held).append(finding)
    return result


def _why_held(error: Finding, unsafe: bool) -> str:
    """The error a fix would bring, and why its own fix (when it has one) does not settle it in this run."""
    why = f"{error.rule}: {shorten(error.message)}"
    if error.fix is not None and error.fix.edits:
        why += ("; its own fix applies only with --unsafe-fixes" if error.fix.safety == UNSAFE and not unsafe else
                "; its own fix is not applied in this run (the selection, a suppression, or held back too)")
    return why


def _held_key(finding: Finding) -> tuple[str, str, int, str]:
    """A fix across passes: edits leave lines where they are, and a fix's description names what it writes."""
    return (finding.rule, finding.input, finding.span.line, finding.fix.description if finding.fix else "")


def _apply_pass(chosen: list[Finding], texts: dict[str, str], result: FixResult, stamps: dict[str, int]
                ) -> tuple[list[Finding], list[Finding]]:
    """Apply the edits of ``chosen`` to ``texts`` (in place); return (findings fixed, findings deferred). A file
    with an edit that does not match its text is refused: back to its original, never written; so is a file
    whose bytes are not those the check read (``stamps``: it changed meanwhile, and the spans are stale)."""
    per_file: dict[str, list[tuple[Edit, Finding]]] = {}
    for finding in chosen:
        for edit in finding.fix.edits if finding.fix is not None else ():
            per_file.setdefault(finding.input, []).append((edit, finding))
    fixed: list[Finding] = []
    deferred: list[Finding] = []
    for path, edits in per_file.items():
        current = texts.get(path)
        if current is None:
            current = result.originals.get(path)
        if current is None:
            read = _read(path)
            if read is None:
                continue
            current, bom, stamp = read
            result.originals[path] = current
            if bom:
                result.boms.add(path)
            if path in stamps and stamp != stamps[path]:
                result.refused[path] = "file changed since numalint checked it"
                texts[path] = current
                continue
        problem = verify_edits(current, edits)
        if problem is not None:
            result.refused[path] = problem
            texts[path] = result.originals[path]
            continue
        new, done, later = apply_edits(current, edits)
        deferred.extend(later)
        if new != current:
            texts[path] = new
            fixed.extend(done)
    return fixed, deferred


def _in_halves(paths: list[str], options: Options, chosen: list[Finding], before: Report,
               texts: dict[str, str], result: FixResult, held: dict[tuple[str, str, int, str], str], unsafe: bool,
               follow_ups: bool) -> tuple[list[Finding], list[Finding], Report]:
    """The pass again, in halves (each on the pass's starting text together with the fixes kept so far, in the
    report's order): a half is kept when the check after it finds no new error, else halved again, down to the
    single fixes that are held back. A pass whose fixes interact pays about one check per held-back fix and
    halving (k of n fixes held back: about k * log n checks, not n), and at most MAX_TRIES checks: past them,
    the fixes not yet tried are held back."""
    start = dict(texts)
    kept: list[Finding] = []
    fixed: list[Finding] = []
    deferred: list[Finding] = []
    report = before
    tries = 0

    def settle(group: list[Finding]) -> None:
        nonlocal fixed, deferred, report, tries
        group = [f for f in group if f.input not in result.refused]
        if not group:
            return
        if tries >= MAX_TRIES:
            for finding in group:
                held[_held_key(finding)] = UNTRIED
            return
        trial = dict(start)
        done, later = _apply_pass([*kept, *group], trial, result, before.stamps)
        if trial == texts:
            return  # nothing the fixes kept did not already write
        tries += 1
        after = run_check(paths, options, texts=trial, judge=True, trial=True)
        new = _new_errors(before, after, start, trial, result.originals, _followed(after, unsafe, held, follow_ups))
        if not new:
            kept.extend(group)
            fixed, deferred, report = done, later, after
            texts.clear()
            texts.update(trial)
        elif len(group) == 1:
            held[_held_key(group[0])] = _why_held(new[0], unsafe)
        else:
            half = len(group) // 2
            settle(group[:half])
            settle(group[half:])

    half = len(chosen) // 2  # the whole pass brought a new error: its halves first
    for part in ((chosen[:half], chosen[half:]) if len(chosen) > 1 else (chosen,)):
        settle(part)
    if report is not before:  # the trials proved only errors' fixes: the next pass picks from proven ones
        report = run_check(paths, options, texts=texts, judge=True)
    return fixed, deferred, report


def _new_errors(before: Report, after: Report, start: dict[str, str], texts: dict[str, str],
                originals: dict[str, str], follows: Callable[[Finding], bool] = lambda finding: False
                ) -> list[Finding]:
    """Errors of ``after`` that ``before`` did not have under the same rule on the same line (mapped back
    through the edits), a workload's only when its kubelet started; and findings a comment suppresses after the
    edits but not before, of those shown before (an edit that joins lines moves what a ``# numalint: disable`` on
    the line above covers). An error that ``follows`` (its own automatic fix is applied by the next pass, and
    judged in turn) is the follow-up its proof allowed."""
    maps: dict[str, Callable[[int], int]] = {}

    def key(finding: Finding) -> tuple[str, str, int]:
        path = finding.input
        if path not in maps:
            maps[path] = _line_map(start.get(path, originals.get(path)), texts.get(path))
        return finding.rule, path, maps[path](finding.span.line)

    left = Counter((f.rule, f.input, f.span.line) for f in before.errors)
    # a rule past its hundredth finding in a file: which ones ``before`` had beyond them is unknown
    capped = {(f.rule, f.input) for f in before.errors if is_summary(f)}
    new = []
    for finding in after.errors:
        if finding.obj is not None and (finding.input, finding.obj) in before.halted:
            continue
        if is_summary(finding) or (finding.rule, finding.input) in capped:  # fixes move which are the first hundred
            continue
        where = key(finding)
        if left[where] > 0:
            left[where] -= 1
        elif not follows(finding):
            new.append(finding)
    hidden = {(f.rule, f.input, f.span.line) for f in before.suppressed}
    # what was there and shown before: a finding a fix both brings and finds suppressed is the author's choice
    shown = {(f.rule, f.input, f.span.line) for f in (*before.findings, *before.errors)} - hidden
    return new + [replace(f, message=f"a suppression comment would then cover the finding on line {key(f)[2]}, "
                                     f"which it does not cover now ({f.message})")
                  for f in after.suppressed if not is_summary(f) and key(f) not in hidden and key(f) in shown]


def _followed(after: Report, unsafe: bool, held: dict[tuple[str, str, int, str], str], follow_ups: bool = True
              ) -> Callable[[Finding], bool]:
    """Whether the next pass applies an error's own fix: allowed (``--unsafe-fixes`` for an unsafe one), among the
    findings the run reports (its selection, not suppressed) and not held back; never without ``follow_ups``."""
    if not follow_ups:
        return lambda finding: False
    picked = {(f.rule, f.input, f.span) for f in after.findings if allowed(f, unsafe) and _held_key(f) not in held}
    return lambda finding: (finding.rule, finding.input, finding.span) in picked


def _line_map(old: str | None, new: str | None) -> Callable[[int], int]:
    """A line of ``new`` -> its line in ``old``: the same, unless an edit joined the lines of a scalar."""
    if old is None or new is None or old.count("\n") == new.count("\n"):
        return lambda line: line
    before, after = old.split("\n"), new.split("\n")
    # the lines before the first edit and after the last are the same: only those between are compared (a large
    # file of repeated lines made difflib quadratic in the whole file for one edit near its top)
    head = 0
    while head < min(len(before), len(after)) and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(len(before), len(after)) - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    shift = len(before) - len(after)  # of the lines after the last edit
    mapping: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, before[head:len(before) - tail], after[head:len(after) - tail],
                                      autojunk=False)
    for tag, i1, _i2, j1, j2 in matcher.get_opcodes():
        for j in range(j1, j2):
            mapping[head + j + 1] = head + (i1 + j - j1 if tag == "equal" else i1) + 1
    end = len(after) - tail  # lines past it are the tail's
    return lambda line: mapping.get(line, line + shift if line > end else line)


def _read(path: str) -> tuple[str, bool, int] | None:
    """A file's text without its BOM, whether it had one, and the CRC-32 of its bytes (``Source.stamp``)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        return data.decode("utf-8-sig"), data.startswith(BOM), crc32(data)
    except (OSError, UnicodeDecodeError):
        return None


@contextmanager
def held_signals() -> Iterator[None]:
    """Hold SIGINT and SIGTERM off (delivered on exit) so one file is written whole or not at all."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not POSIX
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def remove_stale_temporaries(directory: str) -> None:
    """Delete temporaries of numalint runs that died (SIGKILL, power loss); never anyone else's files."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        match = _TEMP_NAME.fullmatch(name)
        if match is None or _alive(int(match.group(1))):
            continue
        try:
            os.unlink(os.path.join(directory, name))
        except OSError:
            pass


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True
    return True


def write_targets(texts: dict[str, str]) -> dict[str, str]:
    """The real file each fixed path names (a symlink's target), first path kept per file."""
    targets: dict[str, str] = {}
    for path in sorted(texts):
        if path != "-":
            targets.setdefault(os.path.realpath(path), path)
    return targets


def _writable(path: str, info: os.stat_result) -> bool:
    """Whether the file's permissions let its owner class write it; root's override does not count."""
    if os.geteuid() == 0:
        return bool(info.st_mode & 0o222) and os.access(path, os.W_OK)
    return os.access(path, os.W_OK)


def write_refusal(path: str) -> str | None:
    """Why ``write_atomically`` refuses to replace ``path`` whatever its text (not a regular file, read-only, other
    hard links), or None; `fix --diff` leaves such a file out as `fix` leaves it unwritten. Raises OSError when it
    cannot be looked at."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    if not _writable(path, info):
        return "file is read-only"
    if info.st_nlink > 1:
        return f"file has {info.st_nlink} hard links; replacing it would split them"
    directory = os.path.dirname(os.path.abspath(path))
    if not os.access(directory, os.W_OK | os.X_OK):  # the temporary file that replaces it goes there
        return f"cannot create a file in directory {directory}: Permission denied"
    return None


def write_atomically(path: str, text: str, original: str | None = None) -> None:
    """Replace the regular file ``path`` by ``text`` through a temporary file in the same directory.

    The BOM, mode, owner, group and extended attributes are kept. Raises WriteError (nothing written) when the file is
    read-only, has other hard links, changed since ``original`` was read (or while the temporary file was being
    written: it is read again just before it is replaced), or its directory is not writable.
    """
    try:
        refusal = write_refusal(path)
        if refusal is not None:
            raise WriteError(refusal)
        info = os.stat(path)
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise WriteError(f"cannot read file: {err.strerror or err}") from None
    bom = data.startswith(BOM)
    if original is not None and data.decode("utf-8-sig", errors="replace") != original:
        raise WriteError("file changed since numalint read it")
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temporary = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-", suffix=TEMP_SUFFIX, dir=directory)
    except OSError as err:
        raise WriteError(f"cannot create a file in directory {directory}: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write((BOM if bom else b"") + text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
            if (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
                try:
                    os.fchown(handle.fileno(), info.st_uid, info.st_gid)
                except OSError:
                    raise WriteError("cannot keep the file's owner and group") from None
            os.fchmod(handle.fileno(), info.st_mode & 0o7777)
            _copy_attributes(path, handle.fileno())
        # an editor may have saved the file while the temporary was written: what it saved must not be lost
        try:
            with open(path, "rb") as handle:
                unchanged = handle.read() == data
        except OSError:
            unchanged = False
        if not unchanged:
            raise WriteError("file changed while numalint wrote it; nothing written")
        os.replace(temporary, path)
    except BaseException as err:
        if os.path.exists(temporary):
            os.unlink(temporary)
        if isinstance(err, OSError):
            raise WriteError(f"cannot replace file: {err.strerror or err}") from None
        raise


def _copy_attributes(path: str, fd: int) -> None:
    """Give the new file the extended attributes of the one it replaces (user.*, an SELinux label, ACLs): a
    rename would drop them. One that cannot be kept is an error: nothing is written."""
    if not hasattr(os, "listxattr"):  # pragma: no cover - not Linux
        return
    try:
        names = os.listxattr(path)
    except OSError:
        return  # a file system without extended attributes has none to keep
    for name in names:
        try:
            os.setxattr(fd, name, os.getxattr(path, name))
        except OSError as err:
            raise WriteError(f"cannot keep the file's extended attribute {name} ({err.strerror or err})") from None


def link_refusals(paths: Iterable[str], named: Iterable[str], excluded: Callable[[str], bool]) -> dict[str, str]:
    """Why a fixed path that reaches its file through a symbolic link must not be written through it: the file
    lies outside the paths named (a link into another tree, or to /etc), or inside them where the run would not
    have read it (``excluded``: an exclude pattern, or a hidden directory below the deepest named directory
    holding it). A link named itself, or a file named itself, is written through: that is what was asked."""
    given = [p for p in named if p != "-"]
    directories = [os.path.realpath(p) for p in given if os.path.isdir(p)]
    named_files = {os.path.realpath(p) for p in given if not os.path.isdir(p)}
    named_links = {os.path.abspath(p) for p in given}
    refused: dict[str, str] = {}
    for path in paths:
        real = os.path.realpath(path)
        if path == "-" or real == os.path.abspath(path) or os.path.abspath(path) in named_links \
                or real in named_files:
            continue
        inside = [d for d in directories if real.startswith(d.rstrip(os.sep) + os.sep)]
        if not inside:
            refused[path] = f"a symbolic link to {real}, outside the paths named; fix that file itself"
            continue
        relative = os.path.relpath(real, max(inside, key=len))
        if any(part.startswith(".") for part in relative.split(os.sep)[:-1]) or excluded(real):
            refused[path] = (f"a symbolic link to {real}, which the run would not read (excluded, or in a hidden "
                             "directory); fix that file itself")
    return refused


def write_all(texts: dict[str, str], originals: dict[str, str], checked: tuple[str, ...] | list[str] = (),
              written: list[str] | None = None) -> tuple[list[str], dict[str, str]]:
    """Write every fixed file once (through symlinks); return (paths written, path -> error). ``written`` gets each
    path as soon as its file is written: a signal delivered after a file (SIGINT, SIGTERM) leaves it counted.

    Stale temporaries are removed first from the directories of the files written and of ``checked``.
    """
    targets = write_targets(texts)
    directories = {os.path.dirname(real) for real in targets}
    directories |= {os.path.dirname(os.path.realpath(p)) for p in checked if p != "-"}
    for directory in sorted(directories):
        remove_stale_temporaries(directory)
    written = [] if written is None else written
    errors: dict[str, str] = {}
    for real, path in targets.items():
        with held_signals():
            try:
                write_atomically(real, texts[path], originals.get(path))
            except WriteError as err:
                errors[path] = str(err)
                continue
            written.append(path)  # before the held signals are delivered
    return written, errors
