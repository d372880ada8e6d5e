"""What kustomize overlays decide for their bases: the fields their patches set in a base's objects.

A base PerformanceProfile often leaves ``spec.nodeSelector`` to each site's overlay, and a base Deployment its
resources. The base is never applied alone, so "spec.nodeSelector is required" on it is a finding an expert
dismisses. A field counts as decided for an object of a base when every way a build reaches it (from a
kustomization of the run named by no other, down through bases and components) patches that field. Patches are
matched to objects as kustomize matches them: a strategic-merge patch by its own kind, name and namespace, a
``target`` by its kind and name (regular expressions), namespace, group and version; a target that also chooses
by labels or annotations is not matched (the finding stays). The workers that read the run's kustomizations
send what they name (``read_kustomization``); bases outside the run are read here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from numalint.model.kustomize import KUSTOMIZATION_NAMES
from numalint.reading.sources import read_source
from numalint.reading.yamlpos import YamlError, load_all

_IDENTITY = frozenset({"apiVersion", "kind"})  # a strategic-merge patch's identity, not fields it sets


@dataclass(frozen=True, slots=True)
class Patch:
    """One patch: the objects it targets (kind and name patterns, namespace, group and version; None matches
    any) and the fields it sets."""

    kind: str | None
    name: str | None
    fields: tuple[str, ...]
    namespace: str | None = None
    group: str | None = None
    version: str | None = None

    def targets(self, kind: str, names: Iterable[str], namespace: str | None, api_version: str) -> bool:
        """Does it target the object of ``kind`` known by any of ``names``, in ``namespace`` (None: the default
        one, as kustomize takes it) with ``api_version``? (A kustomization's ``namespace:`` is not applied here:
        a target naming that namespace then matches nothing, and the finding stays.)"""
        group, _, version = api_version.rpartition("/")
        return (_matches(self.kind, kind) and any(_matches(self.name, n) for n in names)
                and (self.namespace is None or self.namespace == (namespace or "default"))
                and (self.group is None or self.group == group)
                and (self.version is None or not version or self.version == version))


@dataclass(slots=True)
class Kustomization:
    """A kustomization's patches, the real paths of the files and kustomizations it names, and the components whose
    patches apply to its resources (as their resource files are its). Resolved where it is read (``read_kustomization``:
    in a worker, in parallel), so that the run's own process only links thousands of them together."""

    path: str
    patches: tuple[Patch, ...] = ()
    prefix: str = ""  # namePrefix
    suffix: str = ""  # nameSuffix
    files: tuple[str, ...] = ()  # its resource files, by real path
    children: tuple[str, ...] = ()  # its bases (resources that are directories): their kustomizations
    components: tuple[str, ...] = ()


Paths = tuple[str, ...]


def _resolved(path: str, entries: Iterable[tuple[str, str]]) -> tuple[Paths, Paths, Paths]:
    """The files, bases and components of the kustomization at ``path`` named by ``entries`` (key, entry as
    written; key "components" or another), by real path; a directory by its kustomization, if it has one."""
    base = os.path.dirname(path)
    files: list[str] = []
    children: list[str] = []
    components: list[str] = []
    for key, entry in entries:
        # resolved through symbolic links (``../base-link`` is ``../base``), a directory once for all the
        # entries in it: resolving each entry cost a second on 3,000 kustomizations
        try:
            joined = os.path.normpath(os.path.join(base, entry))
            target = os.path.join(_real_directory(os.path.dirname(joined)), os.path.basename(joined))
            directory = os.path.isdir(target)
            target = _real_directory(target) if directory else target  # a linked base is the base
        except (ValueError, OSError):  # a NUL in the entry, a loop of links: nothing kustomize reads
            continue
        if directory:
            inner = _kustomization_in(target)
            if inner is not None:
                (components if key == "components" else children).append(inner)
        else:
            files.append(target)
    return tuple(files), tuple(children), tuple(components)


class Route(NamedTuple):
    """One way a build reaches an object: the fields patched on the way, and the build's kustomization (its real
    path)."""

    fields: frozenset[str]
    build: str


