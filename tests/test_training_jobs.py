"""Controllers with a pod template per role (Kubeflow's training jobs, JobSet, LeaderWorkerSet, KubeRay, Volcano):
each template is a workload of its own, with the replica count the controller runs; through the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import findings, run, write

STATIC = """\
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    cpuManagerPolicy: static
    topologyManagerPolicy: single-numa-node
    reservedSystemCPUs: "0,16"
    """
TOPOLOGY = """\
    apiVersion: numalint.io/v1alpha1
    kind: NodeTopology
    metadata:
      name: gpu
    spec:
      pool: {nodes: 1}
      numaNodes:
        - {id: 0, cpus: "0-15", memory: 64Gi}
        - {id: 1, cpus: "16-31", memory: 64Gi}
      devices:
        - {resource: nvidia.com/gpu, numaNode: 0, count: 4}
        - {resource: nvidia.com/gpu, numaNode: 1, count: 4}
    """


def _container(cpu: str = "4", memory: str = "8Gi", gpu: int = 1, indent: int = 10) -> str:
    pad = " " * indent
    return (f"{pad}containers:\n{pad}- name: main\n{pad}  image: img\n{pad}  resources:\n{pad}    limits:\n"
            f"{pad}      cpu: \"{cpu}\"\n{pad}      memory: {memory}\n{pad}      nvidia.com/gpu: {gpu}\n")


def _pytorch(roles: dict[str, int | None], cpu: str = "4", api: str = "kubeflow.org/v1") -> str:
    text = f"apiVersion: {api}\nkind: PyTorchJob\nmetadata:\n  name: train\nspec:\n  pytorchReplicaSpecs:\n"
    for role, replicas in roles.items():
        text += f"    {role}:\n" + (f"      replicas: {replicas}\n" if replicas is not None else "")
        text += "      template:\n        spec:\n" + _container(cpu)
    return text


def _simulate(tmp_path: Path, files: dict[str, str]) -> dict[str, Any]:
    write(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, **files})
    result = run("simulate", "--format", "json", str(tmp_path))
    assert "Traceback" not in result.stderr
    data: dict[str, Any] = json.loads(result.output)
    return data


def _pods(data: dict[str, Any]) -> dict[str, int]:
    """Simulated pods per workload part (or name)."""
    counts: dict[str, int] = {}
    for workload in data["workloads"]:
        counts[workload.get("part") or workload["name"]] = workload["pods"]
    return counts


def test_each_role_of_a_pytorchjob_is_a_workload_with_its_own_replicas(tmp_path: Path) -> None:
    data = _simulate(tmp_path, {"job.yaml": _pytorch({"Master": 1, "Worker": 3})})
    assert _pods(data) == {"Master": 1, "Worker": 3}
    names = sorted(p["name"] for p in data["pods"])
    assert names == ["train-master-0", "train-worker-0", "train-worker-1", "train-worker-2"]
    assert {p["workload"]["part"] for p in data["pods"]} == {"Master", "Worker"}


def test_a_role_too_big_for_the_pool_is_rejected_and_named_by_its_role(tmp_path: Path) -> None:
    # 8 GPUs in all: the Master takes one, so only 7 of 9 Workers with one GPU each fit
    write(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY,
                     "job.yaml": _pytorch({"Master": 1, "Worker": 9}, cpu="1")})
    result = run("check", str(tmp_path))
    assert result.exit_code == 1
    line = next(x for x in result.output.splitlines() if "[admission-failure]" in x)
    # pointed at the Worker's template (line 21 of the file), counted against the Worker's replicas
    assert "job.yaml:21:7:" in line and "PyTorchJob train (Worker): 2 of 9 replicas rejected (N = 7-8)" in line
    found = json.loads(run("check", "--format", "json", str(tmp_path)).output)["findings"]
    failure = next(f for f in found if f["rule"] == "admission-failure")
    assert failure["object"]["part"] == "Worker"
    assert all("part" not in f["object"] for f in found if f["object"] and f["object"]["kind"] != "PyTorchJob")


def test_init_pytorch_makes_every_worker_of_a_job_with_a_master_burstable(tmp_path: Path) -> None:
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY,
                                "job.yaml": _pytorch({"master": 1, "worker": 2})})
    hits = [f for f in found if f["rule"] == "not-guaranteed"]
    assert len(hits) == 1, found
    assert "PyTorchJob train (Worker)" in hits[0]["message"] and "init-pytorch" in hits[0]["message"]
    assert "--pytorch-init-container-template-file" in hits[0]["fix"]["description"]
    assert hits[0]["line"] == 21  # the Worker's template
    data = _simulate(tmp_path, {})
    cpus = {p["name"]: p["containers"][0]["cpus"] for p in data["pods"]}
    assert cpus["train-master-0"] and not cpus["train-worker-0"]  # the Burstable workers get no exclusive CPUs


def test_workers_without_a_master_get_no_init_container(tmp_path: Path) -> None:
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY,
                                "job.yaml": _pytorch({"Worker": 2})})
    assert [f for f in found if f["rule"] == "not-guaranteed"] == []
    data = _simulate(tmp_path, {})
    assert len(data["pods"]) == 2 and all(p["containers"][0]["cpus"] for p in data["pods"])


def test_mpijob_worker_without_replicas_runs_none(tmp_path: Path) -> None:
    job = _pytorch({"Launcher": None, "Worker": None}, api="kubeflow.org/v2beta1").replace(
        "PyTorchJob", "MPIJob").replace("pytorchReplicaSpecs", "mpiReplicaSpecs")
    data = _simulate(tmp_path, {"job.yaml": job})
    assert _pods(data) == {"Launcher": 1, "Worker": 0}


def test_a_kind_of_another_api_group_is_not_read(tmp_path: Path) -> None:
    data = _simulate(tmp_path, {"job.yaml": _pytorch({"Master": 1}, api="example.com/v1")})
    assert data["workloads"] == []
    data = _simulate(tmp_path, {"job.yaml": _pytorch({"Master": 1}, api="kubeflow.org/v1")})
    assert _pods(data) == {"Master": 1}


def _c(cpu: str = "4", gpu: int = 1) -> str:
    """A pod spec's containers in one line (flow style)."""
    return (f'containers: [{{name: main, image: img, resources: {{limits: {{cpu: "{cpu}", memory: 8Gi, '
            f'nvidia.com/gpu: {gpu}}}}}}}]')


