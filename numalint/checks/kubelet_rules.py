"""Kubelet configuration checks (SPEC §2–§4, FORMATS.md §1–§2)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from math import ceil

from numalint.alignment.options import check_available
from numalint.checks import check
from numalint.findings import Edit, Finding, Fix
from numalint.k8s.cpuset import CPUSetError, format_cpuset, parse_cpuset
from numalint.k8s.quantity import format_bytes, format_cpu, try_quantity
from numalint.k8s.versions import (
    CPU_GATES,
    CPU_OPTIONS,
    TOPOLOGY_GATES,
    TOPOLOGY_OPTIONS,
    gate_enabled,
    go_parse_bool,
    maturity,
)
from numalint.model.pools import topologies_for_profile
from numalint.model.run import Run
from numalint.views.kubelet import KubeletProfile

POLICY_VALUES = {
    "cpuManagerPolicy": ("none", "static"),
    "memoryManagerPolicy": ("None", "Static"),
    "topologyManagerPolicy": ("none", "best-effort", "restricted", "single-numa-node"),
    "topologyManagerScope": ("container", "pod"),
}
ALIGNING_POLICIES = ("best-effort", "restricted", "single-numa-node")


def _finding(profile: KubeletProfile, slug: str, message: str, field_name: str | None, *rest: object,
             key: bool = False, fix: Fix | None = None, severity: str | None = None) -> Finding:
    span = profile.span(field_name, *rest, key=key) if field_name else profile.anchor()
    return Finding(slug, message, profile.file, span, profile.ref, fix, severity)


@check("invalid-policy-name")
def invalid_policy_name(run: Run) -> Iterator[Finding]:
    for profile in run.profiles:
        for name, allowed in POLICY_VALUES.items():
            if not profile.has(name):
                continue
            value = profile.raw[profile.keys[name]]
            if not isinstance(value, str) or value in allowed or value == "":
                continue
            same_case = [a for a in allowed if a.lower() == value.lower()]
            if name == "memoryManagerPolicy" and value == "BestEffort":
                message = ('memoryManagerPolicy "BestEffort" is only available on Windows; '
                           "Linux kubelets refuse to start")
                yield _finding(profile, "invalid-policy-name", message, name,
                               fix=Fix('use "Static" (or "None")'))
                continue
            if same_case:
                message = (f'{name} "{value}" is not accepted (values are case-sensitive); '
                           f'the kubelet refuses to start. Use "{same_case[0]}"')
                fix = Fix(f'write "{same_case[0]}"', [Edit(profile.span(name), same_case[0], value)])
            else:
                choices = ", ".join(f'"{a}"' for a in allowed)
                message = f'{name} "{value}" is not one of {choices}; the kubelet refuses to start'
                fix = Fix(f"use one of {choices}")
            yield _finding(profile, "invalid-policy-name", message, name, fix=fix)


@check("cpu-manager-not-static")
def cpu_manager_not_static(run: Run) -> Iterator[Finding]:
    for profile in run.profiles:
        if profile.topology_policy in ALIGNING_POLICIES and profile.cpu_manager_policy == "none":
            yield _finding(
                profile, "cpu-manager-not-static",
                f'topologyManagerPolicy "{profile.topology_policy}" with cpuManagerPolicy '
                f'"{profile.cpu_manager_policy}": CPUs are never pinned, so there is nothing to align them with',
                "topologyManagerPolicy",
                fix=Fix('set cpuManagerPolicy: static (with a CPU reservation) or topologyManagerPolicy: none'))


@check("memory-manager-not-static")
def memory_manager_not_static(run: Run) -> Iterator[Finding]:
    for profile in run.profiles:
        if profile.topology_policy in ("restricted", "single-numa-node") and profile.memory_policy == "None":
            yield _finding(
                profile, "memory-manager-not-static",
                f'topologyManagerPolicy "{profile.topology_policy}" with memoryManagerPolicy '
                f'"{profile.memory_policy}": memory and hugepages are not pinned to the NUMA node of the CPUs',
                "topologyManagerPolicy",
                fix=Fix("set memoryManagerPolicy: Static with reservedMemory adding up to the Node Allocatable "
                        "reservation"))


@check("no-cpu-reservation")
def no_cpu_reservation(run: Run) -> Iterator[Finding]:
    for profile in run.profiles:
        if profile.cpu_manager_policy != "static":
            continue
        reservation = profile.cpu_reservation()
        if reservation is None or reservation <= 0:
            if reservation is None:
                detail = ("[cpumanager] unable to determine reserved CPU resources for static policy"
                          if profile.has("reservedSystemCPUs") else
                          "[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be "
                          "greater than zero")
            else:
                detail = ("[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be "
                          "greater than zero")
            yield _finding(profile, "no-cpu-reservation",
                           f"static CPU manager without reserved CPUs: the kubelet will not start ({detail})",
                           "cpuManagerPolicy",
                           fix=Fix('reserve CPUs for the system, e.g. reservedSystemCPUs: "0" or '
                                   'kubeReserved: {cpu: "1"}'))


@check("reserved-cpus-invalid")
def reserved_cpus_invalid(run: Run) -> Iterator[Finding]:
    for profile in run.profiles:
        text = profile.reserved_cpus_text
        if text is None or not profile.has("reservedSystemCPUs"):
            continue
        raw = profile.raw[profile.keys["reservedSystemCPUs"]]
        if not isinstance(raw, str):
            continue  # a number: the schema rule reports the type
        try:
            cpus = parse_cpuset(text)
        except CPUSetError as err:
            yield _finding(profile, "reserved-cpus-invalid",
                           f'reservedSystemCPUs "{text}" is not a CPU list ({err}); the kubelet refuses to start',
                           "reservedSystemCPUs", fix=Fix('write a Linux CPU list such as "0,1" or "0-3,32-35"'))
            continue
        for topo in topologies_for_profile(run, profile):
            online = set(topo.machine.cpus)
            extra = cpus - online
            if extra and online:
                yield _finding(
                    profile, "reserved-cpus-invalid",
                    f'reservedSystemCPUs "{text}" names CPUs {format_cpuset(extra)} that topology "{topo.name}" '
                    f'does not have (online CPUs {format_cpuset(online)}): the kubelet refuses to start '
                    f'("reserved-cpus: {text} is not a subset of online-cpus")',
                    "reservedSystemCPUs", fix=Fix(f"use only CPUs in {format_cpuset(online)}"))


@check("reserved-cpus-conflict")
def reserved_cpus_conflict(run: Run) -> Iterator[Finding]:
    for profile in run.profiles:
        if not profile.reserved_cpus_text:
            continue
        cgroups = [n for n, v in (("systemReservedCgroup", profile.system_reserved_cgroup),
                                  ("kubeReservedCgroup", profile.kube_reserved_cgroup)) if v]
        if cgroups:
            yield _finding(
                profile, "reserved-cpus-conflict",
                f"reservedSystemCPUs together with {' and '.join(cgroups)}: the kubelet refuses to start "
                "(invalid configuration: can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup "
                "(--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup))",
                cgroups[0] if profile.has(cgroups[0]) else "reservedSystemCPUs", key=True, severity="error",
                fix=Fix(f"remove {' and '.join(cgroups)} (and the matching enforceNodeAllocatable entries), "
                        "or drop reservedSystemCPUs"))
        cpus = profile.reserved_cpus()
        quantities = [profile.system_reserved.get("cpu"), profile.kube_reserved.get("cpu")]
        if cpus is None or all(q is None for q in quantities):
            continue
        written = sum((q for q in quantities if q is not None), Fraction(0))
        if ceil(written) != len(cpus) and not _platform_only(profile):
            yield _finding(
                profile, "reserved-cpus-conflict",
                f'reservedSystemCPUs "{profile.reserved_cpus_text}" holds {len(cpus)} CPUs but systemReserved.cpu '
                f"+ kubeReserved.cpu = {format_cpu(written)}; the kubelet ignores those cpu quantities and "
                f"reserves exactly {len(cpus)} CPUs",
                "reservedSystemCPUs", severity="warning",
                fix=Fix(f'make the cpu quantities add up to {len(cpus)} or remove them'))


def _platform_only(profile: KubeletProfile) -> bool:
    return "systemReserved.cpu" in profile.platform_defaults and "cpu" not in profile.kube_reserved


def _reserved_resource_types(profile: KubeletProfile) -> list[str]:
    types = {"memory"}
    for entry in profile.reserved_memory:
        types.update(r for r in entry.limits if r == "memory" or r.startswith("hugepages-"))
    for reserved in (profile.system_reserved, profile.kube_reserved):
        types.update(r for r in reserved if r.startswith("hugepages-"))
    return sorted(types)


def _node_memory(run: Run, profile: KubeletProfile) -> int | None:
    topologies = topologies_for_profile(run, profile)
    if not topologies:
        return None
    return sum(n.memory for n in topologies[0].machine.numa_nodes)


@check("reserved-memory-mismatch")
def reserved_memory_mismatch(run: Run) -> Iterator[Finding]:
    for profile in run.profiles:
        if profile.memory_policy != "Static":
            continue
        if profile.eviction_memory is None and profile.eviction_memory_percent is not None:
            capacity = _node_memory(run, profile)
            if capacity is None:
                continue  # a percentage needs the node's memory: checked when a topology is given
            profile.eviction_memory = Fraction(capacity) * profile.eviction_memory_percent / 100
        if not profile.reserved_memory:
            expected = profile.allocatable_reservation("memory")
            yield _finding(
                profile, "reserved-memory-mismatch",
                f"memoryManagerPolicy Static without reservedMemory: the kubelet refuses to start; it requires "
                f"reservedMemory to sum to {_explain(profile, 'memory', expected)}",
                "memoryManagerPolicy",
                fix=Fix(f"add reservedMemory: [{{numaNode: 0, limits: {{memory: {format_bytes(expected)}}}}}]"))
            continue
        for resource in _reserved_resource_types(profile):
            total = sum((e.limits.get(resource, Fraction(0)) for e in profile.reserved_memory), Fraction(0))
            expected = profile.allocatable_reservation(resource)
            if total == expected:
                continue
            yield _finding(
                profile, "reserved-memory-mismatch",
                f"reservedMemory {resource} sums to {format_bytes(total)}; the kubelet requires "
                f"{_explain(profile, resource, expected)} (the kubelet refuses to start: the total amount "
                f'"{format_bytes(total)}" of type "{resource}" is not equal to the value '
                f'"{format_bytes(expected)}" determined by Node Allocatable feature)',
                "reservedMemory", fix=_corrected(profile, resource, total, expected))


def _explain(profile: KubeletProfile, resource: str, expected: Fraction) -> str:
    parts = []
    for label, reserved in (("systemReserved", profile.system_reserved), ("kubeReserved", profile.kube_reserved)):
        if resource in reserved:
            platform = " (OpenShift default)" if f"systemReserved.{resource}" in profile.platform_defaults else ""
            parts.append(f"{label} {format_bytes(reserved[resource])}{platform}")
    if resource == "memory" and profile.eviction_memory is not None:
        origin = "evictionHard memory.available" + (" (default)" if profile.eviction_source == "default" else "")
        parts.append(f"{origin} {format_bytes(profile.eviction_memory)}")
    return f"{format_bytes(expected)} = " + " + ".join(parts) if parts else format_bytes(expected)


def _corrected(profile: KubeletProfile, resource: str, total: Fraction, expected: Fraction) -> Fix:
    """Put the whole difference on the entry of the lowest NUMA node that can absorb it."""
    difference = expected - total
    entries = sorted((e for e in profile.reserved_memory if e.numa_node is not None), key=lambda e: e.numa_node or 0)
    for entry in entries:
        current = entry.limits.get(resource, Fraction(0))
        if current + difference >= 0:
            corrected = {id(e): e.limits.get(resource, Fraction(0)) + (difference if e is entry else 0)
                         for e in entries}
            values = ", ".join(f"NUMA {e.numa_node}: {format_bytes(corrected[id(e)])}" for e in entries)
            edits = []
            if resource in entry.raw_limits:
                span = profile.span("reservedMemory", entry.index, "limits", resource)
                edits.append(Edit(span, format_bytes(current + difference)))
            change = "adds" if difference > 0 else "removes"
            return Fix(f"set reservedMemory {resource} to {values} (the correction {change} "
                       f"{format_bytes(abs(difference))} on NUMA node {entry.numa_node})", edits)
    return Fix(f"make reservedMemory {resource} add up to {format_bytes(expected)}")


@check("reserved-memory-numa")
def reserved_memory_numa(run: Run) -> Iterator[Finding]:
    for profile in run.profiles:
        seen: set[tuple[int | None, str]] = set()
        topologies = topologies_for_profile(run, profile)
        for entry in profile.reserved_memory:
            where = ("reservedMemory", entry.index)
            if entry.numa_node is None:
                yield _finding(profile, "reserved-memory-numa", "reservedMemory entry without an integer numaNode",
                               *where, fix=Fix("add numaNode: <id>"))
                continue
            if entry.numa_node < 0:
                yield _finding(profile, "reserved-memory-numa",
                               f"reservedMemory numaNode {entry.numa_node} is negative", *where, "numaNode")
            for resource, raw in entry.raw_limits.items():
                if resource != "memory" and not resource.startswith("hugepages-"):
                    yield _finding(
                        profile, "reserved-memory-numa",
                        f'the limit type "{resource}" for NUMA node {entry.numa_node} is not supported, only '
                        "[memory hugepages-<HugePageSize>] is accepted", *where, "limits", resource, key=True,
                        fix=Fix(f'remove "{resource}" from reservedMemory'))
                amount = try_quantity(raw)
                if amount is not None and amount < 0:
                    yield _finding(
                        profile, "reserved-memory-numa",
                        f'the reserved memory has negative value for NUMA node {entry.numa_node} and resource type '
                        f'"{resource}", value {raw}', *where, "limits", resource)
                if (entry.numa_node, resource) in seen:
                    yield _finding(
                        profile, "reserved-memory-numa",
                        f'the reserved memory has a duplicate value for NUMA node {entry.numa_node} and resource '
                        f'"{resource}"', *where, "limits", resource, key=True,
                        fix=Fix("merge the duplicate entries into one"))
                seen.add((entry.numa_node, resource))
            for topo in topologies:
                if entry.numa_node not in topo.machine.numa_ids and profile.memory_policy == "Static":
                    yield _finding(
                        profile, "reserved-memory-numa",
                        f"the reserved memory configuration references a NUMA node {entry.numa_node} that does not "
                        f'exist on this machine (topology "{topo.name}" has NUMA nodes '
                        f"{', '.join(map(str, topo.machine.numa_ids))})", *where, "numaNode")


@check("policy-option")
def policy_option(run: Run) -> Iterator[Finding]:
    for profile in run.profiles:
        yield from _cpu_options(run, profile)
        yield from _topology_options(run, profile)


def _gated(profile: KubeletProfile, run: Run, table: dict[str, list[tuple[int, str]]], gates: dict[str, str],
           option: str, field_name: str, component: str) -> Finding | None:
    """The kubelet's own option-availability error at the target version, with the gates it runs with."""
    available = {o: s for o in table if (s := maturity(table, o, run.version))}
    enabled = frozenset({"ga"} | {stage for stage, gate in gates.items()
                                  if profile.openshift or gate_enabled(gate, profile.feature_gates, run.version)})
    error = check_available(component, option, available, enabled)
    if error is None:
        return None
    version = f"{run.version[0]}.{run.version[1]}"
    if option not in available:
        detail, fix = f"known: {', '.join(sorted(available))}", "remove the option or target a Kubernetes version " \
                                                                 "that has it"
    else:
        gate = gates[available[option]]
        detail, fix = f"enable feature gate {gate}", f"add featureGates: {{{gate}: true}}"
    return _finding(profile, "policy-option", f"{error} (Kubernetes {version}: {detail}); the kubelet refuses to "
                    "start", field_name, option, key=True, fix=Fix(fix))


def _cpu_options(run: Run, profile: KubeletProfile) -> Iterator[Finding]:
    options = profile.cpu_options
    if not options or profile.cpu_manager_policy != "static":
        return
    field_name = "cpuManagerPolicyOptions"
    enabled: set[str] = set()
    for option, value in options.items():
        gated = _gated(profile, run, CPU_OPTIONS, CPU_GATES, option, field_name, "CPU Manager")
        if gated is not None:
            yield gated
            continue
        if not isinstance(value, str):
            continue  # schema reports the type
        parsed = go_parse_bool(value)
        if parsed is None:
            yield _finding(profile, "policy-option",
                           f'bad value for option "{option}": strconv.ParseBool: parsing "{value}": invalid syntax',
                           field_name, option, fix=Fix('use "true" or "false"'))
        elif parsed:
            enabled.add(option)
    pairs = [("full-pcpus-only", "distribute-cpus-across-cores"),
             ("distribute-cpus-across-numa", "distribute-cpus-across-cores"),
             ("prefer-align-cpus-by-uncorecache", "distribute-cpus-across-numa"),
             ("prefer-align-cpus-by-uncorecache", "distribute-cpus-across-cores")]
    for first, second in pairs:
        if first in enabled and second in enabled:
            yield _finding(profile, "policy-option",
                           f"static policy options {first} and {second} can not be used at the same time",
                           field_name, second, key=True, fix=Fix(f"keep only one of {first} and {second}"))
    if "align-by-socket" in enabled and profile.topology_policy == "single-numa-node":
        yield _finding(profile, "policy-option",
                       "Topolgy manager single-numa-node policy is incompatible with CPUManager align-by-socket "
                       "policy option", field_name, "align-by-socket", key=True,
                       fix=Fix("drop align-by-socket or use topologyManagerPolicy restricted"))
    for topo in topologies_for_profile(run, profile):
        if "align-by-socket" in enabled and topo.machine.num_sockets > len(topo.machine.numa_ids):
            yield _finding(profile, "policy-option",
                           f'Align by socket is not compatible with hardware where number of sockets are more than '
                           f'number of NUMA (topology "{topo.name}")', field_name, "align-by-socket", key=True)


def _topology_options(run: Run, profile: KubeletProfile) -> Iterator[Finding]:
    options = profile.topology_options
    if not options or profile.topology_policy == "none":
        return  # the kubelet does not parse options with policy none (SPEC §1.3)
    field_name = "topologyManagerPolicyOptions"
    for option, value in options.items():
        gated = _gated(profile, run, TOPOLOGY_OPTIONS, TOPOLOGY_GATES, option, field_name, "Topology Manager")
        if gated is not None:
            yield gated
            continue
        if not isinstance(value, str):
            continue
        if option == "max-allowable-numa-nodes":
            try:
                number = int(value)
            except ValueError:
                yield _finding(profile, "policy-option",
                               f'unable to convert policy option to integer "{option}": strconv.Atoi: parsing '
                               f'"{value}": invalid syntax', field_name, option, fix=Fix('use an integer such as "16"'))
                continue
            if number < 8:
                yield _finding(profile, "policy-option",
                               f'the minimum value of "max-allowable-numa-nodes" should not be less than 8 (got '
                               f"{number})", field_name, option, fix=Fix('remove it or use "8" or more'))
        elif go_parse_bool(value) is None:
            yield _finding(profile, "policy-option",
                           f'bad value for option "{option}": strconv.ParseBool: parsing "{value}": invalid syntax',
                           field_name, option, fix=Fix('use "true" or "false"'))
    if not profile.openshift and not gate_enabled("TopologyManagerPolicyOptions", profile.feature_gates, run.version):
        yield _finding(profile, "policy-option",
                       f"topology manager policy options {sorted(options)} require feature gates "
                       '"TopologyManagerPolicyOptions" enabled', field_name, key=True,
                       fix=Fix("add featureGates: {TopologyManagerPolicyOptions: true}"))


