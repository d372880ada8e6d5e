"""Typed views of every object that runs pods, with API defaulting applied.

Rules never look at controller dicts: they get a PodView whatever the kind
(Pod, Deployment, CronJob, ...), with requests defaulted to limits and QoS
computed as the API server does (pkg/apis/core/v1/helper/qos/qos.go).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from numalint.findings import ObjectRef
from numalint.k8s.kinds import LEGACY_NETWORKS_ANNOTATION, NETWORKS_ANNOTATION
from numalint.k8s.quantity import try_quantity
from numalint.k8s.templates import PodTemplate, burstable_by, pod_templates
from numalint.reading.locate import Locator, Path, as_list, get, shared
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span, YMap

HUGEPAGES_PREFIX = "hugepages-"


def is_extended(resource: str) -> bool:
    """Device-plugin style resources (``nvidia.com/gpu``, ``openshift.io/sriov_nic``)."""
    return "/" in resource and not resource.startswith("kubernetes.io/")


def is_hugepages(resource: str) -> bool:
    return resource.startswith(HUGEPAGES_PREFIX)


@dataclass(slots=True)
class ContainerView:
    """One container with defaulted requests and limits (exact quantities)."""

    name: str
    path: Path  # path of the container inside the document
    init: bool
    sidecar: bool
    requests: dict[str, Fraction] = field(default_factory=dict)
    limits: dict[str, Fraction] = field(default_factory=dict)

    @property
    def label(self) -> str:
        kind = "sidecar" if self.sidecar else "init container" if self.init else "container"
        return f'{kind} "{self.name}"'

    def whole_cpu_limit(self) -> bool:
        """A whole cpu limit of at least one, as a container meant for exclusive CPUs has."""
        cpu = self.limits.get("cpu")
        return cpu is not None and cpu >= 1 and cpu.denominator == 1

    def qos(self) -> str:
        requests, limits = self.requests, self.limits
        if not requests and not limits:
            return "BestEffort"
        # plain 0 for a missing quantity: equal to Fraction(0), without making one per call (hot in every check)
        cpu_lim, mem_lim = limits.get("cpu", 0), limits.get("memory", 0)
        if requests.get("cpu", 0) != cpu_lim or requests.get("memory", 0) != mem_lim:
            return "Burstable"
        if cpu_lim == 0 and mem_lim == 0:
            return "BestEffort"
        if cpu_lim and mem_lim:
            return "Guaranteed"
        return "Burstable"


@dataclass(slots=True)
class PodView:
    """What a workload asks of a node, whatever controller it comes in."""

    file: str
    ref: ObjectRef
    locator: Locator
    spec_path: Path
    containers: list[ContainerView]
    replicas: int
    annotations: dict[str, str]  # the pod's annotations numalint reads (READ_ANNOTATIONS), nothing else
    node_selector: dict[str, str]
    required_terms: list[list[dict[str, Any]]]
    pod_resources: dict[str, Fraction] | None
    # a KubeVirt VM: why it asks for dedicated resources ("" when it does not: hugepages alone are a TLB matter,
    # which KubeVirt does not make Guaranteed); None for a pod as written
    declared_intent: str | None = None
    isolated_emulator: bool = False  # a KubeVirt VM whose CPUs include its emulator thread's (isolateEmulatorThread)
    # a KubeVirt VM with dedicatedCpuPlacement: virt-controller adds nodeSelector cpumanager=true to its pod, a label
    # virt-handler sets only where the kubelet runs the static CPU manager (kept apart from ``node_selector``,
    # which says which of the run's pools the workload picks: no pool declares that label)
    needs_cpu_manager: bool = False
    instancetype: str | None = None  # a KubeVirt VM's instancetype, which decides its CPUs and memory (its label)
    pinned_by_instancetype: bool = False  # its dedicated CPUs come from the instancetype, not the VM
    data_plane: str | None = None  # what marks a DPDK-style data plane: a /dev/vfio volume
    hugepage_volume: str | None = None  # a volume mapping hugepages (emptyDir of medium HugePages*, /dev/hugepages)
    pod_limits: dict[str, Fraction] | None = None  # spec.resources.limits as written (pod-level resources)
    # spec.resources.requests the API server drops (PodLevelResources off at the target version): the containers
    # decide, but the pod-level-resources rule still says what was written
    dropped_pod_resources: dict[str, Fraction] | None = None
    # a container an operator adds to every pod of the template that makes it Burstable, whatever the template
    # asks (the training operator's init-pytorch): what it is and asks
    burstable_by: str | None = None
    idle: str | None = None  # why none of its pods run beside the others' (a JobSet step done before the next)
    runs_alone: bool = False  # idle, but its pods run at another time (a JobSet step, an autoscaled Ray group)
    # the Dynamic Resource Allocation claims the pod takes: (index of the container that takes it in
    # ``containers``, -1 for a claim of the pod no container names, such as a network interface; claim name; path)
    dra_claims: tuple[tuple[int, str, Path], ...] = ()
    asked_alignment: str | None = None  # NUMA alignment the object asks outright (Volcano's topologyPolicy)
    runtime_class: str | None = None  # spec.runtimeClassName as written (None: not written)
    # CRI-O tuning annotations written on a controller's own metadata (or a template's above its pod template: a
    # CronJob's job template) and not on its pod template: they never reach its pods. (metadata, annotations) of each
    # metadata holding some, outermost first
    misplaced_tuning: tuple[tuple[Path, tuple[str, ...]], ...] = ()
    # the QoS class, worked out on first use (views are not changed once made; ``replace`` makes it again)
    _qos: str | None = field(default=None, init=False, repr=False, compare=False)

    def span(self, path: Path, key: bool = False) -> Span:
        return self.locator.span(path, key=key)

    def anchor(self) -> Span:
        """Where a finding about the whole workload points: its name; for one pod template of an object with
        one per role, that template's key (``template:`` under ``Worker:``)."""
        if self.ref.part is not None:
            return self.locator.span(self.spec_path[:-1], key=True)
        return self.locator.span(("metadata", "name"))

    def annotation_span(self, key: str, name: bool = False) -> Span:
        """Where annotation ``key`` of the pod is written (its key with ``name``, else its value): the pod template's
        when the workload has one; else the pod's name."""
        for metadata in (self.spec_path[:-1] + ("metadata",), ("metadata",)):
            path = metadata + ("annotations", key)
            if self.locator.has(path):
                return self.span(path, key=name)
        return self.anchor()

    def qos(self) -> str:
        """Pod QoS class (pkg/apis/core/v1/helper/qos/qos.go), from pod-level resources when they are set."""
        if self._qos is None:
            # pod-level resources decide alone (qos.go computePodLevelQOS), whatever a container asks
            added = self.burstable_by is not None and self.pod_resources is None
            self._qos = "Burstable" if added else self._compute_qos()
        return self._qos

    def _compute_qos(self) -> str:
        if self.pod_resources is not None:
            return _pod_level_qos(self.pod_resources, self.pod_limits or {})
        classes = {c.qos() for c in self.containers}
        if "Burstable" in classes or classes == {"BestEffort", "Guaranteed"}:
            return "Burstable"
        return classes.pop() if classes else "BestEffort"

    def resource_names(self) -> set[str]:
        names: set[str] = set()
        for c in self.containers:
            names.update(c.requests)
            names.update(c.limits)
        return names


