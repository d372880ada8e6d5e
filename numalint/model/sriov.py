"""SR-IOV: node policies turn the NICs of a topology into VF pools; networks map pods to VF resources.

* A SriovNetworkNodePolicy selects PFs (nicSelector: vendor, deviceID, pfNames with ``#first-last`` VF
  ranges, rootDevices) on nodes whose labels match its nodeSelector. Each selected PF gives VFs
  ``<prefix>/<resourceName>``, each with its PF's NUMA node, or none with ``excludeTopology: true`` or a
  PF ``numa_node`` of -1. When several policies claim a PF without ranges, the lowest priority number wins.
* A pod's ``k8s.v1.cni.cncf.io/networks`` annotation names networks (SriovNetwork, SriovIBNetwork and
  OVSNetwork, which the operator renders into a NetworkAttachmentDefinition of the same name, or a
  NetworkAttachmentDefinition with a ``k8s.v1.cni.cncf.io/resourceName`` annotation); the
  network-resources-injector adds one VF per attachment to the first container's requests and limits,
  unless a container already asks for that resource.
* Only policies provide VFs: a network names the resource it consumes, never provides it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from numalint.findings import ObjectRef
from numalint.k8s import gojson
from numalint.k8s.gojson import TooDeep
from numalint.k8s.kinds import (
    FOREIGN_NETWORK_KINDS,
    NETWORKS_ANNOTATION,
    SRIOV_NETWORK_KINDS,
    SRIOV_OPERATOR_CONFIG,
    SRIOV_POLICY,
)
from numalint.model.run import NearFiles
from numalint.reading.locate import as_list, get, locate
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span

if TYPE_CHECKING:
    from numalint.alignment.machine import Device
    from numalint.model.run import Run
    from numalint.views.topology import NIC, TopologyView
    from numalint.views.workloads import PodView

DEFAULT_PREFIX = "openshift.io"
RESOURCE_ANNOTATION = "k8s.v1.cni.cncf.io/resourceName"
_DOC_PLACEHOLDER = re.compile(r"<[A-Za-z_][\w.-]*>")
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_SIMPLE_VARIABLE = re.compile(r"\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*|<[A-Za-z_][\w.-]*>")
_PF_RE = re.compile(r"^(?P<name>[^#]+)(?:#(?P<first>\d+)-(?P<last>\d+))?$")
# what Multus accepts as a namespace or network name in the comma form (parsePodNetworkObjectName)
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
# the operator webhook's resourceName (pkg/webhook/validate.go staticValidateSriovNetworkNodePolicy, as OpenShift
# ships it; schemas/sriovnetworknodepolicy): a policy naming another is rejected
_RESOURCE_NAME_RE = re.compile(r"[a-zA-Z0-9_]+\Z")
# the device plugin's (pkg/utils ValidResourceName; "-" allowed since sriov-network-device-plugin PR #481, 2023):
# what a policy may name when no webhook checks it (SriovOperatorConfig enableOperatorWebhook: false)
_PLUGIN_RESOURCE_NAME_RE = re.compile(r"[a-zA-Z0-9_-]+\Z")


def valid_resource_name(name: str) -> str:
    """``name`` as the operator webhook accepts it (letters, digits and _): the prefix dropped, any other
    character made ``_``."""
    name = name.rsplit("/", 1)[-1]
    return name if _RESOURCE_NAME_RE.match(name) else re.sub(r"[^a-zA-Z0-9_]", "_", name) or "resource"


@dataclass
class PFName:
    name: str
    first: int | None
    last: int | None
    index: int
    raw: str


@dataclass
class Policy:
    doc: Document
    ref: ObjectRef
    resource_name: str
    num_vfs: int
    priority: int
    node_selector: dict[str, str]
    device_type: str
    exclude_topology: bool
    vendor: str | None
    device_id: str | None
    pf_names: list[PFName]
    root_devices: list[str]
    externally_managed: bool = False
    has_selector: bool = True  # False: nodeSelector missing or null, a template still to be filled in
    prefix: str = DEFAULT_PREFIX  # the one the operator reading the policy gives its resource (``catalog``)

    @property
    def resource(self) -> str:
        """The resource the policy creates, prefix included."""
        return f"{self.prefix}/{self.resource_name}"

    def span(self, *path: Any, key: bool = False) -> Span:
        return locate(self.doc.root, ("spec",) + path, key=key)

    def selects_node(self, labels: dict[str, str]) -> bool:
        return all(labels.get(k) == v for k, v in self.node_selector.items())

    def nics_of(self, topology: TopologyView) -> list[NIC]:
        """The NICs of ``topology`` the policy may select, in their order (``range_on`` decides): found by its
        pfNames, else its root devices, else its vendor, without trying every NIC (thousands of policies beside
        a topology of thousands of NICs were quadratic)."""
        index = topology.nics_by
        if self.pf_names:
            found = {i for pf in self.pf_names for i in index["interface"].get(pf.name, ())}
        elif self.root_devices:
            found = {i for device in self.root_devices for i in index["address"].get(device, ())}
        elif self.vendor:
            found = set(index["vendor"].get(self.vendor.lower(), ()))
        else:
            return topology.nics
        return [topology.nics[i] for i in sorted(found)]

    def range_on(self, nic: NIC) -> tuple[int, int] | None | bool:
        """False when the policy does not select ``nic``; None for all VFs; else its VF range."""
        if self.vendor and self.vendor.lower() != nic.vendor.lower():
            return False
        if self.device_id and self.device_id.lower() != nic.device_id.lower():
            return False
        if self.root_devices and nic.pci_address not in self.root_devices:
            return False
        if self.pf_names:
            for pf in self.pf_names:
                if pf.name == nic.interface:
                    return None if pf.first is None or pf.last is None else (pf.first, pf.last)
            return False
        return None


@dataclass
class Network:
    doc: Document
    ref: ObjectRef
    resource: str  # full resource name, prefix included; "" when the network brings no device (or an unknown one)
    namespaces: set[str] = field(default_factory=set)  # where the NetworkAttachmentDefinition lives

    @property
    def foreign(self) -> bool:
        """Another operator's network (NVIDIA's HostDeviceNetwork, ...): its device resource is unknown here."""
        return self.ref.kind in FOREIGN_NETWORK_KINDS

    @property
    def rendered(self) -> bool:
        """An operator network (SriovNetwork, SriovIBNetwork, OVSNetwork), not a hand-written NAD."""
        return self.ref.kind in SRIOV_NETWORK_KINDS

    def resource_span(self) -> Span:
        if self.rendered:
            return locate(self.doc.root, ("spec", "resourceName"))
        return locate(self.doc.root, ("metadata", "annotations", RESOURCE_ANNOTATION))


@dataclass
class Attachment:
    """One entry of a pod's networks annotation and the network it resolves to (None: nothing in the run)."""

    label: str  # as written: ``ns/name`` or ``name``
    network: Network | None


