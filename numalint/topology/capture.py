"""Reading a node's topology from Linux sysfs (Documentation/ABI/stable/sysfs-devices-node); read-only, also on a
recorded copy."""

from __future__ import annotations

import os
from pathlib import Path

from numalint.alignment.machine import CPU, Device, Machine, NUMANode
from numalint.k8s.cpuset import CPUSetError, parse_cpuset
from numalint.views.topology import NIC

NVIDIA_VENDOR = "0x10de"


class CaptureError(Exception):
    """The sysfs tree lacks what a topology needs."""


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def _cpus(path: Path) -> frozenset[int]:
    text = _read(path)
    if not text:
        return frozenset()
    try:
        return parse_cpuset(text)
    except CPUSetError:
        return frozenset()


def capture(root: str = "/") -> tuple[Machine, list[NIC]]:
    base = Path(root)
    node_dir = base / "sys/devices/system/node"
    cpu_dir = base / "sys/devices/system/cpu"
    node_ids = sorted(int(p.name[4:]) for p in node_dir.glob("node[0-9]*") if p.name[4:].isdigit()) \
        if node_dir.is_dir() else []
    if not node_ids:
        raise CaptureError(f"no NUMA nodes under {node_dir}")
    numa_nodes: list[NUMANode] = []
    cpus: dict[int, CPU] = {}
    for node_id in node_ids:
        path = node_dir / f"node{node_id}"
        memory = 0
        for line in (_read(path / "meminfo") or "").splitlines():
            parts = line.split()
            if len(parts) >= 4 and parts[2] == "MemTotal:" and parts[3].isdigit():
                memory = int(parts[3]) * 1024
        hugepages: dict[int, int] = {}
        for huge in sorted((path / "hugepages").glob("hugepages-*kB")):
            size = huge.name[len("hugepages-"):-2]
            count = _read(huge / "nr_hugepages")
            if size.isdigit() and count and count.isdigit():
                hugepages[int(size) * 1024] = int(count)
        distance_text = _read(path / "distance")
        distances = [int(d) for d in distance_text.split()] if distance_text else None
        numa_nodes.append(NUMANode(node_id, memory, hugepages, distances))
        for cpu in sorted(_cpus(path / "cpulist")):
            topo = cpu_dir / f"cpu{cpu}" / "topology"
            package = _read(topo / "physical_package_id")
            socket = int(package) if package and package.lstrip("-").isdigit() else 0
            siblings = _cpus(topo / "thread_siblings_list") or frozenset({cpu})
            l3 = _l3(cpu_dir / f"cpu{cpu}" / "cache")
            cpus[cpu] = CPU(cpu, min(siblings), socket, node_id, socket if l3 is None else l3)
    devices, nics = _pci(base / "sys/bus/pci/devices", base)
    return Machine(numa_nodes, cpus, devices), nics


def _l3(cache: Path) -> int | None:
    for index in sorted(cache.glob("index[0-9]*")):
        if _read(index / "level") == "3":
            ident = _read(index / "id")
            if ident and ident.isdigit():
                return int(ident)
            shared = _cpus(index / "shared_cpu_list")
            return min(shared) if shared else None
    return None


def _pci(pci: Path, root: Path) -> tuple[list[Device], list[NIC]]:
    devices: list[Device] = []
    nics: list[NIC] = []
    if not pci.is_dir():
        return devices, nics
    for dev in sorted(pci.iterdir()):
        numa_text = _read(dev / "numa_node")
        numa = int(numa_text) if numa_text and numa_text.lstrip("-").isdigit() else -1
        affinity = numa if numa >= 0 else None
        vendor = (_read(dev / "vendor") or "").lower()
        klass = (_read(dev / "class") or "").lower()
        if vendor == NVIDIA_VENDOR and klass.startswith("0x03"):
            devices.append(Device("nvidia.com/gpu", dev.name, affinity))
        total = _read(dev / "sriov_totalvfs")
        if total and total.isdigit() and int(total) > 0:
            net = dev / "net"
            names = sorted(os.listdir(net)) if net.is_dir() else []
            nics.append(NIC(dev.name, names[0] if names else "", vendor.removeprefix("0x"),
                            (_read(dev / "device") or "").lower().removeprefix("0x"), int(total), affinity))
    return devices, nics
