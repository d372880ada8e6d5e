"""Devices from Dynamic Resource Allocation claims beside exclusive CPUs: the Topology Manager aligns the CPUs and
not the device (the kubelet's DRA manager is no hint provider); through the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import findings


def _kubelet(policy: str = "single-numa-node", cpu: str = "static") -> str:
    return ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
            f'cpuManagerPolicy: {cpu}\nreservedSystemCPUs: "0"\ntopologyManagerPolicy: {policy}\n')


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: infer}
spec:
  template:
    spec:
      resourceClaims:
        - {name: gpu, resourceClaimTemplateName: one-gpu}
        - {name: nic, resourceClaimTemplateName: one-nic}
      containers:
        - name: server
          image: x
          resources:
            limits: {cpu: "CPU", memory: 8Gi}
            claims:
              - name: gpu
              - name: nic
"""


def test_a_claimed_device_beside_aligned_exclusive_cpus_is_reported_at_the_claim(tmp_path: Path) -> None:
    found = findings(tmp_path, {"kubelet.yaml": _kubelet(), "deploy.yaml": DEPLOYMENT.replace("CPU", "8")})
    hits = [f for f in found if f["rule"] == "dra-not-aligned"]
    assert len(hits) == 1 and hits[0]["line"] == 16 and hits[0]["severity"] == "warning"
    assert 'container "server" takes claim "gpu" (and 1 more)' in hits[0]["message"]
    assert "resource.kubernetes.io/numaNode" in hits[0]["fix"]["description"]


@pytest.mark.parametrize("kubelet,cpu", [(_kubelet("best-effort"), "8"), (_kubelet(cpu="none"), "8"),
                                         (_kubelet(), "2500m"), (None, "8")])
def test_nothing_to_misalign_is_not_reported(tmp_path: Path, kubelet: str | None, cpu: str) -> None:
    # best-effort admits misaligned pods anyway; no static CPU manager or a fractional CPU: no exclusive CPUs;
    # no kubelet configuration: nothing says the CPUs are aligned
    files = {"deploy.yaml": DEPLOYMENT.replace("CPU", cpu)} | ({"kubelet.yaml": kubelet} if kubelet else {})
    assert [f for f in findings(tmp_path, files) if f["rule"] == "dra-not-aligned"] == []


def _pod(containers: str, claims: str = "[{name: gpu, resourceClaimTemplateName: one-gpu}]") -> str:
    return f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: {containers}\n" + (
        f"  resourceClaims: {claims}\n" if claims else "")


@pytest.mark.parametrize("containers,claims", [
    # a GPU from the device plugin beside the claim: the claim is something else (an NVLink IMEX channel)
    ('[{name: w, image: x, resources: {limits: {cpu: "4", memory: 8Gi, nvidia.com/gpu: 1}, '
     "claims: [{name: channel}]}}]", "[{name: channel, resourceClaimTemplateName: cd-channel}]"),
    # the whole CPUs in one container, the claim in another in the shared pool
    ('[{name: app, image: x, resources: {limits: {cpu: "4", memory: 4Gi}}}, '
     "{name: helper, image: x, resources: {limits: {cpu: 500m, memory: 1Gi}, claims: [{name: gpu}]}}]", None),
    # a claim spec.resourceClaims does not declare: the API server refuses the pod
    ('[{name: app, image: x, resources: {limits: {cpu: "4", memory: 4Gi}, claims: [{name: gpu}]}}]', ""),
])
def test_claims_that_are_no_misaligned_device_are_not_reported(tmp_path: Path, containers: str,
                                                               claims: str | None) -> None:
    pod = _pod(containers, claims) if claims is not None else _pod(containers)
    assert [f for f in findings(tmp_path, {"kubelet.yaml": _kubelet(), "p.yaml": pod})
            if f["rule"] == "dra-not-aligned"] == []


def test_a_claim_of_the_pod_no_container_names_counts(tmp_path: Path) -> None:
    # a network interface DRA moves into the pod's namespace (dranet): the pod's CPUs are aligned with nothing of it
    pod = _pod('[{name: app, image: x, resources: {limits: {cpu: "4", memory: 4Gi}}}]',
               "[{name: rdma, resourceClaimTemplateName: rdma-nics}]")
    found = findings(tmp_path, {"kubelet.yaml": _kubelet(), "p.yaml": pod})
    hits = [f for f in found if f["rule"] == "dra-not-aligned"]
    assert len(hits) == 1 and 'the pod takes claim "rdma"' in hits[0]["message"] and hits[0]["line"] == 6


def test_claims_before_dynamic_resource_allocation_is_on_by_default_are_not_judged(tmp_path: Path) -> None:
    found = findings(tmp_path, {"kubelet.yaml": _kubelet(), "deploy.yaml": DEPLOYMENT.replace("CPU", "8")},
                     "--kubernetes-version", "1.33")
    assert [f for f in found if f["rule"] == "dra-not-aligned"] == []


def test_memory_is_said_aligned_only_with_the_static_memory_manager(tmp_path: Path) -> None:
    found = findings(tmp_path, {"kubelet.yaml": _kubelet(), "deploy.yaml": DEPLOYMENT.replace("CPU", "8")})
    message = next(f["message"] for f in found if f["rule"] == "dra-not-aligned")
    assert "the pod's CPUs are aligned with nothing" in message


def test_a_pod_with_pod_level_resources_gets_no_exclusive_cpus_to_misalign(tmp_path: Path) -> None:
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  resources: {limits: {cpu: \"4\", memory: 4Gi}}\n"
           "  resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]\n  containers:\n"
           '    - {name: app, image: x, resources: {limits: {cpu: "4", memory: 4Gi}, claims: [{name: gpu}]}}\n')
    assert [f for f in findings(tmp_path, {"kubelet.yaml": _kubelet(), "p.yaml": pod})
            if f["rule"] == "dra-not-aligned"] == []


def test_a_kubelet_that_turns_the_gate_off_is_not_judged(tmp_path: Path) -> None:
    kubelet = _kubelet() + "featureGates: {DynamicResourceAllocation: false}\n"
    found = findings(tmp_path, {"kubelet.yaml": kubelet, "deploy.yaml": DEPLOYMENT.replace("CPU", "8")},
                     "--kubernetes-version", "1.34")
    assert [f for f in found if f["rule"] == "dra-not-aligned"] == []


def test_a_claim_named_in_a_form_the_api_server_refuses_is_not_the_pods_own(tmp_path: Path) -> None:
    pod = _pod('[{name: app, image: x, resources: {limits: {cpu: "4", memory: 4Gi}, claims: [gpu]}}]')
    assert [f for f in findings(tmp_path, {"kubelet.yaml": _kubelet(), "p.yaml": pod})
            if f["rule"] == "dra-not-aligned"] == []
