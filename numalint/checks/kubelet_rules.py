"""Kubelet configuration checks (pkg/kubelet/cm, pkg/kubelet/apis/config; OpenShift's machine-config operator)."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from math import ceil

from numalint.alignment.startup import StartProblem
from numalint.analysis import Analysis
from numalint.catalogue import catalogue
from numalint.checks.input_rules import did_you_mean
from numalint.checks.registry import check
from numalint.findings import SAFE, UNSAFE, Edit, Fix, Hit, ObjectRef
from numalint.k8s.cpuset import format_cpuset
from numalint.k8s.goparse import GoParseError
from numalint.k8s.goparse import parse_cpuset as go_parse_cpuset
from numalint.k8s.kinds import KUBELET_CONFIG
from numalint.k8s.quantity import format_bytes, format_cpu, try_quantity
from numalint.k8s.versions import (
    CPU_GATES,
    CPU_OPTIONS,
    FIELD_SINCE,
    TOPOLOGY_GATES,
    TOPOLOGY_OPTIONS,
    maturity,
    openshift_release,
    openshift_sets_enabling,
)
from numalint.reading.locate import get, locate
from numalint.views.kubelet import MAX_RESERVED_MEMORY, KubeletProfile

POLICY_VALUES = {
    "cpuManagerPolicy": ("none", "static"),
    "memoryManagerPolicy": ("None", "Static"),
    "topologyManagerPolicy": ("none", "best-effort", "restricted", "single-numa-node"),
    "topologyManagerScope": ("container", "pod"),
}
ALIGNING_POLICIES = ("best-effort", "restricted", "single-numa-node")


def _finding(profile: KubeletProfile, message: str, field_name: str | None, *rest: object,
             key: bool = False, fix: Fix | None = None, severity: str | None = None) -> Hit:
    span = profile.span(field_name, *rest, key=key) if field_name else profile.anchor()
    return Hit(message, profile.file, span, profile.ref, fix, severity)


@check("invalid-policy-name")
def invalid_policy_name(analysis: Analysis) -> Iterator[Hit]:
    for profile in analysis.profiles:
        for name, allowed in POLICY_VALUES.items():
            if not profile.has(name):
                continue
            value = profile.raw[profile.keys[name]]
            if not isinstance(value, str) or value in allowed or value == "":
                continue
            # a block scalar (`>` or `|`) keeps its last line break, a quoted one its spaces: part of the value
            stripped = value.strip()
            same_case = [a for a in allowed if a.lower() == stripped.lower()]
            if name == "memoryManagerPolicy" and value == "BestEffort":
                message = ('memoryManagerPolicy "BestEffort" is only available on Windows; '
                           "Linux kubelets refuse to start")
                yield _finding(profile, message, name,
                               fix=Fix('use "Static" (or "None")'))
                continue
            if same_case and stripped != value:
                message = (f'{name} "{value}" is not accepted: the line break or spaces around the name are part '
                           "of the value" + (" (a > or | block scalar keeps its last line break unless written >- "
                                             "or |-)" if value.endswith("\n") else "")
                           + ("" if stripped == same_case[0] else ", and values are case-sensitive")
                           + f'; the kubelet refuses to start. Use "{same_case[0]}"')
                fix = Fix(f'write "{same_case[0]}"', [Edit(profile.span(name), same_case[0], value, string=True)], SAFE)
            elif same_case:
                message = (f'{name} "{value}" is not accepted (values are case-sensitive); '
                           f'the kubelet refuses to start. Use "{same_case[0]}"')
                fix = Fix(f'write "{same_case[0]}"', [Edit(profile.span(name), same_case[0], value, string=True)], SAFE)
            else:
                choices = ", ".join(f'"{a}"' for a in allowed)
                message = f'{name} "{value}" is not one of {choices}; the kubelet refuses to start'
                fix = Fix(f"use one of {choices}")
            yield _finding(profile, message, name, fix=fix)


DROPPED_EFFECT = {
    "mergeDefaultEvictionSettings": "an evictionHard without memory.available then reserves no memory for eviction",
}


@check("unknown-field")
def field_not_yet_known(analysis: Analysis) -> Iterator[Hit]:
    """A field the target kubelet does not have yet (k8s/versions.py FIELD_SINCE): the kubelet's lenient
    decoding drops it (pkg/kubelet/kubeletconfig/util/codec), and the analysis ignores it too. Misspelt
    and unknown keys are reported while the file is read (checks/input_rules.py)."""
    release = f"{analysis.version[0]}.{analysis.version[1]}"
    for profile in analysis.profiles:
        for name in profile.dropped_fields(analysis.version):
            since = FIELD_SINCE[name]
            effect = DROPPED_EFFECT.get(name, "the kubelet runs with its default")
            yield _finding(profile, f'"{name}" is not a field of the kubelet configuration at Kubernetes {release} '
                           f"(it exists from {since[0]}.{since[1]}): the kubelet drops it while decoding, so this "
                           f"setting never applies; {effect}", name, key=True,
                           fix=Fix(f"remove {name}, or target Kubernetes {since[0]}.{since[1]} or later "
                                   "(--kubernetes-version)"))


@check("cpu-manager-not-static")
def cpu_manager_not_static(analysis: Analysis) -> Iterator[Hit]:
    for profile in analysis.profiles:
        if profile.topology_policy in ALIGNING_POLICIES and profile.cpu_manager_policy == "none":
            yield _finding(
                profile,
                f'topologyManagerPolicy "{profile.topology_policy}" with cpuManagerPolicy '
                f'"{profile.cpu_manager_policy}": CPUs are never pinned, so there is nothing to align them with',
                "topologyManagerPolicy",
                fix=Fix('set cpuManagerPolicy: static (with a CPU reservation) or topologyManagerPolicy: none'))


@check("memory-manager-not-static")
def memory_manager_not_static(analysis: Analysis) -> Iterator[Hit]:
    for profile in analysis.profiles:
        if profile.topology_policy in ("restricted", "single-numa-node") and profile.memory_policy == "None":
            yield _finding(
                profile,
                f'topologyManagerPolicy "{profile.topology_policy}" with memoryManagerPolicy '
                f'"{profile.memory_policy}": memory and hugepages are not pinned to the NUMA node of the CPUs',
                "topologyManagerPolicy", fix=_static_memory_fix(analysis, profile))


def _static_memory_fix(analysis: Analysis, profile: KubeletProfile) -> Fix:
    """Static with reservedMemory adding up to the reservation, named when it is known; with nothing reserved,
    reserving memory comes first: the Static policy refuses to start without (NewPolicyStatic), and a zero
    reservedMemory entry is refused too (validateReservedMemoryConfiguration)."""
    reservation = profile.allocatable_reservation("memory", analysis.node_memory(profile), analysis.version)
    if reservation == 0:
        return Fix("reserve memory for the system first, e.g. systemReserved: {memory: 1Gi} (the kubelet reserves "
                   "none here, and the Static policy does not start without), then set memoryManagerPolicy: Static "
                   "with reservedMemory adding up to it")
    if reservation is not None:
        return Fix(f"set memoryManagerPolicy: Static with reservedMemory adding up to {format_bytes(reservation)}, "
                   "the Node Allocatable reservation (e.g. all of it on NUMA node 0)")
    return Fix("set memoryManagerPolicy: Static with reservedMemory adding up to the Node Allocatable reservation")


@check("no-cpu-reservation")
def no_cpu_reservation(analysis: Analysis) -> Iterator[Hit]:
    """The core's "no-cpu-reservation" problem (cpumanager.NewManager), placed on cpuManagerPolicy."""
    for profile in analysis.profiles:
        for problem in analysis.start_problems(profile):
            if problem.reason == "no-cpu-reservation":
                if profile.has("reservedSystemCPUs") and profile.reserved_cpus_text and profile.reserved_cpus() is None:
                    continue  # validation stops at "unable to parse reservedSystemCPUs" first (reserved-cpus-invalid)
                cgroups = reserved_cgroups(profile, analysis)
                # reservedSystemCPUs next to a reserved cgroup stops the kubelet too (reserved-cpus-conflict)
                # a cpu quantity written (as 0): reservedSystemCPUs would override it (reserved-cpus-conflict)
                written = [name for name in ("systemReserved", "kubeReserved") if "cpu" in profile.reserved_raw[name]]
                fix = (Fix('reserve CPUs for the system with kubeReserved: {cpu: "1"} or systemReserved: {cpu: "1"} '
                           f"(reservedSystemCPUs cannot go with {' and '.join(cgroups)})") if cgroups else
                       Fix(f'reserve CPUs for the system: raise {written[0]}.cpu, e.g. to "1", or list them in '
                           f"reservedSystemCPUs (e.g. \"0\") and remove the cpu of {' and '.join(written)}, which "
                           "it overrides") if written else
                       Fix('reserve CPUs for the system, e.g. reservedSystemCPUs: "0" or kubeReserved: {cpu: "1"}'))
                yield _finding(profile, f"static CPU manager without reserved CPUs: the kubelet will not start "
                               f"({problem.message})", "cpuManagerPolicy", fix=fix)