class Overlays:
    """The kustomizations of a run, read once, answering for objects of the files they name as resources: from
    the kustomizations naming a file up to the builds (kustomizations of the run no other names), per file
    asked about; nothing is worked out for the thousands of files no finding is on."""

    MAX_STEPS = 1 << 14  # steps up from one file to its builds, at most: past them, nothing is decided
    # builds looked at past the first that patches nothing, to find whether another patches the object (a finding
    # that holds in some builds only names one of them): a bound, as every object may be patched by one build alone
    LOOKAHEAD = 64

    def __init__(self, kustomizations: Iterable[str], known: Mapping[str, Kustomization] | None = None) -> None:
        """``kustomizations``: the run's, by path, besides ``known``: those its workers have read already
        (``read_kustomization``), by real path; the others are read here."""
        graph: dict[str, Kustomization] = {}
        runs = {os.path.realpath(path) for path in kustomizations} | set(known or ())
        waiting = sorted(runs)
        while waiting:  # the bases and components they name are read too, in the run or not
            real = waiting.pop()
            if real not in graph:
                graph[real] = (known or {}).get(real) or read_kustomization(
                    real, [d.root for d in read_source(real).documents])
                waiting += graph[real].children + graph[real].components
        _real_directory.cache_clear()  # the directories of one build of the graph (thousands): not asked again
        self._graph = graph
        self._parents: dict[str, list[str]] = {}  # a kustomization -> those naming it as a base
        self._including: dict[str, list[str]] = {}  # a component -> the kustomizations including it
        # a resource file -> the kustomizations naming it: one (most files), or a list of them (3,000 kustomizations
        # kept 9,000 one-item lists, ~1 MiB)
        self._naming: dict[str, str | list[str]] = {}
        for path, kustomization in graph.items():
            for child in kustomization.children:
                self._parents.setdefault(child, []).append(path)
            for component in kustomization.components:
                self._including.setdefault(component, []).append(path)
            for file in kustomization.files:
                named = self._naming.get(file)
                if named is None:
                    self._naming[file] = path
                elif isinstance(named, str):
                    self._naming[file] = [named, path]
                else:
                    named.append(path)
        self._runs = runs
        self._real: dict[str, str] = {}  # a finding's file -> its real path
        self._indexed: dict[str, list[_Indexed]] = {}  # a kustomization: its patches' indexes (``_patches``)
        self._components: dict[str, _Indexed] = {}  # a component: its patches and its components', indexed
        self._only: frozenset[str] | None = None  # the files a ``restricted`` copy answers for
        self._cyclic: bool | None = None  # whether a kustomization is its own base (``_has_cycle``), once asked
        self._jumps: dict[str, tuple[str, int]] = {}  # ``_jump``'s answers
        self._bases_of: dict[str, tuple[list[str], bool]] = {}  # ``_above``'s answers

    def restricted(self, files: Iterable[str]) -> Overlays:
        """These overlays as far as they decide for the objects of ``files`` (the kustomizations naming them, up
        to their builds, and the components of those), asked about no other file (``Restricted``): a streamed run
        keeps, for the rest of its report, a few of the thousands of kustomizations it read."""
        real = {file: self._real.get(file) or os.path.realpath(file) for file in files}
        named = {k for path in real.values() for k in _listed(self._naming.get(path, ()))}
        kept: set[str] = set()
        waiting = [k for path in real.values() for k in self._owners(path)]
        while waiting:
            path = waiting.pop()
            if path not in kept and path in self._graph:
                kept.add(path)
                waiting += [*self._parents.get(path, ()), *self._graph[path].components]
        copy = Overlays.__new__(Overlays)
        copy._graph = {path: self._graph[path] for path in kept}
        copy._parents = {path: self._parents[path] for path in kept if path in self._parents}
        copy._including = {path: self._including[path] for path in named if path in self._including}
        copy._naming = {path: self._naming[path] for path in real.values() if path in self._naming}
        copy._runs = self._runs & kept
        copy._real = real
        copy._indexed = {path: index for path, index in self._indexed.items() if path in kept}
        copy._components = {path: index for path, index in self._components.items() if path in kept}
        copy._only = frozenset(real)
        copy._cyclic = None
        copy._jumps = {}
        copy._bases_of = {}
        return copy

    def decided(self, file: str, kind: str, name: str, namespace: str | None = None,
                api_version: str = "", settled_only: bool = False,
                settling: Callable[[frozenset[str]], bool] | None = None) -> list[Route]:
        """For each way a build reaches the object ``kind``/``name`` (in ``namespace``, of ``api_version``) in
        ``file``, the build and the fields patched on the way (dotted paths as ``output.sources`` names keys:
        ``spec.nodeSelector``, list items as ``[name]``); empty when no build reaches it. A finding is settled
        when every way settles it (``settles``), each with its own fields: two sites patching two different
        node selector labels each supply the selector. Two ways into one build (a diamond of two bases, each
        renaming) are two. kustomize matches a target on an object's original name or its current one, which
        the namePrefix and nameSuffix of the kustomizations below the patch have changed. ``settled_only``: the
        caller asks only whether every way settles it, so the walk stops at the first way patching nothing (or
        not what ``settling`` asks) once it has seen one that does, or ``LOOKAHEAD`` ways past it (a base of
        thousands of objects under thousands of overlays, each patching one, walked every overlay for each
        object)."""
        if file not in self._real:
            if self._only is not None:
                raise Restricted(file)
            self._real[file] = os.path.realpath(file)
        routes: list[Route] = []
        # without a cycle no route can meet itself: the routes are not kept (copying one at each step was quadratic
        # in a chain of bases, each file walking it all)
        cyclic = self._has_cycle()
        # depth first, as a stack of the kustomizations still to visit above each one visited (taken one by one, not
        # listed: thousands of overlays of one base): the rename of the object's name coming into them, the fields
        # patched so far, the kustomizations of the route so far (a cycle, which kustomize refuses, is not walked
        # round)
        ahead = [(reversed(self._owners(self._real[file])), ("", ""), frozenset[str](), frozenset[str]())]
        steps = 0
        patched, unpatched = False, -1  # a way patching some field seen; the first patching none (its count)
        while ahead:
            paths, (prefix, suffix), fields, route = ahead[-1]
            path = next(paths, None)
            if path is None:
                ahead.pop()
                continue
            if path in route:
                continue
            route = route | {path} if cyclic else route
            if not cyclic:  # past the kustomizations that only pass the object on, each a step as before
                path, passed = self._jump(path)
                steps += passed
            steps += 1
            if steps > self.MAX_STEPS:
                return []
            kustomization = self._graph[path]
            names = {name, prefix + name + suffix,
                     kustomization.prefix + prefix + name + suffix + kustomization.suffix}
            candidates = [patch for by_name, others in self._patches(path)
                          for patch in (*(p for n in names for p in by_name.get((kind, n), ())), *others.trying(names))]
            fields = fields | {f for patch in candidates if patch.targets(kind, names, namespace, api_version)
                               for f in patch.fields}
            parents, build = self._above(path)
            if build:
                routes.append(Route(fields, path))
                if settled_only:
                    good = settling(fields) if settling is not None and fields else bool(fields)
                    patched = patched or good
                    if not good and unpatched < 0:
                        unpatched = len(routes)
                    if unpatched >= 0 and (patched or len(routes) - unpatched >= self.LOOKAHEAD):
                        return routes
            rename = (kustomization.prefix + prefix, suffix + kustomization.suffix)
            ahead.append((reversed(parents), rename, fields, route))
        return routes

    def _above(self, path: str) -> tuple[list[str], bool]:
        """The kustomizations naming ``path`` as a base, and whether ``path`` is a build (of the run, and none of
        them is): once for each."""
        if path not in self._bases_of:
            parents = [p for p in self._parents.get(path, ()) if p in self._graph]
            self._bases_of[path] = (parents, path in self._runs and not any(p in self._runs for p in parents))
        return self._bases_of[path]

    def _jump(self, path: str) -> tuple[str, int]:
        """The first kustomization from ``path`` up its only bases that does more than pass an object on (patch,
        rename, build, or have several bases or none), and how many it passes to get there: worked out once for
        each (a chain of thousands of bases was walked whole from each file). Only for a graph without a cycle."""
        passing: list[str] = []
        while path not in self._jumps:
            parents, build = self._above(path)
            kustomization = self._graph[path]
            if (len(parents) != 1 or build or kustomization.prefix or kustomization.suffix
                    or any(by_name or others.patches for by_name, others in self._patches(path))):
                self._jumps[path] = (path, 0)
                break
            passing.append(path)
            path = parents[0]
        target, passed = self._jumps[path]
        for node in reversed(passing):
            passed += 1
            self._jumps[node] = (target, passed)
        return target, passed

    def _has_cycle(self) -> bool:
        """Whether some kustomization is among its own bases (kustomize refuses it; a route is then not walked
        round): worked out once."""
        if self._cyclic is None:
            state: dict[str, int] = {}  # 1: on the way, 2: done
            self._cyclic = False
            for start in self._graph:
                if start in state:
                    continue
                state[start] = 1
                todo = [(start, iter(self._parents.get(start, ())))]
                while todo and not self._cyclic:
                    path, parents = todo[-1]
                    parent = next((p for p in parents if p in self._graph), None)
                    if parent is None:
                        state[path] = 2
                        todo.pop()
                    elif state.get(parent) == 1:
                        self._cyclic = True
                    elif parent not in state:
                        state[parent] = 1
                        todo.append((parent, iter(self._parents.get(parent, ()))))
                if self._cyclic:
                    break
        return self._cyclic

    def _owners(self, file: str) -> list[str]:
        """The kustomizations a resource file belongs to: those naming it, and those including a component
        that names it."""
        owners = []
        for path in _listed(self._naming.get(file, ())):
            owners += self._including[path] if path in self._including else [path]
        return owners

    def _patches(self, path: str) -> list[_Indexed]:
        """A kustomization's patches and its components' (they apply to its resources), and theirs: each indexed
        by the kind and name they name (most), the patterns apart; its own once, and each component's with its own
        components once, however many kustomizations include it (a thousand objects under 250 sites of 143 patches
        each took 50 s scanned one by one; a component of thousands of patches was indexed again for each of
        thousands of overlays)."""
        if path not in self._indexed:
            kustomization = self._graph[path]
            self._indexed[path] = [_index(kustomization.patches)] + [
                self._component(component) for component in dict.fromkeys(kustomization.components)
                if component in self._graph]
        return self._indexed[path]

    def _component(self, path: str) -> _Indexed:
        """A component's patches and those of the components it includes, and theirs, indexed once."""
        if path not in self._components:
            patches, seen, waiting = list(self._graph[path].patches), {path}, list(self._graph[path].components)
            while waiting:
                component = waiting.pop()
                if component in self._graph and component not in seen:
                    seen.add(component)
                    patches += self._graph[component].patches
                    waiting += self._graph[component].components
            self._components[path] = _index(patches)
        return self._components[path]


