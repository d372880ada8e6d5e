"""Where each kind keeps its pod templates, and how many pods of each run at once.

The core controllers keep one template. The controllers distributed training and inference are written in
(Kubeflow's training jobs, JobSet, LeaderWorkerSet, KubeRay, Volcano) keep one per role: a PyTorchJob's
Master and Worker, a RayCluster's head and each worker group. Each template is a workload of its own: its
own requests, its own replica count, its own findings ("PyTorchJob train (Worker)").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from numalint.k8s.kinds import KUBEFLOW_REPLICA_SPECS, POD_SPEC_PATHS, RAY_KINDS, layout
from numalint.reading.locate import Path, as_list, get


class PodTemplate(NamedTuple):
    part: str | None  # the role ("Worker", a replicated job's or worker group's name); None: the kind has one
    spec_path: Path  # the pod spec inside the document
    replicas: int  # pods of this template running at once, as written, with the API's defaults
    idle: str | None = None  # why none of its pods run beside the others' (replicas 0), when the defaults decide
    alone: bool = False  # idle, its pods run at another time all the same (a JobSet step done before the next)
    alignment: str | None = None  # NUMA alignment the object asks of its pods outright (Volcano's topologyPolicy)


# KubeRay (ray.io): kind -> where its cluster spec lies
RAY_CLUSTER_SPECS: dict[str, Path] = {
    "RayCluster": ("spec",), "RayJob": ("spec", "rayClusterSpec"), "RayService": ("spec", "rayClusterConfig"),
}


def pod_templates(api_version: str, kind: str, root: Any) -> list[PodTemplate]:
    """Every pod template of the object, in the order written; [] when it has none."""
    name = layout(api_version, kind)
    if name is not None:
        return [t for t in _LAYOUTS[name](kind, root) if isinstance(get(root, t.spec_path), dict)]
    path = POD_SPEC_PATHS.get(kind)
    if path is None or not isinstance(get(root, path), dict):
        return []
    return [PodTemplate(None, path, _core_replicas(kind, root))]


def _count(node: Any, key: str, default: int) -> int:
    """A non-negative whole number the object writes at ``key``, else ``default`` (a wrong type is the schema's
    business; the API would refuse the object)."""
    value = get(node, (key,), default)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _core_replicas(kind: str, root: Any) -> int:
    """How many pods a core controller runs at once (DaemonSets: one per node, decided by the pool)."""
    if kind in ("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController", "DeploymentConfig"):
        return _count(get(root, ("spec",)), "replicas", 1)
    if kind == "Job":
        return _count(get(root, ("spec",)), "parallelism", 1)
    if kind == "CronJob":
        return _count(get(root, ("spec", "jobTemplate", "spec")), "parallelism", 1)
    if kind == "PodTemplate":
        return 0
    return 1


# the roles each training operator's defaulting renames from any case (setTypeNameToCamelCase in its
# <kind>_defaults.go): ``worker`` is Worker; MPIJob renames none (its validation asks for exactly Launcher and Worker)
KUBEFLOW_ROLES = {
    "PyTorchJob": ("Master", "Worker"), "TFJob": ("PS", "Worker", "Chief", "Master", "Evaluator"),
    "XGBoostJob": ("Master", "Worker"), "PaddleJob": ("Master", "Worker"), "MXJob": ("Scheduler", "Server", "Worker"),
    "JAXJob": ("Worker",),
}


def kubeflow_role(kind: str, role: str) -> str:
    """The role a replica spec key names once defaulted."""
    return next((known for known in KUBEFLOW_ROLES.get(kind, ()) if known.lower() == role.lower()), role)


def _kubeflow(kind: str, root: Any) -> list[PodTemplate]:
    """``spec.<x>ReplicaSpecs.<Role>.template``. A role without ``replicas`` runs one pod (the operators'
    setDefaultReplicas), but an MPIJob's Worker none (mpi_defaults.go, v2beta1 default.go: 0; v2beta1 then
    refuses the job)."""
    field = KUBEFLOW_REPLICA_SPECS[kind]
    specs = get(root, ("spec", field))
    if not isinstance(specs, dict):
        return []
    # a role written twice in different cases (Worker, worker) is one: the renamed key's spec replaces the other
    chosen: dict[str, Any] = {}
    for key, spec in specs.items():
        role = kubeflow_role(kind, str(key))
        if isinstance(spec, dict) and (role not in chosen or str(key) != role):
            chosen[role] = key
    out = []
    for key, spec in specs.items():
        if not isinstance(spec, dict) or chosen.get(kubeflow_role(kind, str(key))) != key:
            continue
        role = kubeflow_role(kind, str(key))
        default = 0 if kind == "MPIJob" and role == "Worker" else 1
        idle = ("no replicas written: the MPI operator defaults a Worker's to 0 (and the v2beta1 operator then "
                "refuses the job)") if default == 0 and "replicas" not in spec else None
        out.append(PodTemplate(role, ("spec", field, key, "template", "spec"), _count(spec, "replicas", default),
                               idle))
    return out


def _jobset(kind: str, root: Any) -> list[PodTemplate]:
    """``spec.replicatedJobs[i].template`` is a Job template: ``replicas`` Jobs (default 1), each running
    ``parallelism`` pods at once (default 1), no more than its ``completions`` (the Job controller)."""
    jobs = get(root, ("spec", "replicatedJobs"))
    if not isinstance(jobs, list):
        return []
    # a replicated job another waits for to complete (dependsOn, status Complete) is done before that one starts
    awaited: dict[str, str] = {}
    for job in jobs:
        for dependency in as_list(get(job, ("dependsOn",))):
            if get(dependency, ("status",)) == "Complete" and isinstance(get(dependency, ("name",)), str):
                awaited.setdefault(dependency["name"], _name(job, "name", "?"))
    out = []
    for i, job in enumerate(jobs):
        if not isinstance(job, dict):
            continue
        name = _name(job, "name", f"replicatedJobs[{i}]")
        spec = get(job, ("template", "spec"))
        parallel = _count(spec, "parallelism", 1)
        pods = _count(job, "replicas", 1) * min(parallel, _count(spec, "completions", parallel))
        idle = None
        if name in awaited:
            pods, idle = 0, (f'it completes before replicated job "{awaited[name]}" starts (dependsOn: Complete), so '
                             "their pods never run together: numalint simulates the later one")
        out.append(PodTemplate(name, ("spec", "replicatedJobs", i, "template", "spec", "template", "spec"), pods,
                               idle, alone=idle is not None))
    return out


def _leader_worker_set(kind: str, root: Any) -> list[PodTemplate]:
    """``spec.replicas`` groups (default 1) of ``leaderWorkerTemplate.size`` pods (default 1): one leader, from
    ``leaderTemplate`` when it is written (else from ``workerTemplate``), and size - 1 workers."""
    groups = _count(get(root, ("spec",)), "replicas", 1)
    base = ("spec", "leaderWorkerTemplate")
    size = max(1, _count(get(root, base), "size", 1))
    if isinstance(get(root, base + ("leaderTemplate", "spec")), dict):
        alone = "size 1: each group is its leader alone" if size == 1 else None
        return [PodTemplate("leader", base + ("leaderTemplate", "spec"), groups),
                PodTemplate("worker", base + ("workerTemplate", "spec"), groups * (size - 1), alone)]
    return [PodTemplate("worker", base + ("workerTemplate", "spec"), groups * size)]


def _ray(kind: str, root: Any) -> list[PodTemplate]:
    """One head pod, and each worker group's pods: ``replicas`` (CRD default 0) within ``minReplicas`` (0) and
    ``maxReplicas``, none when the group is suspended, times ``numOfHosts`` (1) (KubeRay
    GetWorkerGroupDesiredReplicas). A RayJob's submitter template, when written, runs one pod."""
    base = RAY_CLUSTER_SPECS[kind]
    out = [PodTemplate("head", base + ("headGroupSpec", "template", "spec"), 1)]
    groups = get(root, base + ("workerGroupSpecs",))
    for i, group in enumerate(groups if isinstance(groups, list) else []):
        if not isinstance(group, dict):
            continue
        low, high = _count(group, "minReplicas", 0), _count(group, "maxReplicas", 2**31 - 1)
        replicas = high if low > high else min(high, max(low, _count(group, "replicas", 0)))
        idle = None
        if group.get("suspend") is True:
            replicas, idle = 0, "the worker group is suspended"
        elif replicas == 0 and "replicas" not in group:
            idle = "no replicas written: KubeRay starts a worker group at minReplicas (0); an autoscaler adds pods"
        out.append(PodTemplate(_name(group, "groupName", f"workerGroupSpecs[{i}]"),
                               base + ("workerGroupSpecs", i, "template", "spec"),
                               replicas * _count(group, "numOfHosts", 1), idle,
                               alone=idle is not None and group.get("suspend") is not True))
    # K8sJobMode (the default) submits through a Job of one pod; HTTPMode and InteractiveMode run none
    if kind == "RayJob" and get(root, ("spec", "submissionMode"), "K8sJobMode") == "K8sJobMode":
        out.append(PodTemplate("submitter", ("spec", "submitterPodTemplate", "spec"), 1))
    return out