def _pod_level_qos(requests: dict[str, Fraction], limits: dict[str, Fraction]) -> str:
    """ComputePodQOS with spec.resources set (pkg/apis/core/v1/helper/qos/qos.go): only positive cpu and
    memory count; Guaranteed when limits hold both and every request equals its limit."""
    compute = ("cpu", "memory")
    req = {r: v for r, v in requests.items() if r in compute and v > 0}
    lim = {r: v for r, v in limits.items() if r in compute and v > 0}
    if not req and not lim:
        return "BestEffort"
    guaranteed = not limits or set(lim) == set(compute)
    guaranteed = guaranteed and all(lim.get(r) == v for r, v in req.items())
    return "Guaranteed" if guaranteed and len(req) == len(lim) else "Burstable"


# Values every workload of a process shares instead of holding its own copy (a repository of 20,000 files
# repeats the same few quantities and container paths thousands of times); both are immutable.
_AMOUNTS: dict[Fraction, Fraction] = {}
_PATHS: dict[Path, Path] = {}
# the only pod annotations any rule reads; the others (checksums, scrape settings) are not kept per workload
# CRI-O's per-pod CPU tuning (OpenShift "Disabling CPU load balancing for a pod", with the performance-<profile>
# runtime class): it acts only on a Guaranteed pod's exclusive CPUs, so writing one asks for them
CRIO_CPU_ANNOTATIONS = ("cpu-load-balancing.crio.io", "cpu-quota.crio.io", "irq-load-balancing.crio.io")
# CRI-O also reads each of them for one container of the pod: ``cpu-quota.crio.io/<container name>``
CRIO_PER_CONTAINER = tuple(f"{key}/" for key in CRIO_CPU_ANNOTATIONS)
# and, for the pod only, the power settings of the same CPUs (OpenShift 4.12 and later allow them in the
# performance runtime class): idle states (cpu-c-states) and the frequency governor
C_STATES, FREQUENCY_GOVERNOR = "cpu-c-states.crio.io", "cpu-freq-governor.crio.io"
CRIO_POWER_ANNOTATIONS = (C_STATES, FREQUENCY_GOVERNOR)
READ_ANNOTATIONS = (NETWORKS_ANNOTATION, LEGACY_NETWORKS_ANNOTATION, *CRIO_CPU_ANNOTATIONS, *CRIO_POWER_ANNOTATIONS)