_Indexed = tuple[dict[tuple[str, str], list[Patch]], "_PatternPatches"]


def _index(patches: Iterable[Patch]) -> _Indexed:
    """Patches naming one kind and name by them, the others (name patterns, kinds alone) apart."""
    by_name: dict[tuple[str, str], list[Patch]] = {}
    others: list[Patch] = []
    for patch in patches:
        kind, name = _literal(patch.kind), _literal(patch.name)
        if kind is not None and name is not None:
            by_name.setdefault((kind, name), []).append(patch)
        else:
            others.append(patch)
    return by_name, _PatternPatches(others)


class _PatternPatches:
    """A kustomization's patches that target by a name pattern (or by kind alone). Where there are many, their name
    patterns make RE2 sets (a thousand patterns each: RE2 refuses to compile a set past a size), which tell in one
    pass over a name which patterns can match it (a kustomization of 8,000 pattern targets over 1,000 objects tried
    every pattern for every finding: 35 s). A set's answer is trusted only when its catch-all pattern is among the
    matches (RE2 answers "none" when its automaton runs out of memory); else, and for a set RE2 would not compile,
    its patches are all tried."""

    MANY = 64  # fewer are tried one by one
    PER_SET = 1_000

    def __init__(self, patches: list[Patch]) -> None:
        self.patches = patches
        self._sets: list[tuple[Any, list[int]]] | None = None  # made on first use: (set, the patch of each pattern)
        self._always: list[int] = []  # patches without a name pattern a set takes: always tried

    def trying(self, names: Iterable[str]) -> list[Patch]:
        """The patches whose name pattern may match one of ``names`` (``Patch.targets`` decides)."""
        if len(self.patches) < self.MANY:
            return self.patches
        if self._sets is None:
            self._sets = self._build()
        found = set(self._always)
        for name in names:
            for matcher, patches in self._sets:
                matched = matcher.Match(name)
                if matched and 0 in matched:
                    found.update(patches[i] for i in matched if i)
                else:
                    found.update(patches[1:])
        return [self.patches[i] for i in sorted(found)]

    def _build(self) -> list[tuple[Any, list[int]]]:
        import re2  # here: only a kustomization of many pattern targets needs a set

        options = re2.Options()
        options.log_errors = False
        named = [index for index, patch in enumerate(self.patches) if patch.name is not None]
        self._always = [index for index, patch in enumerate(self.patches) if patch.name is None]
        sets: list[tuple[Any, list[int]]] = []
        for start in range(0, len(named), self.PER_SET):
            matcher, taken = re2.Set.FullMatchSet(options), [-1]
            matcher.Add("(?s).*")
            for index in named[start:start + self.PER_SET]:
                try:
                    matcher.Add(self.patches[index].name)
                    taken.append(index)
                except re2.error:  # compared as plain text by Patch.targets (kustomize fails on it)
                    self._always.append(index)
            try:
                matcher.Compile()
            except re2.error:
                self._always += taken[1:]
                continue
            sets.append((matcher, taken))
        return sets


