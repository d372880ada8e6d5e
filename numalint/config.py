"""``.numalint.yaml``, ``.numalint.yml`` or ``pyproject.toml`` ``[tool.numalint]``: the nearest one above the
checked paths (up to the repository root), else the working directory's, or the one given with --config."""

from __future__ import annotations

import fnmatch
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from numalint.data import data_dir
from numalint.reading.locate import locate
from numalint.reading.sources import ReadError, decode, read_capped
from numalint.reading.yamlpos import YamlError, YMap, load_all

if TYPE_CHECKING:
    from numalint.reading.globs import GlobBuckets

CONFIG_NAMES = (".numalint.yaml", ".numalint.yml", "pyproject.toml")


class ConfigError(Exception):
    """The configuration file is unreadable or invalid."""


@dataclass
class Config:
    path: Path | None = None
    rules: dict[str, str] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    kubernetes_version: str | None = None
    context: list[str] = field(default_factory=list)
    topologies: list[str] = field(default_factory=list)
    fail_on: str | None = None
    sriov_resource_prefix: str | None = None
    clusters: dict[str, list[str]] = field(default_factory=dict)  # name -> directories or globs
    select: list[str] | None = None  # rule selectors (None: ALL)
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_path: dict[str, dict[str, str]] = field(default_factory=dict)  # glob -> selector -> severity or "off"
    docs_url: str | None = None  # rule documentation: SARIF helpUri ({slug}/{code} filled in, else slug appended)

    def cluster_of(self, path: str) -> str | None:
        """The declared cluster a file belongs to (first match), or None; tried only on the patterns whose literal
        start begins the path, once per path (thousands of clusters each tried on every file were quadratic)."""
        if not self.clusters or path == "-":
            return None
        base = self.path.parent if self.path else Path.cwd()
        relative = os.path.relpath(os.path.abspath(path), base).replace(os.sep, "/")
        entries, buckets, known = self._cluster_patterns
        if relative not in known:
            known[relative] = None
            for number in buckets.candidates((relative,)):
                name, pattern = entries[number]
                if (relative == pattern or relative.startswith(pattern + "/") or fnmatch.fnmatch(relative, pattern)
                        or fnmatch.fnmatch(relative, pattern + "/*")):  # a glob naming directories
                    known[relative] = name
                    break
        return known[relative]

    @cached_property
    def _cluster_patterns(self) -> tuple[list[tuple[str, str]], GlobBuckets, dict[str, str | None]]:
        """Each cluster's patterns in order, as (cluster, pattern), by literal start, and the paths answered."""
        from numalint.reading.globs import GlobBuckets  # here: only a run declaring clusters needs it

        entries = [(name, pattern.rstrip("/").removeprefix("./")) for name, patterns in self.clusters.items()
                   for pattern in patterns]
        return entries, GlobBuckets(pattern for _name, pattern in entries), {}


def find_config(start: Path) -> Path | None:
    """The nearest configuration in ``start`` or above, stopping at the repository root (``.git``)."""
    for directory in (start, *start.parents):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if name == "pyproject.toml":
                if candidate.is_file() and _has_numalint_table(candidate):
                    return candidate
            elif candidate.exists():  # a FIFO or directory of that name is an error, not skipped
                return candidate
        if (directory / ".git").exists():
            break
    return None


def discover_config(paths: Sequence[str], cwd: Path) -> Path | None:
    """Like ruff: the configuration nearest to the checked paths (their common directory), else the
    working directory's."""
    named = [os.path.abspath(p) for p in paths if p != "-"]
    if named:
        common = Path(os.path.commonpath(named))
        start = common if common.is_dir() else common.parent
        found = find_config(start)
        if found is not None:
            return found
    return find_config(cwd)