def _jobset(name: str, *steps: tuple[str, str, str]) -> str:
    """A JobSet whose replicatedJobs are ``steps``: (name, a line under the step such as its dependsOn or "", the
    containers of its pods as ``_c`` writes them)."""
    text = f"apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: {name}\nspec:\n  replicatedJobs:\n"
    for step, line, containers in steps:
        text += f"  - name: {step}\n" + (f"    {line}\n" if line else "")
        text += f"    template:\n      spec:\n        template:\n          spec:\n            {containers}\n"
    return text


def test_jobset_runs_replicas_times_parallelism_capped_by_completions(tmp_path: Path) -> None:
    jobset = f"""\
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata:
          name: llm
        spec:
          replicatedJobs:
          - name: workers
            replicas: 2
            template:
              spec:
                parallelism: 3
                completions: 2
                template:
                  spec:
                    {_c()}
          - name: driver
            template:
              spec:
                template:
                  spec:
                    {_c(cpu="2", gpu=0)}
        """
    data = _simulate(tmp_path, {"jobset.yaml": jobset})
    assert _pods(data) == {"workers": 4, "driver": 1}
    assert any(p["name"] == "llm-workers-3" for p in data["pods"])


def test_leaderworkerset_counts_leaders_and_workers(tmp_path: Path) -> None:
    def lws(leader: bool) -> str:
        text = ("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: vllm\nspec:\n"
                "  replicas: 2\n  leaderWorkerTemplate:\n    size: 3\n")
        if leader:
            text += f"    leaderTemplate:\n      spec:\n        {_c(cpu='2')}\n"
        return text + f"    workerTemplate:\n      spec:\n        {_c(cpu='1')}\n"

    assert _pods(_simulate(tmp_path, {"lws.yaml": lws(True)})) == {"leader": 2, "worker": 4}
    assert _pods(_simulate(tmp_path, {"lws.yaml": lws(False)})) == {"worker": 6}


