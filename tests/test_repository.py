"""The repository model: each file and object once, configuration found from the checked path,
clusters, the default node, and findings a changed file causes in an unchanged one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import run, write

KUBELET = """\
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static
reservedSystemCPUs: "{reserved}"
topologyManagerPolicy: single-numa-node
"""
TOPOLOGY = """\
apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata:
  name: two-numa
spec:
  numaNodes:
    - id: 0
      cpus: "0-7"
      memory: 32Gi
    - id: 1
      cpus: "8-15"
      memory: 32Gi
"""
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: engine
spec:
  containers:
    - name: app
      image: app
      resources:
        limits: {cpu: "6", memory: 1Gi}
"""
NETWORK = """\
apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetwork
metadata:
  name: fh-net
  namespace: openshift-sriov-network-operator
spec:
  resourceName: {resource}
"""


def test_one_directory_reads_each_file_once_links_or_not(tmp_path: Path) -> None:
    # a directory alone without links skips telling real paths apart; one link among its files brings it back
    kubelet = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
    write(tmp_path, {"a/kubelet.yaml": kubelet, "b/pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"})
    plain = run("check", "--format", "json", str(tmp_path))
    assert plain.rules() == ["no-cpu-reservation"] and plain.json()["summary"]["files"] == 2
    (tmp_path / "b" / "link.yaml").symlink_to(tmp_path / "a" / "kubelet.yaml")
    linked = run("check", "--format", "json", str(tmp_path))
    assert linked.rules() == ["no-cpu-reservation"] and linked.json()["summary"]["files"] == 2


def test_a_file_named_twice_is_read_once(tmp_path: Path) -> None:
    write(tmp_path, {"kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                     "cpuManagerPolicy: static\n"})
    (tmp_path / "link.yaml").symlink_to(tmp_path / "kubelet.yaml")
    once = run("check", "--format", "json", str(tmp_path / "kubelet.yaml"))
    many = run("check", "--format", "json", str(tmp_path / "kubelet.yaml"), str(tmp_path / "kubelet.yaml"),
               str(tmp_path), str(tmp_path / "link.yaml"), "--topology", str(tmp_path / "kubelet.yaml"))
    assert once.rules() == many.rules() == ["no-cpu-reservation"]
    assert many.json()["summary"]["files"] == 1
    # through a symlinked directory, and through ".." after it (resolved after the link, as the kernel does)
    (tmp_path / "nodes" / "sub").mkdir(parents=True)
    (tmp_path / "alias").symlink_to(tmp_path / "nodes")
    (tmp_path / "nodes" / "sub" / "k.yaml").symlink_to(tmp_path / "kubelet.yaml")
    alias = tmp_path / "alias"
    odd = run("check", "--format", "json", str(tmp_path / "kubelet.yaml"), str(alias / "sub" / "k.yaml"),
              str(alias / "sub" / ".." / "sub" / "k.yaml"), str(alias / ".." / "kubelet.yaml"))
    assert odd.rules() == ["no-cpu-reservation"] and odd.json()["summary"]["files"] == 1
    # a walk sees the links among a directory's entries: links to files are read once, a linked directory is
    # listed but not entered (as os.walk does), however deep the link sits
    (tmp_path / "nodes" / "deeper").symlink_to(tmp_path / "nodes" / "sub")
    walked = run("check", "--format", "json", str(tmp_path), str(tmp_path / "nodes" / "deeper" / "k.yaml"))
    assert walked.rules() == ["no-cpu-reservation"] and walked.json()["summary"]["files"] == 1


def test_identical_objects_merge_silently_and_different_ones_are_duplicates(tmp_path: Path) -> None:
    same = NETWORK.format(resource="fh_east")
    write(tmp_path, {"a/net.yaml": same, "b/net.yaml": same})
    assert "duplicate-object" not in run("check", "--format", "json", str(tmp_path)).rules()
    write(tmp_path, {"b/net.yaml": NETWORK.format(resource="fh_west")})
    result = run("check", "--format", "json", str(tmp_path))
    duplicates = [f for f in result.json()["findings"] if f["rule"] == "duplicate-object"]
    assert len(duplicates) == 1
    assert duplicates[0]["file"].endswith("b/net.yaml") and (duplicates[0]["line"], duplicates[0]["column"]) == (4, 9)
    assert "a/net.yaml:4" in duplicates[0]["message"] and "clusters:" in duplicates[0]["message"]


def test_clusters_resolve_names_inside_each_cluster(tmp_path: Path) -> None:
    write(tmp_path, {
        "clusters/east/net.yaml": NETWORK.format(resource="fh_east"),
        "clusters/west/net.yaml": NETWORK.format(resource="fh_west"),
        "clusters/east/kubelet.yaml": KUBELET.format(reserved="0"),
        "clusters/west/kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                      "cpuManagerPolicy: static\n",
        ".numalint.yaml": "clusters:\n  east: [clusters/east]\n  west: ['clusters/west/*']\n",
    })
    result = run("check", "--format", "json", str(tmp_path / "clusters"))
    assert "duplicate-object" not in result.rules()
    reservation = [f for f in result.json()["findings"] if f["rule"] == "no-cpu-reservation"]
    assert [(f["cluster"], Path(f["file"]).parent.name) for f in reservation] == [("west", "west")]
    text = run("check", str(tmp_path / "clusters"))
    assert "(cluster west)" in text.output


def test_configuration_is_found_from_the_checked_path(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo, {"kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                 "cpuManagerPolicy: static\n",
                 ".numalint.yml": "rules:\n  no-cpu-reservation: off\n"})
    (repo / ".git").mkdir()
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere, {".numalint.yaml": "rules:\n  no-cpu-reservation: info\n"})
    result = run("check", "--format", "json", str(repo), cwd=elsewhere)
    assert "no-cpu-reservation" not in result.rules()
    (repo / ".numalint.yml").unlink()
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.numalint.rules]\nno-cpu-reservation = "info"\n')
    found = run("check", "--format", "json", str(repo), cwd=elsewhere).json()["findings"]
    assert [(f["rule"], f["severity"]) for f in found] == [("no-cpu-reservation", "info")]


