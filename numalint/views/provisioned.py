"""The kubelets node-provisioning tools configure, read from their files: kubeadm's kubeletExtraArgs beside a
KubeletConfiguration (``views.kubelet_flags``), kind clusters (``views.kind_cluster``), Cluster API
KubeadmConfigTemplates (``views.capi``), RKE2/K3s configuration files (``views.rancher``) and Amazon EKS
NodeConfigs (``views.nodeadm``). Each gives kubelet profiles whose fixes are made by hand, and findings for what
stops the kubelet or leaves it unjudged. Imported by the engine only for a file holding one of them (start-up
time)."""

from __future__ import annotations

import os
from dataclasses import replace

from numalint import catalogue as registry
from numalint.checks import FLAG_HINT, KIND_HINT
from numalint.checks.input_rules import FindingCap, input_findings, object_ref
from numalint.findings import Finding, Fix, ObjectRef, shorten
from numalint.reading.locate import get
from numalint.reading.sources import Document
from numalint.views.capi import capi_kubelet
from numalint.views.embedded import FileText
from numalint.views.flag_kubelet import FlagKubelet, Unjudged
from numalint.views.kind_cluster import Ignored, Unread, cluster_name, kind_kubelets
from numalint.views.kubelet import KubeletProfile, kubelet_profile, pinned_version
from numalint.views.kubelet_flags import Flag, Refused, kubeadm_flags, with_flags
from numalint.views.nodeadm import defaulted, node_class_kubelet, nodeadm_kubelet
from numalint.views.rancher import rancher_kubelet


def kubeadm_file_flags(documents: list[Document], findings: list[Finding]) -> list[Flag]:
    """The kubelet flags kubeadm's kubeletExtraArgs give a KubeletConfiguration of the same file; ``findings`` gets
    those the kubelet would not parse."""
    refused: list[Refused] = []
    flags = kubeadm_flags(documents, refused)
    findings.extend(refused_flags(refused))
    return flags


def capi_profiles(template: Document, cap: FindingCap, classes: bool) -> list[KubeletProfile]:
    """The kubelet of a Cluster API KubeadmConfigTemplate's machines (``views.capi``), when its flags ask for
    alignment; a flag the kubelet would not parse, or why such a template is not judged, is said in ``cap``.
    ``classes``: the file holds a ClusterClass, which may patch the template's flags."""
    refused: list[Refused] = []
    unjudged: list[Unjudged] = []
    kubelet = capi_kubelet(template, refused, unjudged, classes)
    return _flag_profiles(kubelet, refused, unjudged, cap, template.file,
                          replace(object_ref(template), part="kubelet"), "KubeadmConfigTemplate", FLAG_HINT,
                          "kubeletExtraArgs")


def rancher_profiles(config: Document, cap: FindingCap) -> list[KubeletProfile]:
    """The kubelet of an RKE2 or K3s node configuration (``views.rancher``), when its flags ask for alignment."""
    refused: list[Refused] = []
    unjudged: list[Unjudged] = []
    kubelet = rancher_kubelet(config, refused, unjudged)
    ref = ObjectRef("", "RKE2/K3s configuration", os.path.basename(config.file) if config.file != "-" else "<stdin>")
    profiles = _flag_profiles(kubelet, refused, unjudged, cap, config.file, ref, "RKE2/K3s configuration",
                              KUBELET_ARG_HINT, "kubelet-arg")
    for profile in profiles:
        profile.default_eviction = "RKE2's and K3s's default eviction-hard"
    return profiles


KUBELET_ARG_HINT = "in kubelet-arg, which sets this kubelet flag (by hand: numalint does not edit flags)"
NODEADM_HINT = "in the NodeConfig's spec.kubelet (by hand: numalint does not edit nodeadm's configuration)"
NODE_CLASS_HINT = ("in the EC2NodeClass's spec.kubelet or the NodeConfig of its userData (by hand: numalint does not "
                   "edit user data)")


def nodeadm_profiles(config: Document, text: str, cap: FindingCap) -> list[KubeletProfile]:
    """The kubelet of an Amazon EKS NodeConfig's nodes (``views.nodeadm``), when it asks for alignment; what the
    kubelet fails to decode or ignores in the merged configuration is said in ``cap`` too."""
    refused: list[Refused] = []
    unjudged: list[Unjudged] = []
    kubelet = nodeadm_kubelet(config, refused, unjudged)
    return _nodeadm_profiles(kubelet, refused, unjudged, config, text, cap, "NodeConfig", NODEADM_HINT)


def node_class_profiles(node_class: Document, file: FileText, cap: FindingCap) -> list[KubeletProfile]:
    """The kubelet of a Karpenter EC2NodeClass's nodes: the NodeConfigs of its user data and its spec.kubelet
    (``views.nodeadm``), when they ask for alignment."""
    refused: list[Refused] = []
    unjudged: list[Unjudged] = []
    user_data = get(node_class.root, ("spec", "userData"))
    if isinstance(user_data, str) and "node.eks.aws" in user_data and file.broken:
        unjudged.append(Unjudged(node_class.span, "the file breaks lines at a lone CR, NEL (U+0085) or U+2028/U+2029, "
                                                  "so positions inside the user data cannot be told"))
        kubelet = None
    else:
        kubelet = node_class_kubelet(node_class, file.lines, refused, unjudged)
    return _nodeadm_profiles(kubelet, refused, unjudged, node_class, file.text, cap, "EC2NodeClass", NODE_CLASS_HINT)


