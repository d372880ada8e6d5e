"""The alignment core: the kubelet's Topology, CPU and Memory Manager decisions.

Nothing in this package knows about YAML or files; it works on a Machine and a
KubeletSettings and reproduces what the kubelet decides (pkg/kubelet/cm: topologymanager, cpumanager, memorymanager,
devicemanager).
"""
