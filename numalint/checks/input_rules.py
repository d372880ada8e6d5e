"""Per-document input checks run while a file is read: schema and unknown fields."""

from __future__ import annotations

import re
from collections.abc import Container, Iterable, Iterator
from functools import cache, lru_cache
from typing import Any

from numalint import catalogue as registry
from numalint.checks.registry import UNCOUNTED
from numalint.findings import SAFE, Edit, Finding, Fix, ObjectRef
from numalint.k8s.kinds import (
    KUBELET_CONFIG,
    KUBELET_CONFIGURATION,
    NODE_TOPOLOGY,
    PERFORMANCE_PROFILE,
    SCHEMA_FILES,
)
from numalint.reading.locate import Path, get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import COMPLEX_KEY, YMap, YSeq
from numalint.views.schema import conforms, kubelet_field_names, load_schema, validate_document

# kind -> (schema whose properties are the known fields, where they start, who drops an unknown one);
# spec.kubeletConfig has no properties in its schema and keeps the kubelet's own check below
UNKNOWN_FIELDS: dict[str, tuple[str, Path, str]] = {
    PERFORMANCE_PROFILE: ("performanceprofile.schema.json", ("spec",), "the API server prunes it"),
    KUBELET_CONFIG: ("kubeletconfig.schema.json", ("spec",), "the API server prunes it"),
    NODE_TOPOLOGY: ("nodetopology.schema.json", ("spec",), "numalint ignores it"),
}
# kind -> the mappings whose keys must be fields the kind's JSON schema (schemas/) declares at that path.
# A custom resource's unknown field is pruned by the API server (kubectl only warns), so it never applies.
UNKNOWN_FIELD_PATHS: dict[str, tuple[Path, ...]] = {
    "SriovNetworkNodePolicy": (("spec",), ("spec", "nicSelector")),
    "SriovNetwork": (("spec",),),
    "SriovIBNetwork": (("spec",),),
    "OVSNetwork": (("spec",),),
}
# (kind, path) -> (selector fields of which one must survive pruning, who rejects the object when none does,
# what a pruned selector field costs when others remain)
REQUIRED_ONE_OF: dict[tuple[str, Path], tuple[tuple[str, ...], str, str]] = {
    ("SriovNetworkNodePolicy", ("spec", "nicSelector")): (
        ("vendor", "deviceID", "pfNames", "rootDevices", "netFilter"), "the operator webhook rejects the policy",
        "the policy then configures every NIC the rest of spec.nicSelector matches"),
}


# a schema complaint about a template variable ("$count" is not an integer): the file is a template
# (ZTP PolicyGenerator source CRs), not the object; the value is filled in later
_PLACEHOLDER_VALUE = re.compile(r': "\$\{?[A-Za-z_][A-Za-z0-9_]*\}?" is not ')

MAX_PER_RULE = 100  # findings of one rule in one file before a summary finding
# what a proof reads of a file (its fixes change which findings fall within the first hundred, so it compares
# them all); past it the proof gives up rather than hold a megabyte of duplicate keys as findings
MAX_PER_RULE_PROVEN = 10_000
_SUMMARY = "finding(s) in this file (only the first"


def is_summary(finding: Finding) -> bool:
    """Whether ``finding`` is FindingCap's "… and N more" summary, not a finding of its own."""
    return finding.message.startswith("… and ") and _SUMMARY in finding.message


class FindingCap:
    """Keeps at most MAX_PER_RULE findings of each rule (for one file), then one "… and N more" summary.

    A megabyte of duplicate keys must not become a gigabyte of findings and a hundred megabytes of JSON.
    """

    def __init__(self, limit: int = MAX_PER_RULE) -> None:
        self.limit = limit
        self.kept: list[Finding] = []
        self.counts: dict[str, int] = {}
        self.first_dropped: dict[str, Finding] = {}
        self.uncounted: set[str] = set()  # rules whose findings were not all computed

    def add(self, findings: Iterable[Finding], stop: bool = False) -> None:
        """Take findings; with ``stop`` (a lazy stream of one rule) stop computing once the rule is over the cap."""
        for finding in findings:
            count = self.counts.get(finding.rule, 0) + 1
            self.counts[finding.rule] = count
            if count <= self.limit:
                self.kept.append(finding)
                continue
            if count == self.limit + 1:
                self.first_dropped[finding.rule] = finding
            if stop:
                self.uncounted.add(finding.rule)
                return

    def result(self) -> list[Finding]:
        summaries = []
        for rule, first in self.first_dropped.items():
            more = "more" if rule in self.uncounted or rule in UNCOUNTED else f"{self.counts[rule] - self.limit} more"
            summaries.append(registry.finding(rule, f"… and {more} {rule} {_SUMMARY} {self.limit} are shown)",
                                              first.file, first.span, first.obj))
        return self.kept + summaries


