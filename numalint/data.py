"""Where the rule catalogue and the schemas live (in the wheel or in a checkout)."""

from __future__ import annotations

from functools import cache
from pathlib import Path


@cache
def data_dir(name: str) -> Path:
    """``rules`` or ``schemas``: shipped inside the package, or at the top of a checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_data" / name, here.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"numalint data directory {name!r} is missing from the installation")
