#!/usr/bin/env python3
"""Benchmark the alignment core: 10,000 pods admitted onto 1,000 nodes of 2 to 8 NUMA nodes.

Deterministic (seeded). Every node runs the static CPU manager and the Static memory manager under a
Topology Manager policy drawn from best-effort / restricted / single-numa-node, container or pod scope;
pods are Guaranteed with 1-12 CPUs, memory, sometimes hugepages and GPUs. One process, one core.

    python bench/alignment.py [--pods 10000] [--nodes 1000]
"""

from __future__ import annotations

import argparse
import random
import time
from fractions import Fraction

from numalint.alignment.machine import CPU, Device, Machine, NUMANode
from numalint.alignment.node import ContainerSpec, KubeletSettings, Node, PodSpec

GIB = 2**30


def machine(rng: random.Random) -> Machine:
    numa_count = rng.choice([2, 4, 8])
    cores = rng.choice([4, 8, 12, 16])
    nodes, cpus, devices = [], {}, []
    total = numa_count * cores
    for numa in range(numa_count):
        distances = [10 if n == numa else 21 for n in range(numa_count)]
        nodes.append(NUMANode(numa, 64 * GIB, {GIB: 8}, distances))
        for core in range(cores):
            first = numa * cores + core
            for thread in (first, first + total):
                cpus[thread] = CPU(thread, first, numa * 2 // numa_count, numa, numa)
        if rng.random() < 0.5:
            devices.append(Device("nvidia.com/gpu", f"gpu-{numa}", numa))
    return Machine(nodes, cpus, devices)


def settings(rng: random.Random, numa_count: int) -> KubeletSettings:
    reserved = {0: {"memory": 1124 * 2**20}}
    return KubeletSettings(cpu_policy="static", reserved_cpus=frozenset({0}),
                           topology_policy=rng.choice(["best-effort", "restricted", "single-numa-node"]),
                           topology_scope=rng.choice(["container", "container", "pod"]),
                           memory_policy="Static", reserved_memory=reserved)


def pod(rng: random.Random, index: int) -> PodSpec:
    containers = []
    for c in range(rng.choice([1, 1, 2])):
        devices = {"nvidia.com/gpu": 1} if rng.random() < 0.1 else {}
        hugepages = {"hugepages-1Gi": GIB * rng.choice([1, 2])} if rng.random() < 0.2 else {}
        containers.append(ContainerSpec(f"c{c}", cpu=Fraction(rng.randint(1, 12)),
                                        memory=GIB * rng.randint(1, 16), hugepages=hugepages, devices=devices))
    return PodSpec(f"pod-{index}", containers, guaranteed=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--nodes", type=int, default=1_000)
    args = parser.parse_args()
    rng = random.Random(20261122)
    start = time.perf_counter()
    nodes = []
    for i in range(args.nodes):
        m = machine(rng)
        nodes.append(Node(m, settings(rng, len(m.numa_nodes)), f"node-{i}"))
    built = time.perf_counter()
    admitted = 0
    for i in range(args.pods):
        admitted += nodes[i % len(nodes)].admit(pod(rng, i)).admitted
    done = time.perf_counter()
    print(f"{args.nodes} nodes built in {built - start:.2f} s; {args.pods} pods admitted or rejected in "
          f"{done - built:.2f} s ({admitted} admitted); total {done - start:.2f} s")


if __name__ == "__main__":
    main()
