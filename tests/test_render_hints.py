"""The command a not-lintable finding says to run instead works where the file is: a Helm template renders from
its chart's directory, an envsubst template from its own path, a patch of a kustomize component from a
kustomization that includes the component (a component does not build alone)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run, write

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers: [{{name: a, image: x}}]\n"


def hints(cwd: Path, *paths: str) -> list[str]:
    result = run("check", "--format", "json", "--fail-on", "never", *paths, cwd=cwd)
    assert "Traceback" not in result.stderr
    return [f["message"] for f in result.json()["findings"] if f["rule"] == "not-lintable"]


def test_a_helm_template_renders_from_its_chart(tmp_path: Path) -> None:
    write(tmp_path, {"charts/sriov/Chart.yaml": "name: sriov\nversion: 1.0.0\n",
                     "charts/sriov/templates/pod.yaml": POD.format(name="{{ .Values.name }}")})
    assert any("`helm template charts/sriov | numalint check -`" in m for m in hints(tmp_path, "."))
    # named from elsewhere, absolute: the chart's absolute directory
    found = hints(tmp_path.parent, str(tmp_path / "charts/sriov/templates/pod.yaml"))
    assert any(f"`helm template {tmp_path / 'charts/sriov'} | numalint check -`" in m for m in found), found


def test_simulate_names_the_chart_and_the_file_too(tmp_path: Path) -> None:
    write(tmp_path, {"charts/sriov/Chart.yaml": "name: sriov\nversion: 1.0.0\n",
                     "charts/sriov/templates/pod.yaml": POD.format(name="{{ .Values.name }}"),
                     "apps/pod.yaml": POD.format(name="${NAME}")})
    result = run("simulate", "--format", "json", ".", cwd=tmp_path)
    text = result.output.replace("\n", " ")
    assert "helm template charts/sriov | numalint simulate -" in text, text
    assert "envsubst < ./apps/pod.yaml | numalint simulate -" in text, text


def test_an_envsubst_template_names_its_file(tmp_path: Path) -> None:
    write(tmp_path, {"apps/pod.yaml": POD.format(name="${NAME}")})
    assert any("`envsubst < apps/pod.yaml | numalint check -`" in m for m in hints(tmp_path, "apps/pod.yaml"))


def test_a_component_patch_builds_through_the_overlay_that_includes_it(tmp_path: Path) -> None:
    component = ("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n"
                 "  - path: hugepages.yaml\n")
    patch = POD.format(name="app").replace("image: x}", "image: x, resources: {limits: {hugepages-1Gi: 2Gi}}}")
    write(tmp_path, {"base/pod.yaml": POD.format(name="app"), "base/kustomization.yaml": "resources: [pod.yaml]\n",
                     "components/numa/kustomization.yaml": component, "components/numa/hugepages.yaml": patch})
    found = hints(tmp_path, ".")
    assert any("named in the component ./components/numa/kustomization.yaml" in m
               and "`kustomize build OVERLAY-THAT-INCLUDES-IT | numalint check -`" in m for m in found), found
    write(tmp_path, {"overlays/prod/kustomization.yaml":
                     "resources: [../../base]\ncomponents: [../../components/numa]\n"})
    found = hints(tmp_path, ".")
    assert any("`kustomize build ./overlays/prod | numalint check -`" in m for m in found), found


def test_a_ztp_source_cr_with_blanks_is_a_template_not_an_invalid_object(tmp_path: Path) -> None:
    # GitOps ZTP keeps the CRs PolicyGenerator fills in under source-crs/: blank and $var values are its to fill
    profile = """\
        apiVersion: performance.openshift.io/v2
        kind: PerformanceProfile
        metadata: {name: openshift-node-performance-profile}
        spec:
          cpu:
          #  isolated: $isolated
          nodeSelector:
          numa: {topologyPolicy: restricted}
        """
    network = """\
        apiVersion: sriovnetwork.openshift.io/v1
        kind: SriovNetwork
        metadata: {name: "", namespace: openshift-sriov-network-operator}
        spec: {resourceName: "", vlan: "", spoofChk: ""}
        """
    write(tmp_path, {"policies/source-crs/PerformanceProfile.yaml": profile,
                     "policies/source-crs/SriovNetwork.yaml": network})
    result = run("check", "--format", "json", "--fail-on", "never", ".", cwd=tmp_path)
    found = [(f["rule"], f["message"]) for f in result.json()["findings"]]
    assert [rule for rule, _ in found] == ["not-lintable", "not-lintable"], found
    assert all("ZTP source CR" in message for _, message in found)
    # the same files elsewhere are objects, checked as such
    (tmp_path / "policies/source-crs").rename(tmp_path / "policies/crs")
    result = run("check", "--format", "json", "--fail-on", "never", ".", cwd=tmp_path)
    rules = {f["rule"] for f in result.json()["findings"]}
    assert {"performance-profile-invalid", "schema"} <= rules, rules


def test_a_complete_ztp_source_cr_is_checked(tmp_path: Path) -> None:
    # labels and node selectors of "" are values, not blanks; so are an exported object's creationTimestamp:
    # null and an empty list item
    profile = """\
        apiVersion: performance.openshift.io/v2
        kind: PerformanceProfile
        metadata: {name: p, labels: {a: ""}, creationTimestamp: null}
        spec:
          additionalKernelArgs: [""]
          cpu: {reserved: "0-3", isolated: "2-31"}
          nodeSelector: {node-role.kubernetes.io/worker-cnf: ""}
        status: {conditions: null}
        """
    write(tmp_path, {"source-crs/pp.yaml": profile})
    result = run("check", "--format", "json", "--fail-on", "never", ".", cwd=tmp_path)
    assert [f["rule"] for f in result.json()["findings"]] == ["performance-profile-cpus"]


def test_a_ztp_source_cr_with_its_whole_spec_blank_is_a_template(tmp_path: Path) -> None:
    write(tmp_path, {"source-crs/pp.yaml": "apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\n"
                                           "metadata: {name: p}\nspec:\n"})
    result = run("check", "--format", "json", "--fail-on", "never", ".", cwd=tmp_path)
    assert [f["rule"] for f in result.json()["findings"]] == ["not-lintable"]


KUBELET = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"


def test_a_jinja_template_of_statements_alone_is_not_lintable_not_broken_yaml(tmp_path: Path) -> None:
    """kubespray / Ansible templates: `{% if %}` lines alone make the file unparsable YAML, and a `{% %}` inside a
    value is no CPU list; both are templates to render, not errors, and no `helm template` is offered."""
    write(tmp_path, {"roles/kubelet.yaml": KUBELET + "{% if cgroupfs %}\ncgroupDriver: cgroupfs\n{% endif %}\n"
                                           'reservedSystemCPUs: "0"\n',
                     "roles/inline.yaml": KUBELET + 'reservedSystemCPUs: "{% if ht %}0,32{% else %}0{% endif %}"\n'})
    result = run("check", "--format", "json", ".", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    found = result.json()["findings"]
    assert sorted((f["file"], f["rule"]) for f in found) == [("./roles/inline.yaml", "not-lintable"),
                                                             ("./roles/kubelet.yaml", "not-lintable")]
    assert all("Jinja template" in f["message"] and "helm template" not in f["message"] for f in found)


def test_a_go_template_outside_any_chart_gets_no_helm_command_that_would_fail(tmp_path: Path) -> None:
    write(tmp_path, {"vms/vm.yaml": POD.format(name="{{VM_NAME}}")})
    found = hints(tmp_path, ".")
    assert len(found) == 1
    assert "outside any Helm chart" in found[0] and "helm template" not in found[0]
    assert "`numalint check RENDERED.yaml`" in found[0]


def test_shell_and_cloud_init_text_is_not_a_jinja_template(tmp_path: Path) -> None:
    """bash's ${#VAR} and cloud-init's own Jinja user data are the program's text: the file is still checked."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: a\n      image: x\n"
           "      command: [sh, -c, 'n=${#CPUS}; {% raw %}x{% endraw %}']\n"
           "      resources: {limits: {cpu: 1500m, memory: 1Gi, hugepages-2Mi: 64Mi}}\n")
    vm = ("apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {name: vm}\nspec:\n  template:\n    spec:\n"
          "      domain:\n        cpu: {cores: 2, dedicatedCpuPlacement: true}\n        memory: {guest: 1Gi}\n"
          "        devices: {}\n      volumes:\n        - name: init\n          cloudInitNoCloud:\n"
          "            userData: |\n              ## template: jinja\n              {% if v1.distro == 'fedora' %}\n"
          "              packages: [tuned]\n              {% endif %}\n")
    kubelet = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: none\n"
    write(tmp_path, {"pod.yaml": pod, "vm.yaml": vm, "kubelet.yaml": kubelet})
    result = run("check", "--format", "json", "--fail-on", "never", ".", cwd=tmp_path)
    rules = sorted((f["file"], f["rule"]) for f in result.json()["findings"])
    assert ("./vm.yaml", "admission-failure") in rules  # cpumanager=true: the VM is judged
    assert all(rule != "not-lintable" for _, rule in rules), rules


