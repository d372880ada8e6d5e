"""Version-dependent kubelet behaviour (pkg/features/kube_features.go, cpumanager and topologymanager
policy_options.go): option maturity and feature gates."""

from __future__ import annotations

import re

from numalint.alignment.options import GO_BOOLS

NEWEST = (1, 37)
OLDEST = (1, 26)  # the oldest release whose option and gate tables numalint knows

# option -> list of (first minor version, maturity); maturity applies until the next entry
CPU_OPTIONS: dict[str, list[tuple[int, str]]] = {
    "full-pcpus-only": [(22, "beta"), (33, "ga")],
    "distribute-cpus-across-numa": [(23, "alpha"), (33, "beta")],
    "align-by-socket": [(25, "alpha")],
    "distribute-cpus-across-cores": [(31, "alpha")],
    "strict-cpu-reservation": [(32, "alpha"), (33, "beta"), (35, "ga")],
    "prefer-align-cpus-by-uncorecache": [(32, "alpha"), (34, "beta"), (36, "ga")],
}
TOPOLOGY_OPTIONS: dict[str, list[tuple[int, str]]] = {
    "prefer-closest-numa-nodes": [(26, "alpha"), (28, "beta"), (32, "ga")],
    "max-allowable-numa-nodes": [(31, "beta"), (35, "ga")],
}
CPU_GATES = {"alpha": "CPUManagerPolicyAlphaOptions", "beta": "CPUManagerPolicyBetaOptions"}
TOPOLOGY_GATES = {"alpha": "TopologyManagerPolicyAlphaOptions", "beta": "TopologyManagerPolicyBetaOptions"}


# NUMA-relevant KubeletConfiguration fields -> the first minor version whose kubelet knows them
# (staging/src/k8s.io/kubelet/config/v1beta1/types.go). An older kubelet decodes its configuration file
# leniently (pkg/kubelet/kubeletconfig/util/codec: strict decoding fails, the lenient retry drops the
# field), so the field is ignored as if it were misspelt.
FIELD_SINCE: dict[str, tuple[int, int]] = {
    "reservedSystemCPUs": (1, 17),
    "topologyManagerScope": (1, 20),
    "memoryManagerPolicy": (1, 21),
    "reservedMemory": (1, 21),
    "cpuManagerPolicyOptions": (1, 22),
    "memorySwap": (1, 22),
    "topologyManagerPolicyOptions": (1, 26),
    "mergeDefaultEvictionSettings": (1, 33),
}


# PodLevelResources (pkg/features/kube_features.go): alpha and off from 1.32, beta and on by default from 1.34;
# while it is off the API server drops spec.resources (pkg/api/pod/util.go dropDisabledFields)
POD_LEVEL_RESOURCES_ON = (1, 34)
SIDECARS_ON = (1, 29)  # SidecarContainers beta, on by default: an init container's restartPolicy: Always is kept


def field_exists(field: str, version: tuple[int, int]) -> bool:
    """Does a kubelet of ``version`` decode KubeletConfiguration field ``field``? (True when not tabled.)"""
    return version >= FIELD_SINCE.get(field, (0, 0))


def parse_version(text: str) -> tuple[int, int]:
    """``1.34``, ``v1.32.10`` -> (1, 34); raise ValueError otherwise, and for a version outside the
    known range (a 2.0 or a 1.9 is not silently read as something else)."""
    # no leading zero: 1.037 is no version, not 1.37 (semver, and what a typo of 1.30 would look like)
    match = re.fullmatch(r"v?(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})(?:\.(?:0|[1-9][0-9]*))?(?:[-+].*)?",
                         str(text).strip())
    if not match:
        raise ValueError(f"not a Kubernetes version: {text!r} (expected e.g. 1.34)")
    version = int(match.group(1)), int(match.group(2))
    if not OLDEST <= version <= NEWEST:
        raise ValueError(f"Kubernetes {version[0]}.{version[1]} is outside the versions numalint knows "
                         f"({OLDEST[0]}.{OLDEST[1]} to {NEWEST[0]}.{NEWEST[1]})")
    return version


# OpenShift 4.N ships Kubernetes 1.(N+13): 4.17 = 1.30 ... 4.21 = 1.34, 4.22 = 1.35
OPENSHIFT_OFFSET = 13