def reserved_cgroups(profile: KubeletProfile, analysis: Analysis) -> list[str]:
    """The reserved cgroups set: with either, reservedSystemCPUs stops the kubelet (validation.go)."""
    return [name for name, value in (("systemReservedCgroup", profile.system_reserved_cgroup_at(analysis.version)),
                                     ("kubeReservedCgroup", profile.kube_reserved_cgroup)) if value]


@check("reserved-cpus-invalid")
def reserved_cpus_invalid(analysis: Analysis) -> Iterator[Hit]:
    for profile in analysis.profiles:
        text = profile.reserved_cpus_text
        if text is None or not profile.has("reservedSystemCPUs"):
            continue
        raw = profile.raw[profile.keys["reservedSystemCPUs"]]
        if not isinstance(raw, str):
            continue  # a number: the schema rule reports the type
        try:
            cpus = go_parse_cpuset(text)  # k8s.io/utils/cpuset.Parse, as validation.go does
        except GoParseError as err:
            yield _finding(profile,
                           f'reservedSystemCPUs "{text}" is not a CPU list; the kubelet refuses to start (invalid '
                           f"configuration: unable to parse reservedSystemCPUs (--reserved-cpus) {text}, error: {err})",
                           "reservedSystemCPUs", fix=Fix('write a Linux CPU list such as "0,1" or "0-3,32-35"'))
            continue
        for topo in analysis.topologies_for(profile):
            online = set(topo.machine.cpus)
            extra = cpus - online
            if extra and online:
                yield _finding(
                    profile,
                    f'reservedSystemCPUs "{text}" names CPUs {format_cpuset(extra)} that topology "{topo.name}" '
                    f'does not have (online CPUs {format_cpuset(online)}): the kubelet refuses to start '
                    f'("reserved-cpus: {text} is not a subset of online-cpus")',
                    "reservedSystemCPUs", fix=Fix(f"use only CPUs in {format_cpuset(online)}"))


