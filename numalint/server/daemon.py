"""The server's side: start in the background, listen, and run each request in a fresh fork of the warm process
when nothing would make that run differ from one in a new process; decline otherwise."""

from __future__ import annotations

import os
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable
from typing import Any

from numalint.server.protocol import (
    FDS,
    MAX_MESSAGE,
    VERSION,
    decode_request,
    detach,
    frame,
    frame_request,
    interpreter,
    interpreter_settings,
    package_dir,
    private,
    receive,
    receive_exactly,
    same_user,
    socket_dir,
    socket_path,
)

REQUEST_SECONDS = 5.0  # for a caller to send its whole request
DEFAULT_IDLE_SECONDS = 3600  # a server that ran nothing for an hour goes away


class ServerError(Exception):
    """A server could not be started (told to the user as it is)."""


def status() -> dict[str, Any] | None:
    """What the server of this installation says about itself, or None when none listens."""
    reply = _ask("status")
    return reply if isinstance(reply, dict) else None


def stop() -> int | None:
    """Ask the server to stop and wait until it has (so a new one can start at once): its process id, or None
    when none listened."""
    reply = _ask("stop")
    if not (isinstance(reply, tuple) and len(reply) == 2 and reply[0] == "stopping" and isinstance(reply[1], int)):
        return None
    deadline = time.monotonic() + REQUEST_SECONDS
    while time.monotonic() < deadline:  # the server holds its lock until it has gone
        try:
            os.close(_lock(socket_path() + ".lock"))
            break
        except ServerError:
            time.sleep(0.01)
    return reply[1]


def _ask(op: str) -> Any:
    if not private(socket_dir()):
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(REQUEST_SECONDS)
        try:
            sock.connect(socket_path())
            sock.sendall(frame_request({"version": VERSION, "op": op}))
            return receive(sock)
        except OSError:
            return None


def start(command: Callable[..., Any], idle_seconds: float = DEFAULT_IDLE_SECONDS) -> int:
    """Bind the socket, import numalint whole, then go to the background, running ``command`` (the click command
    line) for each request: the server's process id. The socket listens before this returns, so the next run
    already goes through it."""
    if any(stream is None for stream in (sys.stdin, sys.stdout, sys.stderr)):
        raise ServerError("start the server with its standard streams open (runs set theirs up from them)")
    running = status()
    if running is not None:
        raise ServerError(f"a server already runs for this installation (pid {running['pid']}); "
                          "`numalint server stop` stops it")
    directory, path = socket_dir(), socket_path()
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError as error:
        raise ServerError(f"cannot make {directory}: {error.strerror or error}") from None
    if not private(directory):
        raise ServerError(f"{directory} must be a directory of yours that no one else may enter (chmod 700 it)")
    lock = _lock(path + ".lock")  # held by the server for its life: two starts at once make one server
    try:
        try:
            os.unlink(path)  # left by a server that was killed: nothing answers on it (status() above)
        except FileNotFoundError:
            pass
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(path)
            listener.listen(64)
        except OSError as error:
            listener.close()
            raise ServerError(f"cannot listen on {path}: {error.strerror or error}") from None
        began = time.time_ns()
        _warm()
        server = _Server(listener, lock, path, _watched_files(), idle_seconds, command)
        if any(stamp is not None and began < stamp[0] <= time.time_ns() for stamp in server.stamps):
            listener.close()
            raise ServerError("numalint's files changed while the server was starting: start it again")
        return _daemonize(server.serve, listener, lock)
    finally:
        os.close(lock)  # the server's copy keeps the lock


