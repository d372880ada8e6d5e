"""Helpers shared by the end-to-end benchmarks: whole processes timed in turns, CPU time from wait4."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


@dataclass
class Sample:
    wall: float
    cpu: float  # user + system of the process and the workers it waited for
    rss_kib: int  # peak resident set of the process or of its largest worker


def run(cmd: list[str], cwd: Path | str = ROOT, stdin: str | None = None, env: dict[str, str] | None = None) -> Sample:
    """One whole process, output discarded; without a numalint server unless ``env`` says otherwise (a server
    the user started would otherwise answer the runs timed as new processes)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            env=env if env is not None else {**os.environ, "NUMALINT_SERVER": "off"})
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin.encode())
        proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    return Sample(time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


Command = tuple[list[str], Path | str] | tuple[list[str], Path | str, dict[str, str]]  # cmd, cwd[, env]


def in_turns(commands: dict[str, Command], rounds: int) -> dict[str, list[Sample]]:
    """Each command once per round, the order rotated every round, so machine noise hits all alike."""
    names = list(commands)
    samples: dict[str, list[Sample]] = {name: [] for name in names}
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            cmd, cwd, *env = commands[name]
            samples[name].append(run(cmd, cwd, env=env[0] if env else None))
    return samples


def median(values: list[float]) -> float:
    return statistics.median(values)


def paired_ratio(a: list[Sample], b: list[Sample], what: str = "wall") -> float:
    """Median of the round-by-round ratios a / b."""
    return statistics.median(getattr(x, what) / getattr(y, what) for x, y in zip(a, b, strict=True))


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def compile_package(root: Path) -> None:
    """An installed wheel ships bytecode; compile a checkout once so start-up is measured the same way."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "numalint")], check=False,
                   stdout=subprocess.DEVNULL)


def numalint(root: Path | None = None) -> tuple[list[str], Path]:
    """The command that runs numalint from ``root`` (a checkout; default: this one) and its working directory."""
    root = root or ROOT
    return [sys.executable, "-m", "numalint"], root


def generate(count: int, workdir: Path) -> Path:
    corpus = workdir / f"corpus-{count}"
    if not corpus.exists():
        subprocess.run([sys.executable, str(HERE / "gen_corpus.py"), "--files", str(count), "--out", str(corpus)],
                       check=True, stdout=subprocess.DEVNULL)
    return corpus
