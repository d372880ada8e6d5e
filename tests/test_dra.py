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