@check("reserved-cpus-conflict")
def reserved_cpus_conflict(analysis: Analysis) -> Iterator[Hit]:
    for profile in analysis.profiles:
        if not profile.reserved_cpus_text:
            continue
        cgroups = reserved_cgroups(profile, analysis)
        if cgroups:
            kept = ""
            if profile.openshift and "systemReservedCgroup" in cgroups and profile.user_system_reserved_cgroup:
                kept = (f" (OpenShift {openshift_release(analysis.version)}: the machine-config operator clears a "
                        "written systemReservedCgroup next to reservedSystemCPUs only from 4.22)")
            nodeadm = [name for name in cgroups if name in profile.platform_defaults]  # not written: nodeadm's
            if nodeadm:
                values = {"systemReservedCgroup": profile.system_reserved_cgroup,
                          "kubeReservedCgroup": profile.kube_reserved_cgroup}
                them = "them" if len(nodeadm) > 1 else "it"
                kept = (f" ({' and '.join(f'{name} {values[name]}' for name in nodeadm)}: nodeadm writes {them} for "
                        f"every EKS node unless the NodeConfig sets {them})")
            remove = (f'set {" and ".join(f"{name}: {chr(34) * 2}" for name in cgroups)} in the NodeConfig\'s '
                      "spec.kubelet.config (the kubelet merges it over nodeadm's configuration)" if nodeadm else
                      f"remove {' and '.join(cgroups)} (and the matching enforceNodeAllocatable entries)")
            yield _finding(
                profile,
                f"reservedSystemCPUs together with {' and '.join(cgroups)}: the kubelet refuses to start "
                "(invalid configuration: can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup "
                f"(--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)){kept}",
                cgroups[0] if profile.has(cgroups[0]) and not nodeadm else "reservedSystemCPUs", key=True,
                severity="error", fix=Fix(f"{remove}, or drop reservedSystemCPUs"))
        cpus = profile.reserved_cpus()
        quantities = [profile.system_reserved.get("cpu"), profile.kube_reserved.get("cpu")]
        if cpus is None or all(q is None for q in quantities):
            continue
        written = sum((q for q in quantities if q is not None), Fraction(0))
        if ceil(written) != len(cpus) and not _platform_only(profile):
            yield _finding(
                profile,
                f'reservedSystemCPUs "{profile.reserved_cpus_text}" holds {len(cpus)} CPUs but systemReserved.cpu '
                f"+ kubeReserved.cpu = {format_cpu(written)}; the kubelet ignores those cpu quantities and "
                f"reserves exactly {len(cpus)} CPUs",
                "reservedSystemCPUs", severity="warning",
                fix=Fix(f'make the cpu quantities add up to {len(cpus)} or remove them'))


def _platform_only(profile: KubeletProfile) -> bool:
    return "systemReserved.cpu" in profile.platform_defaults and "cpu" not in profile.kube_reserved


@check("reserved-memory-mismatch")
def reserved_memory_mismatch(analysis: Analysis) -> Iterator[Hit]:
    """The core's reservedMemory sums (validateReservedMemory) and NewPolicyStatic's demand for reserved
    memory (pkg/kubelet/cm/memorymanager), with a correction (proven before it is offered: checks/proofs.py)."""
    for profile in analysis.profiles:
        if (profile.memory_policy == "Static" and "systemReserved.memory" in profile.platform_defaults
                and profile.node_sizing(analysis.version) and analysis.node_memory(profile) is None):
            yield from _sized_without_topology(analysis, profile)
            continue
        if profile.memory_policy == "Static" and "memory" in profile.nodeadm_reserved:
            # the sums: here (the core cannot check them); the core's other start problems below (NUMA nodes)
            yield from _sized_by_nodeadm(analysis, profile)
        for problem in analysis.start_problems(profile):
            if problem.reason == "no-reserved-memory":
                yield _finding(
                    profile,
                    f"memoryManagerPolicy Static with no memory reserved: the kubelet refuses to start "
                    f"({problem.message}). The reservedMemory sums must equal systemReserved + kubeReserved + the "
                    "hard eviction threshold memory.available, and here that is zero as well",
                    "reservedMemory" if profile.has("reservedMemory") else "memoryManagerPolicy",
                    fix=Fix("decide how much memory the system keeps (systemReserved or kubeReserved memory, or "
                            + (f"evictionHard memory.available, which {profile.default_eviction} does not set"
                               if profile.default_eviction else "the default evictionHard memory.available 100Mi")
                            + ") and list the same total under "
                            "reservedMemory"))
            elif problem.reason == "reserved-memory-sum" and problem.key:
                resource = problem.key
                expected = analysis.reservation(profile, resource)
                if expected is None:
                    continue
                total = profile.reserved_total(resource)
                explained = _explain(analysis, profile, resource, expected)
                if not profile.reserved_memory:
                    yield _finding(
                        profile,
                        f"memoryManagerPolicy Static without reservedMemory: the kubelet refuses to start; it "
                        f"requires reservedMemory to sum to {explained} ({problem.message})",
                        "memoryManagerPolicy", fix=_add_reserved_memory(analysis, profile, expected))
                    continue
                sized = (profile.allocatable_reservation(resource, analysis.node_memory(profile), analysis.version,
                                                         sized=True)
                         if resource == "memory" and profile.sizing_unsettled(analysis.version) else None)
                if sized is not None and sized != expected:  # taken as off: the author's total is neither
                    yield _finding(
                        profile,
                        f"reservedMemory memory sums to {format_bytes(total)}; the kubelet requires {explained} "
                        f"where node sizing is off ({UPGRADED}), {format_bytes(sized)} where it is on ({INSTALLED}): "
                        f"either way the kubelet refuses to start ({problem.message})",
                        "reservedMemory",
                        fix=Fix(f"list reservedMemory memory adding up to {format_bytes(expected)} (node sizing "
                                f"off) or {format_bytes(sized)} (node sizing on), as this cluster runs; setting "
                                "autoSizingReserved says which"))
                    continue
                yield _finding(
                    profile,
                    f"reservedMemory {resource} sums to {format_bytes(total)}; the kubelet requires {explained} "
                    f"(the kubelet refuses to start: {problem.message})",
                    "reservedMemory",
                    fix=_corrected(analysis, profile, resource, total, expected))
        yield from _right_only_where_sizing_is_off(analysis, profile)


MEBIBYTE = 2**20


