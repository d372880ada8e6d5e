"""crio-annotations-ignored: CRI-O's CPU tuning annotations do nothing without the profile's runtime class."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import findings

RULE = "crio-annotations-ignored"
SELECTOR = '              nodeSelector:\n                node-role.kubernetes.io/worker-cnf: ""\n'  # deployment()'s


def profile(name: str, role: str) -> str:
    return f"""\
        apiVersion: performance.openshift.io/v2
        kind: PerformanceProfile
        metadata:
          name: {name}
        spec:
          cpu:
            reserved: "0-1"
            isolated: "2-15"
          nodeSelector:
            node-role.kubernetes.io/{role}: ""
        """


def deployment(annotations: str = 'cpu-load-balancing.crio.io: "disable"', spec: str = "",
               role: str = "worker-cnf", own: str = "") -> str:
    return f"""\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: du{own}
        spec:
          selector: {{matchLabels: {{app: du}}}}
          template:
            metadata:
              labels: {{app: du}}
              annotations:
                {annotations}
            spec:{spec}
              nodeSelector:
                node-role.kubernetes.io/{role}: ""
              containers:
                - name: du
                  image: du
                  resources:
                    limits: {{cpu: "4", memory: 4Gi}}
        """


def hits(tmp_path: Path, files: dict[str, str], *args: str) -> list[dict[str, Any]]:
    return [f for f in findings(tmp_path, files, *args) if f["rule"] == RULE]


def test_the_fix_names_the_runtime_class_of_the_pool_the_pod_lands_on(tmp_path: Path) -> None:
    files = {"a.yaml": profile("ran-a", "worker-a"), "b.yaml": profile("ran-b", "worker-b"),
             "du.yaml": deployment('irq-load-balancing.crio.io: "disable"', role="worker-b")}
    [hit] = hits(tmp_path, files)
    assert (hit["file"].endswith("du.yaml"), hit["line"], hit["column"], hit["severity"]) == (True, 11, 9, "warning")
    assert 'sets irq-load-balancing.crio.io: "disable" but no runtimeClassName' in hit["message"]
    assert "keep device interrupts" in hit["message"]
    assert hit["fix"]["description"] == "set spec.template.spec.runtimeClassName: performance-ran-b"


def test_a_pod_saying_nothing_of_its_nodes_is_offered_the_profiles_beside_it(tmp_path: Path) -> None:
    anywhere = deployment().replace(SELECTOR, "")
    files = {"a.yaml": profile("ran-a", "worker-a"), "b.yaml": profile("ran-b", "worker-b"), "du.yaml": anywhere}
    [hit] = hits(tmp_path, files)
    assert hit["fix"]["description"] == ("set spec.template.spec.runtimeClassName to the runtime class of its nodes' "
                                         "PerformanceProfile: performance-ran-a or performance-ran-b")


def test_a_pod_beside_many_profiles_is_offered_ten_runtime_classes_and_a_count(tmp_path: Path) -> None:
    # the rest are counted, as every finding naming other objects does; two pods of one directory get the same
    anywhere = deployment().replace(SELECTOR, "")
    files = {f"p{i:02}.yaml": profile(f"ran-{i:02}", f"worker-{i}") for i in range(13)}
    files |= {"du.yaml": anywhere, "du2.yaml": anywhere.replace("name: du", "name: du2")}
    found = hits(tmp_path, files)
    assert len(found) == 2 and found[0]["fix"]["description"] == found[1]["fix"]["description"] == (
        "set spec.template.spec.runtimeClassName to the runtime class of its nodes' PerformanceProfile: "
        + ", ".join(f"performance-ran-{i:02}" for i in range(10)) + " or one of 3 more")
    del files["p12.yaml"], files["p11.yaml"]  # eleven: all named, no "one of 1 more"
    assert hits(tmp_path / "eleven", files)[0]["fix"]["description"].endswith(
        "performance-ran-09 or performance-ran-10")


def test_a_pod_scheduled_onto_nodes_no_profile_tunes_is_not_judged(tmp_path: Path) -> None:
    # no high-performance handler runs there, and another profile's runtime class would move the pod (Pending)
    files = {"a.yaml": profile("ran-a", "worker-a"), "b.yaml": profile("ran-b", "worker-b"),
             "du.yaml": deployment(role="worker-gpu")}
    assert hits(tmp_path, files) == []


def test_a_profile_of_another_clusters_tree_says_nothing_of_a_pod(tmp_path: Path) -> None:
    anywhere = deployment().replace(SELECTOR, "")
    files = {"clusters/east/tuning/pp.yaml": profile("ran-a", "worker-a"), "apps/web/team/du.yaml": anywhere}
    assert hits(tmp_path, files) == []


@pytest.mark.parametrize("spec", ["\n              runtimeClassName: performance-ran-a",
                                  "\n              runtimeClassName: my-crio-handler"])
def test_a_pod_that_names_a_runtime_class_is_not_judged(tmp_path: Path, spec: str) -> None:
    # a runtime class of another name may be a handler that allows the annotations: the run cannot say
    assert hits(tmp_path, {"a.yaml": profile("ran-a", "worker-cnf"), "du.yaml": deployment(spec=spec)}) == []


@pytest.mark.parametrize("annotations", ['cpu-load-balancing.crio.io: "enable"', 'cpu-quota.crio.io: "false"',
                                         'example.com/other: "disable"', 'cpu-quota.crio.io: "Disable"',
                                         'cpu-load-balancing.crio.io: "disabled"', 'cpu-quota.crio.io: "housekeeping"',
                                         # CRI-O fails the start on these (a runtime class would break the pod) ...
                                         'cpu-c-states.crio.io: "max_latency:0"', 'cpu-c-states.crio.io: "Disable"',
                                         'cpu-c-states.crio.io: "max_latency:1e3"', 'cpu-freq-governor.crio.io: ""',
                                         # ... and reads these two for the pod only
                                         'cpu-c-states.crio.io/du: "disable"',
                                         'cpu-freq-governor.crio.io/du: "performance"'])
def test_values_crio_never_acts_on_are_not_judged(tmp_path: Path, annotations: str) -> None:
    # CRI-O compares the values exactly: these do nothing under any runtime class, which a runtime class cannot mend
    assert hits(tmp_path, {"a.yaml": profile("ran-a", "worker-cnf"), "du.yaml": deployment(annotations)}) == []


@pytest.mark.parametrize("annotations", ['cpu-load-balancing.crio.io: "true"', 'irq-load-balancing.crio.io: '
                                         '"housekeeping"', 'cpu-quota.crio.io/du: "disable"',
                                         'cpu-c-states.crio.io: "disable"', 'cpu-c-states.crio.io: "enable"',
                                         'cpu-c-states.crio.io: "max_latency:10"',
                                         'cpu-freq-governor.crio.io: "performance"'])
def test_every_value_and_key_crio_acts_on_is_judged(tmp_path: Path, annotations: str) -> None:
    # "true" is the deprecated "disable"; "housekeeping" is irq-load-balancing's own; a key may name one container
    [hit] = hits(tmp_path, {"a.yaml": profile("ran-a", "worker-cnf"), "du.yaml": deployment(annotations)})
    key, value = annotations.split(": ")
    assert f"sets {key}: {value} but no runtimeClassName" in hit["message"] and (hit["line"], hit["column"]) == (11, 9)


def test_without_a_performance_profile_nothing_is_said(tmp_path: Path) -> None:
    assert hits(tmp_path, {"du.yaml": deployment()}) == []


@pytest.mark.parametrize("with_profile", [True, False])
def test_annotations_on_the_controller_itself_are_not_the_pods(tmp_path: Path, with_profile: bool) -> None:
    """The Deployment's own annotations never reach its pods, so CRI-O never sees them, runtime class or not: said
    as such, at the annotation, profile or not (found by a precision review: a Job's own cpu-load-balancing)."""
    own = '\n          annotations:\n            cpu-quota.crio.io: "disable"'
    files = {"du.yaml": deployment("app: du", own=own), **({"a.yaml": profile("ran-a", "worker-cnf")}
                                                             if with_profile else {})}
    [hit] = hits(tmp_path, files)
    written = (tmp_path / "du.yaml").read_text()
    assert 'metadata:\n  name: du\n  annotations:\n    cpu-quota.crio.io: "disable"\n' in written
    assert (hit["line"], hit["column"]) == (6, 5)
    assert hit["message"] == ("Deployment du sets cpu-quota.crio.io on its own metadata, not on its pod template: a "
                              "Deployment passes only spec.template.metadata.annotations to its pods, so CRI-O never "
                              "sees them and the pods' CPUs keep the CFS quota")
    assert hit["fix"]["description"] == "move cpu-quota.crio.io to spec.template.metadata.annotations"
    # on its pod template too: nothing misplaced (the template's is judged as any pod's)
    files["du.yaml"] = deployment('cpu-quota.crio.io: "disable"', own=own)
    assert [h["message"].split(" but ")[0] for h in hits(tmp_path, files)] == (
        ['Deployment du sets cpu-quota.crio.io: "disable"'] if with_profile else [])
    # a value CRI-O does nothing with is no tuning, wherever it is
    files["du.yaml"] = deployment("app: du", own=own.replace('"disable"', '"enable"'))
    assert hits(tmp_path, files) == []


def test_a_kubevirt_vm_is_not_judged(tmp_path: Path) -> None:
    vm = """\
        apiVersion: kubevirt.io/v1
        kind: VirtualMachine
        metadata:
          name: vdu
        spec:
          template:
            metadata:
              annotations:
                cpu-load-balancing.crio.io: "disable"
            spec:
              domain:
                cpu: {cores: 4, dedicatedCpuPlacement: true}
                memory: {guest: 8Gi}
                devices: {}
        """
    assert hits(tmp_path, {"a.yaml": profile("ran-a", "worker-cnf"), "vm.yaml": vm}) == []


def test_several_annotations_point_at_the_first_and_name_every_effect(tmp_path: Path) -> None:
    three = ('cpu-quota.crio.io: "disable"\n                cpu-load-balancing.crio.io: "disable"\n'
             '                irq-load-balancing.crio.io: "disable"')
    [hit] = hits(tmp_path, {"a.yaml": profile("ran-a", "worker-cnf"), "du.yaml": deployment(three)})
    assert hit["line"] == 11 and hit["message"].endswith(  # the first written, and each in the order written
        "keep the CFS quota, the scheduler's load balancing and device interrupts")


def test_power_annotations_name_what_the_cpus_keep(tmp_path: Path) -> None:
    both = 'cpu-c-states.crio.io: "disable"\n                cpu-freq-governor.crio.io: "performance"'
    [hit] = hits(tmp_path, {"a.yaml": profile("ran-a", "worker-cnf"), "du.yaml": deployment(both)})
    assert hit["line"] == 11 and hit["message"].endswith(
        "keep their idle states (C-states) and the node's frequency governor")


def test_a_streamed_run_says_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"a.yaml": profile("ran-a", "worker-cnf"), "du.yaml": deployment()}
    whole = hits(tmp_path, files)
    monkeypatch.setenv("NUMALINT_STREAM", "always")
    assert hits(tmp_path, files) == whole and len(whole) == 1


