"""Kustomize overlays: files a kustomization names as patches are fragments, not objects.

A strategic-merge patch that only raises ``hugepages-1Gi`` is not a pod without cpu and memory; it is
checked where it lands, in ``kustomize build`` output. Bases and plain resources are checked as usual."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from numalint.reading.sources import Document, read_source

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def patch_targets(path: str, documents: Iterable[Document]) -> tuple[str, ...]:
    """The real paths of the files the kustomization at ``path`` (its ``documents``) names as patches, in order."""
    return tuple(real for real, _kind in _patch_entries(path, documents))


def _patch_entries(path: str, documents: Iterable[Document]) -> list[tuple[str, str | None]]:
    """(real path, target kind or None) of each patch the kustomization at ``path`` names, in order."""
    base = os.path.dirname(path)
    found = []
    for doc in documents:
        for key in ("patchesStrategicMerge", "patches", "patchesJson6902"):
            entries = doc.root.get(key)
            for entry in entries if isinstance(entries, list) else ():
                if isinstance(entry, str) and "\n" not in entry:  # patchesStrategicMerge: a path (or inline YAML)
                    name, target = entry, None
                elif isinstance(entry, dict) and isinstance(entry.get("path"), str):
                    name, target = str(entry["path"]), entry.get("target")
                else:
                    continue
                kind = target.get("kind") if isinstance(target, dict) else None
                try:
                    found.append((os.path.realpath(os.path.join(base, name)), kind if isinstance(kind, str) and kind
                                  else None))
                except (ValueError, OSError):  # a NUL in the path, a loop of links: no file kustomize reads
                    continue
    return found


def patch_files(paths: Iterable[str], known: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    """realpath of each patch file -> the kustomization that names it (the first, in the order of ``paths``),
    for the kustomizations in ``paths``. ``known``: the patches of kustomizations already read (by path); the
    others are read here."""
    fragments: dict[str, str] = {}
    for path in paths:
        if os.path.basename(path) not in KUSTOMIZATION_NAMES:
            continue
        targets = known.get(path)
        if targets is None:
            targets = patch_targets(path, read_source(path).documents)
        for target in targets:
            fragments.setdefault(target, path)
    return fragments


def patched_kinds(kustomization: str, patch: str, documents: Iterable[Document]) -> set[str] | None:
    """The kinds a patch file changes: its documents' own (a strategic-merge patch names its object) and the
    ``target.kind`` of each entry of the kustomization that names it (a JSON 6902 patch names none). None when
    any of them is unknown (an entry without a target kind, a document without one)."""
    kinds = {doc.kind for doc in documents} or _written_kinds(patch)  # only the kinds numalint reads are documents
    if kinds is None or "" in kinds:
        return None
    real = os.path.realpath(patch)
    for named, kind in _patch_entries(kustomization, read_source(kustomization).documents):
        if named != real:
            continue
        if kind is None:
            if not kinds:
                return None  # neither the entry nor the file says what it patches
            continue
        kinds.add(kind)
    return kinds or None


_TOP_KIND = re.compile(r"^kind:[ \t]*[\"']?([A-Za-z][A-Za-z0-9]*)", re.M)
_LARGEST_PATCH = 1 << 20  # a patch file larger than this is not looked into (its kinds stay unknown)


def _written_kinds(path: str) -> set[str] | None:
    """The top-level ``kind:`` of each document of the file (none in a JSON 6902 patch); None when unreadable."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(_LARGEST_PATCH + 1)
    except OSError:
        return None
    return None if len(text) > _LARGEST_PATCH else set(_TOP_KIND.findall(text))

