"""Reading a node's topology from Linux sysfs (Documentation/ABI/stable/sysfs-devices-node); read-only, also on a
recorded copy."""

from __future__ import annotations

import datetime
import os
import platform
import re
import socket
from pathlib import Path

from numalint.alignment.machine import CPU, Device, Machine, NUMANode
from numalint.k8s.cpuset import CPUSetError, parse_cpuset
from numalint.output.escape import escape_text
from numalint.topology.emit import schema_problems, topology_document
from numalint.topology.safe_read import FileTooLarge, read_capped
from numalint.views.topology import MAX_COUNT, NIC

NVIDIA_VENDOR = "0x10de"
MAX_ATTRIBUTE = 1 << 16  # a sysfs attribute is at most a page; a CPU list of 65,536 CPUs fits
MAX_NUMA_ID = 63  # as numalint's NodeTopology schema
_NUMBER = re.compile(r"-?[0-9]{1,18}", re.ASCII)  # what the kernel prints: ASCII digits ('²' is not one)
_NODE_DIR = re.compile(r"node([0-9]+)", re.ASCII)
_HUGEPAGE_DIR = re.compile(r"hugepages-([0-9]{1,12})kB", re.ASCII)


class CaptureError(Exception):
    """The sysfs tree lacks what a topology needs, or holds what no kernel writes."""

    def __init__(self, message: str) -> None:
        super().__init__(escape_text(message))  # file names and values in it come from the input


def _read(path: Path) -> str | None:
    """An attribute's text; None when absent, unreadable or not a regular file (a FIFO, /dev/zero)."""
    try:
        return read_capped(path, MAX_ATTRIBUTE).decode("utf-8", errors="replace").strip()
    except FileTooLarge:
        raise CaptureError(f"{path}: more than {MAX_ATTRIBUTE} bytes, not a sysfs attribute") from None
    except OSError:
        return None


def _number(text: str, path: Path) -> int:
    if not _NUMBER.fullmatch(text):
        raise CaptureError(f"{path}: {text[:40]!r} is not a number")
    return int(text)


def _optional_number(path: Path, default: int) -> int:
    text = _read(path)
    return default if not text else _number(text, path)


def _cpus(path: Path, strict: bool = False) -> frozenset[int]:
    text = _read(path)
    if not text:
        return frozenset()
    try:
        return parse_cpuset(text)
    except CPUSetError as err:
        if strict:
            raise CaptureError(f"{path}: {err}") from None
        return frozenset()


def capture(root: str = "/") -> tuple[Machine, list[NIC]]:
    base = Path(root)
    node_dir = base / "sys/devices/system/node"
    cpu_dir = base / "sys/devices/system/cpu"
    matches = [_NODE_DIR.fullmatch(p.name) for p in node_dir.iterdir()] if node_dir.is_dir() else []
    beyond = [m.group() for m in matches if m and (len(m.group(1)) > 2 or int(m.group(1)) > MAX_NUMA_ID)]
    if beyond:
        raise CaptureError(f"{node_dir}/{beyond[0][:40]}: numalint supports NUMA node ids 0-{MAX_NUMA_ID}")
    node_ids = sorted(int(m.group(1)) for m in matches if m)
    if not node_ids:
        raise CaptureError(f"no NUMA nodes under {node_dir}")
    numa_nodes: list[NUMANode] = []
    cpus: dict[int, CPU] = {}
    for node_id in node_ids:
        path = node_dir / f"node{node_id}"
        memory = 0
        for line in (_read(path / "meminfo") or "").splitlines():
            parts = line.split()
            if len(parts) >= 4 and parts[2] == "MemTotal:":
                memory = max(_number(parts[3], path / "meminfo"), 0) * 1024
        hugepages: dict[int, int] = {}
        for huge in sorted((path / "hugepages").glob("hugepages-*kB")):
            size = _HUGEPAGE_DIR.fullmatch(huge.name)
            count = _optional_number(huge / "nr_hugepages", 0)
            if size and int(size.group(1)) > 0:
                hugepages[int(size.group(1)) * 1024] = max(count, 0)
        distance_text = _read(path / "distance")
        distances = [_number(d, path / "distance") for d in distance_text.split()] if distance_text else None
        numa_nodes.append(NUMANode(node_id, memory, hugepages, distances))
        for cpu in sorted(_cpus(path / "cpulist", strict=True)):
            topo = cpu_dir / f"cpu{cpu}" / "topology"
            socket = max(_optional_number(topo / "physical_package_id", 0), 0)  # -1 on some VMs
            siblings = _cpus(topo / "thread_siblings_list") or frozenset({cpu})
            l3 = _l3(cpu_dir / f"cpu{cpu}" / "cache")
            cpus[cpu] = CPU(cpu, min(siblings), socket, node_id, socket if l3 is None else l3)
    devices, nics = _pci(base / "sys/bus/pci/devices", base)
    machine = Machine(numa_nodes, cpus, devices)

    problems = schema_problems(topology_document("captured", machine, nics))
    if problems:  # what `check` would refuse is an error here, not a document to be rejected later
        raise CaptureError(f"{root}: the result would not be a valid NodeTopology: {problems[0]}")
    return machine, nics


def _l3(cache: Path) -> int | None:
    for index in sorted(cache.glob("index[0-9]*")):
        if _read(index / "level") == "3":
            ident = _read(index / "id")
            if ident:
                return max(_number(ident, index / "id"), 0)
            shared = _cpus(index / "shared_cpu_list")
            return min(shared) if shared else None
    return None


def _pci(pci: Path, root: Path) -> tuple[list[Device], list[NIC]]:
    devices: list[Device] = []
    nics: list[NIC] = []
    if not pci.is_dir():
        return devices, nics
    for dev in sorted(pci.iterdir()):
        numa = _optional_number(dev / "numa_node", -1)
        affinity = numa if 0 <= numa <= MAX_NUMA_ID else None
        vendor = (_read(dev / "vendor") or "").lower()
        klass = (_read(dev / "class") or "").lower()
        if vendor == NVIDIA_VENDOR and klass.startswith("0x03"):
            devices.append(Device("nvidia.com/gpu", dev.name, affinity))
        total = _optional_number(dev / "sriov_totalvfs", 0)
        if total > MAX_COUNT:
            raise CaptureError(f"{dev}/sriov_totalvfs: {total} VFs, more than any NIC has (at most {MAX_COUNT})")
        if total > 0:
            net = dev / "net"
            names = sorted(os.listdir(net)) if net.is_dir() else []
            nics.append(NIC(dev.name, names[0] if names else "", vendor.removeprefix("0x"),
                            (_read(dev / "device") or "").lower().removeprefix("0x"), total, affinity))
    return devices, nics


def provenance(root: str = "/") -> list[str]:
    """Where and when a capture was made, as YAML comment lines: host, kernel, date (UTC), sysfs root.
    A recorded copy names the host and kernel its ``proc/sys/kernel`` holds, if it does."""
    base = Path(root)
    host = _read(base / "proc/sys/kernel/hostname") or (socket.gethostname() if base == Path("/") else None)
    kernel = _read(base / "proc/sys/kernel/osrelease") or (platform.release() if base == Path("/") else None)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines = ["captured by `numalint topology capture`",
             f"host: {host or 'unknown'}", f"kernel: {kernel or 'unknown'}", f"date: {date}"]
    if base != Path("/"):
        lines.append(f"sysfs root: {root}")
    return [escape_text(line) for line in lines]  # one comment line each, whatever the input holds
