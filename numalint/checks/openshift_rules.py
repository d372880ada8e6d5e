"""OpenShift checks: KubeletConfigs competing for one MachineConfigPool, PerformanceProfile CPU sets."""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from numalint.analysis import Analysis
from numalint.checks.registry import check
from numalint.findings import MAX_NAMED, Fix, Hit, ObjectRef
from numalint.k8s.cpuset import CPUSetError, format_cpuset, parse_cpuset
from numalint.k8s.kinds import KUBELET_SNIPPET
from numalint.k8s.quantity import format_bytes, try_quantity
from numalint.model.pools import (
    MachineConfigPools,
    MachineConfigPoolView,
    Pool,
    explicit_pool_selector,
    machine_config_pools,
    reaches_no_pool,
    targeted_pools,
)
from numalint.model.run import NearFiles, Run, same_directory
from numalint.reading.locate import get, locate
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span
from numalint.views.embedded import PLACEHOLDER, EmbeddedDocument, unfinished

if TYPE_CHECKING:
    from numalint.views.kubelet import KubeletProfile
    from numalint.views.topology import TopologyView


def _selector_span(profile: KubeletProfile) -> Span:
    """Where a configuration names its pool: machineConfigPoolSelector (a PerformanceProfile without one
    finds its pool by nodeSelector)."""
    doc = profile.rendered_from or profile.doc
    for field in ("machineConfigPoolSelector", "nodeSelector"):
        if isinstance(get(doc.root, ("spec", field)), dict):
            return locate(doc.root, ("spec", field), key=True)
    return profile.anchor()


def _rendered_copy(profile: KubeletProfile, rendered: set[str]) -> bool:
    """A KubeletConfig ``performance-<name>`` next to PerformanceProfile ``<name>``: the operator's output
    for that profile (render test data, a must-gather), the same configuration named twice."""
    return profile.rendered_from is None and profile.name in rendered


def _selector_labels(profile: KubeletProfile) -> tuple[tuple[str, str], ...] | None:
    """A machineConfigPoolSelector of matchLabels only, as sorted items (two equal ones select the same pools,
    whichever they are); None for any other selector."""
    selector = get(profile.doc.root, ("spec", "machineConfigPoolSelector"))
    if not isinstance(selector, dict) or set(selector) != {"matchLabels"} or \
            not isinstance(selector["matchLabels"], dict) or not selector["matchLabels"]:
        return None
    return tuple(sorted((str(k), "" if v is None else str(v)) for k, v in selector["matchLabels"].items()))


def _pool_labels_fix(profile: KubeletProfile, pools: MachineConfigPools) -> str:
    """Match the intended pool: the labels each MachineConfigPool near the configuration carries (what a
    machineConfigPoolSelector matches), or its spec.nodeSelector (what a PerformanceProfile's nodeSelector must
    match when it names no pool); a generic example only when no pool of the cluster is declared. The first
    MAX_NAMED pools are named, the rest counted."""
    if explicit_pool_selector(profile):
        first, count = pools.near(profile.file, "labels", MAX_NAMED)
        if first:
            return "select the intended MachineConfigPool by its labels: " + _first_named(
                [(p.name, "carries", p.labels) for p in first], count)
        return ("match the labels of the intended MachineConfigPool (e.g. "
                'pools.operator.machineconfiguration.openshift.io/<pool>: "")')
    first, count = pools.near(profile.file, "node_labels", MAX_NAMED)
    if first:
        return "give the profile the nodeSelector of the intended MachineConfigPool: " + _first_named(
            [(p.name, "selects", p.node_labels) for p in first], count)
    return "give the profile the nodeSelector of the intended MachineConfigPool, or a machineConfigPoolSelector"


def _first_named(offers: list[tuple[str, str, dict[str, str]]], count: int) -> str:
    """The first MAX_NAMED pools with their labels (``offers``), the rest of ``count`` counted."""
    named = "; ".join(f'"{name}" {verb} {_label_list(labels)}' for name, verb, labels in offers[:MAX_NAMED])
    more = count - MAX_NAMED
    return named + (f"; and {more} more pool{'s' if more > 1 else ''}" if more > 0 else "")


