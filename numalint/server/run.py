"""One run in the server: a supervisor (the server's fork for the connection) and the run itself (its fork).

The run takes on everything a new process would inherit from the caller (streams, directory, environment, umask,
limits, CPU affinity, priority, ignored and blocked signals) and leads its own process group, which the caller's
forwarded signals reach. The supervisor waits for it and sends back how it ended (an exit status, or the signal
that killed it, so that the caller ends the same way); when the caller goes away first (killed), it kills the run:
a new process would have died with its caller."""

from __future__ import annotations

import atexit
import io
import os
import select
import signal
import socket
import sys
import traceback
from collections.abc import Callable
from typing import Any

from numalint.server.protocol import FDS, frame, receive

GO_SECONDS = 5.0  # for the caller's go-ahead once it knows the run's process id


def supervise(conn: socket.socket, request: dict[str, Any], fds: list[int], command: Callable[..., Any]) -> None:
    """Start the run, hand the caller its process id, let it go on the caller's word, report how it ended.
    Never returns."""
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    wake_r, wake_w = os.pipe()
    for fd in (wake_r, wake_w):
        os.set_blocking(fd, False)
    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)  # `pkill numalint` reaches the run itself: this reports how it ended
    signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)  # a handler: only then is the wake-up fd written
    signal.set_wakeup_fd(wake_w)
    pid = os.fork()
    if pid == 0:
        try:
            signal.set_wakeup_fd(-1)
            for fd in (ready_r, go_w, wake_r, wake_w):
                os.close(fd)
            _run(conn, request, fds, command, ready_w, go_r)
        finally:
            os._exit(70)
    for fd in (ready_w, go_r, *fds):
        os.close(fd)
    ready = os.read(ready_r, 4096)
    if ready != b"R":  # it could not take on the caller's settings: the caller runs numalint itself
        reason = ready[1:].decode(errors="replace") or "the run could not start"
        _send(conn, ("refused", reason))
        os.waitpid(pid, 0)
        os._exit(0)
    try:
        _send(conn, ("pid", pid))
        conn.settimeout(GO_SECONDS)
        go = receive(conn, untrusted=True) == "go"
    except OSError:
        go = False
    if not go:  # the caller gave up waiting (it runs numalint itself): the run ends without running
        os.close(go_w)
        os.waitpid(pid, 0)
        os._exit(0)
    try:
        os.write(go_w, b"G")
    except OSError:  # the run died before its go-ahead (a signal passed on): how it ended is reported below
        pass
    os.close(go_w)
    conn.settimeout(None)
    status = _wait(conn, pid, wake_r)
    if status is None:  # the caller is gone: so is the run, as a new process dies with its caller
        os._exit(0)
    if os.WIFSIGNALED(status):
        _send(conn, ("signal", os.WTERMSIG(status)))
    else:
        _send(conn, ("exit", os.waitstatus_to_exitcode(status)))
    os._exit(0)


def _wait(conn: socket.socket, pid: int, wake: int) -> int | None:
    """The run's wait status; None when the caller closed the connection first (the run is then killed)."""
    caller = conn.fileno()
    while True:
        readable, _, _ = select.select([caller, wake], [], [])
        if wake in readable:
            try:
                while os.read(wake, 64):
                    pass
            except BlockingIOError:
                pass
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
        if caller in readable:
            try:
                data = conn.recv(4096)
            except OSError:
                data = b""
            if not data:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
                os.waitpid(pid, 0)
                return None


def _send(conn: socket.socket, message: Any) -> None:
    try:
        conn.sendall(frame(message))
    except OSError:
        pass


def _run(conn: socket.socket, request: dict[str, Any], fds: list[int], command: Callable[..., Any],
         ready: int, go: int) -> None:
    """The run itself: take on the caller's process, say so, wait for the go-ahead, run, exit with its status."""
    os.setpgid(0, 0)  # the caller signals this group: the run and the worker processes it starts
    problem = _take_on(request, fds)
    os.write(ready, b"R" if problem is None else b"F" + problem.encode())
    os.close(ready)
    conn.close()
    try:
        if problem is not None or os.read(go, 1) != b"G":
            os._exit(0)
        os.close(go)
        status = _command_line(command, list(request["argv"][1:]), request["program"])
    except KeyboardInterrupt:  # outside click's handling: as Python ends on it, a traceback and death by SIGINT
        traceback.print_exc()
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        status = 128 + signal.SIGINT
    os._exit(status)


def _take_on(request: dict[str, Any], fds: list[int]) -> str | None:
    """Become what a new process of the caller would be; why not, when something cannot be taken on."""
    settings = request["process"]
    try:
        os.chdir(request["cwd"])
    except OSError:
        return "cannot enter the caller's working directory"
    try:
        import resource

        for name, (soft, hard) in settings.get("limits", {}).items():
            resource.setrlimit(getattr(resource, name), (soft, hard))
        if "cpus" in settings and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, settings["cpus"])
        os.setpriority(os.PRIO_PROCESS, 0, settings["nice"])
    except (OSError, ValueError, AttributeError, ImportError):
        return "cannot take on the caller's limits, CPUs or priority"
    for target, fd in zip(FDS, fds, strict=True):
        os.dup2(fd, target)
    for fd in fds:
        if fd not in FDS:
            os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    import time

    time.tzset()
    os.umask(settings["umask"])
    sys.argv = list(request["argv"])
    sys.path[:] = request["path"]  # what a module imported during the run is looked up in
    if isinstance(sys.stdout, io.TextIOWrapper):  # line-buffered on a terminal, as a new process sets it up
        sys.stdout.reconfigure(line_buffering=sys.stdout.isatty())
    _take_on_signals(settings["ignored"], settings["mask"])
    return None


def _take_on_signals(ignored: list[int], blocked: list[int]) -> None:
    """The caller's ignored signals stay ignored (nohup, a shell's background job), the others are as Python
    sets them up (Ctrl-C raises KeyboardInterrupt), the caller's blocked ones blocked."""
    for number in range(1, signal.NSIG):
        try:
            if number in ignored:
                signal.signal(number, signal.SIG_IGN)
            elif number == signal.SIGINT:
                signal.signal(number, signal.default_int_handler)
            else:
                signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError, RuntimeError):  # SIGKILL, SIGSTOP and the real-time ones libc keeps
            continue
    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _command_line(main: Callable[..., Any], args: list[str], program: str) -> int:
    """Run the command line as ``python -m numalint`` would: the exit status, exit handlers run, streams
    flushed (120 when stdout cannot be, as Python answers)."""
    try:
        main(args=args, prog_name=program)
        status = 0
    except SystemExit as exit:
        status = _exit_status(exit.code)
    except KeyboardInterrupt:
        raise
    except BaseException:  # as the interpreter: the traceback on stderr, status 1
        traceback.print_exc()
        status = 1
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        status = 120
    try:
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    return status


def _exit_status(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1
