#!/usr/bin/env python3
"""Issue 13, target 5: no input shape costs more than linear time in the file's size.

Each hostile shape is generated at a base size and at 2x, 4x and 8x; `numalint check` runs on each as a whole
process (CPU time, median of --rounds, start-up on an empty Pod subtracted). Judged by the growth exponent
log2(time(8x) / time(2x)) / 2 (the 1x run is mostly start-up noise): 1.0 is linear, 2.0 quadratic (target:
at most ~1.2 for every shape, noise included), and by the absolute time of the issue's case: nested aliases
22 levels deep with `{{ }}` text in about 600 bytes (3.3 s before the alias budget, x4 every 2 levels).

    python bench/hostile.py --rounds 3 [--shape "SR-IOV" ...]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import compile_package, in_turns, loadavg, median, numalint  # noqa: E402

POD = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n"


def nested_aliases(levels: int) -> str:
    """The issue's file: each level a list of two aliases of the one below, and template text on top."""
    lines = [POD + "spec:\n  containers:\n  - name: c\n    image: '{{ .Values.image }}'\n",
             "x0: &x0 ['{{ .Values.a }}', b]\n"]
    lines += [f"x{i}: &x{i} [*x{i - 1}, *x{i - 1}]\n" for i in range(1, levels + 1)]
    return "".join(lines)


def laughs(levels: int) -> str:
    """Billion laughs: nine aliases of the level below per level."""
    lines = [POD, "l0: &l0 [lol]\n"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, levels + 1)]
    return "".join(lines)


def deep(n: int) -> str:
    return POD + "spec: " + "[" * n + "]" * n + "\n"


def wide_containers(n: int) -> str:
    return POD + "spec:\n  containers: [" + ",".join(["{}"] * n) + "]\n"


def many_keys(n: int) -> str:
    return POD + "spec:\n" + "".join(f"  k{i}: {i}\n" for i in range(n))


def duplicate_keys(n: int) -> str:
    return "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n" + "cpuManagerPolicy: static\n" * n


def documents(n: int) -> str:
    return "---\n".join(POD.replace("name: p", f"name: p{i}") for i in range(n))


def long_scalar(n: int) -> str:
    return POD + "  annotations:\n    a: " + "x" * (n * 20) + "\n"


def templates(n: int) -> str:
    return POD + "spec:\n" + "".join(f"  k{i}: {{{{ .Values.v{i} }}}}\n" for i in range(n))


def merges(n: int) -> str:
    head = POD + "spec:\n  base: &b {cpu: '1', memory: 1Gi}\n"
    return head + "".join(f"  m{i}: {{<<: *b, cpu: '{i}'}}\n" for i in range(n))


def quantities(n: int) -> str:
    cpu, memory = "9" * 60 + "m", "1e999999"
    items = ",".join(f"{{name: c{i}, resources: {{limits: {{cpu: '{cpu}', memory: '{memory}'}}}}}}" for i in range(n))
    return POD + "spec:\n  containers: [" + items + "]\n"


def json_list(n: int) -> str:
    """One line of JSON: a List of kubelet configurations, each with a fix to prove (the documents share the line)."""
    item = ('{"apiVersion":"kubelet.config.k8s.io/v1beta1","kind":"KubeletConfiguration","metadata":{"name":"k%d"},'
            '"memoryManagerPolicy":"static","reservedMemory":[{"numaNode":0,"limits":{"memory":"100Mi"}}]}')
    return '{"apiVersion":"v1","kind":"List","items":[' + ",".join(item % i for i in range(n)) + "]}\n"


def _labelled(index: int, label: str) -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{index}, labels: {{d: {label}}}}}\n"
            "spec: {containers: [{name: c, image: x}]}\n")


def wrong_types(n: int) -> str:
    """Many documents in one file, each with a value of the wrong type (a schema finding each)."""
    return "---\n".join(_labelled(i, "[1]") for i in range(n))


def unclosed_placeholder(n: int) -> str:
    """A value repeating an envsubst placeholder's start without its closing brace."""
    return _labelled(0, "'" + "${a-" * n + "'")


def unclosed_jinja_comments(n: int) -> str:
    """A value repeating Jinja's comment opening without its closing, and bash's ${# (a template test per opening
    would be quadratic)."""
    return _labelled(0, "'" + "{#" * n + "${#" * n + "'")


def suppression_spaces(n: int) -> str:
    """A disable comment whose rules are followed by a long run of spaces and a character rules cannot hold."""
    return POD + "# numalint: disable=a" + " " * n + "!\n"


def many_directives(n: int) -> str:
    """One comment line repeating a malformed disable-file directive."""
    return POD + "# numalint: disable-file!" * n + "\n"


def disable_file_lines(n: int) -> str:
    """Many disable-file lines, each naming another unknown rule: each line copied the rules of all before it, and
    each rule was an unused-suppression finding of its own (past the hundred a file reports)."""
    return POD + "".join(f"# numalint: disable-file=bogus{i}\n" for i in range(n))


def capped_fixes(n: int) -> str:
    """More than a hundred findings of one rule in one file, each with a fix to prove."""
    return "---\n".join(_labelled(i, "yes") for i in range(n))


def anchored_fix(n: int) -> str:
    """A value with a fix (a CPU count to round on the file's static CPU manager), anchored above a long comment
    line and read through an alias: the anchor guard's search, tried at every position of the comment, was
    quadratic in its length."""
    return ('apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n'
            'reservedSystemCPUs: "0,16"\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: app}\nspec:\n'
            "  containers:\n    - name: app\n      image: x\n      resources:\n        requests:\n"
            "          cpu: &c\n            # " + "x" * n + "\n            2500m\n          memory: 1Gi\n"
            "        limits: {cpu: 2500m, memory: 1Gi}\n      env:\n        - {name: CPU_QUOTA, value: *c}\n")


