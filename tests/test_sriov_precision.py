"""SR-IOV precision (issue 11): what the operator, its webhook and Multus really do, through the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run, write

NS = "openshift-sriov-network-operator"


def policy(name: str, resource: str, pfs: str = "[ens1f0]", extra: str = "",
           selector: str = '{node-role.kubernetes.io/worker: ""}') -> str:
    return f"""apiVersion: sriovnetwork.openshift.io/v1
kind: SriovNetworkNodePolicy
metadata: {{name: {name}, namespace: {NS}}}
spec:
  resourceName: {resource}
  nodeSelector: {selector}
  numVfs: 8
  nicSelector: {{pfNames: {pfs}}}
{extra}"""


def network(name: str, resource: str, kind: str = "SriovNetwork") -> str:
    return f"""apiVersion: sriovnetwork.openshift.io/v1
kind: {kind}
metadata: {{name: {name}, namespace: {NS}}}
spec:
  networkNamespace: ran
  resourceName: {resource}
"""


def pod(networks: str, name: str = "du", limits: str = '{cpu: "4", memory: 4Gi}') -> str:
    return f"""apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: ran
  annotations:
    k8s.v1.cni.cncf.io/networks: {networks}
spec:
  containers:
    - name: du
      resources:
        limits: {limits}