# the values CRI-O's high-performance hooks act on, compared exactly: "true" is the deprecated "disable", and
# "housekeeping" keeps interrupts on the container's first core's siblings; any other value does nothing
CRIO_ACTED = {"cpu-load-balancing.crio.io": ("disable", "true"), "cpu-quota.crio.io": ("disable", "true"),
              "irq-load-balancing.crio.io": ("disable", "true", "housekeeping")}


def crio_tuning(annotations: dict[str, str]) -> list[str]:
    """The keys among a pod's ``annotations`` of CRI-O's CPU tuning, for the pod or one container, set to a value
    CRI-O acts on."""
    return [key for key, value in annotations.items() if _acted_on(key, value)]


def _acted_on(key: str, value: object) -> bool:
    """Whether CRI-O's high-performance hooks act on the annotation (internal/runtimehandlerhooks): cpu-c-states
    takes ``enable``, ``disable`` or ``max_latency:<n>`` with n a positive integer (strconv.Atoi), any other value
    failing the container's start; cpu-freq-governor takes any governor name (one the CPUs do not offer fails the
    start)."""
    if key == C_STATES:
        latency = value[len("max_latency:"):] if isinstance(value, str) and value.startswith("max_latency:") else ""
        digits = latency[1:] if latency[:1] in ("+", "-") else latency
        return value in ("enable", "disable") or \
            digits.isascii() and digits.isdigit() and 0 < int(latency) < 1 << 63
    if key == FREQUENCY_GOVERNOR:
        return isinstance(value, str) and value != ""
    return value in CRIO_ACTED.get(key.split("/")[0], ())


def is_crio_cpu_annotation(key: object) -> bool:
    """One of CRI-O's CPU tuning annotations, for the pod or for one of its containers."""
    return key in CRIO_CPU_ANNOTATIONS or key in CRIO_POWER_ANNOTATIONS or \
        isinstance(key, str) and key.startswith(CRIO_PER_CONTAINER)


def _pod_annotations(kind: str, template: dict[str, str], own: dict[str, str]) -> dict[str, str]:
    """The read annotations of a workload's pods: its template's, else (for the networks annotation) the object's
    own; CRI-O's annotations act only where the pod carries them."""
    if template or kind == "Pod":
        return read_annotations(template or own)
    return read_annotations({k: v for k, v in own.items() if not is_crio_cpu_annotation(k)})


def read_annotations(annotations: dict[str, str]) -> dict[str, str]:
    """The annotations of READ_ANNOTATIONS among ``annotations``, and CRI-O's per-container ones (shared: see
    ``shared_map``)."""
    kept = {key: annotations[key] for key in READ_ANNOTATIONS if key in annotations}
    kept.update((key, value) for key, value in annotations.items() if key.startswith(CRIO_PER_CONTAINER))
    return shared_map(kept)


