#!/usr/bin/env python3
"""Issue 13, target 4: peak memory of `numalint check` on 20,000 files against 200 files.

Peak RSS is wait4's ru_maxrss of the whole process (the largest of it and the workers it waited for), the
same figure as `/usr/bin/time -v`. Judged by: RSS(20,000 files) / RSS(200 files), target at most 1.5.
`--baseline DIR` adds another checkout (old beside new).

    python bench/memory.py --files 200 20000 [--baseline /path/to/old/checkout]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, compile_package, generate, in_turns, loadavg, numalint  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, nargs=2, default=[200, 20000])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--baseline", default=None, help="another numalint checkout to measure beside this one")
    args = parser.parse_args()
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="numalint-bench-"))
    roots = {"new": ROOT} | ({"old": Path(args.baseline).resolve()} if args.baseline else {})
    for root in roots.values():
        compile_package(root)
    small, large = (str(generate(n, workdir)) for n in args.files)
    print(f"load {loadavg()}")
    print(f"| numalint | {args.files[0]:,} files (MiB) | {args.files[1]:,} files (MiB) | ratio | KiB per extra file |")
    print("|---|---:|---:|---:|---:|")
    for label, root in roots.items():
        cmd, cwd = numalint(root)
        check = cmd + ["check", "--format", "json", "--fail-on", "never"]
        runs = in_turns({"small": (check + [small], cwd), "large": (check + [large], cwd)}, args.rounds)
        lo, hi = max(s.rss_kib for s in runs["small"]), max(s.rss_kib for s in runs["large"])
        per_file = (hi - lo) / (args.files[1] - args.files[0])
        print(f"| {label} | {lo / 1024:.1f} | {hi / 1024:.1f} | {hi / lo:.2f}x | {per_file:.2f} |")


if __name__ == "__main__":
    main()