def is_placeholder(value: str) -> bool:
    """A template variable left in a value (PolicyGenerator ``$name``, Helm ``{{ }}``, documentation
    ``<name>``): not a real name."""
    return "$" in value or "{{" in value or bool(_DOC_PLACEHOLDER.search(value))


def fill_placeholders(value: str) -> str | None:
    """``value`` with each simple template variable (``$x``, ``${x}``, ``<x>``) replaced by a name, so that
    its structure can still be judged; None when a ``{{ }}`` template may produce any structure."""
    if "{{" in value:
        return None
    return _SIMPLE_VARIABLE.sub("x", value)


def _text(value: Any) -> str | None:
    return str(value) if value is not None else None


def _policy(doc: Document) -> Policy | None:
    spec = get(doc.root, ("spec",))
    if not isinstance(spec, dict) or not isinstance(spec.get("resourceName"), str):
        return None
    nic: dict[str, Any] = spec["nicSelector"] if isinstance(spec.get("nicSelector"), dict) else {}
    pf_names = []
    for index, raw in enumerate(as_list(nic.get("pfNames"))):
        match = _PF_RE.match(str(raw))
        if match:
            first, last = match.group("first"), match.group("last")
            pf_names.append(PFName(match.group("name"), int(first) if first else None,
                                   int(last) if last else None, index, str(raw)))
    num_vfs = spec.get("numVfs")
    priority = spec.get("priority", 0)
    selector: dict[str, Any] = spec["nodeSelector"] if isinstance(spec.get("nodeSelector"), dict) else {}
    name = get(doc.root, ("metadata", "name"))
    return Policy(doc, ObjectRef(doc.api_version, doc.kind, str(name or "<unnamed>"),
                                 _text(get(doc.root, ("metadata", "namespace")))),
                  spec["resourceName"], num_vfs if isinstance(num_vfs, int) else 0,
                  priority if isinstance(priority, int) else 0,
                  {str(k): "" if v is None else str(v) for k, v in selector.items()},
                  str(spec.get("deviceType") or "netdevice"), spec.get("excludeTopology") is True,
                  _text(nic.get("vendor")), _text(nic.get("deviceID")), pf_names,
                  [r for r in as_list(nic.get("rootDevices")) if isinstance(r, str)],
                  spec.get("externallyManaged") is True,
                  isinstance(spec.get("nodeSelector"), dict))


