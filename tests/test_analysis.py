"""The read-only analysis: fix re-analyses each pass, check and simulate agree, checks share nothing.

Regression tests for the renovation's four bugs, all through the command line."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run, write

TOPOLOGY = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata:
  name: two-numa
spec:
  numaNodes:
    - id: 0
      cpus: "0-3"
      memory: 16Gi
    - id: 1
      cpus: "4-7"
      memory: 16Gi
"""


def _findings(result_json: dict) -> list[tuple[str, str, int, int]]:  # type: ignore[type-arg]
    return sorted((f["rule"], f["file"], f["line"], f["column"]) for f in result_json["findings"])


def test_check_fix_then_check_report_the_same_remaining_findings(tmp_path: Path) -> None:
    write(tmp_path, {
        "kubelet.yaml": """\
            apiVersion: kubelet.config.k8s.io/v1beta1
            kind: KubeletConfiguration
            topologyManagerPolicy: Single-Numa-Node
            cpuManagerPolicy: static
            reservedSystemCPUs: "0"
            """,
        "topology.yaml": TOPOLOGY,
        "pod.yaml": """\
            apiVersion: v1
            kind: Pod
            metadata:
              name: big
            spec:
              containers:
                - name: app
                  image: app
                  resources:
                    limits: {cpu: "6", memory: 1Gi}
            """,
    })
    fixed = run("check", "--fix", "--format", "json", str(tmp_path))
    after = run("check", "--format", "json", str(tmp_path))
    assert "single-numa-node" in (tmp_path / "kubelet.yaml").read_text()
    remaining = _findings(fixed.json())
    assert remaining == _findings(after.json())
    # the policy is now valid, so the 6-CPU pod is simulated under single-numa-node and rejected
    assert {"admission-failure", "exceeds-numa-node"} <= {rule for rule, *_ in remaining}
    assert fixed.exit_code == after.exit_code == 1
    plain_fix = run("fix", str(tmp_path))  # nothing left to fix: same findings, nothing rewritten
    assert plain_fix.exit_code == 1


def test_a_start_up_problem_the_core_finds_is_a_finding_and_simulate_agrees(tmp_path: Path) -> None:
    write(tmp_path, {
        "kubelet.yaml": """\
            apiVersion: kubelet.config.k8s.io/v1beta1
            kind: KubeletConfiguration
            topologyManagerPolicy: best-effort
            topologyManagerPolicyOptions:
              max-allowable-numa-nodes: "1_6"
            """,
        "topology.yaml": TOPOLOGY,
    })
    checked = run("check", "--format", "json", "--kubernetes-version", "1.34", str(tmp_path))
    hits = [f for f in checked.json()["findings"] if f["rule"] == "policy-option"]
    assert [(h["line"], h["column"]) for h in hits] == [(5, 29)]
    assert 'strconv.Atoi: parsing "1_6": invalid syntax' in hits[0]["message"]
    simulated = run("simulate", "--kubernetes-version", "1.34", str(tmp_path))
    assert 'the kubelet does not start: unable to convert policy option to integer' in simulated.output


def test_an_unclaimed_start_up_problem_still_becomes_a_finding(tmp_path: Path) -> None:
    write(tmp_path, {
        "kubelet.yaml": """\
            apiVersion: kubelet.config.k8s.io/v1beta1
            kind: KubeletConfiguration
            cpuManagerPolicy: static
            kubeReserved:
              cpu: "9"
            """,
        "topology.yaml": TOPOLOGY,
    })
    result = run("check", "--format", "json", str(tmp_path))
    hits = [f for f in result.json()["findings"] if f["rule"] == "kubelet-start"]
    assert len(hits) == 1 and "unable to reserve the required amount of CPUs" in hits[0]["message"]
    assert result.exit_code == 1


def _eviction_case(tmp_path: Path, reserved: str) -> None:
    write(tmp_path, {
        "kubelet.yaml": f"""\
            apiVersion: kubelet.config.k8s.io/v1beta1
            kind: KubeletConfiguration
            topologyManagerPolicy: single-numa-node
            memoryManagerPolicy: Static
            evictionHard:
              memory.available: "5%"
            reservedMemory:
              - numaNode: 0
                limits:
                  memory: {reserved}
            """,
        "topology.yaml": TOPOLOGY,
        "pod.yaml": """\
            apiVersion: v1
            kind: Pod
            metadata:
              name: small
            spec:
              containers:
                - name: app
                  image: app
                  resources:
                    limits: {cpu: "1", memory: 1Gi}
            """,
    })


def test_percentage_eviction_check_and_simulate_agree_when_the_reservation_leaves_it_out(tmp_path: Path) -> None:
    _eviction_case(tmp_path, "1Gi")
    checked = run("check", "--format", "json", str(tmp_path))
    mismatch = [f for f in checked.json()["findings"] if f["rule"] == "reserved-memory-mismatch"]
    assert mismatch and "5% of 32Gi" in mismatch[0]["message"]
    simulated = run("simulate", str(tmp_path))
    assert "the kubelet does not start" in simulated.output


def test_percentage_eviction_resolved_like_the_kubelet_is_accepted_by_both(tmp_path: Path) -> None:
    # 5% is Go's float32 0.05 (0.05000000074505806): int64(34359738368 * that) = 1717986944 bytes, not 5% exactly
    _eviction_case(tmp_path, "1717986944")
    checked = run("check", "--format", "json", str(tmp_path))
    assert "reserved-memory-mismatch" not in checked.rules()
    simulated = run("simulate", str(tmp_path))
    assert "does not start" not in simulated.output and simulated.exit_code == 0


def test_disable_annotation_on_a_pod_template_suppresses_its_workload(tmp_path: Path) -> None:
    deployment = """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
        spec:
          template:
            metadata:
              annotations:
                numalint.io/disable: invalid-resources
            spec:
              containers:
                - name: app
                  image: app
                  resources:
                    requests: {hugepages-2Mi: 1Gi, memory: 1Gi, cpu: "1"}
                    limits: {hugepages-2Mi: 2Gi, memory: 1Gi, cpu: "1"}
        """
    write(tmp_path, {"deploy.yaml": deployment})
    suppressed = run("check", "--format", "json", str(tmp_path))
    assert "invalid-resources" not in suppressed.rules()
    assert "unused-suppression" not in suppressed.rules()
    write(tmp_path, {"deploy.yaml": deployment.replace("numalint.io/disable", "example.com/other")})
    assert "invalid-resources" in run("check", "--format", "json", str(tmp_path)).rules()
