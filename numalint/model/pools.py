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
from itertools import islice
from typing import TYPE_CHECKING, Any

from numalint.k8s.kinds import KUBELET_CONFIG
from numalint.model.run import NearFiles
from numalint.reading.locate import as_list, as_map, get

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from numalint.model.run import Run
    from numalint.reading.sources import Document
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
    # nodes of an OpenShift cluster (the run declares MachineConfigPools): without a KubeletConfig of their own
    # they run the machine-config operator's kubelet template, not the kubelet's defaults
    openshift: bool = False

    def matches(self, pod: PodView, only: bool) -> bool:
        """Would the scheduler put ``pod`` on this pool's nodes? The pool declares only some of its nodes' labels
        (those that pick the pool: a role), so a workload's nodeSelector or required node affinity is judged on
        those: it goes to the pool when it asks for one of them and contradicts none (other labels it asks for,
        such as a feature label, may well be on the pool's nodes). One that asks only for labels the pool does
        not declare (a hostname) is on no pool: no guess. A workload that selects no nodes could land anywhere:
        on the only pool, but on no particular one of several labelled pools. The only pool of undeclared labels
        takes everything."""
        asks = bool(pod.node_selector or pod.required_terms)
        if not self.node_labels:
            return only or not asks
        if asks:
            return affirms(pod.node_selector, pod.required_terms, self.node_labels)
        return only


def affirms(selector: dict[str, str], terms: list[list[dict[str, Any]]], labels: dict[str, str]) -> bool:
    """Does a nodeSelector AND (any required node affinity term) ask for nodes with ``labels`` (the labels a pool
    declares: its nodes may carry more)? Yes when nothing contradicts a declared label and something asks for
    one; a key the pool does not declare tells nothing either way."""
    asked = False
    for key, value in selector.items():
        if key in labels:
            if labels[key] != value:
                return False
            asked = True
    if not terms:
        return asked
    verdicts = [[_expression(e, labels) for e in term] for term in terms]
    possible = [v for v in verdicts if False not in v]
    if not possible:
        return False
    return asked or any(True in v for v in possible)


def _expression(expr: dict[str, Any], labels: dict[str, str]) -> bool | None:
    """True: the expression asks for a declared label; False: it rules the pool's nodes out; None: it tells
    nothing about them (a key the pool does not declare, NotIn of another value, an operator like Gt)."""
    key, op = str(expr.get("key", "")), expr.get("operator")
    if key not in labels:
        return None
    written = expr.get("values")  # a workload's are a set already (views.workloads.required_terms)
    values = written if isinstance(written, frozenset) else frozenset(str(v) for v in as_list(written))
    if op == "In":
        return labels[key] in values
    if op == "NotIn":
        return False if labels[key] in values else None
    if op == "Exists":
        return True
    if op == "DoesNotExist":
        return False
    return None


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


ROLE_LABEL = "machineconfiguration.openshift.io/role"
POOL_LABEL = "pools.operator.machineconfiguration.openshift.io/{}"
NEAR_KEYS = 256  # distinct label keys of the pools a selector's key may misspell, at most (else none is told)
NEAR_LENGTH = 5  # a key shorter than this misspells only by case
MAX_LABEL_KEY = 317  # a label key's longest: a 253-character prefix, "/" and a 63-character name (longer: none)


def _less_one(word: str) -> set[str]:
    """``word`` less one of its letters, each way."""
    return {word[:i] + word[i + 1:] for i in range(len(word))}


@dataclass(frozen=True)
class MachineConfigPoolView:
    """A MachineConfigPool: its labels (what KubeletConfigs select), its nodeSelector (its nodes) and the
    roles of the MachineConfigs its machineConfigSelector takes (what it inherits)."""

    name: str
    labels: dict[str, str]
    node_selector: Any  # a metav1.LabelSelector
    config_roles: frozenset[str]
    doc: Document | None = None  # None: the built-in pool every OpenShift cluster has

    @property
    def node_labels(self) -> dict[str, str]:
        return _labels(as_map(get(self.node_selector, ("matchLabels",))))

    def selected_by(self, selector: Any) -> bool:
        """machineConfigPoolSelector against the pool's labels; a built-in pool also answers to its role
        label (``machineconfiguration.openshift.io/role: worker``), which many configurations use for it."""
        if label_selector_matches(selector, self.labels):
            return True
        return self.doc is None and label_selector_matches(selector, {**self.labels, ROLE_LABEL: self.name})


