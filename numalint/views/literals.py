"""Numbers written otherwise than YAML reads them, in fields that take a string.

go-yaml v2 resolves plain scalars by YAML 1.1 (resolve.go: strconv.ParseInt(plain, 0, 64) after removing
``_``, with a leading ``0`` for octal): ``010`` is 8, ``0o17`` 15, ``0x1F`` 31, ``1_000`` 1000, ``+5`` 5,
``1e3`` the float 1000. A field that takes a string then fails to decode, and quoting is the fix; but
quoting the number YAML read (``"8"``) silently changes what the author wrote. Quoting the text as
written is safe only where the field's consumer reads that text as the author's digits; elsewhere the fix
is left to the author, with both readings. Sexagesimal (``1:20``) is no number to go-yaml v2: a string.

A fraction (``0.5``) is a float to YAML; quoted, resource.ParseQuantity reads it in thousandths (``"0.5"`` is
500m, k8s.io/apimachinery/pkg/api/resource/quantity.go). That is what the author wrote for a CPU amount, but
milli-bytes for memory: only a CPU fraction is quoted automatically (``fraction_quoted``).
"""

from __future__ import annotations

from collections.abc import Callable

from numalint.k8s.goparse import GoParseError, parse_cpuset
from numalint.k8s.kinds import KUBELET_CONFIG, KUBELET_CONFIGURATION, PERFORMANCE_PROFILE
from numalint.k8s.quantity import format_cpu, try_quantity
from numalint.reading.locate import Path

_KUBELET_ROOTS = {KUBELET_CONFIGURATION: (), KUBELET_CONFIG: ("spec", "kubeletConfig")}
# maps of the KubeletConfiguration whose values the kubelet reads with resource.ParseQuantity:
# systemReserved/kubeReserved in parseResourceList (cmd/kubelet/app/server.go), eviction thresholds in
# ParseThresholdConfig (pkg/kubelet/eviction/helpers.go; a value not ending in % is a quantity)
_QUANTITY_MAPS = frozenset({"systemReserved", "kubeReserved", "evictionHard", "evictionSoft",
                            "evictionMinimumReclaim"})
# keys of those maps (and eviction signals) that count bytes: a fraction of one is milli-bytes
_BYTE_KEYS = frozenset({"memory", "ephemeral-storage", "memory.available", "allocatableMemory.available",
                        "nodefs.available", "imagefs.available", "containerfs.available"})
# CPU lists read by k8s.io/utils/cpuset.Parse (strconv.Atoi per bound: "010" is CPU 10)
_PROFILE_CPUSETS = frozenset({"reserved", "isolated", "shared", "offlined"})


def _cpuset(text: str) -> bool:
    try:
        parse_cpuset(text)
    except GoParseError:
        return False
    return True


def _quantity(text: str) -> bool:
    return try_quantity(text) is not None


_CONSUMERS: dict[str, tuple[str, Callable[[str], bool]]] = {
    "cpuset": ("cpuset.Parse", _cpuset),
    "quantity": ("resource.ParseQuantity", _quantity),
}


def consumer(kind: str, path: Path) -> str | None:
    """Which Go parser reads the string at ``path`` of a ``kind`` document, when numalint knows it."""
    root = _KUBELET_ROOTS.get(kind)
    if root is not None and path[:len(root)] == root:
        rest = path[len(root):]
        if rest == ("reservedSystemCPUs",):
            return "cpuset"
        if len(rest) == 2 and rest[0] in _QUANTITY_MAPS:
            return "quantity"
    if kind == PERFORMANCE_PROFILE and len(path) == 3 and path[:2] == ("spec", "cpu") and path[2] in _PROFILE_CPUSETS:
        return "cpuset"
    return None


def quoting_keeps_digits(kind: str, path: Path, written: str) -> tuple[bool, str]:
    """Whether the quoted text ``written`` is read by the field's consumer (safe to write), and a clause
    saying how it is read."""
    name = consumer(kind, path)
    if name is None:
        return False, "numalint does not know how this field's text is read"
    parser, reads = _CONSUMERS[name]
    if reads(written):
        return True, f'{parser} reads the text "{written}" as written'
    return False, f'{parser} refuses the text "{written}"'


def _counts_bytes(key: str) -> bool:
    return key in _BYTE_KEYS or key.startswith("hugepages-")


def fraction_quoted(kind: str, path: Path, written: str) -> tuple[bool, str, str]:
    """For a fraction written ``written`` where a string belongs: whether quoting it as written keeps what the
    author wrote (safe), a clause saying how the field's parser reads that text ("" when numalint does not
    know the parser), and what to do instead when it is not safe."""
    name = consumer(kind, path)
    if name is None:
        return False, "", f'quote it if you mean the text "{written}"'
    if name == "cpuset":
        return False, f'cpuset.Parse refuses the text "{written}" (CPU IDs are whole numbers)', \
            'write the CPU list you mean, such as "0-1"'
    amount = try_quantity(written)
    if amount is None:
        return False, f'resource.ParseQuantity refuses the text "{written}"', "write the amount you mean with its unit"
    milli = amount * 1000
    key = str(path[-1])
    if key == "cpu" and milli.denominator == 1:
        return True, f'resource.ParseQuantity reads the text "{written}" as {format_cpu(amount)} CPU, as written', ""
    shown = f"{int(milli)}m" if milli.denominator == 1 else f"{float(milli)}m"
    if key == "cpu":  # finer than a millicore: the static policy counts MilliValue(), rounded up (policy_static.go)
        return False, f'resource.ParseQuantity reads the text "{written}" as {shown}, finer than a millicore', \
            "write the CPU amount you mean in millicores, such as \"500m\""
    if _counts_bytes(key):
        return False, (f'quoted, resource.ParseQuantity would read "{written}" as {shown}: milli-bytes, '
                       "thousandths of a byte"), 'write the amount you mean with its unit, such as "1536Mi"'
    return False, f'quoted, resource.ParseQuantity would read "{written}" as {shown}: thousandths of one', \
        "write the whole number you mean"