def test_ray_worker_groups_are_clamped_suspended_and_multiplied_by_hosts(tmp_path: Path) -> None:
    ray = f"""\
        apiVersion: ray.io/v1
        kind: RayJob
        metadata:
          name: tune
        spec:
          rayClusterSpec:
            headGroupSpec:
              template:
                spec:
                  {_c(cpu="2", gpu=0)}
            workerGroupSpecs:
            - groupName: gpu
              replicas: 5
              maxReplicas: 2
              numOfHosts: 2
              template:
                spec:
                  {_c(cpu="1")}
            - groupName: idle
              suspend: true
              replicas: 3
              template:
                spec:
                  {_c(cpu="1", gpu=0)}
            - groupName: autoscaled
              template:
                spec:
                  {_c(cpu="1", gpu=0)}
          submitterPodTemplate:
            spec:
              {_c(cpu="1", gpu=0)}
        """
    data = _simulate(tmp_path, {"ray.yaml": ray})
    assert _pods(data) == {"head": 1, "gpu": 4, "idle": 0, "autoscaled": 0, "submitter": 1}


def test_volcano_job_tasks_and_not_batch_job(tmp_path: Path) -> None:
    volcano = f"""\
        apiVersion: batch.volcano.sh/v1alpha1
        kind: Job
        metadata:
          name: nccl
        spec:
          minAvailable: 2
          tasks:
          - name: mpimaster
            replicas: 1
            template:
              spec:
                {_c(cpu="1", gpu=0)}
          - replicas: 2
            template:
              spec:
                {_c(cpu="2x")}
          - template:
              spec:
                {_c()}
        """
    found = findings(tmp_path, {"job.yaml": volcano})
    # the quantity of the second task's template is checked where it is written; batch/v1's schema is not applied
    assert [(f["rule"], f["line"]) for f in found if f["rule"] in ("schema", "unknown-field")] == [("schema", 16)]
    fixed = volcano.replace('"2x"', '"2"')
    data = _simulate(tmp_path, {"job.yaml": fixed})
    assert _pods(data) == {"mpimaster": 1, "default1": 2, "default2": 0}


def test_a_batch_job_is_still_a_job(tmp_path: Path) -> None:
    job = ("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: once\nspec:\n  parallelism: 2\n  template:\n"
           "    spec:\n" + _container(indent=6))
    data = _simulate(tmp_path, {"job.yaml": job})
    assert [(w["name"], w["pods"], "part" in w) for w in data["workloads"]] == [("once", 2, False)]


def test_disable_annotation_on_one_template_covers_the_object(tmp_path: Path) -> None:
    job = _pytorch({"Master": 1, "Worker": 2}).replace(
        "    Worker:\n      replicas: 2\n      template:\n",
        "    Worker:\n      replicas: 2\n      template:\n        metadata:\n          annotations:\n"
        "            numalint.io/disable: not-guaranteed\n")
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, "job.yaml": job})
    assert [f for f in found if f["rule"] == "not-guaranteed"] == []
    found = findings(tmp_path, {"job.yaml": job.replace("numalint.io/disable", "example.com/note")})
    assert [f["rule"] for f in found if f["rule"] == "not-guaranteed"] == ["not-guaranteed"]


def _why(data: dict[str, Any], part: str) -> str | None:
    workload = next(w for w in data["workloads"] if w.get("part") == part)
    reason: str | None = (workload["not_simulated"] or {}).get("message")
    return reason