def cap_per_file(findings: Iterable[Finding]) -> list[Finding]:
    """FindingCap applied to each file of a stream of findings (the run-wide checks)."""
    caps: dict[str, FindingCap] = {}
    for finding in findings:
        cap = caps.get(finding.file)
        if cap is None:
            cap = caps[finding.file] = FindingCap()
        cap.add((finding,))
    return [f for cap in caps.values() for f in cap.result()]


def input_findings(doc: Document, text: str | None = None) -> list[Iterator[Finding]]:
    """Schema and unknown-field findings of one document: one lazy stream per rule, for FindingCap.add(stop=True).

    A schema complaint about a template variable (``"$count" is not an integer``) is dropped: the file is
    a template (ZTP PolicyGenerator source CRs), the value is filled in later."""
    ref = object_ref(doc)
    streams = [validate_document(doc, text)]
    if doc.kind == KUBELET_CONFIGURATION:
        streams.append(_unknown_kubelet_fields(doc, doc.root, (), case_insensitive=False))
    elif doc.kind == KUBELET_CONFIG:
        embedded = get(doc.root, ("spec", "kubeletConfig"))
        if isinstance(embedded, YMap):
            streams.append(_unknown_kubelet_fields(doc, embedded, ("spec", "kubeletConfig"), case_insensitive=True))
    if doc.kind in UNKNOWN_FIELDS:
        schema, base, who = UNKNOWN_FIELDS[doc.kind]
        loaded = load_schema(schema)
        unknown = _unknown_fields(doc, get(doc.root, base), _at(loaded, base), base, who)
        keys = {f.message.split('"')[1] for f in unknown}  # the schema's "additional properties" error says less
        streams[0] = (f for f in streams[0] if not (f.rule == "schema" and "unexpected field" in f.message
                                                      and any(f'"{k}"' in f.message for k in keys)))
        streams.append(iter(unknown))
    streams.append(iter(unknown_fields(doc)))
    if doc.odd_keyed:
        streams.append(_odd_keys(doc))
    streams[0] = (f for f in streams[0] if not _PLACEHOLDER_VALUE.search(f.message))
    return [_with_ref(stream, ref) for stream in streams]


def _with_ref(findings: Iterable[Finding], ref: ObjectRef) -> Iterator[Finding]:
    for finding in findings:
        finding.obj = ref
        yield finding


def _at(schema: dict[str, Any], path: Path) -> dict[str, Any]:
    for step in path:
        schema = schema.get("properties", {}).get(step, {})
    return schema


def _unknown_fields(doc: Document, node: Any, schema: dict[str, Any], path: Path, who: str) -> list[Finding]:
    """Keys the schema's ``properties`` do not name (maps with ``additionalProperties`` schemas are free)."""
    if isinstance(node, YSeq):
        items = schema.get("items", {})
        return [f for i, item in enumerate(node) for f in _unknown_fields(doc, item, items, path + (i,), who)]
    if not isinstance(node, YMap):
        return []
    schema = next((s for s in schema.get("anyOf", []) if "properties" in s), schema)
    known = schema.get("properties")
    if not known:
        return []
    findings = []
    free = isinstance(schema.get("additionalProperties"), dict)
    # a suggestion (difflib) only for the keys a report can show, as for a kubelet configuration: past MAX_PER_RULE
    # findings of a rule in a file the rest become one summary (a PerformanceProfile of 8,000 unknown keys aimed at
    # one field took 12 s, each hint naming all of them)
    suggested = [k for k in node if isinstance(k, str) and k not in known and not free][:MAX_PER_RULE]
    contested = _contested(suggested, frozenset(known), node)
    shown = set(suggested)
    for key, value in node.items():
        if key in known:
            findings.extend(_unknown_fields(doc, value, known[key], path + (key,), who))
            continue
        if not isinstance(key, str) or free:
            continue
        span = node.key_spans[key]
        suggestion = closest_field(key, frozenset(known)) if key in shown else None
        where = ".".join(str(p) for p in path)
        message = f'unknown field "{key}" in {where}: {who}, so this setting never applies'
        fix = None
        if suggestion in contested:
            message += f'; did you mean "{suggestion}"?'
            fix, suggestion = _contested_hint(suggestion, contested[suggestion]), None
        if suggestion and suggestion not in node:
            message += f'; did you mean "{suggestion}"?'
            fix = Fix(f'rename "{key}" to "{suggestion}"', [Edit(span, suggestion, key, string=True)], SAFE)
        elif fix is None and key in shown and (home := _one_level_down(known, key)) is not None:
            message += f"; it is a field of {where}.{home} ({where}.{home}.{key})"
            fix = Fix(f"move it into {where}.{home}")
        findings.append(registry.finding("unknown-field", message, doc.file, span, fix=fix))
    return findings


