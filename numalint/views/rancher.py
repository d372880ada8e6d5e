"""The kubelet of an RKE2 or K3s node: the ``kubelet-arg`` flags of its ``config.yaml`` over the distribution's
defaults.

The configuration file is a plain mapping of the server's and agent's options (no apiVersion or kind);
``kubelet-arg`` is a list of ``name=value`` strings, or one string, each passed to the kubelet as
``--name=value`` (k3s pkg/configfilearg). K3s, and RKE2 which runs the kubelet from K3s's agent code, give the
kubelet ``eviction-hard`` ``imagefs.available<5%,nodefs.available<5%`` (a flag before v1.32, the
``00-<program>-defaults.conf`` drop-in since): no ``memory.available``, so there is no hard-eviction reservation of
memory unless a ``kubelet-arg`` sets one (a user flag of a name replaces the default: k3s pkg/util/args.go, and a
map flag replaces the files' map). Nothing else they set touches the CPU, Topology or Memory Manager or the
reservations. Files in ``config.yaml.d/`` are merged over ``config.yaml`` (a ``kubelet-arg`` there replaces the
list, ``kubelet-arg+`` appends to it): a drop-in, a file using ``kubelet-arg+`` alone, or a ``config.yaml`` beside a
``config.yaml.d`` whose files set kubelet flags (or cannot be read) is not judged alone (said when its flags ask
for alignment). K3s reads the first document of the file only.
"""

from __future__ import annotations

import os
from typing import Any

from numalint.reading.sources import Document, ReadError, read_capped
from numalint.reading.yamlpos import Span, YMap, YSeq
from numalint.views.flag_kubelet import FlagKubelet, Unjudged, asks_alignment, flag_kubelet
from numalint.views.kubelet_flags import Refused

ARGS, APPENDED = "kubelet-arg", "kubelet-arg+"
# other options of RKE2's and K3s's configuration files: a mapping holding one of them is such a file
OPTIONS = frozenset({"token", "server", "node-label", "node-taint", "node-ip", "node-name", "cni", "tls-san",
                     "write-kubeconfig-mode", "data-dir", "cluster-cidr", "service-cidr", "cluster-dns", "disable",
                     "profile", "selinux", "kube-apiserver-arg", "kube-controller-manager-arg", "kube-scheduler-arg",
                     "kube-proxy-arg", "agent-token", "cluster-init", "system-default-registry",
                     "protect-kernel-defaults", "container-runtime-endpoint", "node-external-ip", "resolv-conf",
                     "cloud-provider-name"})
DEFAULTS: dict[str, Any] = {"failSwapOn": False,
                            "evictionHard": {"imagefs.available": "5%", "nodefs.available": "5%"}}


def is_node_config(doc: Document) -> bool:
    """Whether ``doc`` is an RKE2 or K3s configuration file with kubelet flags: the first document of its file (K3s
    reads no other), a mapping without apiVersion or kind, named as RKE2 and K3s name theirs (``config.yaml``, a
    drop-in of ``config.yaml.d/``, a name with rke2 or k3s in it) or holding another of their options (a Helm
    values file or Ansible vars with a ``kubelet-arg`` key is not one)."""
    root = doc.root
    if doc.index != 0 or not isinstance(root, YMap) or "kind" in root or "apiVersion" in root or not (
            ARGS in root or APPENDED in root):
        return False
    name, parent = os.path.basename(doc.file).lower(), os.path.basename(os.path.dirname(doc.file)).lower()
    return name in ("config.yaml", "config.yml") or parent.endswith((".yaml.d", ".yml.d")) or "rke2" in name or (
        "k3s" in name) or any(key in root for key in OPTIONS)


def rancher_kubelet(doc: Document, refused: list[Refused], unjudged: list[Unjudged]) -> FlagKubelet | None:
    """The kubelet of ``doc``'s node when its flags ask for alignment (see the module docstring); ``refused`` gets
    the flags the kubelet would not parse, ``unjudged`` why a kubelet that asks is not judged."""
    root = doc.root
    key = ARGS if ARGS in root else APPENDED
    at = root.key_spans[key]
    # kubelet-arg+ in the file that also sets kubelet-arg appends to it
    written = [entry for name in (ARGS, APPENDED) if name in root for entry in _written(root[name],
                                                                                         root.value_spans[name])]
    elsewhere = None
    if asks_alignment(written):
        parent = os.path.basename(os.path.dirname(doc.file)).lower()
        if ARGS not in root:
            elsewhere = Unjudged(at, f"{APPENDED} adds to the flags of the configuration files before it, which "
                                     "numalint does not merge")
        elif parent.endswith((".yaml.d", ".yml.d")):
            elsewhere = Unjudged(at, f"a file of {parent}/ is merged over the configuration file and the files "
                                     "before it, which numalint does not merge")
        else:
            drop_ins = _drop_ins(doc.file)
            if drop_ins is not None:
                elsewhere = Unjudged(at, drop_ins)
    return flag_kubelet(doc, written, at, refused, unjudged, "check the file they write instead",
                        defaults=DEFAULTS, elsewhere=elsewhere)


def _written(value: Any, span: Span) -> list[tuple[str, str, Span, Span]]:
    """(flag, value, span, span) of each ``name=value`` item, the name as the kubelet's flag set normalises it
    (``--`` dropped, ``_`` read as ``-``) and without K3s's ``+``/``-`` suffix (``eviction-hard+=...`` adds to the
    distribution's default, whose signals hold no memory.available: the memory threshold is the one written); an
    item without ``=`` (a boolean flag) is none numalint models."""
    items = list(zip(value, value.item_spans, strict=True)) if isinstance(value, YSeq) else [(value, span)]
    found = []
    for item, where in items:
        if isinstance(item, str) and "=" in item:
            name, _, text = item.partition("=")
            found.append((name.strip().lstrip("-").rstrip("+-").replace("_", "-"), text.strip(), where, where))
    return found


def _drop_ins(file: str) -> str | None:
    """Why the drop-ins beside configuration ``file`` (``<file>.d/``) keep it from being judged alone: one sets
    kubelet flags, or one cannot be read; None when there is none of either."""
    if file == "-":
        return None
    directory = file + ".d"
    if not os.path.isdir(directory):
        return None
    name = os.path.basename(directory)
    try:
        entries = sorted(os.listdir(directory))
    except OSError:
        return f"{name}/ beside it cannot be listed, and its files may set kubelet flags"
    for entry in entries:
        if entry.endswith((".yaml", ".yml")):
            try:
                text = read_capped(os.path.join(directory, entry))  # non-blocking: a FIFO must not hang the run
            except ReadError:
                return f"{name}/{entry} beside it cannot be read, and it may set kubelet flags"
            if ARGS.encode() in text:
                return f"the files of {name}/ beside it set kubelet flags too, and numalint does not merge them"
    return None