def test_defaults_that_run_no_pods_say_why(tmp_path: Path) -> None:
    job = _pytorch({"Launcher": None, "Worker": None}).replace("PyTorchJob", "MPIJob").replace(
        "pytorchReplicaSpecs", "mpiReplicaSpecs")
    data = _simulate(tmp_path, {"job.yaml": job})
    assert "the MPI operator defaults a Worker's to 0" in (_why(data, "Worker") or "")


def test_a_jobset_step_another_waits_for_is_not_stacked_on_it(tmp_path: Path) -> None:
    # four GPUs on NUMA node 0 of one node: "init" (4 GPUs) completes before "node" (4 GPUs) starts
    jobset = _jobset("trainer", ("init", "", _c(cpu="1", gpu=4)),
                     ("node", "dependsOn: [{name: init, status: Complete}]", _c(cpu="1", gpu=4)))
    data = _simulate(tmp_path, {"jobset.yaml": jobset})
    assert _pods(data) == {"init": 0, "node": 1}
    assert 'completes before replicated job "node" starts' in (_why(data, "init") or "")
    assert [w["status"] for w in data["workloads"] if w["part"] == "node"] == ["placed"]
    ready = jobset.replace("status: Complete", "status: Ready")  # started beside it: both count
    assert _pods(_simulate(tmp_path, {"jobset.yaml": ready})) == {"init": 1, "node": 1}


def test_rayjob_submitter_runs_only_in_k8s_job_mode(tmp_path: Path) -> None:
    ray = f"""\
        apiVersion: ray.io/v1
        kind: RayJob
        metadata:
          name: tune
        spec:
          submissionMode: HTTPMode
          rayClusterSpec:
            headGroupSpec:
              template:
                spec:
                  {_c(cpu="2", gpu=0)}
          submitterPodTemplate:
            spec:
              {_c(cpu="1", gpu=0)}
        """
    assert _pods(_simulate(tmp_path, {"ray.yaml": ray})) == {"head": 1}


def test_volcano_topology_policy_asks_for_alignment(tmp_path: Path) -> None:
    volcano = """\
        apiVersion: batch.volcano.sh/v1alpha1
        kind: Job
        metadata:
          name: numa
        spec:
          tasks:
          - name: worker
            replicas: 1
            topologyPolicy: single-numa-node
            template:
              spec:
                containers: [{name: main, image: img, resources: {requests: {cpu: "4", memory: 8Gi}}}]
        """
    found = findings(tmp_path, {"job.yaml": volcano})
    hits = [f for f in found if f["rule"] == "not-guaranteed"]
    assert len(hits) == 1 and 'its Volcano task sets topologyPolicy "single-numa-node"' in hits[0]["message"]
    found = findings(tmp_path, {"job.yaml": volcano.replace("single-numa-node", "none")})
    assert [f for f in found if f["rule"] == "not-guaranteed"] == []


def test_a_null_in_a_custom_resources_template_is_no_schema_error(tmp_path: Path) -> None:
    # the API server prunes a custom resource's nulls: "cpu:" is no cpu limit (a Pod's would be refused)
    job = ("apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: pt}\nspec:\n  pytorchReplicaSpecs:\n"
           "    Worker:\n      template:\n        spec:\n          containers:\n          - name: pytorch\n"
           "            image: x\n            resources:\n              limits: {memory: 8Gi, cpu: }\n"
           "              requests: {memory: 8Gi, cpu: \"4x\"}\n")
    found = findings(tmp_path, {"job.yaml": job})
    assert [(f["rule"], f["line"]) for f in found if f["rule"] == "schema"] == [("schema", 14)]  # only the 4x


