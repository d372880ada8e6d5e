"""A run of many files is checked as a stream (``numalint.checks.streamed``): the node side first, then the workload
files in batches that send back findings only. What the user sees must not change: every test here runs the same
repository streamed (``NUMALINT_STREAM=always``, which streams runs of any size) and whole (``off``) and compares
the whole JSON report, after making sure the findings that depend on other files are there to compare."""

from __future__ import annotations

import os
from array import array
from pathlib import Path

import pytest

import numalint.checks.stream_batches
from tests.conftest import run, write

KUBELET = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
memoryManagerPolicy: Static
reservedSystemCPUs: "0-1"
topologyManagerPolicy: single-numa-node
systemReserved: {memory: 1Gi}
reservedMemory:
  - {numaNode: 0, limits: {memory: 500Mi}}
"""


def _policy(name: str, pf: str, resource: str) -> str:
    return f"""\
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata: {{name: {name}, namespace: sriov}}
spec:
  nicSelector: {{pfNames: [{pf}]}}
  nodeSelector: {{sriov: "true"}}
  numVfs: 8
  resourceName: {resource}
"""


NETWORK = """\
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetwork
metadata: {name: fast, namespace: sriov}
spec: {networkNamespace: apps, resourceName: fastnic}
"""
# a policy its network uses, one only workloads use, one nothing uses
POLICIES = "---\n".join([_policy("used", "ens1f0", "fastnic"), _policy("pods", "ens3f0", "podnic"),
                          _policy("idle", "ens2f0", "idlenic"), NETWORK])


def _deployment(name: str, cpu: str, extra: str = "", namespace: str = "apps") -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  template:
    spec:
      containers:
        - name: app
          image: app:1
          resources:
            limits: {{cpu: "{cpu}", memory: 1Gi{extra}}}
"""


def _repository(tmp_path: Path, workloads: int = 40, kubelet: str = KUBELET) -> Path:
    """A node side (a kubelet, SR-IOV policies, a kustomization) and ``workloads`` workload files of every shape
    whose findings depend on another file or on the run's order."""
    files = {"node/kubelet.yaml": kubelet, "node/sriov.yaml": POLICIES}
    for i in range(workloads):
        shape = i % 5
        if shape == 0:  # fractional CPUs under the static policy: a fix that is proven
            text = _deployment(f"frac-{i}", "1500m")
        elif shape == 1:  # whole CPUs, and an init container that makes the pod Burstable: not Guaranteed
            text = _deployment(f"burst-{i}", "2").replace("      containers:", "      initContainers:\n"
                                                          "        - {name: init, image: 'i:1', resources: {requests: "
                                                          "{cpu: 10m}, limits: {cpu: 100m, memory: 64Mi}}}\n"
                                                          "      containers:")
        elif shape == 2:  # the only consumers of the "pods" policy's resource
            text = _deployment(f"vf-{i}", "2", ", openshift.io/podnic: 1")
        elif shape == 3:  # a resource no policy provides, a suppression of something else
            text = "# numalint: disable=not-guaranteed\n" + _deployment(f"lost-{i}", "2", ", openshift.io/fastnicc: 1")
        else:  # a copy of an earlier workload (merged: its fix is a hint), and a namesake of it with other content
            # (duplicate); every other time only the namesake, so that some fractional workloads keep their fix
            text = (_deployment(f"frac-{i - 4}", "1500m") + "---\n" if i // 5 % 2 == 0 else "") + _deployment(
                f"burst-{i - 3}", "3")
        files[f"apps/team-{i % 3}/w-{i:03d}.yaml"] = text
    files["apps/broken.yaml"] = "kind: Deployment\nmetadata: {name: x\n"
    files["apps/chart/templates/job.yaml"] = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Values.name }}\n"
    files["apps/chart/Chart.yaml"] = "apiVersion: v2\nname: chart\nversion: 1.0.0\n"
    files["base/kustomization.yaml"] = "resources: [app.yaml]\n"
    files["base/app.yaml"] = _deployment("based", "500m")
    files["overlay/kustomization.yaml"] = ("resources: [../base]\npatches:\n  - path: cpu.yaml\n"
                                           "    target: {kind: Deployment, name: based}\n")
    files["overlay/cpu.yaml"] = _deployment("based", "2")
    return write(tmp_path, files)


