#!/usr/bin/env python3
"""Issue 13, target 2: `numalint check` (every rule) on generated GitOps repositories against the libyaml floor.

The floor is PyYAML's C loader (libyaml) composing every document with positions, in one process: the least
any YAML linter with exact locations has to do (PERF.md: kubeconform takes 1.24x this floor idle). numalint
runs as a whole process, start-up included, with its default parallelism and with `-j 1`. Commands take turns
round by round; ratios are taken per round, then the median. Judged by: default -j / floor (target <= 1.1) and
default -j / -j 1 (target <= 1.0, also under load). `--baseline DIR` adds another checkout (old beside new).

    pip install pyyaml   # the floor only; numalint does not use it
    python bench/run.py --files 2000 20000 --rounds 5 [--baseline /path/to/old/checkout]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, compile_package, generate, in_turns, loadavg, median, numalint, paired_ratio  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workdir", default=None, help="where corpora are generated (default: a temp dir)")
    parser.add_argument("--baseline", default=None, help="another numalint checkout to time beside this one")
    args = parser.parse_args()
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="numalint-bench-"))
    roots = {"new": ROOT} | ({"old": Path(args.baseline).resolve()} if args.baseline else {})
    for root in roots.values():
        compile_package(root)
    print(f"python {sys.version.split()[0]}, CPUs usable {len(os.sched_getaffinity(0))}, load {loadavg()}")
    print("| corpus | command | wall (s) | CPU (s) | wall / floor | wall / same -j 1 |")
    print("|---:|---|---:|---:|---:|---:|")
    for count in args.files:
        corpus = str(generate(count, workdir))
        commands: dict[str, tuple[list[str], Path | str]] = {"floor": ([sys.executable, "-c", FLOOR, corpus], ROOT)}
        for label, root in roots.items():
            cmd, cwd = numalint(root)
            check = cmd + ["check", "--format", "json", "--fail-on", "never"]
            commands[f"{label} default -j"] = (check + [corpus], cwd)
            commands[f"{label} -j 1"] = (check + ["-j", "1", corpus], cwd)
        samples = in_turns(commands, args.rounds)
        for name, runs in samples.items():
            versus = "" if name == "floor" else f"{paired_ratio(runs, samples['floor']):.2f}x"
            single = name.replace("default -j", "-j 1")
            jobs = f"{paired_ratio(runs, samples[single]):.2f}x" if "default" in name else ""
            print(f"| {count:,} files | {name} | {median([s.wall for s in runs]):.2f} | "
                  f"{median([s.cpu for s in runs]):.2f} | {versus} | {jobs} |")
    print(f"\nload after: {loadavg()}")


if __name__ == "__main__":
    main()