def _sized_by_nodeadm(analysis: Analysis, profile: KubeletProfile) -> Iterator[Hit]:
    """The Static memory manager on an EKS node whose kubeReserved memory nodeadm computes (views.nodeadm): the
    total reservedMemory must match is 11Mi x max pods + 255Mi + systemReserved + the eviction threshold, the max pods
    of the instance type (or of spec.kubelet.maxPodsExpression). Nothing listed, or a total no count of pods gives:
    the kubelet refuses on every instance (error); else only where the max pods come to that count (warning)."""
    for resource in sorted({r for e in profile.reserved_memory for r in e.limits if r != "memory"}):
        other = profile.reserved_total(resource)  # hugepages: systemReserved and kubeReserved hold none
        if other:
            yield _finding(
                profile, f"reservedMemory {resource} sums to {format_bytes(other)}; the kubelet requires 0: "
                f"systemReserved and kubeReserved reserve no {resource} (the kubelet refuses to start: the total "
                f'amount "{format_bytes(other)}" of type "{resource}" is not equal to the value "0" determined by '
                "Node Allocatable feature)", "reservedMemory", fix=Fix(f"remove {resource} from reservedMemory"))
    total = profile.reserved_total("memory")
    how = profile.nodeadm_reserved["memory"]
    where = "reservedMemory" if profile.has("reservedMemory") else "memoryManagerPolicy"
    eviction = profile.memory_eviction(None, analysis.version)
    rest = profile.system_reserved.get("memory", Fraction(0)) + (eviction or Fraction(0))
    others = " + ".join(part for part, amount in (("systemReserved memory", profile.system_reserved.get("memory")),
                                                  ("evictionHard memory.available", eviction)) if amount)
    pin = Fix("write kubeReserved.memory (in the NodeConfig's spec.kubelet.config, or an EC2NodeClass's spec.kubelet), "
              "so the total no longer depends on the instance type, and list reservedMemory memory adding up to it"
              + (f" + {others}" if others else ""))
    if not total:
        yield _finding(
            profile, "memoryManagerPolicy Static with no memory under reservedMemory: the kubelet refuses to start "
            '(the total amount "0" of type "memory" is not equal to the value determined by Node Allocatable feature): '
            f"{how}, never zero", where, fix=pin)
        return
    pods = (total - rest - 255 * MEBIBYTE) / (11 * MEBIBYTE)
    if pods < 1 or (eviction is not None and pods.denominator != 1):  # a percentage threshold only adds to it
        yield _finding(
            profile, f"reservedMemory memory sums to {format_bytes(total)}, which no count of max pods gives: "
            f"{how}" + (f", plus {others} ({format_bytes(rest)})" if others else "")
            + '; the kubelet refuses to start on every instance (the total amount of type "memory" is not equal to '
            "the value determined by Node Allocatable feature)", "reservedMemory", fix=pin)
        return
    right = (f"only where the max pods come to {pods}" if eviction is not None else
             "only where the max pods and the node's memory give exactly this total (the eviction threshold is a "
             "percentage of the node's memory)")
    yield _finding(
        profile, f"memoryManagerPolicy Static with kubeReserved memory left to nodeadm: {how}, so the "
        f"reservedMemory total {format_bytes(total)} is right {right}; on any other the kubelet refuses to start",
        "reservedMemory", severity="warning", fix=pin)


def _right_only_where_sizing_is_off(analysis: Analysis, profile: KubeletProfile) -> Iterator[Hit]:
    """A KubeletConfig with autoSizingReserved unwritten on an OpenShift 4.21+ worker pool, whose reservedMemory is
    right for one of the two ways such a pool runs: the static reservation (node sizing off: a cluster upgraded
    from an older release) or the node-sized one (on: a cluster installed at 4.21). The kubelet of the other kind
    of cluster refuses it. Info: writing autoSizingReserved makes it right on every cluster."""
    if (profile.memory_policy != "Static" or profile.rendered_from is not None or not profile.reserved_memory
            or "systemReserved.memory" not in profile.platform_defaults
            or not profile.sizing_unsettled(analysis.version)):
        return
    capacity = analysis.node_memory(profile)
    static = profile.allocatable_reservation("memory", capacity, analysis.version, sized=False)
    sized = profile.allocatable_reservation("memory", capacity, analysis.version, sized=True)
    total = profile.reserved_total("memory")
    if static == sized or total not in (static, sized):  # the same either way, or wrong either way (reported)
        return
    if total == static:
        nodes = f" ({format_bytes(sized)} on this pool's nodes)" if sized is not None else ""
        right, wrong, pin = (f"where node sizing is off ({UPGRADED})",
                             f"where it is on ({INSTALLED}) the machine-config operator sizes systemReserved from "
                             f"each node{nodes}", "false")
    else:
        right, wrong, pin = (f"where node sizing is on ({INSTALLED})",
                             f"where it is off ({UPGRADED}) systemReserved stays 1Gi ({format_bytes(static or 0)} "
                             "in all)", "true")
    yield _finding(
        profile,
        f"reservedMemory memory sums to {format_bytes(total)}, what the kubelet requires {right}; autoSizingReserved "
        f"is not written, and {wrong}: that kubelet refuses this total",
        "reservedMemory", severity="info",
        fix=Fix(f"write spec.autoSizingReserved: {pin} in this KubeletConfig, so the reservation holds on every "
                "cluster"))


# where OpenShift's node sizing is off and on when autoSizingReserved is not written (views/kubelet.py)
UPGRADED = ("as on clusters upgraded from OpenShift releases before 4.21, which keep a 50-<pool>-auto-sizing-disabled "
            "MachineConfig")
INSTALLED = "the default on clusters installed at 4.21 or later"


def _sized_without_topology(analysis: Analysis, profile: KubeletProfile) -> Iterator[Hit]:
    """The Static memory manager on a pool whose systemReserved memory the machine-config operator may size from
    the node, without the pool's topology: the total reservedMemory must match depends on the node's memory."""
    release = openshift_release(analysis.version)
    unsettled = profile.sizing_unsettled(analysis.version)
    static = profile.allocatable_reservation("memory", None, analysis.version, sized=False)
    where = "reservedMemory" if profile.has("reservedMemory") else "memoryManagerPolicy"
    if unsettled:
        # with a percentage eviction threshold the static total depends on the node too
        off = format_bytes(static) if static is not None else (
            "systemReserved 1Gi + kubeReserved + the eviction threshold of the node's memory")
        sizing = (f"where node sizing is on ({INSTALLED}) the machine-config operator sizes systemReserved memory "
                  f"from each node's memory; where it is off ({UPGRADED}) the total must be {off}")
    else:
        sizing = ("the machine-config operator sizes systemReserved memory from each node's memory "
                  "(NODE_SIZING_ENABLED=true, autoSizingReserved: true)")
    if not any(e.limits.get("memory") for e in profile.reserved_memory):
        # whatever the node's size, the sized systemReserved memory is more than zero, and nothing is
        # listed: validateReservedMemory (pkg/kubelet/cm/memorymanager/memory_manager.go) compares a
        # total of 0 with it and the kubelet refuses to start
        yield _finding(
            profile,
            f"memoryManagerPolicy Static on OpenShift {release} with no memory under reservedMemory: the "
            'kubelet refuses to start (the total amount "0" of type "memory" is not equal to the value '
            f"determined by Node Allocatable feature): {sizing}, always more than zero", where,
            fix=Fix("list reservedMemory memory entries adding up to the sized systemReserved + kubeReserved "
                    "+ evictionHard memory.available: declare the pool's NodeTopology so numalint computes "
                    "it, or set systemReserved.memory (with spec.autoSizingReserved: false) and list that total"))
        return
    yield _finding(
        profile,
        f"memoryManagerPolicy Static on OpenShift {release}: {sizing}, so the total reservedMemory must "
        "match depends on the node size; numalint cannot check it without the pool's topology",
        where, severity="warning",
        fix=Fix("declare the pool's NodeTopology, or set systemReserved.memory (or spec.autoSizingReserved: false) "
                "so the reservation no longer depends on the node"))