def openshift_to_kubernetes(text: str) -> str:
    """``4.21`` -> ``1.34``; raise ValueError for anything that is not an OpenShift 4 release numalint knows."""
    match = re.fullmatch(r"v?4\.(0|[1-9][0-9]{0,2})(?:\.(?:0|[1-9][0-9]*))?", str(text).strip())
    if not match:
        raise ValueError(f"not an OpenShift version: {text!r} (expected e.g. 4.21)")
    minor = int(match.group(1)) + OPENSHIFT_OFFSET
    if not OLDEST[1] <= minor <= NEWEST[1]:
        raise ValueError(f"OpenShift {text} is outside the versions numalint knows (4.{OLDEST[1] - OPENSHIFT_OFFSET} "
                         f"to 4.{NEWEST[1] - OPENSHIFT_OFFSET})")
    return f"1.{minor}"


def openshift_release(version: tuple[int, int]) -> str:
    """The OpenShift release that ships Kubernetes ``version`` (1.34 -> "4.21")."""
    return f"4.{version[1] - OPENSHIFT_OFFSET}"


def go_parse_bool(text: object) -> bool | None:
    """strconv.ParseBool; None when the kubelet would reject the value."""

    return GO_BOOLS.get(text) if isinstance(text, str) else None


def maturity(table: dict[str, list[tuple[int, str]]], option: str, version: tuple[int, int]) -> str | None:
    """alpha/beta/ga of ``option`` at ``version``; None if unknown there."""
    stages = table.get(option)
    if not stages:
        return None
    current = None
    for minor, stage in stages:
        if version[1] >= minor:
            current = stage
    return current


# gate -> first minor version where it is GA and locked to true (pkg/features/kube_features.go:
# LockToDefault); writing false there stops the kubelet
# TopologyManagerPolicyOptions went GA in 1.32 without LockToDefault (versioned_kube_features.go of 1.32 to 1.35):
# kubernetes#136380 locked it in 1.36. SPEC.md reads "GA 1.32, so always on since 1.32"; the source says false is
# accepted until then (the tests pin this reading).
LOCKED_SINCE = {"CPUManager": 26, "TopologyManager": 27, "MemoryManager": 32, "CPUManagerPolicyOptions": 33,
                "TopologyManagerPolicyOptions": 36}
# gate -> first minor version that no longer has it: a GA gate removed from kube_features.go, so that naming it at all,
# true or false, stops the kubelet ("unrecognized feature gate"). TopologyManager: kubernetes#121252, 1.29 (1.27 and
# 1.28 say "GA in 1.27; remove in 1.29"); CPUManager: kubernetes#129296, 1.33; MemoryManager: kubernetes#136381, 1.36.
# SPEC.md's version table gives their stage, not when the name went: the tests pin this reading.
REMOVED_SINCE = {"TopologyManager": 29, "CPUManager": 33, "MemoryManager": 36}


def gate_default(gate: str, version: tuple[int, int]) -> bool:
    """Default value of the gates the option checks use."""
    minor = version[1]
    if gate in ("CPUManagerPolicyBetaOptions",):
        return True
    if gate == "TopologyManagerPolicyBetaOptions":
        return minor >= 28
    if gate == "TopologyManagerPolicyOptions":
        return minor >= 28
    if gate == "CPUManagerPolicyOptions":
        return True
    return False


# feature gates numalint reads (pkg/features/kube_features.go). Not the kubelet's whole list: a name outside it
# is reported only when it is a near miss of one of these (a real gate numalint does not know is no error).
KNOWN_GATES = frozenset({
    "CPUManager", "CPUManagerPolicyOptions", "CPUManagerPolicyAlphaOptions", "CPUManagerPolicyBetaOptions",
    "TopologyManager", "TopologyManagerPolicyOptions", "TopologyManagerPolicyAlphaOptions",
    "TopologyManagerPolicyBetaOptions", "MemoryManager", "PodLevelResources", "PodLevelResourceManagers",
})
NEAR_MISS_EDITS = 2  # at most this many single-character edits (after case) from a known gate
NEAR_MISS_MIN_LENGTH = 10  # short names are too close to each other to guess