def kind_patches(n: int) -> str:
    """A kind cluster of many kubeadmConfigPatches: each split the whole file into lines again (quadratic)."""
    return ("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n"
            + "- |\n  kind: KubeletConfiguration\n  maxPods: 100\n" * n)


def kind_nodes(n: int) -> str:
    """A kind cluster of many workers, each with its own JoinConfiguration patch of flags."""
    worker = ("- role: worker\n  kubeadmConfigPatches:\n  - |\n    kind: JoinConfiguration\n    nodeRegistration:\n"
              "      kubeletExtraArgs:\n        reserved-cpus: \"0\"\n")
    return ("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n- |\n"
            "  kind: KubeletConfiguration\n  cpuManagerPolicy: static\nnodes:\n- role: control-plane\n" + worker * n)


def kind_patches_and_nodes(n: int) -> str:
    """n JoinConfiguration patches of the Cluster and n workers: the Cluster's flags were merged again for every
    node (quadratic), and each patch copied the merged configuration whole."""
    patch = "- |\n  kind: JoinConfiguration\n  nodeRegistration:\n    kubeletExtraArgs:\n      max-pods: \"{i}\"\n"
    return ("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n"
            + "".join(patch.format(i=i) for i in range(n))
            + "".join(f"- |\n  kind: KubeletConfiguration\n  podsPerCore: {i}\n" for i in range(n))
            + "nodes:\n- role: control-plane\n" + "- role: worker\n" * n)


def repeated_flags(n: int) -> str:
    """An RKE2 configuration repeating a map flag: each repeat copied every item before it (quadratic)."""
    return ('token: t\nkubelet-arg:\n- "cpu-manager-policy=static"\n- "reserved-cpus=0"\n'
            + "".join(f'- "feature-gates=Gate{i}=true"\n' for i in range(n)))


def long_gate_names(n: int) -> str:
    """A kubelet configuration of many feature gates with long names: each was compared letter by letter with every
    gate numalint knows (near misses), 0.2 ms a name."""
    return ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfeatureGates:\n"
            + "".join(f"  SomeVendorGate{i:07}: true\n" for i in range(n)))


def node_class_parts(n: int) -> str:
    """A Karpenter EC2NodeClass whose MIME user data holds many NodeConfig parts, each with flags (merged in order,
    flags added up)."""
    part = ("    --B\n    Content-Type: application/node.eks.aws\n\n    apiVersion: node.eks.aws/v1alpha1\n"
            "    kind: NodeConfig\n    spec:\n      kubelet:\n        config:\n          cpuManagerPolicy: static\n"
            "        flags:\n          - --max-pods={i} --reserved-cpus 0\n\n")
    return ("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata:\n  name: many\nspec:\n  userData: |\n"
            '    MIME-Version: 1.0\n    Content-Type: multipart/mixed; boundary="B"\n\n'
            + "".join(part.format(i=i) for i in range(n)) + "    --B--\n")


def performance_profiles(n: int) -> str:
    """Many PerformanceProfiles of distinct node selectors: each was compared with every other (quadratic)."""
    return "".join(f'---\napiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n  name: pp{i}\n'
                   f'spec:\n  cpu: {{isolated: "2-3", reserved: "0-1"}}\n'
                   f'  nodeSelector: {{node-role.kubernetes.io/w{i}: ""}}\n'
                   for i in range(n))


def tuning_config_maps(n: int) -> str:
    """Many HyperShift ConfigMaps carrying PerformanceProfiles: each split the whole file into lines again."""
    return "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: t{i}, namespace: c}}\ndata:\n  tuning: |\n"
                   "    apiVersion: performance.openshift.io/v2\n    kind: PerformanceProfile\n"
                   f'    metadata: {{name: pp{i}}}\n    spec:\n      cpu: {{isolated: "2-3", reserved: "0-1"}}\n'
                   for i in range(n))


def kind_clusters(n: int) -> str:
    """Many kind Clusters in one file: each split the whole file into lines again (quadratic)."""
    return "".join("---\nkind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n- |\n"
                   "  kind: KubeletConfiguration\n  cpuManagerPolicy: static\n" for _ in range(n))


def kind_workers(n: int) -> str:
    """A kind cluster of many plain workers: which ones run pods was looked up in a list (quadratic)."""
    return ("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n- |\n"
            "  kind: KubeletConfiguration\n  cpuManagerPolicy: static\nnodes:\n- role: control-plane\n"
            + "- role: worker\n" * n)


def _policy(i: int, resource: str, pf: str) -> str:
    return (f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata:\n  name: p{i}\n"
            f"  namespace: openshift-sriov-network-operator\nspec:\n  resourceName: {resource}\n  numVfs: 8\n"
            f"  nicSelector: {{pfNames: [{pf}]}}\n  nodeSelector: {{a: b}}\n  deviceType: netdevice\n")


def sriov_one_resource(n: int) -> str:
    """SR-IOV policies sharing one resourceName, each on its own PF: every pair was compared (quadratic)."""
    return "".join(_policy(i, "r", f"ens{i}f0") for i in range(n))


def sriov_one_pf(n: int) -> str:
    """SR-IOV policies sharing one PF, each with its own VF: every pair was compared (quadratic). (VFs past numVfs are
    findings of their own, one per policy; VFs shared by policies would make every such pair a finding.)"""
    return "".join(_policy(i, f"r{i}", f"'ens1f0#{i}-{i}'") for i in range(n))


def sriov_per_node(n: int) -> str:
    """A policy per node (its hostname), all on one PF name without VF ranges: every pair was compared."""
    return "".join(_policy(i, "r", "ens1f0").replace("{a: b}", f"{{kubernetes.io/hostname: n{i}}}") for i in range(n))


