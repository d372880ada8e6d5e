"""SR-IOV checks: networks and resources nothing provides, conflicting policies, VF counts, the networks
annotation (sriov-network-operator api/v1 and pkg/webhook/validate.go; multus-cni pkg/k8sclient)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from functools import cache
from typing import TYPE_CHECKING

from numalint.analysis import Analysis
from numalint.checks.input_rules import NearResources, use_one_of
from numalint.checks.registry import check
from numalint.findings import MAX_NAMED, Fix, Hit, Related
from numalint.k8s.kinds import FOREIGN_NETWORK_KINDS, LEGACY_NETWORKS_ANNOTATION, SRIOV_NETWORK_KINDS, SRIOV_POLICY
from numalint.model.run import Run
from numalint.model.sriov import (
    DEFAULT_PREFIX,
    DNS_LABEL,
    NETWORKS_ANNOTATION,
    Network,
    PFName,
    Policy,
    SriovCatalog,
    fill_placeholders,
    is_json_form,
    is_placeholder,
    networks_problem,
    unchecked_by_webhook,
    valid_resource_name,
)

if TYPE_CHECKING:
    from numalint.views.topology import NIC, TopologyView

NO_PROVIDER = "no SriovNetworkNodePolicy of the run provides it"
# what a pod's networks annotation may name
ATTACHABLE_KINDS = frozenset({*SRIOV_NETWORK_KINDS, *FOREIGN_NETWORK_KINDS, "NetworkAttachmentDefinition"})


def _unprovided(sriov: SriovCatalog, network: Network, run: Run) -> bool:
    """A network consuming a resource under the operator's prefix that no policy of the run creates.

    Only judged when the run holds policies at all (a repository of networks alone stays quiet), and only
    for the operator's prefix: a NetworkAttachmentDefinition for another prefix belongs to a plain
    device-plugin deployment the run cannot see; one under a prefix of the user's choice, to an SR-IOV
    resource only when ``_sriov_resource`` says so."""
    if not (sriov.policies or sriov.rejected) or not network.resource or is_placeholder(network.resource) \
            or sriov.templated_near((SRIOV_POLICY,), network.resource.split("/", 1)[-1], network.doc.file, run):
        return False
    if network.resource in sriov.provided() or network.resource.split("/", 1)[0] not in sriov.prefixes:
        return False
    return network.rendered or _sriov_resource(sriov, network.resource)


def _sriov_resource(sriov: SriovCatalog, resource: str) -> bool:
    """Is a resource under an operator's prefix, that no policy creates, meant to be an SR-IOV one? Always
    under the operator's own prefix (openshift.io: nothing else names resources there). Under another
    (``sriovResourcePrefix``: intel.com; the NVIDIA Network Operator's nvidia.com) other device plugins name
    theirs too (nvidia.com/gpu, a NicClusterPolicy's nvidia.com/hostdev): only when an operator network of the
    run consumes it, or its name is close to one a policy creates (a misspelling)."""
    if resource.split("/", 1)[0] == DEFAULT_PREFIX:
        return True
    if any(n.rendered and n.resource == resource for nets in sriov.networks.values() for n in nets):
        return True
    created = sriov.derived.get("created")  # indexed once: asked of every resource of thousands of pods
    if not isinstance(created, NearResources):
        created = sriov.derived["created"] = NearResources(
            p.resource_name.rsplit("/", 1)[-1] for p in (*sriov.policies, *sriov.rejected))
    return bool(created.near(resource))


def _closest(names: list[str], wanted: str) -> list[str]:
    """Of ``names`` (the closest first), those close enough to ``wanted`` to be a misspelling of it, and about as
    close as the first: network names often share a long prefix (sriov-net-, demo-intel-), which makes another
    network look close (sriov-net-gtp for sriov-net1, 0.78; demo-intel-vfio for demo-intel-netdev, 0.75)."""
    if not names:
        return names
    import difflib  # here: only a pod attaching a misspelt network needs it

    names = [name for name in names if not _sibling(wanted, name)]
    if not names:
        return names
    ratios = [difflib.SequenceMatcher(None, wanted, name).ratio() for name in names]
    return [name for name, ratio in zip(names, ratios, strict=True) if ratio >= max(0.85, ratios[0] - 0.05)]


_PARTS = re.compile(r"[-_.]")


def _sibling(wanted: str, name: str) -> bool:
    """Whether two network names differ only in one short part of other letters, as a fronthaul network's
    (sriov-net-fh) differs from a midhaul one's (sriov-net-mh): another network, not a misspelling of it (a
    transposition, rdma for rmda, is one)."""
    ours, theirs = _PARTS.split(wanted), _PARTS.split(name)
    if len(ours) != len(theirs):
        return False
    differ = [(a, b) for a, b in zip(ours, theirs, strict=True) if a != b]
    return len(differ) == 1 and len(differ[0][0]) == len(differ[0][1]) <= 3 and \
        sorted(differ[0][0]) != sorted(differ[0][1])


def _rejected_fix(policy: Policy, wanted: str) -> Fix:
    """The way out when the network names a policy the webhook rejects: the policy takes the name the network
    uses when that name is valid; otherwise both take a valid one."""
    rejects = (f'{policy.ref.label()} names it "{policy.resource_name}", which the operator webhook rejects '
               "(letters, digits and _ only; the operator adds the prefix): ")
    valid = valid_resource_name(wanted)
    if valid == wanted:
        return Fix(f"{rejects}write resourceName: {wanted} there")
    return Fix(f"{rejects}write a valid name such as resourceName: {valid} there and in this network (and in "
               "the pods that request the resource)")


@check("sriov-unknown-resource")
def sriov_unknown_resource(analysis: Analysis) -> Iterator[Hit]:
    sriov = analysis.sriov
    if not sriov.present:
        return
    provided = sriov.provided()

    @cache
    def index(written: bool) -> NearResources:
        """The names a reference is compared with, indexed once (thousands of networks beside thousands of
        policies compared every pair): the provided resources (with the prefix), or, ``written``, the
        resourceNames the policies write."""
        return NearResources({p.resource_name for p in sriov.policies} if written else provided)

    @cache
    def network_names() -> NearResources:
        """The run's network names, indexed once, for a pod attaching one that is not there (a misspelling)."""
        return NearResources(sriov.networks)

    def choices(resource: str, written: bool = False) -> str | None:
        """The names close enough to be what was meant; None when none is (an unrelated resource of the run is
        no fix: the policy is missing)."""
        return use_one_of(resource, index(written))

    for nets in sriov.networks.values():
        for net in nets:
            if _unprovided(sriov, net, analysis.run):
                # an operator network names the bare resourceName (the operator adds the prefix); a
                # NetworkAttachmentDefinition's annotation, the whole resource
                named = (choices(net.resource.split("/", 1)[1], written=True) if net.rendered else
                         choices(net.resource))
                # the rejected policy the network names, as written or as it would be made valid
                rejected = next((p for p in sriov.rejected if net.rendered and net.resource.split("/", 1)[1]
                                 in (p.resource_name.rsplit("/", 1)[-1], valid_resource_name(p.resource_name))),
                                None)
                yield Hit(f'{net.ref.label()} uses resource {net.resource}, but {NO_PROVIDER}: no node '
                          "advertises it, so every pod attaching the network stays Pending",
                          net.doc.file, net.resource_span(), net.ref,
                          _rejected_fix(rejected, net.resource.split("/", 1)[1]) if rejected is not None else
                          Fix(f"correct resourceName ({named}) or add the SriovNetworkNodePolicy" if named else
                              "add the SriovNetworkNodePolicy that creates the resource"),
                          "error")
    for pod in analysis.pods:
        attachments = sriov.attachments(pod)
        refused = bool(attachments) and networks_problem(pod.annotations.get(NETWORKS_ANNOTATION, "")) is not None
        seen: set[str] = set()
        reported: set[str] = set()
        for attachment in attachments:
            if attachment.label in seen or is_placeholder(attachment.label):
                continue
            seen.add(attachment.label)
            network = attachment.network
            nameable = network is not None or all(DNS_LABEL.match(part) for part in attachment.label.split("/"))
            if refused and not nameable:
                continue  # no network can have that name: networks-annotation reports the entry Multus refuses
            if network is None:
                if sriov.templated_near(ATTACHABLE_KINDS, attachment.label.split("/")[-1], pod.file, analysis.run):
                    continue  # a templated network near it may be the one
                name = attachment.label.split("/")[-1]
                elsewhere = sriov.namespaces_of(name)
                if elsewhere and nameable:  # Multus looks in the namespace written, else the pod's own
                    looked = attachment.label.split("/")[0] if "/" in attachment.label else pod.ref.namespace
                    spaces = " and ".join(f'"{ns}"' for ns in elsewhere[:MAX_NAMED]) + (
                        f" and {len(elsewhere) - MAX_NAMED} more" if len(elsewhere) > MAX_NAMED else "")
                    yield Hit(f'{pod.ref.label()} attaches network "{attachment.label}" ({NETWORKS_ANNOTATION}), but '
                              f'the network of that name is in namespace {spaces}, not in "{looked}", where Multus '
                              "looks: it cannot find it and the pod stays in ContainerCreating",
                              pod.file, pod.annotation_span(NETWORKS_ANNOTATION), pod.ref,
                              Fix((f'set "namespace": "{elsewhere[0]}" in its entry of the annotation'
                                   if is_json_form(pod.annotations.get(NETWORKS_ANNOTATION, "")) else
                                   f'name it with its namespace in the annotation ("{elsewhere[0]}/{name}")')
                                  + f', or create the network in namespace "{looked}" (a SriovNetwork\'s '
                                    "networkNamespace)"))
                    continue
                # the networks of names close to it that Multus would find from the pod (a misspelling)
                looked = attachment.label.split("/")[0] if "/" in attachment.label else pod.ref.namespace
                meant = _closest([n for n in network_names().near(name, None, capped=True)
                                  if sriov.serving(n, looked)][:3], name)
                # the namespace it names, kept in the suggestion (the JSON form names it in a field of its own)
                json_form = is_json_form(pod.annotations.get(NETWORKS_ANNOTATION, ""))
                written = "" if json_form else attachment.label.rpartition("/")[0]
                use = " or ".join(f'"{written}/{n}"' if written else f'"{n}"' for n in meant)
                yield Hit(f'{pod.ref.label()} attaches network "{attachment.label}" ({NETWORKS_ANNOTATION}) but no '
                          "SriovNetwork, SriovIBNetwork, OVSNetwork, NetworkAttachmentDefinition or NVIDIA network "
                          "operator network of that name is in the run: Multus cannot find it and the pod stays in "
                          "ContainerCreating",
                          pod.file, pod.annotation_span(NETWORKS_ANNOTATION), pod.ref,
                          Fix(f'correct the annotation (use {use}) or create the network "{attachment.label}"' if meant
                              else f'create the network "{attachment.label}" or correct the annotation' if nameable else
                              f'correct the annotation: no network can be called "{attachment.label}" (names are '
                              "lower-case DNS-1123 labels)"))
            elif _unprovided(sriov, network, analysis.run) and network.resource not in reported:
                reported.add(network.resource)
                yield Hit(f'{pod.ref.label()} attaches network "{attachment.label}", whose resource '
                          f"{network.resource} no SriovNetworkNodePolicy of the run provides: the injected request is "
                          "never satisfied and the pod stays Pending", pod.file,
                          pod.annotation_span(NETWORKS_ANNOTATION), pod.ref,
                          Fix(f"add a SriovNetworkNodePolicy with resourceName "
                              f"{network.resource.split('/', 1)[1]} or correct the network"), "error",
                          (Related(network.doc.file, network.resource_span(), f"{network.ref.label()} names the "
                                                                              "resource"),))
        if not (sriov.policies or sriov.rejected):
            continue
        for container in pod.containers:
            names = {*container.requests, *container.limits}
            for resource in sorted(r for r in names if "/" in r and r.split("/", 1)[0] in sriov.prefixes):
                if resource in provided or resource in reported or not _sriov_resource(sriov, resource) or \
                        sriov.templated_near((SRIOV_POLICY,), resource.split("/", 1)[1], pod.file, analysis.run):
                    continue  # provided, said, not SR-IOV's, or a templated policy near it may provide it
                reported.add(resource)
                yield Hit(f"{container.label} of {pod.ref.label()} requests {resource}, but {NO_PROVIDER}: the pod "
                          "stays Pending", pod.file, pod.span(container.path + ("resources",), key=True), pod.ref,
                          Fix(choices(resource) or "add the SriovNetworkNodePolicy that creates the resource"),
                          "error")


@check("sriov-unused-resource")
def sriov_unused_resource(analysis: Analysis) -> Iterator[Hit]:
    sriov = analysis.sriov
    consumed = {n.resource for nets in sriov.networks.values() for n in nets if n.resource}
    if not consumed or any(is_placeholder(r) for r in consumed):
        return  # a repository of policies alone (its networks live elsewhere), or networks still templates
    for pod in analysis.pods:
        consumed |= pod.resource_names()
    consumed |= analysis.run.elsewhere
    provided = sriov.provided()
    # what networks and pods ask for under the prefix that no policy creates: sriov-unknown-resource reports each,
    # and its fix names the policy's resource when the two are a misspelling apart (the same mistake, said once)
    missing = [n.resource.split("/", 1)[1] for nets in sriov.networks.values() for n in nets
               if _unprovided(sriov, n, analysis.run)]
    missing += [r.split("/", 1)[1] for r in [*(r for pod in analysis.pods for r in pod.resource_names()),
                                             *analysis.run.elsewhere]
                if "/" in r and r.split("/", 1)[0] in sriov.prefixes and r not in provided
                and _sriov_resource(sriov, r)]
    # the policies' names some missing one is close to (each missing name asked once of all policies, not of each)
    names = {policy.resource_name.rsplit("/", 1)[-1] for policy in sriov.policies}
    index = NearResources(names) if missing else None
    meant = {name for wanted in set(missing) for name in index.near(wanted, None)} if index is not None else set()
    reported: set[str] = set()
    for policy in sriov.policies:
        resource = policy.resource
        if resource in consumed or resource in reported or is_placeholder(resource):
            continue
        if policy.resource_name.rsplit("/", 1)[-1] in meant:
            continue
        reported.add(resource)
        yield Hit(f'{policy.ref.label()} creates resource {resource}, but no network or pod of the run uses it: its '
                  "VFs are configured on every selected node and never attached",
                  policy.doc.file, policy.span("resourceName"), policy.ref,
                  Fix("point a SriovNetwork at the resource, or remove the policy if it is left over"))


@check("networks-annotation")
def networks_annotation(analysis: Analysis) -> Iterator[Hit]:
    for pod in analysis.pods:
        if LEGACY_NETWORKS_ANNOTATION in pod.annotations and NETWORKS_ANNOTATION not in pod.annotations:
            # renamed, a value Multus cannot parse would stop the pod (reported under the new key): say so now
            legacy = pod.annotations[LEGACY_NETWORKS_ANNOTATION]
            filled = fill_placeholders(legacy) if isinstance(legacy, str) else None  # None: a {{ }} template
            broken = networks_problem(filled) if filled is not None else None
            yield Hit(f"{pod.ref.label()} names its networks under {LEGACY_NETWORKS_ANNOTATION}, Multus 2's key: "
                      f"Multus 3 and later, and the SR-IOV network resources injector, read only "
                      f"{NETWORKS_ANNOTATION}, so the pod gets none of these networks (nor their VFs)",
                      pod.file, pod.annotation_span(LEGACY_NETWORKS_ANNOTATION, name=True), pod.ref,
                      Fix(f"rename the annotation to {NETWORKS_ANNOTATION}"
                          + (f", and mend its value, which Multus cannot parse: {broken}" if broken else "")),
                      "warning")
        value = pod.annotations.get(NETWORKS_ANNOTATION)
        concrete = fill_placeholders(value) if value is not None else None  # "<name>" in docs, "$NET" in templates
        problem = networks_problem(concrete) if concrete is not None else None
        if problem is None:
            continue
        yield Hit(f"{NETWORKS_ANNOTATION} of {pod.ref.label()} is malformed: {problem}; Multus cannot attach the "
                  "networks, so the pod sandbox fails and the pod never starts",
                  pod.file, pod.annotation_span(NETWORKS_ANNOTATION), pod.ref,
                  Fix('write a comma list (net-a, ns/net-b@eth1) or a JSON list ([{"name": "net-a"}])'))


def _conflict(policy: Policy, message: str, *path: object, fix: str, severity: str | None = None,
              other: Policy | None = None) -> Hit:
    related = (Related(other.doc.file, other.span("resourceName"), f"{other.ref.label()}"),) if other else ()
    return Hit(message, policy.doc.file, policy.span(*path, key=True), policy.ref, Fix(fix), severity, related)


def _pf_conflict(current: Policy, previous: Policy) -> tuple[PFName, str] | None:
    """validatePfNames: the first PF both policies name decides. A different externallyManaged is rejected;
    VF ranges are compared as written, an entry without ``#first-last`` being the range -1..-1, so it never
    overlaps a ranged entry and always overlaps another unranged one."""
    for cur in current.pf_names:
        for pre in previous.pf_names:
            if cur.name != pre.name:
                continue
            if current.externally_managed != previous.externally_managed:
                return cur, "externallyManaged"
            cur_first, cur_last = (cur.first, cur.last) if cur.first is not None and cur.last is not None else (-1, -1)
            pre_first, pre_last = (pre.first, pre.last) if pre.first is not None and pre.last is not None else (-1, -1)
            if cur_last < pre_first or cur_first > pre_last:
                return None
            return cur, "range"
    return None


@check("sriov-policy-conflict", counted=False)
def sriov_policy_conflict(analysis: Analysis) -> Iterator[Hit]:
    """Pairs of policies in input order; only those that can conflict are compared (``PolicyPairs``: thousands
    of policies that share a resource or a PF and agree cost no pair each). A file past the hundred findings a
    report shows of it is closed (``Analysis.shown_per_file``): pairs of two closed files are not compared (their
    findings would not be shown)."""
    policies = [p for p in analysis.sriov.policies if not is_placeholder(p.ref.name + p.resource_name)]
    if len(policies) < 2:
        return
    from numalint.checks.sriov_pairs import PolicyPairs  # here: most runs have no two policies (start-up time)

    pairs = PolicyPairs(policies)
    run = analysis.run
    together: dict[tuple[str, str], bool] = {}  # nearness depends on directories only: worked out once per two
    found: dict[str, int] = {}  # findings per file
    shown = analysis.shown_per_file
    for i, j in pairs:
        first, other = policies[i], policies[j]
        # the webhook skips a policy of the same name (an update of the object, or a copy of it); the pairs share
        # their nodes already (``PolicyPairs``)
        if other.ref.name == first.ref.name:
            continue
        # two operators' policies (the NVIDIA Network Operator's namespace and another): each webhook lists the
        # policies of its own namespace only, so neither compares them
        if other.prefix != first.prefix:
            continue
        # policies in two clusters' trees never meet in one webhook
        directories = (os.path.dirname(first.doc.file), os.path.dirname(other.doc.file))
        if directories not in together:
            together[directories] = run.together(first.doc.file, other.doc.file)
        if not together[directories]:
            continue
        for hit in _unless_webhook_off(_pair(first, other), run, other):
            yield hit
            found[hit.file] = found.get(hit.file, 0) + 1
            # past the ones a report shows and the first it leaves out (where its summary points); a fix's proof
            # wants every one
            if shown is not None and found[hit.file] > shown:
                pairs.close(hit.file)


REJECTS = "the operator webhook rejects the policy"


def _unless_webhook_off(hits: Iterable[Hit], run: Run, policy: Policy) -> Iterator[Hit]:
    """Where the SriovOperatorConfig "default" turns the webhook off, nothing rejects the policy: what the webhook
    would refuse is applied as it comes, one policy overriding another, so it is said so (a warning). Asked only
    of a hit (most pairs of policies yield none)."""
    off: bool | None = None
    for hit in hits:
        if off is None:
            off = unchecked_by_webhook(run, policy.doc)
        if off and REJECTS in hit.message:
            hit.message = hit.message.replace(REJECTS, "the operator webhook would reject the policy, but the "
                                              "SriovOperatorConfig turns it off: the operator applies it as it comes, "
                                              "and what the nodes get is not what the policies say")
            hit.severity = "warning"
        yield hit


def _pair(first: Policy, other: Policy) -> Iterator[Hit]:
    if first.resource == other.resource:  # the prefix too: the NVIDIA operator's nvidia.com/x is another resource
        resource = first.resource_name
        if other.exclude_topology != first.exclude_topology:
            where = "excludeTopology" if "excludeTopology" in (other.doc.root.get("spec") or {}) else "resourceName"
            yield _conflict(other, f'excludeTopology[{str(other.exclude_topology).lower()}] of "{other.ref.name}" '
                                   f'conflicts with policy "{first.ref.name}" (excludeTopology['
                                   f'{str(first.exclude_topology).lower()}]) as they target the same resource '
                                   f'"{resource}": the operator webhook rejects the policy', where,
                            fix="use the same excludeTopology in every policy of the resource", other=first)
        if other.device_type != first.device_type:
            yield _conflict(other, f'"{other.ref.name}" (deviceType {other.device_type}) and "{first.ref.name}" '
                                   f'(deviceType {first.device_type}) share resourceName "{resource}": the operator '
                                   "accepts it and the device plugin then advertises netdevice and vfio-pci VFs as one "
                                   "resource, so a pod gets whichever VF is free (a DPDK application may receive "
                                   "a kernel-bound VF, a netdevice network a vfio-pci VF) and its attachment or "
                                   "application fails", "deviceType" if "deviceType" in (
                                       other.doc.root.get("spec") or {}) else "resourceName",
                            fix="give each deviceType its own resourceName (and network)", severity="warning",
                            other=first)
    for current, previous in ((other, first), (first, other)):
        found = _pf_conflict(current, previous)
        if found is None:
            continue
        pf, reason = found
        if reason == "externallyManaged":
            message = (f'"{current.ref.name}" and "{previous.ref.name}" both configure PF {pf.name} but disagree on '
                       "externallyManaged: the operator webhook rejects the policy (externallyManage is "
                       "inconsistent with existing policy)")
            fix = "use the same externallyManaged in every policy of the PF"
        else:
            message = (f'VF index range in "{pf.raw}" of "{current.ref.name}" is overlapped with existing policy '
                       f'"{previous.ref.name}" on PF {pf.name}: the operator webhook rejects the policy'
                       + (" (two entries without #first-last count as the same range)" if pf.first is None else ""))
            fix = "give each policy a disjoint #first-last range on the PF"
        yield Hit(message, current.doc.file, current.span("nicSelector", "pfNames", pf.index), current.ref, Fix(fix),
                  None, (Related(previous.doc.file, previous.span("nicSelector", "pfNames"),
                                 f"{previous.ref.label()}"),))
        return  # the webhook reports one of the two directions, and stops at the first conflict
    # validateRootDevices (after validatePfNames): one root device in two policies, whatever their VFs
    shared = next((index for index, device in enumerate(other.root_devices) if device in first.root_devices), None)
    if shared is not None:
        device = other.root_devices[shared]
        message = (f'root device {device} of "{other.ref.name}" is overlapped with existing policy '
                   f'"{first.ref.name}": the operator webhook rejects the policy (by rootDevices a PF is configured '
                   "by one policy only; VF index ranges exist for pfNames)")
        fix = 'configure the PF in one policy, or select it by pfNames with disjoint "<pf>#first-last" ranges in each'
        yield Hit(message, other.doc.file, other.span("nicSelector", "rootDevices", shared), other.ref, Fix(fix), None,
                  (Related(first.doc.file, first.span("nicSelector", "rootDevices"), f"{first.ref.label()}"),))


INTEL, MELLANOX = "8086", "15b3"
MLX_MAX_VFS = 128  # pkg/webhook/validate.go MlxMaxVFs


def _selected_topologies(analysis: Analysis, policy: Policy) -> list[TopologyView]:
    """The topologies of the pools the policy's nodeSelector picks. A pool declares only some of its nodes' labels:
    one it declares with another value rules it out, one it declares alike picks it, a key it does not declare
    (feature.node.kubernetes.io/network-sriov.capable) tells nothing; the pools it picks, else those it does not
    rule out."""
    picked: list[TopologyView] = []
    possible: list[TopologyView] = []
    for pool in analysis.pools:
        if pool.topology is None:
            continue
        declared = [(key, value) for key, value in policy.node_selector.items() if key in pool.node_labels]
        if any(pool.node_labels[key] != value for key, value in declared):
            continue
        (picked if declared else possible).append(pool.topology)
    return picked or possible


def _vf_limits(analysis: Analysis, policy: Policy) -> Iterator[tuple[TopologyView, NIC, int]]:
    """(topology, PF, the most VFs the policy can create on it) for the PFs the policy selects on the nodes its
    nodeSelector picks (validatePolicyForNodeState): 128 on a Mellanox PF where the webhook checks it (the operator
    sets the firmware to numVfs), else its totalVfs (the webhook checks it on an Intel PF, the kernel on any)."""
    webhook: bool | None = None
    for topo in _selected_topologies(analysis, policy):
        for nic in policy.nics_of(topo):
            if policy.range_on(nic) is False:
                continue
            if nic.vendor.lower() == MELLANOX:
                if webhook is None:  # asked once, and only where it matters
                    webhook = not unchecked_by_webhook(analysis.run, policy.doc)
                if webhook:
                    yield topo, nic, MLX_MAX_VFS
                    continue
            if nic.total_vfs:
                yield topo, nic, nic.total_vfs


def _range_fix(analysis: Analysis, policy: Policy, pf: PFName) -> str:
    """Ranges that would pass the webhook: the entry's own VFs (in order) cut below numVfs, or numVfs raised
    to hold them where no PF of the run's topologies that the policy selects has fewer VFs. A numVfs above what
    a selected PF supports is itself an error (its fix lowers it), so the range is cut below that too: the two
    fixes hold together."""
    assert pf.first is not None and pf.last is not None
    low, high = min(pf.first, pf.last), max(pf.first, pf.last)
    totals = [most for _topo, _nic, most in _vf_limits(analysis, policy)]
    cap = min([policy.num_vfs, *totals])  # the most VFs a valid numVfs gives
    options = []
    if low < cap:
        options.append(f"use {pf.name}#{low}-{min(high, cap - 1)}")
    if high >= policy.num_vfs and all(high < total for total in totals):
        options.append(f"raise numVfs to {high + 1}")
    elif not options:
        options.append(f"use a range below numVfs {cap}, such as {pf.name}#0-{max(cap - 1, 0)}")
    return " or ".join(options)


@check("sriov-numvfs")
def sriov_numvfs(analysis: Analysis) -> Iterator[Hit]:
    sriov = analysis.sriov
    for policy in sriov.policies:
        for pf in policy.pf_names:
            if pf.first is None or pf.last is None:
                continue
            if pf.first > pf.last or pf.last >= policy.num_vfs:
                what = ("starts after its end" if pf.first > pf.last
                        else f"reaches past numVfs {policy.num_vfs}")
                yield from _unless_webhook_off([Hit(
                    f'pfNames entry "{pf.raw}" of "{policy.ref.name}" {what} (VF ids are 0..{policy.num_vfs - 1}; '
                    f"the range must start at or before its end and end below numVfs): {REJECTS}",
                    policy.doc.file, policy.span("nicSelector", "pfNames", pf.index), policy.ref,
                    Fix(_range_fix(analysis, policy, pf)))], analysis.run, policy)
        # one finding for the policy's numVfs, naming every PF it exceeds (one per PF repeated the same fix)
        over: dict[str, str] = {}
        cap = policy.num_vfs
        checked = False  # the webhook checks Intel and Mellanox PFs; on others the kernel refuses the count
        for topo, nic, most in _vf_limits(analysis, policy):
            if policy.num_vfs > most and nic.pci_address not in over:
                checked = checked or nic.vendor.lower() in (INTEL, MELLANOX)
                what = f"the {most} VFs PF {nic.interface or nic.pci_address} supports" if most == nic.total_vfs \
                    else f"the {most} VFs the webhook allows on a Mellanox PF ({nic.interface or nic.pci_address})"
                over[nic.pci_address] = f'{what} (topology "{topo.name}")'
                cap = min(cap, most)
        if over:
            # a pfNames range past the new numVfs is refused in turn (sriov-numvfs): cut it in the same edit
            beyond = [f"{pf.name}#{min(pf.first, pf.last)}-{cap - 1}" for pf in policy.pf_names
                      if pf.first is not None and pf.last is not None and max(pf.first, pf.last) >= cap
                      and min(pf.first, pf.last) < cap]
            kernel = ("the kernel refuses more VFs than the PF's sriov_totalvfs, so the operator cannot configure "
                      "the node")
            consequence = REJECTS if checked and not unchecked_by_webhook(analysis.run, policy.doc) else kernel
            yield Hit(f'numVfs {policy.num_vfs} of "{policy.ref.name}" is above {" and ".join(over.values())}: '
                      f"{consequence}", policy.doc.file, policy.span("numVfs"), policy.ref,
                      Fix(f"set numVfs to at most {cap}" + (f", and pfNames to {', '.join(beyond)}" if beyond else "")))