def _label_list(labels: dict[str, str]) -> str:
    return ", ".join(f'{k}: "{v}"' for k, v in sorted(labels.items()))


@check("kubeletconfig-pool")
def kubeletconfig_pool(analysis: Analysis) -> Iterator[Hit]:
    pools = machine_config_pools(analysis.run)
    rendered = {f"performance-{p.ref.name}" for p in analysis.profiles if p.rendered_from is not None}
    selecting: dict[int, tuple[MachineConfigPoolView, list[KubeletProfile]]] = {}
    unknown: dict[tuple[tuple[str, str], ...], list[KubeletProfile]] = {}  # by selector: pools not in the run
    fixes: dict[tuple[str, bool], str] = {}
    for profile in analysis.profiles:
        if not profile.openshift or _rendered_copy(profile, rendered) or \
                isinstance(profile.rendered_from, EmbeddedDocument):
            continue  # a HyperShift NodePool's profile (in a ConfigMap) has no MachineConfigPool
        if profile.rendered_from is not None and not profile.node_selector:
            continue  # performance-profile-invalid reports the missing nodeSelector
        if unfinished(get(profile.doc.root, ("spec", "machineConfigPoolSelector"))):
            continue  # a template variable names the pool
        matched = targeted_pools(pools, profile)
        if reaches_no_pool(analysis.run, profile, pools):
            how = ("machineConfigPoolSelector matches none of their labels" if explicit_pool_selector(profile)
                   else "no pool's spec.nodeSelector matches its nodeSelector")
            apart = "" if analysis.run.declared or pools.beside(profile.file) else (
                " (if the pools' files describe another cluster, declare the clusters under `clusters:` in "
                ".numalint.yaml)")
            # the fix depends on the pools near the configuration's directory and the kind of its selector: made
            # once for each (thousands of configurations beside thousands of pools each went through them all)
            key = (os.path.dirname(os.path.abspath(profile.file)), explicit_pool_selector(profile))
            if key not in fixes:
                fixes[key] = _pool_labels_fix(profile, pools)
            yield Hit(f"{profile.ref.label()} selects no MachineConfigPool of the run nor the built-in master or "
                      f"worker pool ({how}): its settings reach no node{apart}", profile.file, _selector_span(profile),
                      profile.ref, Fix(fixes[key]))
        elif not matched and explicit_pool_selector(profile) and (labels := _selector_labels(profile)) is not None:
            unknown.setdefault(labels, []).append(profile)
        for mcp in matched:
            selecting.setdefault(id(mcp), (mcp, []))[1].append(profile)
    run = analysis.run
    groups: list[tuple[str, list[KubeletProfile], KubeletProfile | None]] = []
    copies = Counter(mcp.name for mcp, _ in selecting.values())
    for mcp, profiles in selecting.values():  # each with the configurations near it
        # a pool defined in several clusters' trees: each copy takes the configurations near its file
        pool_file = mcp.doc.file if mcp.doc is not None and copies[mcp.name] > 1 else None
        near_pool = [p for p in profiles if pool_file is None or run.together(p.file, pool_file)]
        groups += [(f'MachineConfigPool "{mcp.name}"', together, profile)
                   for profile, together in _near_each(run, near_pool)]
    for labels, profiles in unknown.items():  # one pool, not in the run
        label = ",".join(f"{k}={v}" for k, v in labels)
        groups += [(f"MachineConfigPool with labels {label} (not in the run)", together, profile)
                   for profile, together in _near_each(run, profiles)]
    seen: set[tuple[str, str]] = set()  # a configuration near two trees' copies of one pool: reported once
    for hit in _competing(groups, run.declared):
        if (hit.file, hit.message) not in seen:
            seen.add((hit.file, hit.message))
            yield hit


