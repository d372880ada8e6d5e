"""OpenShift PerformanceProfile rendered into the kubelet settings the Node Tuning Operator produces.

Follows the Node Tuning Operator
(pkg/performanceprofile/controller/performanceprofile/components/kubeletconfig/kubeletconfig.go):
static CPU manager with the
profile's reserved CPUs, the topology policy from ``numa.topologyPolicy`` (best-effort by default),
the Static memory manager with all reserved memory on NUMA node 0 for restricted and
single-numa-node, and full-pcpus-only for single-numa-node. The result is a KubeletConfig
``performance-<name>`` whose every value points back at the profile field it came from, so findings
land on the profile.
"""

from __future__ import annotations

import json
from typing import Any

from numalint import catalogue as registry
from numalint.alignment.machine import Machine
from numalint.findings import Finding, ObjectRef
from numalint.k8s import gojson
from numalint.k8s.cpuset import CPUSetError, format_cpuset, parse_cpuset
from numalint.k8s.gojson import HugeInt, TooDeep
from numalint.k8s.kinds import KUBELET_SNIPPET
from numalint.k8s.quantity import format_bytes, try_quantity
from numalint.reading.locate import get, locate
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span, YamlError, YMap, YSeq, load_all
from numalint.views.embedded import EmbeddedDocument, FileText, block_documents, located, unfinished
from numalint.views.kubelet import KubeletProfile, kubelet_profile
from numalint.views.schema import GO_INT_BITS, KUBELET_SCHEMA, kubelet_field_names, load_schema, validator

EVICTION_DEFAULTS = {"memory.available": "100Mi", "nodefs.available": "10%", "imagefs.available": "15%",
                     "nodefs.inodesFree": "5%"}


def _map(span: Span) -> YMap:
    result = YMap()
    result.span = span
    return result


def _put(target: YMap, key: str, value: Any, span: Span) -> None:
    target[key] = value
    target.key_spans[key] = span
    target.value_spans[key] = span


def _child(target: YMap, key: str, span: Span) -> YMap:
    """The mapping under ``key`` (from the snippet), or a new empty one."""
    value = target.get(key)
    return value if isinstance(value, YMap) else _map(span)


def _cpus(text: Any) -> frozenset[int]:
    if not isinstance(text, str) or not text:
        return frozenset()
    try:
        return parse_cpuset(text)
    except CPUSetError:
        return frozenset()


TUNING_KEY = "tuning"  # hypershift-operator/controllers/nodepool: tuningConfigKey


def embedded_profiles(doc: Document, text: FileText | None, skipped: list[Finding] | None = None) -> list[Document]:
    """PerformanceProfiles inside a ConfigMap's ``data.tuning``, as HyperShift NodePools take them
    (``spec.tuningConfig`` names such ConfigMaps; the key may hold a Tuned or a PerformanceProfile).
    Only a literal block scalar (``tuning: |``) is read (``views.embedded.block_documents``); not in a file that
    breaks lines elsewhere than at LF or CRLF (a lone CR, NEL): ``skipped`` is told."""
    if doc.kind != "ConfigMap" or text is None:
        return []
    data = doc.root.get("data")
    value = data.get(TUNING_KEY) if isinstance(data, YMap) else None
    if not isinstance(value, str) or "PerformanceProfile" not in value:
        return []
    assert isinstance(data, YMap)
    start = data.value_spans[TUNING_KEY]
    name, namespace = get(doc.root, ("metadata", "name")), get(doc.root, ("metadata", "namespace"))
    ref = ObjectRef(doc.api_version, doc.kind, "<unnamed>" if name is None else str(name),
                    None if namespace is None else str(namespace))
    if text.broken:
        if skipped is not None:
            skipped.append(registry.finding(
                "not-lintable", "the PerformanceProfile in data.tuning is not checked: the file breaks lines at a "
                "lone CR or NEL (U+0085), so positions inside the block cannot be told; use LF or CRLF line ends",
                doc.file, start, ref))
        return []
    parsed = block_documents(text.lines, start, data.key_spans[TUNING_KEY].col, value)
    if not parsed:
        if skipped is not None and _carries_profile(value):
            skipped.append(registry.finding(
                "not-lintable", "the PerformanceProfile in data.tuning is not checked: numalint locates only a "
                "literal block scalar (tuning: |) that parses as YAML", doc.file, start, ref))
        return []
    name = f"ConfigMap {get(doc.root, ('metadata', 'namespace')) or 'default'}/{get(doc.root, ('metadata', 'name'))}"
    return [EmbeddedDocument(doc.file, doc.index, root, span, carrier=name) for root, span in parsed
            if isinstance(root, YMap) and root.get("kind") == "PerformanceProfile"
            and str(root.get("apiVersion", "")).startswith("performance.openshift.io/")]


