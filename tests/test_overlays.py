"""Kustomize bases: a field every overlay building the base patches in is not reported missing or wrong on the
base (the base alone is never applied); a field some build leaves as the base has it still is."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.conftest import run, write

PROFILE = """\
    apiVersion: performance.openshift.io/v2
    kind: PerformanceProfile
    metadata:
      name: ran
    spec:
      cpu:
        isolated: "2-31"
      numa:
        topologyPolicy: single-numa-node
    """
SELECTOR_PATCH = """\
    apiVersion: performance.openshift.io/v2
    kind: PerformanceProfile
    metadata:
      name: ran
    spec:
      nodeSelector:
        node-role.kubernetes.io/worker-cnf: ""
    """
KUBELET = """\
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    cpuManagerPolicy: static
    reservedSystemCPUs: "0-1"
    topologyManagerPolicy: single-numa-node
    """
DEPLOYMENT = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: dpdk
    spec:
      selector: {matchLabels: {app: dpdk}}
      template:
        metadata:
          labels: {app: dpdk}
        spec:
          containers:
            - name: sidecar
              image: busybox
              resources:
                limits: {cpu: 100m, memory: 64Mi}
            - name: app
              image: dpdk
              resources:
                limits: {cpu: 2500m, memory: 1Gi, hugepages-1Gi: 2Gi}
    """


def messages(tmp_path: Path, *args: str) -> list[str]:
    result = run("check", "--format", "json", "--fail-on", "never", *args, cwd=tmp_path)
    assert result.exit_code == 0, result.output + result.stderr
    return [f"{f['rule']} {f['file'].removeprefix(str(tmp_path) + '/').removeprefix('./')}: {f['message']}"
            for f in result.json()["findings"] if f["rule"] != "not-lintable"]


def profile_tree(tmp_path: Path, *overlays: tuple[str, str | None]) -> None:
    """base/ with the profile; each overlay (name, patch text or None) builds it, patching it when given."""
    write(tmp_path, {"base/pp.yaml": PROFILE, "base/kustomization.yaml": "resources:\n  - pp.yaml\n"})
    for name, patch in overlays:
        files = {f"overlays/{name}/kustomization.yaml": "resources:\n  - ../../base\n"
                 + ("patches:\n  - path: patch.yaml\n" if patch else "")}
        if patch:
            files[f"overlays/{name}/patch.yaml"] = patch
        write(tmp_path, files)


def test_a_selector_every_overlay_patches_in_is_not_missing_from_the_base(tmp_path: Path) -> None:
    profile_tree(tmp_path, ("site-a", SELECTOR_PATCH), ("site-b", SELECTOR_PATCH))
    found = messages(tmp_path, str(tmp_path))
    assert not any("nodeSelector" in m for m in found), found
    # the base still lacks spec.cpu.reserved, which no overlay sets: still reported
    assert any("performance-profile-invalid base/pp.yaml: spec.cpu.reserved is required" in m for m in found), found


def test_an_overlay_that_does_not_patch_the_field_keeps_the_finding(tmp_path: Path) -> None:
    profile_tree(tmp_path, ("site-a", SELECTOR_PATCH), ("lab", None))
    found = messages(tmp_path, str(tmp_path))
    assert any("base/pp.yaml: spec.nodeSelector is required" in m for m in found), found


def test_the_base_checked_alone_is_reported_and_context_overlays_settle_it(tmp_path: Path) -> None:
    profile_tree(tmp_path, ("site-a", SELECTOR_PATCH))
    alone = messages(tmp_path, str(tmp_path / "base"))
    assert any("spec.nodeSelector is required" in m for m in alone), alone
    # a pre-commit run on the base, the overlays named as context in .numalint.yaml
    write(tmp_path, {".numalint.yaml": "context:\n  - overlays\n"})
    with_context = messages(tmp_path, "base/pp.yaml")
    assert not any("nodeSelector" in m for m in with_context), with_context