def _near_each(run: Run, profiles: list[KubeletProfile]) -> Iterator[tuple[KubeletProfile, list[KubeletProfile]]]:
    """Each configuration with those of ``profiles`` the run takes as its cluster's (``Run.together``), when
    there are others; nearness is worked out once per two directories, not per two files (1,600 configurations
    of one pool)."""
    if len(profiles) < 2:
        return
    if run.declared:
        yield from ((profile, profiles) for profile in profiles)
        return
    by_directory: dict[str, list[KubeletProfile]] = {}
    for profile in profiles:
        by_directory.setdefault(os.path.dirname(os.path.abspath(profile.file)), []).append(profile)
    for here in by_directory.values():
        # one file of a directory stands for them all: nearness depends on directories only
        near = {id(p) for there in by_directory.values() if run.together(here[0].file, there[0].file) for p in there}
        together = [p for p in profiles if id(p) in near]  # in the order of the run
        if len(together) > 1:
            yield from ((profile, together) for profile in here)


def _competing(groups: list[tuple[str, list[KubeletProfile], KubeletProfile | None]], declared: bool
               ) -> Iterator[Hit]:
    """(pool, configurations selecting it, the only one to report or None for each): each configuration's finding
    names the others (the first MAX_NAMED, the rest counted); PerformanceProfiles of one nodeSelector count once
    (performance-profile-invalid reports them). Outside a declared cluster, configurations in two directories may be
    two clusters': the finding says how to tell. What a list of configurations says is worked out once for every
    group that shares it (thousands of configurations of one pool share a few lists: per group it was quadratic)."""
    said: dict[int, tuple[list[str], set[str], str]] = {}
    for pool, profiles, only in groups:
        known = said.get(id(profiles))
        if known is None:
            # PerformanceProfiles with one nodeSelector: performance-profile-invalid reports them (the webhook)
            same: dict[str, str] = {}
            for p in profiles:
                if p.rendered_from is not None and p.node_selector:
                    same.setdefault(str(sorted(p.node_selector.items())), p.ref.label())
            names = list(dict.fromkeys(
                same.get(str(sorted(p.node_selector.items())), p.ref.label()) if p.rendered_from is not None and
                p.node_selector else p.ref.label() for p in profiles))
            apart = "" if declared or all(same_directory(profiles[0].file, p.file) for p in profiles) else (
                " (if the files describe different clusters, declare the clusters under `clusters:` in "
                ".numalint.yaml)")
            known = said[id(profiles)] = (names, set(names), apart)
        names, named, apart = known
        if len(names) < 2:
            continue
        for profile in [only] if only is not None else profiles:
            label = profile.ref.label()
            if label not in named:
                continue
            others = list(itertools.islice((n for n in names if n != label), MAX_NAMED))
            more = len(names) - 1 - len(others)
            listed = ", ".join(others) + (f" and {more} more" if more else "")
            yield Hit(f"{pool} is selected by {label} and "
                      f"{listed}: KubeletConfigs do not merge, only the newest one's kubelet.conf "
                      "applies (what an older one writes to other files, such as systemReserved to "
                      f"/etc/node-sizing-enabled.env, may still apply where the newest writes none){apart}",
                      profile.file,
                      _selector_span(profile), profile.ref,
                      Fix("merge the settings into one KubeletConfig per pool; beside a PerformanceProfile, which "
                          "renders its own performance-<name> KubeletConfig, move the other's settings into the "
                          "profile's kubeletconfig.experimental annotation"))