"""


def findings(tmp_path: Path, files: dict[str, str], rule: str | None = None) -> list[dict[str, Any]]:
    write(tmp_path, files)
    result = run("check", "--format", "json", str(tmp_path))
    assert "Traceback" not in result.stderr
    found = result.json()["findings"]
    return [f for f in found if rule is None or f["rule"] == rule]


def where(found: list[dict[str, Any]]) -> list[str]:
    return sorted(f"{Path(f['file']).name}:{f['line']}:{f['column']}:{f['severity']}" for f in found)


# --- policy conflicts -------------------------------------------------------------------------------------------

def test_a_policy_and_its_copy_are_one_object(tmp_path: Path) -> None:
    fh = policy("fh", "fh", '["ens1f0#0-3"]')
    found = findings(tmp_path, {"a/policy.yaml": fh, "b/policy.yaml": fh, "c/all.yaml": fh + "---\n" + fh})
    assert not [f for f in found if f["rule"] in ("sriov-policy-conflict", "duplicate-object")]


def test_policies_of_the_same_name_are_never_compared(tmp_path: Path) -> None:
    # the same policy without its namespace (applied with -n): the webhook skips a policy of the same name
    bare = policy("fh", "fh", '["ens1f0#0-3"]').replace(f", namespace: {NS}", "")
    assert not findings(tmp_path, {"a.yaml": policy("fh", "fh", '["ens1f0#0-3"]'), "b.yaml": bare},
                        "sriov-policy-conflict")


def test_device_type_mismatch_is_a_warning_with_its_consequence(tmp_path: Path) -> None:
    files = {"p.yaml": policy("fh-dpdk", "fh", extra="  deviceType: vfio-pci\n") + "---\n"
             + policy("fh-kernel", "fh", "[ens1f1]", "  deviceType: netdevice\n")}
    found = findings(tmp_path, files, "sriov-policy-conflict")
    assert where(found) == ["p.yaml:19:3:warning"]
    assert "the operator accepts it" in found[0]["message"] and "whichever VF is free" in found[0]["message"]
    assert "rejects" not in found[0]["message"]


def test_unranged_pf_entry_does_not_overlap_a_ranged_one(tmp_path: Path) -> None:
    files = {"p.yaml": policy("whole", "a", "[ens1f0]") + "---\n" + policy("part", "b", '["ens1f0#0-3"]')}
    assert not findings(tmp_path, files, "sriov-policy-conflict")


def test_what_the_webhook_rejects_on_a_shared_pf(tmp_path: Path) -> None:
    files = {
        "ranges.yaml": policy("a", "a", '["ens1f0#0-3"]') + "---\n" + policy("b", "b", '["ens1f0#2-7"]'),
        "unranged.yaml": policy("c", "c", "[ens2f0]") + "---\n" + policy("d", "d", "[ens2f0]"),
        "external.yaml": policy("e", "e", '["ens3f0#0-3"]', "  externallyManaged: true\n") + "---\n"
        + policy("f", "f", '["ens3f0#4-7"]'),
    }
    found = findings(tmp_path, files, "sriov-policy-conflict")
    assert where(found) == ["external.yaml:18:27:error", "ranges.yaml:17:27:error", "unranged.yaml:17:27:error"]
    messages = " ".join(f["message"] for f in found)
    assert "externallyManaged" in messages and "is overlapped with existing policy" in messages


@pytest.mark.parametrize(("first", "second", "conflict"), [
    ('["ens1f0#3-0"]', '["ens1f0#2-2"]', False),  # compared as written (the backwards range is its own finding)
    ('["ens1f0#0-3"]', '["ens1f0#7-2"]', False),
    ('["ens1f0#0-1", "ens1f0#4-5"]', '["ens1f0#5-6"]', False),  # the first entry of the PF decides, as the webhook
    ('["ens1f0#4-5", "ens1f0#0-1"]', '["ens1f0#5-6"]', True),
    ('["ens1f0", "ens1f0#0-1"]', '["ens1f0#0-3"]', False),  # an unranged entry first: it overlaps no range
    ('["ens2f0", "ens1f0#0-1"]', '["ens1f0#1-3"]', True),  # another PF first: the shared PF's entry decides
])
def test_which_vf_ranges_on_one_pf_the_webhook_rejects(tmp_path: Path, first: str, second: str,
                                                      conflict: bool) -> None:
    # only pairs that can conflict are compared now (by partition and sorted ranges): none of these may be missed
    files = {"p.yaml": policy("a", "a", first) + "---\n" + policy("b", "b", second)}
    assert len(findings(tmp_path, files, "sriov-policy-conflict")) == int(conflict)


def test_a_file_past_the_findings_shown_stops_only_itself(tmp_path: Path) -> None:
    # 20 policies on the same VFs: 190 pairs, of which the report shows a hundred, then "… and more" (not counted:
    # the check stops comparing pairs of that file there); a later file whose policy overlaps all of them still
    # gets each of its 20 findings, and a file of 91 has them all
    same = "---\n".join(policy(f"p{i}", f"r{i}", '["ens1f0#0-3"]') for i in range(20))
    files = {"a.yaml": same, "b.yaml": policy("late", "late", '["ens1f0#3-5"]'),
             "c.yaml": "---\n".join(policy(f"q{i}", f"s{i}", '["ens2f0#0-3"]') for i in range(14))}
    found = findings(tmp_path, files, "sriov-policy-conflict")
    in_a = [f for f in found if f["file"].endswith("a.yaml")]
    [summary] = [f for f in in_a if f["message"].startswith("… and more sriov-policy-conflict finding(s)")]
    shown = [f for f in in_a if f is not summary]
    # the first hundred pairs in input order, each found on its later policy and listed by line; the summary is
    # where the first pair not shown would be
    pairs = [(i, j) for i in range(20) for j in range(i + 1, 20)]
    assert [(f["message"].split('"')[3], f["message"].split('"')[5]) for f in shown] == [
        (f"p{j}", f"p{i}") for i, j in sorted(pairs[:100], key=lambda pair: (pair[1], pair[0]))]
    assert summary["line"] == next(f["line"] for f in shown if f'of "p{pairs[100][1]}"' in f["message"])
    assert len([f for f in found if f["file"].endswith("b.yaml")]) == 20
    assert len([f for f in found if f["file"].endswith("c.yaml")]) == 91


def test_a_fix_is_proven_on_every_conflict_of_a_file_past_the_findings_shown(tmp_path: Path) -> None:
    # the report stops comparing a file's pairs past the hundred it shows; a fix's proof compares them all, so the
    # rename that makes two policies of one resource disagree on excludeTopology is still refused (found by review)
    same = [policy(f"p{i}", f"r{i}", '["ens1f0#0-3"]') for i in range(15)]  # 105 conflicts
    files = {"a.yaml": "---\n".join([*same, policy("p15", "rx", '["ens2f0#0-1"]', "  excludeTopologi: true\n"),
                                     policy("p16", "rx", '["ens2f0#2-3"]')])}
    [unknown] = findings(tmp_path, files, "unknown-field")
    assert unknown["fix"]["safety"] == "display" and 'it would bring a new error (sriov-policy-conflict: ' \
        'excludeTopology[false] of "p16" conflicts with policy "p15"' in unknown["fix"]["description"]


def test_policies_on_disjoint_nodes_are_not_compared(tmp_path: Path) -> None:
    files = {"p.yaml": policy("a", "fh", extra="  excludeTopology: true\n", selector="{kubernetes.io/hostname: n1}")
             + "---\n" + policy("b", "fh", selector="{kubernetes.io/hostname: n2}")}
    assert not findings(tmp_path, files, "sriov-policy-conflict")
    files = {"p.yaml": policy("a", "fh", extra="  excludeTopology: true\n") + "---\n" + policy("b", "fh", "[ens1f1]")}
    found = findings(tmp_path, files, "sriov-policy-conflict")
    assert [f["severity"] for f in found] == ["error"] and "excludeTopology" in found[0]["message"]


# --- networks the operator renders ------------------------------------------------------------------------------

def test_ovs_and_infiniband_networks_are_networks(tmp_path: Path) -> None:
    files = {"p.yaml": policy("fh", "fh") + "---\n" + policy("ib", "ib", "[ibs1]"),
             "n.yaml": network("ovs-net", "fh", "OVSNetwork") + "---\n" + network("ib-net", "ib", "SriovIBNetwork"),
             "pod.yaml": pod("ovs-net, ib-net")}
    found = findings(tmp_path, files)
    assert not [f for f in found if f["rule"].startswith("sriov")], found


def test_a_network_without_resource_name_is_still_known(tmp_path: Path) -> None:
    files = {"n.yaml": network("plain", "x").replace("  resourceName: x\n", ""), "pod.yaml": pod("plain")}
    assert not findings(tmp_path, files, "sriov-unknown-resource")


# --- resources nothing provides ---------------------------------------------------------------------------------

def test_a_network_whose_resource_no_policy_provides(tmp_path: Path) -> None:
    files = {"p.yaml": policy("fh", "fh"), "n.yaml": network("mh-net", "mh") + "---\n" + network("fh-net", "fh"),
             "pod.yaml": pod("fh-net, mh-net")}
    found = findings(tmp_path, files, "sriov-unknown-resource")
    assert where(found) == ["n.yaml:6:17:error", "pod.yaml:7:34:error"]
    assert "no SriovNetworkNodePolicy of the run provides it" in found[0]["message"]
    assert found[1]["related"][0]["file"].endswith("n.yaml")


def test_a_network_never_provides_its_own_resource(tmp_path: Path) -> None:
    files = {"p.yaml": policy("fh", "fh"), "n.yaml": network("mh-net", "mh"),
             "pod.yaml": pod("fh-net", limits='{cpu: "4", memory: 4Gi, openshift.io/mh: "1"}').replace(
                 "fh-net", "[]")}
    found = findings(tmp_path, files, "sriov-unknown-resource")
    assert where(found) == ["n.yaml:6:17:error", "pod.yaml:11:7:error"]


def test_without_policies_the_run_is_partial_and_quiet(tmp_path: Path) -> None:
    files = {"n.yaml": network("mh-net", "mh"), "pod.yaml": pod("mh-net", limits='{openshift.io/other: "1"}')}
    assert not findings(tmp_path, files, "sriov-unknown-resource")


def test_a_policy_nothing_uses_is_info_and_only_beside_networks(tmp_path: Path) -> None:
    files = {"p.yaml": policy("fh", "fh") + "---\n" + policy("bh", "bh", "[ens1f1]"), "n.yaml": network("fh-net", "fh")}
    found = findings(tmp_path, files, "sriov-unused-resource")
    assert where(found) == ["p.yaml:14:17:info"]
    (tmp_path / "n.yaml").unlink()
    assert not findings(tmp_path, {}, "sriov-unused-resource")


def test_a_resource_requested_by_a_pod_is_used(tmp_path: Path) -> None:
    files = {"p.yaml": policy("fh", "fh") + "---\n" + policy("bh", "bh", "[ens1f1]"), "n.yaml": network("fh-net", "fh"),
             "pod.yaml": pod("fh-net", limits='{cpu: "4", memory: 4Gi, openshift.io/bh: "1"}')}
    assert not findings(tmp_path, files, "sriov-unused-resource")


# --- the networks annotation ------------------------------------------------------------------------------------

def test_unknown_network_points_at_the_annotation_once(tmp_path: Path) -> None:
    files = {"n.yaml": network("fh-net", "fh"), "pod.yaml": pod("fh-nett, fh-nett,fh-net")}
    found = findings(tmp_path, files, "sriov-unknown-resource")
    assert where(found) == ["pod.yaml:7:34:warning"] and '"fh-nett"' in found[0]["message"]


def test_malformed_networks_annotation(tmp_path: Path) -> None:
    bad = {"trailing.yaml": pod("fh-net, mh-net,", "a"),
           "truncated.yaml": pod("'[{\"name\": \"fh-net\"'", "b"),
           "object.yaml": pod("'{\"name\": \"fh-net\"}'", "c"),
           "slashes.yaml": pod("a/b/c", "d")}
    found = findings(tmp_path, bad, "networks-annotation")
    assert where(found) == [f"{n}:7:34:error" for n in sorted(bad)]
    assert "trailing comma" in next(f["message"] for f in found if f["file"].endswith("trailing.yaml"))


def test_well_formed_networks_annotations(tmp_path: Path) -> None:
    good = {"list.yaml": pod("fh-net, ran/mh-net@net2", "a"),
            "json.yaml": pod("'[{\"name\": \"fh-net\", \"interface\": \"net1\"}]'", "b"),
            "folded.yaml": pod("'[\n      {\"name\": \"fh-net\"}\n      ]'", "c")}
    good["template.yaml"] = pod("'${SRIOVNETNAME}'", "d")  # an OpenShift Template / envsubst variable
    found = findings(tmp_path, good)
    assert not [f for f in found if f["rule"] in ("networks-annotation", "duplicate-object", "sriov-unknown-resource")]


# --- schema and unknown fields ----------------------------------------------------------------------------------

def test_integer_fields_of_a_network(tmp_path: Path) -> None:
    text = network("fh-net", "fh") + '  vlan: ""\n  vlanQoS: ""\n  minTxRate: ""\n  maxTxRate: ""\n'
    found = findings(tmp_path, {"n.yaml": text}, "schema")
    assert [f["message"].split(":")[0] for f in found] == ["spec.vlan", "spec.vlanQoS", "spec.minTxRate",
                                                          "spec.maxTxRate"]


def test_unknown_fields_of_policies_and_networks(tmp_path: Path) -> None:
    text = policy("fh", "fh").replace("nicSelector: {pfNames: [ens1f0]}", "nicSelector: {pfName: [ens1f0]}") \
        + "  excludeTopolgy: true\n---\n" + network("fh-net", "fh") + '  spoofchk: "on"\n'
    found = findings(tmp_path, {"s.yaml": text}, "unknown-field")
    assert where(found) == sorted(["s.yaml:8:17:error", "s.yaml:9:3:warning", "s.yaml:17:3:warning"])
    found.sort(key=lambda f: f["line"])
    assert 'did you mean "pfNames"' in found[0]["message"] and "webhook rejects the policy" in found[0]["message"]
    assert 'did you mean "excludeTopology"' in found[1]["message"] and 'did you mean "spoofChk"' in found[2]["message"]
    result = run("fix", str(tmp_path))
    assert "Traceback" not in result.stderr
    fixed = (tmp_path / "s.yaml").read_text()
    assert "pfNames: [ens1f0]" in fixed and "excludeTopology: true" in fixed and 'spoofChk: "on"' in fixed
    assert not findings(tmp_path, {}, "unknown-field")


def test_a_scalar_pf_name_gets_no_blind_rename(tmp_path: Path) -> None:
    text = policy("fh", "fh").replace("nicSelector: {pfNames: [ens1f0]}", "nicSelector: {pfName: ens1f0}")
    found = findings(tmp_path, {"s.yaml": text}, "unknown-field")
    assert len(found) == 1 and not found[0]["fix"].get("edits")


# --- alignment intent -------------------------------------------------------------------------------------------

def test_exclude_topology_network_asks_for_no_alignment(tmp_path: Path) -> None:
    burstable = '{cpu: "4", memory: 4Gi}'
    files = {"p.yaml": policy("fh", "fh", extra="  excludeTopology: true\n"), "n.yaml": network("fh-net", "fh"),
             "pod.yaml": pod("fh-net", limits=burstable).replace("limits:", "requests: {cpu: '2'}\n        limits:")}
    assert not findings(tmp_path, files, "not-guaranteed")
    files["p.yaml"] = policy("fh", "fh")
    assert findings(tmp_path, files, "not-guaranteed")


# --- templates and alternatives in one repository -----------------------------------------------------------------

def test_policies_without_node_selector_are_templates_not_conflicts(tmp_path: Path) -> None:
    # reference profiles leave `nodeSelector:` to be filled in (null): the API server refuses them as they are
    files = {"single.yaml": policy("du-fh", "du_fh", selector="").replace("nodeSelector: ", "nodeSelector:"),
             "dual.yaml": policy("du-fh-n0", "du_fh_n0", selector="").replace("nodeSelector: ", "nodeSelector:")}
    assert not findings(tmp_path, files, "sriov-policy-conflict")


def test_template_variables_are_not_names(tmp_path: Path) -> None:
    source_cr = policy("$name", "$resourceName", extra='  deviceType: $deviceType\n').replace(
        "numVfs: 8", "numVfs: $numVfs") + "---\n" + network("$name", "$resourceName")
    found = findings(tmp_path, {"p.yaml": policy("fh", "fh"), "source-crs.yaml": source_cr,
                                "pod.yaml": pod("$network")})
    assert not [f for f in found if f["rule"].startswith("sriov") or f["rule"] == "schema"], found


def test_resource_name_characters_the_webhook_refuses(tmp_path: Path) -> None:
    found = findings(tmp_path, {"p.yaml": policy("vm", "intel-vf")}, "schema")
    assert where(found) == ["p.yaml:5:17:error"] and "webhook rejects it" in found[0]["message"]


def test_shell_and_openshift_template_variables(tmp_path: Path) -> None:
    text = policy("mlx-$DIR", "mlxnic_$DIR", "['${INTERFACE}']", "  mtu: ${SRIOV_MTU}\n").replace(
        "numVfs: 8", 'numVfs: "${{NUMVFS}}"')
    found = findings(tmp_path, {"p.yaml": text})
    assert not [f for f in found if f["rule"] in ("schema", "sriov-policy-conflict")], found


def test_documentation_placeholders(tmp_path: Path) -> None:
    text = policy("<policy_name>", "<sriov_resource_name>", "['<pf_name>']", "  mtu: <mtu>\n") + "---\n" + network(
        "<network_name>", "<sriov_resource_name>")
    found = findings(tmp_path, {"p.yaml": policy("fh", "fh"), "doc.yaml": text, "pod.yaml": pod("<network_name>")})
    assert not [f for f in found if f["rule"].startswith("sriov") or f["rule"] in ("schema", "networks-annotation")]


def test_placeholders_do_not_hide_a_broken_annotation(tmp_path: Path) -> None:
    # a documentation example: the placeholder is filled in, the trailing comma in the JSON object stays
    found = findings(tmp_path, {"pod.yaml": pod("'[{\"name\": \"<sriov_network_name>\",}]'")}, "networks-annotation")
    assert where(found) == ["pod.yaml:7:34:error"] and "not valid JSON" in found[0]["message"]


def test_intent_reads_what_a_broken_annotation_meant(tmp_path: Path) -> None:
    files = {"p.yaml": policy("fh", "fh", extra="  excludeTopology: true\n"), "n.yaml": network("fh-net", "fh"),
             "pod.yaml": pod("'[{\"name\": \"fh-net\",}]'", limits='{cpu: "4"}')}
    found = findings(tmp_path, files)
    assert [f["rule"] for f in found if f["rule"] in ("networks-annotation", "not-guaranteed")] == [
        "networks-annotation"]


def test_a_pruned_pf_selector_widens_the_policy(tmp_path: Path) -> None:
    text = policy("fh", "fh").replace("nicSelector: {pfNames: [ens1f0]}",
                                      'nicSelector: {vendor: "8086", pfName: [ens1f0]}')
    found = findings(tmp_path, {"s.yaml": text}, "unknown-field")
    assert [f["severity"] for f in found] == ["warning"]
    assert "configures every NIC the rest of spec.nicSelector matches" in found[0]["message"]


def test_a_chosen_prefix_is_shared_with_other_device_plugins(tmp_path: Path) -> None:
    """Under sriovResourcePrefix nvidia.com, the GPU plugin's nvidia.com/gpu and a NicClusterPolicy's
    nvidia.com/hostdev are not SR-IOV resources a policy must create; a near miss of a policy's name is."""
    limits = '{cpu: "8", memory: 32Gi, nvidia.com/gpu: 1, nvidia.com/hostdev: 1, nvidia.com/mlnxnics: 1}'
    files = {".numalint.yaml": "sriovResourcePrefix: nvidia.com\n", "policy.yaml": policy("ib", "mlnxnics"),
             "train.yaml": pod("[]", "train", limits)}
    assert findings(tmp_path / "custom", files, "sriov-unknown-resource") == []
    files["train.yaml"] = pod("[]", "train", '{cpu: "8", memory: 32Gi, nvidia.com/gpu: 1, nvidia.com/mlnxnic: 1}')
    found = findings(tmp_path / "custom", files, "sriov-unknown-resource")
    assert [f["message"].split(" requests ")[1].split(",")[0] for f in found] == ["nvidia.com/mlnxnic"]
    assert found[0]["fix"]["description"] == 'use "nvidia.com/mlnxnics"'
    # under the operator's own prefix nothing else names resources: any unprovided one is reported
    files = {"policy.yaml": policy("p", "mlxnics"),
             "train.yaml": pod("[]", "train", '{cpu: "8", memory: 8Gi, openshift.io/other: 1}')}
    assert len(findings(tmp_path / "default", files, "sriov-unknown-resource")) == 1