OPENSHIFT_REJECTED = {
    "cgroupDriver": "the cluster sets the cgroup driver",
    "clusterDNS": "the cluster network operator sets it",
    "clusterDomain": "the cluster network operator sets it",
    "featureGates": "use the cluster FeatureGate resource",
    "failSwapOn": "swap is managed by the platform",
}


@check("kubeletconfig-unsupported-field")
def kubeletconfig_unsupported_field(run: Run) -> Iterator[Finding]:
    for profile in run.profiles:
        if not profile.openshift:
            continue
        for name, why in OPENSHIFT_REJECTED.items():
            if profile.has(name):
                yield _finding(profile, "kubeletconfig-unsupported-field",
                               f"{name} is not allowed in a KubeletConfig ({why}); the machine-config operator "
                               "rejects the whole KubeletConfig (Accepted=False)", name, key=True,
                               fix=Fix(f"remove {name}"))
        swap = profile.raw.get(profile.keys.get("memorySwap", "memorySwap"))
        if isinstance(swap, dict) and "swapBehavior" in swap:
            yield _finding(profile, "kubeletconfig-unsupported-field",
                           "memorySwap.swapBehavior is not allowed in a KubeletConfig; the machine-config operator "
                           "rejects the whole KubeletConfig", "memorySwap", "swapBehavior", key=True,
                           fix=Fix("remove memorySwap.swapBehavior"))
        auto = profile.doc.root.get("spec", {}).get("autoSizingReserved") if isinstance(
            profile.doc.root.get("spec"), dict) else None
        if auto is True and profile.has("systemReserved"):
            yield _finding(profile, "kubeletconfig-unsupported-field",
                           "systemReserved together with autoSizingReserved: true is rejected by the machine-config "
                           "operator", "systemReserved", key=True,
                           fix=Fix("remove systemReserved or set autoSizingReserved: false"))