@check("performance-profile-cpus")
def performance_profile_cpus(analysis: Analysis) -> Iterator[Hit]:
    with_topology: dict[int, list[Pool]] = {}  # each profile's pools of a known topology, found in one pass
    for candidate in analysis.pools:
        if candidate.topology is not None:
            with_topology.setdefault(id(candidate.profile), []).append(candidate)
    for profile in analysis.profiles:
        doc = profile.rendered_from
        if doc is None:
            continue
        spec = get(doc.root, ("spec",)) or {}
        sets: dict[str, frozenset[int]] = {}
        for field in ("reserved", "isolated", "shared", "offlined", "ovsDpdk"):
            text = get(spec, ("cpu", field))
            if isinstance(text, str) and PLACEHOLDER.search(text):
                continue  # a template (ZTP PolicyGenerator / PolicyGenTemplate) fills it in later
            if isinstance(text, str):
                try:
                    sets[field] = parse_cpuset(text)
                except CPUSetError as err:
                    yield Hit(f"spec.cpu.{field} \"{text}\" is not a CPU list ({err})",
                              doc.file, locate(doc.root, ("spec", "cpu", field)), profile.ref,
                              Fix('write a Linux CPU list such as "0-1,52-53"'))
        names = list(sets)
        for i, first in enumerate(names):
            for second in names[i + 1:]:
                common = sets[first] & sets[second]
                if common:
                    yield Hit(f"spec.cpu.{first} and spec.cpu.{second} cpus overlap ({format_cpuset(common)}): the "
                              "Node Tuning Operator rejects the profile", doc.file,
                              locate(doc.root, ("spec", "cpu", second)), profile.ref,
                              Fix(f"remove {format_cpuset(common)} from one of them"))
        pools = with_topology.get(id(profile), [])
        if pools:  # here, not at the top: the PerformanceProfile view matters only with a topology (start-up time)
            from numalint.views.performance import offline_cpus
        for pool in pools:
            topo = pool.topology
            assert topo is not None
            present = frozenset(topo.machine.cpus)
            smt_off = offline_cpus(profile, topo.machine) - sets.get("offlined", frozenset())
            online = present - offline_cpus(profile, topo.machine)
            named = frozenset().union(*sets.values()) if sets else frozenset()
            unknown = named - present
            if unknown:
                yield Hit(f'spec.cpu names CPUs {format_cpuset(unknown)} that topology "{topo.name}" lacks '
                          f"(present: {format_cpuset(present)})", doc.file, locate(doc.root, ("spec", "cpu")),
                          profile.ref, Fix(f"use only CPUs in {format_cpuset(present)}"))
            down = (sets.get("reserved", frozenset()) | sets.get("isolated", frozenset())) & smt_off
            if down:
                yield Hit(f"spec.cpu names CPUs {format_cpuset(down)} that the nosmt kernel argument keeps offline "
                          f'(SMT siblings on topology "{topo.name}"): they never run anything',
                          doc.file, locate(doc.root, ("spec", "cpu")), profile.ref,
                          Fix("name only the first thread of each core, or drop nosmt from additionalKernelArgs"))
            left_out = online - named
            if sets.get("reserved") is not None and sets.get("isolated") is not None and left_out:
                yield Hit(f"reserved and isolated leave online CPUs {format_cpuset(left_out)} of topology "
                          f'"{topo.name}" out: they belong to no pool the profile manages',
                          doc.file, locate(doc.root, ("spec", "cpu", "isolated")), profile.ref,
                          Fix(f"add {format_cpuset(left_out)} to spec.cpu.isolated (or offlined)"))
            yield from _hugepages(analysis, doc, profile, topo)


