#!/usr/bin/env python3
"""Benchmark the simulation end to end: `numalint simulate` and `numalint check --topology` as a user runs them.

Cases come from bench/gen_simulation.py (a verbatim copy of the shared deterministic generator): one pool of
N identical 2-NUMA nodes (static CPU manager, Static memory manager, single-numa-node) and P Guaranteed pods
as Deployments of 10 replicas. Each command runs as a whole process (start-up, reading, simulation, output
written to /dev/null) pinned to one CPU; wall time and CPU time (user + system, the process's own) are the
median of --rounds runs. The target (issue 13): 1,000 nodes x 10,000 pods under 10 s, and 10x the nodes and
pods at most 12x the time.

    python bench/simulate.py [--sizes 100x1000 1000x10000] [--rounds 3] [--old PATH]

--old PATH also times another checkout of numalint (PYTHONPATH=PATH, e.g. `git worktree add /tmp/old main`),
taking turns with this one so machine noise hits both alike.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _one_cpu() -> None:
    allowed = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {allowed[-1]})


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``cmd`` pinned to one CPU, from ``cwd`` (the checkout timed: ``python -m``
    puts the working directory first on sys.path, before PYTHONPATH)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env, cwd=cwd,
                   preexec_fn=_one_cpu)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def commands(case: Path) -> dict[str, list[str]]:
    numalint = [sys.executable, "-m", "numalint"]
    return {
        "simulate": numalint + ["simulate", str(case)],
        "check --topology": numalint + ["check", "--fail-on", "never", str(case / "apps"),
                                        str(case / "kubelet-config.yaml"), "--topology", str(case / "topology.yaml")],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=["100x1000", "1000x10000"], help="NODESxPODS")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--old", default=None, help="another numalint checkout to time beside this one")
    parser.add_argument("--workdir", default=None, help="where cases are generated (default: a temp dir)")
    args = parser.parse_args()
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="numalint-sim-")).resolve()  # run from each checkout
    checkouts = {"new": HERE.parent} | ({"old": Path(args.old).resolve()} if args.old else {})
    for checkout in checkouts.values():  # as an installed wheel ships bytecode
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(checkout / "numalint")], check=False)
    print(f"python {sys.version.split()[0]}, one CPU of {os.cpu_count()}; load before: "
          f"{Path('/proc/loadavg').read_text().strip()}")
    results: dict[tuple[str, str, str], tuple[float, float]] = {}
    for size in args.sizes:
        nodes, pods = size.split("x")
        case = workdir / f"sim-{nodes}-{pods}"
        if not case.exists():
            subprocess.run([sys.executable, str(HERE / "gen_simulation.py"), nodes, pods, str(case)], check=True,
                           stdout=subprocess.DEVNULL)
        for command, cmd in commands(case).items():
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in checkouts}
            for _ in range(args.rounds):
                for name, checkout in checkouts.items():
                    env = {**os.environ, "PYTHONPATH": str(checkout)}
                    runs[name].append(timed(cmd, env, checkout))
            for name, measured in runs.items():
                results[(name, command, size)] = (statistics.median(w for w, _ in measured),
                                                  statistics.median(c for _, c in measured))
    print("\n| numalint | command | nodes x pods | wall (s) | CPU (s) |")
    print("|---|---|---|---:|---:|")
    for (name, command, size), (wall, cpu) in results.items():
        print(f"| {name} | `{command}` | {size} | {wall:.2f} | {cpu:.2f} |")
    if len(args.sizes) >= 2:
        small, large = args.sizes[0], args.sizes[-1]
        print(f"\nscaling {small} -> {large} (target <= 12x for 10x nodes and pods):")
        for name in checkouts:
            for command in commands(workdir):
                a, b = results[(name, command, small)], results[(name, command, large)]
                print(f"  {name} {command}: wall {b[0] / a[0]:.1f}x, CPU {b[1] / a[1]:.1f}x")
    print(f"\nload after: {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