def test_the_fix_of_an_operator_network_names_the_bare_resource(tmp_path: Path) -> None:
    """SriovNetwork.spec.resourceName is the policy's resourceName: the operator adds the prefix itself
    (openshift.io/openshift.io/mlxnics would never be advertised)."""
    found = findings(tmp_path, {"policy.yaml": policy("p", "mlxnics"), "net.yaml": network("net", "mlxnic")},
                     "sriov-unknown-resource")
    assert [f["fix"]["description"] for f in found] == ['correct resourceName (use "mlxnics") or add the '
                                                        "SriovNetworkNodePolicy"]


def test_nvidia_network_operator_networks_are_attachable(tmp_path: Path) -> None:
    """A HostDeviceNetwork (mellanox.com/v1alpha1) renders a NetworkAttachmentDefinition of its name: Multus
    finds it."""
    hostdev = ("apiVersion: mellanox.com/v1alpha1\nkind: HostDeviceNetwork\nmetadata:\n  name: hostdev-net\n"
               "spec:\n  networkNamespace: ran\n  resourceName: hostdev\n")
    files = {"policy.yaml": policy("p", "mlxnics"), "hostdev.yaml": hostdev, "du.yaml": pod("hostdev-net")}
    assert findings(tmp_path, files, "sriov-unknown-resource") == []
    files["du.yaml"] = pod("other-net")
    assert len(findings(tmp_path, files, "sriov-unknown-resource")) == 1


