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
list, ``kubelet-arg+`` appends to it): a drop-in, a file using ``kubelet-arg+``, or a ``config.yaml`` beside a
``config.yaml.d`` whose files set kubelet flags is not judged alone (said when its flags ask for alignment).
"""

from __future__ import annotations

import os
from typing import Any

from numalint.reading.sources import Document
from numalint.reading.yamlpos import Span, YSeq
from numalint.views.flag_kubelet import FlagKubelet, Unjudged, asks_alignment, flag_kubelet
from numalint.views.kubelet_flags import Refused

ARGS, APPENDED = "kubelet-arg", "kubelet-arg+"
DROP_INS = "config.yaml.d"
DEFAULTS: dict[str, Any] = {"failSwapOn": False,
                            "evictionHard": {"imagefs.available": "5%", "nodefs.available": "5%"}}


def rancher_kubelet(doc: Document, refused: list[Refused], unjudged: list[Unjudged]) -> FlagKubelet | None:
    """The kubelet of ``doc``'s node when its flags ask for alignment (see the module docstring); ``refused`` gets
    the flags the kubelet would not parse, ``unjudged`` why a kubelet that asks is not judged."""
    key = ARGS if ARGS in doc.root else APPENDED
    at = doc.root.key_spans[key]
    written = _written(doc.root[key], doc.root.value_spans[key])
    elsewhere = None
    if asks_alignment(written):
        if key == APPENDED:
            elsewhere = Unjudged(at, f"{APPENDED} adds to the flags of the configuration files before it, which "
                                     "numalint does not merge")
        elif os.path.basename(os.path.dirname(doc.file)) == DROP_INS:
            elsewhere = Unjudged(at, f"a file of {DROP_INS}/ is merged over config.yaml and the files before it, "
                                     "which numalint does not merge")
        elif _drop_ins_set_flags(doc.file):
            elsewhere = Unjudged(at, f"the files of {DROP_INS}/ beside it set kubelet flags too, and numalint does "
                                     "not merge them")
    return flag_kubelet(doc, written, at, refused, unjudged, "check the file they write instead",
                        defaults=DEFAULTS, elsewhere=elsewhere)


def _written(value: Any, span: Span) -> list[tuple[str, str, Span, Span]]:
    """(flag, value, span, span) of each ``name=value`` item, the name as the kubelet's flag set normalises it
    (``--`` dropped, ``_`` read as ``-``); an item without ``=`` (a boolean flag) is none numalint models."""
    items = list(zip(value, value.item_spans, strict=True)) if isinstance(value, YSeq) else [(value, span)]
    found = []
    for item, where in items:
        if isinstance(item, str) and "=" in item:
            name, _, text = item.partition("=")
            found.append((name.strip().lstrip("-").replace("_", "-"), text.strip(), where, where))
    return found


def _drop_ins_set_flags(file: str) -> bool:
    if file == "-":
        return False
    directory = os.path.join(os.path.dirname(file) or ".", DROP_INS)
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return False
    for name in names:
        if name.endswith((".yaml", ".yml")):
            try:
                with open(os.path.join(directory, name), encoding="utf-8", errors="replace") as drop_in:
                    if ARGS in drop_in.read(1 << 20):
                        return True
            except OSError:
                continue
    return False
