"""A kind cluster configuration (``kind: Cluster``, ``kind.x-k8s.io``) as the kubelets of its nodes run it.

kind writes each node a kubeadm configuration from its template, then applies the Cluster's
``kubeadmConfigPatches``, then the node's own: each an RFC 7386 JSON merge patch (a map merges key by key, a list
or value replaces, ``null`` deletes) of the generated documents of its kind, and of its apiVersion when the patch
names one (a patch naming another version is dropped); one patch text may hold several documents
(kind: pkg/internal/patch, pkg/cluster/internal/create/actions/config). The KubeletConfiguration kind generates
sets cgroupDriver systemd, cgroupRoot /kubelet, failSwapOn false, imageGCHighThresholdPercent 100, the Cluster's
featureGates and evictionHard of nodefs.available, nodefs.inodesFree and imagefs.available "0%"
(pkg/cluster/internal/kubeadm/config.go): no memory.available, so under kind a KubeletConfiguration patch that
writes no evictionHard leaves no hard-eviction reservation of memory, where a kubelet of its own would reserve
100Mi.

The first control-plane node runs ``kubeadm init``, which uploads its KubeletConfiguration to the kubelet-config
ConfigMap; the other nodes run ``kubeadm join``, which takes the kubelet configuration from that ConfigMap and
ignores the one in its own file. So every node runs the first control-plane node's KubeletConfiguration (a
joining node's own KubeletConfiguration patch changes nothing), while the kubelet flags of
``nodeRegistration.kubeletExtraArgs`` are each node's: its InitConfiguration's on the first node, its
JoinConfiguration's on the others. Pods run on the workers, and on the control-plane node only when it is the
cluster's only node (kind removes its taint then).
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from numalint.k8s.kinds import KUBEADM_GROUP, KUBELET_API_VERSION
from numalint.reading.sources import Document, left_to_fill
from numalint.reading.yamlpos import Span, YamlError, YMap, YSeq, load_all
from numalint.views.embedded import EmbeddedDocument, block_documents, located
from numalint.views.kubelet_flags import Flag, Refused, parsed_flags, written_args
from numalint.views.merge_patch import merged

KUBELET_GROUP, _, KUBELET_VERSION = KUBELET_API_VERSION.partition("/")
KUBEADM_GROUP_NAME = KUBEADM_GROUP.rstrip("/")
KUBEADM_VERSIONS = ("v1beta3", "v1beta4")  # kind's templates from Kubernetes 1.23 (v1beta4 from 1.36)
PATCHES = "kubeadmConfigPatches"
PATCHES_JSON6902 = "kubeadmConfigPatchesJSON6902"
KUBELET_KINDS = frozenset({"KubeletConfiguration", "InitConfiguration", "JoinConfiguration"})
_ALIAS = re.compile(r"\*([^\s,\[\]{}]+)")
_ANCHOR = re.compile(r"(?:![^\s]*[ \t]+)?&([^\s,\[\]{}]+)")  # a patch's anchor (after a tag, if any)
_ENTRY = re.compile(r"-(?:[ \t]+[&!]\S*)*[ \t]*$")  # the "-" of a sequence entry, then its anchor or tag
# kind's KubeletConfiguration before any patch (featureGates: the Cluster's)
BASE: dict[str, Any] = {
    "apiVersion": KUBELET_API_VERSION, "kind": "KubeletConfiguration", "cgroupDriver": "systemd",
    "cgroupRoot": "/kubelet", "failSwapOn": False, "imageGCHighThresholdPercent": 100,
    "evictionHard": {"nodefs.available": "0%", "nodefs.inodesFree": "0%", "imagefs.available": "0%"},
}


class KindKubelet(NamedTuple):
    """The kubelet of some of the cluster's nodes: its KubeletConfiguration (every value located where a patch
    writes it, kind's own values at the Cluster's ``kubeadmConfigPatches``), its flags and which nodes run it."""

    document: EmbeddedDocument
    flags: list[Flag]
    nodes: str  # "kind workers", "kind worker 2", "kind control-plane"


class Ignored(NamedTuple):
    """A patch that reaches no kubelet: what it sets never applies."""

    span: Span
    message: str
    fix: str


class Unread(NamedTuple):
    """Why the cluster's kubelet is not judged, as any value might be in what numalint does not read: a patch that
    is no literal block scalar, does not parse, is left for a template tool, a JSON 6902 patch, too much to merge."""

    span: Span
    why: str


def kind_kubelets(doc: Document, lines: list[str], refused: list[Refused], unread: list[Unread],
                  ignored: list[Ignored]) -> list[KindKubelet]:
    """The kubelets of the nodes that run pods, one per distinct set of flags; none when the cluster patches
    neither the KubeletConfiguration nor a kubeadm configuration's kubeletExtraArgs (nothing asked of the
    kubelet: kind's defaults). ``refused`` gets the flags the kubelet would not parse, ``unread`` the patches that
    cannot be read (and then no kubelet is given), ``ignored`` the patches that reach no kubelet."""
    root = doc.root
    nodes = [n for n in root.get("nodes") or () if isinstance(n, YMap)] if isinstance(root.get("nodes"), YSeq) \
        else []
    nodes = nodes or [YMap()]  # kind's default: one control-plane node
    anchors: dict[str, list[YMap]] = {}
    cluster = _patches(root, lines, unread, anchors)
    own = [_patches(node, lines, unread, anchors) for node in nodes]
    for holder in (root, *nodes):
        _json6902(holder, unread)
    roles = [str(node.get("role") or "control-plane") for node in nodes]
    if unread or "control-plane" not in roles:  # kind refuses a cluster without a control-plane node
        return []
    first = roles.index("control-plane")
    ignored += _ignored(cluster, own, first)
    kubelet = [p for p in cluster + own[first]
               if _targets(p, "KubeletConfiguration", KUBELET_GROUP, (KUBELET_VERSION,))]
    # pods run on the workers; on the control-plane node only when it is the only node (kind untaints it then)
    running = [i for i, role in enumerate(roles) if role == "worker"] or ([first] if len(nodes) == 1 else [])
    kinds = {i: "InitConfiguration" if i == first else "JoinConfiguration" for i in range(len(nodes))}
    shared = {kind: _flag_patches(cluster, kind) for kind in ("InitConfiguration", "JoinConfiguration")}
    base_args = {kind: _merged_args(written) for kind, written in shared.items()}  # once, not once per node
    flagged = {i: _flag_patches(own[i], kinds[i]) for i in range(len(nodes))}
    args = {i: _merged_args(flagged[i], base_args[kinds[i]]) for i in range(len(nodes))}
    runs_pods = set(running)  # a cluster of thousands of workers stays linear
    for i in range(len(nodes)):  # a flag a kubelet would not parse stops its node, whether it runs pods or not
        if i not in runs_pods:
            parsed_flags(doc, args[i], refused)
    if not kubelet and not any(shared[kinds[i]] or flagged[i] for i in running):
        return []
    config = merged(_base(root, root.key_spans.get(PATCHES, doc.span)), kubelet)
    if config is None:
        unread.append(Unread(root.key_spans.get(PATCHES, doc.span), "its patches merge more keys than numalint "
                                                                    "follows (aliases of a large patch)"))
        return []
    config.span = doc.span  # an insertion into it would land in the Cluster: numalint does not edit patches
    carrier = f"kind Cluster {cluster_name(doc) or 'kind'}"
    document = EmbeddedDocument(doc.file, doc.index, config, doc.span, carrier=carrier)
    groups: dict[str, list[int]] = {}  # nodes whose flags are alike run one kubelet (its findings: said once)
    by_node: dict[int, list[Flag]] = {}
    for i in running:
        by_node[i] = parsed_flags(doc, args[i], refused)
        alike = json.dumps([(flag.field, flag.value) for flag in by_node[i]], sort_keys=True, default=str)
        groups.setdefault(alike, []).append(i)
    number = {node: n for n, node in enumerate(running, 1)}
    kubelets = []
    for members in groups.values():
        named = [f"worker {number[i]}" for i in members[:3]] + [f"{len(members) - 3} more"] * (len(members) > 3)
        label = "kind control-plane" if roles[members[0]] != "worker" else \
            "kind workers" if len(groups) == 1 else "kind " + ", ".join(named)
        kubelets.append(KindKubelet(document, by_node[members[0]], label))
    return kubelets


def _kind(patch: YMap) -> str | None:
    kind = patch.get("kind")
    return kind if isinstance(kind, str) else None


def _ignored(cluster: list[YMap], own: list[list[YMap]], first: int) -> list[Ignored]:
    """The patches of the kubelet's kinds that reach no kubelet: a joining node's own KubeletConfiguration
    (kubeadm join takes the cluster's), an InitConfiguration of a node that joins, a JoinConfiguration of the node
    that runs kubeadm init, and a patch naming an apiVersion kind does not generate (kind drops it)."""
    found: list[Ignored] = []
    seen: set[int] = set()

    def say(patch: YMap, message: str, fix: str) -> None:
        if id(patch) not in seen:
            seen.add(id(patch))
            found.append(Ignored(patch.value_spans.get("kind", patch.span), message, fix))

    effective = {id(patch) for patch in cluster + own[first]}  # an alias of one of these takes effect there
    for i, patches in [(None, cluster), *enumerate(own)]:
        for patch in patches:
            kind = _kind(patch)
            if kind not in KUBELET_KINDS or (i is not None and i != first and id(patch) in effective):
                continue
            group, versions = (KUBELET_GROUP, (KUBELET_VERSION,)) if kind == "KubeletConfiguration" else \
                (KUBEADM_GROUP_NAME, KUBEADM_VERSIONS)
            if not _targets(patch, kind, group, versions):
                say(patch, f"this {kind} patch is dropped: kind applies a patch naming an apiVersion only to its "
                           f"documents of that apiVersion, and writes {kind} as {group}/{' or '.join(versions)}, "
                           f"not {patch.get('apiVersion')}",
                    f"leave apiVersion out of the patch (it then applies to every {kind})")
            elif kind == "KubeletConfiguration" and i is not None and i != first:
                say(patch, "this node's KubeletConfiguration patch changes nothing: the node joins, and kubeadm join "
                           "takes the kubelet configuration from the cluster (the first control-plane node's)",
                    "move it to the Cluster's kubeadmConfigPatches, or set this node's values as kubeletExtraArgs "
                    "flags in a JoinConfiguration patch")
            elif kind == "InitConfiguration" and i is not None and i != first:
                say(patch, "this node's InitConfiguration patch changes nothing: the node joins (only the first "
                           "control-plane node runs kubeadm init)", "write it as a JoinConfiguration patch")
            elif kind == "JoinConfiguration" and i == first:
                # not said of the Cluster's own JoinConfiguration patch on a cluster of one node: scripts append
                # workers to such a file (kubevirtci), whose joining nodes it then reaches
                init = next((p for p in own[first] + cluster if _kind(p) == "InitConfiguration"
                             and _targets(p, "InitConfiguration", KUBEADM_GROUP_NAME, KUBEADM_VERSIONS)), None)
                say(patch, "this node's JoinConfiguration patch changes nothing: the node runs kubeadm init, which "
                           "reads the InitConfiguration",
                    "write it as an InitConfiguration patch" if init is None else
                    "merge its nodeRegistration into the InitConfiguration patch that reaches this node (line "
                    f"{init.value_spans.get('kind', init.span).line})")
    return found


def cluster_name(doc: Document) -> str | None:
    """The Cluster's ``name`` (kind's own default, "kind", when it names none is not said: the file names it)."""
    name = doc.root.get("name")
    return name if isinstance(name, str) and name else None


def _patches(holder: YMap, lines: list[str], unread: list[Unread], anchors: dict[str, list[YMap]]) -> list[YMap]:
    """The documents of ``holder``'s kubeadmConfigPatches, located in the file. A patch numalint cannot locate (not
    a literal block scalar) is left out when none of its documents is one the kubelet takes (a folded
    ClusterConfiguration patch), else said in ``unread``; so is one that does not parse (kind would refuse it).
    ``anchors``: the documents of each anchored patch, for the aliases of it read later."""
    items = holder.get(PATCHES)
    if not isinstance(items, YSeq):
        return []
    found: list[YMap] = []
    for item, span in zip(items, items.item_spans, strict=True):
        if not isinstance(item, str) or not item.strip():
            continue
        line = lines[span.line - 1] if span.line <= len(lines) else ""
        dash = _ENTRY.search(line[:span.col - 1])
        named = _ANCHOR.match(line, span.col - 1)
        if named is not None:  # YAML's alias names the latest anchor of the name: an earlier one no longer counts
            anchors.pop(named.group(1), None)
        alias = _ALIAS.match(line, span.col - 1)
        if alias is not None and alias.group(1) in anchors:  # the anchored patch, where it is written
            found += anchors[alias.group(1)]
            continue
        documents = block_documents(lines, span, dash.start() + 1, item) if dash is not None else []
        if documents:
            roots = [root for root, _ in documents if isinstance(root, YMap)]
            if any(_kind(root) in KUBELET_KINDS and left_to_fill(root) for root in roots):
                unread.append(Unread(span, "this patch is left for a template tool to fill in (${VAR}, {{ }}); "
                                           "check the rendered file instead"))
                continue
            if named is not None:
                anchors[named.group(1)] = roots
            found += roots
            continue
        try:
            kinds = {_kind(root) for root, _ in load_all(item) if isinstance(root, YMap)}
        except YamlError as error:
            unread.append(Unread(span, f"numalint does not read this patch ({error})" if error.hostile else
                                 f"this patch does not parse as YAML ({error}), and kind refuses it"))
            continue
        if kinds & KUBELET_KINDS:
            unread.append(Unread(span, "numalint reads a patch only as a literal block scalar whose | follows its "
                                       "- on the same line (- |), the only form whose positions it can tell"))
    return found


def _json6902(holder: YMap, unread: list[Unread]) -> None:
    """kubeadmConfigPatchesJSON6902 of a document the kubelet takes: not read (said in ``unread``)."""
    items = holder.get(PATCHES_JSON6902)
    if not isinstance(items, YSeq):
        return
    for item, span in zip(items, items.item_spans, strict=True):
        if isinstance(item, YMap) and _kind(item) in KUBELET_KINDS:
            unread.append(Unread(span, f"numalint does not read {PATCHES_JSON6902}, which patches its "
                                       f"{item.get('kind')}"))


def _targets(patch: YMap, kind: str, group: str, versions: tuple[str, ...]) -> bool:
    """Whether kind applies ``patch`` to the generated document of ``kind`` (pkg/internal/patch/resource.go): same
    kind, and the group and version the patch names, if any."""
    if patch.get("kind") != kind:
        return False
    api_version = patch.get("apiVersion")
    if not isinstance(api_version, str) or not api_version:
        return True
    written_group, _, version = api_version.rpartition("/")
    return written_group == group and (not version or version in versions)


def _flag_patches(patches: list[YMap], kind: str) -> list[Any]:
    """The kubeletExtraArgs the patches of ``kind`` write, in the order kind applies them; ``None`` where a patch
    removes them (``nodeRegistration: null`` or ``kubeletExtraArgs: null``)."""
    found: list[Any] = []
    for patch in patches:
        if _targets(patch, kind, KUBEADM_GROUP_NAME, KUBEADM_VERSIONS) and "nodeRegistration" in patch:
            registration = patch["nodeRegistration"]
            if registration is None:
                found.append(None)
            elif isinstance(registration, YMap) and "kubeletExtraArgs" in registration:
                found.append(registration["kubeletExtraArgs"])
    return found


def _merged_args(written: list[Any], entries: list[tuple[str, str, Span, Span]] | None = None
                 ) -> list[tuple[str, str, Span, Span]]:
    """The flags after every patch: a later patch's flag replaces an earlier one of that name (a merge patch of the
    map form; kind merges v1beta4's list form by name), ``null`` removes it (all of them, in place of the map); a
    flag one patch lists twice stays twice (kubeadm passes both). ``entries``: the flags before these patches."""
    entries = list(entries or ())
    for arguments in written:
        if arguments is None:
            entries = []
            continue
        removed = {name for name, value in arguments.items() if value is None} if isinstance(arguments, YMap) \
            else set()
        given = written_args(arguments)
        names = removed | {name for name, _, _, _ in given}
        entries = [entry for entry in entries if entry[0] not in names] + given
    return entries


def _base(root: YMap, anchor: Span) -> YMap:
    """kind's KubeletConfiguration, located at ``anchor``; its featureGates are the Cluster's, where written."""
    config = located(BASE, anchor)
    gates = root.get("featureGates")
    if isinstance(gates, YMap) and gates:
        config["featureGates"] = gates
        config.key_spans["featureGates"], config.value_spans["featureGates"] = root.key_spans["featureGates"], \
            root.value_spans["featureGates"]
    return config