def test_only_resources_close_to_the_missing_one_are_suggested(tmp_path: Path) -> None:
    """A network of an Intel test bed whose policy lives elsewhere is not a misspelt Mellanox resource: the fix
    names a policy's resource only when it is close to the missing one, else it says the policy is missing."""
    found = findings(tmp_path, {"policy.yaml": policy("p", "mlxnics"), "net.yaml": network("net", "intelnics")},
                     "sriov-unknown-resource")
    assert [f["fix"]["description"] for f in found] == ["add the SriovNetworkNodePolicy that creates the resource"]
    found = findings(tmp_path, {"net.yaml": network("net", "mlxnic")}, "sriov-unknown-resource")
    assert [f["fix"]["description"] for f in found] == ['correct resourceName (use "mlxnics") or add the '
                                                        "SriovNetworkNodePolicy"]


def test_a_policy_the_webhook_rejects_creates_no_resource(tmp_path: Path) -> None:
    """resourceName "intel.com/sriov_a" fails the webhook's ^[a-zA-Z0-9_]+$: the policy never exists, so it is
    not "creating openshift.io/intel.com/sriov_a" (sriov-unused-resource), and the network that names sriov_a is
    told to mend the policy, not to name the rejected value."""
    found = findings(tmp_path, {"p.yaml": policy("pol1", "intel.com/sriov_a"), "n.yaml": network("net1", "sriov_a")})
    assert sorted(f["rule"] for f in found) == ["schema", "sriov-unknown-resource"], found
    unknown = next(f for f in found if f["rule"] == "sriov-unknown-resource")
    assert "write resourceName: sriov_a there" in unknown["fix"]["description"] and not unknown["fix"]["edits"]
    # a pod asking for the resource of a rejected policy is still judged (the run holds policies)
    found = findings(tmp_path, {"p.yaml": policy("pol1", "intel.com/sriov_a"), "n.yaml": "",
                                "pod.yaml": pod('""', limits='{cpu: "4", memory: 4Gi, openshift.io/sriov_a: 1}')},
                     "sriov-unknown-resource")
    assert [Path(f["file"]).name for f in found] == ["pod.yaml"], found


@pytest.mark.parametrize(("value", "bad"), [
    ("openshift.io/sriovnic", '"openshift.io"'),  # a resource name used as namespace/network
    ("ran/Net_A", '"Net_A"'),
    ("ran/net-a@averyveryverylongname0", "longer than 15 characters"),
])
def test_a_comma_list_name_multus_refuses_is_malformed(tmp_path: Path, value: str, bad: str) -> None:
    """Multus (parsePodNetworkObjectName) matches the namespace and network of each comma item against the
    DNS-1123 label ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ and limits the interface name: the sandbox fails otherwise."""
    found = findings(tmp_path, {"pod.yaml": pod(value)}, "networks-annotation")
    assert len(found) == 1 and bad in found[0]["message"], found


def test_a_comma_list_multus_accepts_is_not_malformed(tmp_path: Path) -> None:
    assert findings(tmp_path, {"pod.yaml": pod("ran/net-a@eth1, net-b")}, "networks-annotation") == []
    # Multus trims the spaces around "/" and "@"
    assert findings(tmp_path, {"pod.yaml": pod('"ran / net-a @ eth1"')}, "networks-annotation") == []


NIC_TOPOLOGY = """apiVersion: numalint.io/v1alpha1
kind: NodeTopology
metadata: {name: t}
spec:
  pool:
    nodeSelector: {node-role.kubernetes.io/worker: ""}
  numaNodes:
  - {id: 0, cpus: "0-3", memory: 8Gi}
  nics:
  - {interface: ens1f0, pciAddress: "0000:3b:00.0", numaNode: 0, totalVfs: 8}
"""