class SharedMap(dict):  # type: ignore[type-arg]
    """A mapping every view of the process holding the same items shares (most containers ask for one of a few
    sets of requests and limits): changing it raises, as it would change every view that holds it."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("the mappings of workload views are read-only")

    __setitem__ = __delitem__ = update = setdefault = pop = popitem = clear = __ior__ = _refuse  # type: ignore

    def __reduce__(self) -> tuple[Any, ...]:
        return _shared_items, (tuple(self.items()),)  # shared again in the process that receives it


_MAPS: dict[tuple[tuple[Any, Any], ...], SharedMap] = {}


def shared_map(items: dict[str, Any]) -> dict[str, Any]:
    """The process's one read-only copy of ``items`` (same items in the same order)."""
    return _shared_items(tuple(items.items()))


def _shared_items(items: tuple[tuple[Any, Any], ...]) -> dict[str, Any]:
    found = _MAPS.get(items)
    if found is None:
        found = _MAPS[items] = SharedMap(items)
    return found


def _quantities(node: Any) -> dict[str, Fraction]:
    result: dict[str, Fraction] = {}
    if isinstance(node, dict):
        for name, value in node.items():
            amount = try_quantity(value)
            if amount is not None and isinstance(name, str):
                result[name] = _AMOUNTS.setdefault(amount, amount)
    return result


def _container(raw: Any, path: Path, init: bool) -> ContainerView | None:
    if not isinstance(raw, YMap):
        return None
    resources = raw.get("resources")
    requests = _quantities(get(resources, ("requests",)))
    limits = _quantities(get(resources, ("limits",)))
    for name, amount in limits.items():
        requests.setdefault(name, amount)  # API defaulting: request defaults to limit
    raw_name = raw.get("name")
    sidecar = init and raw.get("restartPolicy") == "Always"
    name = str(raw_name) if raw_name is not None else "?"
    return ContainerView(name, _PATHS.setdefault(path, path), init, sidecar, shared_map(requests), shared_map(limits))


def _string_map(node: Any) -> dict[str, str]:
    if not isinstance(node, dict):
        return {}
    return {str(k): str(v) for k, v in node.items() if v is not None}


def _effective_request(containers: list[ContainerView], name: str) -> Fraction | None:
    """The pod's effective request of ``name`` from its containers (the larger of the app containers and
    sidecars together and each init container), None when no container requests it."""
    if not any(name in c.requests for c in containers):
        return None
    running = sum((c.requests.get(name, Fraction(0)) for c in containers if not c.init or c.sidecar), Fraction(0))
    init = max((c.requests.get(name, Fraction(0)) for c in containers if c.init and not c.sidecar),
               default=Fraction(0))
    return max(running, init)


def pod_views(doc: Document) -> list[PodView]:
    """The view of each pod template of a pod-running object (one for the core kinds, one per role for
    training jobs and the like: ``k8s/templates.py``); [] when it has none."""
    return [_pod_view(doc, template) for template in pod_templates(doc.api_version, doc.kind, doc.root)]