def test_hugepages_an_efa_device_needs_ask_for_no_alignment(tmp_path: Path) -> None:
    def mpijob(devices: str) -> str:
        return ("apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {name: nccl}\nspec:\n"
                "  mpiReplicaSpecs:\n    Worker:\n      replicas: 2\n      template:\n        spec:\n"
                "          containers:\n          - name: w\n            image: x\n            resources:\n"
                f"              limits: {{nvidia.com/gpu: 8, {devices}hugepages-2Mi: 5120Mi, memory: 32000Mi}}\n")

    found = findings(tmp_path, {"job.yaml": mpijob("vpc.amazonaws.com/efa: 32, ")})
    assert [f for f in found if f["rule"] == "not-guaranteed"] == []
    found = findings(tmp_path, {"job.yaml": mpijob("")})
    hits = [f for f in found if f["rule"] == "not-guaranteed"]
    assert len(hits) == 1 and "it requests hugepages-2Mi with nvidia.com/gpu" in hits[0]["message"]


def test_a_whole_node_gpu_worker_is_not_told_to_split(tmp_path: Path) -> None:
    # eight GPUs, four per NUMA node: the worker needs both NUMA nodes whatever it does
    job = _pytorch({"Worker": 1}, cpu="4").replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 8")
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, "job.yaml": job})
    exceeds = [f for f in found if f["rule"] == "exceeds-numa-node"]
    assert len(exceeds) == 1 and "8 nvidia.com/gpu requested, at most 4" in exceeds[0]["message"]
    assert "ask for fewer nvidia.com/gpu per pod" in exceeds[0]["fix"]["description"]
    assert "best-effort" in exceeds[0]["fix"]["description"]
    assert "split the workload" not in exceeds[0]["fix"]["description"]
    best_effort = STATIC.replace("single-numa-node", "best-effort")
    found = findings(tmp_path, {"kubelet.yaml": best_effort, "topology.yaml": TOPOLOGY, "job.yaml": job})
    assert [f for f in found if f["rule"] == "exceeds-numa-node"] == []  # spanning is what it is meant to do
    cpus = job.replace('cpu: "4"', 'cpu: "24"')  # 24 CPUs do not fit one NUMA node either: that still says so
    found = findings(tmp_path, {"kubelet.yaml": best_effort, "topology.yaml": TOPOLOGY, "job.yaml": cpus})
    infos = [f for f in found if f["rule"] == "exceeds-numa-node"]
    assert [f["severity"] for f in infos] == ["info"]
    assert "best-effort" not in infos[0]["fix"]["description"]  # the pool already is


def test_a_scalar_depends_on_is_no_traceback(tmp_path: Path) -> None:
    jobset = _jobset("odd", ("a", "dependsOn: 5", _c(cpu="1", gpu=0)))
    data = _simulate(tmp_path, {"jobset.yaml": jobset})
    assert _pods(data) == {"a": 1}


def test_a_step_that_runs_alone_must_still_fit_one_numa_node(tmp_path: Path) -> None:
    # "init" completes before "node" starts, so it is not placed beside it; alone, 6 GPUs still exceed 4 per NUMA node
    jobset = _jobset("trainer", ("init", "", _c(cpu="1", gpu=6)),
                     ("node", "dependsOn: [{name: init, status: Complete}]", _c(cpu="1", gpu=1)))
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, "jobset.yaml": jobset})
    exceeds = [f for f in found if f["rule"] == "exceeds-numa-node"]
    assert len(exceeds) == 1 and "JobSet trainer (init)" in exceeds[0]["message"]


def test_a_role_written_in_two_cases_is_one_role(tmp_path: Path) -> None:
    # the operator renames "worker" to "Worker", replacing the spec written under "Worker"
    job = _pytorch({"Worker": 4, "worker": 2})
    data = _simulate(tmp_path, {"job.yaml": job})
    assert [(w["part"], w["pods"]) for w in data["workloads"]] == [("Worker", 2)]