@pytest.mark.parametrize(("vfs", "num", "hint"), [
    ("0-9", 8, "use ens1f0#0-7"),  # raising numVfs to 10 would pass the NIC's 8 VFs: not offered
    ("6-2", 4, "use ens1f0#2-3 or raise numVfs to 7"),
    ("5-9", 4, "use a range below numVfs 4, such as ens1f0#0-3"),
    ("6-2", 8, "use ens1f0#2-6"),
])
def test_sriov_numvfs_offers_only_ranges_the_webhook_accepts(tmp_path: Path, vfs: str, num: int, hint: str) -> None:
    text = policy("a", "res_a", f'["ens1f0#{vfs}"]').replace("numVfs: 8", f"numVfs: {num}")
    found = findings(tmp_path, {"p.yaml": text, "topo.yaml": NIC_TOPOLOGY}, "sriov-numvfs")
    assert [f["fix"]["description"] for f in found] == [hint], found


def test_the_hint_for_a_rejected_policy_names_a_valid_resource_name(tmp_path: Path) -> None:
    """A policy and its network that both name "rdma-vf" (the webhook refuses "-"): the hint proposes a name the
    webhook accepts for both, never the refused one again; a network already naming the valid form "rdma_vf" is
    told to write that in the policy."""
    found = findings(tmp_path, {"p.yaml": policy("pol1", "rdma-vf"), "n.yaml": network("net1", "rdma-vf")},
                     "sriov-unknown-resource")
    hint = found[0]["fix"]["description"]
    assert "resourceName: rdma_vf there and in this network" in hint and "resourceName: rdma-vf" not in hint
    found = findings(tmp_path, {"p.yaml": policy("pol1", "rdma-vf"), "n.yaml": network("net1", "rdma_vf")},
                     "sriov-unknown-resource")
    assert found[0]["fix"]["description"].endswith("write resourceName: rdma_vf there"), found


def test_an_sriov_kind_of_another_api_group_is_not_read(tmp_path: Path) -> None:
    """SriovNetworkNodePolicy exists only in sriovnetwork.openshift.io: the kubebuilder sample group
    sriovnetwork.k8s.cni.cncf.io is some other CRD, so its fields are not judged against the operator's schema."""
    sample = policy("sample", "nic").replace("sriovnetwork.openshift.io/v1", "sriovnetwork.k8s.cni.cncf.io/v1")
    found = findings(tmp_path, {"p.yaml": sample.replace("spec:\n", "spec:\n  foo: bar\n", 1)})
    assert found == [], found
    found = findings(tmp_path, {"p.yaml": policy("real", "nic").replace("spec:\n", "spec:\n  foo: bar\n", 1)})
    assert [f["rule"] for f in found] == ["unknown-field"], found


@pytest.mark.parametrize("template", [
    policy("dpdk", "${SRIOV_RESOURCE}"),  # envsubst
    policy("dpdk", "{{ .Values.resource }}"),  # Helm
])
def test_a_templated_policy_may_provide_what_no_other_policy_does(tmp_path: Path, template: str) -> None:
    limits = '{cpu: "4", memory: 4Gi, openshift.io/fh: "1"}'
    files = {"mgmt.yaml": policy("mgmt", "mgmtnic"), "pod.yaml": pod("[]", limits=limits)}
    write(tmp_path, files)
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    assert "sriov-unknown-resource" in [f["rule"] for f in result.json()["findings"]]
    write(tmp_path, {"templated.yaml": template})
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    rules = [f["rule"] for f in result.json()["findings"]]
    assert "sriov-unknown-resource" not in rules and "not-lintable" in rules


def test_a_templated_network_may_be_the_one_a_pod_attaches(tmp_path: Path) -> None:
    write(tmp_path, {"mgmt.yaml": policy("mgmt", "mgmtnic"), "pod.yaml": pod("fronthaul")})
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    assert any('attaches network "fronthaul"' in f["message"] for f in result.json()["findings"])
    write(tmp_path, {"net.yaml": network("x", "mgmtnic").replace("{name: x, ", "\n  name: ${NETWORK_NAME}\n  ")
                     .replace(f"namespace: {NS}}}", f"namespace: {NS}")})
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    assert not any('attaches network "fronthaul"' in f["message"] for f in result.json()["findings"])


def test_policies_in_two_clusters_trees_do_not_conflict(tmp_path: Path) -> None:
    # one PF, overlapping VF ranges: the webhook of one cluster rejects the second; two clusters' webhooks never
    # see each other's policies
    east, west = policy("fh", "fh", "[ens1f0#0-3]"), policy("mh", "mh", "[ens1f0#2-5]")
    write(tmp_path, {"clusters/east/sriov/fh.yaml": east, "clusters/west/sriov/mh.yaml": west})
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    assert "sriov-policy-conflict" not in [f["rule"] for f in result.json()["findings"]]
    write(tmp_path, {"clusters/west/sriov/fh.yaml": east})
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    conflicts = [f for f in result.json()["findings"] if f["rule"] == "sriov-policy-conflict"]
    assert len(conflicts) == 1 and "clusters/west/sriov/" in conflicts[0]["related"][0]["file"]


def test_a_templated_policy_with_a_plain_resource_name_provides_only_that_one(tmp_path: Path) -> None:
    # a Helm chart whose namespace is templated but whose resourceName is written plainly provides "othernic"
    chart = policy("dpdk", "othernic").replace(f"metadata: {{name: dpdk, namespace: {NS}}}",
                                               "metadata:\n  name: dpdk\n  namespace: {{ .Release.Namespace }}")
    limits = '{cpu: "4", memory: 4Gi, openshift.io/fh: "1"}'
    write(tmp_path, {"mgmt.yaml": policy("mgmt", "mgmtnic"), "pod.yaml": pod("[]", limits=limits),
                     "chart/templates/policy.yaml": chart})
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    found = [f for f in result.json()["findings"] if f["rule"] == "sriov-unknown-resource"]
    assert len(found) == 1 and "openshift.io/fh" in found[0]["message"], result.output
    write(tmp_path, {"pod.yaml": pod("[]", limits=limits.replace("openshift.io/fh", "openshift.io/othernic"))})
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    assert "sriov-unknown-resource" not in [f["rule"] for f in result.json()["findings"]]


def test_a_networks_resource_name_in_a_template_provides_nothing(tmp_path: Path) -> None:
    # the chart's policy names "othernic"; its network's resourceName "fh" is what it consumes, not provides
    chart = policy("dpdk", "othernic").replace(f"metadata: {{name: dpdk, namespace: {NS}}}",
                                               "metadata:\n  name: dpdk\n  namespace: {{ .Release.Namespace }}")
    limits = '{cpu: "4", memory: 4Gi, openshift.io/fh: "1"}'
    write(tmp_path, {"mgmt.yaml": policy("mgmt", "mgmtnic"), "pod.yaml": pod("[]", limits=limits),
                     "chart/templates/all.yaml": chart + "---\n" + network("fh-net", "fh")})
    result = run("check", "--format", "json", "--fail-on", "never", str(tmp_path))
    assert any("openshift.io/fh" in f["message"] for f in result.json()["findings"]
               if f["rule"] == "sriov-unknown-resource"), result.output