class Restricted(LookupError):
    """A file ``Overlays.restricted`` was not made for."""


def _listed(named: str | list[str] | tuple[()]) -> Iterable[str]:
    return (named,) if isinstance(named, str) else named


def settles(decided: frozenset[str], key: str, root: Any = None, absent: bool = False) -> bool:
    """Does a patch that sets ``decided`` decide the finding at ``key`` of the object ``root``: it sets that
    field or the mapping it sits in? A patch setting a field inside it changes part of it only (strategic merge
    keeps the rest: one label patched into a selector of two leaves two), unless the finding is about the field
    missing (``absent``), which the patch then supplies; a finding about several missing fields (``a,b``) is
    settled only when every one is. A list item is named by its ``name`` in ``key`` and by its index in a JSON
    6902 path: both are tried."""
    return all(any(f == k or k.startswith(f + ".") or (absent and f.startswith(k + "."))
                   for f in decided for k in {one, _indexed(root, one)})
               for one in key.split(","))


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
    """The kustomization at real path ``path`` from its parsed documents, with the patches it names read and its
    entries resolved (in a worker while the run reads files, or here for a base outside the run): resolving
    thousands of kustomizations took a tenth of a second of the run's serial part."""
    base = os.path.dirname(path)
    entries: list[tuple[str, str]] = []
    patches: list[Patch] = []
    prefix = suffix = ""
    for root in roots:
        if not isinstance(root, dict):
            continue
        entries += [(key, entry) for key in ("resources", "bases", "components") for entry in _strings(root.get(key))
                    if "://" not in entry and not entry.startswith("git@")]  # remote: not here
        patches += _patches(root, base)
        prefix = root["namePrefix"] if isinstance(root.get("namePrefix"), str) else prefix
        suffix = root["nameSuffix"] if isinstance(root.get("nameSuffix"), str) else suffix
    return Kustomization(path, tuple(patches), prefix, suffix, *_resolved(path, entries))


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
                if target is not None and (target.get("labelSelector") or target.get("annotationSelector")):
                    continue  # chosen by labels or annotations: which objects is not read here
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
    chosen = None if target is None else (_pattern(target.get("kind")), _pattern(target.get("name")),
                                          _pattern(target.get("namespace")), _pattern(target.get("group")),
                                          _pattern(target.get("version")))
    for root in roots:
        if isinstance(root, list):  # a JSON 6902 patch: a list of operations, always with a target
            if chosen is not None:
                yield Patch(chosen[0], chosen[1], tuple(dict.fromkeys(_operations(root))), *chosen[2:])
        elif isinstance(root, dict):
            if chosen is not None:
                yield Patch(chosen[0], chosen[1], tuple(dict.fromkeys(_leaves(root))), *chosen[2:])
                continue
            metadata: dict[Any, Any] = root["metadata"] if isinstance(root.get("metadata"), dict) else {}
            kind, name = root.get("kind"), metadata.get("name")
            if not isinstance(kind, str) or not isinstance(name, str):
                continue  # kustomize refuses a strategic-merge patch without kind and name
            api_version: str = root["apiVersion"] if isinstance(root.get("apiVersion"), str) else ""
            group, _, version = api_version.rpartition("/")
            yield Patch(re.escape(kind), re.escape(name), tuple(dict.fromkeys(_leaves(root))),
                        _pattern(metadata.get("namespace")), group if api_version else None, version or None)