def test_a_patch_for_another_object_or_another_field_settles_nothing(tmp_path: Path) -> None:
    other = SELECTOR_PATCH.replace("name: ran", "name: other")
    cpu_only = SELECTOR_PATCH.replace('nodeSelector:\n        node-role.kubernetes.io/worker-cnf: ""',
                                      'cpu:\n        isolated: "4-31"')
    profile_tree(tmp_path, ("site-a", other), ("site-b", cpu_only))
    found = messages(tmp_path, str(tmp_path))
    assert any("spec.nodeSelector is required" in m for m in found), found
    # spec.cpu.isolated in a patch is not spec.cpu.reserved
    assert any("spec.cpu.reserved is required" in m for m in found), found


def test_a_json6902_patch_by_target_settles_the_container_it_names_by_index(tmp_path: Path) -> None:
    patch = """\
        resources:
          - ../base
        patches:
          - target: {kind: Deployment, name: dp.*}
            patch: |-
              - op: replace
                path: /spec/template/spec/containers/%d/resources/limits/cpu
                value: "4"
        """
    write(tmp_path, {"node.yaml": KUBELET, "base/dep.yaml": DEPLOYMENT,
                     "base/kustomization.yaml": "resources:\n  - dep.yaml\n",
                     "prod/kustomization.yaml": patch % 0})
    # container 0 is the sidecar: the app's 2500m stays as the base has it
    found = messages(tmp_path, str(tmp_path))
    assert any('fractional-cpu base/dep.yaml: container "app"' in m for m in found), found
    write(tmp_path, {"prod/kustomization.yaml": patch % 1})
    found = messages(tmp_path, str(tmp_path))
    assert not any('container "app"' in m for m in found), found


def test_a_strategic_merge_patch_inline_and_a_component_count(tmp_path: Path) -> None:
    component = ("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n  - patch: |-\n"
                 + textwrap.indent(textwrap.dedent(SELECTOR_PATCH), "      "))
    profile_tree(tmp_path)
    write(tmp_path, {"components/selector/kustomization.yaml": component,
                     "overlays/site/kustomization.yaml":
                         "resources:\n  - ../../base\ncomponents:\n  - ../../components/selector\n"})
    found = messages(tmp_path, str(tmp_path))
    assert not any("nodeSelector" in m for m in found), found


def test_a_broken_kustomization_or_patch_is_no_traceback(tmp_path: Path) -> None:
    profile_tree(tmp_path, ("site-a", "kind: [unclosed\n"))
    write(tmp_path, {"overlays/odd/kustomization.yaml":
                     "resources: [../../base, 7, {a: b}, https://example.com/x]\n"
                     "patches:\n  - target: {kind: '('}\n    patch: '[1, 2'\n  - path: missing.yaml\n  - 5\n"})
    result = run("check", str(tmp_path))
    assert "Traceback" not in result.stderr
    assert "spec.nodeSelector is required" in result.output  # neither overlay sets it


@pytest.mark.parametrize("target,settled", [("du-perf-x", True), ("perf", True), ("perf-x", False)])
def test_a_target_names_the_object_as_renamed_below_it_or_as_written(tmp_path: Path, target: str,
                                                                     settled: bool) -> None:
    # flavor/ renames the base's "perf" to "du-perf-x": kustomize matches a target on the original name or the
    # current one, and on no other
    write(tmp_path, {"base/pp.yaml": PROFILE.replace("name: ran", "name: perf"),
                     "base/kustomization.yaml": "resources:\n  - pp.yaml\n",
                     "flavor/kustomization.yaml": "resources:\n  - ../base\nnamePrefix: du-\nnameSuffix: -x\n",
                     "site/kustomization.yaml": f"""\
                         resources:
                           - ../flavor
                         patches:
                           - target: {{kind: PerformanceProfile, name: {target}}}
                             patch: |-
                               - op: add
                                 path: /spec/nodeSelector
                                 value: {{node-role.kubernetes.io/worker-du: ""}}
                         """})
    found = messages(tmp_path, str(tmp_path))
    assert any("spec.nodeSelector is required" in m for m in found) is not settled, found


def _deployment_tree(tmp_path: Path, target: str, operation: str = "replace") -> None:
    write(tmp_path, {"node.yaml": KUBELET, "base/dep.yaml": DEPLOYMENT,
                     "base/kustomization.yaml": "resources:\n  - dep.yaml\n",
                     "prod/kustomization.yaml": f"""\
                         resources:
                           - ../base
                         patches:
                           - target: {target}
                             patch: |-
                               - op: {operation}
                                 path: /spec/template/spec/containers/1/resources/limits/cpu
                                 value: "4"
                         """})


