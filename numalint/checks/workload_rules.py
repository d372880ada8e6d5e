"""Workload checks: QoS, integer CPUs and what the API server rejects (pkg/apis/core/validation,
pkg/apis/core/v1/helper/qos)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import replace
from fractions import Fraction
from math import ceil, lcm
from typing import Any

from numalint.analysis import Analysis
from numalint.checks.intent import alignment_intent
from numalint.checks.registry import check
from numalint.findings import MAX_NAMED, UNSAFE, Edit, Fix, Hit
from numalint.k8s.kinds import NETWORKS_ANNOTATION
from numalint.k8s.quantity import format_bytes, format_cpu, format_quantity, try_quantity
from numalint.k8s.versions import POD_LEVEL_RESOURCES_ON
from numalint.reading.locate import Path, get
from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span
from numalint.views.workloads import ContainerView, PodView, crio_tuning, is_extended, is_hugepages


def _static_pool_reason(analysis: Analysis, pod: PodView) -> str | None:
    """A Guaranteed pod placed on a pool whose kubelet runs the static CPU manager: by nodeSelector onto a
    labelled pool, on the only pool of the run when it declares no labels (every node is the pool's: a declared
    NodeTopology of no labels), or on the assumed default node. Guaranteed QoS there is the request for
    exclusive CPUs."""
    if not (pod.node_selector or pod.required_terms) and len(analysis.pools) > 1 and not analysis.pools[0].assumed:
        return None  # of several pools, one that selects no nodes is on none in particular (the loop's answer, at once)
    for pool in analysis.pools_for(pod):
        if pool.profile is None or pool.profile.cpu_manager_policy != "static":
            continue
        if pool.assumed:
            return (f'numalint assumes it runs on "{pool.name}", the only kubelet configuration of the run, which '
                    "uses the static CPU manager; declare pools with a NodeTopology or MachineConfigPool to say "
                    "otherwise")
        if pool.node_labels and (pod.node_selector or pod.required_terms):
            return f'it is scheduled onto pool "{pool.name}", whose kubelet runs the static CPU manager'
        if not pool.node_labels and len(analysis.pools) == 1:
            return f'it runs on pool "{pool.name}" ({pool.why}), whose kubelet runs the static CPU manager'
    return None


def _span(pod: PodView, container: ContainerView, *rest: Any, key: bool = False) -> Span:
    return pod.span(container.path + tuple(rest), key=key)


def _breakers(container: ContainerView) -> list[str]:
    """Why the container keeps its pod from Guaranteed QoS (pkg/apis/core/v1/helper/qos/qos.go ComputePodQOS:
    only quantities above zero count, so a zero limit is no limit)."""
    problems = []
    for resource in ("cpu", "memory"):
        req, lim = container.requests.get(resource), container.limits.get(resource)
        if lim is not None and lim <= 0:
            problems.append(f"{resource} limit {format_quantity(resource, lim)}, which counts as none")
        elif lim is None and req is None:
            problems.append(f"no {resource} request or limit")
        elif lim is None:
            problems.append(f"{resource} request {format_quantity(resource, req or 0)} without a limit")
        elif req != lim:
            problems.append(f"{resource} request {format_quantity(resource, req or 0)} != limit "
                            f"{format_quantity(resource, lim)}")
    return problems


def _guaranteed_fix(container: ContainerView) -> str:
    """What makes the container Guaranteed: requests equal to the limits that are there, limits where there are
    none (equal to the requests, which default to the limits when absent)."""
    unequal, unlimited, bare, zero = [], [], [], []
    for resource in ("cpu", "memory"):
        req, lim = container.requests.get(resource), container.limits.get(resource)
        if lim is not None and lim > 0:
            if req != lim:
                unequal.append(resource)
        elif req is not None and req > 0:
            unlimited.append(resource)
        elif req is not None:  # a written 0 stays 0 under a limit: both must be set, to the same amount
            zero.append(resource)
        else:
            bare.append(resource)

    def some(names: list[str], noun: str, article: str = "a") -> str:
        return f"{' and '.join(names)} {noun}s" if len(names) > 1 else f"{article} {names[0]} {noun}"

    steps = ([f"set {some(unequal, 'request', 'its')} equal to its limit{'s' if len(unequal) > 1 else ''}"] if unequal
             else []) + ([f"add {some(unlimited, 'limit')} equal to its request{'s' if len(unlimited) > 1 else ''}"]
                         if unlimited else []) + (
        [f"add {some(bare, 'limit')} (the request{'s default to them' if len(bare) > 1 else ' defaults to it'})"]
        if bare else []) + (
        [f"set {some(zero, 'request', 'its')} and limit{'s' if len(zero) > 1 else ''} to the same amount above 0"]
        if zero else [])
    return f"{container.label}: {'; '.join(steps)}"


@check("not-guaranteed")
def not_guaranteed(analysis: Analysis) -> Iterator[Hit]:
    for pod in analysis.pods:
        if pod.qos() == "Guaranteed" or not pod.containers:
            continue
        intent = alignment_intent(analysis, pod)
        if intent is None:
            continue
        reason = intent.reason
        severity = None if intent.certain else "info"
        if pod.burstable_by is not None and pod.pod_resources is None:
            yield Hit(f"{pod.ref.label()} asks for NUMA alignment ({reason}) but its pods are not Guaranteed QoS: "
                      f"{pod.burstable_by} makes them Burstable, so the kubelet gives them no exclusive CPUs and no "
                      "pinned memory, whatever the template asks", pod.file, pod.anchor(), pod.ref,
                      Fix("give the training operator an init container template whose requests equal its limits "
                          "(the YAML file its --pytorch-init-container-template-file flag names), or run the job "
                          "without a Master role: the operator adds the container only beside one"), severity)
        # exclusive CPUs also need a whole number of them: where no container would have one once Guaranteed, the
        # fix says so (else following it brings fractional-cpu); beside one that would, the others may be sidecars
        whole = any(cpu is not None and cpu.denominator == 1 for cpu in map(_cpu_once_guaranteed, pod.containers))
        for container in pod.containers:
            problems = _breakers(container)
            if not problems:
                continue
            where = ("resources",) if pod.locator.has(container.path + ("resources",)) else ("name",)
            fix = _guaranteed_fix(container)
            cpu = _cpu_once_guaranteed(container)
            if not whole and cpu is None:
                fix += "; make the cpu a whole number: only whole CPUs are exclusive"
            elif not whole and cpu is not None and cpu.denominator != 1:
                fix += f"; make its cpu a whole number: {format_quantity('cpu', cpu)} gets no exclusive CPUs"
            yield Hit(f"{pod.ref.label()} asks for NUMA alignment ({reason}) but is not Guaranteed QoS: "
                f"{container.label} has {'; '.join(problems)}, so the kubelet gives it no exclusive CPUs and no "
                "pinned memory",
                pod.file, _span(pod, container, *where, key=True), pod.ref,
                Fix(fix), severity)


def _cpu_once_guaranteed(container: ContainerView) -> Fraction | None:
    """The cpu a container has once its fix makes it Guaranteed: its limit, else its request (None: to choose)."""
    for amount in (container.limits.get("cpu"), container.requests.get("cpu")):
        if amount is not None and amount > 0:
            return amount
    return None


@check("fractional-cpu")
def fractional_cpu(analysis: Analysis) -> Iterator[Hit]:
    for pod in analysis.pods:
        if pod.qos() != "Guaranteed" or pod.pod_resources is not None:
            continue
        intent = alignment_intent(analysis, pod)
        # a DaemonSet asking for nothing else (no device, no network) is an infrastructure agent, which a fraction
        # of a CPU in the shared pool suits: the pool it runs on is no request for exclusive CPUs
        agent = pod.ref.kind == "DaemonSet" and not any(is_extended(r) for r in pod.resource_names()) \
            and not pod.annotations.get(NETWORKS_ANNOTATION)
        # CRI-O's tuning annotations ask exclusive CPUs of the pod's main containers: a fractional sidecar beside
        # one with whole CPUs is meant for the shared pool; with no whole CPUs at all the annotations tune nothing
        whole = any(c.limits.get("cpu") is not None and c.limits["cpu"].denominator == 1 for c in pod.containers)
        asked = intent.reason if intent is not None and intent.certain and not (intent.tuning and whole) else None
        reason = asked if asked is not None else None if agent else _static_pool_reason(analysis, pod)
        if reason is None:
            continue
        # the network resources injector adds the pod's VFs to its first container
        first = next((c for c in pod.containers if not c.init), None) if analysis.sriov.network_resources(pod)[0] \
            else None
        own = {id(c) for c in pod.containers if c is first or _own_alignment_resources(c)}
        # the containers the pod is for: those asking for what is aligned, and those with whole CPUs
        main = [c.limits.get("cpu", Fraction(0)) for c in pod.containers
                if id(c) in own or c.limits.get("cpu") is not None and c.limits["cpu"].denominator == 1]
        for container in pod.containers:
            cpu = container.limits.get("cpu")
            if cpu is None or cpu.denominator == 1:
                continue
            if id(container) not in own and any(size >= cpu for size in main):
                continue  # a sidecar (a log shipper beside the trainer): the shared pool is what it is for
            step = _whole_cores(analysis, pod)
            nearest = max(1, int(cpu / step + Fraction(1, 2))) * step  # half up: 2500m -> 3 (-> 2 in cores of 2)
            edits = [Edit(_span(pod, container, "resources", kind, "cpu"), str(nearest), string=True)
                     for kind in ("requests", "limits") if pod.locator.has(container.path + ("resources", kind, "cpu"))]
            yield Hit(f"{container.label} is Guaranteed with cpu {format_quantity('cpu', cpu)}: not a whole number, so "
                      f"it loses its exclusive CPUs: it runs in the shared CPU pool, its CPUs aligned with nothing "
                      f"({reason}). {_still_aligned(analysis, pod, container)}",
                      pod.file, _span(pod, container, "resources", "limits", "cpu"), pod.ref,
                      Fix(f'use a whole number of CPUs: cpu: "{nearest}" in requests and limits', edits, UNSAFE))


def _own_alignment_resources(container: ContainerView) -> bool:
    """Whether the container itself asks for something the Topology Manager aligns with CPUs: a device or an
    extended resource, or hugepages. A fractional container asking for neither (nor given the pod's VFs), beside
    one at least as large that does or that has whole CPUs, is the pod's sidecar: its CPUs are meant to be shared,
    whatever the pod asks for; one larger than every such container is the pod's main container."""
    return any(amount and (is_extended(r) or is_hugepages(r)) for r, amount in container.limits.items())


def _whole_cores(analysis: Analysis, pod: PodView) -> int:
    """The CPU count a rounded request must be a multiple of on the pod's pools: the threads of a core where the
    static policy runs with full-pcpus-only, which rejects any other count (SMTAlignmentError,
    pkg/kubelet/cm/cpumanager/policy_static.go validateSMTAlignment); 1 elsewhere."""
    step = 1
    pools = analysis.pools_for(pod)
    for pool_run in analysis.pool_runs:
        if any(pool_run.pool is p for p in pools):
            for node in pool_run.nodes[:1]:
                if node.cpu is not None and node.cpu.options.full_pcpus_only:
                    step = lcm(step, max(1, node.topo.cpus_per_core))
    return step


def _still_aligned(analysis: Analysis, pod: PodView, container: ContainerView) -> str:
    """What a Guaranteed container with a fractional cpu still gets: the CPU manager's guaranteedCPUs is 0
    (pkg/kubelet/cm/cpumanager/policy_static.go), but the Static memory manager pins memory and hugepages of
    every Guaranteed pod (pkg/kubelet/cm/memorymanager/policy_static.go Allocate) and the device manager
    still sends hints (pkg/kubelet/cm/devicemanager/topology_hints.go)."""
    memory = [r for r in ("memory", *sorted(r for r in container.limits if is_hugepages(r))) if container.limits.get(r)]
    devices = sorted(r for r in container.limits if is_extended(r) and container.limits[r])
    policies = {p.name: p.profile.memory_policy for p in analysis.pools_for(pod) if p.profile is not None}
    what = " and ".join(memory) if memory else "memory"
    verb = "are" if len(memory) > 1 else "is"
    if policies and all(v == "Static" for v in policies.values()):
        kept = (f"Its {what} {verb} still pinned to the NUMA nodes the Topology "
                f"Manager picks, by the Static memory manager of pool {', '.join(map(repr, sorted(policies)))}")
    elif policies and all(v != "Static" for v in policies.values()):
        kept = (f"Pool {', '.join(map(repr, sorted(policies)))} runs no Static memory manager, so its {what} "
                f"{verb} not pinned either")
    else:
        kept = f"Its {what} {verb} still pinned where the node runs the Static memory manager"
    if devices:
        kept += f"; its devices ({', '.join(devices)}) are still aligned by the Topology Manager"
    return kept + "."


POD_LEVEL_MANAGERS_SINCE = (1, 36)  # PodLevelResourceManagers (kubelet), off by default


@check("pod-level-resources")
def pod_level_resources(analysis: Analysis) -> Iterator[Hit]:
    """Pods with spec.resources get no exclusive CPUs and no pinned memory: the static policies' Allocate
    returns early for them (pkg/kubelet/cm/cpumanager/policy_static.go, pkg/kubelet/cm/memorymanager/
    policy_static.go: IsPodLevelResourcesSet), unless PodLevelResourceManagers is on (1.36+)."""
    version = analysis.version
    for pod in analysis.pods:
        if pod.pod_resources is None and pod.dropped_pod_resources is None:
            continue
        intent = alignment_intent(analysis, pod)
        if intent is None:
            continue
        span = pod.span(pod.spec_path + ("resources",), key=True)
        release = f"{version[0]}.{version[1]}"
        if version < POD_LEVEL_RESOURCES_ON:
            yield Hit(f"{pod.ref.label()} sets pod-level resources (spec.resources) and asks for NUMA alignment "
                      f"({intent.reason}): at Kubernetes {release} the PodLevelResources feature gate is off by "
                      "default (beta and on from 1.34) and the API server drops spec.resources, so the containers' "
                      "own resources decide its QoS class and alignment; once the gate is on, the static CPU and "
                      "memory managers skip the pod",
                      pod.file, span, pod.ref, Fix("remove spec.resources"), "info")
            continue
        gates = [p.profile.feature_gates.get("PodLevelResourceManagers") for p in analysis.pools_for(pod)
                 if p.profile is not None]
        if version >= POD_LEVEL_MANAGERS_SINCE and gates and all(g is True for g in gates):
            continue
        devices = sorted(r for r in pod.resource_names() if is_extended(r))
        kept = f"; its devices ({', '.join(devices)}) are still aligned" if devices else ""
        later = (" or enable the PodLevelResourceManagers feature gate on the pool's kubelet"
                 if version >= POD_LEVEL_MANAGERS_SINCE else "")
        yield Hit(f"{pod.ref.label()} asks for NUMA alignment ({intent.reason}) but sets pod-level resources "
                  "(spec.resources): the static CPU manager and the Static memory manager skip such pods (\"CPU "
                  "Manager allocation skipped, pod is using pod-level resources which are not supported by the "
                  "static CPU manager policy\"), so no container gets exclusive CPUs or pinned memory and "
                  f"hugepages{kept}. Its QoS class ({pod.qos()}) comes from spec.resources alone",
                  pod.file, span, pod.ref,
                  Fix("remove spec.resources and give each container cpu and memory requests equal to its limits "
                      f"(whole CPUs){later}"), None if intent.certain else "info")


@check("invalid-resources")
def invalid_resources(analysis: Analysis) -> Iterator[Hit]:
    for pod in analysis.pods:
        for container in pod.containers:
            if pod.declared_intent is None:  # a pod as written (a VM's pod is KubeVirt's rendering)
                yield from _above_limit(pod, container)
            names = set(container.requests) | set(container.limits)
            if not any(is_hugepages(r) or is_extended(r) for r in names):
                continue  # the API server's checks below are about hugepages and extended resources only
            hugepages = sorted(r for r in names if is_hugepages(r))
            if hugepages and "cpu" not in container.requests and "memory" not in container.requests:
                yield Hit(f"{container.label} requests {', '.join(hugepages)} without a cpu or memory request; the API "
                    "server rejects it (HugePages require cpu or memory)",
                    pod.file, _span(pod, container, "resources", key=True), pod.ref,
                    Fix("add cpu and memory requests (equal to limits for alignment)"))
            for resource in sorted(names):
                if not (is_hugepages(resource) or is_extended(resource)):
                    continue
                req, lim = container.requests.get(resource), container.limits.get(resource)
                if lim is None:
                    yield Hit(f"{container.label} requests {resource} without a limit; the API server rejects it "
                        f"(Limit must be set for non overcommitable resources)",
                        pod.file, _span(pod, container, "resources", "requests", resource, key=True), pod.ref,
                        Fix(f"set limits.{resource} to {format_quantity(resource, req or Fraction(0))}"))
                elif req != lim:
                    yield Hit(
                        f"{container.label}: {resource} request {_fmt(resource, req)} != limit {_fmt(resource, lim)}; "
                        f"the API server rejects it ({resource} cannot be overcommitted: request must equal limit)",
                        pod.file, _span(pod, container, "resources", "requests", resource), pod.ref,
                        Fix(f"set requests.{resource} equal to limits.{resource} ({_fmt(resource, lim)})",
                            [Edit(_span(pod, container, "resources", "requests", resource), _fmt(resource, lim),
                                  string=True)],
                            UNSAFE))
            yield from _quantity_values(pod, container)


def _above_limit(pod: PodView, container: ContainerView) -> Iterator[Hit]:
    """ValidateResourceRequirements (pkg/apis/core/validation): a cpu or memory request above its limit is refused
    ("must be less than or equal to cpu limit of 1800m")."""
    for resource in ("cpu", "memory"):
        req, lim = container.requests.get(resource), container.limits.get(resource)
        if req is not None and lim is not None and req > lim:
            yield Hit(f"{container.label}: {resource} request {_fmt(resource, req)} is above its limit "
                      f"{_fmt(resource, lim)}; the API server rejects it (must be less than or equal to {resource} "
                      f"limit of {_fmt(resource, lim)})",
                      pod.file, _span(pod, container, "resources", "requests", resource), pod.ref,
                      Fix(f"lower requests.{resource} to at most the limit, or raise limits.{resource}"))


def _go_path(path: tuple[object, ...]) -> str:
    """A field.Path as the API server prints it: spec.template.spec.containers[0]."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else f".{step}" if out else str(step)
    return out


def _go_quantity(resource: str, amount: Fraction) -> str:
    """resource.Quantity.String() of a value as users write it: binary units for hugepages (BinarySI),
    milli-units for devices (DecimalSI)."""
    return format_bytes(amount) if is_hugepages(resource) else format_cpu(amount)


def _quantity_values(pod: PodView, container: ContainerView) -> Iterator[Hit]:
    """ValidateResourceRequirements (pkg/apis/core/validation/validation.go) on every written requests and
    limits entry: ValidateResourceQuantityValue ("must be an integer" for extended resources, which
    IsIntegerResourceName covers) and validateResourceQuantityHugePageValue (a whole number of pages:
    IsHugePageResourceValueDivisible compares Quantity.Value(), rounded up, with the page size)."""
    for kind, values in (("limits", container.limits), ("requests", container.requests)):
        for resource, amount in sorted(values.items()):
            if not pod.locator.has(container.path + ("resources", kind, resource)):
                continue  # defaulted from the limit: reported there
            problem = None
            if is_extended(resource) and amount.denominator != 1:
                problem = "must be an integer"
                fix = f"use a whole number of {resource} ({max(1, ceil(amount))})"
            elif is_hugepages(resource):
                page = try_quantity(resource[len("hugepages-"):])
                if page is None or page <= 0 or page.denominator != 1 or ceil(amount) % page != 0:
                    problem = f"{_go_quantity(resource, amount)} is not positive integer multiple of {resource}"
                    pages = ceil(amount / page) if page else 0
                    fix = (f"use a whole number of {format_bytes(page)} pages, e.g. {format_bytes(pages * page)}"
                           if page and page.denominator == 1 and page > 0 else f"{resource} is not a page size")
            if problem is None:
                continue
            field = f"{_go_path(container.path)}.resources.{kind}[{resource}]"
            shown = _go_quantity(resource, amount)
            yield Hit(f'{container.label}: the API server rejects {resource} {shown} ({field}: Invalid value: '
                      f'"{shown}": {problem})',
                      pod.file, _span(pod, container, "resources", kind, resource), pod.ref, Fix(fix))


# what each of CRI-O's CPU tuning annotations turns off on the exclusive CPUs
_TUNED = {"cpu-load-balancing.crio.io": "the scheduler's load balancing", "cpu-quota.crio.io": "the CFS quota",
          "irq-load-balancing.crio.io": "device interrupts", "cpu-c-states.crio.io": "their idle states (C-states)",
          "cpu-freq-governor.crio.io": "the node's frequency governor"}


@check("crio-annotations-ignored")
def crio_annotations_ignored(analysis: Analysis) -> Iterator[Hit]:
    """CRI-O's CPU tuning annotations without a runtime class: CRI-O acts on them only for a runtime handler that
    allows them, which on OpenShift is the Node Tuning Operator's high-performance one, reached through the
    RuntimeClass performance-<profile> it makes for each PerformanceProfile. Judged only when the run holds a
    PerformanceProfile: elsewhere CRI-O's default handler may allow them (a node tuned by hand), or CRI-O may not
    run at all. A KubeVirt VM is left out: KubeVirt gives its pod the runtime class of its own configuration."""
    yield from _tuning_on_the_controller(analysis)
    profiles = analysis.performance_profiles()
    if not profiles:
        return
    nearby: dict[str, list[str]] = {}  # a directory's pods: the runtime classes of the profiles beside them
    for pod in analysis.pods:
        if pod.runtime_class or pod.declared_intent is not None:
            continue
        # the pod's, and those for one container (``cpu-quota.crio.io/<container>``), in the order written
        asked = sorted(crio_tuning(pod.annotations), key=lambda key: pod.annotation_span(key, name=True)[:2])
        if not asked:
            continue
        names = _runtime_classes(analysis, pod, profiles, nearby)
        if not names:
            continue
        field = _go_path(pod.spec_path + ("runtimeClassName",))
        named = names if len(names) <= MAX_NAMED + 1 else [*names[:MAX_NAMED], f"one of {len(names) - MAX_NAMED} more"]
        fix = (f"set {field}: {names[0]}" if len(names) == 1 else
               f"set {field} to the runtime class of its nodes' PerformanceProfile: {', '.join(named[:-1])} or "
               f"{named[-1]}")
        written = ", ".join(f'{key}: "{pod.annotations[key]}"' for key in asked)
        yield Hit(f"{pod.ref.label()} sets {written} but no runtimeClassName: CRI-O acts on these annotations only "
                  "in the runtime class the Node Tuning Operator makes for a PerformanceProfile "
                  f"(performance-<profile name>), so they are ignored and its CPUs keep {_kept(asked)}",
                  pod.file, pod.annotation_span(asked[0], name=True), pod.ref, Fix(fix),
                  key=field)  # the field missing: settled on a kustomize base whose every overlay patches it in


def _kept(keys: Iterable[str]) -> str:
    """What the CPUs keep that CRI-O's annotations ``keys`` would have turned off, in words."""
    effects = list(dict.fromkeys(_TUNED[key.split("/")[0]] for key in keys))
    return effects[0] if len(effects) == 1 else f"{', '.join(effects[:-1])} and {effects[-1]}"


def _tuning_on_the_controller(analysis: Analysis) -> Iterator[Hit]:
    """CRI-O's tuning annotations on a controller's own metadata (a Deployment's, a Job's): the controller gives
    its pods the template's annotations only, so CRI-O never sees them, whatever the runtime class. Said once per
    object (a training job's roles are one object)."""
    said: set[tuple[str, Span]] = set()
    for pod in analysis.pods:
        for metadata, keys in pod.misplaced_tuning:
            span = pod.span(metadata + ("annotations", keys[0]), key=True)
            if (pod.file, span) in said:
                continue
            said.add((pod.file, span))
            yield _tuning_misplaced(pod, metadata, keys, span)


def _tuning_misplaced(pod: PodView, metadata: Path, keys: tuple[str, ...], span: Span) -> Hit:
    """The finding on CRI-O annotations ``keys`` of a controller's ``metadata`` that never reach its pods."""
    written = ", ".join(keys)
    template = _go_path(pod.spec_path[:-1] + ("metadata", "annotations"))
    where = "its own metadata" if metadata == ("metadata",) else _go_path(metadata)
    # a training job's roles each have their template: the annotations go to each role that wants them
    templates, into = (f"its pod templates' annotations ({template}, ...)", f"the pod template of each role "
                       f"that wants them ({template}, ...)") if pod.ref.part else (template, template)
    whole = replace(pod.ref, part=None).label()  # the object, not one of its roles
    return Hit(f"{whole} sets {written} on {where}, not on its pod template: a {pod.ref.kind} "
               f"passes only {templates} to its pods, so CRI-O never sees them and the pods' CPUs keep "
               f"{_kept(keys)}", pod.file, span, pod.ref, Fix(f"move {written} to {into}"))


def _runtime_classes(analysis: Analysis, pod: PodView, profiles: list[Document],
                     nearby: dict[str, list[str]]) -> list[str]:
    """The runtime classes of the PerformanceProfiles whose nodes the pod may run on: those of the pools its node
    selection picks; for a pod that says nothing of where it runs, those of the profiles beside it (``Run.together``),
    worked out once per directory in ``nearby`` (thousands of pods each tried every profile). None for a pod
    scheduled onto nodes no profile tunes (no high-performance handler runs there, and another profile's runtime
    class would move the pod), or far from every profile (another cluster's tree)."""
    if pod.node_selector or pod.required_terms:  # where it runs: the profiles of the pools it selects, if any
        return _class_names([pool.profile.rendered_from for pool in analysis.pools_for(pod)
                             if pool.profile is not None and pool.profile.rendered_from is not None])
    # anywhere in its cluster (the pools of every tree of the run would take it)
    directory = os.path.dirname(pod.file)
    if directory not in nearby:
        nearby[directory] = _class_names([d for d in profiles if analysis.run.together(pod.file, d.file)])
    return nearby[directory]


def _class_names(profiles: list[Document]) -> list[str]:
    """The runtime classes the Node Tuning Operator makes for ``profiles``, sorted."""
    if not profiles:
        return []
    names = {name for doc in profiles if isinstance(name := get(doc.root, ("metadata", "name")), str) and name}
    return [f"performance-{name}" for name in sorted(names)] or ["performance-<profile name>"]


def _fmt(resource: str, amount: Fraction | None) -> str:
    if amount is None:
        return "unset"
    if is_extended(resource) and amount.denominator == 1:
        return str(int(amount))
    return format_quantity(resource, amount)