@dataclass
class SriovCatalog:
    policies: list[Policy]
    networks: dict[str, list[Network]]  # network name -> candidates
    prefixes: frozenset[str]  # those the operators of the run's policies and networks give their resources
    rejected: list[Policy] = field(default_factory=list)  # policies the webhook refuses: they create nothing
    # the run's templates (Helm, envsubst, ZTP) by the kinds they write: (file, the name they are sure to give,
    # None when a placeholder writes it); a templated policy may provide a resource, a templated network may be
    # the one a pod attaches
    templated: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)
    _near: dict[tuple[tuple[str, ...], str | None], NearFiles] = field(default_factory=dict)  # ``templated_near``'s
    # ``provided`` and ``floating_resources``, made once: a catalogue is never changed once built, and they were
    # asked again for every pod and network (2% of a run of 20,000 files)
    _sets: dict[str, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)
    derived: dict[str, object] = field(default_factory=dict, repr=False, compare=False)  # what checks work out once
    # ``serving`` and ``namespaces_of``, made once per name (and namespace): thousands of pods attaching a name
    # given to thousands of networks each walked them all
    _serving: dict[tuple[str, str | None], list[Network]] = field(default_factory=dict, repr=False, compare=False)
    _namespaces: dict[str, list[str]] = field(default_factory=dict, repr=False, compare=False)
    _by_name: dict[tuple[str, ...], dict[str | None, list[str]]] = field(default_factory=dict, repr=False,
                                                                         compare=False)

    @property
    def present(self) -> bool:
        return bool(self.policies or self.networks or self.rejected)

    def templated_near(self, kinds: Iterable[str], name: str, file: str, run: Run) -> bool:
        """May a template of the run near ``file`` (``Run.together``: a chart of another cluster's tree says
        nothing here) write an object of ``kinds`` called ``name`` (a resourceName for a policy): one whose name
        a placeholder writes, or one written with that very name? Worked out once per kinds and name, for all
        files at once (thousands of pods and templates made millions of comparisons), from the templates grouped
        by the name they write (thousands of pods each asking for another name walked every template)."""
        kinds = tuple(kinds)
        written = self._templates_by_name(kinds)
        found = [key for key in (None, name) if key in written]
        if not found or run.declared:
            return bool(found)
        for key in found:
            if (kinds, key) not in self._near:
                self._near[(kinds, key)] = NearFiles(written[key])
            if self._near[(kinds, key)].near_any(file):
                return True
        return False

    def _templates_by_name(self, kinds: tuple[str, ...]) -> dict[str | None, list[str]]:
        """The files of the templates of ``kinds`` by the name they write (None: a placeholder writes it)."""
        found = self._by_name.get(kinds)
        if found is None:
            found = self._by_name[kinds] = {}
            for kind in kinds:
                for template, written in self.templated.get(kind, ()):
                    found.setdefault(written, []).append(template)
        return found

    def unchecked_names(self) -> set[tuple[str, Span]]:
        """(file, span) of the resourceNames the webhook's syntax refuses that create a resource all the same:
        no webhook checks them (``accepted_name``). Their schema finding is not reported."""
        return {(p.doc.file, p.span("resourceName")) for p in self.policies
                if not _RESOURCE_NAME_RE.match(p.resource_name)}

    def resources(self) -> set[str]:
        """Every VF resource the run names, provided (by a policy) or merely consumed (by a network)."""
        return {*self.provided(), *(n.resource for nets in self.networks.values() for n in nets if n.resource)}

    def provided(self) -> frozenset[str]:
        """The resources the run's policies create; a network never provides its own resource."""
        found = self._sets.get("provided")
        if found is None:
            found = self._sets["provided"] = frozenset(p.resource for p in self.policies)
        return found

    def aligned_resources(self) -> frozenset[str]:
        """Provided resources whose VFs the device plugin advertises with their NUMA node (no policy of the
        resource sets ``excludeTopology: true``), so a pod requesting one asks for NUMA alignment."""
        return self.provided() - self.floating_resources()

    def floating_resources(self) -> frozenset[str]:
        """Provided resources advertised without topology (``excludeTopology: true``): the device plugin sends
        the Topology Manager no hint for them, so requesting one is no reason to align."""
        found = self._sets.get("floating")
        if found is None:
            found = self._sets["floating"] = frozenset(p.resource for p in self.policies if p.exclude_topology)
        return found

    def network_aligned(self, pod: PodView) -> bool | None:
        """Whether the pod's SR-IOV networks ask for NUMA alignment.

        True: an attached network's resource is provided by a policy of the run without excludeTopology.
        False: the pod attaches networks, and each brings no device or a resource whose policies all set
        ``excludeTopology: true`` (the device plugin sends no hint: the point of the flag).
        None: no evidence either way: no networks, or a network or provider the run does not hold.
        """
        attachments = self.attachments(pod)
        if not attachments:
            return None
        aligned, floating = self.aligned_resources(), self.floating_resources()
        verdicts: list[bool | None] = []
        for attachment in attachments:
            network = attachment.network
            if network is None or network.foreign:
                verdicts.append(None)
            elif not network.resource:
                verdicts.append(False)
            elif network.resource in aligned:
                verdicts.append(True)
            else:
                verdicts.append(False if network.resource in floating else None)
        if True in verdicts:
            return True
        return None if None in verdicts else False

    def vfs(self, topology: TopologyView, labels: dict[str, str] | None,
            exclude: set[str] | None = None) -> list[Device]:
        """The VF devices the pool's NICs expose (``exclude``: resources forced to excludeTopology)."""
        # here, not at the top: only a pool's topology has NICs; a run of workloads alone does not import the
        # alignment core or the topology view (start-up time)
        from numalint.alignment.machine import Device
        from numalint.views.topology import MAX_COUNT

        devices: list[Device] = []
        on: dict[int, list[Policy]] = {}  # NIC (its place in the topology): the policies that may select it
        places = {id(nic): place for place, nic in enumerate(topology.nics)}
        for policy in self.policies:
            if labels is None or policy.selects_node(labels):
                for nic in policy.nics_of(topology):
                    on.setdefault(places[id(nic)], []).append(policy)
        for place, nic in enumerate(topology.nics):
            claims: dict[int, Policy] = {}
            matching = [p for p in on.get(place, ()) if p.range_on(nic) is not False]
            for policy in sorted(matching, key=lambda p: -p.priority):  # the lowest number applies last and wins
                vf_range = policy.range_on(nic)
                count = min(policy.num_vfs, nic.total_vfs or MAX_COUNT, MAX_COUNT)
                first, last = vf_range if isinstance(vf_range, tuple) else (0, count - 1)
                for vf in range(first, min(last, count - 1) + 1):
                    claims[vf] = policy
            for vf, policy in sorted(claims.items()):
                resource = policy.resource
                floating = policy.exclude_topology or nic.numa is None or resource in (exclude or set())
                devices.append(Device(resource, f"{nic.pci_address}-vf{vf}", None if floating else nic.numa))
        return devices

    def attachments(self, pod: PodView) -> list[Attachment]:
        """Each network of the pod's annotation, resolved like Multus: the namespace written in the entry, else
        the pod's own."""
        result = []
        for namespace, name in parse_networks(pod.annotations.get(NETWORKS_ANNOTATION, "")):
            chosen = self.serving(name, namespace or pod.ref.namespace)
            result.append(Attachment(f"{namespace}/{name}" if namespace else name, chosen[0] if chosen else None))
        return result

    def serving(self, name: str, namespace: str | None) -> list[Network]:
        """The networks called ``name`` a pod in ``namespace`` (None: any) can attach, in input order: those for
        every namespace and those for that one."""
        key = (name, namespace)
        if key not in self._serving:
            self._serving[key] = [n for n in self.networks.get(name, [])
                                  if namespace is None or not n.namespaces or namespace in n.namespaces]
        return self._serving[key]

    def namespaces_of(self, name: str) -> list[str]:
        """The namespaces the networks called ``name`` are for, sorted."""
        if name not in self._namespaces:
            self._namespaces[name] = sorted({ns for n in self.networks.get(name, []) for ns in n.namespaces})
        return self._namespaces[name]

    def network_resources(self, pod: PodView) -> tuple[dict[str, int], list[str]]:
        """(resource -> VFs the injector adds, network references that resolve to nothing)."""
        wanted: dict[str, int] = {}
        unknown: list[str] = []
        for attachment in self.attachments(pod):
            if attachment.network is None:
                unknown.append(attachment.label)
            elif attachment.network.resource:
                resource = attachment.network.resource
                wanted[resource] = wanted.get(resource, 0) + 1
        return wanted, unknown