@pytest.mark.parametrize("target,operation", [
    ("{kind: Deployment, name: dpdk, namespace: other}", "replace"),  # another namespace's Deployment
    ("{kind: Deployment, labelSelector: app=dpdk}", "replace"),  # chosen by labels: not read here
    ("{kind: Deployment, name: dpdk, group: extensions}", "replace"),  # another group
    ("{kind: Deployment, name: dpdk}", "test"),  # a test writes nothing
])
def test_a_patch_that_does_not_write_this_object_settles_nothing(tmp_path: Path, target: str,
                                                                 operation: str) -> None:
    _deployment_tree(tmp_path, target, operation)
    assert any('fractional-cpu base/dep.yaml: container "app"' in m for m in messages(tmp_path, str(tmp_path)))


def test_a_patch_of_part_of_a_field_does_not_settle_the_rest(tmp_path: Path) -> None:
    # strategic merge keeps the base's other labels: a selector of two stays two; cpu.isolated alone leaves
    # cpu.reserved missing
    two = PROFILE.replace("spec:\n", 'spec:\n      nodeSelector: {a/b: "", c/d: ""}\n      cpu: {isolated: "2-31"}\n')
    two = two.replace('      cpu:\n        isolated: "2-31"\n', "")
    patch = SELECTOR_PATCH.replace('node-role.kubernetes.io/worker-cnf: ""', 'a/b: "x"')
    profile_tree(tmp_path, ("site", patch))
    write(tmp_path, {"base/pp.yaml": two})
    found = messages(tmp_path, str(tmp_path))
    assert any("nodeSelector has several labels" in m for m in found), found
    cpu_only = SELECTOR_PATCH.replace('nodeSelector:\n        node-role.kubernetes.io/worker-cnf: ""',
                                      'cpu:\n        isolated: "2-31"')
    write(tmp_path / "nocpu", {"base/pp.yaml": PROFILE.replace('  cpu:\n    isolated: "2-31"\n', "")})
    profile_tree(tmp_path / "nocpu", ("site", cpu_only))
    write(tmp_path / "nocpu", {"base/pp.yaml": PROFILE.replace('      cpu:\n        isolated: "2-31"\n', "")})
    found = messages(tmp_path / "nocpu", str(tmp_path / "nocpu"))
    assert any("spec.cpu is required" in m for m in found), found


def test_every_way_into_a_build_must_patch_the_field(tmp_path: Path) -> None:
    # site takes the base twice, through mid-a (renamed a-, patched) and mid-b (renamed b-, not patched): the
    # build's b-dpdk keeps 2500m
    write(tmp_path, {"node.yaml": KUBELET, "base/dep.yaml": DEPLOYMENT,
                     "base/kustomization.yaml": "resources:\n  - dep.yaml\n",
                     "mid-a/kustomization.yaml": """\
                         resources: [../base]
                         namePrefix: a-
                         patches:
                           - target: {kind: Deployment, name: dpdk}
                             patch: |-
                               - {op: replace, path: /spec/template/spec/containers/1/resources/limits/cpu, value: "4"}
                         """,
                     "mid-b/kustomization.yaml": "resources: [../base]\nnamePrefix: b-\n",
                     "site/kustomization.yaml": "resources: [../mid-a, ../mid-b]\n"})
    assert any('container "app"' in m for m in messages(tmp_path, str(tmp_path)))


def test_a_base_named_through_a_symbolic_link_is_the_same_base(tmp_path: Path) -> None:
    profile_tree(tmp_path, ("site-a", SELECTOR_PATCH))
    (tmp_path / "base-link").symlink_to(tmp_path / "base")
    write(tmp_path, {"overlays/lab/kustomization.yaml": "resources:\n  - ../../base-link\n"})
    found = messages(tmp_path, str(tmp_path / "base"), str(tmp_path / "overlays"))
    assert any("spec.nodeSelector is required" in m for m in found), found