def _report(root: Path, monkeypatch: pytest.MonkeyPatch, mode: str, *args: str) -> tuple[int, dict[str, object]]:
    monkeypatch.setenv("NUMALINT_STREAM", mode)
    result = run("check", "--format", "json", "-j", "1", *args, str(root))
    return result.exit_code, result.json()


def _batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the files of every batch checked as a stream."""
    sizes: list[int] = []
    original = numalint.checks.stream_batches._check_batch

    def counted(files: array[int]) -> numalint.checks.stream_batches._Batch:
        sizes.append(len(files))
        return original(files)

    monkeypatch.setattr(numalint.checks.stream_batches, "_check_batch", counted)
    return sizes


def test_a_streamed_run_reports_what_a_whole_run_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repository(tmp_path)
    code, whole = _report(root, monkeypatch, "off")
    batches = _batches(monkeypatch)
    streamed_code, streamed = _report(root, monkeypatch, "always")
    assert len(batches) > 1 and sum(batches) >= 40  # streamed, in several batches
    assert (streamed_code, streamed) == (code, whole)
    found = whole["findings"]
    assert isinstance(found, list)
    rules = {f["rule"] for f in found}
    # findings that need another file or the run's order: all there, said once
    assert {"fractional-cpu", "sriov-unknown-resource", "sriov-unused-resource",
            "duplicate-object", "reserved-memory-mismatch", "unused-suppression", "yaml-syntax",
            "not-lintable"} <= rules
    unused = [f for f in found if f["rule"] == "sriov-unused-resource"]
    assert [f["message"].split(" creates")[0] for f in unused] == ["SriovNetworkNodePolicy sriov/idle"]
    fractional = {f["file"].rsplit("/", 1)[1] for f in found if f["rule"] == "fractional-cpu"}
    assert "w-000.yaml" in fractional and "w-004.yaml" not in fractional  # its identical copy is merged
    fixes = {f["file"].rsplit("/", 1)[1]: f["fix"] for f in found if f["rule"] == "fractional-cpu"}
    assert fixes["w-005.yaml"]["edits"]  # no copy: its fix is proven and offered
    assert not fixes["w-000.yaml"]["edits"] and "identically, at" in fixes["w-000.yaml"]["description"]


def test_the_same_where_the_kubelet_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(The kubelet above does not start: its reservedMemory is short, and its fix is proven on the node side.)"""
    root = _repository(tmp_path, kubelet=KUBELET.replace("500Mi", "1124Mi"))
    code, whole = _report(root, monkeypatch, "off")
    assert _report(root, monkeypatch, "always") == (code, whole)
    found = whole["findings"]
    assert isinstance(found, list)
    assert {"not-guaranteed", "fractional-cpu"} <= {f["rule"] for f in found}
    assert "reserved-memory-mismatch" not in {f["rule"] for f in found}


def test_the_same_with_rules_selected_and_suppressed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repository(tmp_path)
    args = ("--ignore", "not-guaranteed", "--select", "NL")
    assert _report(root, monkeypatch, "always", *args) == _report(root, monkeypatch, "off", *args)


