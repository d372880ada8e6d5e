"""A simulation as one self-contained HTML page: inline CSS and SVG, no script, no network, no external asset.

Each node is drawn as its NUMA nodes side by side: the CPU cores with their SMT siblings (each CPU coloured
by the pod holding it, reserved CPUs hatched), a bar per resource, and the pods placed there as coloured
blocks. Rejected pods carry their reason, the per-NUMA free table and the verified fixes; workloads that were
not simulated say why. Every string that comes from the inputs goes through ``html.escape``.
"""

from __future__ import annotations

from html import escape
from typing import Any

from numalint import __version__
from numalint.alignment.node import Node
from numalint.k8s.cpuset import format_cpuset
from numalint.output.sim_model import NodePicture, PoolPicture, Report, Row, Workload, free_table
from numalint.output.simulation import amount, node_groups, node_range, scheduler_line
from numalint.simulation.simulate import PodRun

CSS = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2330;background:#fafbfc}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 4px}h3{font-size:15px;margin:16px 0 6px}
.muted{color:#5c6370}.small{font-size:12px}code{font:12px ui-monospace,Menlo,Consolas,monospace}
.summary span{display:inline-block;margin-right:14px;padding:2px 8px;border-radius:10px;background:#e8ebf0}
.summary .bad{background:#fbdada}.summary .good{background:#d8f3dc}.summary .warn{background:#fff1c9}
.error{border-left:4px solid #d1242f;background:#fff0f0;padding:6px 10px;margin:6px 0}
.warning{border-left:4px solid #bf8700;background:#fff8e1;padding:6px 10px;margin:6px 0}
.node{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:10px 14px;margin:10px 0}
.numas{display:flex;flex-wrap:wrap;gap:12px}
.numa{border:1px solid #c8d1dc;border-radius:6px;padding:8px;min-width:260px;flex:1 1 300px;background:#f6f8fa}
.numa h4{margin:0 0 6px;font-size:13px}
.cores{display:flex;flex-wrap:wrap;gap:4px;margin-bottom:8px}
.core{display:flex;gap:1px;border:1px solid #8c959f;border-radius:3px;padding:1px;background:#fff}
.cpu{width:26px;height:22px;font:10px/22px ui-monospace,monospace;text-align:center;border-radius:2px;
background:#fff;color:#1d2330}
.cpu.rsv{background:repeating-linear-gradient(45deg,#e3c77a,#e3c77a 3px,#f5e6b8 3px,#f5e6b8 6px)}
.cpu.own{color:#fff;font-weight:600}
table.res{border-collapse:collapse;font:12px ui-monospace,monospace;width:100%}
table.res td{padding:1px 4px;white-space:nowrap}table.res td.n{text-align:right}
.pods{display:flex;flex-wrap:wrap;gap:4px;margin-top:6px}
.pod{color:#fff;border-radius:4px;padding:2px 6px;font-size:12px}
.shared{background:#8c959f}
.wl{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:6px 10px;margin:6px 0}
.wl.rejected{border-color:#d1242f}.wl.not-simulated{border-color:#bf8700}
.tag{display:inline-block;font-size:11px;font-weight:700;padding:1px 6px;border-radius:3px;margin-right:6px}
.tag.placed{background:#d8f3dc;color:#1a7f37}.tag.rejected{background:#fbdada;color:#a40e26}
.tag.not-simulated{background:#fff1c9;color:#7d4e00}
table.free{border-collapse:collapse;font:12px ui-monospace,monospace;margin:4px 0}
table.free td,table.free th{padding:1px 8px;text-align:right}table.free td:first-child{text-align:left}
.fix{color:#1a7f37}.legend{display:flex;gap:14px;flex-wrap:wrap;align-items:center;font-size:12px}
.sw{display:inline-block;width:14px;height:12px;border:1px solid #8c959f;vertical-align:middle;margin-right:4px}
"""

USED, RESERVED, FREE, SHARED = "#2f81f7", "#d4a72c", "#e6eaef", "#a5b3c5"


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def colour(index: int) -> str:
    """A distinct, readable colour per pod (golden-angle hues)."""
    return f"hsl({(index * 137.508) % 360:.0f},62%,42%)"


def render_html(report: Report) -> str:
    colours: dict[int, str] = {}
    for pool in report.pools:
        for pod in pool.run.pods:
            colours[id(pod)] = colour(len(colours))
    counts = report.counts()
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width,initial-scale=1">',
             "<title>numalint simulate</title>", f"<style>{CSS}</style></head><body>",
             "<h1>NUMA placement simulated by numalint</h1>",
             f'<p class="muted small">numalint {_e(__version__)}: where the kubelet would place each pod, NUMA node '
             "by NUMA node</p>",
             '<p class="summary">'
             f'<span>{len(report.workloads)} workload(s)</span><span class="good">{counts["placed"]} placed</span>'
             f'<span class="bad">{counts["rejected"]} with rejected pods</span>'
             f'<span class="warn">{counts["not-simulated"]} not simulated</span></p>', _legend()]
    if not report.pools:
        parts.append('<p class="warning">No pool to simulate: give a NodeTopology (or NodeResourceTopology) with '
                     "--topology or among the inputs.</p>")
    for pool in report.pools:
        parts.extend(_pool(pool, colours))
    if report.not_simulated:
        parts.append("<h2>Not simulated</h2>")
        for workload in report.not_simulated:
            parts.append(_workload(workload, colours))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _legend() -> str:
    items = [(f"background:{USED}", "used by pods"), (f"background:{RESERVED}", "reserved"),
             (f"background:{FREE}", "free"), (f"background:{SHARED}", "shared (not pinned per NUMA node)")]
    swatches = "".join(f'<span><span class="sw" style="{style}"></span>{text}</span>' for style, text in items)
    return (f'<div class="legend">{swatches}<span>CPU cells: the colour of the pod holding the CPU; hatched: '
            "reserved; white: shared pool. Memory excludes hugepages, which have their own bars.</span></div>")


def _pool(pool: PoolPicture, colours: dict[int, str]) -> list[str]:
    run = pool.run
    s = run.settings
    parts = [f"<h2>Pool {_e(run.pool.name)} <span class=\"muted small\">{len(run.nodes) or run.pool.nodes} node(s); "
             f"{_e(run.pool.why)}</span></h2>",
             f'<p class="small">kubelet: topology <code>{_e(s.topology_policy)}/{_e(s.topology_scope)}</code>, cpu '
             f"<code>{_e(s.cpu_policy)}</code>, memory <code>{_e(s.memory_policy)}</code></p>"]
    if pool.kubelet_error:
        parts.append(f'<div class="error"><b>The kubelet does not start:</b> {_e(pool.kubelet_error)}</div>')
    elif pool.not_simulated:
        parts.append(f'<div class="warning"><b>Not simulated:</b> {_e(pool.not_simulated)}</div>')
    for number, members in enumerate(node_groups(pool, True)):
        first = members[0]
        names = node_range(run.pool.name, [m.index for m in members])
        count = f" ({len(members)} nodes)" if len(members) > 1 else ""
        if number and first.empty:
            parts.append(f'<p class="muted">Node {_e(names)}{count}: empty</p>')
            continue
        parts.append(_node(first, f"{names}{count}" + (": empty" if first.empty else ""), colours))
    workloads = [w for w in pool.workloads if w.pods]
    if workloads:
        parts.append("<h3>Workloads</h3>")
        parts.extend(_workload(w, colours) for w in workloads)
    return parts


def _node(node: NodePicture, title: str, colours: dict[int, str]) -> str:
    topo = node.node.topo
    owner_colour: dict[tuple[str, str], str] = {}
    for pod in node.pods:
        for c in pod.admission.containers if pod.admission else []:
            owner_colour[(pod.spec.name, c.name)] = colours.get(id(pod), USED)
    cpu_of: dict[int, tuple[str, str]] = {}
    for owner in node.owners:
        for cpu in owner.cpus:
            cpu_of[cpu] = (f"{owner.pod} {owner.container}", owner_colour.get((owner.pod, owner.container), USED))
    rows_by_numa: dict[int | None, list[Row]] = {}
    for row in node.rows:
        rows_by_numa.setdefault(row.numa, []).append(row)
    boxes = []
    for numa in node.node.machine.numa_ids:
        cores = sorted((sorted(cpus & topo.by_numa.get(numa, frozenset())) for cpus in topo.by_core.values()
                        if cpus & topo.by_numa.get(numa, frozenset())), key=lambda c: c[0])
        cells = []
        for core in cores:
            inner = []
            for cpu in core:
                if cpu in cpu_of:
                    who, fill = cpu_of[cpu]
                    inner.append(f'<div class="cpu own" style="background:{fill}" title="CPU {cpu}: {_e(who)}">'
                                 f"{cpu}</div>")
                elif cpu in node.reserved_cpus:
                    inner.append(f'<div class="cpu rsv" title="CPU {cpu}: reserved">{cpu}</div>')
                else:
                    inner.append(f'<div class="cpu" title="CPU {cpu}: shared pool">{cpu}</div>')
            cells.append(f'<div class="core" title="core: CPUs {format_cpuset(core)}">{"".join(inner)}</div>')
        chips = [_chip(pod, colours) for pod in node.pods if pod.admission and numa in pod.admission.numa_nodes]
        boxes.append(f'<div class="numa"><h4>NUMA {numa}</h4><div class="cores">{"".join(cells)}</div>'
                     f"{_rows(rows_by_numa.get(numa, []))}"
                     + (f'<div class="pods">{"".join(chips)}</div>' if chips else "") + "</div>")
    shared = [_chip(pod, colours, "shared") for pod in node.pods if pod.admission and not pod.admission.numa_nodes]
    loose = rows_by_numa.get(None, [])
    extra = (f'<p class="small">Devices without NUMA affinity</p>{_rows(loose)}' if loose else "") + (
        f'<p class="small">Shared pool (no NUMA alignment):</p><div class="pods">{"".join(shared)}</div>'
        if shared else "")
    return (f'<div class="node"><h3>Node {_e(title)}</h3><div class="numas">{"".join(boxes)}</div>{extra}'
            f'<p class="muted small">{_e(scheduler_line(node))}</p></div>')


def _chip(pod: PodRun, colours: dict[int, str], kind: str = "") -> str:
    assert pod.admission is not None
    cpus = "; ".join(f"{c.name}: CPUs {format_cpuset(c.cpus)}" for c in pod.admission.containers if c.cpus)
    style = "" if kind else f' style="background:{colours.get(id(pod), USED)}"'
    return (f'<span class="pod {kind}"{style} title="{_e(cpus or "no exclusive CPUs")}">{_e(pod.name)}'
            + (f" <small>{_e(cpus)}</small>" if cpus else "") + "</span>")


def _rows(rows: list[Row]) -> str:
    if not rows:
        return ""
    body = []
    for row in rows:
        body.append(f"<tr><td>{_e(row.resource)}</td><td>{_bar_svg(row)}</td>"
                    + "".join(f'<td class="n">{_e(amount(row.resource, v))}</td>'
                              for v in (row.capacity, row.reserved, row.used, row.free)) + "</tr>")
    return ('<table class="res"><tr class="muted"><td></td><td></td><td class="n">cap</td><td class="n">rsv</td>'
            f'<td class="n">used</td><td class="n">free</td></tr>{"".join(body)}</table>')


def _bar_svg(row: Row, width: int = 120, height: int = 10) -> str:
    capacity = row.capacity or 1
    reserved = width * row.reserved / capacity
    segments = [(0.0, reserved, RESERVED)]
    if row.used is None:
        segments.append((reserved, width - reserved, SHARED))
    else:
        used = width * row.used / capacity
        segments += [(reserved, used, USED), (reserved + used, width - reserved - used, FREE)]
    rects = "".join(f'<rect x="{x:.1f}" y="0" width="{w:.1f}" height="{height}" fill="{fill}"/>'
                    for x, w, fill in segments if w > 0)
    return (f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{_e(row.resource)}">{rects}</svg>')


def _workload(workload: Workload, colours: dict[int, str]) -> str:
    status = workload.status
    title = _e(workload.label)
    where = f' <span class="muted small">{_e(workload.file)}</span>' if workload.view is not None else ""
    body: list[str] = []
    if workload.why:
        body.append(f"<div>{_e(workload.why)}</div>")
    rejected = workload.rejected
    if workload.pods:
        body.append(f'<div class="small muted">{len(workload.pods)} pod(s), {len(rejected)} rejected</div>')
        chips = [_chip(p, colours) for p in workload.pods if p.admission and p.admission.admitted][:50]
        if chips:
            placed = "".join(f'{chip} <span class="small">on {_e(p.node)}</span> ' for chip, p in zip(
                chips, [p for p in workload.pods if p.admission and p.admission.admitted], strict=False))
            body.append(f'<div class="pods">{placed}</div>')
    for pod in rejected[:20]:
        admission = pod.admission
        assert admission is not None
        body.append(f'<div class="error"><b>{_e(pod.name)}</b> on {_e(pod.node or "no node")}: '
                    f"<b>{_e(admission.reason)}</b>: {_e(admission.message)}")
        if pod is workload.fix_pod:
            if pod.before is not None:
                body.append(_free(pod.before, pod.node or ""))
            for fix in workload.fixes or ["no single change found that admits it on this node"]:
                body.append(f'<div class="fix">fix: {_e(fix)}</div>')
        body.append("</div>")
    if len(rejected) > 20:
        body.append(f'<div class="muted small">and {len(rejected) - 20} more rejected pods</div>')
    return (f'<div class="wl {status}"><span class="tag {status}">{status.replace("-", " ")}</span>'
            f"<b>{title}</b>{where}{''.join(body)}</div>")


def _free(node: Node, name: str) -> str:
    table: dict[int, dict[str, Any]] = free_table(node)
    resources = sorted({r for free in table.values() for r in free}, key=lambda r: (r != "cpu", r != "memory", r))
    head = "".join(f"<th>NUMA {n}</th>" for n in table)
    rows = "".join(f"<tr><td>{_e(r)}</td>" + "".join(f"<td>{_e(amount(r, free.get(r, 0)))}</td>"
                                                        for free in table.values()) + "</tr>" for r in resources)
    return (f'<div class="small muted">free on {_e(name)} at that moment:</div>'
            f'<table class="free"><tr><th></th>{head}</tr>{rows}</table>')