def _operator_config(webhook: bool) -> str:
    return (f"apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovOperatorConfig\nmetadata: {{name: default, "
            f"namespace: {NS}}}\nspec:\n  enableOperatorWebhook: {str(webhook).lower()}\n")


@pytest.mark.parametrize("webhook", [True, False])
def test_a_dash_in_a_resource_name_is_refused_only_by_the_webhook(tmp_path: Path, webhook: bool) -> None:
    """The operator webhook (as OpenShift ships it) accepts letters, digits and _; the device plugin also takes
    "-" (sriov-network-device-plugin PR #481). With the webhook off the policy creates its resource, and the
    network naming it is no "unknown resource"."""
    write(tmp_path, {"operator.yaml": _operator_config(webhook), "policy.yaml": policy("p", "du-net"),
                     "network.yaml": network("net", "du-net")})
    rules = run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).rules()
    assert sorted(rules) == (["schema", "sriov-unknown-resource"] if webhook else []), rules


def test_a_dot_in_a_resource_name_is_refused_by_the_device_plugin_too(tmp_path: Path) -> None:
    write(tmp_path, {"operator.yaml": _operator_config(False), "policy.yaml": policy("p", "du.net"),
                     "network.yaml": network("net", "du.net")})
    rules = run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).rules()
    assert sorted(rules) == ["schema", "sriov-unknown-resource"], rules


def test_another_port_is_no_spelling_of_a_resource(tmp_path: Path) -> None:
    """port3 for port4 (or ens1f0 for ens1f1) is another physical port, not a misspelling: no "use" hint; a
    real misspelling of a numbered name still gets one."""
    write(tmp_path, {"policy.yaml": policy("p", "port3"), "network.yaml": network("net", "port4")})
    found = [f for f in run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
             if f["rule"] == "sriov-unknown-resource"]
    assert [f["fix"]["description"] for f in found] == ["add the SriovNetworkNodePolicy that creates the resource"]
    write(tmp_path, {"network.yaml": network("net", "prot3")})
    found = [f for f in run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
             if f["rule"] == "sriov-unknown-resource"]
    assert [f["fix"]["description"] for f in found] == ['correct resourceName (use "port3") or add the '
                                                        "SriovNetworkNodePolicy"]


def test_two_policies_on_one_root_device_are_rejected_by_the_webhook(tmp_path: Path) -> None:
    """validateRootDevices: a root device in two policies on the same nodes is refused whatever their numVfs or
    deviceType (VF ranges exist only for pfNames); distinct root devices are fine."""
    first = policy("vfio", "x710_vfio", extra="  deviceType: vfio-pci\n").replace(
        "pfNames: [ens1f0]", 'rootDevices: ["0000:19:00.0"]')
    second = policy("netdev", "x710_netdevice").replace("pfNames: [ens1f0]", 'rootDevices: ["0000:19:00.0"]')
    write(tmp_path, {"a.yaml": first, "b.yaml": second})
    found = [f for f in run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
             if f["rule"] == "sriov-policy-conflict"]
    assert [Path(f["file"]).name for f in found] == ["b.yaml"], found
    assert found[0]["message"].startswith('root device 0000:19:00.0 of "netdev" is overlapped with existing policy '
                                          '"vfio"'), found
    write(tmp_path, {"b.yaml": second.replace("0000:19:00.0", "0000:19:00.1")})
    assert "sriov-policy-conflict" not in run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).rules()


@pytest.mark.parametrize("metadata", ["{name: mine, namespace: " + NS + "}", "{name: default, namespace: other}"])
def test_only_the_default_operator_config_turns_the_webhook_off(tmp_path: Path, metadata: str) -> None:
    """The operator reads only SriovOperatorConfig "default" in its own namespace (validateSriovOperatorConfig):
    another one turns nothing off, and the '-' stays refused."""
    config = _operator_config(False).replace(f"{{name: default, namespace: {NS}}}", metadata)
    write(tmp_path, {"operator.yaml": config, "policy.yaml": policy("p", "du-net")})
    assert "schema" in run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).rules()


def _nic_topology(name: str, role: str, extra: str) -> str:
    return (f"apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: {name}}}\nspec:\n"
            f"  pool: {{nodeSelector: {{node-role.kubernetes.io/{role}: \"\"}}}}\n"
            '  numaNodes: [{id: 0, cpus: "0-7", memory: 16Gi}]\n'
            f'  nics:\n    - {{pciAddress: "0000:3b:00.0", interface: ens1f0, numaNode: 0, {extra}}}\n')


def test_numvfs_is_judged_on_the_pfs_of_the_nodes_the_policy_selects(tmp_path: Path) -> None:
    """validatePolicyForNodeState compares numVfs with the PFs of the selected nodes: an edge pool's smaller NIC
    says nothing of a worker policy; a Mellanox PF takes up to 128 (its firmware is set to numVfs)."""
    worker = policy("fh", "fh").replace("numVfs: 8", "numVfs: 32")
    write(tmp_path, {"policy.yaml": worker, "big.yaml": _nic_topology("big", "worker", "totalVfs: 64"),
                     "small.yaml": _nic_topology("small", "edge", "totalVfs: 16")})
    assert "sriov-numvfs" not in run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).rules()
    write(tmp_path, {"big.yaml": _nic_topology("big", "worker", 'vendor: "15b3", totalVfs: 16')})
    assert "sriov-numvfs" not in run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).rules()
    write(tmp_path, {"big.yaml": _nic_topology("big", "worker", 'vendor: "8086", totalVfs: 16')})
    found = [f for f in run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
             if f["rule"] == "sriov-numvfs"]
    assert len(found) == 1 and "operator webhook rejects" in found[0]["message"], found


def test_an_entry_multus_refuses_is_reported_once(tmp_path: Path) -> None:
    """"net-a net-a" (a space for a comma) is malformed (networks-annotation); no network can have that name, so
    it is not also a missing network to create. A JSON entry's name is looked up as written: still reported."""
    write(tmp_path, {"pod.yaml": pod("net-a net-a"), "net.yaml": network("other", "r")})
    rules = run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).rules()
    assert "networks-annotation" in rules and "sriov-unknown-resource" not in rules, rules
    write(tmp_path, {"pod.yaml": pod("'[{\"name\": \"Net_A\"}]'")})
    rules = run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).rules()
    assert "sriov-unknown-resource" in rules, rules


def test_multus_2s_annotation_key_attaches_nothing(tmp_path: Path) -> None:
    """kubernetes.v1.cni.cncf.io/networks was Multus 2's key; Multus 3 and later and the network resources
    injector read only k8s.v1.cni.cncf.io/networks: a warning on the key, which the rename settles."""
    legacy = pod("fh-net").replace("k8s.v1.cni.cncf.io/networks", "kubernetes.v1.cni.cncf.io/networks")
    write(tmp_path, {"pod.yaml": legacy})
    found = [f for f in run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
             if f["rule"] == "networks-annotation"]
    assert [(f["severity"], f["line"], f["column"]) for f in found] == [("warning", 7, 5)], found
    write(tmp_path, {"pod.yaml": pod("fh-net")})
    assert "networks-annotation" not in run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).rules()


