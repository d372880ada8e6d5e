"""Kubelet command-line flags that kubeadm passes beside a KubeletConfiguration of the same file.

A kubeadm configuration file holds the cluster's KubeletConfiguration and, in its InitConfiguration or
JoinConfiguration, ``nodeRegistration.kubeletExtraArgs``: kubeadm writes those into kubeadm-flags.env, the
kubelet's drop-in passes them on its command line, and a flag wins over the configuration file's field
(cmd/kubelet/app/server.go, kubeletConfigFlagPrecedence). So `reserved-cpus: "0-1"` there reserves CPUs for a
KubeletConfiguration that writes none. ``with_flags`` gives the KubeletConfiguration as the kubelet runs it: the
flags numalint models written over its fields, located at the flags.

Only flags a node-side rule reads are modelled; one whose value the kubelet would not parse is left out (the
configuration's field stands) and said (``Refused``: the kubelet exits). When the file holds a JoinConfiguration,
its flags are the ones applied (the nodes that join run the workloads; an InitConfiguration's flags reach the
first node only), else the InitConfiguration's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from numalint.k8s.goparse import GoParseError, atoi, parse_int
from numalint.k8s.kinds import KUBEADM_GROUP, KUBEADM_NODE_KINDS
from numalint.k8s.quantity import try_quantity
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span, YMap, YSeq

Parse = Callable[[str, Span], Any]  # a flag's text and where it is written -> the field's value, None if refused
GO_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
            "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


class Flag(NamedTuple):
    """One modelled flag: the configuration field it sets, its value as the field holds it, where it is written
    (``spans``: every name and value it was read from, a flag given twice included)."""

    field: str
    value: Any
    key_span: Span
    value_span: Span
    spans: tuple[Span, ...]


def _text(value: str, _span: Span) -> Any:
    return value


def _integer(value: str, _span: Span) -> Any:
    """pflag's Int32 flags: strconv.ParseInt(value, 0, 32)."""
    try:
        return parse_int(value, 32)
    except GoParseError:
        return None


def _pairs(value: str, separator: str) -> list[tuple[str, str]] | None:
    """cliflag's MapStringString (``k=v,k2=v2``) and LangleSeparatedMapStringString (``k<v``): items and their keys
    and values trimmed, empty items skipped (an empty value clears the map); None when an item has no separator."""
    pairs = []
    for item in value.split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, rest = item.partition(separator)
        if not sep:
            return None
        pairs.append((key.strip(), rest.strip()))
    return pairs


def _mapping(items: Iterable[tuple[str, Any]], span: Span) -> YMap:
    """A mapping every key and value of which is located at the flag's value."""
    result = YMap()
    result.span = span
    for key, value in items:
        result[key] = value
        result.key_spans[key] = result.value_spans[key] = span
    return result


def _strings(separator: str) -> Parse:
    def parse(value: str, span: Span) -> Any:
        pairs = _pairs(value, separator)
        return None if pairs is None else _mapping(pairs, span)
    return parse


def _booleans(value: str, span: Span) -> Any:
    """cliflag's MapStringBool: ``k=v`` items, each value read by strconv.ParseBool."""
    pairs = _pairs(value, "=")
    if pairs is None or any(v not in GO_BOOLS for _k, v in pairs):
        return None
    return _mapping(((k, GO_BOOLS[v]) for k, v in pairs), span)


def _reserved_memory(value: str, span: Span) -> Any:
    """ReservedMemoryVar (pkg/util/flag): ``0:memory=1Gi,hugepages-1Gi=2Gi;1:memory=2Gi``, read
    without trimming; an empty value clears the list. None for anything it refuses: a part without exactly one
    ``:`` or ``=``, a NUMA node strconv.Atoi refuses, a type other than memory or hugepages-<size>, no quantity."""
    entries = YSeq()
    entries.span = span
    for reservation in value.split(";") if value else ():
        parts = reservation.split(":")
        if len(parts) != 2:
            return None
        limits = [limit.split("=") for limit in parts[1].split(",")]
        if any(len(limit) != 2 or not (limit[0] == "memory" or limit[0].startswith("hugepages-"))
               or try_quantity(limit[1]) is None for limit in limits):
            return None
        try:
            node = atoi(parts[0])
        except GoParseError:
            return None
        entries.append(_mapping((("numaNode", node), ("limits", _mapping(((k, v) for k, v in limits), span))), span))
        entries.item_spans.append(span)
    return entries


