"""Seeded mutation fuzzing of check and fix: thousands of damaged inputs built from the rule examples and
the copied public corpus. No traceback, no hang, fix idempotent, and every byte fix changes lies inside one
of the edits it applied (checked pass by pass, the way `fix` applies them)."""

from __future__ import annotations

import difflib
import os
import random
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from numalint.catalogue import catalogue
from numalint.checks.edits import edit_range
from numalint.engine import Options, run_check
from numalint.fixer import allowed, apply_edits, fix
from numalint.k8s.versions import NEWEST
from numalint.reading.yamlpos import line_starts

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
INPUTS = int(os.environ.get("NUMALINT_FUZZ_INPUTS", "1200"))
WEIRD = ["Static", "static", "NONE", "yes", "on", "1e999999999", "0-4294967295", "\u00b2", "\x1b[2J", "${NUM_VFS}",
         "{{ .Values.x }}", "*a", "&a x", "- ", ": ", "'", '"', "\u2028", "\r", "\t", "\u0085", "-1", "1_6", "",
         "[{}, {}]", "{a: *a}", "Single-Numa-Node", "best-Effort", "full-pcpus-only: yes", "<<: *base", "~", "0x10"]
OPTIONS = Options(version=NEWEST)


def _seeds() -> list[str]:
    texts = [text for rule in catalogue().values() for example in rule.examples
             for name, text in example["files"].items() if name.endswith((".yaml", ".yml"))]
    texts += [p.read_text(encoding="utf-8", errors="replace") for p in sorted(CORPUS.rglob("*.yaml"))[:60]
              if p.stat().st_size < 20_000]
    return texts


# the mistakes numalint's fixes are for: case, quoting, misspelt fields
FIXABLE = [("cpuManagerPolicy: static", "cpuManagerPolicy: Static"), ("Static", "static"),
           ("single-numa-node", "Single-Numa-Node"), ("best-effort", "Best-Effort"), ('"0"', "0"),
           ('"0,1"', "0,1"), ('"true"', "yes"), ('"true"', "true"),
           ("topologyManagerPolicy:", "topologyManagerPolicies:"), ("reservedSystemCPUs:", "reservedSystemCpus:"),
           ("cpu: \"4\"", "cpu: 3500m"), ("cpu: 2", "cpu: 1.5")]


def _mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        op = rng.choice((0, 0, 0, 1, 2, 3, 4, 5, 5, 5, 5))
        if op == 0 and ":" in lines[i]:  # a new value
            key = lines[i].split(":", 1)[0]
            lines[i] = f"{key}: {rng.choice(WEIRD)}"
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2 and len(lines) > 1:
            del lines[i]
        elif op == 3:
            lines[i] = ("  " + lines[i]) if rng.random() < 0.5 else lines[i][2:]
        elif op == 4:
            at = rng.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:at] + rng.choice(WEIRD) + lines[i][at:]
        else:
            good, bad = rng.choice(FIXABLE)
            return "\n".join(lines).replace(good, bad, 1)
    return "\n".join(lines)


def _inputs() -> Iterator[tuple[int, str]]:
    seeds = _seeds()
    kubelet = [text for text in seeds if "KubeletConfig" in text]  # where most fixes are
    rng = random.Random(20261123)
    for n in range(INPUTS):
        if n % 2:
            yield n, _mutate(rng.choice(seeds), rng)
        else:  # a fixable mistake in a kubelet configuration, then some damage
            text = rng.choice(kubelet)
            for good, bad in rng.sample(FIXABLE, 3):
                text = text.replace(good, bad, 1)
            yield n, _mutate(text, rng) if rng.random() < 0.5 else text


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Hang()


def _one_pass_stays_inside_its_edits(text: str) -> None:
    """Apply one pass of allowed fixes as `fix` does and check the changed bytes against the edit ranges."""
    report = run_check(["-"], OPTIONS, stdin_text=text)
    if "-" in report.unparsed:
        return
    edits = [(edit, f) for f in report.findings if allowed(f, True) and f.fix for edit in f.fix.edits]
    fixed, applied, _later = apply_edits(text, edits)
    starts = line_starts(text)
    ranges = [r for f in applied for e in (f.fix.edits if f.fix else ()) if (r := edit_range(e, starts, len(text)))]
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, text, fixed, autojunk=False).get_opcodes():
        if tag != "equal":
            assert any(b <= i1 and i2 <= e for b, e in ranges), (tag, text[max(0, i1 - 20):i2 + 20])


@pytest.mark.parametrize("chunk", range(4))
def test_mutated_inputs_never_crash_hang_or_damage(chunk: int) -> None:
    previous = signal.signal(signal.SIGALRM, _alarm)
    fixed_inputs = tried = 0
    try:
        for n, text in _inputs():
            if (n // 2) % 4 != chunk:  # each chunk gets both kinds of input
                continue
            signal.alarm(30)  # each input within seconds (30 on a loaded machine): a hang fails, not a stuck suite
            try:
                run_check(["-"], OPTIONS, stdin_text=text)
                once = fix(["-"], OPTIONS, True, text)
                fixed = once.texts.get("-", text)
                tried, fixed_inputs = tried + 1, fixed_inputs + (fixed != text)
                twice = fix(["-"], OPTIONS, True, fixed)
                assert twice.texts.get("-", fixed) == fixed, f"fix is not idempotent on input {n}"
                _one_pass_stays_inside_its_edits(text)
            except _Hang:
                pytest.fail(f"input {n} took more than 30 s:\n{text[:500]}")
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert fixed_inputs * 10 >= tried, f"only {fixed_inputs} of {tried} inputs reached a fix: the fuzzer is blunt"
