"""What a review of numalint on public GitOps repositories (GPU, SR-IOV, OpenShift telco trees) found said wrongly
or twice, each on a small file of our own: a fix the kubelet would refuse, one mistake reported from both sides,
an info about a kustomize patch of objects numalint never judges."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import findings

ALIGNING_KUBELET = """\
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    cpuManagerPolicy: static
    reservedSystemCPUs: "0"
    topologyManagerPolicy: single-numa-node
"""


def _memory_fix(tmp_path: Path, extra: str) -> str:
    found = [f for f in findings(tmp_path, {"kubelet.yaml": ALIGNING_KUBELET + extra})
             if f["rule"] == "memory-manager-not-static"]
    assert len(found) == 1, found
    fix: str = found[0]["fix"]["description"]
    return fix


def test_static_memory_fix_reserves_memory_first_when_none_is(tmp_path: Path) -> None:
    """An evictionHard without memory.available replaces the kubelet's 100Mi: nothing is reserved, and the Static
    policy refuses to start so (a zero reservedMemory entry is refused too): reserving comes first."""
    fix = _memory_fix(tmp_path, '    evictionHard: {nodefs.available: "0%", imagefs.available: "0%"}\n')
    assert fix.startswith("reserve memory for the system first, e.g. systemReserved: {memory: 1Gi}")


def test_static_memory_fix_names_the_reservation(tmp_path: Path) -> None:
    assert "reservedMemory adding up to 1124Mi" in _memory_fix(tmp_path, "    systemReserved: {memory: 1Gi}\n")
    assert "reservedMemory adding up to 100Mi" in _memory_fix(tmp_path, "")  # the default eviction threshold


POLICY = """\
    apiVersion: sriovnetwork.openshift.io/v1
    kind: SriovNetworkNodePolicy
    metadata: {name: ib, namespace: sriov}
    spec:
      nicSelector: {vendor: "15b3"}
      nodeSelector: {sriov: "true"}
      numVfs: 8
      resourceName: mlnxics
"""
NETWORK = """\
    apiVersion: sriovnetwork.openshift.io/v1
    kind: SriovNetwork
    metadata: {name: net, namespace: sriov}
    spec:
      networkNamespace: default
      resourceName: mlnxnics
"""


def test_a_misspelt_resource_is_said_once(tmp_path: Path) -> None:
    """The network's unknown resource (whose fix names the policy's) and the policy's unused one are one typo."""
    found = findings(tmp_path, {"policy.yaml": POLICY, "network.yaml": NETWORK})
    assert [(f["rule"], f["file"]) for f in found] == [("sriov-unknown-resource", f"{tmp_path}/network.yaml")]
    assert 'use "mlnxics"' in found[0]["fix"]["description"]


def test_an_unrelated_unused_policy_is_still_said(tmp_path: Path) -> None:
    other = POLICY.replace("name: ib,", "name: spare,").replace("resourceName: mlnxics", "resourceName: fpga_vfs")
    found = findings(tmp_path, {"policy.yaml": POLICY, "spare.yaml": other, "network.yaml": NETWORK})
    assert sorted((f["rule"], Path(f["file"]).name) for f in found) == [
        ("sriov-unknown-resource", "network.yaml"), ("sriov-unused-resource", "spare.yaml")]


def _patched(tmp_path: Path, entry: str, patch: str) -> list[str]:
    files = {"kustomization.yaml": f"resources: [objects.yaml]\npatches:\n{entry}",
             "objects.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: ran}\n", "patch.yaml": patch}
    return [f"{f['rule']} {Path(f['file']).name}" for f in findings(tmp_path, files)]


JSON_PATCH = "- op: add\n  path: /metadata/labels\n  value: {role: worker-cu}\n"


def test_a_patch_of_a_kind_numalint_never_judges_is_not_reported(tmp_path: Path) -> None:
    assert _patched(tmp_path / "mc", "- target: {kind: MachineConfig, name: sctp}\n  path: patch.yaml\n",
                    JSON_PATCH) == []
    service = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n"
    assert _patched(tmp_path / "svc", "- path: patch.yaml\n", service) == []


def test_a_patch_of_a_judged_or_unknown_kind_still_points_at_the_build(tmp_path: Path) -> None:
    assert _patched(tmp_path / "dep", "- target: {kind: Deployment, name: du}\n  path: patch.yaml\n",
                    JSON_PATCH) == ["not-lintable patch.yaml"]
    assert _patched(tmp_path / "any", "- target: {labelSelector: app=du}\n  path: patch.yaml\n",
                    JSON_PATCH) == ["not-lintable patch.yaml"]  # no kind: it may patch anything
    profile = ("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {name: cu}\n"
               "spec: {cpu: {reserved: '0-1'}}\n")
    assert _patched(tmp_path / "pp", "- path: patch.yaml\n", profile) == ["not-lintable patch.yaml"]


def test_who_refuses_a_kubelet_config_that_does_not_decode(tmp_path: Path) -> None:
    """An OpenShift KubeletConfig's spec.kubeletConfig is decoded by the machine-config operator (the API server
    keeps it as written); a KubeletConfiguration file by the kubelet itself."""
    openshift = """\
        apiVersion: machineconfiguration.openshift.io/v1
        kind: KubeletConfig
        metadata: {name: a}
        spec:
          machineConfigPoolSelector: {matchLabels: {pools.operator.machineconfiguration.openshift.io/worker: ""}}
          kubeletConfig: {maxPods: "100"}
    """
    plain = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: '100'\n"
    said = {}
    for name, text in (("openshift", openshift), ("plain", plain)):
        found = [f for f in findings(tmp_path / name, {"kc.yaml": text}) if f["rule"] == "schema"]
        assert len(found) == 1, found
        said[name] = found[0]["message"] + (found[0].get("why") or "")
    assert "the machine-config operator fails to decode it" in said["openshift"]
    assert "the kubelet fails to decode it" in said["plain"]