def _numa_room(analysis: Analysis, profile: KubeletProfile, resource: str) -> dict[int, int] | None:
    """Per NUMA node: how much of ``resource`` it has (memory without its hugepages) on every machine of the
    pool, the least of them; a node some machine lacks has none (getTotalMemoryTypeReserved refuses a
    reservation on a NUMA node the machine does not have); None without a topology."""
    topologies = analysis.topologies_for(profile)
    if not topologies:
        return None
    rooms: list[dict[int, int]] = []
    for topology in topologies:
        room: dict[int, int] = {}
        for numa in topology.machine.numa_nodes:
            huge = {f"hugepages-{format_bytes(page)}": page * pages for page, pages in numa.hugepages.items()}
            room[numa.id] = numa.memory - sum(huge.values()) if resource == "memory" else huge.get(resource, 0)
        rooms.append(room)
    return {numa: min(room.get(numa, 0) for room in rooms) for numa in rooms[0]}


def _add_reserved_memory(analysis: Analysis, profile: KubeletProfile, expected: Fraction) -> Fix:
    if expected.denominator != 1:
        # no list of entries can match: convertReserved (pkg/kubelet/cm/memorymanager) takes each limit with
        # AsInt64, which refuses a fraction of a byte
        return Fix(f"write systemReserved and kubeReserved memory as whole bytes (together with the eviction "
                   f"threshold they add up to {format_bytes(expected)}, a fraction of a byte: a milli-byte value such "
                   "as 100m), then list reservedMemory entries adding up to that total")
    room = _numa_room(analysis, profile, "memory")
    target = next((n for n, free in sorted(room.items()) if free >= expected), None) if room else 0
    if target is None or expected <= 0:
        return Fix(f"list reservedMemory entries adding up to {format_bytes(expected)} on NUMA nodes that have it")
    entry = f"{{numaNode: {target}, limits: {{memory: {format_bytes(expected)}}}}}"
    if profile.has("reservedMemory"):  # written but empty: never "add" a field that is already there
        return Fix(f"list {entry} under reservedMemory")
    return Fix(f"add reservedMemory: [{entry}]")


def _explain(analysis: Analysis, profile: KubeletProfile, resource: str, expected: Fraction) -> str:
    parts = []
    capacity = analysis.node_memory(profile)
    for label, reserved in (("systemReserved", profile.system_reserved), ("kubeReserved", profile.kube_reserved)):
        if resource in reserved:
            amount = reserved[resource]
            platform = ""
            if label == "systemReserved" and f"systemReserved.{resource}" in profile.platform_defaults:
                platform = " (OpenShift default)"
                sized = profile.system_reserved_amount(resource, capacity, analysis.version)
                if profile.node_sizing(analysis.version, capacity) and sized is not None and capacity is not None:
                    amount = sized
                    platform = f" (OpenShift node sizing for {format_bytes(capacity)} of memory)"
            parts.append(f"{label} {format_bytes(amount)}{platform}")
    eviction = analysis.memory_eviction(profile)
    if resource == "memory" and eviction:
        origin = "evictionHard memory.available" + (" (default)" if profile.eviction_source == "default" else "")
        if profile.eviction_memory_percent is not None:
            origin += f" {profile.eviction_memory_percent * 100:g}% of {format_bytes(capacity or 0)}"
        parts.append(f"{origin} {format_bytes(eviction)}")
    told = f"{format_bytes(expected)} = " + " + ".join(parts) if parts else format_bytes(expected)
    if resource == "memory" and not eviction and profile.default_eviction and profile.eviction_memory is None:
        told += (f" ({profile.default_eviction} has no memory.available unless it is written: no hard-eviction "
                 "reservation)")
    return told


def _corrected(analysis: Analysis, profile: KubeletProfile, resource: str, total: Fraction,
               expected: Fraction) -> Fix:
    """Put the whole difference on the entry of the lowest NUMA node that can take it: the new value is a
    whole, positive number of bytes (zero entries are refused: validateReservedMemoryConfiguration) that the
    node has (when the topology is known), written where the entry already names the resource."""
    difference = expected - total
    if expected == 0 and resource == "memory" and total > 0:
        # removing the entries would leave the Static policy with nothing reserved, which NewPolicyStatic
        # refuses ("you should specify the system reserved memory"): reserve the same amount for the system
        return Fix(f"the kubelet reserves no memory for the system (systemReserved, kubeReserved and the hard "
                   f"eviction threshold add up to 0): set systemReserved: {{memory: {format_bytes(total)}}} so the "
                   "Node Allocatable reservation equals the reservedMemory sum")
    if expected == 0:
        # hugepages: systemReserved and kubeReserved cannot hold them (parseResourceList), so the only sum the
        # kubelet accepts is none at all; a zero entry is refused (validateReservedMemoryConfiguration)
        return Fix(f"remove {resource} from every reservedMemory entry: the kubelet reserves no {resource} "
                   "(systemReserved and kubeReserved cannot hold it, and a zero entry is refused)")
    room = _numa_room(analysis, profile, resource)
    entries = sorted((e for e in profile.reserved_memory if e.numa_node is not None), key=lambda e: e.numa_node or 0)
    for entry in entries:
        current = entry.limits.get(resource, Fraction(0))
        value = current + difference
        if value <= 0 or value.denominator != 1 or resource not in entry.raw_limits:
            continue
        if room is not None and value > room.get(entry.numa_node or 0, 0):
            continue
        corrected = {id(e): e.limits.get(resource, Fraction(0)) + (difference if e is entry else 0) for e in entries}
        values = ", ".join(f"NUMA {e.numa_node}: {format_bytes(corrected[id(e)])}" for e in entries)
        span = profile.span("reservedMemory", entry.index, "limits", resource)
        change = "adds" if difference > 0 else "removes"
        return Fix(f"set reservedMemory {resource} to {values} (the correction {change} "
                   f"{format_bytes(abs(difference))} on NUMA node {entry.numa_node})",
                   [Edit(span, format_bytes(value), string=True)], UNSAFE)
    emptied = next((e for e in entries if e.limits.get(resource) == -difference and resource in e.raw_limits), None)
    if emptied is not None:  # validateReservedMemoryConfiguration refuses a zero: the key goes, not its value
        return Fix(f"remove {resource} from the reservedMemory entry of NUMA node {emptied.numa_node} (writing 0 "
                   "is refused: the key has to go)")
    return Fix(f"make reservedMemory {resource} add up to {format_bytes(expected)}: no single entry can take the "
               f"difference of {format_bytes(abs(difference))} (decide which NUMA nodes keep it)")


