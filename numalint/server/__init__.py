"""A warm numalint kept in the background, so that a run on one file (a pre-commit hook) starts in milliseconds.

Python needs ~0.1 s to import numalint and the packages it reads with, before reading one line of YAML; the
stdlib modules alone take half of that. ``numalint server start`` imports them once and waits on a Unix socket
only its user can reach; ``numalint`` (``numalint.server.launch``) then hands its arguments, working directory,
environment and standard streams to the server, which forks a copy of its warm self to run them, exactly as a
fresh process would, and reports the exit status back. Nothing is kept between runs: each run is a fresh fork.
The server declines (and the caller runs numalint itself) whenever it could answer differently from a fresh
process: another Python, other interpreter or locale settings, or numalint's code or data changed on disk.

``launch`` is the ``numalint`` command itself (it picks the server or the command line here), ``protocol`` what
both sides share, ``client`` the caller's side (these three import builtin modules only: they run first on every
call), ``daemon`` the server's.
"""
