"""OpenShift precision (issue 11): built-in pools, PerformanceProfile pools and CPUs on real hardware,
the Node Tuning Operator's validation, unknown fields, NRT allocatable, profiles inside ConfigMaps.
Each test runs the command line on small files written here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import run, write


def findings(path: Path, rule: str | None = None) -> list[dict[str, Any]]:
    result = run("check", "--format", "json", "--fail-on", "never", str(path))
    assert "Traceback" not in result.stderr
    found = result.json()["findings"]
    return [f for f in found if rule is None or f["rule"] == rule]


def where(found: list[dict[str, Any]]) -> list[str]:
    return sorted(f"{Path(f['file']).name}:{f['line']}:{f['column']}" for f in found)


CUSTOM_POOL = """apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfigPool
metadata:
  name: worker-cnf
  labels: {machineconfiguration.openshift.io/role: worker-cnf}
spec:
  machineConfigSelector:
    matchExpressions:
      - {key: machineconfiguration.openshift.io/role, operator: In, values: [worker, worker-cnf]}
  nodeSelector:
    matchLabels: {node-role.kubernetes.io/worker-cnf: ""}
"""


def kubeletconfig(name: str, selector: str, settings: str = "{cpuManagerPolicy: static}") -> str:
    return f"""apiVersion: machineconfiguration.openshift.io/v1
kind: KubeletConfig
metadata: {{name: {name}}}
spec:
  machineConfigPoolSelector:
    matchLabels: {{{selector}}}
  kubeletConfig: {settings}
"""


CPUS = 'reserved: "0-1"\n    isolated: "2-7"'
WORKER = 'pools.operator.machineconfiguration.openshift.io/worker: ""'


def profile(name: str, node_role: str = "worker-cnf", extra: str = "", cpu: str = CPUS) -> str:
    return f"""apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata: {{name: {name}}}
spec:
  cpu:
    {cpu}
  nodeSelector: {{node-role.kubernetes.io/{node_role}: ""}}
{extra}"""


# --- unknown fields in the custom resources ---------------------------------------------------------

def test_unknown_fields_of_a_profile_a_kubeletconfig_and_a_topology(tmp_path: Path) -> None:
    write(tmp_path, {
        "profile.yaml": profile("cnf", cpu='reserved: "0-1"\n    isolated: "2-7"\n    offline: "8-15"',
                                extra="  additionalKernelArg: [nosmt]\n"),
        "kc.yaml": """apiVersion: machineconfiguration.openshift.io/v1
kind: KubeletConfig
metadata: {name: k}
spec:
  machineConfigPoolSelectors:
    matchLabels: {pools.operator.machineconfiguration.openshift.io/worker: ""}
  autoSizingReserved: true
  kubeletConfig: {maxPods: 300}
""",
        "topology.yaml": """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: t}
spec:
  socket: 1
  numaNodes:
    - {id: 0, memory: 64Gi, cpus: "0-15", hugepages: {1Gi: 4}}
"""})
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    found = [f for f in result.json()["findings"] if f["rule"] in ("unknown-field", "schema")]
    assert {f["rule"] for f in found} == {"unknown-field"}
    assert where(found) == ["kc.yaml:5:3", "profile.yaml:10:3", "profile.yaml:8:5", "topology.yaml:5:3"]
    suggestions = sorted(f["fix"]["description"] for f in found)
    assert suggestions == ['rename "additionalKernelArg" to "additionalKernelArgs"',
                           'rename "machineConfigPoolSelectors" to "machineConfigPoolSelector"',
                           'rename "offline" to "offlined"', 'rename "socket" to "sockets"']
    fixed = run("fix", str(tmp_path))
    assert fixed.exit_code in (0, 1)
    assert "offlined: " in (tmp_path / "profile.yaml").read_text()
    assert findings(tmp_path, "unknown-field") == []


# --- NodeResourceTopology allocatable / available ----------------------------------------------------

NRT = """apiVersion: topology.node.k8s.io/v1alpha2
kind: NodeResourceTopology
metadata: {name: worker-0}
attributes:
  - {name: topologyManagerPolicy, value: single-numa-node}
zones:
  - name: node-0
    type: Node
    resources:
      - {name: cpu, capacity: "16", allocatable: "14", available: "4"}
      - {name: memory, capacity: 64Gi, allocatable: 63Gi, available: 20Gi}
  - name: node-1
    type: Node
    resources:
      - {name: cpu, capacity: "16", allocatable: "14"}
      - {name: memory, capacity: 64Gi}
"""


def test_the_simulation_starts_from_what_the_nrt_scheduler_plugin_sees(tmp_path: Path) -> None:
    write(tmp_path, {"nrt.yaml": NRT})
    data = json.loads(run("simulate", "--format", "json", str(tmp_path)).output)
    zones = {z["id"]: z["resources"] for z in data["pools"][0]["nodes"][0]["numa_nodes"]}
    assert (zones[0]["cpu"]["capacity"], zones[1]["cpu"]["capacity"]) == (4, 14)
    assert zones[0]["memory"]["capacity"] == 20 * 2**30 and zones[1]["memory"]["capacity"] == 64 * 2**30


def test_topology_import_of_an_nrt_keeps_the_hardware(tmp_path: Path) -> None:
    write(tmp_path, {"nrt.yaml": NRT})
    result = run("topology", "import", str(tmp_path / "nrt.yaml"))
    assert result.exit_code == 0
    assert '- "31"' in result.output and '- "32"' not in result.output  # 2 x 16 CPUs, not 4 + 14