def _list(value: str, span: Span) -> Any:
    """pflag's StringSlice (``pods,system-reserved``): items as written, none for an empty value; None for a
    quoted item (read as CSV, which numalint does not)."""
    if '"' in value:
        return None
    items = YSeq()
    items.span = span
    for item in value.split(",") if value else ():
        items.append(item)
        items.item_spans.append(span)
    return items


# flag -> (configuration field, how its value is read)
FLAGS: dict[str, tuple[str, Parse]] = {
    "cpu-manager-policy": ("cpuManagerPolicy", _text),
    "cpu-manager-policy-options": ("cpuManagerPolicyOptions", _strings("=")),
    "topology-manager-policy": ("topologyManagerPolicy", _text),
    "topology-manager-scope": ("topologyManagerScope", _text),
    "topology-manager-policy-options": ("topologyManagerPolicyOptions", _strings("=")),
    "memory-manager-policy": ("memoryManagerPolicy", _text),
    "reserved-memory": ("reservedMemory", _reserved_memory),
    "reserved-cpus": ("reservedSystemCPUs", _text),
    "kube-reserved": ("kubeReserved", _strings("=")),
    "system-reserved": ("systemReserved", _strings("=")),
    "kube-reserved-cgroup": ("kubeReservedCgroup", _text),
    "system-reserved-cgroup": ("systemReservedCgroup", _text),
    "eviction-hard": ("evictionHard", _strings("<")),
    "enforce-node-allocatable": ("enforceNodeAllocatable", _list),
    "feature-gates": ("featureGates", _booleans),
    "max-pods": ("maxPods", _integer),
    "pods-per-core": ("podsPerCore", _integer),
}

# how each flag whose syntax is not the field's is written (a fix names the field's value; this says the form)
FLAG_SYNTAX = {
    "kube-reserved": " (written cpu=<quantity>,memory=<quantity>)",
    "system-reserved": " (written cpu=<quantity>,memory=<quantity>)",
    "reserved-memory": " (written <NUMA node>:memory=<quantity>,hugepages-<size>=<quantity>;<NUMA node>:...)",
    "eviction-hard": " (written memory.available<<quantity>)", "feature-gates": " (written <Gate>=true,<Gate>=false)",
    "cpu-manager-policy-options": " (written <option>=true)",
    "topology-manager-policy-options": " (written <option>=true)",
}


def written_args(arguments: Any) -> list[tuple[str, str, Span, Span]]:
    """(flag, value, key span, value span) of kubeletExtraArgs: a mapping (kubeadm v1beta3 and before) or a list
    of {name, value} (v1beta4)."""
    found = []
    if isinstance(arguments, YMap):
        for name, value in arguments.items():
            if isinstance(name, str) and isinstance(value, (str, int)) and not isinstance(value, bool):
                found.append((name, str(value), arguments.key_spans[name], arguments.value_spans[name]))
    elif isinstance(arguments, YSeq):
        for item in arguments:
            if isinstance(item, YMap) and isinstance(name := item.get("name"), str) and "value" in item:
                value = item["value"]
                if isinstance(value, (str, int)) and not isinstance(value, bool):
                    found.append((name, str(value), item.value_spans["name"], item.value_spans["value"]))
    return found


class Refused(NamedTuple):
    """A modelled flag whose value the kubelet's flag parser refuses: the kubelet exits before it starts."""

    doc: Document
    name: str
    text: str
    span: Span