def test_a_jinja_comment_counts_only_when_closed_on_its_line(tmp_path: Path) -> None:
    kubelet = KUBELET + 'reservedSystemCPUs: "0"\n'
    write(tmp_path / "a", {"kubelet.yaml": kubelet.replace('"0"', '"0" # {# the first core #}')
                           + "featureGates: {X: true}\nlogging: {format: '{# x'}\n" + "x: '" + "{#" * 5000 + "'\n"})
    found = hints(tmp_path / "a", ".")
    assert found == []  # a YAML comment is no value; an unclosed {# is text
    write(tmp_path / "b", {"kubelet.yaml": kubelet + "x: '{# note #}'\n"})
    assert len(hints(tmp_path / "b", ".")) == 1


def test_jinja_tags_ansible_writes_and_a_chart_holding_jinja_user_data(tmp_path: Path) -> None:
    write(tmp_path, {"roles/do.yaml": KUBELET + "{% do cpus.append(1) %}\n",
                     "roles/comment.yaml": KUBELET + "{# a comment\n   over two lines #}\n",
                     "charts/vm/Chart.yaml": "name: vm\nversion: 1.0.0\n",
                     "charts/vm/templates/vm.yaml": "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n"
                     "  name: {{ .Release.Name }}\nspec:\n  template:\n    spec:\n      volumes:\n"
                     "        - cloudInitNoCloud:\n            userData: |\n              {% if x %}a{% endif %}\n"})
    report = run("check", "--format", "json", ".", cwd=tmp_path).json()
    found = {f["file"]: f["message"] for f in report["findings"]}
    assert "Jinja template" in found["./roles/do.yaml"] and "Jinja template" in found["./roles/comment.yaml"]
    assert "`helm template charts/vm | numalint check -`" in found["./charts/vm/templates/vm.yaml"]
