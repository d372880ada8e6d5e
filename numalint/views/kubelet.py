"""The kubelet configuration a node will really run, with defaults applied.

One KubeletProfile per KubeletConfiguration or OpenShift KubeletConfig. It applies the kubelet's
defaults (pkg/kubelet/apis/config/v1beta1/defaults.go), the hard-eviction rules
(pkg/kubelet/eviction/helpers.go) and, for OpenShift, the platform settings the machine-config
operator puts underneath (pkg/controller/kubelet-config), and remembers where every field was written.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from numalint.alignment.startup import RESERVABLE
from numalint.findings import ObjectRef
from numalint.k8s.goparse import GoParseError, parse_cpuset, parse_percentage
from numalint.k8s.kinds import KUBELET_CONFIG
from numalint.k8s.quantity import try_quantity
from numalint.k8s.versions import FIELD_SINCE, field_exists
from numalint.reading.locate import Path, get, locate
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span, YamlError, YMap, load_all
from numalint.views.schema import kubelet_field_names

DEFAULT_MEMORY_AVAILABLE = Fraction(100 * 2**20)  # evictionHard memory.available<100Mi (Linux default)
# What the machine-config operator gives a pool when the user sets nothing (node sizing fallbacks).
OPENSHIFT_SYSTEM_RESERVED = {"cpu": Fraction(1, 2), "memory": Fraction(2**30)}
OPENSHIFT_TEMPLATE = {"systemReservedCgroup": "/system.slice"}
OPENSHIFT_MAX_PODS = 250  # the machine-config operator's kubelet.yaml templates
# From OpenShift 4.21 (Kubernetes 1.34) worker pools of clusters installed at that release size systemReserved
# from the node by default (machine-config-operator templates: NODE_SIZING_ENABLED=true in
# /etc/node-sizing-enabled.env); clusters upgraded from earlier releases keep it off with a
# 50-<pool>-auto-sizing-disabled MachineConfig (pkg/controller/kubelet-config/kubelet_config_autosizing.go:
# NODE_SIZING_ENABLED=false, SYSTEM_RESERVED_MEMORY=1Gi), and no file of the repository says which it is
OPENSHIFT_NODE_SIZING_SINCE = (1, 34)
# From 4.22 (1.35) the operator also clears a user-written systemReservedCgroup next to reservedSystemCPUs
OPENSHIFT_CLEARS_USER_CGROUP_SINCE = (1, 35)
MASTER_POOL_LABEL = "pools.operator.machineconfiguration.openshift.io/master"


def dynamic_system_reserved_memory(capacity: int) -> Fraction:
    """dynamic-system-reserved-calc.sh dynamic_memory_sizing (machine-config-operator templates): on the
    node's memory in whole GiB (``free -g``), 1Gi, plus 6% of the memory between 8 and 128 GiB, plus 2% of the
    rest (the script subtracts 112, not 120, past 128 GiB), rounded half up to whole GiB."""
    total = capacity // 2**30
    reserved = Fraction(1)
    total = 0 if total <= 8 else total - 8
    if total <= 120:
        reserved += total * Fraction(6, 100)
        total = 0
    else:
        reserved += Fraction(672, 100)
        total -= 112
    if total >= 0:
        reserved += total * Fraction(2, 100)
    return Fraction(int(reserved + Fraction(1, 2)) * 2**30)


def nodeadm_kube_reserved_cpu(cpus: int | None) -> Fraction:
    """The kubeReserved cpu nodeadm computes from the instance's cores (nodeadm/internal/kubelet/config.go
    getCPUMillicoresToReserve): 6% of the first core, 1% of the second, 0.5% of the third and fourth, 0.25% of each
    one beyond, in whole millicores. Unknown cores: the least it is (60m); every instance of fewer than ~370 cores
    reserves less than one CPU, so the static policy reserves one CPU whatever the instance."""
    millis = 1000 * (cpus if cpus is not None else 1)
    reserved = 0
    for low, high, per_10000 in ((0, 1000, 600), (1000, 2000, 100), (2000, 4000, 50), (4000, millis, 25)):
        if millis > low:
            reserved += (min(millis, high) - low) * per_10000 // 10000
    return Fraction(reserved, 1000)


def dynamic_system_reserved_cpu(cpus: int) -> Fraction:
    """dynamic_cpu_sizing, version 2: 0.06 CPU plus 0.012 per further online CPU, to two decimals, at least 0.5."""
    value = Fraction(6, 100) if cpus <= 1 else Fraction(round((Fraction(6, 100) + Fraction(12, 1000) * (cpus - 1))
                                                                  * 100), 100)
    return max(value, Fraction(1, 2))


@dataclass
class ReservedMemoryEntry:
    """One ``reservedMemory`` item: a NUMA node and what is reserved on it."""

    numa_node: int | None
    limits: dict[str, Fraction]
    raw_limits: dict[str, Any]
    index: int


@dataclass
class KubeletProfile:
    """Effective NUMA-relevant kubelet settings plus the positions they came from."""

    doc: Document
    ref: ObjectRef
    base: Path
    raw: YMap
    openshift: bool
    keys: dict[str, str] = field(default_factory=dict)  # canonical field -> key as written
    cpu_manager_policy: str = "none"
    cpu_options: dict[str, Any] = field(default_factory=dict)
    topology_policy: str = "none"
    topology_scope: str = "container"
    topology_options: dict[str, Any] = field(default_factory=dict)
    memory_policy: str = "None"
    reserved_memory: list[ReservedMemoryEntry] = field(default_factory=list)
    reserved_memory_written: int = 0  # entries written; only the first MAX_RESERVED_MEMORY are read
    reserved_cpus_text: str | None = None
    system_reserved: dict[str, Fraction] = field(default_factory=dict)
    kube_reserved: dict[str, Fraction] = field(default_factory=dict)
    eviction_memory: Fraction | None = DEFAULT_MEMORY_AVAILABLE
    eviction_memory_percent: float | None = None  # Go's float32 fraction (0.05 for "5%")
    eviction_source: str = "default"
    # mergeDefaultEvictionSettings: true kept the default memory.available; the field exists from 1.33
    # (older kubelets drop it while decoding, so the written evictionHard replaces the defaults)
    eviction_merged_default: bool = False
    eviction_hard: dict[str, Any] = field(default_factory=dict)  # as written, for the kubelet's own parsing
    reserved_raw: dict[str, dict[str, Any]] = field(default_factory=dict)  # kubeReserved/systemReserved as written
    feature_gates: dict[str, bool] = field(default_factory=dict)
    system_reserved_cgroup: str = ""
    kube_reserved_cgroup: str = ""
    max_pods: int = 110  # the kubelet's default; the machine-config operator's template writes 250
    pods_per_core: int = 0  # 0: no limit per core
    platform_defaults: list[str] = field(default_factory=list)
    auto_sizing: bool | None = None  # OpenShift spec.autoSizingReserved as written
    master_pool: bool = False  # an OpenShift KubeletConfig selecting the master pool
    # OpenShift: the KubeletConfig writes systemReserved (any resource); with autoSizingReserved unwritten the
    # operator then turns node sizing off (pkg/controller/kubelet-config helpers.go: NODE_SIZING_ENABLED=false)
    user_system_reserved: bool = False
    user_system_reserved_cgroup: str = ""  # OpenShift: written next to reservedSystemCPUs (cleared from 4.22)
    # OpenShift: feature gates of the cluster's FeatureGate (config.openshift.io/v1), set when the run is
    # analysed; the KubeletConfig cannot set featureGates itself
    cluster_gates: dict[str, bool] = field(default_factory=dict)
    rendered_from: Document | None = None  # the PerformanceProfile this configuration was rendered from
    # where kubeadm's kubeletExtraArgs set fields over the file's KubeletConfiguration (views.kubelet_flags)
    flag_spans: tuple[Span, ...] = ()
    # where a fix of it is made by hand, whatever it edits in its document (kind's patches, Cluster API flags)
    by_hand: str | None = None
    # every setting of it is a kubelet flag, written in this list (kubeletExtraArgs, kubelet-arg): fixes name the flags
    flags_only: str | None = None
    # the distribution's own evictionHard, which has no memory.available ("kind's own evictionHard")
    default_eviction: str | None = None
    # the Kubernetes version its file pins (a kind node image's tag, kubeadm's kubernetesVersion): the feature gates
    # it may name are that version's, whatever the run's target
    declared_version: tuple[int, int] | None = None
    node_selector: dict[str, str] | None = None  # PerformanceProfile spec.nodeSelector
    # the kubeReserved resources Amazon EKS's nodeadm computes from the instance, not written in any file, and how
    # (cpu from its cores, memory from its type's max pods: views.nodeadm)
    nodeadm_reserved: dict[str, str] = field(default_factory=dict)

    @property
    def file(self) -> str:
        return self.doc.file

    @property
    def name(self) -> str:
        return self.ref.name

    def has(self, name: str) -> bool:
        return name in self.keys

    def path(self, name: str, *rest: Any) -> Path:
        return self.base + (self.keys.get(name, name),) + rest

    def span(self, name: str, *rest: Any, key: bool = False) -> Span:
        """Where ``name`` (and a sub-path) is written; the config itself when absent."""
        if name not in self.keys:
            return self.anchor()
        return locate(self.doc.root, self.path(name, *rest), key=key)

    def anchor(self) -> Span:
        if self.base:
            return locate(self.doc.root, self.base, key=True)
        return locate(self.doc.root, ("kind",))

    def dropped_fields(self, version: tuple[int, int]) -> list[str]:
        """Fields written here that a kubelet of ``version`` does not know yet (k8s/versions.py FIELD_SINCE):
        lenient decoding drops them."""
        return [f for f in FIELD_SINCE if f in self.keys and not field_exists(f, version)]

    def reserved_cpus(self) -> frozenset[int] | None:
        """The explicit reservedSystemCPUs set, or None when absent or unparsable."""
        if self.reserved_cpus_text is None:
            return None
        try:
            return parse_cpuset(self.reserved_cpus_text)
        except GoParseError:
            return None

    def cpu_reservation(self, version: tuple[int, int] | None = None, cpus: int | None = None) -> Fraction | None:
        """systemReserved.cpu + kubeReserved.cpu after reservedSystemCPUs overrides them
        (pkg/kubelet/cm/cpumanager/policy_static.go), on a node of ``cpus`` online CPUs when known."""
        explicit = self.reserved_cpus()
        if explicit is not None and self.reserved_cpus_text:
            return Fraction(len(explicit))
        computed = "cpu" in self.nodeadm_reserved
        if "cpu" not in self.system_reserved and "cpu" not in self.kube_reserved and not computed:
            return None
        system = self.system_reserved_amount("cpu", None, version, cpus)
        kube = nodeadm_kube_reserved_cpu(cpus) if computed else self.kube_reserved.get("cpu", Fraction(0))
        return (system if system is not None else OPENSHIFT_SYSTEM_RESERVED["cpu"]) + kube

    def reserved_total(self, resource: str) -> Fraction:
        """What the reservedMemory entries reserve of ``resource`` in all (the sum validateReservedMemory checks)."""
        return sum((e.limits.get(resource, Fraction(0)) for e in self.reserved_memory), Fraction(0))

    def sizing_unsettled(self, version: tuple[int, int] | None) -> bool:
        """Is node sizing a matter of the cluster's history? autoSizingReserved unset on a worker pool from
        OpenShift 4.21: on where the cluster was installed at 4.21 or later, off where it was upgraded."""
        return (self.openshift and self.auto_sizing is None and version is not None
                and version >= OPENSHIFT_NODE_SIZING_SINCE and not self.master_pool and not self.user_system_reserved)

    def node_sizing(self, version: tuple[int, int] | None, capacity: int | None = None) -> bool:
        """Does the machine-config operator size systemReserved from the node (NODE_SIZING_ENABLED=true)?
        With autoSizingReserved: true always, with false never, before 4.21 and on the master pool never. When
        it is unsettled (``sizing_unsettled``) the reservedMemory the author wrote tells: off when its memory
        total is the static one, or on a node of known ``capacity`` is not the sized one either (the kubelet's
        refusal then names both); on when it is the sized one, or when the node's size is unknown (the total
        then depends on it)."""
        if not self.openshift or self.auto_sizing is False:
            return False
        if self.auto_sizing is True:
            return True
        if not self.sizing_unsettled(version):
            return False
        written = self.reserved_total("memory")
        if self.memory_policy == "Static" and written == self.allocatable_reservation("memory", capacity, version,
                                                                                       sized=False):
            return False
        return capacity is None or written == self.allocatable_reservation("memory", capacity, version, sized=True)

    def system_reserved_amount(self, resource: str, capacity: int | None = None,
                               version: tuple[int, int] | None = None, cpus: int | None = None,
                               sized: bool | None = None) -> Fraction | None:
        """systemReserved ``resource`` on a node of ``capacity`` bytes and ``cpus`` CPUs: as written, the
        OpenShift static default, or the operator's dynamic sizing (``sized``: whether the operator sizes it,
        ``node_sizing`` when not given); None when that depends on an unknown node."""
        if f"systemReserved.{resource}" not in self.platform_defaults:
            return self.system_reserved.get(resource, Fraction(0))
        if not (self.node_sizing(version, capacity) if sized is None else sized):
            return self.system_reserved.get(resource, Fraction(0))
        if resource == "memory":
            return dynamic_system_reserved_memory(capacity) if capacity is not None else None
        if resource == "cpu":
            return dynamic_system_reserved_cpu(cpus) if cpus is not None else None
        return self.system_reserved.get(resource, Fraction(0))

    def system_reserved_cgroup_at(self, version: tuple[int, int]) -> str:
        """systemReservedCgroup the kubelet gets: before OpenShift 4.22 the operator keeps a user-written one
        next to reservedSystemCPUs (and the kubelet's validation then fails)."""
        if self.user_system_reserved_cgroup and version < OPENSHIFT_CLEARS_USER_CGROUP_SINCE:
            return self.user_system_reserved_cgroup
        return self.system_reserved_cgroup

    def memory_eviction(self, capacity: int | None = None, version: tuple[int, int] | None = None) -> Fraction | None:
        """The hard ``memory.available`` threshold in bytes on a node of ``capacity`` bytes: 0 when there is
        none; None when it is a percentage and the node's memory is unknown.

        A percentage resolves as ``GetThresholdQuantity`` does (pkg/kubelet/eviction/helpers.go):
        ``int64(float64(capacity) * float64(percentage))``, the percentage a float32. Before 1.33 a
        ``mergeDefaultEvictionSettings`` is not a field of the kubelet configuration: dropped."""
        if self.eviction_merged_default and version is not None and not field_exists("mergeDefaultEvictionSettings",
                                                                                       version):
            return Fraction(0)
        if self.eviction_memory is not None:
            return self.eviction_memory
        if self.eviction_memory_percent is None:
            return Fraction(0)
        if capacity is None:
            return None
        return Fraction(int(float(capacity) * self.eviction_memory_percent))

    def allocatable_reservation(self, resource: str, capacity: int | None = None,
                                version: tuple[int, int] | None = None, sized: bool | None = None) -> Fraction | None:
        """The Node Allocatable reservation of ``resource`` (what reservedMemory must add up to) on a node
        of ``capacity`` bytes of memory (``sized``: as ``system_reserved_amount``); None when it depends on an
        unknown capacity, or on the instance type (nodeadm's kubeReserved memory)."""
        if resource not in RESERVABLE:
            return Fraction(0)  # parseResourceList refuses it (the kubelet does not start): nothing reserved
        if resource in self.nodeadm_reserved:
            return None
        system = self.system_reserved_amount(resource, capacity, version, sized=sized)
        if system is None:
            return None
        total = system + self.kube_reserved.get(resource, Fraction(0))
        if resource == "memory":
            eviction = self.memory_eviction(capacity, version)
            if eviction is None:
                return None
            total += eviction
        return total


def _string_values(node: Any) -> dict[str, Any]:
    return {str(k): v for k, v in node.items()} if isinstance(node, dict) else {}


def _quantities(node: Any) -> dict[str, Fraction]:
    result: dict[str, Fraction] = {}
    for name, value in _string_values(node).items():
        amount = try_quantity(value) if isinstance(value, str) else None
        if amount is not None:
            result[name] = amount
    return result


def kubelet_profile(doc: Document) -> KubeletProfile | None:
    """Build the effective profile of a KubeletConfiguration or KubeletConfig document."""
    openshift = doc.kind == KUBELET_CONFIG
    base: Path = ("spec", "kubeletConfig") if openshift else ()
    raw = get(doc.root, base) if base else doc.root
    if not isinstance(raw, YMap):
        return None

    name = get(doc.root, ("metadata", "name"))
    # A KubeletConfiguration has no metadata: the file name identifies it (NodeTopology pool.kubeletConfig).
    fallback = os.path.splitext(os.path.basename(doc.file))[0] if doc.file != "-" else "<stdin>"
    ref = ObjectRef(doc.api_version, doc.kind, str(name) if name else fallback, None)
    profile = KubeletProfile(doc=doc, ref=ref, base=base, raw=raw, openshift=openshift)
    # The machine-config operator matches keys case-insensitively (machine-config-operator
    # pkg/controller/kubelet-config).

    known = kubelet_field_names()
    lowered = {k.lower(): k for k in known} if openshift else {}
    for key in raw:
        if not isinstance(key, str):
            continue
        canonical = key if key in known else lowered.get(key.lower(), key)
        profile.keys[canonical] = key

    def value(name: str, default: Any = None) -> Any:
        key = profile.keys.get(name)
        return raw.get(key, default) if key is not None else default

    def text(name: str, default: str) -> str:
        v = value(name)
        return v if isinstance(v, str) and v != "" else default

    profile.cpu_manager_policy = text("cpuManagerPolicy", "none")
    profile.topology_policy = text("topologyManagerPolicy", "none")
    profile.topology_scope = text("topologyManagerScope", "container")
    profile.memory_policy = text("memoryManagerPolicy", "None")
    profile.cpu_options = _string_values(value("cpuManagerPolicyOptions"))
    profile.topology_options = _string_values(value("topologyManagerPolicyOptions"))
    cpus = value("reservedSystemCPUs")
    profile.reserved_cpus_text = cpus if isinstance(cpus, str) else (str(cpus) if cpus is not None else None)
    profile.system_reserved = _quantities(value("systemReserved"))
    profile.kube_reserved = _quantities(value("kubeReserved"))
    profile.reserved_raw = {name: _string_values(value(name)) for name in ("kubeReserved", "systemReserved")}
    profile.eviction_hard = _string_values(value("evictionHard"))
    profile.feature_gates = {str(k): v for k, v in _string_values(value("featureGates")).items()
                             if isinstance(v, bool)}
    profile.system_reserved_cgroup = text("systemReservedCgroup", "")
    profile.kube_reserved_cgroup = text("kubeReservedCgroup", "")
    _eviction(profile, value("evictionHard"), value("mergeDefaultEvictionSettings"))
    _reserved_memory(profile, value("reservedMemory"))
    if openshift:
        _openshift_defaults(profile)
    for name, attribute, least in (("maxPods", "max_pods", 1), ("podsPerCore", "pods_per_core", 0)):
        # maxPods 0 is the default again (v1beta1 defaults.go: 110; the machine-config operator's merge keeps its
        # template's 250); another value is a schema error: the kubelet does not start
        count = value(name)
        if isinstance(count, int) and not isinstance(count, bool) and least <= count < 2 ** 31:
            setattr(profile, attribute, count)
    return profile


def _eviction(profile: KubeletProfile, hard: Any, merge_defaults: Any) -> None:
    """A written evictionHard map replaces the defaults unless merged explicitly
    (pkg/kubelet/apis/config/v1beta1/defaults.go)."""
    if not isinstance(hard, dict):
        return
    signal = hard.get("memory.available")
    if signal is None:
        if merge_defaults is True:
            profile.eviction_merged_default = True
            return
        profile.eviction_memory = None
        profile.eviction_source = "evictionHard without memory.available"
        return
    profile.eviction_source = "evictionHard"
    if isinstance(signal, str) and signal.endswith("%"):
        profile.eviction_memory = None
        if signal in ("0%", "100%"):
            profile.eviction_source = f"evictionHard memory.available {signal} (ignored by the kubelet)"
            return  # parseThresholdStatement skips exactly these two spellings
        profile.eviction_memory_percent = go_percentage(signal)
        return
    profile.eviction_memory = try_quantity(signal) if isinstance(signal, str) else None


def go_percentage(text: str) -> float | None:
    """parsePercentage (pkg/kubelet/eviction/helpers.go) as a float32 fraction (0.05 for "5%"); None when
    parseThresholdStatement refuses it (a syntax error, below 0, above 1 as a fraction) or it is NaN (which
    the kubelet accepts but whose threshold no one can compute); the alignment core reports why."""
    try:
        value = parse_percentage(text)
    except GoParseError:
        return None
    if math.isnan(value) or value < 0 or value > 1:
        return None
    return value


MAX_RESERVED_MEMORY = 1024  # 64 NUMA nodes x every memory type is far less; hostile lists stay cheap


def _reserved_memory(profile: KubeletProfile, entries: Any) -> None:
    if not isinstance(entries, list):
        return
    profile.reserved_memory_written = len(entries)
    for i, entry in enumerate(entries[:MAX_RESERVED_MEMORY]):
        if not isinstance(entry, dict):
            continue
        numa = entry.get("numaNode")
        raw_limits = _string_values(entry.get("limits"))
        limits = {k: q for k, v in raw_limits.items() if (q := try_quantity(v)) is not None}
        profile.reserved_memory.append(ReservedMemoryEntry(
            numa if isinstance(numa, int) and not isinstance(numa, bool) else None, limits, raw_limits, i))


def _openshift_defaults(profile: KubeletProfile) -> None:
    """Settings the machine-config operator puts underneath a KubeletConfig (machine-config-operator templates and
    node sizing)."""
    auto_sizing = get(profile.doc.root, ("spec", "autoSizingReserved"))
    profile.auto_sizing = auto_sizing if isinstance(auto_sizing, bool) else None
    selector = get(profile.doc.root, ("spec", "machineConfigPoolSelector", "matchLabels"))
    expressions = get(profile.doc.root, ("spec", "machineConfigPoolSelector", "matchExpressions"))
    profile.master_pool = (isinstance(selector, dict) and MASTER_POOL_LABEL in selector) or (
        isinstance(expressions, list) and any(isinstance(e, dict) and e.get("key") == MASTER_POOL_LABEL
                                              and e.get("operator") in ("In", "Exists") for e in expressions))
    profile.max_pods = OPENSHIFT_MAX_PODS  # the template's kubelet.yaml (templates/*/01-*-kubelet); the user's wins
    # before the template's defaults fill it; only these go to /etc/node-sizing-enabled.env (generateKubeletIgnFiles)
    profile.user_system_reserved = any(r in profile.system_reserved for r in ("cpu", "memory", "ephemeral-storage"))
    for resource, amount in OPENSHIFT_SYSTEM_RESERVED.items():
        if resource not in profile.system_reserved:
            # the static fallback; system_reserved_amount() replaces it when the operator sizes the node
            profile.system_reserved[resource] = amount
            profile.platform_defaults.append(f"systemReserved.{resource}")
    if not profile.system_reserved_cgroup and not profile.reserved_cpus_text:
        profile.system_reserved_cgroup = OPENSHIFT_TEMPLATE["systemReservedCgroup"]
    if profile.reserved_cpus_text:
        # the MCO clears the template's cgroup so kubelet validation passes; a user-written one only from 4.22
        profile.user_system_reserved_cgroup = profile.system_reserved_cgroup if profile.has(
            "systemReservedCgroup") else ""
        profile.system_reserved_cgroup = ""


_VERSION = re.compile(r"v?1\.([0-9]{1,2})(?:\.|$)", re.ASCII)


def pinned_version(text: Any) -> tuple[int, int] | None:
    """(1, minor) of a version written as kubeadm's ``kubernetesVersion`` (``v1.28.4``) or a kind node image's tag
    (``kindest/node:v1.27.3@sha256:...``); None for anything else (``stable-1``, ``latest``, another image)."""
    if not isinstance(text, str):
        return None
    text = text.split("@")[0]  # an image's digest
    tag = text.rsplit(":", 1)[-1] if "/" in text or text.startswith("kindest") else text
    found = _VERSION.match(tag)
    return (1, int(found.group(1))) if found else None


def kubeadm_version(documents: list[Document], lines: list[str]) -> tuple[int, int] | None:
    """The Kubernetes version a kubeadm ClusterConfiguration of the file pins (``kubernetesVersion: v1.28.4``): that of
    the kubelet its KubeletConfiguration configures. The ClusterConfiguration is no kind numalint builds (read only
    up to its kind): its document (``lines``: the file's) is read again, alone."""
    for doc in documents:
        if doc.kind == "ClusterConfiguration" and doc.api_version.startswith("kubeadm.k8s.io/"):
            root: Any = doc.root
            if "kubernetesVersion" not in root:
                own = lines[doc.span.line - 1:doc.span.end_line]
                text = "\n".join(line[doc.span.col - 1:] if i == 0 else line for i, line in enumerate(own))
                try:
                    root = next((r for r, _span in load_all(text)), None)
                except YamlError:
                    return None
            return pinned_version(root.get("kubernetesVersion")) if isinstance(root, dict) else None
    return None
