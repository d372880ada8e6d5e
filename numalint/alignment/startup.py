"""Why a kubelet does not start, as structured problems: the field and key of the configuration the
kubelet complains about, a reason code and the kubelet's own message.

The CPU, Memory and Topology Managers raise these while they are built (``NewManager`` /
``NewPolicy`` in pkg/kubelet/cm/{cpumanager,memorymanager,topologymanager}); the configuration
checks map them to source positions, so nothing the core knows is re-derived elsewhere."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from numalint.k8s.goparse import GoParseError, parse_percentage
from numalint.k8s.quantity import try_quantity


@dataclass(frozen=True)
class StartProblem:
    field: str  # the KubeletConfiguration field, e.g. "topologyManagerPolicyOptions"
    key: str | None  # the option, resource or entry inside it, when there is one
    reason: str  # a stable code: "unknown-option", "gated-option", "bad-bool", ...
    message: str  # what the kubelet says
    path: tuple[str | int, ...] = ()  # where below the field, when the key alone does not say (list entries)


class ConfigurationError(Exception):
    """A manager refuses its configuration: the kubelet does not start."""

    def __init__(self, message: str, field: str = "", key: str | None = None, reason: str = "invalid") -> None:
        super().__init__(message)
        self.problem = StartProblem(field, key, reason, message)


class StartError(Exception):
    """The kubelet does not start with these settings on this machine."""

    def __init__(self, problem: StartProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


# What a kubelet configuration may reserve for the system and Kubernetes (cmd/kubelet/app/server.go
# parseResourceList: cpu, memory, ephemeral-storage and pid; anything else stops the kubelet).
RESERVABLE = ("cpu", "memory", "ephemeral-storage", "pid")
QUANTITY_SYNTAX = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
# signalToResource (pkg/kubelet/eviction/helpers.go): the signals parseThresholdStatement accepts
EVICTION_SIGNALS = ("memory.available", "allocatableMemory.available", "nodefs.available", "nodefs.inodesFree",
                    "imagefs.available", "imagefs.inodesFree", "containerfs.available", "containerfs.inodesFree",
                    "pid.available")


def reserved_resource_problems(reserved: Mapping[str, Mapping[str, str]]) -> list[StartProblem]:
    """parseResourceList over kubeReserved then systemReserved (cmd/kubelet/app/server.go)."""
    problems = []
    for field in ("kubeReserved", "systemReserved"):
        for name, raw in reserved.get(field, {}).items():
            if name not in RESERVABLE:
                problems.append(StartProblem(field, name, "reserved-resource", f'cannot reserve "{name}" resource'))
                continue
            amount = try_quantity(raw)
            if amount is None:
                problems.append(StartProblem(field, name, "reserved-quantity",
                                             f'failed to parse quantity "{raw}" for "{name}" resource: '
                                             f"{QUANTITY_SYNTAX}"))
            elif amount < 0:
                problems.append(StartProblem(field, name, "reserved-quantity",
                                             f'resource quantity for "{name}" cannot be negative: {raw}'))
    return problems


def eviction_problems(eviction_hard: Mapping[str, str]) -> list[StartProblem]:
    """parseThresholdStatement for each evictionHard entry (pkg/kubelet/eviction/helpers.go): "0%" and
    "100%" are ignored; other percentages must parse (strconv.ParseFloat) and, as a float32 fraction, lie in
    [0, 1]; quantities must be positive."""
    problems = []
    for signal, value in eviction_hard.items():
        def problem(message: str, signal: str = signal) -> StartProblem:
            return StartProblem("evictionHard", signal, "eviction-threshold", message)

        if signal not in EVICTION_SIGNALS:
            problems.append(problem(f"unsupported eviction signal {signal}"))
            continue
        if value.endswith("%"):
            if value in ("0%", "100%"):
                continue
            try:
                percentage = parse_percentage(value)
            except GoParseError as err:
                problems.append(problem(str(err)))
                continue
            if percentage < 0:
                problems.append(problem(f"eviction percentage threshold {signal} must be >= 0%: {value}"))
            elif percentage > 1:  # a fraction: "100.5%" is 1.005 (NaN passes both comparisons, as in Go)
                problems.append(problem(f"eviction percentage threshold {signal} must be <= 100%: {value}"))
            continue
        amount = try_quantity(value)
        if amount is None:
            problems.append(problem(QUANTITY_SYNTAX))
        elif amount <= 0:
            problems.append(problem(f"eviction threshold {signal} must be positive: {value}"))
    return problems


def reserved_memory_config_problems(entries: Sequence[tuple[int, int, Mapping[str, Fraction]]]) -> list[StartProblem]:
    """validateReservedMemoryConfiguration (pkg/kubelet/apis/config/validation): every limit is memory or
    hugepages-<size>, non-zero, and given once per NUMA node. Checked whatever the memory manager policy.
    ``entries``: (index in reservedMemory, NUMA node, limits in exact bytes: 100m is not zero, q.IsZero())."""
    problems = []
    seen: set[tuple[int, str]] = set()
    for index, numa, limits in entries:
        for resource, amount in limits.items():
            path = (index, "limits", resource)
            if resource != "memory" and not resource.startswith("hugepages-"):
                problems.append(StartProblem(
                    "reservedMemory", resource, "reserved-memory-type",
                    f'invalid configuration: the limit type "{resource}" for NUMA node {numa} is not supported, '
                    "only [memory hugepages-<HugePageSize>] is accepted", path))
            if amount == 0:
                problems.append(StartProblem(
                    "reservedMemory", resource, "reserved-memory-zero",
                    f'invalid configuration: reserved memory may not be zero for NUMA node {numa} and resource '
                    f'"{resource}"', path))
            if (numa, resource) in seen:
                problems.append(StartProblem(
                    "reservedMemory", resource, "reserved-memory-duplicate",
                    f"invalid configuration: the reserved memory has a duplicate value for NUMA node {numa} and "
                    f'resource "{resource}"', path))
            seen.add((numa, resource))
    return problems


def go_map(values: Mapping[str, str]) -> str:
    """Go's %v of a map[string]string: keys sorted."""
    return "map[" + " ".join(f"{k}:{v}" for k, v in sorted(values.items())) + "]"