def is_json_form(value: str) -> bool:
    """Multus reads the annotation as JSON when it holds any of ``[``, ``{`` or ``"``."""
    return any(c in value for c in '[{"')


def parse_networks(value: str) -> list[tuple[str | None, str]]:
    """The networks annotation: ``a, ns/b@eth1`` or a JSON list of {"name", "namespace", ...}."""
    value = value.strip()
    if not value:
        return []
    return list(_parse_networks(value))


@lru_cache(maxsize=4096)
def _parse_networks(value: str) -> tuple[tuple[str | None, str], ...]:
    """``parse_networks`` of a stripped, non-empty value, once per value: thousands of workloads of a
    repository repeat a few annotations, and several checks ask about each workload."""
    return tuple(_parse_networks_uncached(value))


def _parse_networks_uncached(value: str) -> list[tuple[str | None, str]]:
    if is_json_form(value):
        try:
            items = gojson.loads(value)
        except TooDeep:
            return []
        except json.JSONDecodeError:
            try:  # what the author meant despite a stray comma (networks-annotation reports the comma)
                items = gojson.loads(_TRAILING_COMMA.sub(r"\1", value))
            except ValueError:
                return []
        if not isinstance(items, list):
            return []
        return [(_text(i.get("namespace")), str(i["name"])) for i in items if isinstance(i, dict) and i.get("name")]
    result = []
    for part in value.split(","):
        part = part.strip().split("@", 1)[0]
        if not part:
            continue
        namespace, _, name = part.rpartition("/")
        result.append((namespace or None, name))
    return result


