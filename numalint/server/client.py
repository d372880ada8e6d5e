"""The caller's side: hand a run to the warm server when one listens for this installation.

Only builtin modules (``_socket``, ``_signal``, ``marshal``): this runs before anything else on every call."""

from __future__ import annotations

import os
import sys

from numalint.server.protocol import (
    FDS,
    VERSION,
    detach,
    frame_request,
    interpreter,
    private,
    process_settings,
    receive,
    same_user,
    socket_dir,
    socket_path,
)

TYPE_CHECKING = False  # typing itself takes longer to import than the rest of a forwarded run's start
if TYPE_CHECKING:
    from typing import Any

HANDSHAKE_SECONDS = 5.0  # for the server to say it will run (it has forked); after that, no limit
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")  # sent on to the run, as a terminal sends them to a process


def forward(argv: list[str], program: str) -> int | None:
    """Run ``argv`` in the server: its exit status. None when no server listens, or it declined before running
    anything (then the caller runs numalint itself: the result is the same, only slower)."""
    try:
        import _socket
    except ImportError:  # pragma: no cover - every CPython on Linux and macOS has it
        return None
    if not hasattr(_socket, "AF_UNIX") or not hasattr(_socket.socket, "sendmsg") or not private(socket_dir()):
        return None
    for fd in FDS:  # a closed standard stream: the socket would take its number (a new process just fails)
        try:
            os.fstat(fd)
        except OSError:
            return None
    if any("/dev/fd/" in arg or "/proc/" in arg for arg in argv):
        return None  # `<(...)`, `-f sarif=/dev/fd/3`: descriptors of this process the run does not have
    try:
        if os.isatty(0) and os.tcgetpgrp(0) != os.getpgrp():
            return None  # a background job: its reads of the terminal stop it, which a run elsewhere escapes
    except OSError:
        pass
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        return _run(sock, argv, program, _socket)
    finally:
        sock.close()


def _run(sock: Any, argv: list[str], program: str, _socket: Any) -> int | None:
    try:
        sock.settimeout(HANDSHAKE_SECONDS)
        sock.connect(socket_path())
        if not same_user(sock, _socket):
            return None
        process = process_settings()
        request = {"version": VERSION, "op": "run", "argv": argv, "program": program, "cwd": os.getcwd(),
                   "env": dict(os.environ), "process": process, "interpreter": interpreter(),
                   "path": list(sys.path)}
        fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in FDS)
        data = frame_request(request)
        sent = sock.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        if sent < len(data):  # a large environment or argument list: the rest after the descriptors
            sock.sendall(data[sent:])
        reply = receive(sock)
    except OSError:  # no server (no socket, a stale one, refused), a closed stream, or no answer in time
        return None
    if not (isinstance(reply, tuple) and len(reply) == 2 and reply[0] == "pid" and isinstance(reply[1], int)):
        return None  # declined ("refused", why): nothing ran
    _forward_signals(reply[1], process["ignored"])
    try:
        sock.sendall(frame_request("go"))
        sock.settimeout(None)
        outcome = receive(sock)
    except OSError:
        outcome = None
    if isinstance(outcome, tuple) and len(outcome) == 2 and isinstance(outcome[1], int):
        if outcome[0] == "exit":
            return outcome[1]
        if outcome[0] == "signal":  # the run was killed by a signal: end the same way
            import _signal

            try:
                _signal.signal(outcome[1], _signal.SIG_DFL)
            except (OSError, ValueError):  # SIGKILL and SIGSTOP keep their default
                pass
            os.kill(os.getpid(), outcome[1])
            return 128 + outcome[1]  # a signal whose default is not to end the process
    os.write(2, b"numalint: the server's run ended without an exit status; NUMALINT_SERVER=off runs without "
                b"the server\n")
    return 70  # EX_SOFTWARE


def _forward_signals(pid: int, ignored: list[int]) -> None:
    """Pass Ctrl-C and termination on to the run (it is not in this terminal's process group), unless this
    process ignores them (nohup): the run ignores them too."""
    import _signal

    def forward(signum: int, _frame: Any) -> None:
        try:
            os.killpg(pid, signum)  # the run leads its own process group, its worker processes in it
        except OSError:
            pass

    def suspend(_signum: int, _frame: Any) -> None:
        """Ctrl-Z: stop the run, then this process; when continued (fg, bg), continue the run."""
        try:
            os.killpg(pid, _signal.SIGSTOP)
        except OSError:
            pass
        _signal.signal(_signal.SIGTSTP, _signal.SIG_DFL)
        os.kill(os.getpid(), _signal.SIGTSTP)  # stops here until SIGCONT
        _signal.signal(_signal.SIGTSTP, suspend)
        try:
            os.killpg(pid, _signal.SIGCONT)
        except OSError:
            pass

    for name in FORWARDED:
        number = getattr(_signal, name, None)
        if number is not None and number not in ignored:
            _signal.signal(number, forward)
    if hasattr(_signal, "SIGTSTP") and _signal.SIGTSTP not in ignored:
        _signal.signal(_signal.SIGTSTP, suspend)


def start_in_background() -> None:
    """Start this installation's server in a detached copy of this process, without waiting for it
    (NUMALINT_SERVER=auto): the next run goes through it. Quietly nothing when one is starting already or it
    cannot start. A fork, not a new ``python -m numalint``: the server must have this process's interpreter,
    flags and import path, and a ``numalint`` folder in the working directory must not stand in for it."""
    if any(stream is None for stream in (sys.stdin, sys.stdout, sys.stderr)):
        return  # a server's runs set their streams up from the server's own
    try:
        if os.fork():
            return
    except OSError:
        return
    try:
        os.setsid()
        detach()
        from numalint.cli import main
        from numalint.server.daemon import start

        start(main)
    except BaseException:  # nobody to tell: the run in the parent goes on without a server
        pass
    finally:
        os._exit(0)