def _pod_view(doc: Document, template: PodTemplate) -> PodView:
    spec_path = template.spec_path
    root = doc.root
    spec = get(root, spec_path)
    template_meta_path = spec_path[:-1] + ("metadata",) if doc.kind != "Pod" else ("metadata",)
    containers: list[ContainerView] = []
    for field_name, init in (("initContainers", True), ("containers", False)):
        items = spec.get(field_name)
        if isinstance(items, list):
            for i, raw in enumerate(items):
                view = _container(raw, spec_path + (field_name, i), init)
                if view is not None:
                    containers.append(view)
    pod_level = spec.get("resources")
    pod_resources = pod_limits = None
    if isinstance(pod_level, dict):
        req = _quantities(pod_level.get("requests"))
        pod_limits = _quantities(pod_level.get("limits"))
        if pod_limits:  # API defaulting of pod-level requests (pkg/apis/core/v1 defaults.go defaultPodRequests)
            for name in ("cpu", "memory"):  # what the containers request in effect, when any of them does
                asked = _effective_request(containers, name)
                if asked is not None:
                    req.setdefault(name, asked)
            for name, amount in pod_limits.items():  # else the pod-level limit
                req.setdefault(name, amount)
        pod_resources = req or None
    metadata = root.get("metadata") if isinstance(root.get("metadata"), dict) else {}
    own = _string_map(get(root, ("metadata", "annotations")))
    template_annotations = _string_map(get(root, template_meta_path + ("annotations",)))
    terms = required_terms(spec)
    namespace = _opt_str(get(metadata, ("namespace",)))
    ref = ObjectRef(shared(doc.api_version), shared(doc.kind), str(get(metadata, ("name",), "") or "<unnamed>"),
                    shared(namespace) if namespace is not None else None, template.part)
    claims = _dra_claims(spec, spec_path, containers)
    locator = _locator(doc, spec_path, containers, anchored=template.part is not None,
                       extra=tuple(path for _label, _name, path in claims))
    return PodView(file=doc.file, ref=ref, locator=locator, spec_path=spec_path,
                   containers=containers,
                   replicas=template.replicas, annotations=_pod_annotations(doc.kind, template_annotations, own),
                   node_selector=shared_map(_string_map(spec.get("nodeSelector"))), required_terms=terms,
                   pod_resources=pod_resources, pod_limits=pod_limits if pod_resources is not None else None,
                   runtime_class=_opt_str(spec.get("runtimeClassName")),
                   data_plane=_vfio_volume(spec), hugepage_volume=_hugepage_volume(spec),
                   burstable_by=burstable_by(doc.api_version, doc.kind, root, template.part),
                   idle=template.idle, runs_alone=template.alone, asked_alignment=template.alignment,
                   dra_claims=claims, **_misplaced_tuning(doc.kind, root, spec_path, template_annotations))


def _misplaced_tuning(kind: str, root: YMap, spec_path: Path, template: dict[str, str]) -> dict[str, Any]:
    """``PodView.misplaced_tuning``: CRI-O tuning annotations of a controller's own metadata and of the templates
    above its pod template (a CronJob's job template, a JobSet's), that its pod template does not carry."""
    if kind == "Pod":
        return {}
    found = []
    for metadata in _outer_metadata(spec_path):
        keys = tuple(key for key in crio_tuning(_string_map(get(root, metadata + ("annotations",))))
                     if key not in template)
        if keys:
            found.append((metadata, keys))
    return {"misplaced_tuning": tuple(found)} if found else {}


def _outer_metadata(spec_path: Path) -> tuple[Path, ...]:
    """The metadata of a controller that are not its pods': its own, and those of the templates above its pod
    template (``spec.jobTemplate`` of a CronJob, ``spec.replicatedJobs[0].template`` of a JobSet: a Job's)."""
    above = spec_path[:-2]  # the pod template is spec_path[:-1]
    return (("metadata",), *(above[:i + 1] + ("metadata",) for i, step in enumerate(above)
                             if step in ("template", "jobTemplate")))


def _dra_claims(spec: YMap, spec_path: Path, containers: list[ContainerView]) -> tuple[tuple[int, str, Path], ...]:
    """The claims the pod takes, of those ``spec.resourceClaims`` declares (a container naming any other is refused
    by the API server): each container's (``resources.claims[].name``), then the pod's own that no container names
    (a network interface moved into the pod's namespace). The kubelet prepares them after admission and tells the
    Topology Manager nothing of them."""
    declared: dict[str, Path] = {}
    for index, entry in enumerate(as_list(spec.get("resourceClaims"))):
        name = get(entry, ("name",))
        if isinstance(name, str) and name:
            declared.setdefault(name, spec_path + ("resourceClaims", index))
    if not declared:
        return ()
    found: list[tuple[int, str, Path]] = []
    named: set[str] = set()  # every claim a container names, also in a form the API server refuses (a bare string)
    for number, container in enumerate(containers):
        raw = get(spec, container.path[len(spec_path):] + ("resources", "claims"))
        for index, entry in enumerate(as_list(raw)):
            name = get(entry, ("name",)) if isinstance(entry, dict) else entry
            if isinstance(name, str):
                named.add(name)
            if isinstance(entry, dict) and isinstance(name, str) and name in declared:
                found.append((number, name, container.path + ("resources", "claims", index)))
    found += [(-1, name, path) for name, path in declared.items() if name not in named]
    return tuple(found)