def _has_numalint_table(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            text = handle.read()
        # a [tool.numalint] table names "numalint", unless its key is a quoted string spelling a letter with
        # a \u or \U escape; a file with neither cannot have one, and is not parsed (start-up time)
        if b"numalint" not in text and b"\\u" not in text and b"\\U" not in text:
            return False
        return isinstance(_toml(path).get("tool", {}).get("numalint"), dict)
    except (OSError, ValueError):
        return False


def _toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config()
    raw: Any
    if path.name == "pyproject.toml":
        try:
            raw = _toml(path).get("tool", {}).get("numalint", {})
        except OSError as err:
            raise ConfigError(f"{path}: cannot read: {err.strerror}") from None
        except ValueError as err:
            raise ConfigError(f"{path}: TOML syntax error: {err}") from None
    else:
        try:
            text = decode(read_capped(str(path)))
            docs = load_all(text)
        except ReadError as err:
            raise ConfigError(f"{path}: {err}") from None
        except UnicodeDecodeError as err:
            raise ConfigError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
        except YamlError as err:
            raise ConfigError(f"{path}:{err.line}:{err.col}: YAML syntax error: {err.message}") from None
        raw = docs[0][0] if docs else {}
    if raw is None:
        raw = {}
    _validate(path, raw)
    base = path.parent
    _check_paths(path, raw, base)

    def rel(items: list[str]) -> list[str]:
        return [str(base / p) for p in items]

    rules = {str(k): ("off" if v is False else str(v)) for k, v in (raw.get("rules") or {}).items()}
    return Config(path=path, rules=rules, exclude=list(raw.get("exclude") or []),
                  kubernetes_version=str(raw["kubernetesVersion"]) if raw.get("kubernetesVersion") else None,
                  context=rel(list(raw.get("context") or [])), topologies=rel(list(raw.get("topologies") or [])),
                  fail_on=raw.get("failOn"), sriov_resource_prefix=raw.get("sriovResourcePrefix"),
                  clusters={str(k): [str(p) for p in v] for k, v in (raw.get("clusters") or {}).items()},
                  select=[str(s) for s in raw["select"]] if raw.get("select") is not None else None,
                  extend_select=[str(s) for s in raw.get("extendSelect") or []],
                  ignore=[str(s) for s in raw.get("ignore") or []],
                  per_path={str(glob): {str(k): ("off" if v is False else str(v)) for k, v in (rules or {}).items()}
                            for glob, rules in (raw.get("perPath") or {}).items()},
                  docs_url=raw.get("docsUrl"))


def _check_paths(path: Path, raw: Any, base: Path) -> None:
    """A misspelt ``topologies:`` or ``context:`` path is an error, not silently nothing to read."""
    for key in ("topologies", "context"):
        for i, item in enumerate(raw.get(key) or []):
            try:
                os.stat(base / item)
            except (FileNotFoundError, NotADirectoryError):
                span = locate(raw, (key, i))
                raise ConfigError(f"{path}:{span.line}:{span.col}: {key}: {item}: no such file or directory") from None
            except OSError:
                pass  # exists but cannot be inspected: reading it reports why


def _validate(path: Path, raw: Any) -> None:
    from jsonschema import Draft202012Validator


    with open(data_dir("schemas") / "config.schema.json", encoding="utf-8") as handle:
        schema = json.load(handle)
    if isinstance(raw, dict):
        known = list(schema["properties"])
        for key in raw:
            if key not in known:
                import difflib  # here, not at the top: only a misspelt key needs it (start-up time)

                close = difflib.get_close_matches(str(key), known, n=1)
                hint = f'; did you mean "{close[0]}"?' if close else f" (known: {', '.join(known)})"
                span = locate(raw, (key,), key=True) if isinstance(raw, YMap) else None
                where = f":{span.line}:{span.col}" if span else ""
                raise ConfigError(f'{path}{where}: unknown key "{key}"{hint}')
    errors = sorted(Draft202012Validator(schema).iter_errors(raw), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        span = locate(raw, tuple(first.absolute_path))
        where = ".".join(str(p) for p in first.absolute_path) or "(top level)"
        raise ConfigError(f"{path}:{span.line}:{span.col}: {where}: {first.message}")