def test_a_file_that_hides_a_kubelet_configuration_is_checked_whole(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A kind written with an escape is not seen in the file's bytes: once read, the file holds a kubelet
    configuration, and the run is checked whole (its findings include that configuration's)."""
    root = _repository(tmp_path, 12)
    (root / "apps" / "hidden.yaml").write_text('apiVersion: kubelet.config.k8s.io/v1beta1\n'
                                               'kind: "Kubelet\\u0043onfiguration"\ncpuManagerPolicy: Static\n')
    code, whole = _report(root, monkeypatch, "off")
    assert _report(root, monkeypatch, "always") == (code, whole)
    found = whole["findings"]
    assert isinstance(found, list)
    assert any(f["file"].endswith("hidden.yaml") and f["rule"] == "invalid-policy-name" for f in found)


def test_a_run_with_a_topology_is_checked_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A topology makes the workloads of a pool depend on each other (the simulation places them in turn)."""
    root = _repository(tmp_path, 12)
    (root / "node" / "topology.yaml").write_text(
        "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: n}\n"
        "spec:\n  numaNodes:\n    - {id: 0, cpus: 0-7, memory: 16Gi}\n    - {id: 1, cpus: 8-15, memory: 16Gi}\n")
    batches = _batches(monkeypatch)
    assert _report(root, monkeypatch, "always") == _report(root, monkeypatch, "off")
    assert batches == []


def test_small_runs_are_checked_whole_unless_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repository(tmp_path, 12)
    batches = _batches(monkeypatch)
    _report(root, monkeypatch, "")
    assert batches == []


def test_batches_shared_out_among_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over 300 files, forked processes check the batches; one that finds a file holding a kubelet configuration
    sends the run back to be checked whole, with the same report."""
    root = _repository(tmp_path, 320)
    args = ("-j", "2")
    assert _report(root, monkeypatch, "always", *args) == _report(root, monkeypatch, "off", *args)
    (root / "apps" / "team-2" / "w-200-hidden.yaml").write_text(
        'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: "Kubelet\\u0043onfiguration"\ncpuManagerPolicy: Static\n')
    code, whole = _report(root, monkeypatch, "off", *args)
    assert _report(root, monkeypatch, "always", *args) == (code, whole)
    found = whole["findings"]
    assert isinstance(found, list)
    assert any(f["file"].endswith("hidden.yaml") and f["rule"] == "invalid-policy-name" for f in found)


def test_clean_workload_files_leave_a_clean_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A streamed file that keeps nothing was read and parsed: the run passes (exit 0), as checked whole."""
    root = write(tmp_path, {f"w{i}.yaml": _deployment(f"w{i}", "500m") for i in range(3)})
    code, whole = _report(root, monkeypatch, "off")
    assert code == 0 and _report(root, monkeypatch, "always") == (code, whole)


def test_findings_past_a_files_cap_are_counted_before_overlays_drop_some(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole run caps a file's findings of a rule at 100 before it drops those a kustomize overlay patches away;
    a stream does the same (found by a review: it dropped first, and showed all of them)."""
    deployments = "---\n".join(_deployment(f"d-{i:03d}", "1500m") for i in range(101))
    root = write(tmp_path, {
        "kubelet.yaml": KUBELET.replace("500Mi", "1124Mi"), "base/kustomization.yaml": "resources: [app.yaml]\n",
        "base/app.yaml": deployments,
        "overlay/kustomization.yaml": "resources: [../base]\npatches:\n  - path: cpu.yaml\n",
        "overlay/cpu.yaml": _deployment("d-000", "2")})
    code, whole = _report(root, monkeypatch, "off")
    assert _report(root, monkeypatch, "always") == (code, whole)
    found = whole["findings"]
    assert isinstance(found, list)
    assert any("only the first 100 are shown" in f["message"] for f in found)
    # and a capped file holding a repeat of an earlier object (which a whole run never checks) is checked whole
    (root / "base" / "aaa.yaml").write_text(_deployment("d-050", "1500m"))
    assert _report(root, monkeypatch, "always") == _report(root, monkeypatch, "off")


def test_a_vm_naming_an_instancetype_is_a_workload_in_a_stream_too(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A KubeVirt VM naming an instancetype becomes a workload once the run's instancetypes are known (found by a
    review: streamed, the VM was never judged)."""
    root = write(tmp_path, {
        "kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                        "cpuManagerPolicy: none\n",
        "vm.yaml": "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: db}\nspec:\n"
                   "  instancetype: {name: cx1.large}\n  template: {spec: {domain: {devices: {}}}}\n",
        "w.yaml": _deployment("w", "1")})
    batches = _batches(monkeypatch)
    code, whole = _report(root, monkeypatch, "off")
    assert _report(root, monkeypatch, "always") == (code, whole) and batches
    found = whole["findings"]
    assert isinstance(found, list)
    assert [f["rule"] for f in found if f["file"].endswith("vm.yaml")] == ["admission-failure"]


PROFILE = """\
apiVersion: performance.openshift.io/v2
kind: PerformanceProfile
metadata: {name: ran}
spec:
  cpu: {isolated: "2-31"}
"""
SELECTOR = ("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {name: ran}\n"
            "spec:\n  nodeSelector: {node-role.kubernetes.io/worker-cnf: ''}\n")


def test_overlays_settle_the_node_side_as_in_a_whole_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A streamed run keeps, for its node side, only the kustomizations that build the node side's files: a
    profile's selector is settled by overlays two levels up and by a component, and kept where one site builds
    it unpatched; the streamed workloads' bases and repeats are judged as in a whole run."""
    files = {"settled/base/pp.yaml": PROFILE, "settled/base/kustomization.yaml": "resources: [pp.yaml]\n",
             "settled/mid/kustomization.yaml": "resources: [../base]\n",
             "settled/site/kustomization.yaml": "resources: [../mid]\npatches:\n  - path: patch.yaml\n",
             "settled/site/patch.yaml": SELECTOR,
             "component/base/pp.yaml": PROFILE.replace("ran", "edge"),
             "component/base/kustomization.yaml": "resources: [pp.yaml]\n",
             "component/selector/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\n"
                                                      "kind: Component\npatches:\n  - path: patch.yaml\n",
             "component/selector/patch.yaml": SELECTOR.replace("ran", "edge"),
             "component/site/kustomization.yaml": "resources: [../base]\ncomponents: [../selector]\n",
             "kept/base/pp.yaml": PROFILE.replace("ran", "lab"),
             "kept/base/kustomization.yaml": "resources: [pp.yaml]\n",
             "kept/site-a/kustomization.yaml": "resources: [../base]\npatches:\n  - path: patch.yaml\n",
             "kept/site-a/patch.yaml": SELECTOR.replace("ran", "lab"),
             "kept/site-b/kustomization.yaml": "resources: [../base]\n"}
    for i in range(30):  # workloads in kustomizations of their own, one of them defined twice
        files[f"apps/w{i}/kustomization.yaml"] = "resources: [app.yaml]\n"
        files[f"apps/w{i}/app.yaml"] = _deployment(f"w{i % 29}", "1500m" if i < 29 else "3")
    root = write(tmp_path, files)
    code, whole = _report(root, monkeypatch, "off")
    assert _report(root, monkeypatch, "always") == (code, whole)
    found = whole["findings"]
    assert isinstance(found, list)
    selectors = sorted(f["file"].removeprefix(str(root) + "/") for f in found if "nodeSelector" in f["message"])
    assert selectors == ["kept/base/pp.yaml"]
    assert sum(1 for f in found if f["rule"] == "duplicate-object") == 1


def test_every_file_is_listed_and_named_as_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A streamed run keeps its paths packed: a report listing every checked file (JUnit) lists each, a name that
    is not UTF-8 included, as a whole run does."""
    files = {f"apps/w{i:03d}.yaml": _deployment(f"w{i}", "1") for i in range(300)} | {"kubelet.yaml": KUBELET}
    root = write(tmp_path, files)
    (root / "apps").joinpath(os.fsdecode(b"caf\xe9.yaml")).write_text(_deployment("cafe", "1500m"))
    outputs = []
    for mode in ("off", "always"):
        monkeypatch.setenv("NUMALINT_STREAM", mode)
        result = run("check", "--format", "junit", "-j", "1", str(root))
        outputs.append((result.exit_code, result.output))
    assert outputs[0] == outputs[1]
    junit = outputs[1][1]
    assert junit.count("<testcase") == 302 and "caf" in junit and "fractional-cpu" in junit


def test_overlays_kept_for_too_few_files_send_the_run_back_whole(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Were a node-side finding on a file the kept overlays do not know, the run would be checked whole rather
    than judged without its overlays (simulated: overlays kept for no file at all)."""
    import numalint.model.overlays

    root = _repository(tmp_path, 12)
    whole = _report(root, monkeypatch, "off")
    original = numalint.model.overlays.Overlays.restricted
    monkeypatch.setattr(numalint.model.overlays.Overlays, "restricted", lambda self, files: original(self, ()))
    batches = _batches(monkeypatch)
    assert _report(root, monkeypatch, "always") == whole
    assert batches  # streamed first, then checked whole
