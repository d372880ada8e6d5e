"""SR-IOV checks: unknown networks and resources, conflicting policies, VF counts (sriov-network-operator api/v1 and
its webhook)."""

from __future__ import annotations

from collections.abc import Iterator

from numalint.analysis import Analysis
from numalint.checks.registry import check
from numalint.findings import Fix, Hit
from numalint.model.sriov import NETWORKS_ANNOTATION, PFName, Policy


@check("sriov-unknown-resource")
def sriov_unknown_resource(analysis: Analysis) -> Iterator[Hit]:
    sriov = analysis.sriov
    if not sriov.present:
        return
    known = sriov.resources()
    prefixes = {r.split("/", 1)[0] for r in known} | {sriov.prefix}
    for pod in analysis.pods:
        _, unknown = sriov.network_resources(pod)
        for name in unknown:
            yield Hit(f'{pod.ref.label()} attaches network "{name}" ({NETWORKS_ANNOTATION}) but no SriovNetwork or '
                          "NetworkAttachmentDefinition of that name is in the run: the pod stays in "
                          "ContainerCreating", pod.file, pod.anchor(), pod.ref,
                          Fix(f'create the network "{name}" or correct the annotation'))
        for container in pod.containers:
            for resource in sorted(set(container.requests) | set(container.limits)):
                if "/" in resource and resource.split("/", 1)[0] in prefixes and resource not in known \
                        and resource.split("/", 1)[0] in {r.split("/", 1)[0] for r in known}:
                    yield Hit(f'{container.label} of {pod.ref.label()} requests {resource}, which no '
                                  "SriovNetworkNodePolicy, SriovNetwork or NetworkAttachmentDefinition in the run "
                                  "provides: the pod stays Pending",
                                  pod.file, pod.span(container.path + ("resources",), key=True), pod.ref,
                                  Fix(f"use one of {', '.join(sorted(known))}"))


def _conflict(policy: Policy, message: str, *path: object, fix: str) -> Hit:
    return Hit(message, policy.doc.file, policy.span(*path, key=True), policy.ref,
                   Fix(fix))


@check("sriov-policy-conflict")
def sriov_policy_conflict(analysis: Analysis) -> Iterator[Hit]:
    policies = analysis.sriov.policies
    by_resource: dict[str, list[Policy]] = {}
    for policy in policies:
        by_resource.setdefault(policy.resource_name, []).append(policy)
    for resource, group in by_resource.items():
        first = group[0]
        for other in group[1:]:
            if other.exclude_topology != first.exclude_topology:
                yield _conflict(other, f'policies for resourceName "{resource}" disagree on excludeTopology '
                                       f'("{first.ref.name}": {str(first.exclude_topology).lower()}, '
                                       f'"{other.ref.name}": {str(other.exclude_topology).lower()}): the operator '
                                       "webhook rejects it", "excludeTopology" if other.doc.root.get("spec", {}).get(
                                           "excludeTopology") is not None else "resourceName",
                                fix="use the same excludeTopology in every policy of the resource")
            if other.device_type != first.device_type:
                yield _conflict(other, f'policies for resourceName "{resource}" disagree on deviceType '
                                       f'("{first.ref.name}": {first.device_type}, "{other.ref.name}": '
                                       f"{other.device_type}): one resource would mix netdevice and vfio-pci VFs",
                                "resourceName", fix="use one deviceType per resourceName")
    for i, policy in enumerate(policies):
        for other in policies[i + 1:]:
            for pf in policy.pf_names:
                for opf in other.pf_names:
                    if pf.name != opf.name or not _overlap(policy, pf, other, opf):
                        continue
                    if not (policy.node_selector == other.node_selector or not policy.node_selector
                            or not other.node_selector):
                        continue
                    yield _conflict(other, f'VF range "{opf.raw}" of "{other.ref.name}" overlaps "{pf.raw}" of '
                                           f'"{policy.ref.name}" on PF {pf.name}: the operator rejects overlapping '
                                           "ranges", "nicSelector", "pfNames",
                                    fix="give each policy a disjoint #first-last range on the PF")


def _overlap(a: Policy, pa: object, b: Policy, pb: object) -> bool:

    assert isinstance(pa, PFName) and isinstance(pb, PFName)
    ra = (pa.first, pa.last) if pa.first is not None and pa.last is not None else (0, max(a.num_vfs - 1, 0))
    rb = (pb.first, pb.last) if pb.first is not None and pb.last is not None else (0, max(b.num_vfs - 1, 0))
    if pa.first is None and pb.first is None:
        return False  # whole-PF policies: the lowest priority number wins, not a conflict
    return ra[0] <= rb[1] and rb[0] <= ra[1]


@check("sriov-numvfs")
def sriov_numvfs(analysis: Analysis) -> Iterator[Hit]:
    sriov = analysis.sriov
    for policy in sriov.policies:
        for pf in policy.pf_names:
            if pf.first is None or pf.last is None:
                continue
            if pf.first > pf.last or pf.last >= policy.num_vfs:
                yield Hit(f'pfNames entry "{pf.raw}" of "{policy.ref.name}" reaches past numVfs {policy.num_vfs} '
                              f"(VF ids are 0..{policy.num_vfs - 1}; the range must end below numVfs"
                              + (" and start at or before its end" if pf.first > pf.last else "") + ")",
                              policy.doc.file, policy.span("nicSelector", "pfNames", pf.index), policy.ref,
                              Fix(f"use #{pf.first}-{max(policy.num_vfs - 1, 0)} or raise numVfs to {pf.last + 1}"))
        reported = set()
        for topo in analysis.run.topologies:
            for nic in topo.nics:
                if nic.total_vfs and policy.range_on(nic) is not False and policy.num_vfs > nic.total_vfs \
                        and nic.pci_address not in reported:
                    reported.add(nic.pci_address)
                    yield Hit(f'numVfs {policy.num_vfs} of "{policy.ref.name}" is above the {nic.total_vfs} VFs '
                                  f"PF {nic.interface or nic.pci_address} supports (topology \"{topo.name}\"): the "
                                  "operator webhook rejects the policy", policy.doc.file, policy.span("numVfs"),
                                  policy.ref, Fix(f"set numVfs to at most {nic.total_vfs}"))
