"""Workload checks: QoS, integer CPUs and what the API server rejects (pkg/apis/core/validation,
pkg/apis/core/v1/helper/qos)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from numalint.analysis import Analysis
from numalint.checks.registry import check
from numalint.findings import UNSAFE, Edit, Fix, Hit
from numalint.k8s.quantity import format_quantity
from numalint.reading.yamlpos import Span
from numalint.views.workloads import ContainerView, PodView, is_extended, is_hugepages

NETWORKS_ANNOTATION = "k8s.v1.cni.cncf.io/networks"


def alignment_reason(analysis: Analysis, pod: PodView) -> str | None:
    """Why this workload asks for NUMA alignment, or None when it does not."""
    devices = sorted(r for r in pod.resource_names() if is_extended(r) or is_hugepages(r))
    if devices:
        return f"it requests {', '.join(devices)}"
    if pod.annotations.get(NETWORKS_ANNOTATION) and analysis.sriov.network_aligned(pod) is not False:
        return "it attaches SR-IOV networks"  # not when each network's VFs come without topology (excludeTopology)
    if pod.node_selector or pod.required_terms:
        for pool in analysis.pools_for(pod):
            if pool.profile is not None and pool.profile.cpu_manager_policy == "static" and pool.node_labels:
                return f'it is scheduled onto pool "{pool.name}", whose kubelet runs the static CPU manager'
    return None


def _span(pod: PodView, container: ContainerView, *rest: Any, key: bool = False) -> Span:
    return pod.span(container.path + tuple(rest), key=key)


def _breakers(container: ContainerView) -> list[str]:
    problems = []
    for resource in ("cpu", "memory"):
        req, lim = container.requests.get(resource), container.limits.get(resource)
        if lim is None and req is None:
            problems.append(f"no {resource} request or limit")
        elif lim is None:
            problems.append(f"{resource} request {format_quantity(resource, req or 0)} without a limit")
        elif req != lim:
            problems.append(f"{resource} request {format_quantity(resource, req or 0)} != limit "
                            f"{format_quantity(resource, lim)}")
    return problems


@check("not-guaranteed")
def not_guaranteed(analysis: Analysis) -> Iterator[Hit]:
    for pod in analysis.pods:
        if pod.qos() == "Guaranteed" or not pod.containers:
            continue
        reason = alignment_reason(analysis, pod)
        if reason is None:
            continue
        for container in pod.containers:
            problems = _breakers(container)
            if not problems:
                continue
            where = ("resources",) if pod.locator.has(container.path + ("resources",)) else ("name",)
            yield Hit(f"{pod.ref.label()} asks for NUMA alignment ({reason}) but is not Guaranteed QoS: "
                f"{container.label} has {'; '.join(problems)}, so the kubelet gives it no exclusive CPUs and no "
                "pinned memory",
                pod.file, _span(pod, container, *where, key=True), pod.ref,
                Fix(f"set {container.label}'s cpu and memory requests equal to its limits (integer cpu)"))


def _default_node_reason(analysis: Analysis, pod: PodView) -> str | None:
    """A Guaranteed pod on the assumed default node that runs the static CPU manager."""
    for pool in analysis.pools_for(pod):
        if pool.assumed and pool.profile is not None and pool.profile.cpu_manager_policy == "static":
            return (f'numalint assumes it runs on "{pool.name}", the only kubelet configuration of the run, which uses '
                    "the static CPU manager; declare pools with a NodeTopology or MachineConfigPool to say otherwise")
    return None


@check("fractional-cpu")
def fractional_cpu(analysis: Analysis) -> Iterator[Hit]:
    for pod in analysis.pods:
        if pod.qos() != "Guaranteed" or pod.pod_resources is not None:
            continue
        reason = alignment_reason(analysis, pod) or _default_node_reason(analysis, pod)
        if reason is None:
            continue
        for container in pod.containers:
            cpu = container.limits.get("cpu")
            if cpu is None or cpu.denominator == 1:
                continue
            nearest = max(1, int(cpu + Fraction(1, 2)))  # half up: 2500m -> 3
            edits = [Edit(_span(pod, container, "resources", kind, "cpu"), f'"{nearest}"')
                     for kind in ("requests", "limits") if pod.locator.has(container.path + ("resources", kind, "cpu"))]
            yield Hit(f"{container.label} is Guaranteed with cpu {format_quantity('cpu', cpu)}: not a whole number, so "
                f"it runs in the shared CPU pool with no exclusive CPUs and no NUMA alignment ({reason})",
                pod.file, _span(pod, container, "resources", "limits", "cpu"), pod.ref,
                Fix(f'use a whole number of CPUs: cpu: "{nearest}" in requests and limits', edits, UNSAFE))


@check("invalid-resources")
def invalid_resources(analysis: Analysis) -> Iterator[Hit]:
    for pod in analysis.pods:
        for container in pod.containers:
            names = set(container.requests) | set(container.limits)
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
                            [Edit(_span(pod, container, "resources", "requests", resource), _plain(resource, lim))],
                            UNSAFE))


def _fmt(resource: str, amount: Fraction | None) -> str:
    if amount is None:
        return "unset"
    if is_extended(resource) and amount.denominator == 1:
        return str(int(amount))
    return format_quantity(resource, amount)


def _plain(resource: str, amount: Fraction) -> str:
    text = _fmt(resource, amount)
    return text if text.isdigit() else f'"{text}"' if text[0].isdigit() else text
