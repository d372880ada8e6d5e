"""What the caller and the server share: where the server listens, how messages are framed, and which
environment variables change what a Python process does before it runs any code (a server started under other
values would answer differently). Modules written in C only (no ``typing``, ``re``, ``json``): the caller
imports this on every run."""

from __future__ import annotations

import marshal
import os
import stat
import sys

TYPE_CHECKING = False  # typing itself takes longer to import than the rest of a forwarded run's start
if TYPE_CHECKING:
    from typing import Any

VERSION = 2  # of the messages below; a server of another version declines
_LENGTH = 4  # bytes of the length before each message
MAX_MESSAGE = 64 << 20  # an environment and arguments fit; anything larger is not from numalint
FDS = (0, 1, 2)  # the caller's stdin, stdout, stderr, passed to the server's run


def package_dir() -> str:
    """The numalint package this code belongs to (a server serves one installation)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def socket_dir() -> str:
    """``$XDG_RUNTIME_DIR/numalint``, else ``$TMPDIR/numalint-UID`` (``/tmp`` without TMPDIR)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime):
        return os.path.join(runtime, "numalint")
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", f"numalint-{os.getuid()}")


def socket_path() -> str:
    """One socket per interpreter and installation: a server of another virtualenv or checkout never answers."""
    digest = 0xCBF29CE484222325  # FNV-1a, 64 bits: stable across processes, unlike hash()
    for byte in f"{sys.executable}\0{package_dir()}".encode("utf-8", "surrogateescape"):
        digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return os.path.join(socket_dir(), f"{digest:016x}.sock")


def private(directory: str) -> bool:
    """Whether ``directory`` is a real directory of this user that no one else may enter (so whatever listens
    in it was started by this user: the caller hands it its streams and environment)."""
    try:
        info = os.lstat(directory)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def same_user(sock: Any, sockets: Any) -> bool:
    """Whether the other end of a Unix socket runs as this user: Linux says (struct ucred: pid, uid, gid);
    elsewhere the directory only its user may enter stands for it. ``sockets``: ``socket`` or ``_socket``."""
    option = getattr(sockets, "SO_PEERCRED", None)
    if option is None:
        return True
    credentials = sock.getsockopt(sockets.SOL_SOCKET, option, 12)
    return int.from_bytes(credentials[4:8], sys.byteorder) == os.getuid()


