"""Rendering a simulation as text a person reads at a glance (80 columns, aligned human units, a legend,
colour on a terminal, identical and empty nodes collapsed, every workload listed) or as JSON."""

from __future__ import annotations

import textwrap
from fractions import Fraction
from typing import Any

from numalint.findings import ObjectRef
from numalint.k8s.cpuset import format_cpuset
from numalint.k8s.quantity import format_quantity
from numalint.output import jsontext
from numalint.output.escape import escape_text
from numalint.output.sim_model import NodePicture, PoolPicture, Report, Row, Workload, free_table
from numalint.simulation.fixes import free_summary
from numalint.simulation.simulate import PodRun

WIDTH = 80
BAR = 16
NUM = 8  # one numeric column, its leading space included
RESOURCE = 15
MAX_PODS_SHOWN = 8
NO_FIX = "no single change found that admits it on this node"
LEGEND = ("legend: [rr##....] r reserved, # used by pods, . free, ~ shared (not pinned per",
          "        NUMA node: no static manager); CAP capacity (memory without hugepages),",
          "        RSV reserved, USED by pods, FREE; the scheduler line counts pod requests")
# container marks in the CPU map: letters, without r (reserved)
MARKS = "abcdefghijklmnopqstuvwxyzABCDEFGHIJKLMNOPQSTUVWXYZ"
STYLES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "blue": "34", "magenta": "35",
          "cyan": "36"}
OWNER_STYLES = ("green", "cyan", "magenta", "blue", "yellow")
SEE_POOL = {"kubelet-does-not-start": "does not start (see above)",
            "pool-not-simulated": "is not simulated (see above)"}


# --- small helpers ------------------------------------------------------------------------------------------