def networks_problem(value: str) -> str | None:
    """Why Multus cannot parse a networks annotation (multus-cni pkg/k8sclient: parsePodNetworkAnnotation and
    parsePodNetworkObjectName), or None when it can."""
    value = value.strip()
    if not value:
        return None
    if is_json_form(value):
        try:
            items = gojson.loads(value)
        except json.JSONDecodeError as error:
            return f"it is not valid JSON ({error.msg} at character {error.pos + 1})"
        except TooDeep as error:
            return str(error)
        if not isinstance(items, list):
            return "the JSON form must be a list of objects ([{\"name\": ...}]), not a single value"
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                return f"entry {index + 1} of the JSON list is not an object"
            if not isinstance(item.get("name"), str) or not item["name"].strip():
                return f"entry {index + 1} of the JSON list has no \"name\""
        return None
    for index, part in enumerate(value.split(",")):
        item = part.strip()
        if not item:
            return f"entry {index + 1} of the comma list is empty (a stray or trailing comma)"
        if item.count("/") > 1:
            return f'"{item}" has more than one "/" (namespace/name@interface)'
        if item.count("@") > 1:
            return f'"{item}" has more than one "@" (namespace/name@interface)'
        namespace, _, rest = item.rpartition("/")
        name, _, interface = rest.partition("@")
        namespace, name, interface = namespace.strip(), name.strip(), interface.strip()  # Multus trims each
        if not name:
            return f'"{item}" names no network'
        for part in (namespace, name):
            if part and not DNS_LABEL.match(part):
                return (f'"{part}" in "{item}" is not a lower-case DNS-1123 label (a-z, 0-9 and "-", starting and '
                        "ending with a letter or digit)")
        if interface and (len(interface) > 15 or any(c in interface for c in " \t\n\v\f\r/")):
            return f'interface name "{interface}" in "{item}" is longer than 15 characters or holds "/" or a space'
    return None


