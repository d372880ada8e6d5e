"""Pools: which nodes (topology) run which kubelet configuration, and which workloads land there.

* One topology and one kubelet configuration in a run form the pool every workload is checked against.
* With several, a NodeTopology names its node labels and its kubelet configuration (by name), and a
  workload goes to the pools its nodeSelector / required node affinity matches.
* With kubelet configurations but no topology, each kubelet configuration forms a pool of its own;
  OpenShift KubeletConfigs reach node labels through machineConfigPoolSelector -> MachineConfigPool.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from numalint.k8s.kinds import KUBELET_CONFIG
from numalint.reading.locate import as_list, as_map, get

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numalint.model.run import Run
    from numalint.views.kubelet import KubeletProfile
    from numalint.views.topology import TopologyView
    from numalint.views.workloads import PodView


@dataclass
class Pool:
    name: str
    profile: KubeletProfile | None
    topology: TopologyView | None
    node_labels: dict[str, str] = field(default_factory=dict)
    nodes: int = 1
    why: str = ""
    assumed: bool = False  # the default node: the only kubelet configuration, and nothing declares pools

    def matches(self, pod: PodView, only: bool) -> bool:
        """Would the scheduler put ``pod`` on this pool's nodes? The only pool takes everything."""
        if only:
            return True
        asks = bool(pod.node_selector or pod.required_terms)
        if not self.node_labels:
            return not asks
        # a workload that selects no nodes could land anywhere: it is not pinned to a labelled pool
        return asks and selects(pod.node_selector, pod.required_terms, self.node_labels)


def selects(selector: dict[str, str], terms: list[list[dict[str, Any]]], labels: dict[str, str]) -> bool:
    """nodeSelector AND (any required node affinity term) against node labels."""
    for key, value in selector.items():
        if labels.get(key) != value:
            return False
    if not terms:
        return True
    return any(all(_expression(e, labels) for e in term) for term in terms)


def _expression(expr: dict[str, Any], labels: dict[str, str]) -> bool:
    key, op = str(expr.get("key", "")), expr.get("operator")
    values = [str(v) for v in as_list(expr.get("values"))]
    if op == "In":
        return key in labels and labels[key] in values
    if op == "NotIn":
        return key not in labels or labels[key] not in values
    if op == "Exists":
        return key in labels
    if op == "DoesNotExist":
        return key not in labels
    return False


def label_selector_matches(selector: Any, labels: dict[str, str]) -> bool:
    """A metav1.LabelSelector; an empty or missing selector matches nothing (MCO semantics)."""
    if not isinstance(selector, dict) or not selector:
        return False
    match_labels = as_map(selector.get("matchLabels"))
    exprs = as_list(selector.get("matchExpressions"))
    if not match_labels and not exprs:
        return False
    if isinstance(match_labels, dict):
        for key, value in match_labels.items():
            if labels.get(str(key)) != ("" if value is None else str(value)):
                return False
    return all(_expression(e, labels) for e in exprs if isinstance(e, dict))


def profile_node_labels(run: Run, profile: KubeletProfile) -> dict[str, str] | None:
    """Node labels of an OpenShift KubeletConfig, through its MachineConfigPool."""
    if profile.doc.kind != KUBELET_CONFIG:
        return None
    selector = get(profile.doc.root, ("spec", "machineConfigPoolSelector"))
    for mcp in run.of_kind("MachineConfigPool"):
        labels = get(mcp.root, ("metadata", "labels")) or {}
        labels = {str(k): "" if v is None else str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}
        if label_selector_matches(selector, labels):
            node_selector = as_map(get(mcp.root, ("spec", "nodeSelector", "matchLabels")))
            return {str(k): "" if v is None else str(v) for k, v in node_selector.items()}
    return None


def _profile_for_labels(run: Run, labels: dict[str, str]) -> KubeletProfile | None:
    """The OpenShift configuration whose nodes carry ``labels``: a PerformanceProfile's nodeSelector,
    or a KubeletConfig's MachineConfigPool nodeSelector. With several, the last one in input order
    (the MCO applies only the newest KubeletConfig; kubeletconfig-pool reports the competition)."""
    found = None
    for profile in run.profiles:
        selector = profile.node_selector if profile.node_selector is not None else profile_node_labels(run, profile)
        if selector and all(labels.get(k) == v for k, v in selector.items()):
            found = profile
    return found


def _profile_named(run: Run, name: str) -> KubeletProfile | None:
    for profile in run.profiles:
        if profile.name == name or os.path.splitext(os.path.basename(profile.file))[0] == name:
            return profile
    return None


def build_pools(run: Run) -> list[Pool]:
    pools: list[Pool] = []
    if len(run.topologies) == 1 and len(run.profiles) <= 1:
        topo = run.topologies[0]
        profile = run.profiles[0] if run.profiles else None
        return [Pool(topo.name, profile, topo, topo.node_labels, topo.nodes,
                     "the only topology and kubelet configuration of the run")]
    used: set[int] = set()
    for topo in run.topologies:
        profile = _profile_named(run, topo.kubelet_config) if topo.kubelet_config else None
        if profile is None and topo.node_labels:
            profile = _profile_for_labels(run, topo.node_labels)
        if profile is None and len(run.profiles) == 1:
            profile = run.profiles[0]
        if profile is not None:
            used.add(id(profile))
        pools.append(Pool(topo.name, profile, topo, topo.node_labels, topo.nodes,
                          f'NodeTopology "{topo.name}"' + (f' runs kubelet configuration "{profile.name}"'
                                                            if profile else "")))
    for profile in run.profiles:
        if id(profile) in used:
            continue
        labels = profile.node_selector or profile_node_labels(run, profile) or {}
        pools.append(Pool(profile.name, profile, None, labels, 1, f'kubelet configuration "{profile.name}"'))
    if _default_node(run, pools):
        pools[0].assumed = True
        pools[0].why = (f'the only kubelet configuration "{pools[0].name}" of the run: numalint assumes every '
                        "workload runs on it (declare pools with a NodeTopology or MachineConfigPool to say otherwise)")
    return pools


def _default_node(run: Run, pools: list[Pool]) -> bool:
    """One kubelet configuration and nothing that declares pools (NodeTopology, MachineConfigPool,
    PerformanceProfile): every workload is taken to run on it."""
    return (len(pools) == 1 and not run.topologies and pools[0].profile is not None
            and pools[0].profile.rendered_from is None and not pools[0].node_labels
            and not run.of_kind("MachineConfigPool"))


def pools_for(pools: Sequence[Pool], pod: PodView) -> list[Pool]:
    only = len(pools) == 1
    return [p for p in pools if p.matches(pod, only)]


def topologies_for_profile(pools: Sequence[Pool], profile: KubeletProfile) -> list[TopologyView]:
    return [p.topology for p in pools if p.profile is profile and p.topology is not None]