def test_a_cycle_of_kustomizations_ends_and_decides_nothing(tmp_path: Path) -> None:
    # kustomize refuses a cycle; numalint must not walk round it for ever (nor crash on a NUL in an entry)
    profile_tree(tmp_path, ("site", SELECTOR_PATCH))
    write(tmp_path, {"base/kustomization.yaml": "resources:\n  - pp.yaml\n  - ../overlays/site\n  - .\n"
                                                "  - \"x\\0y/z.yaml\"\n"})
    found = messages(tmp_path, str(tmp_path))
    assert any("spec.nodeSelector is required" in m for m in found), found


def test_a_base_through_a_linked_directory_is_settled_like_the_base(tmp_path: Path) -> None:
    profile_tree(tmp_path)
    (tmp_path / "base-link").symlink_to(tmp_path / "base")
    write(tmp_path, {"overlays/lab/kustomization.yaml": "resources:\n  - ../../base-link\npatches:\n"
                                                        "  - path: patch.yaml\n",
                     "overlays/lab/patch.yaml": SELECTOR_PATCH})
    found = messages(tmp_path, str(tmp_path / "base"), str(tmp_path / "overlays"))
    assert not any("nodeSelector" in m for m in found), found


def test_a_profile_without_a_spec_is_settled_only_by_a_whole_one(tmp_path: Path) -> None:
    profile_tree(tmp_path, ("site", SELECTOR_PATCH))
    write(tmp_path, {"base/pp.yaml": "apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\n"
                                     "metadata: {name: ran}\n"})
    found = messages(tmp_path, str(tmp_path))
    assert any("PerformanceProfile without a spec" in m for m in found), found


def test_sites_patching_different_selector_labels_each_supply_the_selector(tmp_path: Path) -> None:
    # site-a selects worker-a, site-b worker-b: each build has a nodeSelector, so the base's missing one is settled
    profile_tree(tmp_path, ("site-a", SELECTOR_PATCH.replace("worker-cnf", "worker-a")),
                 ("site-b", SELECTOR_PATCH.replace("worker-cnf", "worker-b")))
    found = messages(tmp_path, str(tmp_path))
    assert not any("nodeSelector" in m for m in found), found


def test_a_fix_on_a_base_whose_overlay_moves_it_to_another_pool_is_only_a_hint(tmp_path: Path) -> None:
    # rounding 2500m to 3 is fine on pool-a; overlay b puts the Deployment on pool-b, whose full-pcpus-only
    # (two threads per core) would reject 3 CPUs: the fix is proven only where the base alone runs
    def kubelet(options: str) -> str:
        return ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
                f'reservedSystemCPUs: "0,16"\n{options}')

    def topology(pool: str) -> str:
        return (f"apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: {pool}}}\nspec:\n"
                f'  pool: {{nodeSelector: {{node-role.kubernetes.io/{pool}: ""}}, nodes: 1, '
                f"kubeletConfig: kubelet-{pool}}}\n  threadsPerCore: 2\n  numaNodes:\n"
                '    - {id: 0, cpus: "0-7,16-23", memory: 64Gi}\n    - {id: 1, cpus: "8-15,24-31", memory: 64Gi}\n')

    base = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\nspec:\n  template:\n    spec:\n"
            '      nodeSelector: {node-role.kubernetes.io/pool-a: ""}\n      containers:\n'
            '        - {name: app, image: x, resources: {limits: {cpu: 2500m, memory: 1Gi}}}\n')
    overlay = ("resources: [../../base]\npatches:\n  - target: {kind: Deployment, name: app}\n    patch: |\n"
               "      - op: replace\n        path: /spec/template/spec/nodeSelector\n"
               '        value: {node-role.kubernetes.io/pool-b: ""}\n')
    files = {"nodes/kubelet-pool-a.yaml": kubelet(""),
             "nodes/kubelet-pool-b.yaml": kubelet('cpuManagerPolicyOptions: {full-pcpus-only: "true"}\n'),
             "nodes/pool-a.yaml": topology("pool-a"), "nodes/pool-b.yaml": topology("pool-b"),
             "base/deploy.yaml": base, "base/kustomization.yaml": "resources: [deploy.yaml]\n",
             "overlays/b/kustomization.yaml": overlay}
    write(tmp_path, files)
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    rounding = next(f for f in found if f["rule"] == "fractional-cpu")
    assert rounding["fix"]["edits"] == [] and "kustomize overlays that build it patch" in rounding["fix"]["description"]
    run("fix", "--unsafe-fixes", str(tmp_path))
    assert (tmp_path / "base" / "deploy.yaml").read_text() == base
    (tmp_path / "overlays" / "b" / "kustomization.yaml").write_text(overlay.replace("nodeSelector", "priorityClassName")
                                                                    .replace('{node-role.kubernetes.io/pool-b: ""}',
                                                                             "high"))
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert next(f for f in found if f["rule"] == "fractional-cpu")["fix"]["edits"]  # a patch that moves nothing