def _nodeadm_profiles(kubelet: FlagKubelet | None, refused: list[Refused], unjudged: list[Unjudged], doc: Document,
                      text: str, cap: FindingCap, what: str, hint: str) -> list[KubeletProfile]:
    """The profile of a kubelet nodeadm configures (``views.nodeadm``), named after ``doc`` (a NodeConfig or an
    EC2NodeClass): what its merged configuration fails to decode is said in ``cap``, the kubeReserved nodeadm
    computes on the node and the settings that are nodeadm's own are marked on it."""
    profiles = _flag_profiles(kubelet, refused, unjudged, cap, doc.file, replace(object_ref(doc), part="kubelet"),
                              what, hint, "spec.kubelet.flags")
    if kubelet is None or not profiles:
        return profiles
    for stream in input_findings(kubelet.document, text):
        cap.add((replace(f, fix=Fix(f"{f.fix.description}, {hint}")) if f.fix is not None and f.fix.edits
                 else f for f in stream), stop=True)
    profile = profiles[0]
    profile.flags_only = None  # its configuration is written as fields, its flags as flags
    profile.nodeadm_reserved = dict(kubelet.computed or {})
    profile.platform_defaults += defaulted(profile.doc)
    return profiles


def _flag_profiles(kubelet: FlagKubelet | None, refused: list[Refused], unjudged: list[Unjudged], cap: FindingCap,
                   file: str, ref: ObjectRef, what: str, hint: str, written_in: str) -> list[KubeletProfile]:
    """The profile of a kubelet configured by flags alone (``views.flag_kubelet``), named ``ref``, every fix of it
    made by hand (``hint``); what refuses its flags or leaves it unjudged is said in ``cap``."""
    cap.add(replace(finding, obj=ref) for finding in refused_flags(refused, written_in))
    cap.add(registry.finding("not-lintable", f"the kubelet of this {what} is not checked: {u.why}", file, u.span,
                             ref) for u in unjudged)
    profile = kubelet_profile(with_flags(kubelet.document, kubelet.flags)) if kubelet is not None else None
    if kubelet is None or profile is None:
        return []
    profile.ref = ref
    profile.flag_spans = tuple(span for flag in kubelet.flags for span in flag.spans)
    profile.by_hand = hint
    profile.flags_only = written_in
    return [profile]


def refused_flags(refused: list[Refused], written_in: str = "kubeletExtraArgs") -> list[Finding]:
    return [registry.finding(
        "kubelet-start", f'the kubelet refuses to start: {written_in} {r.name}: "{shorten(r.text)}" is no value '
        f"its --{r.name} flag parses (the kubelet exits on a flag it cannot parse)", r.doc.file, r.span,
        object_ref(r.doc), Fix(f"write a value --{r.name} accepts")) for r in refused]


def kind_profiles(cluster: Document, file: FileText, cap: FindingCap) -> list[KubeletProfile]:
    """The kubelets of a kind cluster's nodes (``views.kind_cluster``); a patch numalint cannot read, or a flag the
    kubelet would not parse, is said in ``cap``."""
    refused: list[Refused] = []
    unread: list[Unread] = []
    ignored: list[Ignored] = []
    if file.broken:
        unread.append(Unread(cluster.span, "the file breaks lines at a lone CR, NEL (U+0085) or U+2028/U+2029, so "
                                           "positions inside the patches cannot be told; use LF or CRLF line ends"))
        kubelets = []
    else:
        kubelets = kind_kubelets(cluster, file.lines, refused, unread, ignored)
    ref = replace(object_ref(cluster), name=cluster_name(cluster) or "kind")  # kind's name, not metadata's
    unique = {(r.name, r.span): r for r in refused}  # a cluster patch's flag is every node's
    cap.add(replace(finding, obj=ref) for finding in refused_flags(list(unique.values())))
    cap.add(registry.finding("not-lintable", f"the kubelet of this kind cluster is not checked: {u.why}", cluster.file,
                             u.span, ref) for u in unread[:1])
    cap.add(registry.finding("unknown-field", i.message, cluster.file, i.span, ref, Fix(i.fix)) for i in ignored)
    if kubelets:  # what the kubelet fails to decode, or ignores, in the merged KubeletConfiguration
        for stream in input_findings(kubelets[0].document, file.text):
            cap.add((replace(f, fix=Fix(f"{f.fix.description}, {KIND_HINT}")) if f.fix is not None and f.fix.edits
                     else f for f in stream), stop=True)
    profiles = []
    name = cluster_name(cluster)
    nodes = cluster.root.get("nodes")
    images = {pinned_version(node.get("image")) for node in nodes if isinstance(node, dict)} \
        if isinstance(nodes, list) else set()
    declared = images.pop() if len(images) == 1 else None  # every node on one version (a node without image: none)
    for kubelet in kubelets:
        document = with_flags(kubelet.document, kubelet.flags) if kubelet.flags else kubelet.document
        profile = kubelet_profile(document)
        if profile is None:
            continue
        profile.ref = replace(profile.ref, name=name or profile.ref.name, part=kubelet.nodes)
        profile.flag_spans = tuple(span for flag in kubelet.flags for span in flag.spans)
        profile.by_hand = KIND_HINT
        profile.default_eviction = "kind's own evictionHard"
        profile.declared_version = declared
        profiles.append(profile)
    return profiles