def human_bytes(value: int) -> str:
    """Bytes in a binary unit, at most 3 significant digits (``1.5Gi``, ``112Gi``, ``512Mi``)."""
    if value == 0:
        return "0"
    sign, value = ("-", -value) if value < 0 else ("", value)
    for suffix, unit in (("Ei", 2**60), ("Pi", 2**50), ("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if value >= unit:
            quotient = value / unit
            text = f"{quotient:.0f}" if quotient >= 99.95 or value % unit == 0 else f"{quotient:.1f}"
            return f"{sign}{text.removesuffix('.0')}{suffix}"
    return f"{sign}{value}"


def amount(resource: str, value: int | None) -> str:
    if value is None:
        return "-"
    return human_bytes(value) if resource == "memory" or resource.startswith("hugepages-") else str(value)


def _quantity(resource: str, value: Fraction) -> str:
    if resource == "memory" or resource.startswith("hugepages-"):
        return human_bytes(int(value))
    return format_quantity(resource, value) if resource == "cpu" else str(int(value))


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def bar(row: Row, width: int = BAR) -> str:
    """``rr###.......``: reserved, used, free; ``~`` for what is not tracked per NUMA node."""
    capacity = row.capacity or 1
    reserved = round(width * row.reserved / capacity)
    if row.used is None:
        return "r" * reserved + "~" * (width - reserved)
    used = min(width - reserved, round(width * row.used / capacity))
    if row.used and not used:
        used = 1  # a pod's use is never invisible
    return "r" * reserved + "#" * used + "." * max(0, width - reserved - used)


def node_range(pool: str, indices: list[int]) -> str:
    """``workers-1..19`` for contiguous node indices, ``workers-1..3, workers-7`` otherwise."""
    parts: list[str] = []
    start = previous = indices[0]
    for index in indices[1:] + [-2]:
        if index != previous + 1:
            parts.append(f"{pool}-{start}" + (f"..{previous}" if previous != start else ""))
            start = index
        previous = index
    if len(parts) > 4:
        parts = parts[:3] + [f"… ({len(indices)} nodes)"]
    return ", ".join(parts)


class Text:
    """Lines of at most WIDTH columns; spans carry a style used only when colour is on."""

    def __init__(self, colour: bool) -> None:
        self.colour = colour
        self.lines: list[str] = []

    def style(self, text: str, style: str) -> str:
        if not self.colour or not style:
            return text
        codes = ";".join(STYLES[s] for s in style.split("+"))
        return f"\x1b[{codes}m{text}\x1b[0m"

    def add(self, *spans: str | tuple[str, str]) -> None:
        self.lines.append("".join(s if isinstance(s, str) else self.style(*s) for s in spans))

    def para(self, text: str, indent: int, hanging: int = 4, style: str = "", first: str = "") -> None:
        """``text`` (already escaped) wrapped to WIDTH; ``first``: a styled lead word counted in the width."""
        lines = textwrap.wrap(first + text, WIDTH, initial_indent=" " * indent,
                              subsequent_indent=" " * (indent + hanging), break_on_hyphens=False) or [""]
        lines = [_inert(line) for line in lines]
        for i, line in enumerate(lines):
            if i == 0 and first:
                lead = " " * indent + first
                self.lines.append(self.style(lead, style) + line[len(lead):])
            else:
                self.lines.append(self.style(line, "" if first else style))

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def _inert(line: str) -> str:
    """A wrapped line never starts with ``::`` (a GitHub workflow command, even indented)."""
    stripped = line.lstrip()
    return line[:len(line) - len(stripped)] + ": :" + stripped[2:] if stripped.startswith("::") else line


def _e(text: object) -> str:
    return escape_text(str(text))


# --- text ---------------------------------------------------------------------------------------------------

def render_text(report: Report, colour: bool = False, cpus: bool = False) -> str:
    out = Text(colour)
    if not report.pools and not report.workloads:
        out.para("no pool to simulate: give a NodeTopology (or NodeResourceTopology) with --topology or among the "
                 "inputs", 0)
        return out.text()
    counts = report.counts()
    summary = (f"{len(report.workloads)} workload(s): {counts['placed']} placed, {counts['rejected']} with "
               f"rejected pods, {counts['not-simulated']} not simulated")
    out.add((_cut(summary, WIDTH), "bold"))
    if any(p.nodes for p in report.pools):
        for line in LEGEND:
            out.add((line, "dim"))
    for pool in report.pools:
        _pool(out, pool, cpus)
    if report.not_simulated:
        out.add("")
        out.add(("not simulated", "bold+yellow"))
        for workload in report.not_simulated:
            where = f" ({_e(workload.file)})" if workload.view is not None else ""
            why = workload.why if workload.why_code not in SEE_POOL or workload.pool is None else \
                f'pool "{workload.pool.pool.name}" ' + SEE_POOL[workload.why_code]
            out.para(f"{_e(workload.label)}{where}: {_e(why)}", 2)
    return out.text()


def _pool(out: Text, pool: PoolPicture, cpus: bool) -> None:
    run = pool.run
    s = run.settings
    out.add("")
    out.para(f"pool {_e(run.pool.name)}: {len(run.nodes) or run.pool.nodes} node(s)  ({_e(run.pool.why)})", 0,
             style="bold")
    out.para(f"kubelet: topology {_e(s.topology_policy)}/{_e(s.topology_scope)}, cpu {_e(s.cpu_policy)}"
             + (f" {_e(','.join(f'{k}={v}' for k, v in sorted(s.cpu_options.items())))}" if s.cpu_options else "")
             + f", memory {_e(s.memory_policy)}", 2)
    if pool.kubelet_error:
        out.para(_e(pool.kubelet_error), 2, style="red", first="the kubelet does not start: ")
    elif pool.not_simulated:
        out.para(_e(pool.not_simulated), 2, style="yellow", first="not simulated: ")
    _nodes(out, pool, cpus)
    for workload in pool.workloads:
        if workload.pods:
            _workload(out, workload)


def node_groups(pool: PoolPicture, cpus: bool) -> list[list[NodePicture]]:
    """Nodes with the same table (and scheduler line) together, in order; with ``cpus``, only empty nodes."""
    groups: dict[tuple[Any, ...], list[NodePicture]] = {}
    for node in pool.nodes:
        key: tuple[Any, ...] = (node.empty, tuple(_table(node)), scheduler_line(node))
        if cpus and not node.empty:
            key += (node.index,)
        groups.setdefault(key, []).append(node)
    return list(groups.values())


def _nodes(out: Text, pool: PoolPicture, cpus: bool) -> None:
    for number, members in enumerate(node_groups(pool, cpus)):
        first = members[0]
        names = node_range(pool.run.pool.name, [m.index for m in members])
        count = f" ({len(members)} nodes)" if len(members) > 1 else ""
        if number and first.empty:
            out.para(f"node {_e(names)}{count}: empty", 2, style="dim")
            continue
        state = ": empty" if first.empty else ": identical" if len(members) > 1 else ""
        out.para(f"node {_e(names)}{count}{state}", 2, style="bold")
        heading = f"{'NUMA':<5}{'resource':<{RESOURCE}}{'':<{BAR + 2}}" + "".join(
            f"{h:>{NUM}}" for h in ("CAP", "RSV", "USED", "FREE"))
        out.add(("    " + heading, "dim"))
        for line, row in zip(_table(first), first.rows, strict=True):
            out.add(*_styled_row(line, row))
        out.para(scheduler_line(first), 4, style="dim")
        if cpus:
            _cpu_map(out, first)


def _table(node: NodePicture) -> list[str]:
    lines = []
    previous: int | None | str = "none yet"
    for row in node.rows:
        numa = "" if row.numa == previous else ("-" if row.numa is None else str(row.numa))
        previous = row.numa
        numbers = "".join(f"{amount(row.resource, v):>{NUM}}" for v in (row.capacity, row.reserved, row.used,
                                                                        row.free))
        lines.append(f"    {numa:<5}{_cut(_e(row.resource), RESOURCE - 1):<{RESOURCE}}[{bar(row)}]{numbers}")
    return lines


def _styled_row(line: str, row: Row) -> list[str | tuple[str, str]]:
    start = line.index("[") + 1
    glyphs = line[start:start + BAR]
    spans: list[str | tuple[str, str]] = [line[:start]]
    for glyph, style in (("r", "yellow"), ("#", "green"), (".", "dim"), ("~", "blue")):
        count = glyphs.count(glyph)
        if count:
            spans.append((glyph * count, style))
    spans.append(line[start + BAR:])
    return spans


def scheduler_line(node: NodePicture) -> str:
    parts = [f"{r} {_quantity(r, node.requested.get(r, Fraction(0)))} of {_quantity(r, total)}"
             for r, total in sorted(node.allocatable.items(), key=lambda i: (i[0] not in ("cpu", "memory"), i[0]))
             if total and (r in ("cpu", "memory") or node.requested.get(r))]
    pods = f"{len(node.pods)} pod(s); " if node.pods else ""
    return _e(f"{pods}scheduler requests: " + ", ".join(parts) if parts else f"{pods}scheduler: nothing allocatable")


def _cpu_map(out: Text, node: NodePicture) -> None:
    topo = node.node.topo
    if node.node.cpu is None:
        out.para("CPUs: cpu policy none: no container holds a CPU of its own; every CPU is shared", 4, style="dim")
        return
    mark: dict[int, tuple[str, str]] = {c: ("r", "yellow") for c in node.reserved_cpus}
    key: list[tuple[str, str, str]] = []
    for number, owner in enumerate(node.owners):
        letter = MARKS[number] if number < len(MARKS) else "*"
        style = OWNER_STYLES[number % len(OWNER_STYLES)]
        for cpu in owner.cpus:
            mark[cpu] = (letter, style)
        if number <= len(MARKS):
            text = (f"{owner.pod} {owner.container}: cpus {format_cpuset(owner.cpus)}" if letter != "*"
                    else f"{len(node.owners) - number} more containers (see --format json)")
            key.append((letter, style, _e(text)))
    out.add(("    CPU map: SMT siblings side by side; r reserved, . shared, a-z containers", "dim"))
    width = max((len(str(c)) for c in topo.details), default=1)
    for numa in topo.numa_nodes:
        cores = sorted((sorted(cpus) for cpus in _cores(topo, numa)), key=lambda c: c[0])
        threads = max((len(c) for c in cores), default=1)
        cell = threads * (width + 1) - 1
        per_line = max(1, (WIDTH - 12) // (cell + 3))
        for start in range(0, len(cores), per_line):
            chunk = cores[start:start + per_line]
            label = f"NUMA {numa}" if start == 0 else ""
            ids = " | ".join(" ".join(f"{c:>{width}}" for c in core).ljust(cell) for core in chunk)
            out.add(f"    {label:<8}", ("ids ", "dim"), ids)
            spans: list[str | tuple[str, str]] = [f"    {'':<8}", ("use ", "dim")]
            for i, core in enumerate(chunk):
                if i:
                    spans.append(" | ")
                for j, cpu in enumerate(core):
                    glyph, style = mark.get(cpu, (".", "dim"))
                    spans.append((" " if j else "") + " " * (width - 1))
                    spans.append((glyph, style))
                spans.append(" " * (cell - (len(core) * (width + 1) - 1)))
            out.add(*spans)
    for letter, style, text in key:
        out.para(text, 6, hanging=4, style=style, first=f"{letter} ")


def _cores(topo: Any, numa: int) -> list[frozenset[int]]:
    mine = topo.by_numa.get(numa, frozenset())
    return [cpus & mine for core, cpus in topo.by_core.items() if cpus & mine]


def _workload(out: Text, workload: Workload) -> None:
    rejected = workload.rejected
    total = len(workload.pods)
    label = _e(workload.label)
    if rejected:
        count = f": {len(rejected)} of {total} pods rejected" if total > 1 else ""
        out.para(f"{label}{count}", 2, hanging=10, style="bold+red", first="REJECTED  ")
    else:
        count = f": {total} pods" if total > 1 else ""
        out.para(f"{label}{count}", 2, hanging=10, style="green", first="placed    ")
    shown = (rejected[:1] + [p for p in workload.pods if p not in rejected[:1]])[:MAX_PODS_SHOWN]
    for pod in sorted(shown, key=workload.pods.index):
        _pod(out, workload, pod)
    if total > len(shown):
        out.para(f"… {total - len(shown)} more pod(s), {len(rejected) - sum(1 for p in shown if p in rejected)} of "
                 "them rejected (see --format json)", 4, style="dim")


def _pod(out: Text, workload: Workload, pod: PodRun) -> None:
    admission = pod.admission
    assert admission is not None
    name = _e(pod.name)
    if admission.admitted:
        where = f"NUMA {','.join(map(str, admission.numa_nodes))}" if admission.numa_nodes else "shared pool"
        cpus = "; ".join(f"{_e(c.name)}: cpus {format_cpuset(c.cpus)}" for c in admission.containers if c.cpus)
        out.para(f"{name} -> {_e(pod.node)} {where}" + (f"  ({cpus})" if cpus else ""), 4, hanging=4)
        return
    out.para(f"{name} -> {_e(pod.node or '-')}: {_e(admission.reason)}: {_e(admission.message)}", 4, hanging=4,
             style="red")
    if pod is not workload.fix_pod:
        return
    if pod.before is not None:
        _free_table(out, pod.before, pod.node or "")
    for fix in workload.fixes or [NO_FIX]:
        out.para(_e(fix), 6, hanging=5, style="green", first="fix: ")


def _free_table(out: Text, node: Any, name: str) -> None:
    table = free_table(node)
    numas = list(table)
    resources = sorted({r for free in table.values() for r in free}, key=lambda r: (r != "cpu", r != "memory", r))
    per_chunk = max(1, (WIDTH - 8 - RESOURCE) // NUM)
    out.para(f"free on {_e(name)} at that moment:", 6, style="dim")
    for start in range(0, len(numas), per_chunk):
        chunk = numas[start:start + per_chunk]
        out.add(("        " + f"{'':<{RESOURCE}}" + "".join(f"{'NUMA ' + str(n):>{NUM}}" for n in chunk), "dim"))
        for resource in resources:
            out.add(f"        {_cut(_e(resource), RESOURCE - 1):<{RESOURCE}}" + "".join(
                f"{amount(resource, table[n].get(resource, 0)):>{NUM}}" for n in chunk))


# --- JSON ---------------------------------------------------------------------------------------------------

def pools_json(report: Report) -> dict[str, Any]:
    """Version 1, extended: every field of earlier releases keeps its meaning; new fields are added."""
    pools = []
    pods = []
    fixes = {id(w.fix_pod): w for w in report.workloads if w.fix_pod is not None}
    for picture in report.pools:
        run = picture.run
        topo, profile = run.pool.topology, run.pool.profile
        status = "simulated" if run.start_error is None else "not-simulated" if picture.not_simulated \
            else "kubelet-does-not-start"
        pools.append({
            "name": run.pool.name, "why": run.pool.why, "topology": topo.name if topo else None,
            "kubelet_config": profile.name if profile else None, "start_error": run.start_error,
            "status": status, "kubelet_start_error": picture.kubelet_error, "not_simulated": picture.not_simulated,
            "topology_policy": run.settings.topology_policy, "topology_scope": run.settings.topology_scope,
            "cpu_policy": run.settings.cpu_policy, "memory_policy": run.settings.memory_policy,
            "nodes": [_node_json(node) for node in picture.nodes]})
        for pod in run.pods:
            admission = pod.admission
            assert admission is not None
            entry: dict[str, Any] = {
                "name": pod.name.split("/", 1)[-1], "namespace": pod.view.ref.namespace, "pool": run.pool.name,
                "node": pod.node,
                "workload": _ref_json(pod.view.ref, pod.view.file),
                "admitted": admission.admitted, "reason": admission.reason,
                "message": admission.message or None, "numa_nodes": admission.numa_nodes,
                "containers": [{"name": c.name, "cpus": c.cpus, "numa_nodes": c.numa_nodes, "devices": c.devices}
                               for c in admission.containers]}
            if not admission.admitted and pod.before is not None:
                entry["free"] = {str(n): free for n, free in free_table(pod.before).items()}
                entry["free_summary"] = free_summary(pod.before)
            if id(pod) in fixes:
                entry["fixes"] = fixes[id(pod)].fixes
            pods.append(entry)
    counts = report.counts()
    return {"version": 1, "summary": {"workloads": len(report.workloads), **{k.replace("-", "_"): v
                                                                             for k, v in counts.items()}},
            "pools": pools, "pods": pods, "workloads": [_workload_json(w) for w in report.workloads]}


def _node_json(node: NodePicture) -> dict[str, Any]:
    return {"name": node.node.name,
            "numa_nodes": [{"id": numa, "resources": usage} for numa, usage in node.node.usage().items()],
            "pods": [p.name for p in node.pods], "reserved_cpus": sorted(node.reserved_cpus),
            "cpu_assignments": [{"pod": o.pod, "container": o.container, "cpus": o.cpus} for o in node.owners],
            "requested": {r: str(v) for r, v in sorted(node.requested.items())},
            "allocatable": {r: str(v) for r, v in sorted(node.allocatable.items())}}


def _ref_json(ref: ObjectRef, file: str) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": ref.kind, "name": ref.name, "file": file}
    if ref.part is not None:  # the pod template of an object with one per role ("Worker")
        out["part"] = ref.part
    return out


def _workload_json(workload: Workload) -> dict[str, Any]:
    ref = workload.view.ref if workload.view is not None else None
    return {"kind": ref.kind if ref else None, "namespace": ref.namespace if ref else None,
            "name": ref.name if ref else None, **({"part": ref.part} if ref and ref.part is not None else {}),
            "file": workload.file, "pool": workload.pool.pool.name if workload.pool is not None else None,
            "status": workload.status,
            "pods": len(workload.pods), "rejected": len(workload.rejected),
            "not_simulated": {"reason": workload.why_code, "message": workload.why} if workload.why else None,
            "fixes": workload.fixes}


def render_json(report: Report) -> str:
    return jsontext.dumps(pools_json(report)) + "\n"

