"""``.numalint.yaml``: found by walking up from the working directory, or given with --config."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from numalint.reading.sources import ReadError, decode, read_capped
from numalint.reading.yamlpos import YamlError, load_all

CONFIG_NAMES = (".numalint.yaml", ".numalint.yml")


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


def find_config(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if candidate.exists():  # a FIFO or directory of that name is an error, not skipped
                return candidate
    return None


def load_config(path: Path | None) -> Config:
    if path is None:
        return Config()
    try:
        text = decode(read_capped(str(path)))
        docs = load_all(text)
    except ReadError as err:
        raise ConfigError(f"{path}: {err}") from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    except YamlError as err:
        raise ConfigError(f"{path}:{err.line}:{err.col}: YAML syntax error: {err.message}") from None
    raw: Any = docs[0][0] if docs else {}
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
                  fail_on=raw.get("failOn"), sriov_resource_prefix=raw.get("sriovResourcePrefix"))


def _check_paths(path: Path, raw: Any, base: Path) -> None:
    """A misspelt ``topologies:`` or ``context:`` path is an error, not silently nothing to read."""
    from numalint.reading.locate import locate

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

    from numalint.data import data_dir
    from numalint.reading.locate import locate

    with open(data_dir("schemas") / "config.schema.json", encoding="utf-8") as handle:
        schema = json.load(handle)
    errors = sorted(Draft202012Validator(schema).iter_errors(raw), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        span = locate(raw, tuple(first.absolute_path))
        where = ".".join(str(p) for p in first.absolute_path) or "(top level)"
        raise ConfigError(f"{path}:{span.line}:{span.col}: {where}: {first.message}")
