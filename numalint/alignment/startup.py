"""Why a kubelet does not start, as structured problems: the field and key of the configuration the
kubelet complains about, a reason code and the kubelet's own message.

The CPU, Memory and Topology Managers raise these while they are built (``NewManager`` /
``NewPolicy`` in pkg/kubelet/cm/{cpumanager,memorymanager,topologymanager}); the configuration
checks map them to source positions, so nothing the core knows is re-derived elsewhere."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StartProblem:
    field: str  # the KubeletConfiguration field, e.g. "topologyManagerPolicyOptions"
    key: str | None  # the option, resource or entry inside it, when there is one
    reason: str  # a stable code: "unknown-option", "gated-option", "bad-bool", ...
    message: str  # what the kubelet says


class ConfigurationError(Exception):
    """A manager refuses its configuration: the kubelet does not start."""

    def __init__(self, message: str, field: str = "", key: str | None = None, reason: str = "invalid") -> None:
        super().__init__(message)
        self.problem = StartProblem(field, key, reason, message)


class StartError(Exception):
    """The kubelet does not start with these settings on this machine."""

    def __init__(self, problem: StartProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem
