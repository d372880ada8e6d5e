#!/usr/bin/env python3
"""Issue 13, target 3: a pre-commit run on one file, whole process, with bytecode.

Times `numalint check one.yaml` (a 25-line Deployment from examples/) beside `python -c pass`, in turns,
and reports the median wall and CPU time and the ratio to `python -c pass` (target: under 0.06 s, at most
5x); also `numalint check node.yaml`, the same Deployment after a KubeletConfiguration (a run that needs the
alignment core and the simulation). Both again through a warm `numalint server` (started in a private
runtime directory for the benchmark, stopped at the end): what a pre-commit run costs once the server runs.
Then `python -X importtime` of the one.yaml run: the import total and the biggest importers. `--baseline DIR`
adds another checkout (old beside new).

    python bench/startup.py --rounds 15 [--baseline /path/to/old/checkout]
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, Command, compile_package, in_turns, loadavg, median, numalint, paired_ratio  # noqa: E402


def importtime(cmd: list[str], cwd: Path | str, runs: int = 5) -> tuple[float, list[tuple[str, float]]]:
    """(median total import ms, the top-level packages with the most import time, self ms)."""
    totals: list[float] = []
    per: dict[str, list[float]] = collections.defaultdict(list)
    for _ in range(runs):
        err = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], cwd=cwd, capture_output=True, text=True).stderr
        groups: collections.Counter[str] = collections.Counter()
        for line in err.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            own, _cumulative, name = (part.strip() for part in line[len("import time:"):].split("|"))
            parts = name.split(".")
            groups[".".join(parts[:2]) if parts[0] == "numalint" else parts[0]] += int(own)
        totals.append(sum(groups.values()) / 1000)
        for group, us in groups.items():
            per[group].append(us / 1000)
    top = sorted(((g, statistics.median(v)) for g, v in per.items()), key=lambda item: -item[1])[:10]
    return statistics.median(totals), top


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--baseline", default=None, help="another numalint checkout to time beside this one")
    args = parser.parse_args()
    roots = {"new": ROOT} | ({"old": Path(args.baseline).resolve()} if args.baseline else {})
    for root in roots.values():
        compile_package(root)
    folder = Path(tempfile.mkdtemp(prefix="numalint-one-"))
    workload = (ROOT / "examples" / "workloads" / "du.yaml").read_text()
    kubelet = (ROOT / "examples" / "nodes" / "kubelet-config.yaml").read_text()
    (folder / "one.yaml").write_text(workload)
    (folder / "node.yaml").write_text(kubelet.rstrip("\n") + "\n---\n" + workload)
    commands: dict[str, Command] = {"python -c pass": ([sys.executable, "-c", "pass"], ROOT)}
    for name in ("one.yaml", "node.yaml"):
        for label, root in roots.items():
            cmd, cwd = numalint(root)
            commands[f"{label}: numalint check {name}"] = (cmd + ["check", str(folder / name)], cwd)
    runtime = tempfile.mkdtemp(prefix="nl-")  # the benchmark's own server, never the user's
    served_env = {**os.environ, "XDG_RUNTIME_DIR": runtime}
    served_env.pop("NUMALINT_SERVER", None)
    cmd, cwd = numalint(ROOT)
    subprocess.run(cmd + ["server", "start"], cwd=cwd, env=served_env, check=True, stdout=subprocess.DEVNULL)
    for name in ("one.yaml", "node.yaml"):
        commands[f"new, server running: numalint check {name}"] = (cmd + ["check", str(folder / name)], cwd,
                                                                   served_env)
    print(f"python {sys.version.split()[0]}, CPUs usable {len(os.sched_getaffinity(0))}, load {loadavg()}")
    try:
        samples = in_turns(commands, args.rounds)
    finally:
        subprocess.run(cmd + ["server", "stop"], cwd=cwd, env=served_env, stdout=subprocess.DEVNULL)
    print("| command | wall (s) | CPU (s) | wall / python -c pass |")
    print("|---|---:|---:|---:|")
    for name, runs in samples.items():
        print(f"| {name} | {median([s.wall for s in runs]):.3f} | {median([s.cpu for s in runs]):.3f} | "
              f"{paired_ratio(runs, samples['python -c pass']):.1f}x |")
    for name, (cmd, cwd, *_env) in commands.items():
        if name.endswith("one.yaml") and "server" not in name:
            total, top = importtime(cmd, cwd)
            print(f"\n{name}: imports {total:.0f} ms (-X importtime, median of 5); biggest: "
                  + ", ".join(f"{group} {ms:.1f}" for group, ms in top))
    print(f"\nload after: {loadavg()}")


if __name__ == "__main__":
    main()