def test_an_unknown_configuration_key_is_a_usage_error_naming_the_closest(tmp_path: Path) -> None:
    write(tmp_path, {".numalint.yaml": "rule:\n  no-cpu-reservation: off\n", "k.yaml": "a: 1\n"})
    result = run("check", str(tmp_path))
    assert result.exit_code == 2
    assert 'unknown key "rule"' in result.stderr and '"rules"' in result.stderr


def test_an_empty_exclude_pattern_and_a_zero_padded_version_are_usage_errors(tmp_path: Path) -> None:
    # an empty pattern excluded every file, and the run then said only "no YAML or JSON files found"
    write(tmp_path, {".numalint.yaml": "exclude: ['']\n", "k.yaml": "a: 1\n"})
    result = run("check", str(tmp_path), cwd=tmp_path)
    assert result.exit_code == 2 and ".numalint.yaml:1:11: exclude.0: '' should be non-empty" in result.stderr
    write(tmp_path, {".numalint.yaml": "kubernetesVersion: '1.037'\n"})
    result = run("check", str(tmp_path), cwd=tmp_path)
    assert result.exit_code == 2 and "kubernetesVersion: '1.037' does not match" in result.stderr
    (tmp_path / ".numalint.yaml").unlink()
    result = run("check", "--kubernetes-version", "1.037", str(tmp_path / "k.yaml"))
    assert result.exit_code == 2 and "not a Kubernetes version: '1.037'" in result.stderr
    assert run("check", "--openshift-version", "4.021", str(tmp_path / "k.yaml")).exit_code == 2


def test_the_only_kubelet_configuration_is_every_workload_s_node(tmp_path: Path) -> None:
    write(tmp_path, {
        "kubelet.yaml": KUBELET.format(reserved="0,1"),
        "trading.yaml": """\
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: trading-engine
            spec:
              template:
                spec:
                  nodeSelector:
                    node-role.kubernetes.io/trading: ""
                  containers:
                    - name: engine
                      image: engine
                      resources:
                        limits: {cpu: 3500m, memory: 4Gi}
            """,
    })
    result = run("check", "--format", "json", str(tmp_path))
    fractional = [f for f in result.json()["findings"] if f["rule"] == "fractional-cpu"]
    assert len(fractional) == 1
    assert "numalint assumes it runs on" in fractional[0]["message"]
    assert "declare pools" in fractional[0]["message"]


def test_a_changed_kubelet_file_reports_the_unchanged_pod_it_breaks(tmp_path: Path) -> None:
    write(tmp_path, {"nodes/kubelet.yaml": KUBELET.format(reserved="0-2,8-10"), "nodes/topology.yaml": TOPOLOGY,
                     "apps/pod.yaml": POD, ".numalint.yaml": "context: [nodes, apps]\n"})
    named = os.path.join("nodes", "kubelet.yaml")
    result = run("check", "--format", "json", named, cwd=tmp_path)
    rejected = [f for f in result.json()["findings"] if f["rule"] == "admission-failure"]
    assert [f["file"] for f in rejected] == [os.path.join("apps", "pod.yaml")]
    assert any(r["file"].endswith("kubelet.yaml") for r in rejected[0]["related"])
    sarif = run("check", "--format", "sarif", named, cwd=tmp_path).json()
    related = sarif["runs"][0]["results"][0].get("relatedLocations", [])
    assert any("kubelet.yaml" in r["physicalLocation"]["artifactLocation"]["uri"] for r in related)
    # a named file that takes no part in the pod's fate does not surface it
    write(tmp_path, {"nodes/other.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"})
    quiet = run("check", "--format", "json", os.path.join("nodes", "other.yaml"), cwd=tmp_path)
    assert "admission-failure" not in quiet.rules()


PATCH = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: du
spec:
  template:
    spec:
      containers:
        - name: app
          resources:
            limits:
              hugepages-1Gi: 4Gi
