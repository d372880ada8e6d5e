"""A live node's checkpoint files (pkg/kubelet/cm/{cpumanager,memorymanager}/state/checkpoint.go) as the simulation's
starting point.

``cpu_manager_state`` and ``memory_manager_state`` from /var/lib/kubelet are read, checked the way the
kubelet's validateState checks them at start-up, and applied to the first node of the pool so that
the simulation answers "will this new pod be admitted on that node now".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from numalint.alignment.memory_static import Block, MemoryTable, NodeState
from numalint.alignment.node import Node
from numalint.k8s.cpuset import CPUSetError, format_cpuset, parse_cpuset
from numalint.topology.safe_read import read_capped

CPU_FILE = "cpu_manager_state"
# a deleted checkpoint is gone from the node, not from the copy --node-state reads: the node then starts afresh
AFTERWARDS = "(then check without --node-state: the node starts with no checkpoint)"
DELETE_CHECKPOINT = f"drain the node and delete the checkpoint {AFTERWARDS}"
MEMORY_FILE = "memory_manager_state"
MAX_CHECKPOINT = 4 << 20  # a node with 64 NUMA nodes and thousands of containers writes well under 1 MiB


@dataclass
class StateProblem:
    file: str
    message: str
    fix: str


@dataclass
class NodeStateFiles:
    cpu: dict[str, Any] | None = None
    memory: dict[str, Any] | None = None
    cpu_path: str = ""
    memory_path: str = ""
    problems: list[StateProblem] = field(default_factory=list)


def read_state(directory: str) -> NodeStateFiles:
    state = NodeStateFiles()
    base = Path(directory)
    for name, attr in ((CPU_FILE, "cpu"), (MEMORY_FILE, "memory")):
        path = base / name
        setattr(state, f"{attr}_path", str(path))
        if not path.exists():
            continue
        try:  # a FIFO or /dev/zero in its place is refused, not waited for or read forever
            data = json.loads(read_capped(path, MAX_CHECKPOINT).decode("utf-8"))
        except (OSError, ValueError, RecursionError) as err:  # ValueError: also UTF-8, JSON, 4,300+-digit numbers
            state.problems.append(StateProblem(str(path), f"cannot read the checkpoint: {str(err)[:200]}",
                                               "copy the file again from /var/lib/kubelet"))
            continue
        if not isinstance(data, dict):
            state.problems.append(StateProblem(str(path), "the checkpoint is not a JSON object", "copy it again"))
            continue
        setattr(state, attr, data)
    if state.cpu is None and state.memory is None and not state.problems:
        state.problems.append(StateProblem(str(base), f"neither {CPU_FILE} nor {MEMORY_FILE} found in {directory}",
                                           "point --node-state at a copy of /var/lib/kubelet"))
    return state


def apply_state(node: Node, files: NodeStateFiles) -> list[StateProblem]:
    """Load the checkpoints into ``node``; return what the kubelet would refuse at start-up."""
    problems: list[StateProblem] = []
    if files.cpu is not None:
        problems += _apply_cpu(node, files.cpu, files.cpu_path)
    if files.memory is not None:
        problems += _apply_memory(node, files.memory, files.memory_path)
    return problems


def _policy_changed(path: str, prefix: str, wanted: str, data: dict[str, Any]) -> list[StateProblem]:
    """The checkpoint was written under another policy: the kubelet refuses to start."""
    policy = data.get("policyName")
    if policy == wanted:
        return []
    return [StateProblem(path, f'{prefix}configured policy "{wanted}" differs from state checkpoint policy '
                               f'"{policy}": the kubelet refuses to start',
                         f"drain the node and delete /var/lib/kubelet/{Path(path).name} when changing the policy "
                         f"{AFTERWARDS}")]


def _apply_cpu(node: Node, data: dict[str, Any], path: str) -> list[StateProblem]:
    changed = _policy_changed(path, "", node.settings.cpu_policy, data)
    if changed:
        return changed
    if node.cpu is None:
        return []
    all_cpus = set(node.topo.all_cpus)
    beyond = _beyond(data, max(all_cpus, default=-1))
    if beyond is not None:  # not made into sets: a thousand entries of "0-65535" took gigabytes
        return [StateProblem(path, f'current set of available CPUs "{format_cpuset(all_cpus)}" doesn\'t match with '
                                   f"CPUs in state (it names CPU {beyond}: the topology differs from this node's)",
                             "check the declared topology against the node")]
    try:
        default = set(parse_cpuset(str(data.get("defaultCpuSet", ""))))
        entries = {(str(pod), str(ctr)): frozenset(parse_cpuset(str(cpus)))
                   for pod, ctrs in (data.get("entries") or {}).items() if isinstance(ctrs, dict)
                   for ctr, cpus in ctrs.items()}
    except (CPUSetError, AttributeError) as err:
        return [StateProblem(path, f"unreadable cpuset in the checkpoint: {err}", "copy the file again")]
    problems = []
    reserved = node.cpu.reserved
    if node.cpu.options.strict_reservation:
        all_cpus -= reserved
    elif not reserved <= default:
        problems.append(StateProblem(path, f'not all reserved cpus: "{format_cpuset(reserved)}" are present in '
                                           f'defaultCpuSet: "{format_cpuset(default)}" (stale state: the reservation '
                                           "changed)", DELETE_CHECKPOINT))
    known = set(default)
    shown_default = None  # written once: a checkpoint of thousands of overlapping entries formatted it for each
    for (pod, ctr), cpus in entries.items():
        if default & cpus:
            shown_default = shown_default or format_cpuset(default)
            problems.append(StateProblem(path, f'pod: {pod}, container: {ctr} cpuset: "{format_cpuset(cpus)}" overlaps '
                                               f'with default cpuset "{shown_default}"', DELETE_CHECKPOINT))
        known |= cpus
    if known != all_cpus:
        problems.append(StateProblem(path, f'current set of available CPUs "{format_cpuset(all_cpus)}" doesn\'t match '
                                           f'with CPUs in state "{format_cpuset(known)}" (the topology differs from '
                                           "this node's)", "check the declared topology against the node"))
    if not problems:
        node.cpu_state.default = default
        node.cpu_state.assignments.update(entries)
    return problems


def _beyond(data: dict[str, Any], highest: int) -> int | None:
    """The first CPU id above ``highest`` (the topology's last CPU) that the checkpoint's well-formed cpusets name,
    read from their text; None when each names none. Such a cpuset can never add up to the node's CPUs
    (validateState: "current set of available CPUs ... doesn't match"). A cpuset Go's parser may refuse is left to
    ``parse_cpuset``, whose error the kubelet gives first."""
    entries = data.get("entries")
    texts = [data.get("defaultCpuSet", "")] + [cpus for ctrs in (entries.values() if isinstance(entries, dict) else ())
                                               if isinstance(ctrs, dict) for cpus in ctrs.values()]
    for text in texts:
        if not isinstance(text, str) or not _CPU_LIST.fullmatch(text):
            continue
        bounds = [[int(n) for n in part.split("-")] for part in text.split(",")]
        if any(len(b) == 2 and b[0] > b[1] for b in bounds):
            continue  # an invalid range: parse_cpuset says so
        top = max(b[-1] for b in bounds)
        if top > highest:
            return top
    return None


# a well-formed CPU list whose ids stay within Go's int (Atoi): ranges of plain digits, no sign, no space
_CPU_LIST = re.compile(r"[0-9]{1,15}(?:-[0-9]{1,15})?(?:,[0-9]{1,15}(?:-[0-9]{1,15})?)*", re.ASCII)


def _apply_memory(node: Node, data: dict[str, Any], path: str) -> list[StateProblem]:
    changed = _policy_changed(path, "[memorymanager] ", node.settings.memory_policy, data)
    if changed:
        return changed
    if node.memory is None:
        return []
    expected = node.memory.new_state()
    machine = data.get("machineState")
    if machine is not None and not isinstance(machine, dict):  # Go cannot decode it into the map of NUMA nodes
        return [StateProblem(path, "unreadable machine state in the checkpoint: machineState is not an object",
                             "copy the file again")]
    machine = machine or {}
    loaded: dict[int, NodeState] = {}
    try:
        for key, raw in machine.items():
            tables = {r: MemoryTable(_uint(t["total"]), _uint(t["systemReserved"]), _uint(t["allocatable"]),
                                     _uint(t["reserved"]), _uint(t["free"])) for r, t in raw["memoryMap"].items()}
            numa = _uint(int(key) if isinstance(key, str) and _KEY.fullmatch(key) else key)
            cells = raw.get("cells", raw.get("nodes", [numa]))
            loaded[numa] = NodeState(_uint(raw.get("numberOfAssignments", 0)), [_uint(c) for c in cells], tables)
        blocks = {(str(pod), str(ctr)): [Block([_uint(n) for n in b["numaAffinity"]], str(b["type"]), _uint(b["size"]))
                                         for b in bs]
                  for pod, ctrs in (data.get("entries") or {}).items() for ctr, bs in ctrs.items()}
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as err:  # OverflowError: int(1e999)
        return [StateProblem(path, f"unreadable machine state in the checkpoint: {str(err)[:200]}",
                             "copy the file again")]
    if not loaded:  # validateState: the default machine state, unless memory is assigned
        if blocks:
            return [StateProblem(path, "[memorymanager] machine state can not be empty when it has memory "
                                       "assignments", DELETE_CHECKPOINT)]
        return []
    differing = _differing(loaded, expected.nodes)
    if differing is not None:
        return [StateProblem(path, f"[memorymanager] the expected machine state is different from the real one "
                                   f"({differing})", f"check reservedMemory and the topology, or {DELETE_CHECKPOINT}")]
    node.memory_state.nodes = loaded
    node.memory_state.blocks.update(blocks)
    return []


_KEY = re.compile(r"[0-9]{1,9}", re.ASCII)


def _differing(loaded: dict[int, NodeState], expected: dict[int, NodeState]) -> str | None:
    """How the checkpoint's machine state cannot be the one the kubelet expects (validateState's
    areMachineStatesEqual): other NUMA nodes, cells naming NUMA nodes the node lacks, other totals, system reserved
    or allocatable memory, or free and reserved memory not adding up to the allocatable (each block the kubelet
    replays moves its size from one to the other); None when it may be."""
    if set(loaded) != set(expected):
        return (f"NUMA nodes {', '.join(map(str, sorted(loaded)[:8]))}"
                f"{', ...' if len(loaded) > 8 else ''} in the checkpoint, "
                f"{', '.join(map(str, sorted(expected)))} in the declared topology")
    for numa, state in expected.items():
        got = loaded[numa]
        if not set(got.cells) <= set(expected):
            return f"NUMA {numa}: its cells name NUMA nodes the declared topology lacks"
        if not all(_same_totals(got, r, t) for r, t in state.memory.items()):
            return (f"NUMA {numa}: totals, system reserved or allocatable memory differ from the declared topology "
                    "and reservedMemory")
        if any(t.free + t.reserved != t.allocatable for t in got.memory.values()):
            return f"NUMA {numa}: free and reserved memory do not add up to the allocatable"
    return None


def _uint(value: Any) -> int:
    """A JSON number as Go's decoder reads it into a uint64: no strings, booleans, fractions or 1e999."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**64:
        raise ValueError(f"{str(value)[:40]!r} is not an unsigned 64-bit number" if not isinstance(value, int)
                         else "a number out of the unsigned 64-bit range")
    return value


def _same_totals(got: NodeState | None, resource: str, table: MemoryTable) -> bool:
    mine = got.memory.get(resource) if got is not None else None
    return mine is not None and (mine.total, mine.system_reserved, mine.allocatable) == (
        table.total, table.system_reserved, table.allocatable)
