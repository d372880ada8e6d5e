"""Independent tasks shared out among forked processes: reading chunks of files, proving fixes pool by pool.

A task is a function without arguments whose result can be pickled; the tasks come with the fork, only task
indexes and results cross a pipe. Workers take tasks from the front of the list, this process from the back
(so order the costliest first), each as soon as it is free: no process waits while another has work queued.
Results are unpickled as they come, while this process works on. A task that raises in a worker raises here,
as it would have in one process; the tasks of a worker that died (the out-of-memory killer) are given to
``lost``, so a run never hangs on one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

T = TypeVar("T")

MIN_COST = 4000  # proofs below this estimated cost (workloads analysed) run in one process: forking costs more


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def run_tasks(tasks: Sequence[Callable[[], T]], costs: Sequence[int], processes: int) -> list[T]:
    """The results of ``tasks``, in order, computed by up to ``processes`` processes (one when the estimated
    ``costs`` add up to little, or when this platform cannot fork). A task whose worker died runs here."""
    processes = min(processes, len(tasks))
    ctx = fork_context() if processes > 1 and sum(costs) >= MIN_COST else None
    if ctx is None:
        return [task() for task in tasks]
    order = sorted(range(len(tasks)), key=lambda i: -costs[i])  # the costliest first: workers take the front
    done = share([tasks[i] for i in order], processes - 1, ctx, lambda i: tasks[order[i]]())
    results: dict[int, T] = {order[i]: value for i, value in enumerate(done)}
    return [results[i] for i in range(len(tasks))]


def fork_context() -> Any:
    """multiprocessing's fork context; None where processes cannot fork."""
    import multiprocessing

    try:
        return multiprocessing.get_context("fork")
    except ValueError:  # no fork on this platform
        return None


class _Handout:
    """Task indexes handed out from both ends: workers take from the front, this process from the back."""

    def __init__(self, count: int) -> None:
        import threading  # here: a run in one process never needs it (start-up time)

        self.front, self.back = 0, count - 1
        self.lock = threading.Lock()

    def take(self, front: bool) -> int | None:
        with self.lock:
            if self.front > self.back:
                return None
            if front:
                self.front += 1
                return self.front - 1
            self.back -= 1
            return self.back + 1


def _worker(conn: Any, tasks: Sequence[Callable[[], Any]]) -> None:
    """A forked worker: task indexes in, pickled (ok, result or exception) out."""
    import gc
    import pickle

    gc.disable()  # a worker's work makes next to no cyclic garbage, and the process ends with it
    try:
        while (index := conn.recv()) is not None:
            try:
                payload: tuple[bool, object] = (True, tasks[index]())
            except Exception as exc:  # a bug: raised again in the main process, as a single process would
                payload = (False, exc)
            conn.send_bytes(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL))
    except (EOFError, OSError, KeyboardInterrupt):
        pass


def _loaded(loads: Callable[[bytes], Any], data: bytes) -> tuple[bool, Any]:
    """A worker's answer; a garbled one counts as a lost result (``share`` gives the task to ``lost``)."""
    try:
        answer = loads(data)
    except Exception as exc:  # noqa: BLE001 - whatever the bytes hold
        return (False, _Garbled(exc))
    return answer if isinstance(answer, tuple) and len(answer) == 2 else (False, _Garbled(answer))


class _Garbled(Exception):
    """A worker's answer that could not be read."""


def share_in_rounds(tasks: Sequence[Callable[[], T]], workers: int, ctx: Any, lost: Callable[[int], T],
                    per_worker: int) -> list[T]:
    """``share``, but this process only gathers the results, and the workers are forked again after every
    ``per_worker`` tasks each: what reading thousands of files leaves scattered on a process's heap (it never goes
    back to the system) stays bounded, in every process, by what a round reads."""
    results: list[T] = []
    step = max(1, workers * per_worker)
    for start in range(0, len(tasks), step):
        results += share(tasks[start:start + step], workers, ctx, partial(_shifted, lost, start), helping=False)
    return results


def _shifted(lost: Callable[[int], T], start: int, index: int) -> T:
    return lost(start + index)


def share(tasks: Sequence[Callable[[], T]], workers: int, ctx: Any, lost: Callable[[int], T],
          helping: bool = True) -> list[T]:
    """The results of ``tasks`` (in order) from ``workers`` forked processes and this one (unless not
    ``helping``); ``lost(i)`` stands for the result of task ``i`` when the worker holding it died."""
    import pickle
    import threading
    from multiprocessing.connection import wait

    # no more processes than tasks: -j 100000 forks no idle ones
    workers = min(workers, len(tasks) - (1 if helping else 0))
    handout = _Handout(len(tasks))
    received: dict[int, tuple[bool, Any]] = {}
    started: list[tuple[Any, Any, list[int]]] = []  # (process, connection, indexes it holds, in order)
    finished = False
    try:
        for _ in range(workers):
            parent, child = ctx.Pipe()
            process = ctx.Process(target=_worker, args=(child, tasks), daemon=True)
            process.start()
            child.close()
            started.append((process, parent, []))
            for _ in range(2):  # one to work on and one queued, so a worker never waits for the next index
                index = handout.take(front=True)
                if index is None:
                    break
                started[-1][2].append(index)
                try:
                    parent.send(index)
                except OSError:  # it died at once (the out-of-memory killer): what it holds is lost
                    break

        def receive() -> None:
            holding: dict[Any, list[int]] = {}
            for _, pipe, held in started:
                if held:
                    holding[pipe] = held
                    continue
                try:
                    pipe.send(None)  # nothing for it to do
                except OSError:  # already gone
                    pass
            while holding:
                for ready in wait(list(holding)):
                    conn: Any = ready
                    held = holding[conn]
                    try:
                        data = conn.recv_bytes()
                        done = held.pop(0)
                        index = handout.take(front=True)
                        if index is not None:
                            held.append(index)
                            conn.send(index)
                        elif not held:
                            conn.send(None)  # done: the worker exits
                        # while the worker works on the next task; a process that only gathers keeps the bytes
                        # until every task is done, so what it keeps is not strewn among what unpickling drops
                        received[done] = _loaded(pickle.loads, data) if helping else (True, data)
                    except (EOFError, OSError):  # the worker died: what it held is lost
                        held.clear()
                    if not held:
                        del holding[conn]

        local: dict[int, T] = {}
        if helping:
            receiver = threading.Thread(target=receive, daemon=True)
            receiver.start()
            while (index := handout.take(front=False)) is not None:
                local[index] = tasks[index]()
            receiver.join()
        else:  # only gathering: no second thread (nor the second heap the C library gives a thread)
            receive()
            while (index := handout.take(front=False)) is not None:
                local[index] = tasks[index]()  # what no worker took, its workers having died (out of memory)
            for index in sorted(received):
                ok, data = received[index]
                if ok:
                    received[index] = _loaded(pickle.loads, data)
        finished = True
    finally:
        for process, conn, _held in started:
            conn.close()
            if not finished:  # interrupted: the workers' results are not wanted
                process.kill()
            process.join()
    results: list[T] = []
    for index in range(len(tasks)):
        if index in local:
            results.append(local.pop(index))
        elif index in received:
            ok, value = received.pop(index)
            if ok:
                results.append(value)
            elif isinstance(value, _Garbled):
                results.append(lost(index))
            else:
                raise value
        else:
            results.append(lost(index))
    return results