def test_a_selector_key_the_pool_does_not_declare_tells_nothing_about_its_pfs(tmp_path: Path) -> None:
    """The operator docs' selector (feature.node.kubernetes.io/network-sriov.capable) is not among the labels a
    pool declares: its PFs still count for numVfs; a policy whose nodeSelector is unwritten in namespace and a
    SriovOperatorConfig "default" turning the webhook off still go together (a kustomization sets namespaces)."""
    capable = policy("fh", "fh", selector='{feature.node.kubernetes.io/network-sriov.capable: "true"}').replace(
        "numVfs: 8", "numVfs: 128")
    write(tmp_path / "a", {"policy.yaml": capable,
                           "big.yaml": _nic_topology("big", "worker", 'vendor: "8086", totalVfs: 64')})
    assert "sriov-numvfs" in run("check", "--format", "json", "--fail-on", "never", str(tmp_path / "a")).rules()
    unspaced = policy("p", "du-net").replace(f", namespace: {NS}", "")
    write(tmp_path / "b", {"operator.yaml": _operator_config(False), "policy.yaml": unspaced})
    assert "schema" not in run("check", "--format", "json", "--fail-on", "never", str(tmp_path / "b")).rules()


def test_with_the_webhook_off_nothing_rejects_a_policy(tmp_path: Path) -> None:
    """With SriovOperatorConfig "default" turning the webhook off, a conflict the webhook would refuse is applied
    as it comes: a warning that says so, not "the operator webhook rejects the policy"."""
    first = policy("p1", "a").replace("pfNames: [ens1f0]", 'rootDevices: ["0000:19:00.0"]')
    second = policy("p2", "b").replace("pfNames: [ens1f0]", 'rootDevices: ["0000:19:00.0"]')
    for webhook, severity, says in ((True, "error", "the operator webhook rejects the policy"),
                                    (False, "warning", "the SriovOperatorConfig turns it off")):
        write(tmp_path, {"operator.yaml": _operator_config(webhook), "a.yaml": first, "b.yaml": second})
        found = [f for f in run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
                 if f["rule"] == "sriov-policy-conflict"]
        assert [f["severity"] for f in found] == [severity] and says in found[0]["message"], found


def test_the_mellanox_limit_is_the_webhooks(tmp_path: Path) -> None:
    """128 VFs on a Mellanox PF is the webhook's limit (MlxMaxVFs): with the webhook off, the PF's totalVfs."""
    many = policy("p", "fh").replace("numVfs: 8", "numVfs: 200")
    topology = _nic_topology("big", "worker", 'vendor: "15b3", totalVfs: 256')
    for webhook, reported in ((True, True), (False, False)):
        write(tmp_path, {"operator.yaml": _operator_config(webhook), "policy.yaml": many, "big.yaml": topology})
        rules = run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).rules()
        assert ("sriov-numvfs" in rules) is reported, (webhook, rules)


@pytest.mark.parametrize(("config_namespace", "policy_namespace", "severity"), [
    ("5", "", "warning"),  # a policy's unwritten namespace may be any: the config there turns the webhook off
    ("5", "\n  namespace: 5", "warning"),  # the same value, compared as written
    ("5", "\n  namespace: ran", "error"),
    (NS, "\n  namespace: ran", "error"),
    (NS, "", "warning"),
])
def test_the_webhook_turned_off_in_which_namespace(tmp_path: Path, config_namespace: str, policy_namespace: str,
                                                   severity: str) -> None:
    # the SriovOperatorConfigs that turn the webhook off are grouped by namespace once: a namespace that is not a
    # string (the API server refuses the object) still matches as before
    def bare(name: str, extra: str) -> str:
        return (f"apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata:\n  name: {name}"
                f"{policy_namespace}\nspec:\n  resourceName: r1\n  numVfs: 4\n  nodeSelector: {{a: b}}\n"
                f"  nicSelector: {{pfNames: [{name}0]}}\n{extra}")
    config = ("apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovOperatorConfig\nmetadata:\n  name: default\n"
              f"  namespace: {config_namespace}\nspec:\n  enableOperatorWebhook: false\n")
    files = {"p.yaml": bare("pa", "") + "---\n" + bare("pb", "  excludeTopology: true\n") + "---\n" + config}
    assert [f["severity"] for f in findings(tmp_path, files, "sriov-policy-conflict")] == [severity]


def nad(name: str, resource: str, namespace: str = "ran") -> str:
    return (f"apiVersion: k8s.cni.cncf.io/v1\nkind: NetworkAttachmentDefinition\nmetadata:\n  name: {name}\n"
            f"  namespace: {namespace}\n  annotations: {{k8s.v1.cni.cncf.io/resourceName: {resource}}}\n"
            'spec:\n  config: \'{"cniVersion": "0.3.1", "type": "sriov"}\'\n')


@pytest.mark.parametrize("namespace", ["nvidia-network-operator", "network-operator"])
def test_the_nvidia_network_operators_namespace_gives_its_prefix(tmp_path: Path, namespace: str) -> None:
    """The NVIDIA Network Operator deploys the SR-IOV operator with resourcePrefix nvidia.com, in its own
    namespace, and the operator reads policies and networks there only: a policy of that namespace creates
    nvidia.com/<resourceName> (found by a precision review: every such resource was called unused, and
    networks' resources were named openshift.io/...)."""
    nvidia_policy = policy("switchdev", "sriovswitchdev").replace(NS, namespace)
    files = {"policy.yaml": nvidia_policy, "nad.yaml": nad("switchdev-net", "nvidia.com/sriovswitchdev"),
             "du.yaml": pod("switchdev-net", limits='{cpu: "4", memory: 4Gi, nvidia.com/sriovswitchdev: 1}')}
    assert findings(tmp_path / "used", files) == []
    # its networks name the resource with that prefix; a pod's nvidia.com/gpu is no SR-IOV resource
    files = {"policy.yaml": nvidia_policy, "net.yaml": network("net", "sriovswitchdv").replace(NS, namespace),
             "du.yaml": pod("net", limits='{cpu: "4", memory: 4Gi, nvidia.com/gpu: 1}')}
    found = findings(tmp_path / "misspelt", files, "sriov-unknown-resource")
    assert [f["message"].split(" uses resource ")[1].split(",")[0] for f in found if " uses " in f["message"]] \
        == ["nvidia.com/sriovswitchdv"]
    assert not any("nvidia.com/gpu" in f["message"] for f in found)
    # sriovResourcePrefix says which prefix every resource takes, wherever its objects are
    files = {".numalint.yaml": "sriovResourcePrefix: intel.com\n", "policy.yaml": nvidia_policy,
             "nad.yaml": nad("switchdev-net", "nvidia.com/sriovswitchdev")}
    found = findings(tmp_path / "configured", files, "sriov-unused-resource")
    assert ["intel.com/sriovswitchdev" in f["message"] for f in found] == [True]


