"""OpenShift checks: KubeletConfigs competing for one MachineConfigPool, PerformanceProfile CPU sets."""

from __future__ import annotations

from collections.abc import Iterator

from numalint.analysis import Analysis
from numalint.checks.registry import check
from numalint.findings import Fix, Hit
from numalint.k8s.cpuset import CPUSetError, format_cpuset, parse_cpuset
from numalint.k8s.quantity import format_bytes, try_quantity
from numalint.model.pools import label_selector_matches
from numalint.reading.locate import get, locate
from numalint.reading.sources import Document
from numalint.views.kubelet import KubeletProfile
from numalint.views.topology import TopologyView


def _labels(value: object) -> dict[str, str]:
    return {str(k): "" if v is None else str(v) for k, v in value.items()} if isinstance(value, dict) else {}


@check("kubeletconfig-pool")
def kubeletconfig_pool(analysis: Analysis) -> Iterator[Hit]:
    pools = analysis.of_kind("MachineConfigPool")
    if not pools:
        return
    selecting: dict[str, list[KubeletProfile]] = {}
    for profile in analysis.profiles:
        if not profile.openshift:
            continue
        selector = get(profile.doc.root, ("spec", "machineConfigPoolSelector"))
        matched = [p for p in pools if label_selector_matches(selector, _labels(get(p.root, ("metadata", "labels"))))]
        if not matched:
            yield Hit(f"{profile.ref.label()} selects no MachineConfigPool of the run (machineConfigPoolSelector "
                          "matches none of their labels): its settings reach no node", profile.file,
                          profile.anchor(), profile.ref,
                          Fix("match the labels of the intended MachineConfigPool (e.g. "
                              "pools.operator.machineconfiguration.openshift.io/<pool>: \"\")"))
        for mcp in matched:
            selecting.setdefault(str(get(mcp.root, ("metadata", "name"))), []).append(profile)
    for pool, profiles in selecting.items():
        if len(profiles) < 2:
            continue
        names = [p.ref.label() for p in profiles]
        for profile in profiles:
            others = [n for n in names if n != profile.ref.label()]
            yield Hit(f'MachineConfigPool "{pool}" is selected by {profile.ref.label()} and '
                          f"{', '.join(others)}: KubeletConfigs do not merge, only the newest applies and the others "
                          "are dead code", profile.file, profile.anchor(), profile.ref,
                          Fix("merge the settings into one KubeletConfig per pool (a PerformanceProfile renders its "
                              "own performance-<name> KubeletConfig)"))


@check("performance-profile-cpus")
def performance_profile_cpus(analysis: Analysis) -> Iterator[Hit]:
    for profile in analysis.profiles:
        doc = profile.rendered_from
        if doc is None:
            continue
        spec = get(doc.root, ("spec",)) or {}
        sets: dict[str, frozenset[int]] = {}
        for field in ("reserved", "isolated", "shared", "offlined", "ovsDpdk"):
            text = get(spec, ("cpu", field))
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
        pools = [p for p in analysis.pools if p.profile is profile and p.topology is not None]
        for pool in pools:
            topo = pool.topology
            assert topo is not None
            online = frozenset(topo.machine.cpus)
            named = frozenset().union(*sets.values()) if sets else frozenset()
            unknown = named - online
            if unknown:
                yield Hit(f'spec.cpu names CPUs {format_cpuset(unknown)} that topology "{topo.name}" lacks '
                              f"(online: {format_cpuset(online)})", doc.file, locate(doc.root, ("spec", "cpu")),
                              profile.ref, Fix(f"use only CPUs in {format_cpuset(online)}"))
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