@pytest.mark.parametrize("names", [("a-site", "z-lab"), ("a-lab", "z-site")])
def test_a_finding_some_builds_settle_names_a_build_that_does_not(tmp_path: Path, names: tuple[str, str]) -> None:
    """A base profile without a node selector that one site's overlay patches in and a lab's leaves alone: the
    finding holds for the lab's build, which it names, whichever is met first; its fix says to patch it there, as
    the site does (a label written in the base would be merged into the site's; found by a precision review)."""
    site, lab = names if "site" in names[0] else names[::-1]
    profile_tree(tmp_path, (site, SELECTOR_PATCH), (lab, None))
    result = run("check", "--format", "json", "--fail-on", "never", ".", cwd=tmp_path)
    found = [f for f in result.json()["findings"] if "spec.nodeSelector is required" in f["message"]]
    assert [f["file"].removeprefix("./") for f in found] == ["base/pp.yaml"]
    assert [(r["file"], r["message"]) for r in found[0]["related"]] == [
        (f"overlays/{lab}/kustomization.yaml",
         "kustomize builds the object here without patching spec.nodeSelector, which other builds patch")]
    assert found[0]["fix"]["edits"] == []
    assert found[0]["fix"]["description"].endswith(
        f"other kustomize builds patch spec.nodeSelector: patch it in overlays/{lab}/kustomization.yaml rather "
        "than in this base, which they all take")
    # no build patching it: nothing to say of one
    profile_tree(tmp_path / "none", (lab, None), ("other-lab", None))
    result = run("check", "--format", "json", "--fail-on", "never", ".", cwd=tmp_path / "none")
    found = [f for f in result.json()["findings"] if "spec.nodeSelector is required" in f["message"]]
    assert len(found) == 1 and found[0].get("related", []) == []


def test_a_build_patching_another_field_leaves_the_finding_and_is_named(tmp_path: Path) -> None:
    """A build patching only another field of the object does not settle the finding: the walk looks on for one
    that does, past it (found by a review: it stopped at the first build patching anything)."""
    other = SELECTOR_PATCH.replace('nodeSelector:\n        node-role.kubernetes.io/worker-cnf: ""',
                                   "realTimeKernel: {enabled: true}")
    profile_tree(tmp_path, ("a-rt", other), ("b-lab", None), ("c-site", SELECTOR_PATCH))
    result = run("check", "--format", "json", "--fail-on", "never", ".", cwd=tmp_path)
    [found] = [f for f in result.json()["findings"] if "spec.nodeSelector is required" in f["message"]]
    assert [r["file"] for r in found["related"]] in (["overlays/a-rt/kustomization.yaml"],
                                                     ["overlays/b-lab/kustomization.yaml"])
    assert "patch it in overlays/" in found["fix"]["description"]


def test_a_build_is_named_through_the_link_the_run_came_by_only_when_that_name_leads_to_it(tmp_path: Path) -> None:
    """A base reached through a symbolic link at another depth: the unpatched build is named by a path that leads
    to it (found by a review: a lexical `..` through the link named a file that does not exist)."""
    profile_tree(tmp_path / "vendor" / "lib", ("site", SELECTOR_PATCH), ("lab", None))
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "base").symlink_to(tmp_path / "vendor" / "lib" / "base")
    result = run("check", "--format", "json", "--fail-on", "never", "app/base/pp.yaml", "vendor/lib/overlays",
                 cwd=tmp_path)
    [found] = [f for f in result.json()["findings"] if "spec.nodeSelector is required" in f["message"]]
    [related] = found["related"]
    assert (tmp_path / related["file"]).is_file(), related