def _one_level_down(known: dict[str, Any], key: str) -> str | None:
    """The one field among ``known`` whose own fields include ``key`` (a PerformanceProfile's userLevelNetworking
    belongs in spec.net), or None."""
    homes = [name for name, schema in known.items() if isinstance(schema, dict)
             and key in next((s for s in schema.get("anyOf", []) if "properties" in s), schema).get("properties", {})]
    return homes[0] if len(homes) == 1 else None


def _contested(keys: list[str], known: frozenset[str], present: Container[str],
               case_insensitive: bool = False) -> dict[str, list[str]]:
    """Known fields that two or more unknown keys of one mapping would be renamed to (target -> those keys):
    renaming both makes a duplicate key and loses a value, so neither is renamed automatically. Targets
    already present are left out (no rename goes onto them at all)."""
    wanted: dict[str, list[str]] = {}
    for key in keys:
        target = closest_field(key, known)
        if target is not None and (target.lower() if case_insensitive else target) not in present:
            wanted.setdefault(target, []).append(key)
    return {target: keys for target, keys in wanted.items() if len(keys) > 1}


def _contested_hint(target: str, keys: list[str]) -> Fix:
    """A display-only hint for an unknown key that shares its rename target with another key."""
    named = " and ".join(f'"{k}"' for k in keys)
    return Fix(f'keep one of {named} as "{target}" and remove the other -- not offered automatically: renaming '
               f'both would write "{target}" twice, a duplicate key whose other value is lost; decide which to keep')


def object_ref(doc: Document) -> ObjectRef:
    """The object a document defines, as findings name it."""
    name = get(doc.root, ("metadata", "name"))
    namespace = get(doc.root, ("metadata", "namespace"))
    return ObjectRef(doc.api_version, doc.kind, str(name) if name is not None else "<unnamed>",
                     str(namespace) if namespace is not None else None)


@lru_cache(maxsize=4096)
def closest_field(key: str, known: frozenset[str]) -> str | None:
    """The known field a misspelt key most likely meant (remembered: a file of many configurations, or the
    proofs that read a document again, ask the same question many times, and difflib's answer is costly)."""
    lowered = {k.lower(): k for k in known}
    if key.lower() in lowered:
        return lowered[key.lower()]
    import difflib  # here, not at the top: only a misspelt key needs it (start-up time)

    match = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
    if match:
        return match[0]
    match = difflib.get_close_matches(key.lower(), sorted(lowered), n=1, cutoff=0.75)
    return lowered[match[0]] if match else None


def closest(value: str, candidates: Iterable[str], n: int = 3) -> list[str]:
    """The ``n`` candidates most like ``value`` (case-insensitive similarity, ties by name): what a "did you
    mean" offers instead of the whole list."""
    import difflib  # here, not at the top: only a misspelt value needs it (start-up time)

    target = value.lower()
    scored = sorted(candidates, key=lambda c: (-difflib.SequenceMatcher(None, target, c.lower()).ratio(), c))
    return scored[:n]


class NearResources:
    """The names of one collection close enough to a resource to be what was meant (a misspelling); compared
    without a prefix, which makes every name of one prefix look alike. A name that differs only in its numbers
    is a sibling, not a misspelling: port3 for port4, ens1f0 for ens1f1 (another port of the NIC). Names alike
    but for their prefix and case (nvidia.com/gpu, amd.com/gpu) are one candidate, and each is given, in order (a
    set's order picked one of them, changing from one run to the next). Made once for a collection asked about
    many resources (``near_names``: not every pair compared)."""

    def __init__(self, names: Iterable[str]) -> None:
        from numalint.checks.near_names import NearNames  # here: only an unprovided resource needs it

        self.by_bare: dict[str, list[str]] = {}
        for name in sorted(set(names)):
            self.by_bare.setdefault(_bare(name), []).append(name)
        self.index = NearNames(list(self.by_bare))

    def near(self, resource: str, most: int | None = 3, capped: bool = False) -> list[str]:
        """The names of at most ``most`` candidates (None: all), the closest first; ``capped``: for a suggestion,
        none among too many look-alikes (``NearNames.CAP``)."""
        wanted = _bare(resource)
        shape, numbers = _numbers(wanted)
        near = [bare for bare in self.index.close(wanted, capped=capped)
                if _numbers(bare)[0] != shape or _numbers(bare)[1] == numbers]
        return [name for bare in near[:most] for name in self.by_bare[bare]]


