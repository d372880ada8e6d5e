#!/usr/bin/env python3
"""Benchmark `numalint check` against the libyaml floor on generated GitOps repositories.

The floor is PyYAML's C loader (libyaml) composing every document with positions, in one
process: the least any YAML linter with exact locations has to do. numalint runs as a whole
process (start-up included) with its default parallelism. Each measurement is the median of
--rounds runs, taken in turns so that machine noise hits both alike.

    pip install pyyaml   # the floor only; numalint does not use it
    python bench/run.py --files 2000 20000 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLOOR = """
import sys, os, yaml
n = 0
for root, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        if name.endswith(('.yaml', '.yml', '.json')):
            with open(os.path.join(root, name), encoding='utf-8') as f:
                for node in yaml.compose_all(f.read(), Loader=yaml.CSafeLoader):
                    n += node.start_mark.line >= 0
print(n)
"""


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workdir", default=None, help="where corpora are generated (default: a temp dir)")
    args = parser.parse_args()
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="numalint-bench-"))
    # An installed wheel ships compiled bytecode; compile a checkout once so start-up is measured the same way.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(HERE.parent / "numalint")], check=False)
    numalint = [sys.executable, "-m", "numalint", "check", "--format", "json", "--fail-on", "never"]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    print("| corpus | libyaml floor (s) | numalint check (s) | ratio |")
    print("|---:|---:|---:|---:|")
    for count in args.files:
        corpus = workdir / f"corpus-{count}"
        if not corpus.exists():
            subprocess.run([sys.executable, str(HERE / "gen_corpus.py"), "--files", str(count), "--out", str(corpus)],
                           check=True, stdout=subprocess.DEVNULL)
        floors, checks = [], []
        for _ in range(args.rounds):
            floors.append(timed([sys.executable, "-c", FLOOR, str(corpus)]))
            checks.append(timed(numalint + [str(corpus)]))
        floor, check = statistics.median(floors), statistics.median(checks)
        print(f"| {count:,} files | {floor:.2f} | {check:.2f} | {check / floor:.2f}x |")
    one = workdir / "one.yaml"
    one.write_text((HERE.parent / "examples" / "workloads" / "du.yaml").read_text())
    singles = [timed(numalint + [str(one)]) for _ in range(max(5, args.rounds))]
    print(f"\none small file, whole process: {statistics.median(singles):.3f} s (median of {len(singles)})")


if __name__ == "__main__":
    main()