def detach(*kept: int) -> None:
    """In a process going to the background: its standard streams on /dev/null, every other descriptor it was
    given closed but ``kept`` (a pipe it was started from would never close, a lock never be released)."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in FDS:
        os.dup2(null, fd)
    low = len(FDS)
    for fd in sorted(k for k in kept if k >= low):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 4096)


def interpreter_settings(environ: dict[str, str] | os._Environ[str]) -> dict[str, str]:
    """The variables Python reads at start-up (PYTHON*: paths, stdio encoding, UTF-8 mode, hash seed...) and
    the locale ones that decide the encoding of file names and of the standard streams."""
    return {name: value for name, value in environ.items()
            if name.startswith(("PYTHON", "LC_")) or name in ("LANG", "LANGUAGE")}


def process_settings() -> dict[str, Any]:
    """What a new process inherits from its caller besides its streams, directory and environment: the server's
    run takes these on (or declines the run when it cannot: other user or groups, limits above its own)."""
    import _signal

    ignored = []
    for number in range(1, _signal.NSIG):
        try:
            if _signal.getsignal(number) == _signal.SIG_IGN:
                ignored.append(number)
        except (OSError, ValueError):
            continue
    mask = os.umask(0o022)
    os.umask(mask)
    settings: dict[str, Any] = {
        "umask": mask, "ignored": ignored, "mask": sorted(_signal.pthread_sigmask(_signal.SIG_BLOCK, [])),
        "nice": os.getpriority(os.PRIO_PROCESS, 0), "ids": [os.getuid(), os.getgid(), os.geteuid(), os.getegid()],
        "groups": sorted(os.getgroups())}
    if hasattr(os, "sched_getaffinity"):
        settings["cpus"] = sorted(os.sched_getaffinity(0))  # the default -j counts them
    try:
        import resource
    except ImportError:  # pragma: no cover - every Unix Python has it
        return settings
    settings["limits"] = {name: list(resource.getrlimit(getattr(resource, name)))
                          for name in dir(resource) if name.startswith("RLIMIT_")}
    return settings


def interpreter() -> tuple[str, str, str, str, str]:
    """The Python a process runs, and how it was started (-I, -X utf8, -W error change what a run does)."""
    return sys.version, sys.executable, repr(sys.flags), repr(sys.warnoptions), repr(sys._xoptions)


def frame(message: Any) -> bytes:
    """A message of the server (the caller trusts it: its socket is its user's)."""
    data = marshal.dumps(message)
    return len(data).to_bytes(_LENGTH, "big") + data


def frame_request(message: Any) -> bytes:
    """A message to the server, in a form it reads without trusting the sender (``decode_request``): marshal
    would let nine bytes claim a tuple of 2**31 items, which it allocates before reading them."""
    out: list[bytes] = []
    _encode(message, out)
    data = b"".join(out)
    return len(data).to_bytes(_LENGTH, "big") + data


def _encode(value: Any, out: list[bytes]) -> None:
    """Each value a tag, a decimal number and a colon: ``s`` (that many bytes of UTF-8 follow), ``i`` (the
    number itself), ``l`` (that many values follow), ``d`` (that many keys and values follow)."""
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")  # environment values decoded with surrogateescape
        out.append(b"s%d:" % len(data))
        out.append(data)
    elif isinstance(value, int):
        out.append(b"i%d:" % value)
    elif isinstance(value, list | tuple):
        out.append(b"l%d:" % len(value))
        for item in value:
            _encode(item, out)
    elif isinstance(value, dict):
        out.append(b"d%d:" % len(value))
        for key, item in value.items():
            _encode(key, out)
            _encode(item, out)
    else:
        raise TypeError(f"no request holds a {type(value).__name__}")


def decode_request(data: bytes) -> Any:
    """What ``frame_request`` framed, or None: every count is checked against the bytes left before anything is
    made (each value takes at least two bytes), and nesting is bounded."""
    try:
        value, end = _decode(data, 0, 0)
    except (ValueError, IndexError, UnicodeDecodeError):
        return None
    return value if end == len(data) else None


def _decode(data: bytes, at: int, depth: int) -> tuple[Any, int]:
    if depth > 8:
        raise ValueError("nested too deep")
    tag, colon = data[at], data.index(b":", at + 1, at + 24)
    number, at = int(data[at + 1:colon]), colon + 1
    if tag == ord("i"):
        return number, at
    if number < 0 or number * (2 if tag == ord("d") else 1) > len(data) - at:
        raise ValueError("a count beyond the bytes sent")
    if tag == ord("s"):
        return data[at:at + number].decode("utf-8", "surrogatepass"), at + number
    if tag == ord("l"):
        items = []
        for _ in range(number):
            item, at = _decode(data, at, depth + 1)
            items.append(item)
        return items, at
    if tag == ord("d"):
        mapping = {}
        for _ in range(number):
            key, at = _decode(data, at, depth + 1)
            mapping[key], at = _decode(data, at, depth + 1)
        return mapping, at
    raise ValueError("unknown tag")


def receive_exactly(sock: Any, size: int, deadline: float | None = None) -> bytes | None:
    """``size`` bytes from ``sock``, or None when the other side closed first; by ``deadline`` (of
    ``time.monotonic``) in all when given, else TimeoutError (a sender of a byte at a time holds no one longer)."""
    chunks = []
    while size:
        if deadline is not None:
            import time

            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            sock.settimeout(left)
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def receive(sock: Any, untrusted: bool = False) -> Any:
    """The next message, or None when the other side closed (or sent something no numalint sends); a caller's
    message (``untrusted``) as ``frame_request`` framed it."""
    head = receive_exactly(sock, _LENGTH)
    if head is None:
        return None
    size = int.from_bytes(head, "big")
    if size > MAX_MESSAGE:
        return None
    data = receive_exactly(sock, size)
    if untrusted:
        return None if data is None else decode_request(data)
    try:
        return None if data is None else marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return None
