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
from collections.abc import Iterable, Iterator, Mapping
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


@dataclass(slots=True)
class Kustomization:
    """A kustomization's resources and patches (a component's count as the including kustomization's: they apply
    to its resources). Workers send its entries as written (short strings: thousands of kustomizations cost
    little to keep); ``resolve`` turns them into real paths of files and of the kustomizations of directories."""

    path: str
    entries: tuple[tuple[str, str], ...] = ()  # (resources | bases | components, the entry as written)
    patches: tuple[Patch, ...] = ()
    prefix: str = ""  # namePrefix
    suffix: str = ""  # nameSuffix
    files: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)  # its bases: resources that are directories
    components: list[str] = field(default_factory=list)

    def resolve(self) -> Kustomization:
        base = os.path.dirname(self.path)
        self.files, self.children, self.components = [], [], []
        for key, entry in self.entries:
            # normalised, not resolved: ``base`` is a real path, and resolving every entry's links cost a second
            # on 3,000 kustomizations (an entry through a symbolic link settles nothing: no harm)
            target = os.path.normpath(os.path.join(base, entry))
            if os.path.isdir(target):
                inner = _kustomization_in(target)
                if inner is not None:
                    (self.components if key == "components" else self.children).append(inner)
            else:
                self.files.append(target)
        return self


class Overlays:
    """The kustomizations of a run, read once, answering for objects of the files they name as resources: from
    the kustomizations naming a file up to the builds (kustomizations of the run no other names), per file
    asked about; nothing is worked out for the thousands of files no finding is on."""

    MAX_PATHS = 256  # ways up from one file to its builds, at most: past them, nothing is decided

    def __init__(self, kustomizations: Iterable[str], known: Mapping[str, Kustomization] | None = None) -> None:
        """``kustomizations``: the run's, by path, besides ``known``: those its workers have read already
        (``read_kustomization``), by real path; the others are read here."""
        graph: dict[str, Kustomization] = {}
        runs = {os.path.realpath(path) for path in kustomizations} | set(known or ())
        waiting = sorted(runs)
        while waiting:  # the bases and components they name are read too, in the run or not
            real = waiting.pop()
            if real not in graph:
                graph[real] = ((known or {}).get(real) or read_kustomization(
                    real, [d.root for d in read_source(real).documents])).resolve()
                waiting += graph[real].children + graph[real].components
        self._graph = graph
        self._parents: dict[str, list[str]] = {}  # a kustomization -> those naming it as a base
        self._including: dict[str, list[str]] = {}  # a component -> the kustomizations including it
        self._naming: dict[str, list[str]] = {}  # a resource file -> the kustomizations naming it
        for path, kustomization in graph.items():
            for child in kustomization.children:
                self._parents.setdefault(child, []).append(path)
            for component in kustomization.components:
                self._including.setdefault(component, []).append(path)
            for file in kustomization.files:
                self._naming.setdefault(file, []).append(path)
        self._runs = runs
        self._real: dict[str, str] = {}  # a finding's file -> its real path

    def decided(self, file: str, kind: str, name: str) -> frozenset[str]:
        """The fields of object ``kind``/``name`` in ``file`` that every build reaching it patches (dotted paths
        as ``output.sources`` names keys: ``spec.nodeSelector``, list items as ``[name]``). kustomize matches a
        target on an object's original name or its current one, which the namePrefix and nameSuffix of the
        kustomizations below the patch have changed."""
        if file not in self._real:
            self._real[file] = os.path.realpath(file)
        per_build: dict[str, set[str]] = {}
        # (kustomization, the rename of the object's name coming into it, the fields patched so far)
        stack = [(k, ("", ""), frozenset[str]()) for k in self._owners(self._real[file])]
        paths = 0
        while stack:
            path, (prefix, suffix), fields = stack.pop()
            kustomization = self._graph[path]
            names = {name, prefix + name + suffix,
                     kustomization.prefix + prefix + name + suffix + kustomization.suffix}
            fields = fields | {f for patch in self._patches(path) if any(patch.targets(kind, n) for n in names)
                               for f in patch.fields}
            rename = (kustomization.prefix + prefix, suffix + kustomization.suffix)
            parents = [p for p in self._parents.get(path, ()) if p in self._graph]
            if path in self._runs and not [p for p in parents if p in self._runs]:
                per_build.setdefault(path, set()).update(fields)  # a build
            paths += len(parents)
            if paths > self.MAX_PATHS:
                return frozenset()
            stack += [(parent, rename, fields) for parent in parents]
        return frozenset.intersection(*map(frozenset, per_build.values())) if per_build else frozenset()

    def _owners(self, file: str) -> list[str]:
        """The kustomizations a resource file belongs to: those naming it, and those including a component
        that names it."""
        owners = []
        for path in self._naming.get(file, ()):
            owners += self._including[path] if path in self._including else [path]
        return owners

    def _patches(self, path: str) -> list[Patch]:
        """A kustomization's patches and its components' (they apply to its resources), and theirs."""
        patches, seen, waiting = list(self._graph[path].patches), {path}, list(self._graph[path].components)
        while waiting:
            component = waiting.pop()
            if component in self._graph and component not in seen:
                seen.add(component)
                patches += self._graph[component].patches
                waiting += self._graph[component].components
        return patches


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


def read_kustomization(path: str, roots: Iterable[Any]) -> Kustomization:
    """The kustomization at real path ``path`` from its parsed documents, with the patches it names read (in a
    worker while the run reads files, or here for a base outside the run)."""
    base = os.path.dirname(path)
    entries: list[tuple[str, str]] = []
    patches: list[Patch] = []
    prefix = suffix = ""
    for root in roots:
        if not isinstance(root, dict):
            continue
        entries += [(key, entry) for key in ("resources", "bases", "components") for entry in _strings(root.get(key))
                    if "://" not in entry and not entry.startswith("git@")]  # a remote base is not in the run
        patches += _patches(root, base)
        prefix = root["namePrefix"] if isinstance(root.get("namePrefix"), str) else prefix
        suffix = root["nameSuffix"] if isinstance(root.get("nameSuffix"), str) else suffix
    return Kustomization(path, tuple(entries), tuple(patches), prefix, suffix)


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