def sriov_wide_and_per_node(n: int) -> str:
    """n/2 policies of every SR-IOV node, each its own resource and PF, beside n/2 per-node policies sharing a
    resource: each per-node policy was compared with every wide one (found by review)."""
    wide = "".join(_policy(i, f"wide{i}", f"w{i}").replace("{a: b}", "{sriov: 'true'}") for i in range(n // 2))
    return wide + "".join(_policy(n + i, "pernode", f"p{i}").replace("{a: b}", f"{{sriov: 'true', host: n{i}}}")
                          for i in range(n // 2))


def sriov_same_vfs(n: int) -> str:
    """SR-IOV policies all given the same VFs of one PF on the same nodes: every pair is a finding (n^2/2 of them,
    of which a report shows a hundred); they were all made (2,000 policies: 29 s and 450 MB)."""
    return "".join(_policy(i, f"r{i}", "'ens1f0#0-3'") for i in range(n))


def instancetypes_of_one_name(n: int) -> str:
    """One instancetype name in n namespaces, and n VMs naming it from another: each VM looked through every
    instancetype of the name, twice."""
    return "".join(
        f"---\napiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\nmetadata: {{name: it, "
        f"namespace: ns{i}}}\nspec: {{cpu: {{guest: 2, dedicatedCPUPlacement: true}}, memory: {{guest: 2Gi}}}}\n"
        for i in range(n)) + "".join(
        f"---\napiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {{name: vm{i}, namespace: zz}}\nspec:\n"
        "  instancetype: {kind: VirtualMachineInstancetype, name: it}\n  template:\n    spec:\n      domain: {}\n"
        for i in range(n))


def templated_networks(n: int) -> dict[str, str]:
    """A chart of n templated SR-IOV networks beside n Pods, each attaching a network of another name: each
    attachment walked every template for one that may write its name."""
    return {"chart/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
            "chart/templates/nets.yaml": "---\n".join(
                f"apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetwork\nmetadata:\n  name: net{i}\n"
                "spec:\n  resourceName: {{ .Values.r }}\n" for i in range(n)),
            "pods.yaml": "".join(f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}, annotations: "
                                 f"{{k8s.v1.cni.cncf.io/networks: missing{i}}}}}, spec: {{containers: [{{name: c, "
                                 "image: x}]}}\n" for i in range(n))}


def topologies_and_far_pools(n: int) -> dict[str, str]:
    """n NodeTopologies in one tree and n MachineConfigPools in another: each topology asked every pool whether it
    was of its cluster."""
    return {"a/b/c/topologies.yaml": "".join(
        f"---\napiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: t{i}}}\nspec:\n"
        f"  pool: {{nodes: 1, nodeSelector: {{r{i}: ''}}}}\n  sockets: 1\n  threadsPerCore: 1\n"
        "  numaNodes:\n  - {id: 0, cpus: '0-3', memory: 8Gi}\n" for i in range(n)),
        "x/y/z/pools.yaml": "".join(
        f"---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata:\n  name: "
        f"mcp{i}\nspec:\n  nodeSelector: {{matchLabels: {{node-role.kubernetes.io/mcp{i}: ''}}}}\n" for i in range(n))}


def crio_pods_and_profiles(n: int) -> str:
    """n PerformanceProfiles and n Pods with a CRI-O annotation and no runtime class, side by side: each pod tried
    every profile for those beside it, and its fix named them all."""
    return "".join(
        f"---\napiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {{name: pp{i}}}\n"
        f"spec: {{cpu: {{isolated: '2-3', reserved: '0-1'}}, nodeSelector: {{node-role.kubernetes.io/w{i}: ''}}}}\n"
        for i in range(n)) + "".join(
        f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}, annotations: {{cpu-quota.crio.io: disable}}}}, "
        "spec: {containers: [{name: c, image: x, resources: {limits: {cpu: 2, memory: 1Gi}}}]}}\n" for i in range(n))


def profiles_in_many_trees(n: int) -> dict[str, str]:
    """n PerformanceProfiles of one node selector, each in its own cluster tree: each was tried with every other,
    though none meets another."""
    return {f"clusters/c{i}/perf/pp.yaml": f"apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\n"
            f"metadata: {{name: pp{i}}}\nspec: {{cpu: {{isolated: '2-3', reserved: '0-1'}}, nodeSelector: "
            "{node-role.kubernetes.io/worker-cnf: ''}}\n" for i in range(n)}