def test_an_annotation_on_one_template_covers_that_role_only(tmp_path: Path) -> None:
    # nine GPU pods of one GPU each do not fit eight GPUs: the Master's admission failure is not the Worker's
    job = _pytorch({"Master": 1, "Worker": 9}, cpu="1").replace(
        "    Worker:\n      replicas: 9\n      template:\n",
        "    Worker:\n      replicas: 9\n      template:\n        metadata:\n          annotations:\n"
        "            numalint.io/disable: admission-failure,exceeds-numa-node\n")
    job = job.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 5", 1)  # the Master asks for more than a NUMA node has
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, "job.yaml": job})
    labels = sorted((f["rule"], f["object"]["part"]) for f in found if f["rule"] in ("admission-failure",
                                                                                      "exceeds-numa-node"))
    assert ("exceeds-numa-node", "Master") in labels and ("admission-failure", "Worker") not in labels


def test_a_fix_inside_one_template_lands_there(tmp_path: Path) -> None:
    job = _pytorch({"Master": 1, "Worker": 1}).replace(
        "    Worker:\n      replicas: 1\n      template:\n        spec:\n",
        "    Worker:\n      replicas: 1\n      template:\n        spec:\n          nodeSelector: {zone: 3}\n")
    write(tmp_path, {"job.yaml": job})
    result = run("fix", str(tmp_path / "job.yaml"))
    assert "fixed 1 finding(s)" in result.stderr
    assert (tmp_path / "job.yaml").read_text() == job.replace("{zone: 3}", '{zone: "3"}')


def test_a_count_of_the_wrong_type_is_a_schema_error(tmp_path: Path) -> None:
    job = _pytorch({"Worker": None}).replace("    Worker:\n", '    Worker:\n      replicas: "3"\n')
    found = findings(tmp_path, {"job.yaml": job})
    assert [(f["rule"], f["line"]) for f in found if f["rule"] == "schema"] == [("schema", 8)]
    assert "spec.pytorchReplicaSpecs.Worker.replicas" in next(f for f in found if f["rule"] == "schema")["message"]


def test_a_leaderworkerset_of_size_one_says_why_it_has_no_workers(tmp_path: Path) -> None:
    lws = ("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: one\nspec:\n"
           f"  replicas: 2\n  leaderWorkerTemplate:\n    size: 1\n    leaderTemplate:\n      spec:\n"
           f"        {_c(cpu='1', gpu=0)}\n    workerTemplate:\n      spec:\n        {_c(cpu='1', gpu=0)}\n")
    data = _simulate(tmp_path, {"lws.yaml": lws})
    assert _pods(data) == {"leader": 2, "worker": 0}
    assert _why(data, "worker") == "size 1: each group is its leader alone"


def _lws(size: int, leader_gpus: int, worker_gpus: int, leader_annotation: str = "") -> str:
    meta = (f"      metadata:\n        annotations:\n          numalint.io/disable: {leader_annotation}\n"
            if leader_annotation else "")
    return ("apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: vllm\nspec:\n"
            f"  replicas: 1\n  leaderWorkerTemplate:\n    size: {size}\n    leaderTemplate:\n{meta}      spec:\n"
            f"        {_c(cpu='4', gpu=leader_gpus)}\n    workerTemplate:\n      spec:\n"
            f"        {_c(cpu='4', gpu=worker_gpus)}\n")


def test_a_template_that_never_runs_a_pod_is_not_judged(tmp_path: Path) -> None:
    # size 1: no worker pod ever runs, whatever its template asks
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY, "lws.yaml": _lws(1, 1, 8)})
    assert [f for f in found if f["rule"] == "exceeds-numa-node"] == []


def test_an_annotation_on_the_leader_template_does_not_cover_the_workers(tmp_path: Path) -> None:
    found = findings(tmp_path, {"kubelet.yaml": STATIC, "topology.yaml": TOPOLOGY,
                                "lws.yaml": _lws(2, 5, 5, "exceeds-numa-node")})
    assert [f["object"]["part"] for f in found if f["rule"] == "exceeds-numa-node"] == ["worker"]