def kubeadm_flags(documents: Sequence[Document], refused: list[Refused] | None = None) -> list[Flag]:
    """The modelled flags kubeadm gives the kubelet in these documents (one file's), see the module docstring;
    ``refused`` gets those the kubelet would not parse."""
    for kind in KUBEADM_NODE_KINDS:
        chosen = [doc for doc in documents if doc.kind == kind and doc.api_version.startswith(KUBEADM_GROUP)
                  and isinstance(doc.root, YMap)]
        if not chosen:
            continue
        for doc in chosen:
            registration = doc.root.get("nodeRegistration")
            arguments = registration.get("kubeletExtraArgs") if isinstance(registration, YMap) else None
            flags = parsed_flags(doc, written_args(arguments), refused)
            if flags:
                return flags
        return []  # that kind's kubelet (the joining nodes' first): no flag of it is one numalint models
    return []


def parsed_flags(doc: Document, written: list[tuple[str, str, Span, Span]],
                 refused: list[Refused] | None = None) -> list[Flag]:
    """The modelled flags of ``written`` (``written_args``) as the kubelet parses them: a flag given again adds its
    NUMA nodes or map items to the ones before (a value of another shape starts again), else replaces them;
    ``refused`` gets those the kubelet would not parse. Each flag's values are combined once (a list of thousands
    of repeated map flags stays linear)."""
    runs: dict[str, list[tuple[Any, Span, Span]]] = {}  # field -> the values that add up, in order
    for name, text, key_span, value_span in written:
        if name not in FLAGS:
            continue
        field, parse = FLAGS[name]
        value = parse(text, value_span)
        if value is None:
            if refused is not None:
                refused.append(Refused(doc, name, text, value_span))
            continue
        run = runs.get(field)
        if run is not None and any(isinstance(value, kind) and isinstance(run[-1][0], kind) for kind in (YSeq, YMap)):
            run.append((value, key_span, value_span))
        else:
            runs[field] = [(value, key_span, value_span)]
    flags = []
    for field, run in runs.items():
        value, key_span, value_span = run[-1]
        if len(run) > 1:
            value = _joined([v for v, _, _ in run]) if isinstance(value, YSeq) else _merged([v for v, _, _ in run])
        flags.append(Flag(field, value, key_span, value_span, tuple(s for _, k, v in run for s in (k, v))))
    return flags


def _joined(parts: list[YSeq]) -> YSeq:
    joined = YSeq()
    joined.span = parts[0].span
    for part in parts:
        joined.extend(part)
        joined.item_spans.extend(part.item_spans)
    return joined


def _merged(parts: list[YMap]) -> YMap:
    """Each map's items over the ones before, each where it is written."""
    merged = YMap()
    merged.span = parts[-1].span
    for source in parts:
        for key, value in source.items():
            merged[key] = value
            merged.key_spans[key], merged.value_spans[key] = source.key_spans[key], source.value_spans[key]
    return merged


def with_flags(doc: Document, flags: Sequence[Flag]) -> Document:
    """The KubeletConfiguration ``doc`` with ``flags`` written over its fields. A flag replaces the field's value,
    but the feature gates the file sets and the flag does not name stay (kubeletConfigFlagPrecedence adds them
    back)."""
    root = doc.root
    overlay = YMap()
    overlay.span = root.span
    overlay.duplicates, overlay.merged = root.duplicates, root.merged
    fields = {flag.field for flag in flags}
    for key, value in root.items():
        if key in fields:
            continue
        overlay[key] = value
        overlay.key_spans[key], overlay.value_spans[key] = root.key_spans[key], root.value_spans[key]
    for flag in flags:
        value = flag.value
        written = root.get(flag.field)
        if flag.field == "featureGates" and isinstance(written, YMap) and isinstance(value, YMap):
            value = _merged([written, value])
        overlay[flag.field] = value
        overlay.key_spans[flag.field], overlay.value_spans[flag.field] = flag.key_span, flag.value_span
    return Document(doc.file, doc.index, overlay, doc.span, doc.odd_keyed)
