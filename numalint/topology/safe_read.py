"""Reading small node files (sysfs attributes, kubelet checkpoints) without blocking or exhausting memory.

A FIFO named like a sysfs attribute would block ``open()`` forever, and a symlink to /dev/zero would read
until memory runs out: the file is opened non-blocking, checked on its descriptor, and read up to a cap.
"""

from __future__ import annotations

import os
import stat


class NotRegularFile(OSError):
    """A FIFO, device, socket or directory where a regular file was expected."""


class FileTooLarge(OSError):
    """More bytes than the caller's cap."""


def read_capped(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file at ``path``; at most ``limit`` are read (``FileTooLarge`` beyond)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFile(f"{os.fspath(path)} is not a regular file")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(limit + 1 - size, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise FileTooLarge(f"{os.fspath(path)} is larger than {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)