@lru_cache(maxsize=1 << 14)
def _bare(name: str) -> str:
    """A resource name without its prefix, in lower case (remembered: every name is compared with many)."""
    return name.rsplit("/", 1)[-1].lower()


@lru_cache(maxsize=1 << 14)
def _numbers(name: str) -> tuple[str, tuple[str, ...]]:
    """``name`` with each run of digits as 0, and those runs: two names of one shape and other numbers are
    siblings."""
    return re.sub(r"\d+", "0", name), tuple(re.findall(r"\d+", name))


def use_one_of(resource: str, names: Iterable[str] | NearResources) -> str | None:
    """``use "a" or "b"``: the ``names`` close enough to ``resource`` to be what was meant (``NearResources``);
    None when none is."""
    near = (names if isinstance(names, NearResources) else NearResources(names)).near(resource, capped=True)
    return did_you_mean(resource, near).replace("did you mean", "use", 1).rstrip("?") if near else None


def did_you_mean(value: str, candidates: Iterable[str], n: int = 3) -> str:
    """``did you mean "a", "b" or "c"?`` (the closest ``n``; all of them when there are no more)."""
    names = [f'"{c}"' for c in closest(value, candidates, n)]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return f"did you mean {listed}?"


@cache
def _lowered(names: frozenset[str]) -> frozenset[str]:
    return frozenset(k.lower() for k in names)


def _unknown_kubelet_fields(doc: Document, config: YMap, base: Path, case_insensitive: bool) -> Iterator[Finding]:
    """Unknown and duplicate keys, generated lazily so that a cap bounds the memory they take."""
    known = kubelet_field_names()
    lowered = _lowered(known)
    who = "the machine-config operator drops it" if case_insensitive else "the kubelet ignores it"
    present = {k.lower() for k in config if isinstance(k, str)} if case_insensitive else config
    # a suggestion (difflib, ~0.7 ms a key) only for the keys a report can show: past MAX_PER_RULE findings of a
    # rule in a file the rest become one summary (a configuration of thousands of unknown keys took seconds)
    suggested = [k for k in config if isinstance(k, str) and k not in known
                 and not (case_insensitive and k.lower() in lowered)][:MAX_PER_RULE]
    contested = _contested(suggested, known, present, case_insensitive)
    shown = set(suggested)
    for key in config:
        if not isinstance(key, str) or key in known or key == COMPLEX_KEY:  # the last: a yaml-syntax error
            continue
        if case_insensitive and key.lower() in lowered:
            continue
        span = config.key_spans[key]
        suggestion = closest_field(key, known) if key in shown else None
        message = f'unknown field "{key}": {who}, so this setting never applies'
        fix = None
        if base == ("spec", "kubeletConfig") and key in _kubelet_config_spec_fields():
            written = isinstance(get(doc.root, ("spec",)), YMap) and key in doc.root["spec"]
            message += f"; it is a field of the KubeletConfig itself (spec.{key}), not of the kubelet configuration"
            yield registry.finding("unknown-field", message, doc.file, span, fix=Fix(
                f"remove it: spec.{key} is already written" if written else f"move it up to spec.{key}"))
            continue
        if suggestion in contested:
            message += f'; did you mean "{suggestion}"?'
            fix, suggestion = _contested_hint(suggestion, contested[suggestion]), None
        # never rename onto a field that is already there (for the operator, in any case)
        if suggestion and (suggestion.lower() if case_insensitive else suggestion) not in present:
            message += f'; did you mean "{suggestion}"?'
            fix = Fix(f'rename "{key}" to "{suggestion}"', [Edit(span, suggestion, key, string=True)], SAFE)
        yield registry.finding("unknown-field", message, doc.file, span, fix=fix)
    for key, span in config.duplicates:
        last = config.key_spans.get(key)  # none when a merge patch's null removed the key (kind's patches)
        kept = f"(line {last.line})" if last is not None else "(a null, which removes the field)"
        yield registry.finding("unknown-field", f'duplicate field "{key}": the kubelet keeps only the last one',
                      doc.file, span, fix=Fix(f'remove the earlier "{key}" entries and keep the last {kept}: the '
                                              "kubelet runs with it; removing it would bring back what the earlier "
                                              "ones say"))