def test_each_operators_objects_take_its_own_prefix(tmp_path: Path) -> None:
    """A repository of both operators' examples: a policy in the OpenShift operator's namespace creates
    openshift.io/..., one in the NVIDIA operator's nvidia.com/...; a policy without a namespace takes the
    operator's default unless every namespaced object is the NVIDIA operator's."""
    files = {"ocp.yaml": policy("ocp", "mlxnics"), "ocp-net.yaml": network("ocp-net", "mlxnics"),
             "nv.yaml": policy("nv", "switchdev").replace(NS, "network-operator"),
             "nv-nad.yaml": nad("nv-net", "nvidia.com/switchdev")}
    assert findings(tmp_path / "both", files, "sriov-unused-resource") == []
    assert findings(tmp_path / "both", files, "sriov-unknown-resource") == []
    unset = policy("nv", "switchdev").replace(f", namespace: {NS}", "")
    files = {"nv.yaml": unset, "net.yaml": network("net", "other").replace(NS, "nvidia-network-operator"),
             "nad.yaml": nad("nv-net", "nvidia.com/switchdev")}
    assert findings(tmp_path / "unset", files, "sriov-unused-resource") == []
    files["net.yaml"] = network("net", "other")  # the OpenShift operator's: the policy is its too
    found = findings(tmp_path / "unset-ocp", files, "sriov-unused-resource")
    assert ["openshift.io/switchdev" in f["message"] for f in found] == [True]


def test_a_misspelt_network_name_gets_the_close_one_multus_would_find(tmp_path: Path) -> None:
    """A pod attaching a network no object of the run names: the fix names the networks of close names the pod
    could attach (its namespace's), the closest alike only (network names share long prefixes; found by a precision
    review: demo-intel-netdev for demo-intel-netdevice)."""
    files = {"policy.yaml": policy("p", "mlxnics"),
             "nets.yaml": "---\n".join([nad("demo-intel-netdevice", "openshift.io/mlxnics"),
                                        nad("demo-intel-vfio", "openshift.io/mlxnics"),
                                        nad("demo-intel-netdevx", "openshift.io/mlxnics", namespace="other")]),
             "du.yaml": pod("demo-intel-netdev")}
    [found] = findings(tmp_path, files, "sriov-unknown-resource")
    assert found["fix"]["description"] == ('correct the annotation (use "demo-intel-netdevice") or create the network '
                                           '"demo-intel-netdev"')
    files["du.yaml"] = pod("far-away-name")
    [found] = findings(tmp_path, files, "sriov-unknown-resource")
    assert found["fix"]["description"] == 'create the network "far-away-name" or correct the annotation'
    # a midhaul network is not a misspelt fronthaul one; a transposed letter is a misspelling
    files["nets.yaml"] = "---\n".join([nad("sriov-net-fh", "openshift.io/mlxnics"),
                                       nad("sriov-net-rdma", "openshift.io/mlxnics")])
    files["du.yaml"] = pod("sriov-net-mh")
    [found] = findings(tmp_path, files, "sriov-unknown-resource")
    assert found["fix"]["description"] == 'create the network "sriov-net-mh" or correct the annotation'
    files["du.yaml"] = pod("sriov-net-rmda")
    [found] = findings(tmp_path, files, "sriov-unknown-resource")
    assert found["fix"]["description"].startswith('correct the annotation (use "sriov-net-rdma")')
    # written with its namespace, the suggestion keeps it (Multus looks there; found by a review)
    files["du.yaml"] = pod("ran/sriov-net-rmda").replace("namespace: ran", "namespace: other")
    [found] = findings(tmp_path, files, "sriov-unknown-resource")
    assert found["fix"]["description"].startswith('correct the annotation (use "ran/sriov-net-rdma")')
    # the JSON form names the namespace in a field of its own: the name alone goes in "name"
    files["du.yaml"] = pod('\'[{"name": "sriov-net-rmda", "namespace": "ran"}]\'').replace("namespace: ran",
                                                                                          "namespace: other")
    [found] = findings(tmp_path, files, "sriov-unknown-resource")
    assert found["fix"]["description"].startswith('correct the annotation (use "sriov-net-rdma")')


def test_policies_of_two_operators_do_not_share_a_resource(tmp_path: Path) -> None:
    """The same resourceName in the OpenShift operator's namespace and the NVIDIA operator's names two resources
    (openshift.io/x, nvidia.com/x), which no webhook compares: differing excludeTopology is no conflict there."""
    other = policy("b", "mlxnics", pfs="[ens2f0]", extra="  excludeTopology: true\n")
    files = {"a.yaml": policy("a", "mlxnics"), "b.yaml": other}
    assert len(findings(tmp_path / "one", files, "sriov-policy-conflict")) == 1
    files["b.yaml"] = other.replace(NS, "nvidia-network-operator")
    assert findings(tmp_path / "two", files, "sriov-policy-conflict") == []
    # nor do they on one PF: each operator's webhook lists its own namespace's policies only
    files = {"a.yaml": policy("a", "xa", pfs='["ens1f0#0-3"]'),
             "b.yaml": policy("b", "yb", pfs='["ens1f0#2-5"]').replace(NS, "nvidia-network-operator")}
    assert findings(tmp_path / "pf", files, "sriov-policy-conflict") == []
    files["b.yaml"] = policy("b", "yb", pfs='["ens1f0#2-5"]')
    assert len(findings(tmp_path / "pf-one", files, "sriov-policy-conflict")) == 1


def test_a_misspelling_among_many_look_alikes_is_still_judged(tmp_path: Path) -> None:
    """Under the NVIDIA operator's prefix a pod's resource is judged only when it is a misspelling of a policy's:
    worked out in full however many policies look alike; only the suggestion is left out among more than 512
    look-alikes (found by a review: a comparison budget, once spent, dropped the finding itself)."""
    import itertools

    names = ["".join(letters) for letters in itertools.islice(itertools.product("abcdef", repeat=5), 0, 7776, 5)]
    policies = "---\n".join(policy(f"p{i}", name).replace(NS, "nvidia-network-operator")
                            for i, name in enumerate(names))
    wanted = names[500] + "x"  # bfdcex: over a thousand names share one of its rarest letters
    # 300 pods asking look-alikes first, each worked out in full too
    before = "---\n".join(pod("[]", f"a{i}", f'{{cpu: "4", memory: 4Gi, nvidia.com/{name}x: 1}}')
                          for i, name in enumerate(names[600:900]))
    files = {"policies.yaml": policies, "a.yaml": before,
             "du.yaml": pod("[]", limits=f'{{cpu: "4", memory: 4Gi, nvidia.com/{wanted}: 1}}')}
    found = [f for f in findings(tmp_path, files, "sriov-unknown-resource") if f["file"].endswith("du.yaml")]
    assert [f"requests nvidia.com/{wanted}," in f["message"] for f in found] == [True]
    assert found[0]["fix"]["description"] == "add the SriovNetworkNodePolicy that creates the resource"
