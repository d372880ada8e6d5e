"""The ``numalint`` command: through the warm server when one listens (``numalint server start``), else here.

Kept to builtin modules until it knows which: importing the command line itself takes ~0.1 s. NUMALINT_SERVER
chooses: unset, a server is used when one runs; ``off``, never; ``auto``, one is also started in the background
when none runs (this run goes on without it)."""

from __future__ import annotations

import os
import sys


def program_name() -> str:
    """The name usage messages give the command, as click derives it (``python -m numalint`` or the script's
    name): the server's own ``__main__`` is another one, so the caller says it."""
    main = sys.modules.get("__main__")
    package = getattr(main, "__package__", None)
    if not package:
        return os.path.basename(sys.argv[0])
    name = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def main() -> None:
    """Forward the run unless told not to or it is the server's own command."""
    choice = os.environ.get("NUMALINT_SERVER", "").strip().lower()
    if sys.argv[1:2] != ["server"] and choice not in ("off", "0", "false", "no") and os.name == "posix":
        from numalint.server.client import forward, start_in_background

        status = forward(list(sys.argv), program_name())
        if status is not None:
            sys.exit(status)
        if choice == "auto":
            start_in_background()
    from numalint.cli import main as command_line

    command_line()
