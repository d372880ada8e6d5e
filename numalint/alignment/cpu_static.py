"""The CPU Manager's static policy: options, reserved CPUs, topology hints and allocation
(pkg/kubelet/cm/cpumanager/policy_static.go)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from numalint.alignment.bitmask import Mask, bits, count, subsets
from numalint.alignment.cpu_assign import PACKED, SPREAD, TakeError, take_distributed, take_packed
from numalint.alignment.cputopo import CPUTopology
from numalint.alignment.merge import Hint
from numalint.alignment.options import ALL_STAGES, GO_BOOLS, bool_error, check_available
from numalint.alignment.startup import ConfigurationError
from numalint.k8s.cpuset import format_cpuset

# maturity at v1.32 (the oracle's version); callers pass their version's table
CPU_OPTION_MATURITY_1_32 = {
    "full-pcpus-only": "beta", "distribute-cpus-across-numa": "alpha", "align-by-socket": "alpha",
    "distribute-cpus-across-cores": "alpha", "strict-cpu-reservation": "alpha",
    "prefer-align-cpus-by-uncorecache": "alpha",
}


OPTIONS_FIELD = "cpuManagerPolicyOptions"


class PolicyError(ConfigurationError):
    """The static policy cannot start: the kubelet does not start."""


class AllocationError(Exception):
    """Allocate failed; ``reason`` is the pod's rejection reason."""

    def __init__(self, message: str, reason: str = "UnexpectedAdmissionError") -> None:
        super().__init__(message)
        self.reason = reason


@dataclass
class StaticOptions:
    full_pcpus_only: bool = False
    distribute_across_numa: bool = False
    align_by_socket: bool = False
    distribute_across_cores: bool = False
    strict_reservation: bool = False
    uncore_cache: bool = False

    _FIELDS = {
        "full-pcpus-only": "full_pcpus_only", "distribute-cpus-across-numa": "distribute_across_numa",
        "align-by-socket": "align_by_socket", "distribute-cpus-across-cores": "distribute_across_cores",
        "strict-cpu-reservation": "strict_reservation", "prefer-align-cpus-by-uncorecache": "uncore_cache",
    }

    @classmethod
    def parse(cls, options: dict[str, str], available: dict[str, str] | None = None,
              enabled_stages: frozenset[str] = ALL_STAGES) -> StaticOptions:
        """NewStaticPolicyOptions, including its incompatible-combination checks."""
        available = CPU_OPTION_MATURITY_1_32 if available is None else available
        opts = cls()
        for name, value in options.items():
            unavailable = check_available("CPU Manager", name, available, enabled_stages)
            if unavailable:
                reason = "unknown-option" if name not in available else "gated-option"
                raise PolicyError(unavailable, OPTIONS_FIELD, name, reason)
            error = bool_error(name, value)
            if error:
                raise PolicyError(error, OPTIONS_FIELD, name, "bad-bool")
            setattr(opts, cls._FIELDS[name], GO_BOOLS[value])
        pairs = [
            (opts.full_pcpus_only and opts.distribute_across_cores, "full-pcpus-only", "distribute-cpus-across-cores"),
            (opts.distribute_across_numa and opts.distribute_across_cores, "distribute-cpus-across-numa",
             "distribute-cpus-across-cores"),
            (opts.uncore_cache and opts.distribute_across_cores, "prefer-align-cpus-by-uncorecache",
             "distribute-cpus-across-cores"),
            (opts.uncore_cache and opts.distribute_across_numa, "prefer-align-cpus-by-uncorecache",
             "distribute-cpus-across-numa"),
        ]
        for clash, first, second in pairs:
            if clash:
                raise PolicyError(f"static policy options {first} and {second} can not be used at the same time",
                                  OPTIONS_FIELD, second, "incompatible-options")
        return opts