def test_a_base_whose_every_overlay_patches_the_runtime_class_in_is_not_reported(tmp_path: Path) -> None:
    patch = """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: du
        spec:
          template:
            spec:
              runtimeClassName: performance-ran-a
        """
    files = {"base/du.yaml": deployment(), "base/kustomization.yaml": "resources: [du.yaml]\n",
             "overlay/kustomization.yaml": "resources: [../base]\npatches:\n  - path: runtime.yaml\n",
             "overlay/runtime.yaml": patch, "overlay/profile.yaml": profile("ran-a", "worker-cnf")}
    assert hits(tmp_path, files) == []
    files["overlay/runtime.yaml"] = patch.replace("runtimeClassName: performance-ran-a", "priorityClassName: high")
    assert len(hits(tmp_path, files)) == 1  # a patch of another field settles nothing


@pytest.mark.parametrize(("annotations", "said"), [
    ('cpu-load-balancing.crio.io: "disable"', 'it sets cpu-load-balancing.crio.io: "disable", which CRI-O'),
    ('cpu-quota.crio.io: "true"', 'it sets cpu-quota.crio.io: "true", which CRI-O'),
    ('cpu-quota.crio.io/du: "disable"', 'it sets cpu-quota.crio.io/du: "disable", which CRI-O'),
    ('cpu-c-states.crio.io: "max_latency:10"', 'it sets cpu-c-states.crio.io: "max_latency:10", which CRI-O'),
    ('cpu-freq-governor.crio.io: "performance"', 'it sets cpu-freq-governor.crio.io: "performance", which CRI-O'),
])
def test_tuning_a_burstable_pod_asks_for_guaranteed_qos(tmp_path: Path, annotations: str, said: str) -> None:
    # CRI-O tunes only a Guaranteed pod's exclusive CPUs, whichever form or acted-on value asks for it
    burstable = deployment(annotations).replace('limits: {cpu: "4", memory: 4Gi}', 'requests: {cpu: "4"}')
    found = [f for f in findings(tmp_path, {"du.yaml": burstable}) if f["rule"] == "not-guaranteed"]
    assert len(found) == 1 and said in found[0]["message"]


