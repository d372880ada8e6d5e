"""Independent tasks shared out among forked processes: the proofs of many fixes, each on its own pool.

Each task is a function without arguments whose result can be pickled. With one process (``-j 1``, few or
cheap tasks, no ``fork``) they run here, in order. Otherwise the tasks are dealt out by their estimated cost
(the largest first, each to the least loaded process); forked children run theirs and send back the results,
while this process runs its own. A child that dies or fails only costs time: its tasks run here afterwards,
so the results never depend on how the work was shared.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

MIN_COST = 4000  # below this estimated cost, forking takes longer than the work it would share


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def run_tasks(tasks: Sequence[Callable[[], T]], costs: Sequence[int], processes: int) -> list[T]:
    """The results of ``tasks``, in order, computed by up to ``processes`` processes."""
    processes = min(processes, len(tasks))
    if processes < 2 or sum(costs) < MIN_COST:
        return [task() for task in tasks]
    import multiprocessing

    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform
        return [task() for task in tasks]
    shares = _deal(costs, processes)
    results: dict[int, T] = {}
    children = [_start(ctx, tasks, share) for share in shares[1:] if share]
    try:
        for index in shares[0]:
            results[index] = tasks[index]()
        for child, share in children:
            results.update(_collect(child, share))
    finally:
        for (process, conn), _share in children:
            conn.close()
            process.join()
    return [results[i] if i in results else tasks[i]() for i in range(len(tasks))]


def _deal(costs: Sequence[int], processes: int) -> list[list[int]]:
    """Task indexes per process: the costliest first, each to the process with the least so far."""
    loads = [0] * processes
    shares: list[list[int]] = [[] for _ in range(processes)]
    for index in sorted(range(len(costs)), key=lambda i: -costs[i]):
        least = loads.index(min(loads))
        shares[least].append(index)
        loads[least] += max(1, costs[index])  # a task costs something, however small its estimate
    return [sorted(share) for share in shares]


def _start(ctx: Any, tasks: Sequence[Callable[[], Any]], share: list[int]) -> tuple[tuple[Any, Any], list[int]]:
    parent, child = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(child, tasks, share), daemon=True)
    process.start()
    child.close()
    return (process, parent), share


def _child(conn: Any, tasks: Sequence[Callable[[], Any]], share: list[int]) -> None:
    """Run ``share`` and send back {index: result}; a failure sends nothing (the parent runs them again)."""
    import pickle

    try:
        conn.send_bytes(pickle.dumps({index: tasks[index]() for index in share}, protocol=pickle.HIGHEST_PROTOCOL))
    except BaseException:  # noqa: BLE001 - any failure: the parent runs these tasks itself
        pass
    finally:
        conn.close()


def _collect(child: tuple[Any, Any], share: list[int]) -> dict[int, Any]:
    """What a child computed; nothing when it died or failed."""
    import pickle

    _, conn = child
    try:
        found = pickle.loads(conn.recv_bytes())
    except (EOFError, OSError, pickle.UnpicklingError):
        return {}
    return {i: found[i] for i in share if i in found} if isinstance(found, dict) else {}