@dataclass
class CPUState:
    """The default (shared) cpuset and the exclusive assignments, as in cpu_manager_state."""

    default: set[int]
    assignments: dict[tuple[str, str], frozenset[int]] = field(default_factory=dict)
    reusable: dict[str, set[int]] = field(default_factory=dict)  # pod -> CPUs of finished init containers

    def clone(self) -> CPUState:
        return CPUState(set(self.default), dict(self.assignments), {p: set(c) for p, c in self.reusable.items()})


@dataclass
class StaticPolicy:
    topo: CPUTopology
    options: StaticOptions
    reserved: frozenset[int]
    reserved_physical: frozenset[int]

    @classmethod
    def build(cls, topo: CPUTopology, num_reserved: int, reserved: Iterable[int] | None,
              options: dict[str, str], topology_policy: str = "none", available: dict[str, str] | None = None,
              enabled_stages: frozenset[str] = ALL_STAGES) -> StaticPolicy:
        opts = StaticOptions.parse(options, available, enabled_stages)
        if opts.align_by_socket:
            if topology_policy == "single-numa-node":
                raise PolicyError("Topolgy manager single-numa-node policy is incompatible with CPUManager "
                                  "align-by-socket policy option", OPTIONS_FIELD, "align-by-socket",
                                  "incompatible-policy")
            if topo.num_sockets > topo.num_numa_nodes:
                raise PolicyError("Align by socket is not compatible with hardware where number of sockets are "
                                  "more than number of NUMA", OPTIONS_FIELD, "align-by-socket", "socket-hardware")
        policy = cls(topo, opts, frozenset(), frozenset())
        explicit = frozenset(reserved or ())
        if explicit:
            chosen = explicit
        else:
            try:
                chosen = frozenset(policy.take(topo.all_cpus, num_reserved))
            except TakeError:
                chosen = frozenset()
        if len(chosen) != num_reserved:
            raise PolicyError(f"[cpumanager] unable to reserve the required amount of CPUs (size of "
                              f"{_cpuset(chosen)} did not equal {num_reserved})", "reservedSystemCPUs", None,
                              "cannot-reserve-cpus")
        physical: set[int] = set()
        for cpu in chosen:
            if cpu in topo.details:
                physical |= topo.by_core[topo.details[cpu].core]
        policy.reserved, policy.reserved_physical = chosen, frozenset(physical)
        return policy

    def new_state(self, allocated_elsewhere: frozenset[int] = frozenset()) -> CPUState:
        default = set(self.topo.all_cpus) - set(allocated_elsewhere)
        if self.options.strict_reservation:
            default -= self.reserved
        return CPUState(default)

    def available(self, state: CPUState) -> set[int]:
        return state.default - self.reserved

    def take(self, available: Iterable[int], count_: int) -> set[int]:
        sorting = SPREAD if self.options.distribute_across_cores else PACKED
        if self.options.distribute_across_numa:
            group = self.topo.cpus_per_core if self.options.full_pcpus_only else 1
            return take_distributed(self.topo, available, count_, group, sorting)
        return take_packed(self.topo, available, count_, sorting, self.options.uncore_cache)

    # --- hints ---------------------------------------------------------------------------------
    def generate_hints(self, available: Iterable[int], reusable: Iterable[int], request: int) -> list[Hint]:
        topo = self.topo
        min_affinity = topo.num_numa_nodes
        numa_of = topo.of["numa"]
        available_by_numa: dict[int, int] = {}
        for cpu in available:
            numa = numa_of[cpu]
            available_by_numa[numa] = available_by_numa.get(numa, 0) + 1
        reusable_numas = {numa_of[c] for c in reusable}
        reusable_count = len(set(reusable))
        hints: list[Hint] = []
        sizes = topo.numa_sizes
        for mask, nodes in subsets(tuple(topo.numa_nodes)):
            if len(nodes) < min_affinity and sum(sizes[n] for n in nodes) >= request:
                min_affinity = len(nodes)
            if reusable_numas and any(not mask >> n & 1 for n in reusable_numas):
                continue
            if reusable_count + sum(available_by_numa.get(n, 0) for n in nodes) >= request:
                hints.append(Hint(mask, False))
        return [Hint(h.mask, self._preferred(h.mask, min_affinity)) for h in hints if h.mask is not None]

    def _preferred(self, mask: Mask, min_affinity: int) -> bool:
        if self.options.align_by_socket and self._socket_aligned(mask, min_affinity):
            return True
        return count(mask) == min_affinity

    def _socket_aligned(self, mask: Mask, min_affinity: int) -> bool:
        per_socket = self.topo.num_numa_nodes // self.topo.num_sockets
        if per_socket == 0:
            return False
        min_sockets = (min_affinity + per_socket - 1) // per_socket
        return len(self.topo.sockets_in_numa(bits(mask))) == min_sockets

    def hints_for(self, state: CPUState, request: int, key: tuple[str, str] | None = None) -> list[Hint]:
        """GetTopologyHints for a container asking for ``request`` exclusive CPUs."""
        if key is not None and key in state.assignments:
            held = state.assignments[key]
            if len(held) != request:
                return []
            return self.generate_hints(held, (), request)
        reusable = state.reusable.get(key[0], set()) if key else set()
        return self.generate_hints(self.available(state), reusable, request)

    def pod_hints(self, state: CPUState, pod: str, requests: list[tuple[str, int]], total: int) -> list[Hint]:
        """GetPodTopologyHints: ``requests`` are (container, exclusive CPUs) in init-then-app order."""
        assigned: set[int] = set()
        for name, request in requests:
            held = state.assignments.get((pod, name))
            if held is not None:
                if len(held) != request:
                    return []
                assigned |= held
        if len(assigned) == total:
            return self.generate_hints(assigned, (), total)
        reusable = state.reusable.get(pod, set()) | assigned
        return self.generate_hints(self.available(state), reusable, total)

    # --- allocation ----------------------------------------------------------------------------
    def allocate(self, state: CPUState, key: tuple[str, str], request: int, affinity: Mask | None,
                 init: bool = False, sidecar: bool = False) -> frozenset[int]:
        """Allocate: SMT checks, CPUs aligned to the hint first, then the rest (policy_static.go Allocate)."""
        if request == 0:
            return frozenset()
        per_core = self.topo.cpus_per_core
        if self.options.full_pcpus_only:
            if request % per_core:
                raise AllocationError(f"SMT Alignment Error: requested {request} cpus not multiple cpus per core = "
                                      f"{per_core}", "SMTAlignmentError")
            physical = len(state.default - self.reserved_physical)
            if request > physical:
                raise AllocationError(f"SMT Alignment Error: not enough free physical CPUs: available physical CPUs = "
                                      f"{physical}, requested CPUs = {request}, CPUs per core = {per_core}",
                                      "SMTAlignmentError")
        if key in state.assignments:
            return state.assignments[key]
        pod = key[0]
        allocatable = self.available(state) | state.reusable.get(pod, set())
        result: set[int] = set()
        try:
            if affinity is not None:
                aligned = self._aligned(affinity, allocatable)
                result |= self.take(aligned, min(request, len(aligned)))
            result |= self.take(allocatable - result, request - len(result))
        except TakeError as err:
            raise AllocationError(str(err)) from None
        state.default -= result
        cpus = frozenset(result)
        state.assignments[key] = cpus
        reuse = state.reusable.setdefault(pod, set())
        if init and not sidecar:
            reuse |= cpus
        else:  # app containers and sidecars keep their CPUs: no longer reusable (updateCPUsToReuse)
            reuse -= cpus
        for other in [p for p in state.reusable if p != pod]:
            del state.reusable[other]
        return cpus

    def _aligned(self, affinity: Mask, allocatable: set[int]) -> set[int]:
        nodes = bits(affinity)
        if self.options.align_by_socket:
            sockets = self.topo.sockets_in_numa(nodes)
            return {c for c in allocatable if self.topo.details[c].socket in sockets}
        return allocatable & self.topo.cpus_in_numa(nodes)


def _cpuset(cpus: Iterable[int]) -> str:

    return format_cpuset(cpus)