def _labels(value: Any) -> dict[str, str]:
    return {str(k): "" if v is None else str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _built_in(name: str) -> MachineConfigPoolView:
    """The master and worker pools the machine-config operator installs
    (machine-config-operator manifests/master.machineconfigpool.yaml, worker.machineconfigpool.yaml)."""
    labels = {"machineconfiguration.openshift.io/mco-built-in": "", POOL_LABEL.format(name): ""}
    if name == "master":
        labels["operator.machineconfiguration.openshift.io/required-for-upgrade"] = ""
    return MachineConfigPoolView(name, labels, {"matchLabels": {f"node-role.kubernetes.io/{name}": ""}},
                                 frozenset({name}))


def _config_roles(selector: Any) -> frozenset[str]:
    """The MachineConfig roles a machineConfigSelector takes (matchLabels or an ``In`` expression)."""
    roles: set[str] = set()
    value = as_map(get(selector, ("matchLabels",))).get(ROLE_LABEL)
    if value is not None:
        roles.add(str(value))
    for expr in as_list(get(selector, ("matchExpressions",))):
        if isinstance(expr, dict) and expr.get("key") == ROLE_LABEL and expr.get("operator") == "In":
            roles.update(str(v) for v in as_list(expr.get("values")))
    return frozenset(roles)


def machine_config_pools(run: Run) -> MachineConfigPools:
    """The run's MachineConfigPools, plus the built-in master and worker unless the run redefines them (made once
    per run)."""
    return run.derived("machine_config_pools", MachineConfigPools)


class MachineConfigPools:
    """The run's MachineConfigPools (in input order), indexed by label: which pools a selector of ``matchLabels``
    picks, and which are near a file, without trying every pool (thousands of KubeletConfigs beside thousands of
    pools were quadratic)."""

    def __init__(self, run: Run) -> None:
        pools = []
        for doc in run.of_kind("MachineConfigPool"):
            name = str(get(doc.root, ("metadata", "name")) or "<unnamed>")
            pools.append(MachineConfigPoolView(name, _labels(get(doc.root, ("metadata", "labels"))),
                                               get(doc.root, ("spec", "nodeSelector")),
                                               _config_roles(get(doc.root, ("spec", "machineConfigSelector"))), doc))
        names = {p.name for p in pools}
        self.all: list[MachineConfigPoolView] = pools + [_built_in(n) for n in ("master", "worker") if n not in names]
        self._declared = run.declared  # not the run: it keeps this, and workers collect no cycles
        self._carrying: dict[tuple[str, str], list[int]] = {}  # a label: the pools carrying it (or answering to it)
        self._selecting: dict[tuple[str, str], list[int]] = {}  # a node label: the pools whose nodeSelector asks it
        self._selecting_any: list[int] = []  # pools whose nodeSelector has expressions only: tried for any labels
        for index, pool in enumerate(self.all):
            carried = pool.labels if pool.doc is not None else {**pool.labels, ROLE_LABEL: pool.name}
            for pair in carried.items():
                self._carrying.setdefault(pair, []).append(index)
            asked = _first_label(pool.node_selector)
            if asked is not None:
                self._selecting.setdefault(asked, []).append(index)
            elif isinstance(pool.node_selector, dict) and pool.node_selector:
                self._selecting_any.append(index)
        self._by_directory: set[str] = {os.path.dirname(os.path.abspath(pool.doc.file)) for pool in self.all
                                         if pool.doc is not None}
        # the declared pools (of a document) having labels ("labels"), a nodeSelector ("node_labels") or either (""),
        # in input order, with an index of their files: which are near a file, and how many, are found without
        # comparing it with every pool (one directory per pool puts every pool near every other)
        self._near: dict[str, tuple[list[MachineConfigPoolView], NearFiles]] = {}
        self._keys: set[str] | None = None  # the label keys the pools carry, once asked
        self._spellings: tuple[set[str], set[str]] | None = None  # those keys folded, and folded less one letter

    def __iter__(self) -> Iterator[MachineConfigPoolView]:
        return iter(self.all)

    def selected_by(self, selector: Any) -> list[MachineConfigPoolView]:
        """The pools a machineConfigPoolSelector picks (``MachineConfigPoolView.selected_by``): of matchLabels,
        only pools carrying its first label can match."""
        first = _first_label(selector)
        candidates = range(len(self.all)) if first is None else self._carrying.get(first, ())
        return [self.all[i] for i in candidates if self.all[i].selected_by(selector)]

    def selecting(self, labels: dict[str, str]) -> list[MachineConfigPoolView]:
        """The pools whose spec.nodeSelector matches ``labels``: only pools asking one of them, or asking by
        expressions alone, can."""
        asking = (i for pair in labels.items() for i in self._selecting.get(pair, ()))
        candidates = sorted({*self._selecting_any, *asking})
        return [self.all[i] for i in candidates if label_selector_matches(self.all[i].node_selector, labels)]

    def beside(self, file: str) -> bool:
        """Whether a pool of the run is declared in ``file``'s directory."""
        return os.path.dirname(os.path.abspath(file)) in self._by_directory

    def _declared_near(self, having: str) -> tuple[list[MachineConfigPoolView], NearFiles]:
        if having not in self._near:
            pools = [p for p in self.all if p.doc is not None and (not having or getattr(p, having))]
            self._near[having] = (pools, NearFiles(p.doc.file for p in pools if p.doc is not None))
        return self._near[having]

    def asks_a_pools_label(self, selector: Any) -> bool:
        """Whether a machineConfigPoolSelector asks for a label key a pool of the run (or a built-in pool) carries,
        or a key that names a pool (its role, ``pools.operator.machineconfiguration.openshift.io/<pool>``). One
        asking only for keys no pool uses may select a pool labelled by hand, which no file shows: OpenShift's
        documentation labels the built-in worker pool so (``oc label mcp worker custom-kubelet=enabled``). A selector
        asking for nothing (none written, or empty) selects no pool at all (machine-config-operator: an empty
        selector matches nothing)."""
        labels = as_map(get(selector, ("matchLabels",)))
        expressions = [e for e in as_list(get(selector, ("matchExpressions",))) if isinstance(e, dict)]
        if not labels and not expressions:
            return True
        # the keys it needs a pool to carry (NotIn and DoesNotExist are met by a pool without the label)
        keys = [str(key) for key in labels]
        keys += [str(e.get("key")) for e in expressions if e.get("operator") in ("In", "Exists")]
        if self._keys is None:
            self._keys = {key for key, _value in self._carrying}
        return any(key in self._keys or key == ROLE_LABEL or key.startswith(POOL_LABEL.format(""))
                   or self._misspells(key) for key in keys)

    def _misspells(self, key: str) -> bool:
        """Whether ``key`` misspells a label key a pool carries: another case, or, for keys of NEAR_LENGTH characters
        or more, a letter left out, added or changed (``custom-kublet`` for ``custom-kubelet``). Found through the
        keys less one letter each, not by comparing ``key`` with every key; among more than NEAR_KEYS distinct keys
        none is sure enough to tell."""
        assert self._keys is not None
        if len(self._keys) > NEAR_KEYS or len(key) > MAX_LABEL_KEY:
            return False
        if self._spellings is None:
            folded = {known.lower() for known in self._keys}
            self._spellings = (folded, {less for known in folded if NEAR_LENGTH <= len(known) <= MAX_LABEL_KEY
                                        for less in _less_one(known)})
        folded, shortened = self._spellings
        word = key.lower()
        return word in folded or len(word) >= NEAR_LENGTH and (
            word in shortened or any(less in folded or less in shortened for less in _less_one(word)))

    def near_any(self, file: str) -> bool:
        """Whether a pool of the run is declared near ``file`` (``Run.together``: always in a declared cluster,
        else ``near``)."""
        pools, index = self._declared_near("")
        return bool(pools) and (self._declared or index.near_any(file))

    def near(self, file: str, having: str, most: int) -> tuple[list[MachineConfigPoolView], int]:
        """The first ``most`` pools declared near ``file`` (as ``near_any``) whose ``having`` ("labels",
        "node_labels") is not empty, in input order, and how many there are."""
        pools, index = self._declared_near(having)
        if self._declared:
            return pools[:most], len(pools)
        return [pools[number] for number in islice(index.near(file), most)], index.count(file)


def _first_label(selector: Any) -> tuple[str, str] | None:
    """The first of a label selector's matchLabels, as a label it asks for; None where it has none."""
    match_labels = as_map(get(selector, ("matchLabels",)))
    for key, value in match_labels.items():
        return str(key), "" if value is None else str(value)
    return None


def explicit_pool_selector(profile: KubeletProfile) -> bool:
    """Does the configuration name its pool by labels? (A PerformanceProfile without
    machineConfigPoolSelector finds its pool by nodeSelector instead.)"""
    if profile.rendered_from is None:
        return True
    given = get(profile.rendered_from.root, ("spec", "machineConfigPoolSelector"))
    return isinstance(given, dict) and bool(given)


def targeted_pools(pools: MachineConfigPools, profile: KubeletProfile) -> list[MachineConfigPoolView]:
    """The pools a KubeletConfig or PerformanceProfile targets directly.

    A KubeletConfig: the pools whose labels its machineConfigPoolSelector matches (machine-config-operator
    pkg/controller/kubelet-config). A PerformanceProfile without machineConfigPoolSelector: the pool whose
    spec.nodeSelector matches the profile's nodeSelector, as the Node Tuning Operator finds it
    (pkg/performanceprofile/controller/performanceprofile/resources/resources.go,
    GetMachineConfigPoolByProfile; its labels then become the rendered KubeletConfig's selector)."""
    if not explicit_pool_selector(profile):
        if not profile.node_selector:
            return []
        return pools.selecting(profile.node_selector)
    return pools.selected_by(get(profile.doc.root, ("spec", "machineConfigPoolSelector")))


def pool_configurations(run: Run, pool: MachineConfigPoolView) -> list[KubeletProfile]:
    """The OpenShift configurations that reach ``pool``'s nodes: those targeting it, else those targeting a
    pool whose MachineConfigs it takes (a custom pool selecting role ``worker`` renders the worker
    pool's generated kubelet MachineConfig too, and its own, later in name order, wins)."""
    targeting = run.derived("pool_configurations", _Targeting)
    direct = targeting.of(pool.name)
    if direct:
        return direct
    inherited = {id(p): p for name in sorted(pool.config_roles - {pool.name}) for p in targeting.of(name)}
    return sorted(inherited.values(), key=lambda p: targeting.position[id(p)])


class _Targeting:
    """The run's OpenShift configurations by the name of each pool they target, in input order, worked out once:
    thousands of topologies each asked every configuration which pools it targets."""

    def __init__(self, run: Run) -> None:
        pools = machine_config_pools(run)
        self.by_pool: dict[str, list[KubeletProfile]] = {}
        self.position: dict[int, int] = {}
        for profile in run.profiles:
            if not profile.openshift:
                continue
            self.position[id(profile)] = len(self.position)
            for name in dict.fromkeys(t.name for t in targeted_pools(pools, profile)):
                self.by_pool.setdefault(name, []).append(profile)

    def of(self, pool: str) -> list[KubeletProfile]:
        return list(self.by_pool.get(pool, ()))


def profile_node_labels(run: Run, profile: KubeletProfile) -> dict[str, str] | None:
    """Node labels of an OpenShift KubeletConfig, through a MachineConfigPool of the run."""
    if profile.doc.kind != KUBELET_CONFIG:
        return None
    for mcp in targeted_pools(machine_config_pools(run), profile):
        if mcp.doc is not None:
            return mcp.node_labels
    return None


def _profile_for_labels(run: Run, labels: dict[str, str]) -> KubeletProfile | None:
    """The OpenShift configuration whose nodes carry ``labels``: a PerformanceProfile's nodeSelector,
    or a KubeletConfig's MachineConfigPool nodeSelector (or, failing both, what the pool of those nodes
    inherits). With several, the last one in input order (the MCO applies only the newest KubeletConfig;
    kubeletconfig-pool reports the competition)."""
    found = run.derived("profiles_by_label", _ProfilesByLabel).last_for(labels)
    if found is None:
        for mcp in machine_config_pools(run).selecting(labels):
            if mcp.doc is not None:
                configurations = pool_configurations(run, mcp)
                if configurations:
                    return configurations[-1]
    return found


class _ProfilesByLabel:
    """The run's kubelet configurations by the first label of the nodes they select (their nodeSelector, or their
    MachineConfigPool's), worked out once: thousands of topologies each looked through every configuration."""

    def __init__(self, run: Run) -> None:
        self.selectors: list[tuple[KubeletProfile, dict[str, str]]] = []
        self.by_label: dict[tuple[str, str], list[int]] = {}
        for profile in run.profiles:
            selector = profile.node_selector if profile.node_selector is not None else profile_node_labels(run, profile)
            if selector:
                self.by_label.setdefault(next(iter(selector.items())), []).append(len(self.selectors))
                self.selectors.append((profile, selector))

    def last_for(self, labels: dict[str, str]) -> KubeletProfile | None:
        """The last configuration in input order whose node labels ``labels`` all carry."""
        candidates = sorted({i for pair in labels.items() for i in self.by_label.get(pair, ())}, reverse=True)
        for i in candidates:
            profile, selector = self.selectors[i]
            if all(labels.get(k) == v for k, v in selector.items()):
                return profile
        return None


def _profile_named(run: Run, name: str) -> KubeletProfile | None:
    """The kubelet configuration a NodeTopology's ``pool.kubeletConfig`` names: by metadata.name, or by its file's
    name, with or without the extension (``static`` or ``static.yaml``)."""
    return run.derived("profiles_by_name", _profiles_by_name).get(name)


def _profiles_by_name(run: Run) -> dict[str, KubeletProfile]:
    """Each name a NodeTopology may give a kubelet configuration by (its metadata.name, its file's name with and
    without the extension): the first configuration answering to it, worked out once per run."""
    named: dict[str, KubeletProfile] = {}
    for profile in run.profiles:
        base = os.path.basename(profile.file)
        for name in (profile.name, base, os.path.splitext(base)[0]):
            named.setdefault(name, profile)
    return named


def reaches_no_pool(run: Run, profile: KubeletProfile, pools: MachineConfigPools | None = None) -> bool:
    """An OpenShift KubeletConfig or PerformanceProfile that selects none of the MachineConfigPools the run
    declares near it (``Run.together``), nor the built-in master and worker: its settings reach no node
    (``kubeletconfig-pool``). A pool declared only for another directory's cluster says nothing of it, nor does a
    selector asking only for labels no pool of the run uses (``asks_a_pools_label``: set on a pool by hand).
    ``pools``: ``machine_config_pools(run)``, when the caller has them."""
    if not profile.openshift or profile.rendered_from is not None and not profile.node_selector:
        return False
    pools = machine_config_pools(run) if pools is None else pools
    if not pools.near_any(profile.file) or targeted_pools(pools, profile):
        return False
    return not explicit_pool_selector(profile) or pools.asks_a_pools_label(
        get(profile.doc.root, ("spec", "machineConfigPoolSelector")))


def build_pools(run: Run) -> list[Pool]:
    pools: list[Pool] = []
    # the only configuration goes with the only topology, unless it reaches no node: the topology's nodes then
    # run the kubelet's defaults
    only = run.profiles[0] if len(run.profiles) == 1 and not reaches_no_pool(run, run.profiles[0]) else None
    if len(run.topologies) == 1 and (only is not None or not run.profiles):
        topo = run.topologies[0]
        why = ("the only topology and kubelet configuration of the run" if only is not None else
               "the only topology of the run")
        if topo.kubelet_config and _profile_named(run, topo.kubelet_config) is None:
            why += _names_nothing(topo, f'numalint pairs it with the only one, "{only.name}"' if only else "")
        return [Pool(topo.name, only, topo, topo.node_labels, topo.nodes, why, openshift=_openshift_nodes(run, topo))]
    used: set[int] = set()
    for topo in run.topologies:
        profile = named = _profile_named(run, topo.kubelet_config) if topo.kubelet_config else None
        if profile is None and topo.node_labels:
            profile = _profile_for_labels(run, topo.node_labels)
        if profile is None:
            profile = only
        if profile is not None:
            used.add(id(profile))
        why = f'NodeTopology "{topo.name}"' + (f' runs kubelet configuration "{profile.name}"' if profile else "")
        if topo.kubelet_config and named is None:
            why += _names_nothing(topo, "" if profile else "the kubelet's defaults")
        pools.append(Pool(topo.name, profile, topo, topo.node_labels, topo.nodes, why,
                          openshift=_openshift_nodes(run, topo)))
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


def _names_nothing(topology: TopologyView, instead: str) -> str:
    """What a pool's description adds when its NodeTopology's pool.kubeletConfig names no configuration."""
    return (f'; its pool.kubeletConfig "{topology.kubelet_config}" names no kubelet configuration of the run'
            + (f": {instead}" if instead else ""))


def _openshift_nodes(run: Run, topology: TopologyView) -> bool:
    """Whether a topology's nodes are an OpenShift cluster's: a MachineConfigPool of its cluster (``Run.together``),
    found among the pools' files at once (thousands of topologies each tried every pool)."""
    return machine_config_pools(run).near_any(topology.doc.file)


def _default_node(run: Run, pools: list[Pool]) -> bool:
    """One kubelet configuration and nothing that declares pools (NodeTopology, MachineConfigPool,
    PerformanceProfile): every workload is taken to run on it."""
    return (len(pools) == 1 and not run.topologies and pools[0].profile is not None
            and pools[0].profile.rendered_from is None and not pools[0].node_labels
            and not run.of_kind("MachineConfigPool"))


# the node label virt-handler sets from the kubelet's CPU manager ("true" under the static policy, else "false"),
# and which virt-controller adds to the nodeSelector of a dedicatedCpuPlacement VM's pod (PodView.needs_cpu_manager)
CPU_MANAGER_LABEL = "cpumanager"


def pools_for(pools: Sequence[Pool], pod: PodView, index: _LabelIndex | None = None) -> list[Pool]:
    """The pools ``pod`` may run on (``Pool.matches``); ``index``: the pools by the labels they declare, to try
    only those a workload's node selection can pick."""
    only = len(pools) == 1
    tried = pools if index is None or only else index.candidates(pools, pod)
    matched = [p for p in tried if p.matches(pod, only)]
    if not pod.needs_cpu_manager:
        return matched
    # KubeVirt's cpumanager=true: among the pools the VM's own labels choose (every pool when it chooses none, as
    # the label alone then picks the nodes), the static ones and those whose kubelet is not known; when there is
    # none, where it would go otherwise (it then stays Pending there, which is reported)
    kept = {id(p) for p in matched}
    chooses = bool(pod.node_selector or pod.required_terms)
    steered = [p for p in pools if (p.profile is None and id(p) in kept) or (
        p.profile is not None and p.profile.cpu_manager_policy == "static" and (id(p) in kept or not chooses))]
    return steered or matched


class PoolMatcher:
    """``pools_for`` worked out once per node selection, not once per workload and pool: a workload's pools depend
    only on its nodeSelector and required node affinity, which most workloads of a repository share (7,600
    workloads on 28 pools made 1.2 million pool matches per run, most of them in proofs)."""

    __slots__ = ("pools", "known", "index")

    def __init__(self, pools: Sequence[Pool]) -> None:
        self.pools = pools
        self.known: dict[tuple[tuple[tuple[str, str], ...], str, bool], list[Pool]] = {}
        self.index = _LabelIndex(pools) if len(pools) > 16 else None  # a few pools are simply tried

    def __call__(self, pod: PodView) -> list[Pool]:
        """The pools of ``pod`` (shared: do not change the list)."""
        # equal text means equal terms for ``matches``, which reads them only through str() and == "In" & co.
        key = (tuple(pod.node_selector.items()), repr(pod.required_terms) if pod.required_terms else "",
               pod.needs_cpu_manager)
        found = self.known.get(key)
        if found is None:
            found = self.known[key] = pools_for(self.pools, pod, self.index)
        return found


class _LabelIndex:
    """Pools by the labels they declare. A workload that selects nodes goes only to a pool declaring a label it asks
    for (``affirms``): one of its nodeSelector's labels, or a key of its required node affinity; a workload that
    selects none, to pools declaring no labels (or to the only pool). So only those are tried: thousands of
    workloads, each selecting its own PerformanceProfile's nodes, were each matched with every pool."""

    def __init__(self, pools: Sequence[Pool]) -> None:
        self.by_label: dict[tuple[str, str], list[int]] = {}
        self.by_key: dict[str, list[int]] = {}
        self.unlabelled: list[int] = []
        for number, pool in enumerate(pools):
            if not pool.node_labels:
                self.unlabelled.append(number)
            for key, value in pool.node_labels.items():
                self.by_label.setdefault((key, value), []).append(number)
                self.by_key.setdefault(key, []).append(number)

    def candidates(self, pools: Sequence[Pool], pod: PodView) -> list[Pool]:
        if not (pod.node_selector or pod.required_terms):
            return [pools[i] for i in self.unlabelled]
        found = {i for pair in pod.node_selector.items() for i in self.by_label.get(pair, ())}
        for term in pod.required_terms:
            for expression in term:
                if not isinstance(expression, dict):
                    continue
                # only In of a declared value and Exists ask for a pool's label (``_expression``): pools of one
                # key, each chosen by its value, were all tried for every workload
                key, operator = str(expression.get("key", "")), expression.get("operator")
                if operator == "Exists":
                    found.update(self.by_key.get(key, ()))
                elif operator == "In":
                    written = expression.get("values")
                    values = written if isinstance(written, frozenset) else {str(v) for v in as_list(written)}
                    for value in values:
                        found.update(self.by_label.get((key, value), ()))
        return [pools[i] for i in sorted(found)]


def topologies_for_profile(pools: Sequence[Pool], profile: KubeletProfile) -> list[TopologyView]:
    return [p.topology for p in pools if p.profile is profile and p.topology is not None]
