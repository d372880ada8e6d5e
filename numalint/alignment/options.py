"""What the CPU and Topology Managers share when they read policy options (policy_options.go)."""

from __future__ import annotations

ALL_STAGES = frozenset({"alpha", "beta", "ga"})
GO_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True,
            "0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False}


def check_available(component: str, name: str, available: dict[str, str], enabled: frozenset[str]) -> str | None:
    """CheckPolicyOptionAvailable: the error text, or None when the option may be used."""
    stage = available.get(name)
    if stage is None:
        return f'unknown {component} Policy option: "{name}"'
    if stage not in enabled:
        label = "Alpha" if stage == "alpha" else "Beta"
        return f'{component} Policy {label}-level Options not enabled, but option "{name}" provided'
    return None


def bool_error(name: str, value: str) -> str | None:
    """strconv.ParseBool's complaint about ``value``, or None when it parses."""
    if value in GO_BOOLS:
        return None
    return f'bad value for option "{name}": strconv.ParseBool: parsing "{value}": invalid syntax'