def unchecked_by_webhook(run: Run, policy: Document) -> bool:
    """Whether the run's SriovOperatorConfig near ``policy`` turns the operator webhook off: nothing then checks
    a policy's resourceName but the device plugin, which accepts "-" too. The operator reads only the one named
    "default" in its own namespace (validateSriovOperatorConfig), where its policies live too."""
    namespace = get(policy.root, ("metadata", "namespace"))
    return run.derived("webhook_off", _WebhookOff).near(run, policy.file, namespace)


class _WebhookOff:
    """The run's SriovOperatorConfigs named "default" that turn the webhook off, by namespace, each group with a
    ``NearFiles`` of its files: asked for each of thousands of policies, it no longer walks every config."""

    def __init__(self, run: Run) -> None:
        self.files: dict[str, list[str]] = {}  # namespace ("" when not written): the configs' files
        self.odd: list[tuple[Any, str]] = []  # a namespace that is not a string (the API server refuses it), file
        for doc in run.of_kind(SRIOV_OPERATOR_CONFIG):
            if get(doc.root, ("spec", "enableOperatorWebhook")) is False and \
                    get(doc.root, ("metadata", "name")) == "default":
                namespace = get(doc.root, ("metadata", "namespace"))
                if not namespace or isinstance(namespace, str):
                    self.files.setdefault(namespace or "", []).append(doc.file)
                else:
                    self.odd.append((namespace, doc.file))
        self._near: dict[str | None, NearFiles] = {}

    def near(self, run: Run, file: str, namespace: Any) -> bool:
        """Whether one of them is in ``namespace`` and together with ``file``; a namespace left unwritten (a
        kustomization or `kubectl -n` sets it when applying) may be any other."""
        if not namespace:
            key: str | None = None
            groups = list(self.files.values()) + [[config for _, config in self.odd]]
        elif isinstance(namespace, str):
            key = namespace
            groups = [self.files[k] for k in dict.fromkeys((namespace, "")) if k in self.files]
        else:  # compared as written, as the same value may be written twice
            files = self.files.get("", []) + [config for written, config in self.odd if written == namespace]
            return bool(files) and (run.declared or NearFiles(files).near_any(file))
        if not any(groups):
            return False
        if run.declared:  # every file of a declared cluster is together
            return True
        if key not in self._near:
            self._near[key] = NearFiles(f for group in groups for f in group)
        return self._near[key].near_any(file)


def accepted_name(run: Run, policy: Policy) -> bool:
    """Whether ``policy``'s resourceName creates a resource: the webhook's syntax, or, where no webhook checks
    it, the device plugin's."""
    if _RESOURCE_NAME_RE.match(policy.resource_name):
        return True
    return bool(_PLUGIN_RESOURCE_NAME_RE.match(policy.resource_name)) and unchecked_by_webhook(run, policy.doc)


# the namespaces the NVIDIA Network Operator installs the SR-IOV operator in (its Helm chart's, older and current),
# whose resource prefix that chart sets to nvidia.com (sriov-network-operator.operator.resourcePrefix)
NVIDIA_OPERATOR_NAMESPACES = frozenset({"nvidia-network-operator", "network-operator"})
NVIDIA_PREFIX = "nvidia.com"