def _lock(path: str) -> int:
    import fcntl

    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        raise ServerError(f"cannot open {path}: {error.strerror or error}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise ServerError("a server of this installation is starting or running") from None
    return fd


def _warm() -> None:
    """Import every numalint module and fill the caches that only depend on numalint's own data, so that no
    run pays for them (the files they come from are watched: a change stops the server)."""
    import importlib
    import pkgutil

    import numalint

    for info in pkgutil.walk_packages(numalint.__path__, "numalint."):
        if info.name != "numalint.__main__":
            try:
                importlib.import_module(info.name)
            except Exception:  # an optional module this installation cannot import (or one being edited): runs
                pass  # import it as a new process does
    from numalint.catalogue import catalogue
    from numalint.data import data_dir
    from numalint.reading.events import Events
    from numalint.views.schema import validator

    catalogue()
    Events("warm: up\n").close()  # finds the C parser and checks its calls once
    for name in sorted(os.listdir(data_dir("schemas"))):
        if name.endswith(".schema.json"):
            validator(name)  # imports jsonschema and reads the schema (the run validating against it is the same)


def _watched_files() -> list[str]:
    """The files the warm process was made from, outside the standard library: every imported module's (numalint,
    click, ruamel.yaml...) and the rule catalogue and schemas."""
    import sysconfig

    from numalint.data import data_dir

    paths = sysconfig.get_paths()
    installed = tuple(os.path.join(paths[key], "") for key in ("purelib", "platlib"))
    stdlib = os.path.join(paths["stdlib"], "")
    files = {getattr(module, "__file__", None) for module in list(sys.modules.values())}
    watched = sorted(path for path in files
                     if isinstance(path, str) and (path.startswith(installed) or not path.startswith(stdlib)))
    for name in ("rules", "schemas"):
        folder = str(data_dir(name))
        watched += [folder, *sorted(os.path.join(folder, entry) for entry in os.listdir(folder))]
    return watched


def _stamps(files: list[str]) -> list[tuple[int, int, int] | None]:
    stamps: list[tuple[int, int, int] | None] = []
    for path in files:
        try:
            info = os.stat(path)
        except OSError:
            stamps.append(None)
            continue
        stamps.append((info.st_mtime_ns, info.st_size, info.st_ino))
    return stamps


def _daemonize(serve: Any, listener: socket.socket, lock: int) -> int:
    """Run ``serve`` in a process of its own session, its streams on /dev/null and no other descriptor of the
    starting process kept (a pipe it was started from would never close): that process's id."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    reader, writer = os.pipe()
    first = os.fork()
    if first == 0:
        try:
            os.close(reader)
            os.setsid()
            if os.fork():
                os._exit(0)
            os.write(writer, str(os.getpid()).encode())
            os.close(writer)
            detach(listener.fileno(), lock)
            os.chdir("/")
            serve()
        finally:
            os._exit(0)
    os.close(writer)
    os.waitpid(first, 0)
    pid = os.read(reader, 32)
    os.close(reader)
    listener.close()
    if not pid:
        raise ServerError("the server did not start")
    return int(pid)


class _Server:
    """The listening process: answers status and stop itself, forks a supervisor for each run."""

    def __init__(self, listener: socket.socket, lock: int, path: str, watched: list[str],
                 idle_seconds: float, command: Callable[..., Any]) -> None:
        self.listener, self.lock, self.path, self.idle_seconds = listener, lock, path, idle_seconds
        self.command = command
        self.watched, self.stamps = watched, _stamps(watched)
        self.settings, self.interpreter = interpreter_settings(os.environ), interpreter()
        self.ids = (os.getuid(), os.getgid(), os.geteuid(), os.getegid(), sorted(os.getgroups()))
        self.started, self.runs, self.last_run = time.time(), 0, time.monotonic()

    def serve(self) -> None:
        import gc

        gc.collect()
        gc.freeze()  # the warm objects stay out of every run's collections: forks copy no page for them
        signal.pthread_sigmask(signal.SIG_SETMASK, [])  # not the starter's: a blocked SIGCHLD hangs every run
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps finished runs
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, _exit_on_signal)
        own = os.stat(self.path)
        try:
            while True:
                left = self.idle_seconds - (time.monotonic() - self.last_run)  # only runs keep it alive
                if left <= 0:
                    return
                self.listener.settimeout(left)
                try:
                    conn, _address = self.listener.accept()
                except TimeoutError:
                    continue
                except OSError:
                    continue
                with conn:
                    try:
                        if self.answer(conn) == "stop":
                            return
                    except Exception:  # whatever one caller sends, the server goes on
                        continue
        finally:
            try:  # only our own socket: a server started after this one was asked to stop keeps its
                now = os.stat(self.path)
                if (now.st_ino, now.st_dev) == (own.st_ino, own.st_dev):
                    os.unlink(self.path)
            except OSError:
                pass

    def answer(self, conn: socket.socket) -> str | None:
        fds: list[int] = []
        try:
            if not same_user(conn, socket):
                return None
            request, fds = _receive_request(conn)
            if not isinstance(request, dict) or request.get("version") != VERSION:
                conn.sendall(frame(("refused", "another version of numalint's server")))
                return None
            op = request.get("op")
            if op == "status":
                conn.sendall(frame(self.status()))
                return None
            if op == "stop":
                conn.sendall(frame(("stopping", os.getpid())))
                return "stop"
            if op != "run" or len(fds) != len(FDS) or not _well_formed(request):
                conn.sendall(frame(("refused", "not a request numalint sends")))
                return None
            why, stopping = self.declines(request)
            if why:
                conn.sendall(frame(("refused", why)))
                return "stop" if stopping else None
            if os.fork() == 0:
                try:
                    self.listener.close()
                    os.close(self.lock)  # a long run must not keep a new server from starting
                    from numalint.server.run import supervise

                    supervise(conn, request, fds, self.command)
                finally:
                    os._exit(70)
            self.runs += 1
            self.last_run = time.monotonic()
            return None
        except OSError:
            return None
        finally:
            for fd in fds:
                os.close(fd)

    def declines(self, request: dict[str, Any]) -> tuple[str | None, bool]:
        """Why a run would go otherwise here than in a new process (and whether this server must stop)."""
        if tuple(request["interpreter"]) != self.interpreter:
            return "another Python, or other interpreter flags", False
        if interpreter_settings(request["env"]) != self.settings:
            return "other PYTHON* or locale variables than the server started with", False
        process = request["process"]
        if (*process["ids"], sorted(process["groups"])) != self.ids:
            return "another user, group or supplementary groups", False
        if _stamps(self.watched) != self.stamps:
            return "numalint or a package it uses changed on disk since the server started", True
        return None, False

    def status(self) -> dict[str, Any]:
        from numalint import __version__

        return {"pid": os.getpid(), "started": self.started, "runs": self.runs, "socket": self.path,
                "idle_timeout": self.idle_seconds, "version": __version__, "package": package_dir()}


def _well_formed(request: dict[str, Any]) -> bool:
    """The fields a run request must have, of the types numalint sends (anything else is refused)."""
    def strings(value: Any) -> bool:
        return isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)

    env, process = request.get("env"), request.get("process")
    return (strings(request.get("argv")) and len(request["argv"]) > 0 and isinstance(request.get("program"), str)
            and isinstance(request.get("cwd"), str) and strings(request.get("path"))
            and strings(request.get("interpreter")) and isinstance(env, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
            and isinstance(process, dict) and isinstance(process.get("umask"), int)
            and isinstance(process.get("nice"), int) and isinstance(process.get("ids"), list | tuple)
            and all(isinstance(i, int) for i in process["ids"]) and len(process["ids"]) == 4
            and isinstance(process.get("groups"), list | tuple) and all(isinstance(i, int) for i in process["groups"])
            and all(isinstance(process.get(key), list) and all(isinstance(i, int) for i in process[key])
                    for key in ("ignored", "mask"))
            and ("cpus" not in process or isinstance(process["cpus"], list)
                 and all(isinstance(i, int) for i in process["cpus"]))
            and isinstance(process.get("limits", {}), dict)
            and all(isinstance(k, str) and k.startswith("RLIMIT_") and isinstance(v, list | tuple) and len(v) == 2
                    and all(isinstance(i, int) for i in v) for k, v in process.get("limits", {}).items()))


def _exit_on_signal(_signum: int, _frame: Any) -> None:
    raise SystemExit(0)


def _receive_request(conn: socket.socket) -> tuple[Any, list[int]]:
    """The request and the descriptors that came with it (the caller's stdin, stdout, stderr), read within
    REQUEST_SECONDS in all (a caller sending a byte at a time holds the server no longer) and at most
    MAX_MESSAGE bytes long; None for anything else."""
    deadline = time.monotonic() + REQUEST_SECONDS
    width = struct.calcsize("i")
    conn.settimeout(REQUEST_SECONDS)
    head, ancillary, flags, _address = conn.recvmsg(4, socket.CMSG_SPACE(len(FDS) * width))
    fds: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            count = len(data) // width
            fds += struct.unpack(f"{count}i", data[:count * width])
    if flags & socket.MSG_CTRUNC or not head:
        return None, fds
    try:
        rest = receive_exactly(conn, 4 - len(head), deadline)
        size = int.from_bytes(head + rest, "big") if rest is not None else MAX_MESSAGE + 1
        body = receive_exactly(conn, size, deadline) if size <= MAX_MESSAGE else None
    except OSError:
        return None, fds
    return (None if body is None else decode_request(body)), fds

