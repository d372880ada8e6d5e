"""numalint: catch NUMA-alignment mistakes in Kubernetes node and workload configuration."""

__version__ = "0.1.0"