def _carries_profile(value: str) -> bool:
    """Whether text numalint cannot locate holds a PerformanceProfile (a Tuned, or plain data, does not)."""
    try:
        roots = load_all(value)
    except YamlError:
        return False
    return any(isinstance(root, YMap) and root.get("kind") == "PerformanceProfile"
               and str(root.get("apiVersion", "")).startswith("performance.openshift.io/") for root, _ in roots)


def nosmt(doc: Document) -> bool:
    """``nosmt`` (or ``nosmt=force``) in spec.additionalKernelArgs: the kernel brings up only the first
    thread of each core."""
    args = get(doc.root, ("spec", "additionalKernelArgs"))
    return isinstance(args, list) and any(isinstance(a, str) and a.split("=", 1)[0] == "nosmt" for a in args)


def offline_cpus(profile: KubeletProfile | None, machine: Machine) -> frozenset[int]:
    """CPUs of ``machine`` a PerformanceProfile keeps offline: spec.cpu.offlined (the Node Tuning Operator's
    MachineConfig sets them offline at boot, components/machineconfig/machineconfig.go) and, with the
    ``nosmt`` kernel argument, every SMT sibling but the first thread of its core."""
    doc = profile.rendered_from if profile is not None else None
    if doc is None:
        return frozenset()
    offline = set(_cpus(get(doc.root, ("spec", "cpu", "offlined"))) & machine.cpus.keys())
    if nosmt(doc):
        offline.update(c.id for c in machine.cpus.values() if c.id != c.core)
    return frozenset(offline)


def online_machine(machine: Machine, profile: KubeletProfile | None) -> Machine:
    """``machine`` as the kubelet sees it once the profile's offline CPUs are down."""
    offline = offline_cpus(profile, machine)
    if not offline:
        return machine
    return Machine(machine.numa_nodes, {i: c for i, c in machine.cpus.items() if i not in offline}, machine.devices)


def _snippet(doc: Document) -> dict[str, Any]:
    """The ``kubeletconfig.experimental`` annotation's JSON object (empty when absent or not an object)."""
    text = get(doc.root, KUBELET_SNIPPET)
    if not isinstance(text, str):
        return {}
    try:
        loaded = _without_nulls(gojson.loads(text))  # a null leaves the field as NTO has it
    except (ValueError, RecursionError):  # not JSON, or nested too deep: unmarshal_error says which
        return {}
    return loaded if isinstance(loaded, dict) else {}


def unmarshal_error(doc: Document) -> str | None:
    """Why the Node Tuning Operator's ``json.Unmarshal`` of the annotation into a KubeletConfiguration fails
    (components/kubeletconfig/kubeletconfig.go New); None when it does not or there is no annotation. Go
    matches field names without regard to case, ignores unknown fields, and refuses a value of another JSON
    type, a quantity or a duration it cannot parse."""
    text = get(doc.root, KUBELET_SNIPPET)
    if not isinstance(text, str):
        return None
    try:
        loaded = gojson.loads(text, parse_constant=_not_json, parse_float=_GoFloat)
    except json.JSONDecodeError as err:
        return f"is not JSON ({err.msg} at character {err.pos})"
    except TooDeep:
        # Go reads up to 10,000 levels: a list is refused whole; an object deeper than numalint reads holds a
        # value of the wrong type or one the operator ignores (an unknown field), and numalint cannot tell which,
        # so it claims nothing (its settings are left out of the rendered configuration)
        return "is a JSON array, not an object" if text.lstrip().startswith("[") else None
    except ValueError as err:  # NaN, Infinity: Python reads them, Go does not
        return f"is not JSON ({err})"
    try:
        loaded = _without_nulls(loaded)
    except RecursionError:  # JSON read, but nested too deep to walk: as above
        return "is a JSON array, not an object" if isinstance(loaded, list) else None
    if loaded is None:
        return None  # json.Unmarshal of null changes nothing
    if not isinstance(loaded, dict):
        kind = {str: "string", list: "array", bool: "boolean"}.get(type(loaded), "number")
        return f"is a JSON {kind}, not an object"
    names = {name.lower(): name for name in kubelet_field_names()}
    fields = {names.get(str(key).lower(), key): value for key, value in loaded.items()}
    properties = load_schema(KUBELET_SCHEMA)["properties"]
    for key, value in fields.items():  # Go's integers take no fraction or exponent: 1e2 is no int32
        if isinstance(value, _GoFloat) and properties.get(key, {}).get("type") == "integer":
            return f"holds {key} = {value.text}, which a KubeletConfiguration cannot take"
    for error in validator(KUBELET_SCHEMA).iter_errors(fields):
        described = str(error.schema.get("description", "")) if isinstance(error.schema, dict) else ""
        if error.validator in ("type", "anyOf", "format") or (error.validator == "pattern"
                                                             and described.startswith("Go duration")) or (
                error.validator in ("minimum", "maximum") and error.validator_value in GO_INT_BITS):
            where = ".".join(str(part) for part in error.absolute_path)
            shown = error.instance.text if isinstance(error.instance, HugeInt) else json.dumps(error.instance)
            return f"holds {where} = {shown}, which a KubeletConfiguration cannot take"
    return None