def _hugepages(analysis: Analysis, doc: Document, profile: KubeletProfile, topo: TopologyView) -> Iterator[Hit]:
    pages = get(doc.root, ("spec", "hugepages", "pages"))
    per_node: dict[int, int] = {}
    for index, page in enumerate(pages if isinstance(pages, list) else []):
        if not isinstance(page, dict) or not isinstance(page.get("node"), int):
            continue
        size = try_quantity(str(page.get("size", "")).replace("M", "Mi").replace("G", "Gi"))
        count = page.get("count")
        if size is None or not isinstance(count, int):
            continue
        node = page["node"]
        per_node[node] = per_node.get(node, 0) + int(size) * count
        numa = topo.machine.node_by_id.get(node)
        if numa is None:
            yield Hit(f'hugepages for NUMA node {node}, which topology "{topo.name}" '
                          "lacks", doc.file, locate(doc.root, ("spec", "hugepages", "pages", index, "node")),
                          profile.ref, Fix(f"use a NUMA node of {topo.machine.numa_ids}"))
        elif numa.memory and per_node[node] > numa.memory:
            yield Hit(f"hugepages on NUMA node {node} add up to {format_bytes(per_node[node])}, beyond its "
                          f"{format_bytes(numa.memory)} of memory", doc.file,
                          locate(doc.root, ("spec", "hugepages", "pages", index)), profile.ref,
                          Fix("lower the page count or spread the pages over NUMA nodes"))


# the sizes the webhook accepts (x86: 2M, 1G; aarch64, by kernel page size: 64k, 2M, 32M, 512M, 1G, 16G across
# operator versions); without the nodes' architecture numalint accepts any of them
HUGEPAGE_SIZES = ("2M", "1G", "32M", "512M", "64k", "16G")


@check("performance-profile-invalid")
def performance_profile_invalid(analysis: Analysis) -> Iterator[Hit]:
    """What the Node Tuning Operator's admission webhook rejects
    (pkg/apis/performanceprofile/v2/performanceprofile_validation.go: validateCPUs, validateSelectors,
    validateNodeSelectorDuplication, validateHugePages, validateWorkloadHints)."""
    # a template or a kustomize patch is not the object yet
    finished = [doc for doc in analysis.performance_profiles() if not unfinished(doc.root)]
    alike: dict[tuple[tuple[str, str], ...], list[Document]] = {}  # profiles by node selector (compared: not n x n)
    for doc in finished:
        alike.setdefault(_selector_key(doc), []).append(doc)
    near: dict[int, NearFiles] = {}
    for doc in finished:
        yield from _profile_problems(doc, _alike_beside(doc, alike[_selector_key(doc)], analysis.run, near),
                                     analysis.run)


def _alike_beside(doc: Document, docs: list[Document], run: Run, near: dict[int, NearFiles]) -> Iterator[Document]:
    """The profiles of ``docs`` (``doc``'s node selector) in ``doc``'s cluster (``Run.together``), in order: found
    through the files of ``docs`` indexed once (``near``, by group), at the cost of those asked for (thousands of
    profiles in as many cluster trees each tried every other)."""
    if run.declared:
        yield from docs
        return
    if id(docs) not in near:
        near[id(docs)] = NearFiles(other.file for other in docs)
    for number in near[id(docs)].near(doc.file):
        yield docs[number]


SAME_SELECTOR_NAMED = 10  # the other profiles of a node selector each profile names


def _selector_key(doc: Document) -> tuple[tuple[str, str], ...]:
    """A profile's node selector as a key that alike selectors share (equal ones are then compared as they are)."""
    selector = get(doc.root, ("spec", "nodeSelector"))
    return tuple(sorted((str(k), repr(v)) for k, v in selector.items())) if isinstance(selector, dict) else ()


def _pools_node_label(doc: Document, run: Run) -> str:
    """The node selector a profile without one wants: the one label of the nodes of the MachineConfigPool its
    machineConfigPoolSelector picks, when that is one pool of its cluster (found by a precision review: the hint
    named worker-cnf beside a pool of role ht); else an example."""
    selector = get(doc.root, ("spec", "machineConfigPoolSelector"))
    if isinstance(selector, dict) and selector:
        pools = [pool for pool in machine_config_pools(run).selected_by({"matchLabels": selector})
                 if pool.doc is not None and run.together(doc.file, pool.doc.file)]
        if len(pools) == 1 and len(pools[0].node_labels) == 1:
            (key, value), = pools[0].node_labels.items()
            return f'{{{key}: "{value}"}}, the nodes of MachineConfigPool {pools[0].name} it configures'
    return 'e.g. {node-role.kubernetes.io/worker-cnf: ""}'