def _edits(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, or ``limit`` + 1 once it is sure to be more than ``limit`` (a row's least value never
    shrinks): a hostile configuration of 100,000 feature gates took 0.2 ms a name."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return min(previous[-1], limit + 1)


def gate_near_miss(name: str) -> str | None:
    """The known gate ``name`` misspells (same letters in another case, or a small edit of a long name);
    None for a known gate or one too far from every known gate to be sure."""
    if name in KNOWN_GATES or len(name) > 100:
        return None
    for gate in sorted(KNOWN_GATES):
        if name.lower() == gate.lower():
            return gate
    if len(name) < NEAR_MISS_MIN_LENGTH:
        return None
    near = sorted((_edits(name.lower(), gate.lower(), NEAR_MISS_EDITS), gate) for gate in KNOWN_GATES)
    return near[0][1] if near[0][0] <= NEAR_MISS_EDITS else None


def locked_gates(gates: dict[str, bool], version: tuple[int, int]) -> tuple[tuple[str, bool, bool], ...]:
    """(gate, written, locked value) for every gate written against the value its version locks."""
    return tuple((g, v, True) for g, v in sorted(gates.items())
                 if g in LOCKED_SINCE and version[1] >= LOCKED_SINCE[g] and v is not True and not removed(g, version))


def removed(gate: str, version: tuple[int, int]) -> bool:
    """Whether ``version`` no longer has the feature gate ``gate`` (``REMOVED_SINCE``)."""
    return gate in REMOVED_SINCE and version[1] >= REMOVED_SINCE[gate]


def unknown_gate_hint(name: str, version: tuple[int, int]) -> tuple[str, bool] | None:
    """What to say of a gate name the kubelet of ``version`` does not know, and whether it is (or misspells) a gate
    that version removed: else it misspells a known gate. None for a gate it knows, or a name too far from every gate
    numalint reads to be sure it is not another real gate."""
    meant = name if removed(name, version) else gate_near_miss(name)
    if meant is None:
        return None
    if removed(meant, version):
        misspelt = "" if meant == name else f"it misspells {meant}, "
        return f"{misspelt}a gate removed in Kubernetes 1.{REMOVED_SINCE[meant]}: the feature is always on", True
    return f'did you mean "{meant}"?', False


def gate_enabled(gate: str, gates: dict[str, bool], version: tuple[int, int]) -> bool:
    if gate in LOCKED_SINCE and version[1] >= LOCKED_SINCE[gate]:
        return True
    return gates.get(gate, gate_default(gate, version))



def enabled_stages(gates: dict[str, str], feature_gates: dict[str, bool], version: tuple[int, int]) -> frozenset[str]:
    """The option maturities a kubelet accepts: GA always, alpha/beta when their gate is on."""
    return frozenset({"ga"} | {stage for stage, gate in gates.items() if gate_enabled(gate, feature_gates, version)})


# OpenShift feature sets (config.openshift.io/v1 FeatureGate spec.featureSet) -> the option gates the cluster
# renders into every kubelet's featureGates, from the Kubernetes version whose OpenShift release registers them.
# openshift/api features/zz_generated.upstreamfeaturegates.go (found for the release shipping Kubernetes 1.36,
# OpenShift 4.23: it lists 1.36's new gates) registers the four option gates: the alpha ones enabled in
# DevPreviewNoUpgrade only, the beta ones in TechPreviewNoUpgrade and DevPreviewNoUpgrade; the machine-config
# operator renders every known gate, enabled or not (kubelet_config_features.go generateFeatureMap), so the
# Default set turns the beta option gates off. No earlier openshift/api feature set was found naming them:
# before, the kubelet's own defaults apply and only CustomNoUpgrade changes them.
UPSTREAM_GATES_SINCE = (1, 36)
_OPTION_GATES = ("CPUManagerPolicyAlphaOptions", "CPUManagerPolicyBetaOptions", "TopologyManagerPolicyAlphaOptions",
                 "TopologyManagerPolicyBetaOptions")
_DEFAULT_SET = {gate: False for gate in _OPTION_GATES}
OPENSHIFT_FEATURE_SETS: dict[str, dict[str, bool]] = {
    "Default": _DEFAULT_SET,
    "TechPreviewNoUpgrade": {**_DEFAULT_SET, "CPUManagerPolicyBetaOptions": True,
                             "TopologyManagerPolicyBetaOptions": True},
    "DevPreviewNoUpgrade": {gate: True for gate in _OPTION_GATES},
}


def openshift_feature_gates(feature_set: str, enabled: list[str], disabled: list[str],
                            version: tuple[int, int]) -> dict[str, bool]:
    """The kubelet feature gates a cluster FeatureGate renders at ``version``; CustomNoUpgrade starts from the
    Default set and applies its enabled/disabled lists."""
    gates: dict[str, bool] = {}
    if version >= UPSTREAM_GATES_SINCE:
        gates = dict(OPENSHIFT_FEATURE_SETS.get(feature_set, OPENSHIFT_FEATURE_SETS["Default"]))
    if feature_set == "CustomNoUpgrade":
        gates.update({name: True for name in enabled})
        gates.update({name: False for name in disabled})
    return gates


def openshift_sets_enabling(gate: str, version: tuple[int, int]) -> list[str]:
    """The feature sets (besides CustomNoUpgrade) whose FeatureGate turns ``gate`` on at ``version``."""
    if version < UPSTREAM_GATES_SINCE:
        return []
    return [name for name, gates in OPENSHIFT_FEATURE_SETS.items() if gates.get(gate)]
