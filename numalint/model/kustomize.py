"""Kustomize overlays: files a kustomization names as patches are fragments, not objects.

A strategic-merge patch that only raises ``hugepages-1Gi`` is not a pod without cpu and memory; it is
checked where it lands, in ``kustomize build`` output. Bases and plain resources are checked as usual."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from numalint.reading.sources import Document, read_source

KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def patch_targets(path: str, documents: Iterable[Document]) -> tuple[str, ...]:
    """The real paths of the files the kustomization at ``path`` (its ``documents``) names as patches, in order."""
    base = os.path.dirname(path)
    found = []
    for name in (name for doc in documents for name in _patch_paths(doc.root)):
        try:
            found.append(os.path.realpath(os.path.join(base, name)))
        except (ValueError, OSError):  # a NUL in the path, a loop of links: no file kustomize reads
            continue
    return tuple(found)


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


def _patch_paths(root: dict[object, object]) -> list[str]:
    found: list[str] = []
    for key in ("patchesStrategicMerge", "patches", "patchesJson6902"):
        entries = root.get(key)
        if not isinstance(entries, list):
            continue
        for entry in entries:
            if isinstance(entry, str) and "\n" not in entry:  # patchesStrategicMerge: a path (or inline YAML)
                found.append(entry)
            elif isinstance(entry, dict) and isinstance(entry.get("path"), str):
                found.append(str(entry["path"]))
    return found