RESERVED_MEMORY_FIXES = {
    "reserved-memory-type": "keep only memory and hugepages-<size> limits",
    "reserved-memory-zero": "remove the zero limit (or the entry) instead of writing 0",
    "reserved-memory-duplicate": "merge the duplicate entries into one",
    "reserved-memory-numa": "use the NUMA ids of the pool's topology",
}


@check("reserved-memory-numa")
def reserved_memory_numa(analysis: Analysis) -> Iterator[Hit]:
    """The core's reservedMemory validation (validateReservedMemoryConfiguration; getTotalMemoryTypeReserved
    for NUMA ids on the pool's machine), plus the entry shapes the decoder would refuse."""
    claimed = set(catalogue()["reserved-memory-numa"].start_problems)
    for profile in analysis.profiles:
        if profile.reserved_memory_written > MAX_RESERVED_MEMORY:
            yield _finding(profile, f"reservedMemory holds {profile.reserved_memory_written} entries; no machine has "
                           f"that many NUMA nodes and memory types: numalint reads the first {MAX_RESERVED_MEMORY}",
                           "reservedMemory", fix=Fix("keep one entry per NUMA node"))
        for entry in profile.reserved_memory:
            where = ("reservedMemory", entry.index)
            if entry.numa_node is None:
                yield _finding(profile, "reservedMemory entry without an integer numaNode",
                               *where, fix=Fix("add numaNode: <id>"))
                continue
            if entry.numa_node < 0:
                yield _finding(profile, f"reservedMemory numaNode {entry.numa_node} is negative", *where, "numaNode")
            for resource, raw in entry.raw_limits.items():
                amount = try_quantity(raw)
                if amount is not None and amount < 0:
                    # validateReservedMemoryConfiguration has no check for a negative limit; convertReserved
                    # (memory_manager.go) reads it as uint64(q.AsInt64()), which wraps around
                    yield _finding(
                        profile,
                        f'reservedMemory "{resource}" for NUMA node {entry.numa_node} is negative ({raw}): the kubelet '
                        "does not refuse it (validateReservedMemoryConfiguration checks only zero, unsupported and "
                        "duplicate limits) but reads it as an unsigned 64-bit number, so the Memory Manager's "
                        "accounting of that NUMA node is wrong", *where, "limits", resource,
                        fix=Fix("remove the limit (no hugepages are reserved for the system: their entries must add "
                                "up to 0)" if resource.startswith("hugepages-") else
                                "remove the limit, or reserve a positive amount (the memory entries adding up to the "
                                "Node Allocatable reservation)"))
        for problem in analysis.start_problems(profile):
            if problem.reason not in claimed:
                continue
            message = problem.message
            if problem.reason == "reserved-memory-numa":
                topologies = analysis.topologies_for(profile)
                if topologies:
                    message += (f' (topology "{topologies[0].name}" has NUMA nodes '
                                f"{', '.join(map(str, topologies[0].machine.numa_ids))})")
            key = problem.reason in ("reserved-memory-type", "reserved-memory-duplicate")
            yield _finding(profile, f"{message}; the kubelet refuses to start", problem.field, *problem.path,
                           key=key, fix=Fix(RESERVED_MEMORY_FIXES[problem.reason]))


OPTION_FIXES = {
    "bad-bool": 'use "true" or "false"',
    "bad-int": 'use an integer such as "16"',
    "min-numa-nodes": 'remove it or use "8" or more',
    "incompatible-policy": "drop align-by-socket or use topologyManagerPolicy restricted",
}
VALUE_REASONS = {"bad-bool", "bad-int", "min-numa-nodes"}  # the value is wrong, not the key


@check("policy-option")
def policy_option(analysis: Analysis) -> Iterator[Hit]:
    """The core's own option problems (NewPolicyOptions / NewStaticPolicyOptions), placed on the option."""
    claimed = set(catalogue()["policy-option"].start_problems)
    for pool_run in analysis.pool_runs:
        profile, topology = pool_run.pool.profile, pool_run.pool.topology
        if pool_run.missing_distances and profile is not None and topology is not None:
            # the kubelet refuses to start without distances (NewNUMAInfo), but a node always has them in sysfs:
            # what is missing is in the declared topology, so the pool is only not simulated
            yield _finding(profile, f'prefer-closest-numa-nodes needs the NUMA distances, which topology '
                           f'"{topology.name}" does not declare: numalint does not simulate this pool (on the node '
                           "the kubelet reads them from sysfs)", "topologyManagerPolicyOptions",
                           "prefer-closest-numa-nodes", key=True,
                           fix=Fix("declare distances for every NUMA node of the topology (`numalint topology "
                                   "capture` records them)"), severity="warning")
    for profile in analysis.profiles:
        for problem in analysis.start_problems(profile):
            if problem.reason not in claimed:
                continue
            message, fix = problem.message, OPTION_FIXES.get(problem.reason)
            if problem.reason == "options-gate" and problem.field == "cpuManagerPolicyOptions":
                fix = ("remove featureGates.CPUManagerPolicyOptions: false (the gate is on by default) or drop "
                       "cpuManagerPolicyOptions")
            elif problem.reason == "options-gate":
                fix = gate_fix(profile, "TopologyManagerPolicyOptions")
            elif problem.reason == "none-policy-options":
                fix = "remove cpuManagerPolicyOptions, or use cpuManagerPolicy: static with a CPU reservation"
            if problem.reason in ("unknown-option", "gated-option") and problem.key:
                message, fix = _availability(analysis, profile, problem)
            elif problem.reason == "incompatible-options" and problem.key:
                first = message.split(" and ")[0].rsplit(" ", 1)[-1]
                fix = f"keep only one of {first} and {problem.key}"
            at_key = problem.reason not in VALUE_REASONS
            yield _finding(profile, f"{message}; the kubelet refuses to start", problem.field,
                           *_inside(profile, problem), key=at_key,
                           fix=Fix(fix) if fix else None)


