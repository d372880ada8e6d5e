"""What kustomize overlays decide for their bases: the fields their patches set in a base's objects.

A base PerformanceProfile often leaves ``spec.nodeSelector`` to each site's overlay, and a base Deployment its
resources. The base is never applied alone, so "spec.nodeSelector is required" on it is a finding an expert
dismisses. A field counts as decided for an object of a base when every kustomization that is the top of a
build reaching it (named by no other kustomization of the run) patches that field, through its own patches or
those of a kustomization or component between it and the base. Patches are matched to objects by kind and
name: a strategic-merge patch by its own ``kind`` and ``metadata.name``, a ``target`` by its ``kind`` and
``name`` (regular expressions, as kustomize reads them); a target chosen only by labels or annotations is not
matched (the finding stays). Kustomizations are read again here, in the main process, and only by a run with
two or more of them and a finding on a named object.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from numalint.model.kustomize import KUSTOMIZATION_NAMES
from numalint.reading.sources import read_source
from numalint.reading.yamlpos import YamlError, load_all

_IDENTITY = frozenset({"apiVersion", "kind"})  # a strategic-merge patch's identity, not fields it sets


@dataclass(frozen=True)
class Patch:
    """One patch: the objects it targets (kind and name patterns; None matches any) and the fields it sets."""

    kind: str | None
    name: str | None
    fields: frozenset[str]

    def targets(self, kind: str, name: str) -> bool:
        return _matches(self.kind, kind) and _matches(self.name, name)


@dataclass
class Kustomization:
    """A kustomization's resources (real paths of files, and of the kustomizations of directories) and patches
    (a component's count as the including kustomization's: they apply to its resources)."""

    path: str
    files: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)  # its bases: resources that are directories
    components: list[str] = field(default_factory=list)
    patches: list[Patch] = field(default_factory=list)
    prefix: str = ""  # namePrefix
    suffix: str = ""  # nameSuffix


class Overlays:
    """The kustomizations of a run, read once, answering for objects of the files they name as resources."""

    def __init__(self, kustomizations: Iterable[str]) -> None:
        graph: dict[str, Kustomization] = {}
        runs = {os.path.realpath(path) for path in kustomizations}
        waiting = sorted(runs)
        while waiting:  # the bases and components they name are read too, in the run or not
            real = waiting.pop()
            if real not in graph:
                graph[real] = _read(real)
                waiting += graph[real].children + graph[real].components
        named = {child for k in graph.values() for child in (*k.children, *k.components)}
        # one per build: a kustomization of the run that no other names
        self._builds = _builds(sorted(runs - named), graph)

    def decided(self, file: str, kind: str, name: str) -> frozenset[str]:
        """The fields of object ``kind``/``name`` in ``file`` that every build reaching it patches (dotted paths
        as ``output.sources`` names keys: ``spec.nodeSelector``, list items as ``[name]``)."""
        real = os.path.realpath(file)
        sets = [frozenset(f for patch, *renames in reach[real]
                          if any(patch.targets(kind, n) for n in {name, *(p + name + s for p, s in renames)})
                          for f in patch.fields)
                for reach in self._builds if real in reach]
        return frozenset.intersection(*sets) if sets else frozenset()


def settles(decided: frozenset[str], key: str, root: Any = None, absent: bool = False) -> bool:
    """Does a patch that sets ``decided`` decide the finding at ``key`` of the object ``root``: it sets that
    field, the mapping it sits in, or a field inside it? Inside a top-level field (``spec``, ``metadata``) counts
    only when the finding is about that field missing (``absent``): a finding found at ``metadata`` is about
    the object, not its labels. A list item is named by its ``name`` in ``key`` and by its index in a JSON 6902
    path: both are tried."""
    inside = absent or "." in key
    return any(f == k or k.startswith(f + ".") or (inside and f.startswith(k + "."))
               for f in decided for k in {key, _indexed(root, key)})


def _indexed(root: Any, key: str) -> str:
    """``key`` with each list item named by its index (``containers.[app]`` -> ``containers.[0]``)."""
    steps, node = [], root
    for step in key.split("."):
        if isinstance(node, list) and step.startswith("[") and step.endswith("]"):
            name = step[1:-1]
            index = next((i for i, item in enumerate(node) if isinstance(item, dict) and item.get("name") == name),
                         None)
            if index is not None:
                step, node = f"[{index}]", node[index]
            else:
                node = node[int(name)] if name.isdigit() and int(name) < len(node) else None
        else:
            node = node.get(step) if isinstance(node, dict) else None
        steps.append(step)
    return ".".join(steps)


Rename = tuple[str, str]  # (prefix, suffix) kustomize's namePrefix and nameSuffix have put around a name
# a patch reaching an object: the patch, the renames of the object's name when the patch applies (before and
# after the patch's own kustomization renames), any of which the patch's target may name
Reach = tuple[Patch, Rename, Rename]


def _builds(tops: Iterable[str], graph: dict[str, Kustomization]) -> list[dict[str, frozenset[Reach]]]:
    """For each top: resource file -> the patches of the kustomizations from the top down to it (a
    kustomization's patches reach every resource under it), with the names they know the file's objects by:
    kustomize matches a target on an object's original name or its current one, which the namePrefix and
    nameSuffix of the kustomizations below have changed. Each kustomization is worked out once, children first,
    without recursion (a base may be shared by many overlays, a chain may be long)."""
    below: dict[str, tuple[dict[str, frozenset[Reach]], dict[str, frozenset[Rename]]]] = {}
    for top in tops:
        stack, entered = [top], set()
        while stack:
            path = stack[-1]
            if path in below:
                stack.pop()
                continue
            kustomization = graph[path]
            pending = [c for c in kustomization.children if c in graph and c not in below and c not in entered]
            if path not in entered and pending:
                entered.add(path)
                stack += pending
                continue
            stack.pop()  # a child still entered is a cycle (kustomize's error): it adds nothing here
            own, files = _with_components(kustomization, graph)
            renames: dict[str, set[Rename]] = {file: {("", "")} for file in files}  # names coming in
            reach: dict[str, set[Reach]] = {file: set() for file in files}
            for child in kustomization.children:
                child_reach, child_out = below.get(child, ({}, {}))
                for file, reaches in child_reach.items():
                    reach.setdefault(file, set()).update(reaches)
                for file, coming in child_out.items():
                    renames.setdefault(file, set()).update(coming)
            prefix, suffix = kustomization.prefix, kustomization.suffix
            out = {file: frozenset((prefix + p, s + suffix) for p, s in names) for file, names in renames.items()}
            for file, incoming in renames.items():
                reach.setdefault(file, set()).update((patch, name, (prefix + name[0], name[1] + suffix))
                                                     for patch in own for name in incoming)
            below[path] = ({file: frozenset(r) for file, r in reach.items()}, out)
    return [below[top][0] for top in tops]


def _with_components(kustomization: Kustomization, graph: dict[str, Kustomization]
                     ) -> tuple[frozenset[Patch], list[str]]:
    """Its patches and resource files with those of its components, and theirs (a component's patches apply to
    the resources of the kustomization that includes it)."""
    patches, files = set(kustomization.patches), list(kustomization.files)
    seen, waiting = {kustomization.path}, list(kustomization.components)
    while waiting:
        path = waiting.pop()
        if path in graph and path not in seen:
            seen.add(path)
            patches.update(graph[path].patches)
            files += graph[path].files
            waiting += graph[path].components
    return frozenset(patches), files


def _read(path: str) -> Kustomization:
    kustomization = Kustomization(path)
    source = read_source(path)
    base = os.path.dirname(path)
    for doc in source.documents:
        root = doc.root
        for key in ("resources", "bases", "components"):
            for entry in _strings(root.get(key)):
                if "://" in entry or entry.startswith("git@"):
                    continue  # a remote base: not in the run
                target = os.path.realpath(os.path.join(base, entry))
                if os.path.isdir(target):
                    inner = _kustomization_in(target)
                    if inner is not None:
                        (kustomization.components if key == "components" else kustomization.children).append(inner)
                else:
                    kustomization.files.append(target)
        kustomization.patches += _patches(root, base)
        if isinstance(root.get("namePrefix"), str):
            kustomization.prefix = root["namePrefix"]
        if isinstance(root.get("nameSuffix"), str):
            kustomization.suffix = root["nameSuffix"]
    return kustomization


def _strings(value: Any) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _kustomization_in(directory: str) -> str | None:
    for name in KUSTOMIZATION_NAMES:
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate
    return None


def _patches(root: dict[Any, Any], base: str) -> Iterator[Patch]:
    for key in ("patchesStrategicMerge", "patches", "patchesJson6902"):
        entries = root.get(key)
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, str):  # patchesStrategicMerge: a path, or the patch inline
                yield from _patch_text(entry, base, None)
            elif isinstance(entry, dict):
                target = entry.get("target")
                target = target if isinstance(target, dict) else None
                if target is not None and not (isinstance(target.get("kind"), str)
                                               or isinstance(target.get("name"), str)):
                    continue  # chosen by labels or annotations only: which objects is not read here
                text = entry.get("patch")
                if isinstance(text, str):
                    yield from _from_documents(_load(text), target)
                elif isinstance(entry.get("path"), str):
                    yield from _patch_text(entry["path"], base, target)


def _patch_text(entry: str, base: str, target: dict[Any, Any] | None) -> Iterator[Patch]:
    """A patch written inline (YAML with a line break) or named by path."""
    if "\n" in entry:
        yield from _from_documents(_load(entry), target)
    else:
        yield from _from_documents([d.root for d in read_source(os.path.join(base, entry)).documents], target)


def _load(text: str) -> list[Any]:
    try:
        return [root for root, _span in load_all(text)]
    except (YamlError, RecursionError, ValueError, TypeError):
        return []


def _from_documents(roots: list[Any], target: dict[Any, Any] | None) -> Iterator[Patch]:
    for root in roots:
        if isinstance(root, list):  # a JSON 6902 patch: a list of operations, always with a target
            if target is not None:
                yield Patch(_pattern(target.get("kind")), _pattern(target.get("name")), frozenset(_operations(root)))
        elif isinstance(root, dict):
            if target is not None:
                kind, name = _pattern(target.get("kind")), _pattern(target.get("name"))
            else:
                metadata = root.get("metadata")
                kind = re.escape(root["kind"]) if isinstance(root.get("kind"), str) else None
                name = (re.escape(metadata["name"]) if isinstance(metadata, dict)
                        and isinstance(metadata.get("name"), str) else None)
                if kind is None or name is None:
                    continue  # kustomize refuses a strategic-merge patch without kind and name
            yield Patch(kind, name, frozenset(_leaves(root)))


def _pattern(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _matches(pattern: str | None, value: str) -> bool:
    """kustomize matches a target's kind and name as regular expressions anchored at both ends."""
    if pattern is None:
        return True
    try:
        return re.fullmatch(pattern, value) is not None
    except re.error:
        return pattern == value


def _leaves(root: dict[Any, Any]) -> Iterator[str]:
    """The dotted paths a strategic-merge patch sets (its identity apart): every scalar, empty collection and
    list of scalars; a list item with a name is named by it, as ``output.sources`` names keys."""
    stack: list[tuple[Any, str]] = [(value, str(key)) for key, value in root.items() if key not in _IDENTITY]
    while stack:
        node, path = stack.pop()
        if path == "metadata.name" or path == "metadata.namespace":
            continue
        if isinstance(node, dict) and node:
            stack += [(value, f"{path}.{key}") for key, value in node.items() if not str(key).startswith("$")]
        elif isinstance(node, list) and any(isinstance(item, (dict, list)) for item in node):
            for index, item in enumerate(node):
                name = item.get("name") if isinstance(item, dict) else None
                stack.append((item, f"{path}.[{name}]" if isinstance(name, str) else f"{path}.[{index}]"))
        else:
            yield path


def _operations(operations: list[Any]) -> Iterator[str]:
    """The fields JSON 6902 operations write or remove (``/spec/nodeSelector`` -> ``spec.nodeSelector``)."""
    for operation in operations:
        if isinstance(operation, dict) and isinstance(operation.get("path"), str):
            steps = [s.replace("~1", "/").replace("~0", "~") for s in operation["path"].strip("/").split("/")]
            yield ".".join(f"[{s}]" if s.isdigit() or s == "-" else s for s in steps)