def _profile_problems(doc: Document, docs: Iterable[Document], run: Run) -> Iterator[Hit]:
    """The webhook's refusals of ``doc``; ``docs``: the profiles of its cluster (``Run.together``) whose node
    selectors may equal its own, in order (only as many are asked for as it names)."""
    ref = _ref(doc)
    spec = get(doc.root, ("spec",))
    if not isinstance(spec, dict):
        yield Hit("PerformanceProfile without a spec: the webhook requires spec.cpu and spec.nodeSelector",
                  doc.file, locate(doc.root, ("kind",)), ref, Fix("add spec.cpu and spec.nodeSelector"),
                  key="spec.cpu.reserved,spec.cpu.isolated,spec.nodeSelector")
        return

    def hit(message: str, *path: str | int, key: bool = False, fix: str = "", absent: str | None = None) -> Hit:
        """``absent``: the missing fields the finding is about (key paths, comma-separated: for fingerprints and
        overlays)."""
        return Hit(message, doc.file, locate(doc.root, ("spec", *path), key=key), ref, Fix(fix) if fix else None,
                   key=absent)

    from numalint.views.performance import unrenderable  # here: only a run with PerformanceProfiles needs it

    failed = unrenderable(doc)
    if failed is not None:
        yield Hit(failed[0], doc.file, locate(doc.root, KUBELET_SNIPPET),
                  ref, Fix(failed[1]))

    selector = spec.get("nodeSelector")
    if isinstance(doc, EmbeddedDocument):
        pass  # a HyperShift NodePool applies it to its own nodes
    elif not isinstance(selector, dict) or not selector:
        yield hit('spec.nodeSelector is required ("the nodeSelector required"): without it the profile '
                  "selects no nodes and the webhook rejects it", "nodeSelector", key=True,
                  fix=f"add spec.nodeSelector, {_pools_node_label(doc, run)}", absent="spec.nodeSelector")
    else:
        if len(selector) > 1:
            yield hit("spec.nodeSelector has several labels; the webhook accepts exactly one "
                      '("you should provide ony 1 NodeSelector")', "nodeSelector", key=True,
                      fix="keep one label (the role label of the pool's nodes)")
        explicit = all(isinstance(spec.get(f), dict) and spec.get(f) for f in
                       ("machineConfigPoolSelector", "machineConfigLabel"))
        first = str(next(iter(selector)))
        if not explicit and (first.count("/") != 1 or not all(first.split("/"))):
            yield hit(f'spec.nodeSelector key "{first}" cannot be split into domain/role, and without '
                      "machineConfigPoolSelector and machineConfigLabel the operator needs the role from it",
                      "nodeSelector", key=True, fix="use node-role.kubernetes.io/<role>, or set both selectors")
        said = 0
        for other in docs:
            if other is doc:
                continue
            if said == SAME_SELECTOR_NAMED:  # thousands of profiles of one selector: each names a few (linear)
                break
            # ``docs`` are of its cluster: in two clusters' trees, as many repositories keep them, two never meet
            if _ref(other).name != ref.name and get(other.root, ("spec", "nodeSelector")) == selector:
                elsewhere = ("" if run.declared or same_directory(other.file, doc.file) else
                             " (if the two files describe different clusters, declare them under `clusters:` in "
                             ".numalint.yaml)")
                said += 1
                yield hit(f'the profile has the same node selector as the performance profile "{_ref(other).name}" '
                          f"({other.file}): the webhook rejects the second one{elsewhere}", "nodeSelector", key=True,
                          fix="give each profile the role label of its own pool")
    for field in ("machineConfigPoolSelector", "machineConfigLabel"):
        value = spec.get(field)
        if isinstance(value, dict) and len(value) > 1:
            yield hit(f"spec.{field} has several labels; the webhook accepts one", field, key=True,
                      fix="keep one label")
    cpu = spec.get("cpu")
    if not isinstance(cpu, dict):
        yield hit('spec.cpu is required ("cpu section required"): reserved and isolated CPUs must be given',
                  "cpu", key=True, fix='add spec.cpu.reserved and spec.cpu.isolated (e.g. "0-1" and "2-31")',
                  absent="spec.cpu.reserved,spec.cpu.isolated")
    else:
        for field in ("reserved", "isolated"):
            value = cpu.get(field)
            if field not in cpu or value is None:
                yield hit(f'spec.cpu.{field} is required ("{field} CPUs required")', "cpu", key=True,
                          fix=f"add spec.cpu.{field}", absent=f"spec.cpu.{field}")
            elif isinstance(value, str) and not value.strip():
                yield hit(f'spec.cpu.{field} is empty ("{field} CPUs can not be empty")', "cpu", field,
                          fix=f"list the {field} CPUs")
    hints = spec.get("workloadHints")
    if isinstance(hints, dict):
        shared = cpu.get("shared") if isinstance(cpu, dict) else None
        if hints.get("mixedCpus") is True and not shared:
            yield hit("workloadHints.mixedCpus without spec.cpu.shared: the webhook rejects it (\"MixedCpus enabled "
                      'but no shared CPUs were specified")', "workloadHints", "mixedCpus", fix="set spec.cpu.shared")
        if hints.get("highPowerConsumption") is True and hints.get("perPodPowerManagement") is True:
            yield hit("workloadHints.highPowerConsumption and perPodPowerManagement can not be both enabled",
                      "workloadHints", "perPodPowerManagement", fix="drop one of them")
        if get(spec, ("realTimeKernel", "enabled")) is True and hints.get("realTime") is False:
            yield hit("realtime kernel is enabled, but realtime workload hint is explicitly disabled",
                      "workloadHints", "realTime", fix="remove workloadHints.realTime: false")
    yield from _hugepage_sizes(spec, hit)


