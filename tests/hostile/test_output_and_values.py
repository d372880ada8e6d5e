"""Hostile values and file names through the real command line (a subprocess, with a timeout).

Output: nothing from the checked files reaches the terminal or a CI log raw. Values: quantities, CPU lists,
topologies and node state of any size or shape give a finding or a clear error quickly, never a traceback.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

DATA = Path(__file__).parent.parent / "data"
INJECTION = ("a\n::error file=x.yaml::pwned\r::add-mask::secret\x1b]0;title\x07\x1b]52;c;ZWNobyBoaQ==\x07"
             "\x1b[2J\u202e##[set-env]")
NAMES = ["::add-mask::x.yaml", "n\n::error::y.yaml", "f 50%.yaml", "g#frag.yaml", "d:x.yaml", "b\\s.yaml",
         " ::warning::z.yaml", "e\x1b[2Jsc.yaml", "q?x.yaml"]
KUBELET = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


def cli(*args: str, cwd: Path | None = None, timeout: float = 60, stdin: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    """numalint as CI runs it: a separate process; a hang fails the test instead of the suite."""
    return subprocess.run([sys.executable, "-m", "numalint", *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, encoding="utf-8", errors="replace", timeout=timeout)


def assert_inert(output: str, github: bool = False) -> None:
    """No raw control or bidi character; no line a terminal or the Actions runner would act on."""
    assert "Traceback" not in output
    for line in output.split("\n"):
        assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]", line), repr(line)
        assert "##[" not in line, line
        if github and line.startswith("::"):  # annotations, and the ::notice summary of numalint's own words
            summary = r"::notice title=numalint::\d+ file\(s\) checked: \d+ error\(s\), \d+ warning\(s\), \d+ info"
            assert re.match(r"::(error|warning|notice) file=[^:]*,line=\d+,.*::", line) or re.fullmatch(
                summary, line), line
        else:  # readable lines: never a workflow command
            assert not line.lstrip().startswith("::"), line


def _key_file(text: str = INJECTION) -> str:
    return KUBELET + json.dumps(text) + ": 1\ncpuManagerPolicy: " + json.dumps("static" + text) + "\n"


def test_text_and_github_output_escape_keys_values_and_file_names(tmp_path: Path) -> None:
    for name in NAMES:
        (tmp_path / name).write_text(_key_file())
    for fmt in ("text", "github"):
        result = cli("check", "--format", fmt, "--color" if fmt == "text" else "--no-color", ".", cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        assert result.stdout.count("unknown-field") == len(NAMES) * (2 if fmt == "github" else 1)
        # numalint's own colour codes are the only escape sequences left
        assert_inert(re.sub(r"\x1b\[[0-9;]*m", "", result.stdout), github=fmt == "github")
    text = cli("check", "--no-color", ".", cwd=tmp_path).stdout
    assert r'unknown field "a\n::error file=x.yaml::pwned\r::add-mask::secret\x1b]0;title\x07' in text
    assert "./::add-mask::x.yaml:3:1: warning [unknown-field]" in text
    assert "./ ::warning::z.yaml:3:1:" in text and r"n\n::error::y.yaml:3:1:" in text
    github = cli("check", "--format", "github", ".", cwd=tmp_path).stdout
    assert "file=./n%0A%3A%3Aerror%3A%3Ay.yaml,line=3" in github and "a%0A::error file=x.yaml::pwned%0D" in github


def test_a_file_named_on_the_command_line_cannot_open_a_line(tmp_path: Path) -> None:
    (tmp_path / "::add-mask::x.yaml").write_text(_key_file())
    result = cli("check", "::add-mask::x.yaml", cwd=tmp_path)
    assert result.stdout.startswith("./::add-mask::x.yaml:3:1:")
    assert_inert(result.stdout)


def test_sarif_uris_are_rfc3986_references_and_the_log_validates(tmp_path: Path) -> None:
    import jsonschema

    for name in NAMES + ["é ü.yaml"]:
        (tmp_path / name).write_text(_key_file())
    result = cli("check", "--format", "sarif", ".", cwd=tmp_path)
    log = json.loads(result.stdout)
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    pchar = r"(?:%[0-9A-F]{2}|[A-Za-z0-9\-._~!$&'()*+,;=:@])*"
    decoded = set()
    for uri in uris:
        assert re.fullmatch(rf"(?:\./)?{pchar}(?:/{pchar})*", uri), uri  # a relative-path reference
        parts = urlsplit(uri)
        assert (parts.scheme, parts.netloc, parts.query, parts.fragment) == ("", "", "", ""), uri
        decoded.add(unquote(parts.path).removeprefix("./"))
    assert decoded == set(NAMES) | {"é ü.yaml"}
    assert {"f%2050%25.yaml", "g%23frag.yaml", "./d:x.yaml", "b%5Cs.yaml", "./n%0A::error::y.yaml",
            "q%3Fx.yaml"} <= uris


def _simulation_repo(directory: Path, pod_name: str) -> None:
    (directory / "kubelet.yaml").write_text(KUBELET + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
                                            "topologyManagerPolicy: single-numa-node\n")
    (directory / "topology.yaml").write_text(
        "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: " + json.dumps(pod_name) + "}\n"
        "spec:\n  numaNodes:\n    - {id: 0, cpus: \"0-3\", memory: 8Gi}\n    - {id: 1, cpus: \"4-7\", memory: 8Gi}\n")
    (directory / "pod.yaml").write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: " + json.dumps(pod_name) + "}\nspec:\n  containers:\n"
        "    - name: " + json.dumps(pod_name) + "\n      image: x\n"
        "      resources: {limits: {cpu: \"2\", memory: 1Gi}}\n")


def test_simulate_text_escapes_names_and_messages(tmp_path: Path) -> None:
    _simulation_repo(tmp_path, "p\n::error::sim\x1b]0;t\x07")
    result = cli("simulate", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert r"placed    Pod p\n::error::sim\x1b]0;t\x07" in result.stdout
    assert_inert(result.stdout)


def test_explain_output_is_inert() -> None:
    result = cli("explain", "unknown-field")
    assert result.returncode == 0
    assert_inert(result.stdout)
    unknown = cli("explain", "x\n::error::y\x1b[2J")
    assert unknown.returncode == 2
    assert_inert(unknown.stderr)


def _pod(cpu: str, memory: str = "1Gi", name: str = "p") -> str:
    return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers:\n"
            f"    - name: c\n      image: x\n      resources: {{limits: {{cpu: {cpu}, memory: {memory}}}}}\n")


def _timed(*args: str, cwd: Path, limit: float = 15) -> subprocess.CompletedProcess[str]:
    """Run the CLI and require it to finish well inside ``limit`` (interpreter start-up included)."""
    started = time.monotonic()
    result = cli(*args, cwd=cwd, timeout=limit * 4)
    assert time.monotonic() - started < limit, f"{args} took {time.monotonic() - started:.1f}s"
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    return result


HOSTILE_QUANTITIES = {".nan": "nan is not a finite number", ".inf": "inf is not a finite number",
                      "-.inf": "-inf is not a finite number",
                      # go-yaml v2 reads plain 1e400 as the string "1e400" (ParseFloat is out of range)
                      "1e400": "'1e400' is out of range",
                      "1" * 4400: "(4400 characters) is out of range", '"1e999999999"': "'1e999999999' is out of range",
                      '"9223372036854775808"': "is out of range (at most 2^63-1)",
                      '"8Ei"': "'8Ei' is out of range"}


def test_non_finite_huge_and_long_quantities_are_findings_within_seconds(tmp_path: Path) -> None:
    for i, cpu in enumerate(HOSTILE_QUANTITIES):
        (tmp_path / f"pod{i}.yaml").write_text(_pod(cpu, name=f"p{i}"))
    (tmp_path / "mem.yaml").write_text(_pod('"1"', memory="1e1000Gi", name="m"))
    (tmp_path / "tiny.yaml").write_text(_pod('"1e-999999999"', name="tiny"))
    result = _timed("check", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1
    findings = json.loads(result.stdout)["findings"]
    for i, message in enumerate(HOSTILE_QUANTITIES.values()):
        mine = [f for f in findings if f["file"] == f"./pod{i}.yaml" and f["rule"] == "schema"]
        assert mine and "not a usable Kubernetes quantity" in mine[0]["message"], (i, findings)
        assert message in mine[0]["message"]
        assert mine[0]["fix"] is None  # quoting "nan" or "inf" would not make a quantity
    assert [f["message"] for f in findings if f["file"] == "./mem.yaml"] == [
        'spec.containers.0.resources.limits.memory: "1e1000Gi" is not a valid Kubernetes quantity (e.g. 2, 500m, 1Gi)']
    assert not [f for f in findings if f["file"] == "./tiny.yaml" and f["rule"] == "schema"]  # rounds up to 1n
    _timed("simulate", ".", cwd=tmp_path)


def test_quantities_round_up_to_nanounits_like_the_api_server() -> None:
    from fractions import Fraction

    from numalint.k8s.quantity import QuantityError, parse_quantity

    assert parse_quantity("1e-999999999") == Fraction(1, 10**9)
    assert parse_quantity("1.0000000001") == Fraction(1000000001, 10**9)
    assert parse_quantity("0." + "0" * 5000 + "1") == Fraction(1, 10**9)
    assert parse_quantity("7Ei") == 7 * 2**60 and parse_quantity("9223372036854775807") == 2**63 - 1
    for bad in ("1e99999999999999999999", "1e1000Gi", ".", "", "\u0663", float("nan"), 10**5000):
        with pytest.raises(QuantityError):
            parse_quantity(bad)


def _topology(numa_nodes: int = 2, cpus_per_node: int = 8, name: str = "t") -> str:
    lines = ["apiVersion: numalint.io/v1alpha1", "kind: NodeTopology", f"metadata: {{name: {name}}}", "spec:",
             "  numaNodes:"]
    for n in range(numa_nodes):
        first = n * cpus_per_node
        lines.append(f'    - {{id: {n}, cpus: "{first}-{first + cpus_per_node - 1}", memory: 8Gi}}')
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("cpus", ["0-4294967295", "\u0663", "\u00b2", "1-\u00b3", "99999999999999999999999",
                                  ",".join(["0-65535"] * 9000)])
def test_hostile_cpu_lists_are_findings_within_seconds(tmp_path: Path, cpus: str) -> None:
    (tmp_path / "kubelet.yaml").write_text(KUBELET + f"cpuManagerPolicy: static\nreservedSystemCPUs: \"{cpus}\"\n")
    (tmp_path / "topology.yaml").write_text(_topology())
    result = _timed("check", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert "reserved-cpus-invalid" in [f["rule"] for f in json.loads(result.stdout)["findings"]]
    _timed("simulate", ".", cwd=tmp_path)


def test_a_list_of_empty_reserved_memory_entries_gets_capped_schema_findings(tmp_path: Path) -> None:
    (tmp_path / "kubelet.yaml").write_text(KUBELET + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
                                           "reservedMemory: [" + ",".join(["{}"] * 20000) + "]\n")
    result = _timed("check", "--format", "json", ".", cwd=tmp_path, limit=30)
    schema = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "schema"]
    assert len(schema) == 101 and "only the first 100 are shown" in schema[-1]["message"]


def test_the_findings_shown_past_the_cap_are_the_first_in_the_file_whatever_the_string_hashing(tmp_path: Path) -> None:
    # jsonschema walks a mapping's extra properties (labels) as a set, so which 100 of a file's findings were shown
    # changed from run to run with Python's string hashing
    (tmp_path / "pods.yaml").write_text("---\n".join(
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, labels: {{a: yes, b: yes, c: yes, d: yes, e: yes}}}}\n"
        "spec: {containers: [{name: c, image: x}]}\n" for i in range(30)))
    reports = {subprocess.run([sys.executable, "-m", "numalint", "check", "-f", "json", "pods.yaml"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONHASHSEED": seed, "NUMALINT_SERVER": "off",
                                   "PYTHONPATH": str(DATA.parents[1])}).stdout
               for seed in ("1", "2", "3", "4")}
    assert len(reports) == 1
    schema = [f for f in json.loads(reports.pop())["findings"] if f["rule"] == "schema"]
    shown = [(f["line"], f["column"]) for f in schema[:-1]]
    assert shown == sorted(shown) and shown[-1] == (98, 67)  # the 20 first pods' labels, every one
    assert (schema[-1]["line"], schema[-1]["column"], schema[-1]["message"]) == (
        103, 35, "… and more schema finding(s) in this file (only the first 100 are shown)")


def test_a_pod_with_thousands_of_containers_is_checked_and_simulated_quickly(tmp_path: Path) -> None:
    containers = "".join(f'    - {{name: c{i}, image: x, resources: {{limits: {{cpu: "1", memory: 1Gi}}}}}}\n'
                         for i in range(5000))
    (tmp_path / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                                       + containers)
    (tmp_path / "kubelet.yaml").write_text(KUBELET + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
                                           "topologyManagerPolicy: single-numa-node\n")
    (tmp_path / "topology.yaml").write_text(_topology(2, 64))
    result = _timed("check", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert "admission-failure" in [f["rule"] for f in json.loads(result.stdout)["findings"]]
    assert _timed("simulate", ".", cwd=tmp_path).returncode == 1


# -- topology sources and node state ------------------------------------------------------------------------------


def _sysfs(tmp_path: Path) -> Path:
    from tests.test_topology_sources import fake_sysfs

    root = tmp_path / "sysroot"
    fake_sysfs(root)
    return root


def test_capture_skips_fifos_and_devices_in_the_sysfs_tree(tmp_path: Path) -> None:
    root = _sysfs(tmp_path)
    node0 = root / "sys/devices/system/node/node0"
    (node0 / "meminfo").unlink()
    os.mkfifo(node0 / "meminfo")
    (node0 / "distance").unlink()
    (node0 / "distance").symlink_to("/dev/zero")
    os.mkfifo(root / "sys/devices/system/cpu/cpu0/topology/core_id")  # never read: harmless
    result = _timed("topology", "capture", "--sysfs-root", str(root), "--name", "n", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "    - id: 0\n      socket: 0\n      memory: 0\n" in result.stdout  # meminfo skipped, not waited for
    (tmp_path / "captured.yaml").write_text(result.stdout)
    assert "schema" not in cli("check", "--format", "json", "captured.yaml", cwd=tmp_path).stdout


@pytest.mark.parametrize(("attribute", "text", "error"), [
    ("sys/devices/system/cpu/cpu0/topology/physical_package_id", "\u00b2", "'²' is not a number"),
    ("sys/devices/system/node/node0/distance", "10 abc", "'abc' is not a number"),
    ("sys/devices/system/node/node0/distance", "1" * 4400, "is not a number"),
    ("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal: inf kB", "'inf' is not a number"),
    ("sys/devices/system/node/node0/cpulist", "0-4294967295", "beyond any machine"),
    ("sys/bus/pci/devices/0000:5e:00.0/sriov_totalvfs", "99999", "more than any NIC has"),
    ("sys/devices/system/node/node0/meminfo", "x" * 70000, "more than 65536 bytes"),
    ("sys/devices/system/node/node99999999999/cpulist", "0", "supports NUMA node ids 0-63"),
])
def test_capture_refuses_what_no_kernel_writes_with_a_clear_error(tmp_path: Path, attribute: str, text: str,
                                                                  error: str) -> None:
    root = _sysfs(tmp_path)
    (root / attribute).parent.mkdir(parents=True, exist_ok=True)
    (root / attribute).write_text(text + "\n")
    result = _timed("topology", "capture", "--sysfs-root", str(root), cwd=tmp_path)
    assert result.returncode == 1 and error in result.stderr, result.stderr
    assert result.stdout == ""


NUMACTL = ("available: 2 nodes (0-1)\nnode 0 cpus: 0 1\nnode 0 size: 1024 MB\nnode 1 cpus: 2 3\n"
           "node 1 size: 1024 MB\nnode distances:\nnode   0   1\n  0:  10  21\n  1:  21  10\n")


@pytest.mark.parametrize(("text", "error"), [
    (NUMACTL.replace("node 1 cpus", "node \u00b2 cpus"), "NUMA node '²' is not a number"),
    (NUMACTL.replace("node 1 cpus", "node 99999999999 cpus"), "NUMA node 99999999999: numalint supports"),
    (NUMACTL.replace("node 1 size: 1024", "node 1 size: inf"), "size 'inf' is not a number"),
    (NUMACTL.replace("node 1 size: 1024", "node 1 size: " + "9" * 4400), "is not a number"),
    (NUMACTL.replace("1:  21  10", "1:  21  abc"), "distance 'abc' is not a number"),
    (NUMACTL.replace("cpus: 2 3", "cpus: 2 \u0663"), "CPU '٣' is not a number"),
    (NUMACTL.replace("cpus: 2 3", "cpus: " + " ".join(map(str, range(2, 1_000_002)))), "CPU 65536: numalint"),
    ("# CPU,Core,Socket,Node\n0,0,0,0\n1,1,0,\u00b9\n", "NODE value '¹' is not a number"),
    ("# CPU,Core,Socket,Node\n" + "".join(f"{i},{i},0,0\n" for i in range(70000)), "CPU 65536: numalint"),
    ("apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\nmetadata: {name: n}\nzones:\n"
     + "".join(f"  - {{name: node-{i}, type: Node, resources: [{{name: cpu, capacity: '4'}}]}}\n" for i in range(5000)),
     "4936 NUMA zone(s) ignored"),
])
def test_import_refuses_what_the_nodetopology_schema_refuses(tmp_path: Path, text: str, error: str) -> None:
    (tmp_path / "in.txt").write_text(text)
    result = _timed("topology", "import", "in.txt", cwd=tmp_path)
    assert result.returncode == 1 and error in result.stderr, result.stderr[-500:]


@pytest.mark.parametrize("text", [
    NUMACTL, "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n0,0,0,0,,0,0,0,0\n1,0,0,0,,0,0,0,0\n2,1,0,,,1,1,1,\n",
    "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\nmetadata: {name: n}\nzones:\n"
    "  - {name: node-0, type: Node, resources: [{name: cpu, capacity: '4'}, {name: 'x/a, numaNode: 7}', "
    "capacity: '1'}]}\n",
])
def test_imported_topologies_pass_check(tmp_path: Path, text: str) -> None:
    (tmp_path / "in.txt").write_text(text)
    imported = _timed("topology", "import", "in.txt", cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    (tmp_path / "topology.yaml").write_text(imported.stdout)
    checked = cli("check", "--format", "json", "topology.yaml", cwd=tmp_path)
    assert checked.returncode == 0 and json.loads(checked.stdout)["findings"] == [], checked.stdout


def test_import_of_one_core_of_many_cpus_is_linear(tmp_path: Path) -> None:
    # each CPU looked for its core's first CPU among all of the core's (60,000 on one core: quadratic, a hang)
    (tmp_path / "in.txt").write_text("# CPU,Core,Socket,Node\n" + "".join(f"{i},0,0,0\n" for i in range(60_000)))
    imported = _timed("topology", "import", "in.txt", cwd=tmp_path)
    assert imported.returncode == 0 and 'cores:\n        - "0-59999"\n' in imported.stdout, imported.stdout[-500:]


def _node_state_repo(directory: Path) -> Path:
    (directory / "kubelet.yaml").write_text(KUBELET + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
                                            "topologyManagerPolicy: single-numa-node\nmemoryManagerPolicy: Static\n"
                                            "reservedMemory: [{numaNode: 0, limits: {memory: 100Mi}}]\n")
    (directory / "topology.yaml").write_text(_topology())
    (directory / "pod.yaml").write_text(_pod('"2"'))
    state = directory / "state"
    state.mkdir()
    return state


@pytest.mark.parametrize(("cpu_state", "memory_state", "message"), [
    ("fifo", "/dev/zero", "is not a regular file"),
    ("/dev/zero", None, "is not a regular file"),
    ('{"policyName":"static","defaultCpuSet":"0-2,\u00b3","checksum":0}', None,
     'strconv.Atoi: parsing "³": invalid syntax'),
    ('{"policyName":"static","defaultCpuSet":"0-' + "9" * 4400 + '","checksum":0}', None,
     "(4400 characters)\": value out of range"),
    (None, '{"policyName":"Static","machineState":{"0":{"numberOfAssignments":' + "9" * 4400 + '}},"checksum":0}',
     "cannot read the checkpoint"),
    ("[" * 100000, None, "cannot read the checkpoint"),
    (None, '{"policyName":"Static","machineState":{"\u00b2":{"memoryMap":{}}},"checksum":0}',
     "unreadable machine state"),
    (None, '{"policyName":"Static","machineState":{"0":{"numberOfAssignments":1e999,"memoryMap":{}}},"checksum":0}',
     "unreadable machine state"),
    (None, '{"policyName":"Static","machineState":{"0":{"memoryMap":{"memory":{"total":"1","systemReserved":0,'
           '"allocatable":0,"reserved":0,"free":0}}}},"checksum":0}', "unreadable machine state"),
])
def test_hostile_node_state_checkpoints_are_node_state_findings(tmp_path: Path, cpu_state: str | None,
                                                                memory_state: str | None, message: str) -> None:
    state = _node_state_repo(tmp_path)
    for name, content in (("cpu_manager_state", cpu_state), ("memory_manager_state", memory_state)):
        if content == "fifo":
            os.mkfifo(state / name)
        elif content is not None and content.startswith("/dev/"):
            (state / name).symlink_to(content)
        elif content is not None:
            (state / name).write_text(content)
    for command in ("check", "simulate"):
        result = _timed(command, "--format", "json", "--node-state", "state", ".", cwd=tmp_path)
        if command == "check":
            problems = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "node-state"]
            assert result.returncode == 1 and problems and message in problems[0]["message"], result.stdout


def test_huge_topologies_get_findings_quickly(tmp_path: Path) -> None:
    nrt = tmp_path / "nrt"
    nrt.mkdir()
    (nrt / "nrt.yaml").write_text(
        "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\nmetadata: {name: n}\nzones:\n"
        + "".join(f"  - {{name: node-{i}, type: Node, resources: [{{name: cpu, capacity: '4096'}}]}}\n"
                  for i in range(5000)))
    (nrt / "kubelet.yaml").write_text(KUBELET + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n")
    messages = [f["message"] for f in json.loads(_timed("check", "--format", "json", "nrt", cwd=tmp_path,
                                                        limit=30).stdout)["findings"]]
    assert any("4936 NUMA zone(s) ignored" in m for m in messages)
    assert any("its CPUs are ignored: more than 65536 CPUs in all" in m for m in messages)
    dup = tmp_path / "dup"
    dup.mkdir()
    (dup / "t.yaml").write_text(_topology(1, 1).replace("    - {id: 0", "".join(
        f'    - {{id: {i % 64}, cpus: "{i}", memory: 1Gi}}\n' for i in range(1, 3000)) + "    - {id: 0"))
    findings = json.loads(_timed("check", "--format", "json", "dup", cwd=tmp_path).stdout)["findings"]
    assert any("NUMA node id 1 is declared twice" in f["message"] for f in findings)
    big = tmp_path / "big"
    big.mkdir()
    (big / "t.yaml").write_text(_topology(2, 32768).replace("spec:\n", "spec:\n  pool: {nodes: 1000}\n"))
    (big / "pod.yaml").write_text(_pod('"4"'))
    findings = json.loads(_timed("check", "--format", "json", "big", cwd=tmp_path, limit=40).stdout)["findings"]
    assert any("1000 nodes of 65536 CPUs are more than numalint simulates" in f["message"] for f in findings)
    million = tmp_path / "million"
    million.mkdir()
    (million / "t.yaml").write_text(_topology(1, 1_000_000))
    findings = json.loads(_timed("check", "--format", "json", "million", cwd=tmp_path).stdout)["findings"]
    assert any("beyond any machine" in f["message"] for f in findings)


def test_more_numa_nodes_than_numalint_simulates_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "kubelet.yaml").write_text(
        KUBELET + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\ntopologyManagerPolicy: best-effort\n"
        "topologyManagerPolicyOptions: {max-allowable-numa-nodes: \"32\"}\n")
    (tmp_path / "topology.yaml").write_text(_topology(20, 2))
    (tmp_path / "pod.yaml").write_text(_pod('"1"'))
    result = _timed("check", "--format", "json", ".", cwd=tmp_path)
    findings = json.loads(result.stdout)["findings"]
    assert result.returncode == 1
    assert [(f["rule"], f["severity"]) for f in findings] == [("too-many-numa-nodes", "warning")]
    assert "numalint simulates at most 16" in findings[0]["message"]
    simulated = _timed("simulate", ".", cwd=tmp_path).stdout
    assert "  not simulated: 20 NUMA nodes" in simulated and "the kubelet does not start" not in simulated


def _memory_state(change: str) -> str:
    """A memory_manager_state matching _node_state_repo's node (two NUMA nodes of 8Gi, 100Mi reserved on NUMA 0),
    with one hostile ``change``."""
    total, reserved = 8 << 30, 100 << 20

    def table(system: int, free: int | None = None) -> dict[str, int]:
        allocatable = total - system
        return {"total": total, "systemReserved": system, "allocatable": allocatable, "reserved": 0,
                "free": allocatable if free is None else free}

    machine: dict[str, Any] = {"0": {"numberOfAssignments": 0, "memoryMap": {"memory": table(reserved)}, "cells": [0]},
                               "1": {"numberOfAssignments": 0, "memoryMap": {"memory": table(0)}, "cells": [1]}}
    if change == "numa 64":
        machine["64"] = {"numberOfAssignments": 0, "memoryMap": {"memory": table(0)}, "cells": [64]}
    elif change == "free":
        machine["0"]["memoryMap"]["memory"]["free"] = 2**64 - 1
    elif change == "cells":
        machine["1"]["cells"] = [1, 9]
    entries: dict[str, Any] = {}
    if change == "a list":
        return json.dumps({"policyName": "Static", "machineState": [], "entries": {}, "checksum": 0})
    if change.startswith("empty"):
        machine = {}  # validateState then takes the default machine state, unless memory is assigned
    if change == "empty, assigned":
        entries = {"uid": {"c": [{"numaAffinity": [0], "type": "memory", "size": 1 << 30}]}}
    return json.dumps({"policyName": "Static", "machineState": machine, "entries": entries, "checksum": 0})


@pytest.mark.parametrize(("change", "said"), [
    ("", None),
    ("numa 64", "NUMA nodes 0, 1, 64 in the checkpoint, 0, 1 in the declared topology"),
    ("free", "NUMA 0: free and reserved memory do not add up to the allocatable"),
    ("cells", "NUMA 1: its cells name NUMA nodes the declared topology lacks"),
    ("empty", None),
    ("a list", "unreadable"),
])
def test_a_memory_checkpoint_of_other_numa_nodes_is_refused_not_a_traceback(tmp_path: Path, change: str,
                                                                          said: str | None) -> None:
    """validateState compares the whole machine state with the one it expects (areMachineStatesEqual): a NUMA node
    64 the node lacks raised "bit number must be in range 0-63", and a free memory of 2^64-1 printed gigabytes of
    bar in `simulate` (found by a hostile-input hunt)."""
    state = _node_state_repo(tmp_path)
    (state / "memory_manager_state").write_text(_memory_state(change))
    found = [f["message"] for f in json.loads(_timed("check", "--format", "json", "--node-state", "state", ".",
                                                     cwd=tmp_path).stdout)["findings"] if f["rule"] == "node-state"]
    if said == "unreadable":  # Go cannot decode a list into the map of NUMA nodes
        assert found == ["unreadable machine state in the checkpoint: machineState is not an object"], found
        return
    assert found == ([] if said is None else [
        f"[memorymanager] the expected machine state is different from the real one ({said})"]), found
    shown = _timed("simulate", "--node-state", "state", ".", cwd=tmp_path)
    assert len(shown.stdout) < 20_000, len(shown.stdout)


def test_an_empty_memory_machine_state_with_assignments_is_refused(tmp_path: Path) -> None:
    """policy_static.go validateState: an empty machine state is the default one, but not beside assignments."""
    state = _node_state_repo(tmp_path)
    (state / "memory_manager_state").write_text(_memory_state("empty, assigned"))
    found = [f["message"] for f in json.loads(_timed("check", "--format", "json", "--node-state", "state", ".",
                                                     cwd=tmp_path).stdout)["findings"] if f["rule"] == "node-state"]
    assert found == ["[memorymanager] machine state can not be empty when it has memory assignments"], found


def test_long_label_keys_beside_a_misspelt_selector_key_stay_linear(tmp_path: Path) -> None:
    """A selector key's misspelling is found through the pools' keys less one letter each: keys of 16,000 characters
    made that 16,000 copies of each (64 such keys: 16 GB; found by a hunt). No label key is longer than 317
    characters."""
    keys = ["".join(chr(97 + (i * 7 + j * 13 + j // 26) % 26) for j in range(16_000)) for i in range(64)]
    labels = "".join(f"    ? {key}\n    : v\n" for key in keys)  # explicit: libyaml takes no longer plain keys
    (tmp_path / "mcp.yaml").write_text(
        "apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata:\n  name: p\n"
        f"  labels:\n{labels}spec:\n  nodeSelector: {{matchLabels: {{node-role.kubernetes.io/p: ''}}}}\n")
    (tmp_path / "kc.yaml").write_text(
        "apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {name: kc}\nspec:\n"
        f"  machineConfigPoolSelector:\n    matchLabels:\n      ? {keys[0][1:]}\n      : v\n"
        "  kubeletConfig: {cpuManagerPolicy: static, reservedSystemCPUs: '0'}\n")
    result = _timed("check", "--format", "json", "--fail-on", "never", ".", cwd=tmp_path)
    assert "yaml-syntax" not in {f["rule"] for f in json.loads(result.stdout)["findings"]}


def test_thousands_of_checkpoint_entries_naming_cpus_the_node_lacks_are_refused_at_once(tmp_path: Path) -> None:
    """Each entry of "0-65535" was made a set of 65,536 CPUs: 1,000 of them took gigabytes (found by a hostile-input
    hunt). A cpuset naming a CPU the topology lacks can never add up to the node's CPUs."""
    state = _node_state_repo(tmp_path)
    entries = {f"pod{i}": {"c": "0-65535"} for i in range(20_000)}
    (state / "cpu_manager_state").write_text(json.dumps({"policyName": "static", "defaultCpuSet": "0-65535",
                                                         "entries": entries, "checksum": 0}))
    found = [f["message"] for f in json.loads(_timed("check", "--format", "json", "--node-state", "state", ".",
                                                     cwd=tmp_path).stdout)["findings"] if f["rule"] == "node-state"]
    assert found == ['current set of available CPUs "0-15" doesn\'t match with CPUs in state (it names CPU 65535: '
                     "the topology differs from this node's)"], found


def test_a_thousand_nodes_of_a_hundred_thousand_devices_are_counted_per_numa_node(tmp_path: Path) -> None:
    """What each NUMA node holds of a device was counted by looking at every device of the machine, per NUMA node,
    twice per node: 1,000 nodes of 32 x 4,096 devices took 74 s (found by a hostile-input hunt)."""
    devices = "".join(f"    - {{resource: example.com/dev, numaNode: {i % 2}, count: 4096}}\n" for i in range(32))
    (tmp_path / "kubelet.yaml").write_text(KUBELET + "cpuManagerPolicy: static\nreservedSystemCPUs: \"0\"\n"
                                           "topologyManagerPolicy: single-numa-node\n")
    (tmp_path / "topology.yaml").write_text(_topology().replace("spec:\n", "spec:\n  pool: {nodes: 1000}\n")
                                            + "  devices:\n" + devices)
    (tmp_path / "pod.yaml").write_text(_pod('"2"'))
    result = _timed("check", "--format", "json", "--fail-on", "never", ".", cwd=tmp_path, limit=20)
    assert json.loads(result.stdout)["summary"]["files"] == 3