def _pattern(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _matches(pattern: str | None, value: str) -> bool:
    """kustomize matches a target's kind and name as regular expressions anchored at both ends."""
    if pattern is None:
        return True
    compiled = _compiled(pattern)
    return compiled.fullmatch(value) is not None if compiled is not None else pattern == value


@lru_cache(maxsize=1 << 14)
def _compiled(pattern: str) -> Any:
    """Each pattern compiled once (thousands of targets overflowed a cache of 512) with RE2, as kustomize compiles
    it with Go's regexp: the same syntax (no lookaround, ASCII digits for ``\\d``), and matching in time linear in
    the name, where a backtracking matcher took seconds on a pattern like ``(a|a)*b`` and a name of 26 letters.
    None for a pattern RE2 refuses (kustomize fails on it; compared as plain text)."""
    import re2  # here: only a run with a kustomize target pattern needs it (start-up time)

    options = re2.Options()
    options.log_errors = False  # RE2 would log a refused pattern on stderr
    try:
        return re2.compile(pattern, options)
    except re2.error:
        return None


def _literal(pattern: str | None) -> str | None:
    """The one string a pattern matches, when it is plain text (``dpdk``, or ``du\\-perf`` as re.escape writes
    it); None for a regular expression."""
    if pattern is None:
        return None
    if not _METACHARACTERS.search(pattern):
        return pattern
    plain = re.sub(r"\\(.)", r"\1", pattern)
    return plain if re.escape(plain) == pattern else None


_METACHARACTERS = re.compile(r"[.^$*+?{}\[\]|()\\]")


@lru_cache(maxsize=1 << 14)
def _real_directory(directory: str) -> str:
    return os.path.realpath(directory)


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
    """The fields JSON 6902 operations write (``/spec/nodeSelector`` -> ``spec.nodeSelector``): the path of an
    add, replace, copy or move; a test writes nothing, and a remove leaves the field unset."""
    for operation in operations:
        if isinstance(operation, dict) and isinstance(operation.get("path"), str) \
                and operation.get("op") in ("add", "replace", "copy", "move"):
            steps = [s.replace("~1", "/").replace("~0", "~") for s in operation["path"].strip("/").split("/")]
            yield ".".join(f"[{s}]" if s.isdigit() or s == "-" else s for s in steps)