def test_a_value_crio_ignores_asks_for_nothing(tmp_path: Path) -> None:
    burstable = deployment('cpu-quota.crio.io: "Disable"').replace('limits: {cpu: "4", memory: 4Gi}',
                                                                   'requests: {cpu: "4"}')
    assert [f for f in findings(tmp_path, {"du.yaml": burstable}) if f["rule"] == "not-guaranteed"] == []


def test_a_cronjobs_job_template_and_a_training_jobs_own_annotations_reach_no_pod(tmp_path: Path) -> None:
    """A CronJob's job template metadata is the Job's, not its pods'; a PyTorchJob's own annotations reach none
    of its roles' pods, and the finding names the object once, not one role (found by a review)."""
    cron = """\
        apiVersion: batch/v1
        kind: CronJob
        metadata: {name: cj}
        spec:
          schedule: "* * * * *"
          jobTemplate:
            metadata:
              annotations: {cpu-quota.crio.io: "disable"}
            spec:
              template:
                spec:
                  restartPolicy: Never
                  containers: [{name: c, image: x}]
        """
    [hit] = hits(tmp_path / "cron", {"cj.yaml": cron})
    assert (hit["line"], hit["message"].split(": a CronJob")[0]) == (
        8, "CronJob cj sets cpu-quota.crio.io on spec.jobTemplate.metadata, not on its pod template")
    assert hit["fix"]["description"] == "move cpu-quota.crio.io to spec.jobTemplate.spec.template.metadata.annotations"
    training = """\
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata:
          name: pt
          annotations: {cpu-load-balancing.crio.io: "disable"}
        spec:
          pytorchReplicaSpecs:
            Master:
              replicas: 1
              template:
                spec:
                  containers: [{name: pytorch, image: x}]
            Worker:
              replicas: 2
              template:
                spec:
                  containers: [{name: pytorch, image: x}]
        """
    [hit] = hits(tmp_path / "training", {"pt.yaml": training})
    assert hit["message"].startswith("PyTorchJob pt sets cpu-load-balancing.crio.io on its own metadata")
    assert "its pod templates' annotations (spec.pytorchReplicaSpecs.Master.template.metadata.annotations, ...)" \
        in hit["message"]