def fixes_beside_policies(n: int) -> dict[str, str]:
    """n kubelet configurations with a fix to prove, 20 a file, beside n SR-IOV policies: each proof analysed the
    policies again and checked every pair of them."""
    files = {f"kc{k}.yaml": "---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
             "memoryManagerPolicy: static\nreservedMemory: [{numaNode: 0, limits: {memory: 100Mi}}]\n" * 20
             for k in range(n // 20)}
    files["policies.yaml"] = "".join(
        f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata:\n  name: p{i}\n"
        f"  namespace: openshift-sriov-network-operator\nspec:\n  resourceName: r{i}\n  numVfs: 8\n"
        f"  nicSelector: {{pfNames: [ens{i}f0]}}\n  nodeSelector: {{a: b}}\n" for i in range(n))
    return files


def fixes_on_own_pools(n: int) -> dict[str, str]:
    """n PerformanceProfiles, each the pool of one workload with a fix to prove (50 workloads a file): each proof
    analysed the whole run again and ran every check on every profile."""
    files = {"profiles.yaml": "".join(
        f"---\napiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {{name: pp{i}}}\n"
        f"spec: {{cpu: {{isolated: '2-3', reserved: '0-1'}}, nodeSelector: {{node-role.kubernetes.io/w{i}: ''}}}}\n"
        for i in range(n))}
    for k in range(0, n, 50):
        files[f"pods{k}.yaml"] = "".join(
            f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}}}, spec: {{nodeSelector: "
            f"{{node-role.kubernetes.io/w{i}: ''}}, containers: [{{name: c, image: x, resources: {{limits: "
            "{cpu: 1500m, memory: 1Gi}}}]}}\n" for i in range(k, min(k + 50, n)))
    return files


def per_path_globs(n: int) -> dict[str, str]:
    """n directories of a Pod with a schema finding, and a perPath glob for each: every glob was tried on every
    finding's file."""
    files = {f"c{i}/p.yaml": f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  labels: {{d: yes}}\n"
             "spec:\n  containers:\n  - {name: c, image: x}\n" for i in range(n)}
    files[".numalint.yaml"] = "perPath:\n" + "".join(f"  'c{i}/*.yaml': {{schema: info}}\n" for i in range(n))
    return files


def exclude_globs(n: int) -> dict[str, str]:
    """n directories of a Pod, and an exclude glob for a generated file of each: every glob was tried on every
    file found."""
    files = {f"c{i}/p.yaml": f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n"
             "spec:\n  containers:\n  - {name: c, image: x}\n" for i in range(n)}
    files[".numalint.yaml"] = "exclude:\n" + "".join(f"  - 'c{i}/generated-*.yaml'\n" for i in range(n))
    return files


def exclude_globs_of_every_length(n: int) -> dict[str, str]:
    """n directories of a Pod, and exclude globs of n literal starts of distinct lengths: each file looked each
    length up."""
    files = {f"c{i}/p.yaml": f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n"
             "spec:\n  containers:\n  - {name: c, image: x}\n" for i in range(n)}
    files[".numalint.yaml"] = "exclude:\n" + "".join(f"  - '{'z' * length}*'\n" for length in range(1, n + 1))
    return files


def refuted_workload_fixes(n: int) -> dict[str, str]:
    """n Guaranteed Pods of 2500m on a static single-numa-node pool of 2-CPU NUMA nodes, 50 a file: each fix
    (round to 3 CPUs) no longer fits a NUMA node, so the proof halved down to every one (2n tries of the pool)."""
    numa = "".join(f"  - {{id: {i}, cpus: '{2 * i}-{2 * i + 1}', memory: 100Gi}}\n" for i in range(4))
    files = {"topology.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n"
             f"  pool: {{nodes: {n // 2 + 1}, kubeletConfig: kubelet}}\n  sockets: 1\n  threadsPerCore: 1\n"
             "  numaNodes:\n" + numa,
             "kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
             "cpuManagerPolicy: static\nreservedSystemCPUs: '0'\ntopologyManagerPolicy: single-numa-node\n"}
    for k in range(0, n, 50):
        files[f"pods{k}.yaml"] = "".join(
            f"---\n{{apiVersion: v1, kind: Pod, metadata: {{name: p{i}}}, spec: {{containers: [{{name: c, image: x, "
            "resources: {limits: {cpu: 2500m, memory: 1Gi}}}]}}\n" for i in range(k, min(k + 50, n)))
    return files


def devices_and_pods(n: int) -> dict[str, str]:
    """A node of n devices and n Pods each taking one: hints counted every device for every mask and pod, each
    admission copied every allocation, and each pod looked through the resource's free devices."""
    devices = "".join(f"  - {{resource: vendor.com/gpu, numaNode: {i % 2}, count: 1}}\n" for i in range(n))
    return {"topology.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n"
            "  pool: {nodes: 1, kubeletConfig: kubelet}\n  sockets: 1\n  threadsPerCore: 1\n  numaNodes:\n"
            "  - {id: 0, cpus: '0-63', memory: 1000Gi}\n  - {id: 1, cpus: '64-127', memory: 1000Gi}\n  devices:\n"
            + devices,
            "kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
            "topologyManagerPolicy: best-effort\nmaxPods: 1000000\n",
            "pods.yaml": "".join(f"---\n{{apiVersion: v1, kind: Pod, metadata: {{name: p{i}}}, spec: {{containers: "
                                 "[{name: c, image: x, resources: {limits: {vendor.com/gpu: 1}}}]}}\n"
                                 for i in range(n))}


def unknown_resources(n: int) -> dict[str, str]:
    """n SR-IOV policies beside n networks naming resources no policy creates: each network's suggestion and each
    policy's "unused" check compared every pair with difflib."""
    return {"policies.yaml": "".join(
                f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata: {{name: p{i}, "
                "namespace: openshift-sriov-network-operator}\nspec: {"
                f"resourceName: netdev_{i}, numVfs: 8, nicSelector: {{pfNames: [ens{i}f0]}}, nodeSelector: {{a: b}}}}\n"
                for i in range(n)),
            "networks.yaml": "".join(
                f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetwork\nmetadata: {{name: n{i}, "
                f"namespace: openshift-sriov-network-operator}}\nspec: {{resourceName: missing_{i}, "
                "networkNamespace: d}\n" for i in range(n))}


def affinity_of_many_hostnames(n: int) -> dict[str, str]:
    """n pools of one hostname each, and 20 workloads whose required affinity is In n-1 of them: each pool a
    workload was tried on listed the values again."""
    return {"topologies.yaml": "".join(
                f"---\napiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: t{i}}}\nspec:\n"
                f"  pool: {{nodeSelector: {{kubernetes.io/hostname: node{i}}}, nodes: 1}}\n  sockets: 1\n"
                "  threadsPerCore: 1\n  numaNodes: [{id: 0, cpus: '0-3', memory: 8Gi}]\n" for i in range(n)),
            "deploy.yaml": "".join(
                f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d{p}}}\nspec:\n  template:\n"
                "    spec:\n      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                "{nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: ["
                + ", ".join(f"node{i}" for i in range(n) if i != p) + "]}]}]}}}\n"
                "      containers: [{name: c, image: x, resources: {limits: {cpu: 1500m, memory: 1Gi}}}]\n"
                for p in range(20))}


def pools_and_kubeletconfigs(n: int) -> dict[str, str]:
    """n topologies each on its own MachineConfigPool beside n KubeletConfigs of no pool: each pool asked every
    configuration which pools it targets."""
    return {"topologies.yaml": "".join(
                f"---\napiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: t{i}}}\nspec:\n"
                f"  pool: {{nodeSelector: {{node-role.kubernetes.io/w{i}: ''}}, nodes: 1}}\n  sockets: 1\n"
                "  threadsPerCore: 1\n  numaNodes: [{id: 0, cpus: '0-3', memory: 16Gi}]\n" for i in range(n)),
            "pools.yaml": "".join(
                f"---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata: "
                f"{{name: w{i}, labels: {{pools.operator.machineconfiguration.openshift.io/w{i}: ''}}}}\nspec:\n"
                "  machineConfigSelector: {matchExpressions: [{key: machineconfiguration.openshift.io/role, "
                f"operator: In, values: [worker, w{i}]}}]}}\n"
                f"  nodeSelector: {{matchLabels: {{node-role.kubernetes.io/w{i}: ''}}}}\n" for i in range(n)),
            "kubeletconfigs.yaml": "".join(
                f"---\napiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: "
                f"{{name: kc{i}}}\nspec:\n  machineConfigPoolSelector: {{matchLabels: "
                f"{{pools.operator.machineconfiguration.openshift.io/x{i}: ''}}}}\n"
                "  kubeletConfig: {cpuManagerPolicy: static, reservedSystemCPUs: '0'}\n" for i in range(n))}


def pool_directories(n: int) -> dict[str, str]:
    """n directories each of a MachineConfigPool and a KubeletConfig of no pool: each configuration asked every
    pool directory whether it lies near, and listed every near pool."""
    return {f"c/p{i}/pool.yaml":
            f"apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata: {{name: w{i}, "
            f"labels: {{pools.operator.machineconfiguration.openshift.io/w{i}: ''}}}}\nspec:\n"
            f"  nodeSelector: {{matchLabels: {{node-role.kubernetes.io/w{i}: ''}}}}\n---\n"
            f"apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {{name: kc{i}}}\n"
            f"spec:\n  machineConfigPoolSelector: {{matchLabels: {{pools.operator.machineconfiguration.openshift.io/"
            f"x{i}: ''}}}}\n  kubeletConfig: {{cpuManagerPolicy: static, reservedSystemCPUs: '0'}}\n"
            for i in range(n)}


def declared_clusters(n: int) -> dict[str, str]:
    """n directories of a kubelet configuration, each declared a cluster: every cluster was tried on every file."""
    files = {f"c{i}/k.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
             "cpuManagerPolicy: Static\n" for i in range(n)}
    files[".numalint.yaml"] = "clusters:\n" + "".join(f"  k{i}: [c{i}/]\n" for i in range(n))
    return files


def shared_component(n: int) -> dict[str, str]:
    """n overlays of a PerformanceProfile each, all including one component of n patches: each overlay copied and
    indexed the component's patches again."""
    files = {"c/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n"
             + "".join(f"- target: {{kind: Deployment, name: z{i}}}\n  patch: |-\n    - op: add\n      path: "
                       "/metadata/labels/x\n      value: y\n" for i in range(n))}
    for i in range(n):
        files[f"o{i}/kustomization.yaml"] = "resources:\n- pp.yaml\ncomponents:\n- ../c\n"
        files[f"o{i}/pp.yaml"] = (f"apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n"
                                  f"  name: pp{i}\nspec:\n  cpu: {{isolated: '2-3', reserved: '0-1'}}\n")
    return files


def chain_of_bases(n: int) -> dict[str, str]:
    """n kustomizations, each the base of the next and naming a PerformanceProfile of its own: each file walked the
    chain to its build, copying its route at each step."""
    files = {}
    for i in range(n):
        files[f"k{i}/kustomization.yaml"] = "resources:\n" + (f"- ../k{i - 1}\n" if i else "") + "- pp.yaml\n"
        files[f"k{i}/pp.yaml"] = (f"apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n"
                                  f"  name: pp{i}\nspec:\n  cpu: {{isolated: '2-3', reserved: '0-1'}}\n")
    return files


def base_under_patching_overlays(n: int) -> dict[str, str]:
    """A base of n PerformanceProfiles under n overlays, each patching one: each profile's finding walked every
    overlay."""
    files = {"base/kustomization.yaml": "resources:\n" + "".join(f"- pp{i}.yaml\n" for i in range(n))}
    for i in range(n):
        files[f"base/pp{i}.yaml"] = (f"apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n"
                                     f"  name: pp{i}\nspec:\n  cpu: {{isolated: '2-3', reserved: '0-1'}}\n")
        files[f"o{i}/kustomization.yaml"] = (
            f"resources:\n- ../base\npatches:\n- target: {{kind: PerformanceProfile, name: pp{i}}}\n  patch: |-\n"
            "    - op: add\n      path: /spec/nodeSelector\n      value: {a: b}\n")
    return files


def _kubelet_config(i: int, labels: str) -> str:
    return (f"---\napiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata:\n  name: kc{i}\n"
            f"spec:\n  machineConfigPoolSelector:\n    matchLabels: {{{labels}}}\n"
            "  kubeletConfig: {cpuManagerPolicy: static, reservedSystemCPUs: '0-1'}\n")


def kubeletconfigs_of_one_pool(n: int) -> str:
    """KubeletConfigs selecting one pool: each finding worked out the whole group and named every other one."""
    return "".join(_kubelet_config(i, "pools.operator.machineconfiguration.openshift.io/worker: ''") for i in range(n))


def kubeletconfigs_and_pools(n: int) -> str:
    """KubeletConfigs selecting no pool beside as many MachineConfigPools: the pools were made again for every
    configuration, each tried against every pool, and the fix named every pool (quadratic)."""
    pools = "".join(f"---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata:\n"
                    f"  name: mcp{i}\n  labels: {{pools.operator.machineconfiguration.openshift.io/mcp{i}: ''}}\n"
                    f"spec:\n  nodeSelector: {{matchLabels: {{node-role.kubernetes.io/mcp{i}: ''}}}}\n"
                    for i in range(n))
    return pools + "".join(_kubelet_config(i, "nosuch: x") for i in range(n))


def profile_unknown_keys(n: int) -> str:
    """A PerformanceProfile of many unknown keys close to one field: each hint named every key (quadratic)."""
    return ("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {name: pp}\nspec:\n"
            "  cpu: {isolated: '2-3', reserved: '0-1'}\n  nodeSelector: {node-role.kubernetes.io/w: ''}\n"
            + "".join(f"  hugepagesX{i}: 1\n" for i in range(n)))


def pattern_targets(n: int) -> dict[str, str]:
    """A kustomization of n patches targeting by name pattern over n/4 Pods: every pattern was tried for every
    finding (quadratic). A tree of files: the kustomization and one file per Pod."""
    pods = n // 4
    tree = {f"p{i}.yaml": _labelled(i, "yes") for i in range(pods)}
    tree["kustomization.yaml"] = (
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
        + "".join(f"- p{i}.yaml\n" for i in range(pods)) + "patches:\n"
        + "".join(f"- target: {{kind: Pod, name: 'p.*q{i}'}}\n  patch: |-\n    - op: add\n"
                  "      path: /metadata/labels/x\n      value: y\n" for i in range(n)))
    return tree


def repeats_with_suppressions(n: int) -> str:
    """One object repeated, each copy with a suppression comment: each was compared with every repeat."""
    return "".join("---\nkind: Pod\napiVersion: v1\nmetadata: {name: p}  # numalint: disable=not-guaranteed\n"
                   "spec: {containers: [{name: c, image: x}]}\n" for _ in range(n))


def annotated_files(n: int) -> dict[str, str]:
    """n annotated Pods, a hundred a file, each with a finding: each finding looked through every annotation of the
    run."""
    pod = ("---\n{{kind: Pod, apiVersion: v1, metadata: {{name: a{k}-{i}, annotations: {{numalint.io/disable: x}}}}, "
           "spec: {{containers: [{{name: c, image: x, resources: {{limits: {{cpu: 2, memory: 1}}}}}}]}}}}\n")
    return {f"f{k}.yaml": "".join(pod.format(k=k, i=i) for i in range(100)) for k in range(max(n // 100, 1))}


def operator_configs(n: int) -> str:
    """SriovOperatorConfigs beside as many policies whose resourceName only the device plugin takes: each policy
    looked through every config for the one turning the webhook off."""
    configs = "".join("---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovOperatorConfig\nmetadata: "
                      f"{{name: c{i}, namespace: openshift-sriov-network-operator}}\n"
                      "spec: {enableOperatorWebhook: false}\n" for i in range(n))
    return configs + "".join(_policy(i, f"r-{i}", f"ens{i}f0") for i in range(n))


def networks_of_one_name(n: int) -> str:
    """One network name in n namespaces and n Pods attaching it from another: each Pod walked every network."""
    networks = "".join(f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetwork\nmetadata: {{name: net, "
                       f"namespace: ns{i}}}\nspec: {{resourceName: r{i}, networkNamespace: ns{i}}}\n" for i in range(n))
    return networks + "".join(f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}, namespace: zz, annotations: "
                              "{k8s.v1.cni.cncf.io/networks: net}}, spec: {containers: [{name: c, image: x}]}}\n"
                              for i in range(n))


def nics_and_policies(n: int) -> str:
    """A topology of n NICs beside n SR-IOV policies, each on one of them: each policy was tried on every NIC."""
    nics = "".join(f"  - {{pciAddress: '0000:{i // 256:02x}:{i % 256:02x}.0', interface: e{i}, vendor: '8086', "
                   "deviceID: '158b', totalVfs: 8, numaNode: 0}\n" for i in range(n))
    return ("apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n  pool: {nodes: 1}\n"
            "  sockets: 1\n  threadsPerCore: 1\n  numaNodes:\n  - {id: 0, cpus: '0-63', memory: 256Gi}\n  nics:\n"
            + nics + "".join(_policy(i, f"r{i}", f"e{i}") for i in range(n)))


def workloads_of_own_profiles(n: int) -> str:
    """n PerformanceProfiles and n Pods, each selecting its own profile's nodes: each was matched with every pool."""
    profiles = "".join(f"---\napiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {{name: "
                       f"pp{i}}}\nspec: {{cpu: {{isolated: '2-3', reserved: '0-1'}}, nodeSelector: "
                       f"{{node-role.kubernetes.io/w{i}: ''}}}}\n" for i in range(n))
    return profiles + "".join(f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}}}, spec: {{nodeSelector: "
                              f"{{node-role.kubernetes.io/w{i}: ''}}, containers: [{{name: c, image: x, resources: "
                              "{limits: {cpu: 2, memory: 1Gi}}}]}}\n" for i in range(n))


def topologies_naming_configurations(n: int) -> str:
    """n NodeTopologies each naming its kubelet configuration, and the n configurations."""
    topologies = "".join(f"---\napiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: t{i}}}\nspec:\n"
                         f"  pool: {{nodes: 1, kubeletConfig: k{i}, nodeSelector: {{r{i}: ''}}}}\n  sockets: 1\n"
                         "  threadsPerCore: 1\n  numaNodes:\n  - {id: 0, cpus: '0-3', memory: 8Gi}\n" for i in range(n))
    return topologies + "".join(f"---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                f"metadata: {{name: k{i}}}\ncpuManagerPolicy: static\nreservedSystemCPUs: '0'\n"
                                for i in range(n))


def unlabelled_pools(n: int) -> str:
    """n kubelet configurations of no labels (n pools) and n Pods selecting no nodes."""
    return ("---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
            "reservedSystemCPUs: '0'\n") * n + "".join(
        f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}}}, spec: {{containers: [{{name: c, image: x, "
        "resources: {limits: {cpu: 500m, memory: 1Gi}}}]}}\n" for i in range(n))


def padded_yes_labels(n: int) -> str:
    """n Pods in one file, each labelled yes (a schema finding with a quoting fix) under a long comment: the line
    starts cached by the text were compared whole with the equal text the proofs read again, at every finding."""
    pad = "# " + "p" * 700 + "\n"
    return "".join(f"---\n{pad}{{apiVersion: v1, kind: Pod, metadata: {{name: p{i}, labels: {{x: yes}}}}, spec: "
                   "{containers: [{name: c, image: x}]}}\n" for i in range(n))


def own_affinity_pools(n: int) -> dict[str, str]:
    """n NodeTopology pools of one label key and n Pods each choosing its own pool by required node affinity
    (role In [r_i]): every pool was a candidate for every pod, in each of the simulation's three analyses."""
    files = {"kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
             "cpuManagerPolicy: static\nreservedSystemCPUs: '0'\n",
             "topologies.yaml": "".join(
                 f"---\napiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: t{i}}}\nspec:\n"
                 f"  pool: {{nodeSelector: {{role: r{i}}}, nodes: 1, kubeletConfig: kubelet}}\n  sockets: 1\n"
                 "  threadsPerCore: 1\n  numaNodes:\n  - {id: 0, cpus: '0-3', memory: 8Gi}\n" for i in range(n))}
    for k in range(0, n, 50):
        files[f"pods{k}.yaml"] = "".join(
            f"---\n{{apiVersion: v1, kind: Pod, metadata: {{name: p{i}}}, spec: {{affinity: {{nodeAffinity: "
            "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: role, "
            f"operator: In, values: [r{i}]}}]}}]}}}}}}, containers: [{{name: c, image: x, resources: {{limits: "
            "{cpu: '1', memory: 1Gi}}}]}}\n" for i in range(k, min(k + 50, n)))
    return files


def replicas_beyond_the_pool(n: int) -> dict[str, str]:
    """n Deployments of 2,000 replicas each on a pool of ten nodes that holds few of them: every replica is simulated
    (numalint expands 2,000), the pool soon full, and each replica the scheduler finds no room for was given its own
    fix and related places (the same for all of a workload's)."""
    pool = ("apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n  pool: {nodes: 10}\n"
            "  numaNodes:\n  - {id: 0, cpus: '0-7', memory: 16Gi}\n  - {id: 1, cpus: '8-15', memory: 16Gi}\n")
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
               "reservedSystemCPUs: '0'\ntopologyManagerPolicy: single-numa-node\n")
    deployments = "".join(
        f"---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d{i}}}\nspec:\n  replicas: 2000\n"
        "  template:\n    spec:\n      containers:\n      - {name: c, image: x, resources: {limits: {cpu: '1', "
        "memory: 1Gi}}}\n" for i in range(n))
    return {"topology.yaml": pool, "kubelet.yaml": kubelet, "deployments.yaml": deployments}


def devices_on_many_nodes(n: int) -> dict[str, str]:
    """A pool of 1,000 nodes holding n x 4,096 devices each, one admitted pod: what each NUMA node holds of a device
    was counted by looking at every device, per NUMA node, twice per node."""
    devices = "".join(f"  - {{resource: example.com/dev, numaNode: {i % 2}, count: 4096}}\n" for i in range(n))
    return {"kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                            "cpuManagerPolicy: static\nreservedSystemCPUs: '0'\n"
                            "topologyManagerPolicy: single-numa-node\n",
            "topology.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n"
                             "  pool: {nodes: 1000}\n  numaNodes:\n  - {id: 0, cpus: '0-7', memory: 16Gi}\n"
                             "  - {id: 1, cpus: '8-15', memory: 16Gi}\n  devices:\n" + devices,
            "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: c, image: x, "
                        "resources: {limits: {cpu: '2', memory: 1Gi}}}\n"}


SHAPES: dict[str, tuple[Callable[[int], str | dict[str, str]], int]] = {
    "nested aliases + {{ }}": (nested_aliases, 22),
    "billion laughs": (laughs, 6),
    "deep nesting": (deep, 60),
    "wide list of {}": (wide_containers, 20_000),
    "many keys": (many_keys, 10_000),
    "duplicate keys": (duplicate_keys, 20_000),
    "many documents": (documents, 2_000),
    "long scalar": (long_scalar, 20_000),
    "many {{ }}": (templates, 10_000),
    "merge keys": (merges, 10_000),
    "huge quantities": (quantities, 1_000),
    "one-line JSON List with fixes": (json_list, 50),
    "wrong types in many documents": (wrong_types, 500),
    "unclosed ${ in a value": (unclosed_placeholder, 8_000),
    "unclosed {# and ${# in a value": (unclosed_jinja_comments, 20_000),
    "disable comment and spaces": (suppression_spaces, 8_000),
    "many directives on a line": (many_directives, 2_000),
    "many disable-file lines": (disable_file_lines, 5_000),
    "fixes past the hundredth finding": (capped_fixes, 150),
    "anchored value under a long comment": (anchored_fix, 10_000),
    "kind cluster of many patches": (kind_patches, 2_000),
    "kind cluster of many nodes": (kind_nodes, 500),
    "kind cluster of many patches and workers": (kind_patches_and_nodes, 300),
    "RKE2 kubelet-arg repeating a map flag": (repeated_flags, 2_500),
    "many feature gates with long names": (long_gate_names, 2_500),
    "EC2NodeClass user data of many NodeConfig parts": (node_class_parts, 500),
    "many PerformanceProfiles": (performance_profiles, 250),
    "many HyperShift tuning ConfigMaps": (tuning_config_maps, 250),
    "many kind Clusters in one file": (kind_clusters, 500),
    "kind cluster of many plain workers": (kind_workers, 4_000),
    "SR-IOV policies sharing a resourceName": (sriov_one_resource, 500),
    "SR-IOV policies sharing a PF": (sriov_one_pf, 500),
    "SR-IOV policies, one per node, on one PF": (sriov_per_node, 500),
    "SR-IOV policies of all nodes beside per-node ones": (sriov_wide_and_per_node, 500),
    "SR-IOV policies all on the same VFs": (sriov_same_vfs, 500),
    "one instancetype name in many namespaces": (instancetypes_of_one_name, 2_000),
    "Pods attaching many names beside a chart of networks": (templated_networks, 2_000),
    "topologies beside MachineConfigPools of another tree": (topologies_and_far_pools, 250),
    "Pods with CRI-O annotations beside many profiles": (crio_pods_and_profiles, 500),
    "profiles of one node selector in many cluster trees": (profiles_in_many_trees, 250),
    "fixable kubelet configurations beside SR-IOV policies": (fixes_beside_policies, 100),
    "workload fixes each on its own profile's pool": (fixes_on_own_pools, 100),
    "perPath globs, one per directory": (per_path_globs, 250),
    "declared clusters, one per directory": (declared_clusters, 250),
    "exclude globs, one per directory": (exclude_globs, 250),
    "exclude globs of every length": (exclude_globs_of_every_length, 250),
    "workload fixes that all bring an error": (refuted_workload_fixes, 50),
    "pods each taking one of as many devices": (devices_and_pods, 250),
    "networks naming resources no policy creates": (unknown_resources, 125),
    "affinity In of many hostnames beside as many pools": (affinity_of_many_hostnames, 250),
    "topologies on their own pools beside KubeletConfigs": (pools_and_kubeletconfigs, 250),
    "one directory per MachineConfigPool": (pool_directories, 250),
    "a component of many patches under many overlays": (shared_component, 250),
    "a chain of kustomization bases": (chain_of_bases, 100),
    "a base under many overlays each patching one object": (base_under_patching_overlays, 100),
    "KubeletConfigs of one pool": (kubeletconfigs_of_one_pool, 500),
    "KubeletConfigs beside as many MachineConfigPools": (kubeletconfigs_and_pools, 250),
    "PerformanceProfile of many unknown keys": (profile_unknown_keys, 1_000),
    "kustomization of many pattern targets": (pattern_targets, 1_000),
    "repeats each with a suppression": (repeats_with_suppressions, 2_000),
    "annotated Pods in many files": (annotated_files, 2_000),
    "SriovOperatorConfigs beside policies": (operator_configs, 500),
    "one network name in many namespaces": (networks_of_one_name, 1_000),
    "NICs beside SR-IOV policies": (nics_and_policies, 500),
    "workloads each selecting its own profile": (workloads_of_own_profiles, 500),
    "topologies naming their configurations": (topologies_naming_configurations, 500),
    "Pods beside unlabelled pools": (unlabelled_pools, 1_000),
    "wrong-typed labels under long comments in one file": (padded_yes_labels, 1200),
    "Pods choosing their own pool by node affinity": (own_affinity_pools, 250),
    "Deployments of 2,000 replicas beyond their pool": (replicas_beyond_the_pool, 10),
    "a thousand nodes of many devices": (devices_on_many_nodes, 4),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--shape", action="append", default=[],
                        help="run only the shapes whose name contains this text (repeatable)")
    args = parser.parse_args()
    cmd, cwd = numalint()
    compile_package(Path(cwd))
    work = Path(tempfile.mkdtemp(prefix="numalint-hostile-"))
    empty = work / "empty.yaml"
    empty.write_text(POD)
    check = cmd + ["check", "--format", "json", "--fail-on", "never"]
    print(f"load {loadavg()}")
    print("| shape | size 1x (bytes) | CPU 1x (s) | CPU 2x (s) | CPU 8x (s) | growth exponent (1 = linear) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (make, base) in SHAPES.items():
        if args.shape and not any(part in name for part in args.shape):
            continue
        commands: dict[str, tuple[list[str], Path | str]] = {"empty": (check + [str(empty)], cwd)}
        sizes = {}
        for factor in (1, 2, 4, 8):
            path = work / f"{name.replace(' ', '_').replace('{', '').replace('}', '')}-{factor}.yaml"
            made = make(base * factor)
            if isinstance(made, str):
                path.write_text(made)
                sizes[factor] = path.stat().st_size
            else:  # a tree of files
                path = path.with_suffix("")
                path.mkdir()
                for file, text in made.items():
                    (path / file).parent.mkdir(parents=True, exist_ok=True)
                    (path / file).write_text(text)
                sizes[factor] = sum(len(text.encode()) for text in made.values())
            commands[str(factor)] = (check + [str(path)], cwd)
        runs = in_turns(commands, args.rounds)
        start = median([s.cpu for s in runs["empty"]])
        cost = {f: max(median([s.cpu for s in runs[str(f)]]) - start, 0.002) for f in (1, 2, 4, 8)}
        exponent = math.log2(cost[8] / cost[2]) / 2
        print(f"| {name} | {sizes[1]:,} | {cost[1]:.3f} | {cost[2]:.3f} | {cost[8]:.3f} | {exponent:.2f} |")
    issue = work / "issue.yaml"
    issue.write_text(nested_aliases(22))
    runs = in_turns({"issue": (check + [str(issue)], cwd)}, args.rounds)
    print(f"\nthe issue's case ({issue.stat().st_size} bytes, 22 levels): "
          f"{median([s.wall for s in runs['issue']]):.3f} s whole process")
    print(f"load after: {loadavg()}")


if __name__ == "__main__":
    main()