def _volcano(kind: str, root: Any) -> list[PodTemplate]:
    """``spec.tasks[i].template``, ``replicas`` pods each (no default: 0), named ``default<i>`` by Volcano's
    webhook when unnamed; a task's ``topologyPolicy`` (other than none) asks Volcano's numa-aware scheduling for
    NUMA alignment, which it gives Guaranteed pods only."""
    tasks = get(root, ("spec", "tasks"))
    if not isinstance(tasks, list):
        return []
    out = []
    for i, task in enumerate(tasks):
        if not isinstance(task, dict):
            continue
        idle = None if "replicas" in task else "no replicas written: a Volcano task defaults to 0"
        policy = task.get("topologyPolicy")
        alignment = (f'its Volcano task sets topologyPolicy "{policy}"' if isinstance(policy, str)
                     and policy not in ("", "none") else None)
        out.append(PodTemplate(_name(task, "name", f"default{i}"), ("spec", "tasks", i, "template", "spec"),
                               _count(task, "replicas", 0), idle, alignment=alignment))
    return out


def _name(node: dict[str, Any], key: str, default: str) -> str:
    value = node.get(key)
    return value if isinstance(value, str) and value else default


_LAYOUTS: dict[str, Callable[[str, Any], list[PodTemplate]]] = {
    **{kind: _kubeflow for kind in KUBEFLOW_REPLICA_SPECS}, **{kind: _ray for kind in RAY_KINDS},
    "JobSet": _jobset, "LeaderWorkerSet": _leader_worker_set, "VolcanoJob": _volcano,
}


# the init container the training operator adds to each Worker pod of a PyTorchJob that has a Master, waiting for
# the Master's address (pkg/controller.v1/pytorch/initcontainer.go, kubeflow/training-operator): its default
# template asks cpu 50m, memory 10Mi below limits of 100m, 20Mi, so every such pod is Burstable
# (kubeflow/pytorch-operator#335)
PYTORCH_INIT = ('the init container "init-pytorch" the training operator adds to the Worker pods of a PyTorchJob '
                "with a Master (requests cpu 50m, memory 10Mi; limits cpu 100m, memory 20Mi)")


def burstable_by(api_version: str, kind: str, root: Any, part: str | None) -> str | None:
    """A container an operator adds to the template's pods that makes them Burstable whatever the template
    asks, None when there is none."""
    if part != "Worker" or layout(api_version, kind) != "PyTorchJob":
        return None
    specs = get(root, ("spec", KUBEFLOW_REPLICA_SPECS[kind]))
    roles = {kubeflow_role(kind, str(key)) for key, spec in specs.items() if isinstance(spec, dict)}
    return PYTORCH_INIT if "Master" in roles else None