def test_a_jobsets_job_template_annotations_reach_no_pod(tmp_path: Path) -> None:
    """A JobSet's replicated job template is a Job's: its metadata is the Job's, not its pods' (found by a
    review)."""
    jobset = """\
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata: {name: js}
        spec:
          replicatedJobs:
            - name: workers
              replicas: 1
              template:
                metadata:
                  annotations: {cpu-quota.crio.io: "disable"}
                spec:
                  template:
                    spec:
                      restartPolicy: Never
                      containers: [{name: c, image: x}]
        """
    [hit] = hits(tmp_path, {"js.yaml": jobset})
    assert hit["line"] == 10 and "on spec.replicatedJobs[0].template.metadata, not on its pod template" in \
        hit["message"]


def test_annotations_on_both_a_cronjob_and_its_job_template_are_each_reported(tmp_path: Path) -> None:
    """Each metadata above the pod template that carries tuning annotations is its own mistake, with its own edit:
    a CronJob tuned on itself and on its job template gets a finding on each (the first alone was reported)."""
    cron = """\
        apiVersion: batch/v1
        kind: CronJob
        metadata:
          name: cj
          annotations: {cpu-quota.crio.io: "disable"}
        spec:
          schedule: "* * * * *"
          jobTemplate:
            metadata:
              annotations: {cpu-load-balancing.crio.io: "disable"}
            spec:
              template:
                spec:
                  restartPolicy: Never
                  containers: [{name: c, image: x}]
        """
    found = hits(tmp_path, {"cj.yaml": cron})
    assert [(hit["line"], hit["message"].split(", not on")[0]) for hit in found] == [
        (5, "CronJob cj sets cpu-quota.crio.io on its own metadata"),
        (10, "CronJob cj sets cpu-load-balancing.crio.io on spec.jobTemplate.metadata")]