def _hugepage_sizes(spec: dict[str, Any], hit: Callable[..., Hit]) -> Iterator[Hit]:
    hugepages = spec.get("hugepages")
    if not isinstance(hugepages, dict):
        return
    valid = HUGEPAGE_SIZES
    where = "(2M or 1G on x86; 2M, 32M, 512M and others on aarch64)"

    def bad(size: Any) -> str | None:
        if not isinstance(size, str) or size in valid:
            return None
        near = {"2Mi": "2M", "1Gi": "1G", "2048k": "2M", "2048kB": "2M", "1g": "1G", "2m": "2M"}.get(size)
        return f'hugepage size "{size}" is not one the Node Tuning Operator accepts {where}' + (
            f'; write "{near}"' if near else "")

    default = hugepages.get("defaultHugepagesSize")
    if (message := bad(default)) is not None:
        yield hit(message, "hugepages", "defaultHugepagesSize", fix=f"use one of {', '.join(valid)}")
    pages = hugepages.get("pages")
    seen: set[tuple[str, Any]] = set()
    for index, page in enumerate(pages if isinstance(pages, list) else []):
        if not isinstance(page, dict):
            continue
        if (message := bad(page.get("size"))) is not None:
            yield hit(message, "hugepages", "pages", index, "size", fix="use 2M or 1G (x86)")
        node = page.get("node")
        if node is not None and not isinstance(node, int):
            continue  # the schema rule reports it
        key = (str(page.get("size")), node)
        if key in seen:
            where_node = f"NUMA node {key[1]}" if key[1] is not None else "no NUMA node"
            yield hit(f'hugepages.pages repeats size "{key[0]}" for {where_node}: the webhook rejects the duplication',
                      "hugepages", "pages", index, fix="merge the counts into one entry")
        seen.add(key)


def _ref(doc: Document) -> ObjectRef:
    name = get(doc.root, ("metadata", "name"))
    return ObjectRef(doc.api_version, doc.kind, str(name) if name is not None else "<unnamed>")