"""


def test_a_kustomize_patch_is_a_fragment_not_an_object(tmp_path: Path) -> None:
    write(tmp_path, {
        "base/deployment.yaml": """\
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: du
            spec:
              template:
                spec:
                  containers:
                    - name: app
                      image: du
                      resources:
                        limits: {cpu: "4", memory: 8Gi, hugepages-1Gi: 2Gi}
            """,
        "base/kustomization.yaml": "resources: [deployment.yaml]\n",
        "overlays/prod/kustomization.yaml": "resources: [../../base]\npatches:\n  - path: hugepages.yaml\n",
        "overlays/prod/hugepages.yaml": PATCH,
        "overlays/lab/kustomization.yaml": "resources: [../../base]\npatchesStrategicMerge: [hugepages.yaml]\n",
        "overlays/lab/hugepages.yaml": PATCH,
    })
    result = run("check", "--format", "json", str(tmp_path))
    found = [(f["rule"], Path(f["file"]).relative_to(tmp_path).as_posix()) for f in result.json()["findings"]]
    assert sorted(found) == [("not-lintable", "overlays/lab/hugepages.yaml"),
                             ("not-lintable", "overlays/prod/hugepages.yaml")]
    assert all("kustomize build" in f["message"] for f in result.json()["findings"])
    assert result.exit_code == 0


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_kustomize_patches_are_found_by_the_processes_that_read_the_kustomizations(tmp_path: Path, jobs: str) -> None:
    """Enough files to read in parallel: each kustomization's patches are found where it is read (a kustomization
    with apiVersion and kind first is read whole, not skipped as an unknown kind), whatever process reads it."""
    files = {f"svc/s{i}.yaml": f"apiVersion: v1\nkind: Service\nmetadata: {{name: s{i}}}\n" for i in range(320)}
    files.update({
        "overlays/prod/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                                            "resources: [../../base]\npatches:\n  - path: hugepages.yaml\n",
        "overlays/prod/hugepages.yaml": PATCH,
        "overlays/lab/Kustomization": "patchesStrategicMerge: [numa.yaml, ../shared/hugepages.yaml]\n",
        "overlays/lab/numa.yaml": PATCH,  # a file beside it: the kustomization without a .yaml suffix is read
        "overlays/shared/hugepages.yaml": PATCH,
    })
    write(tmp_path, files)
    result = run("check", "--format", "json", "-j", jobs, str(tmp_path))
    found = [(f["rule"], Path(f["file"]).relative_to(tmp_path).as_posix()) for f in result.json()["findings"]]
    assert sorted(found) == [("not-lintable", "overlays/lab/numa.yaml"),
                             ("not-lintable", "overlays/prod/hugepages.yaml"),
                             ("not-lintable", "overlays/shared/hugepages.yaml")]
    named_in = {Path(f["file"]).relative_to(tmp_path).as_posix(): f["message"] for f in result.json()["findings"]}
    assert "overlays/prod/kustomization.yaml" in named_in["overlays/prod/hugepages.yaml"]
    assert "overlays/lab/Kustomization" in named_in["overlays/shared/hugepages.yaml"]
    assert result.exit_code == 0


def test_envsubst_placeholders_make_a_file_not_lintable_once(tmp_path: Path) -> None:
    write(tmp_path, {
        "policy.yaml": """\
            apiVersion: sriovnetwork.openshift.io/v1
            kind: SriovNetworkNodePolicy
            metadata:
              name: fh
              namespace: openshift-sriov-network-operator
            spec:
              resourceName: fh
              numVfs: ${NUM_VFS}
              priority: $PRIORITY
              nicSelector: {pfNames: [ens1f0]}
              nodeSelector: {node-role.kubernetes.io/worker: ""}
            """,
        "pod.yaml": """\
            apiVersion: v1
            kind: Pod
            metadata:
              name: shell
            spec:
              containers:
                - name: app
                  image: app
                  command: ["sh", "-c", "echo ${HOSTNAME} $HOME"]
                  env: [{name: A, value: "$B"}]
            """,
    })
    result = run("check", "--format", "json", str(tmp_path))
    assert [(f["rule"], Path(f["file"]).name) for f in result.json()["findings"]] == [("not-lintable", "policy.yaml")]
    assert "envsubst" in result.json()["findings"][0]["message"]


def test_helm_source_comments_name_the_template_a_finding_comes_from() -> None:
    stream = (
        "---\n# Source: dpdk/templates/kubelet.yaml\n"
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
        "---\n# Source: dpdk/templates/pod.yaml\n"
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: c\n"
        "    resources:\n      requests: {hugepages-2Mi: 1Gi, memory: 1Gi, cpu: '1'}\n"
        "      limits: {hugepages-2Mi: 2Gi, memory: 1Gi, cpu: '1'}\n")
    result = run("check", "--format", "json", "-", stdin=stream)
    where = sorted((f["rule"], f["file"], f["line"], f["stream"]) for f in result.json()["findings"])
    assert ("no-cpu-reservation", "dpdk/templates/kubelet.yaml", 5, "-") in where
    assert any(f == "dpdk/templates/pod.yaml" and line > 7 for _r, f, line, _s in where)
    text = run("check", "-", stdin=stream)
    assert "dpdk/templates/kubelet.yaml:5:" in text.output and "helm stream on stdin" in text.output