def required_terms(spec: Any) -> list[list[dict[str, Any]]]:
    """The match expressions of each required node affinity term of a pod spec (a KubeVirt VM's too)."""
    terms: list[list[dict[str, Any]]] = []
    raw_terms = get(spec, ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                           "nodeSelectorTerms"))
    if isinstance(raw_terms, list):
        for term in raw_terms:
            exprs = get(term, ("matchExpressions",))
            terms.append([_expression(e) for e in exprs if isinstance(e, dict)] if isinstance(exprs, list) else [])
    return terms


def _expression(written: dict[str, Any]) -> dict[str, Any]:
    """A match expression with its values as a set of strings, made once: every pool it is tried on looks its
    label up in it (an ``In`` of thousands of hostnames beside thousands of pools)."""
    values = written.get("values")
    if not isinstance(values, list):
        return written
    return {**written, "values": frozenset(str(v) for v in values)}


def _vfio_volume(spec: YMap) -> str | None:
    """A volume that drives VFIO devices: the mark of a DPDK-style data plane. (IPC_LOCK alone is no mark: RDMA
    applications need it to register memory, whatever their CPUs.)"""
    for volume in as_list(spec.get("volumes")):
        path = get(volume, ("hostPath", "path"))
        if isinstance(path, str) and path.startswith("/dev/vfio"):
            return f"a hostPath volume {path}"
    return None


def _hugepage_volume(spec: YMap) -> str | None:
    """A volume that maps hugepages: an emptyDir of medium HugePages*, or the /dev/hugepages host directory."""
    for volume in as_list(spec.get("volumes")):
        medium = get(volume, ("emptyDir", "medium"))
        if isinstance(medium, str) and medium.startswith("HugePages"):
            return f"an emptyDir of medium {medium}"
        path = get(volume, ("hostPath", "path"))
        if isinstance(path, str) and path.startswith("/dev/hugepages"):
            return f"a hostPath volume {path}"
    return None


def _locator(doc: Document, spec_path: Path, containers: list[ContainerView], pod: bool = True,
             anchored: bool = False, extra: tuple[Path, ...] = ()) -> Locator:
    """Record the positions workload findings point at: names and every resource quantity (and, for ``pod``
    specs, not KubeVirt's, pod-level resources; when ``anchored``, the template's key, a part's anchor)."""
    locator = Locator(doc.span)
    root = doc.root
    locator.record(root, ("metadata", "name"))
    if anchored:
        locator.record(root, spec_path[:-1])
    for path in extra:
        locator.record(root, path)
    # each path recorded one step from its parent's node (``Locator.child``), not walked to from the root again
    for metadata in dict.fromkeys((*_outer_metadata(spec_path), spec_path[:-1] + ("metadata",))):
        where = metadata + ("annotations",)
        annotations = locator.record(root, where)
        for key in READ_ANNOTATIONS if annotations is not None else ():  # the SR-IOV rules point at them
            locator.child(annotations, where, key)
        for key in annotations if isinstance(annotations, YMap) else ():
            if isinstance(key, str) and key.startswith(CRIO_PER_CONTAINER):
                locator.child(annotations, where, key)
    if pod:
        locator.record(root, spec_path + ("resources",))  # pod-level resources
    for container in containers:
        node = locator.record(root, container.path)
        locator.child(node, container.path, "name")
        where = container.path + ("resources",)
        resources = locator.child(node, container.path, "resources")
        if isinstance(resources, YMap):
            for kind in ("requests", "limits"):
                section = resources.get(kind)
                if isinstance(section, YMap) and section:  # an empty section is not recorded (spans fall back)
                    locator.child(resources, where, kind)
                    here = where + (kind,)
                    for name in section:
                        locator.child(section, here, name)
    return locator.seal()


def _opt_str(value: Any) -> str | None:
    return str(value) if value is not None else None