@cache
def _kubelet_config_spec_fields() -> frozenset[str]:
    """The fields of a KubeletConfig's spec besides kubeletConfig (autoSizingReserved, logLevel, ...): written
    inside spec.kubeletConfig by mistake, they are dropped there and not applied where they belong."""
    fields = _at(load_schema(UNKNOWN_FIELDS[KUBELET_CONFIG][0]), ("spec",)).get("properties", {})
    return frozenset(fields) - {"kubeletConfig"}


def _odd_keys(doc: Document) -> Iterator[Finding]:
    """A key JSON cannot hold (a mapping or list as a key, a null key): sigs.k8s.io/yaml's conversion to JSON
    refuses the document, and with it kubectl, the API server and the kubelet. A key written twice in one
    mapping of an object (the kubelet's own configurations are judged above, with what the kubelet does):
    go-yaml, and so kubectl, Argo CD and Flux, keep the last value without a word, and what the first one held
    (a whole list of containers) is gone."""
    kubelet = doc.root if doc.kind == KUBELET_CONFIGURATION else (
        get(doc.root, ("spec", "kubeletConfig")) if doc.kind == KUBELET_CONFIG else None)
    for mapping in doc.odd_keyed:
        for key in (k for k in mapping if k is None or k == COMPLEX_KEY):
            written = "null" if key is None else "a mapping or a list"
            yield registry.finding("yaml-syntax", f"a mapping key that is {written} cannot be converted to JSON: "
                                   "kubectl, the API server and the kubelet refuse the document", doc.file,
                                   mapping.key_spans[key])
        if mapping is kubelet:
            continue
        for key, span in mapping.duplicates:
            yield registry.finding("unknown-field", f'duplicate field "{key}": only its last value is kept, and what '
                                   "the first one held never applies", doc.file, span,
                                   fix=Fix(f'merge the "{key}" entries into one (the last one\'s value is the one read '
                                           "now)"))


def _schema_at(schema: dict[str, Any], path: Path) -> dict[str, Any] | None:
    node: Any = schema
    for step in path:
        node = node.get("properties", {}).get(step) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def unknown_fields(doc: Document) -> list[Finding]:
    """Keys of ``UNKNOWN_FIELD_PATHS`` mappings that the kind's schema does not declare, with the closest
    declared field (a safe rename when the value fits that field's type)."""
    findings: list[Finding] = []
    schema_file = SCHEMA_FILES.get(doc.kind)
    if schema_file is None:
        return findings
    schema = load_schema(schema_file)
    for path in UNKNOWN_FIELD_PATHS.get(doc.kind, ()):
        node = get(doc.root, path)
        declared = _schema_at(schema, path)
        if not isinstance(node, YMap) or declared is None or "properties" not in declared:
            continue
        properties: dict[str, Any] = declared["properties"]
        known = frozenset(properties)
        unknown = [k for k in node if isinstance(k, str) and k not in known]
        if not unknown:
            continue
        required, rejecter, widened = REQUIRED_ONE_OF.get((doc.kind, path), ((), "", ""))
        emptied = bool(required) and not any(k in node for k in required)
        where = ".".join(path)
        contested = _contested(unknown, known, node)
        for key in unknown:
            span = node.key_spans[key]
            message = (f'unknown field "{where}.{key}": the API server prunes fields the {doc.kind} schema does not '
                       "declare (kubectl only warns), so this setting never applies")
            if emptied:
                message += f"; {where} is then left without any of {', '.join(required)}, and {rejecter}"
            suggestion = closest_field(key, known)
            if not emptied and suggestion in required:
                message += f"; {widened}"
            fix = None
            if suggestion in contested:
                message += f'; did you mean "{suggestion}"?'
                fix, suggestion = _contested_hint(suggestion, contested[suggestion]), None
            if suggestion and suggestion not in node:
                message += f'; did you mean "{suggestion}"?'
                if conforms(node[key], properties[suggestion], schema):
                    fix = Fix(f'rename "{key}" to "{suggestion}"', [Edit(span, suggestion, key, string=True)], SAFE)
                else:
                    fix = Fix(f'rename "{key}" to "{suggestion}" and give it the value that field takes')
            findings.append(registry.finding("unknown-field", message, doc.file, span, fix=fix,
                                             severity="error" if emptied else None))
    return findings