def operator_prefixes(run: Run, configured: str | None) -> Callable[[Document], str]:
    """The prefix each SR-IOV object's resource takes: ``sriovResourcePrefix`` when configured; else that of
    the operator reading the object, which reads policies and networks in its own namespace only: nvidia.com in
    the NVIDIA Network Operator's namespaces, the operator's default in any other. An object without a namespace
    (one kustomize or Helm gives it) takes nvidia.com when every one that has a namespace is in the NVIDIA
    operator's."""
    if configured:
        return lambda doc: configured
    namespaces = {str(namespace) for kind in (SRIOV_POLICY, SRIOV_OPERATOR_CONFIG, *SRIOV_NETWORK_KINDS)
                  for doc in run.of_kind(kind) if (namespace := get(doc.root, ("metadata", "namespace")))}
    unset = NVIDIA_PREFIX if namespaces and namespaces <= NVIDIA_OPERATOR_NAMESPACES else DEFAULT_PREFIX

    def prefix(doc: Document) -> str:
        namespace = get(doc.root, ("metadata", "namespace"))
        if not namespace:
            return unset
        return NVIDIA_PREFIX if str(namespace) in NVIDIA_OPERATOR_NAMESPACES else DEFAULT_PREFIX

    return prefix


def catalog(run: Run, configured: str | None = None) -> SriovCatalog:
    """The run's SR-IOV policies and networks (built once per analysis); ``configured``: the prefix
    ``sriovResourcePrefix`` gives every resource (``operator_prefixes``)."""
    prefix_of = operator_prefixes(run, configured)
    policies: list[Policy] = []
    rejected: list[Policy] = []
    for policy in (p for d in run.of_kind(SRIOV_POLICY) if (p := _policy(d)) is not None):
        policy.prefix = prefix_of(policy.doc)
        (policies if accepted_name(run, policy) else rejected).append(policy)
    networks: dict[str, list[Network]] = {}
    for kind in SRIOV_NETWORK_KINDS:
        for doc in run.of_kind(kind):
            resource = get(doc.root, ("spec", "resourceName"))
            name = get(doc.root, ("metadata", "name"))
            if not name:
                continue
            target = get(doc.root, ("spec", "networkNamespace")) or get(doc.root, ("metadata", "namespace"))
            ref = ObjectRef(doc.api_version, doc.kind, str(name), _text(get(doc.root, ("metadata", "namespace"))))
            full = f"{prefix_of(doc)}/{resource}" if isinstance(resource, str) and resource else ""
            networks.setdefault(str(name), []).append(Network(doc, ref, full, {str(target)} if target else set()))
    for kind in FOREIGN_NETWORK_KINDS:  # attachable by name; what device they bring is not known here
        for doc in run.of_kind(kind):
            name = get(doc.root, ("metadata", "name"))
            if name:
                target = get(doc.root, ("spec", "networkNamespace"))
                ref = ObjectRef(doc.api_version, doc.kind, str(name), None)
                networks.setdefault(str(name), []).append(Network(doc, ref, "", {str(target)} if target else set()))
    for doc in run.of_kind("NetworkAttachmentDefinition"):
        name = get(doc.root, ("metadata", "name"))
        if not name:
            continue
        resource = get(doc.root, ("metadata", "annotations", RESOURCE_ANNOTATION))
        namespace = get(doc.root, ("metadata", "namespace"))
        ref = ObjectRef(doc.api_version, doc.kind, str(name), _text(namespace))
        networks.setdefault(str(name), []).append(Network(doc, ref, str(resource) if resource else "",
                                                          {str(namespace)} if namespace else set()))
    templated: dict[str, list[tuple[str, str | None]]] = {}
    for source in run.sources:
        for kind, name in source.template_kinds:
            templated.setdefault(kind, []).append((source.path, name))
    prefixes = frozenset(prefix_of(doc) for kind in (SRIOV_POLICY, SRIOV_OPERATOR_CONFIG, *SRIOV_NETWORK_KINDS)
                         for doc in run.of_kind(kind)) or frozenset({configured or DEFAULT_PREFIX})
    return SriovCatalog(policies, networks, prefixes, rejected, templated)
