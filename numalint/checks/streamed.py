"""A run of many files checked as a stream: its memory stays flat however many workload files it has.

Most files of a large repository hold workloads (and objects numalint never reads: Services, ConfigMaps, RBAC).
When no pool of the run has a topology nothing is simulated, and then what numalint says of a workload depends on
that workload and on the node side alone (kubelet configurations, PerformanceProfiles, SR-IOV objects,
kustomizations), never on another workload; what it says of the node side depends on the workloads only through
the resources they ask for (an SR-IOV policy nothing uses), and a fix's proof on a kubelet configuration or a
workload only through errors no such fix can bring to another workload. So the node side is read first, and the
workload files are then read and checked in batches by forked processes that send back findings, the identities
of the objects (for ``duplicate-object``, decided in input order as ever) and the resources asked for; no
workload tree or view outlives its batch. The report is the one the whole run gives (tests/test_streamed.py
compares the two).

A file is taken for a workload file before it is parsed, from its bytes (``NODE_MARKERS``: no kind numalint reads
besides workloads is named in it); once parsed it must hold workloads only, or the run is checked whole. The run is
also checked whole when it is small, has context files or declared clusters, has a topology or a node's state,
is checked for `fix`, or a fix must be proven on every workload (a fix of an SR-IOV policy).
"""

from __future__ import annotations

import os
import re
from functools import cache
from typing import TYPE_CHECKING

from numalint.k8s.kinds import NODE_MARKERS
from numalint.model.kustomize import KUSTOMIZATION_NAMES
from numalint.reading.sources import ReadError, read_capped

if TYPE_CHECKING:
    from numalint.engine import Options, Report


def is_workload_file(path: str) -> bool:
    """Whether a file's bytes name no kind numalint reads besides workloads (nor a kubelet's flags): a workload
    file, or one of objects numalint never reads. Made sure of once it is parsed
    (``stream_batches._only_workloads``)."""
    if path == "-" or os.path.basename(path) in KUSTOMIZATION_NAMES:
        return False
    try:
        data = read_capped(path)
    except (ReadError, OSError, ValueError):
        return False
    return b"\x00" not in data and _marker().search(data) is None  # no NUL: UTF-16 and -32 are read whole


@cache
def _marker() -> re.Pattern[bytes]:
    """Compiled on first use: every `numalint check` imports this module, few runs stream (start-up time)."""
    return re.compile(b"|".join(re.escape(marker.encode()) for marker in NODE_MARKERS))


def run_check(paths: list[str], options: Options, stdin_text: str | None = None,
              texts: dict[str, str] | None = None) -> Report:
    """``engine.run_check`` for `numalint check`: a run of many files without stdin, declared clusters or a node's
    state reads its workload files after the node side and checks them as a stream, when it can."""
    from numalint.engine import _read_all, _read_inputs
    from numalint.engine import run_check as whole

    if stdin_text is not None or texts or options.cluster_of is not None or options.node_state is not None:
        return whole(paths, options, stdin_text, texts)
    read, count, missing, every = _read_inputs(paths, options, {}, defer=is_workload_file)
    if any(result is None for result in read):  # (``every`` is then a ``PathList``)
        from numalint.checks.stream_batches import check  # here: only a run that streams needs it

        report = check(read, every, count, missing, options)
        if report is not None:
            return report
        unread = [index for index, result in enumerate(read) if result is None]
        for index, result in zip(unread, _read_all([every[i] for i in unread], {}, options.jobs), strict=True):
            read[index] = result  # checked whole after all: read them too
    return whole(paths, options, read=(read, count, missing, every))