class _GoFloat(float):
    """A JSON number written with a fraction or an exponent, as written (Go decodes no such number into an int)."""

    text: str

    def __new__(cls, text: str) -> _GoFloat:
        number = super().__new__(cls, text)
        number.text = text
        return number


def _not_json(word: str) -> Any:
    raise ValueError(f"{word} is not a JSON value")


def _without_nulls(value: Any) -> Any:
    """``value`` without its null members: json.Unmarshal leaves a field it finds null as it was."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):  # a null item decodes to the item type's zero value
        return [_without_nulls(v) for v in value if v is not None]
    return value


def unrenderable(doc: Document, snippet: dict[str, Any] | None = None) -> tuple[str, str] | None:
    """Why the Node Tuning Operator cannot render the profile's KubeletConfig at all, and what to do (the profile
    goes Degraded and no kubelet setting changes): the annotation does not unmarshal into a KubeletConfiguration
    (``unmarshal_error``); or, under restricted or single-numa-node without reservedMemory of its own, it adds
    kubeReserved, systemReserved and evictionHard memory.available into one quantity
    (components/kubeletconfig/kubeletconfig.go addStringToQuantity), and a value that resource.ParseQuantity
    refuses (a percentage) stops it. ``snippet``: the annotation, when the caller has read it already."""
    wrong = unmarshal_error(doc)
    if wrong is not None:
        return (f"the kubeletconfig.experimental annotation {wrong}: the Node Tuning Operator cannot unmarshal it "
                "into a KubeletConfiguration and renders no kubelet configuration (the profile is Degraded)",
                "write the annotation as a JSON object of KubeletConfiguration fields with values of their types "
                '(strings quoted: {"cpuManagerPolicyOptions": {"full-pcpus-only": "true"}})')
    policy = get(doc.root, ("spec", "numa", "topologyPolicy"))
    snippet = _snippet(doc) if snippet is None else snippet
    if policy not in ("restricted", "single-numa-node") or "reservedMemory" in snippet:
        return None
    for field, key in (("kubeReserved", "memory"), ("systemReserved", "memory"), ("evictionHard", "memory.available")):
        values = snippet.get(field)
        value = values.get(key) if isinstance(values, dict) else None
        if isinstance(value, str) and try_quantity(value) is None:
            return (f'{field} {key} "{value}" in the kubeletconfig.experimental annotation is not a quantity: with '
                    f"topologyPolicy {policy} the Node Tuning Operator adds it into reservedMemory, fails, and "
                    "renders no kubelet configuration (the profile is Degraded)",
                    "write the threshold as a quantity (e.g. 1Gi), or list reservedMemory in the annotation")
    return None


def render(doc: Document) -> KubeletProfile | None:
    """The kubelet settings of a PerformanceProfile; None for a template or a patch (``unfinished``), or a profile
    the operator cannot render (``unrenderable``)."""
    root = doc.root
    spec = get(root, ("spec",))
    if not isinstance(spec, dict) or unfinished(spec) or unfinished(get(root, ("metadata", "name"))):
        return None
    snippet = _snippet(doc)
    if unrenderable(doc, snippet) is not None:
        return None
    name = str(get(root, ("metadata", "name")) or "<unnamed>")
    here = locate(root, ("spec",), key=True)

    def at(*path: Any) -> Span:
        return locate(root, path)

    config = _map(here)
    for key, value in snippet.items():
        _put(config, key, located(value, at(*KUBELET_SNIPPET)), at(*KUBELET_SNIPPET))
    _put(config, "cpuManagerPolicy", "static", at("spec", "cpu"))
    _put(config, "cpuManagerReconcilePeriod", "5s", at("spec", "cpu"))
    policy = get(spec, ("numa", "topologyPolicy"))
    policy_span = at("spec", "numa", "topologyPolicy") if policy else at("spec", "cpu")
    policy = policy if isinstance(policy, str) else "best-effort"
    _put(config, "topologyManagerPolicy", policy, policy_span)
    eviction = _child(config, "evictionHard", here)
    for signal, value in EVICTION_DEFAULTS.items():
        if signal not in eviction:
            _put(eviction, signal, value, here)
    _put(config, "evictionHard", eviction, here)
    for field in ("kubeReserved", "systemReserved"):
        reserved = _child(config, field, here)
        if "memory" not in reserved:
            _put(reserved, "memory", "500Mi", here)
        _put(config, field, reserved, here)
    cpus = _cpus(get(spec, ("cpu", "reserved"))) | _cpus(get(spec, ("cpu", "ovsDpdk")))
    if get(spec, ("workloadHints", "mixedCpus")) is True:
        cpus |= _cpus(get(spec, ("cpu", "shared")))
    reserved_text = format_cpuset(cpus) if cpus else get(spec, ("cpu", "reserved"))
    _put(config, "reservedSystemCPUs", reserved_text if isinstance(reserved_text, str) else "",
         at("spec", "cpu", "reserved"))
    if policy in ("restricted", "single-numa-node"):
        _put(config, "memoryManagerPolicy", "Static", policy_span)
        if "reservedMemory" not in config:
            total = sum((try_quantity(_child(config, f, here).get("memory")) or 0
                         for f in ("kubeReserved", "systemReserved")), 0)
            total += try_quantity(eviction.get("memory.available")) or 0
            entry = _map(here)
            _put(entry, "numaNode", 0, here)
            limits = _map(here)
            _put(limits, "memory", format_bytes(total), here)
            _put(entry, "limits", limits, here)
            items = YSeq()
            items.span = here
            items.append(entry)
            items.item_spans.append(here)
            _put(config, "reservedMemory", items, here)
    if policy == "single-numa-node":
        options = _child(config, "cpuManagerPolicyOptions", policy_span)
        if "full-pcpus-only" not in options:
            _put(options, "full-pcpus-only", "true", policy_span)
        _put(config, "cpuManagerPolicyOptions", options, policy_span)
    wrapper = _map(doc.span)
    _put(wrapper, "apiVersion", "machineconfiguration.openshift.io/v1", at("apiVersion"))
    _put(wrapper, "kind", "KubeletConfig", at("kind"))
    meta = _map(here)
    _put(meta, "name", f"performance-{name}", at("metadata", "name"))
    _put(wrapper, "metadata", meta, at("metadata", "name"))
    kc_spec = _map(here)
    _put(kc_spec, "machineConfigPoolSelector", _pool_selector(spec, here), here)
    _put(kc_spec, "kubeletConfig", config, here)
    _put(wrapper, "spec", kc_spec, here)
    profile = kubelet_profile(Document(doc.file, doc.index, wrapper, doc.span))
    if profile is None:
        return None
    profile.ref = ObjectRef(doc.api_version, doc.kind, name)
    profile.rendered_from = doc
    node_selector = get(spec, ("nodeSelector",))
    profile.node_selector = {str(k): "" if v is None else str(v) for k, v in node_selector.items()} \
        if isinstance(node_selector, dict) else None
    return profile


def _pool_selector(spec: dict[str, Any], span: Span) -> YMap:
    """machineConfigPoolSelector, or the default machineconfiguration.openshift.io/role: <role>."""
    selector = _map(span)
    labels = _map(span)
    given = spec.get("machineConfigPoolSelector")
    if isinstance(given, dict) and given:
        for key, value in given.items():
            _put(labels, str(key), "" if value is None else str(value), span)
    else:
        node_selector: dict[str, Any] = spec["nodeSelector"] if isinstance(spec.get("nodeSelector"), dict) else {}
        for key in node_selector:
            role = str(key).rsplit("/", 1)[-1]
            _put(labels, "machineconfiguration.openshift.io/role", role, span)
            break
    _put(selector, "matchLabels", labels, span)
    return selector