def _availability(analysis: Analysis, profile: KubeletProfile, problem: StartProblem) -> tuple[str, str]:
    """Say which option names exist at the target version, or which gate unlocks the option."""
    cpu = problem.field == "cpuManagerPolicyOptions"
    table, gates = (CPU_OPTIONS, CPU_GATES) if cpu else (TOPOLOGY_OPTIONS, TOPOLOGY_GATES)
    available = {o: s for o in table if (s := maturity(table, o, analysis.version))}
    version = f"{analysis.version[0]}.{analysis.version[1]}"
    key = problem.key or ""
    if key not in available:
        return (f"{problem.message} (Kubernetes {version}: {did_you_mean(key, available)})",
                "remove the option or target a Kubernetes version that has it")
    gate = gates[available[key]]
    if profile.openshift:
        return (f"{problem.message} (OpenShift {openshift_release(analysis.version)}: the cluster's feature set does "
                f"not enable {gate})",
                f"enable {gate} in the cluster FeatureGate (featureSet: "
                + "".join(f"{name}, or " for name in openshift_sets_enabling(gate, analysis.version))
                + f"CustomNoUpgrade with customNoUpgrade.enabled: [{gate}]), or drop the option")
    return (f"{problem.message} (Kubernetes {version}: enable feature gate {gate})", gate_fix(profile, gate))


def gate_fix(profile: KubeletProfile, gate: str) -> str:
    """Turn a feature gate on: "set" a gate already written (false), "add" one that is not: a fix never adds
    an entry that is already there."""
    if gate in profile.feature_gates:
        return f"set featureGates.{gate}: true"
    return f"add {gate}: true to featureGates" if profile.has("featureGates") else f"add featureGates: {{{gate}: true}}"


# where the setting behind a problem may be written instead of the field the kubelet names
RELATED_FIELDS = {"reservedSystemCPUs": ("kubeReserved", "systemReserved"),
                  "reservedMemory": ("memoryManagerPolicy",)}


@check("kubelet-start")
def kubelet_start(analysis: Analysis) -> Iterator[Hit]:
    """Start-up problems that no other rule claims, so nothing the core knows stays silent."""
    claimed = {reason for rule in catalogue().values() for reason in rule.start_problems}
    for profile in analysis.profiles:
        for problem in analysis.start_problems(profile):
            if problem.reason in claimed:
                continue
            written = next((f for f in (problem.field, *RELATED_FIELDS.get(problem.field, ())) if profile.has(f)),
                           problem.field)
            hit = _finding(profile, f"the kubelet refuses to start: {problem.message}", written,
                           *_inside(profile, problem), key=True)
            hit.fix = _gate_fix(problem, not profile.flags_only and hit.span in profile.flag_spans)
            yield hit
        yield from _enforced_without_cgroup(profile, analysis)


def _gate_fix(problem: StartProblem, flag: bool) -> Fix | None:
    """What to do with a feature gate the kubelet refuses: one its version removed or locks is left out (the feature
    is on either way); a misspelt one is named in the message. ``flag``: it is written in the kubelet's
    --feature-gates flag (kubeadm's kubeletExtraArgs, nodeadm's flags), not in featureGates."""
    where = "the kubelet's --feature-gates flag" if flag else "featureGates"
    if problem.reason == "removed-gate":
        return Fix(f"remove {problem.key} from {where}")
    if problem.reason == "locked-gate":
        return Fix(f"remove {problem.key}{'=' if flag else ': '}false from {where} (the feature is always on)")
    return None


def _enforced_without_cgroup(profile: KubeletProfile, analysis: Analysis) -> Iterator[Hit]:
    """enforceNodeAllocatable naming system-reserved or kube-reserved without that cgroup: the kubelet's
    configuration validation refuses it (pkg/kubelet/apis/config/validation: ValidateKubeletConfiguration), what
    reserved-cpus-conflict's fix says to remove with the cgroups. On OpenShift the machine-config operator's
    template gives systemReservedCgroup (/system.slice) and no kubeReservedCgroup, and with reservedSystemCPUs the
    operator writes enforceNodeAllocatable itself ([pods]): what the KubeletConfig lists then never applies."""
    if profile.openshift and profile.reserved_cpus_text:
        return
    listed = profile.raw.get(profile.keys.get("enforceNodeAllocatable", "enforceNodeAllocatable"))
    if not isinstance(listed, list):
        return
    cgroups = {"system-reserved": ("systemReservedCgroup", profile.system_reserved_cgroup_at(analysis.version)),
               "kube-reserved": ("kubeReservedCgroup", profile.kube_reserved_cgroup)}
    for index, entry in enumerate(listed):
        if not isinstance(entry, str) or entry not in cgroups or cgroups[entry][1]:
            continue
        field = cgroups[entry][0]
        flag = "--" + entry + "-cgroup"
        yield _finding(profile, f"the kubelet refuses to start: invalid configuration: {field} ({flag}) must be "
                                f'specified when "{entry}" contained in enforceNodeAllocatable '
                                "(--enforce-node-allocatable)", "enforceNodeAllocatable", index,
                       fix=Fix(f'remove "{entry}" from enforceNodeAllocatable' + (
                           " (a reserved cgroup cannot go with reservedSystemCPUs)" if profile.reserved_cpus_text else
                           f", or set {field} to the cgroup the {entry.split('-')[0]} daemons run in")))


def _inside(profile: KubeletProfile, problem: StartProblem) -> tuple[str | int, ...]:
    """The path below the field to the key a problem names, when it is written there."""
    if problem.path:
        return problem.path
    value = profile.raw.get(profile.keys.get(problem.field, problem.field))
    return (problem.key,) if problem.key and isinstance(value, dict) and problem.key in value else ()


# validateUserKubeletConfig (machine-config-operator pkg/controller/kubelet-config/helpers.go) refuses these
# when decoded to a non-zero value. runtimeRequestTimeout is not among them: the check was dropped long
# before OpenShift 4.17 (the release that added the autoSizingReserved check already has none).
OPENSHIFT_REJECTED = {
    "cgroupDriver": "the cluster sets the cgroup driver",
    "clusterDNS": "the cluster network operator sets it",
    "clusterDomain": "the cluster network operator sets it",
    "featureGates": "use the cluster FeatureGate resource",
    "failSwapOn": "swap is managed by the platform",
    "staticPodPath": "the platform's static pods live there",
}


# validateUserKubeletConfig compares with Go's zero value: an empty string, list or map passes; failSwapOn
# is a pointer, so writing it at all is refused
PRESENCE_REFUSED = frozenset({"failSwapOn"})


def _go_zero(value: object) -> bool:
    return value is None or value == "" or value == [] or value == {}


# fields the machine-config operator refuses only from a Kubernetes version on: failSwapOn and a non-empty
# memorySwap.swapBehavior arrive together with platform-managed worker swap (workers render failSwapOn: false
# and swapBehavior: NoSwap, kubelet_config_failswapon_test.go): machine-config-operator PR 5294 ("rejecting it
# on the cluster API level", approved October 2025, the 4.21 development branch), and the 4.21 documentation
# dropped KubeletConfig swap settings (openshift-docs PR 102957). Earlier releases pass both through.
OPENSHIFT_REFUSED_SINCE = {"failSwapOn": (1, 34), "swapBehavior": (1, 34)}


# validateUserKubeletConfig: "systemReservedCgroup (%s) must match systemCgroups (%s)" when both are set,
# added with system-reserved-compressible by default (machine-config-operator PR 5408, OpenShift 4.22)
OPENSHIFT_CGROUPS_MATCH_SINCE = (1, 35)


def _refused_at(name: str, version: tuple[int, int]) -> bool:
    return version >= OPENSHIFT_REFUSED_SINCE.get(name, (0, 0))


@check("kubeletconfig-unsupported-field")
def kubeletconfig_unsupported_field(analysis: Analysis) -> Iterator[Hit]:
    for profile in analysis.profiles:
        if not profile.openshift:
            continue
        for name, why in OPENSHIFT_REJECTED.items():
            if not _refused_at(name, analysis.version):
                continue
            if profile.has(name) and (name in PRESENCE_REFUSED or not _go_zero(profile.raw[profile.keys[name]])):
                yield _finding(profile,
                               f"{name} is not allowed in a KubeletConfig ({why}); the machine-config operator "
                               "rejects the whole KubeletConfig (Accepted=False)", name, key=True,
                               fix=Fix(f"remove {name}"))
        swap = profile.raw.get(profile.keys.get("memorySwap", "memorySwap"))
        if (isinstance(swap, dict) and not _go_zero(swap.get("swapBehavior"))
                and _refused_at("swapBehavior", analysis.version)):
            yield _finding(profile,
                           "memorySwap.swapBehavior is not allowed in a KubeletConfig; the machine-config operator "
                           "rejects the whole KubeletConfig", "memorySwap", "swapBehavior", key=True,
                           fix=Fix("remove memorySwap.swapBehavior"))
        reserved_cgroup, system_cgroups = (profile.raw.get(profile.keys.get(n, n))
                                           for n in ("systemReservedCgroup", "systemCgroups"))
        if (analysis.version >= OPENSHIFT_CGROUPS_MATCH_SINCE and isinstance(reserved_cgroup, str)
                and isinstance(system_cgroups, str) and "" not in (reserved_cgroup, system_cgroups)
                and reserved_cgroup != system_cgroups):
            yield _finding(profile,
                           f"systemReservedCgroup ({reserved_cgroup}) must match systemCgroups ({system_cgroups}); "
                           "the machine-config operator rejects the whole KubeletConfig", "systemReservedCgroup",
                           key=True, fix=Fix(f"set systemReservedCgroup to {system_cgroups}, or remove one of them"))
        auto = profile.doc.root.get("spec", {}).get("autoSizingReserved") if isinstance(
            profile.doc.root.get("spec"), dict) else None
        if auto is True and profile.has("systemReserved"):
            yield _finding(profile,
                           "systemReserved together with autoSizingReserved: true is rejected by the machine-config "
                           "operator", "systemReserved", key=True,
                           fix=Fix("remove systemReserved or set autoSizingReserved: false"))
    # logLevel is checked before the early return for a KubeletConfig without spec.kubeletConfig (such a
    # document has no kubelet profile: it is among the run's other documents)
    docs = [p.doc for p in analysis.profiles if p.openshift and p.doc.kind == KUBELET_CONFIG]
    for doc in docs + analysis.of_kind(KUBELET_CONFIG):
        level = get(doc.root, ("spec", "logLevel"))
        if level is not None and (not isinstance(level, int) or isinstance(level, bool) or not 1 <= level <= 10):
            name = get(doc.root, ("metadata", "name"))
            ref = ObjectRef(doc.api_version, doc.kind, str(name) if name else "", None)
            yield Hit(f"KubeletConfig's LogLevel is not valid [1,10]: {level}; the machine-config operator rejects "
                      "the whole KubeletConfig (validateUserKubeletConfig)", doc.file,
                      locate(doc.root, ("spec", "logLevel")), ref, Fix("use a logLevel from 1 to 10"))
