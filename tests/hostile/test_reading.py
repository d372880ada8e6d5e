"""Reading hostile input: YAML keys, aliases, special files, cost, dead workers, permissions, stdin.

Every input is built in tmp_path at test time; the CLI runs as a subprocess with a timeout, so a hang
fails the test instead of the suite.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from numalint.reading.yamlpos import MAX_DEPTH

ROOT = Path(__file__).resolve().parents[2]
KUBELET = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


class Ran:
    def __init__(self, proc: subprocess.CompletedProcess[bytes]) -> None:
        self.code = proc.returncode
        self.out = proc.stdout.decode("utf-8", "replace")
        self.err = proc.stderr.decode("utf-8", "replace")
        assert "Traceback" not in self.err, self.err

    def findings(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = json.loads(self.out)["findings"]
        return result


def cli(*args: str, stdin: bytes = b"", cwd: Path | None = None, timeout: float = 20,
        env: dict[str, str] | None = None, user: tuple[int, int] | None = None) -> Ran:
    """Run ``python -m numalint`` (optionally as another uid/gid) and fail on a hang or a traceback."""
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}

    def drop() -> None:
        if user is not None:
            os.setgid(user[1])
            os.setuid(user[0])

    proc = subprocess.run([sys.executable, "-m", "numalint", *args], input=stdin, capture_output=True,
                          cwd=cwd or ROOT, timeout=timeout, env=full_env, preexec_fn=drop if user else None)
    return Ran(proc)


def by_rule(ran: Ran, rule: str) -> list[dict[str, Any]]:
    return [f for f in ran.findings() if f["rule"] == rule]


# --- YAML keys read as Kubernetes reads them -------------------------------------------------------------


def test_key_beside_merge_overrides_without_duplicate(tmp_path: Path) -> None:
    (tmp_path / "k.yaml").write_text(KUBELET + "x: &base\n  cpuManagerPolicy: static\n"
                                     "spec:\n  <<: *base\n  cpuManagerPolicy: none\n"
                                     "<<: *base\ncpuManagerPolicy: none\n")
    ran = cli("check", "-f", "json", str(tmp_path / "k.yaml"))
    assert not [f for f in ran.findings() if "duplicate" in f["message"]]


def test_keys_one_true_and_one_point_zero_are_distinct(tmp_path: Path) -> None:
    (tmp_path / "k.yaml").write_text(KUBELET + "1: a\ntrue: b\n1.0: c\n")
    ran = cli("check", "-f", "json", str(tmp_path / "k.yaml"))
    messages = [f["message"] for f in ran.findings()]
    assert not [m for m in messages if "duplicate" in m]
    assert sum('unknown field "' in m for m in messages) == 3
    (tmp_path / "k.yaml").write_text(KUBELET + "true: a\nyes: b\n")  # the same boolean key twice
    assert [f for f in cli("check", "-f", "json", str(tmp_path / "k.yaml")).findings()
            if 'duplicate field "yes"' in f["message"]]


# --- Aliases ---------------------------------------------------------------------------------------------


def _laughs(field: str, levels: int, width: int = 9, comment: str = "") -> str:
    lines = [KUBELET.rstrip("\n"), comment, "l0: &a0 [lol]"]
    lines += [f"l{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join([*lines, f"{field}: *a{levels - 1}"]) + "\n"


@pytest.mark.parametrize("field", ["featureGates", "cpuManagerPolicyOptions", "reservedMemory", "evictionHard",
                                   "systemReserved", "kubeReserved"])
def test_billion_laughs_under_typed_field_is_one_finding(tmp_path: Path, field: str) -> None:
    (tmp_path / "b.yaml").write_text(_laughs(field, 10))
    (tmp_path / "ok.yaml").write_text(KUBELET + "cpuManagerPolicy: Static\n")
    ran = cli("check", "-f", "json", str(tmp_path))
    syntax = by_rule(ran, "yaml-syntax")
    assert len(syntax) == 1 and "alias expansion too large" in syntax[0]["message"]
    assert syntax[0]["file"].endswith("b.yaml") and syntax[0]["line"] > 1
    assert any(f["file"].endswith("ok.yaml") for f in ran.findings())  # the run went on
    assert ran.code == 1


def test_small_alias_fan_out_is_described_by_size_not_repr(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text(_laughs("featureGates", 4))
    ran = cli("check", "-f", "json", str(tmp_path / "b.yaml"))
    [schema] = by_rule(ran, "schema")
    assert "a list of 9 item(s)" in schema["message"] and "lol" not in schema["message"]


@pytest.mark.parametrize("comment", ["# {{ .Values.x }}", "a: '{{ .Values.x }}'"])
def test_nested_aliases_with_template_text_do_not_hang(tmp_path: Path, comment: str) -> None:
    (tmp_path / "t.yaml").write_text(_laughs("featureGates", 5, width=9, comment=comment))  # ~7,000 nodes
    ran = cli("check", "-f", "json", str(tmp_path / "t.yaml"))
    assert ran.code in (0, 1) and {f["rule"] for f in ran.findings()} & {"schema", "not-lintable"}
    (tmp_path / "t.yaml").write_text(_laughs("featureGates", 30, width=2, comment=comment))  # 2^29 nodes
    [syntax] = by_rule(cli("check", "-f", "json", str(tmp_path / "t.yaml")), "yaml-syntax")
    assert "alias expansion too large" in syntax["message"]
    (tmp_path / "t.yaml").write_text(KUBELET + comment + "\nx: &a [*a, *a, *a]\n")
    [syntax] = by_rule(cli("check", "-f", "json", str(tmp_path / "t.yaml")), "yaml-syntax")
    assert "contains itself" in syntax["message"]


# --- Special files ---------------------------------------------------------------------------------------

POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers: [{name: c, image: i}]\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_and_devices_are_findings_and_the_run_goes_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.yaml")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    (tmp_path / "random.yml").symlink_to("/dev/urandom")
    (tmp_path / "ok.yaml").write_text(KUBELET + "cpuManagerPolicy: Static\n")
    for args in (["check", "-f", "json", str(tmp_path)],
                 ["check", "-f", "json", str(tmp_path / "fifo.yaml"), str(tmp_path / "zero.yaml"),
                  str(tmp_path / "ok.yaml"), str(tmp_path / "random.yml")]):
        ran = cli(*args)
        unread = {Path(f["file"]).name: f["message"] for f in by_rule(ran, "yaml-syntax")}
        assert unread == {"fifo.yaml": "not a regular file (a FIFO); not read",
                          "zero.yaml": "not a regular file (a character device); not read",
                          "random.yml": "not a regular file (a character device); not read"}
        assert any(f["file"].endswith("ok.yaml") for f in ran.findings())
        assert ran.code == 1
    # a --topology is the hardware every pod is checked on: one that cannot be read is a usage error
    refused = cli("check", str(tmp_path / "ok.yaml"), "--topology", str(tmp_path / "random.yml"))
    assert refused.code == 2 and "not a regular file" in refused.err


def test_config_file_that_is_a_fifo_is_a_usage_error(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".numalint.yaml")
    (tmp_path / "ok.yaml").write_text(POD)
    ran = cli("check", "ok.yaml", cwd=tmp_path)
    assert ran.code == 2 and "not a regular file" in ran.err


# --- Nothing skipped silently ----------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["topologies", "context"])
def test_misspelt_config_path_is_a_usage_error(tmp_path: Path, key: str) -> None:
    (tmp_path / "topology.yaml").write_text("apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\n")
    (tmp_path / ".numalint.yaml").write_text(f"{key}:\n  - topology.yaml\n  - topolgy.yaml\n")
    (tmp_path / "ok.yaml").write_text(POD)
    for command in ("check", "simulate"):
        ran = cli(command, "ok.yaml", cwd=tmp_path)
        assert ran.code == 2
        assert ".numalint.yaml:3:5" in ran.err and "topolgy.yaml: no such file or directory" in ran.err


# --- Permissions and stdin -------------------------------------------------------------------------------


def _without_permission_override() -> None:
    """Drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding set: root then obeys permission bits."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def cli_unprivileged(*args: str, cwd: Path) -> Ran:
    """Run the CLI so that permission bits apply (tests run as root, which bypasses them)."""
    if os.geteuid() != 0:
        return cli(*args, cwd=cwd)
    if not sys.platform.startswith("linux"):
        pytest.skip("root bypasses permission bits and capabilities can only be dropped on Linux here")
    try:
        proc = subprocess.run([sys.executable, "-m", "numalint", *args], capture_output=True, cwd=cwd, timeout=20,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, preexec_fn=_without_permission_override)
    except subprocess.SubprocessError as err:
        pytest.skip(f"cannot drop CAP_DAC_OVERRIDE to test permissions as root: {err}")
    return Ran(proc)


@pytest.fixture
def locked(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A tree with an unreadable file, an unreadable directory and a directory that cannot be entered."""
    (tmp_path / "secret.yaml").write_text(POD)
    (tmp_path / "ok.yaml").write_text(KUBELET + "cpuManagerPolicy: Static\n")
    for name, mode in (("locked", 0o000), ("noexec", 0o644)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "in.yaml").write_text(POD)
        (tmp_path / name).chmod(mode)
    (tmp_path / "secret.yaml").chmod(0o000)
    yield tmp_path
    for name in ("locked", "noexec"):
        (tmp_path / name).chmod(0o755)


def test_unreadable_file_on_command_line_is_a_finding(locked: Path) -> None:
    ran = cli_unprivileged("check", "-f", "json", "secret.yaml", "ok.yaml", cwd=locked)
    assert [(f["file"], f["message"]) for f in by_rule(ran, "yaml-syntax")] == [
        ("secret.yaml", "cannot read file: Permission denied")]
    assert any(f["file"] == "ok.yaml" for f in ran.findings()) and ran.code == 1


def test_unreadable_directories_in_a_tree_are_findings(locked: Path) -> None:
    ran = cli_unprivileged("check", "-f", "json", ".", cwd=locked)
    unread = {f["file"]: f["message"] for f in by_rule(ran, "yaml-syntax")}
    assert unread == {"./locked": "cannot read directory: Permission denied",
                      "./noexec/in.yaml": "cannot read file: Permission denied",
                      "./secret.yaml": "cannot read file: Permission denied"}
    assert any(f["file"] == "./ok.yaml" for f in ran.findings()) and ran.code == 1


def test_file_inside_unreadable_directory_is_a_finding(locked: Path) -> None:
    ran = cli_unprivileged("check", "-f", "json", "locked/in.yaml", "noexec/in.yaml", "ok.yaml", cwd=locked)
    unread = {f["file"]: f["message"] for f in by_rule(ran, "yaml-syntax")}
    assert unread == {"locked/in.yaml": "cannot read file: Permission denied",
                      "noexec/in.yaml": "cannot read file: Permission denied"}
    assert ran.code == 1


NOT_UTF8 = {"latin-1": KUBELET.encode() + "cpuManagerPolicy: st\xe4tic\n".encode("latin-1"),
            "random": KUBELET.encode() + bytes(range(128, 256))}


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1", "ascii"])
@pytest.mark.parametrize("name", sorted(NOT_UTF8))
def test_stdin_that_is_not_utf8_is_the_same_finding_as_a_file(tmp_path: Path, name: str, encoding: str) -> None:
    data = NOT_UTF8[name]
    (tmp_path / "in.yaml").write_bytes(data)
    env = {"PYTHONIOENCODING": encoding}
    [expected] = by_rule(cli("check", "-f", "json", str(tmp_path / "in.yaml"), env=env), "yaml-syntax")
    assert expected["message"].startswith("file is not UTF-8 text")
    # at the byte it names, not 1:1 (line 3: after apiVersion and kind; the column counts bytes)
    assert (expected["line"], expected["column"]) == (3, 21 if name == "latin-1" else 1), expected
    ran = cli("check", "-f", "json", "-", stdin=data, env=env)
    [finding] = by_rule(ran, "yaml-syntax")
    assert (finding["message"], finding["line"], finding["file"]) == (expected["message"], expected["line"], "-")
    assert ran.code == 2
    fixed = cli("fix", "-", stdin=data, env=env)
    assert fixed.code == 2 and expected["message"] in fixed.err  # as for a file that cannot be read
    assert fixed.out.encode("utf-8", "replace") == data.decode("utf-8", "replace").encode("utf-8", "replace")
    simulated = cli("simulate", "-", stdin=data, env=env)
    assert simulated.code == 2 and expected["message"] in simulated.err


# --- A dead worker -------------------------------------------------------------------------------------


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="finds worker processes through /proc")
def test_killed_worker_is_reported_not_waited_for(tmp_path: Path) -> None:
    import signal
    import time

    for i in range(600):
        (tmp_path / f"p{i}.yaml").write_text("---\n".join([POD] * 20))
    proc = subprocess.Popen([sys.executable, "-m", "numalint", "check", "-j", "2", "-f", "json", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
    killed = False
    deadline = time.monotonic() + 20
    while not killed and proc.poll() is None and time.monotonic() < deadline:
        workers = children.read_text().split() if children.exists() else []
        if workers:
            os.kill(int(workers[0]), signal.SIGKILL)  # what the OOM killer does
            killed = True
        time.sleep(0.01)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the run hung after a worker was killed")
    assert killed, "the run ended before a worker could be killed"
    ran = Ran(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    unchecked = [f for f in by_rule(ran, "yaml-syntax") if f["message"].startswith("not checked")]
    assert unchecked and all(f["file"].endswith(".yaml") for f in unchecked)
    assert ran.code == 2


# --- Bounded cost ----------------------------------------------------------------------------------------


def test_megabyte_of_duplicate_keys_is_capped(tmp_path: Path) -> None:
    (tmp_path / "d.yaml").write_text(KUBELET + "cpuManagerPolicy: static\n" * (1024 * 1024 // 25))
    ran = cli("check", "-f", "json", str(tmp_path / "d.yaml"))
    unknown = by_rule(ran, "unknown-field")
    assert len(unknown) == 101 and unknown[-1]["message"].startswith("… and more unknown-field finding(s)")
    assert len(ran.out) < 200_000


def test_huge_list_of_wrong_items_is_capped_per_rule(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(KUBELET + "reservedMemory: [" + ",".join(["{}"] * 100_000) + "]\n")
    ran = cli("check", "-f", "json", str(tmp_path / "r.yaml"))
    counts: dict[str, int] = {}
    for finding in ran.findings():
        counts[finding["rule"]] = counts.get(finding["rule"], 0) + 1
    assert counts["schema"] == 101 and counts["reserved-memory-numa"] == 101
    # only the first 1,024 entries are read, and one finding says so
    assert "reservedMemory holds 100000 entries" in ran.out and "925 more reserved-memory-numa" in ran.out
    assert len(ran.out) < 300_000


@pytest.mark.parametrize("text", ["a: " + "[" * 100_000 + "]" * 100_000 + "\n",
                                  "".join("  " * i + f"k{i}:\n" for i in range(2_000))])
def test_deep_nesting_is_a_finding(tmp_path: Path, text: str) -> None:
    (tmp_path / "n.yaml").write_text(text)
    (tmp_path / "ok.yaml").write_text(POD)
    ran = cli("check", "-f", "json", str(tmp_path))
    [finding] = by_rule(ran, "yaml-syntax")
    assert finding["message"] == "nesting too deep to read" and finding["file"].endswith("n.yaml")


@pytest.mark.parametrize(("text", "line", "col"), [
    ("a: " + "[" * 100_000 + "]" * 100_000 + "\n", 1, 4 + MAX_DEPTH),  # the first "[" past the limit
    ("a: " + "[" * (2 * MAX_DEPTH) + "]" * (2 * MAX_DEPTH) + "\n", 1, 4 + MAX_DEPTH),  # a few levels past it
    ("".join("  " * i + f"k{i}:\n" for i in range(2_000)), MAX_DEPTH + 2, 1 + 2 * (MAX_DEPTH + 1)),  # its value
])
def test_deep_nesting_points_at_where_it_gets_too_deep(tmp_path: Path, text: str, line: int, col: int) -> None:
    # before, nesting that reached Python's recursion limit first was reported at 1:1, far from the cause
    (tmp_path / "n.yaml").write_text(text)
    [finding] = by_rule(cli("check", "-f", "json", str(tmp_path / "n.yaml")), "yaml-syntax")
    assert (finding["message"], finding["line"], finding["column"]) == ("nesting too deep to read", line, col)


def test_many_long_feature_gate_names_are_checked_and_a_misspelt_one_found(tmp_path: Path) -> None:
    # each name was compared letter by letter with every known gate: 20,000 of them took 27 s (the timeout says hang)
    gates = "".join(f"  SomeVendorGate{i:07}: true\n" for i in range(20_000))
    (tmp_path / "k.yaml").write_text(KUBELET + "featureGates:\n" + gates + "  CPUManagerPolicyOptionz: true\n")
    [finding] = cli("check", "-f", "json", str(tmp_path / "k.yaml")).findings()
    assert finding["rule"] == "kubelet-start" and finding["line"] == 20_004
    assert 'CPUManagerPolicyOptionz (did you mean "CPUManagerPolicyOptions"?)' in finding["message"]


def test_fixes_in_a_file_of_too_many_findings_to_prove_are_hints_at_once(tmp_path: Path) -> None:
    # 11,000 unquoted "yes" labels: past 10,000 findings of one rule a fix's proof refuses the file, whichever of its
    # fixes are tried; that was taken for a refuted group and halved down to single fixes, each reading the file again
    # (43 s; the timeout says hang)
    pods = "---\n".join(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, labels: {{a: yes, b: yes, c: yes, d: yes, "
                        "e: yes}}\nspec: {containers: [{name: c, image: x}]}\n" for i in range(2_200))
    (tmp_path / "pods.yaml").write_text(pods)
    found = cli("check", "-f", "json", str(tmp_path / "pods.yaml")).findings()
    fixes = [f["fix"] for f in found if f["fix"] is not None]
    assert len(fixes) == 100 and all(fix["safety"] == "display" and fix["description"].endswith(
        "the file has over 10,000 findings of one rule to compare; decide by hand") for fix in fixes)


def test_many_unknown_keys_of_a_profile_are_suggested_for_as_far_as_shown(tmp_path: Path) -> None:
    # every one of 8,000 unknown keys was matched against the schema and each hint named every key aimed at the same
    # field (quadratic: 10 s); only the keys a report shows are (the rest become one summary), as for a kubelet's
    profile = ("apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {name: pp}\nspec:\n"
               "  cpu: {isolated: '2-3', reserved: '0-1'}\n  nodeSelector: {node-role.kubernetes.io/w: ''}\n"
               + "".join(f"  hugepagesX{i}: 1\n" for i in range(8_000)))
    (tmp_path / "pp.yaml").write_text(profile)
    found = cli("check", "-f", "json", str(tmp_path / "pp.yaml")).findings()
    unknown = [f for f in found if f["rule"] == "unknown-field"]
    assert len(unknown) == 101 and unknown[0]["message"].endswith('did you mean "hugepages"?')
    hint = unknown[0]["fix"]["description"]
    assert '"hugepagesX0" and "hugepagesX1"' in hint and '"hugepagesX99" as "hugepages"' in hint
    assert "hugepagesX100" not in hint and unknown[-1]["message"].startswith("… and more unknown-field")


def test_thousands_of_kubeletconfigs_of_one_pool_name_ten_others_each(tmp_path: Path) -> None:
    # each configuration's finding worked out and named every other one (4,000 of them: 25 s, the timeout says hang)
    (tmp_path / "kc.yaml").write_text("".join(
        f"---\napiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata: {{name: kc{i}}}\n"
        "spec:\n  machineConfigPoolSelector:\n    matchLabels:\n      pools.operator.machineconfiguration.openshift.io/"
        "worker: ''\n  kubeletConfig: {cpuManagerPolicy: static, reservedSystemCPUs: '0-1'}\n" for i in range(4_000)))
    ran = cli("check", "-f", "json", str(tmp_path / "kc.yaml"))
    found = [f for f in ran.findings() if f["rule"] == "kubeletconfig-pool"]
    assert len(found) == 101 and found[0]["message"].startswith(
        'MachineConfigPool "worker" is selected by KubeletConfig kc0 and KubeletConfig kc1, KubeletConfig kc2')
    assert "KubeletConfig kc10 and 3989 more: KubeletConfigs do not merge" in found[0]["message"]


def test_thousands_of_sriov_policies_on_the_same_vfs_stop_at_the_findings_shown(tmp_path: Path) -> None:
    # every pair is a finding: 3,000 policies made 4.5 million of them, for a report of a hundred (2,000: 29 s and
    # 450 MB; the timeout says hang); the first hundred and the summary's place are as before
    (tmp_path / "p.yaml").write_text("".join(
        f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata:\n  name: p{i}\n"
        f"  namespace: openshift-sriov-network-operator\nspec:\n  resourceName: r{i}\n  numVfs: 8\n"
        "  nicSelector: {pfNames: ['ens1f0#0-3']}\n  nodeSelector: {a: b}\n" for i in range(3_000)))
    found = by_rule(cli("check", "-f", "json", str(tmp_path / "p.yaml")), "sriov-policy-conflict")
    assert len(found) == 101
    assert [f['message'].split('"')[3] for f in found[:100]] == [f"p{i}" for i in range(1, 101)]  # each with p0
    assert found[100]["message"].startswith("… and more sriov-policy-conflict finding(s) in this file")
    assert found[100]["line"] == 1 + 11 * 101 + 9  # p101, whose pair with p0 is the first not shown


def test_sriov_selectors_held_by_thousands_share_a_bounded_index(tmp_path: Path) -> None:
    # every subset of ten labels as a node selector (two policies each) beside a thousand selectors holding them all:
    # an index of its holders for each subset took 2 GB and 29 s (found by review, in this session's change)
    labels = [f"l{i}" for i in range(10)]

    def policy(name: str, selector: list[str]) -> str:
        pairs = ", ".join(f"{label}: '1'" for label in selector)
        return (f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata: "
                f"{{name: {name}, namespace: openshift-sriov-network-operator}}\nspec:\n  resourceName: r{name}\n"
                "  numVfs: 8\n"
                f"  nodeSelector: {{{pairs}}}\n  nicSelector: {{pfNames: [pf{name}]}}\n")

    subsets = [list(subset) for size in range(1, 11) for subset in itertools.combinations(labels, size)]
    (tmp_path / "p.yaml").write_text("".join(policy(f"n{n}c{c}", subset) for n, subset in enumerate(subsets)
                                             for c in (0, 1))
                                     + "".join(policy(f"w{j}", [*labels, f"w{j}"]) for j in range(1_000))
                                     + policy("late", labels).replace("pflate", "pfn0c0"))
    [found] = by_rule(cli("check", "-f", "json", str(tmp_path / "p.yaml")), "sriov-policy-conflict")
    assert 'of "late" is overlapped with existing policy "n0c0"' in found["message"]


def test_thousands_of_sriov_policies_of_one_resource_compare_only_pairs_that_can_conflict(tmp_path: Path) -> None:
    # every pair of policies sharing a resourceName was compared (4,000 of them: 61 s, the timeout says hang); the
    # one pair that conflicts, on a PF, is still found
    def policy(name: str, pf: str) -> str:
        return (f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata:\n"
                f"  name: {name}\n  namespace: openshift-sriov-network-operator\nspec:\n  resourceName: r\n"
                f"  numVfs: 8\n  nicSelector: {{pfNames: [{pf}]}}\n  nodeSelector: {{a: b}}\n")
    (tmp_path / "p.yaml").write_text("".join(policy(f"p{i}", f"ens{i}f0") for i in range(4_000))
                                     + policy("late", "'ens7f0#0-3'") + policy("later", "ens9f0"))
    found = by_rule(cli("check", "-f", "json", str(tmp_path / "p.yaml")), "sriov-policy-conflict")
    assert [(f["line"], f["message"].split(" of ")[1][:9]) for f in found] == [(44_021, "\"later\" i")]
    assert found[0]["related"][0]["message"] == "SriovNetworkNodePolicy openshift-sriov-network-operator/p9"


def test_kubeletconfigs_beside_thousands_of_pools_find_theirs_and_name_ten_pools(tmp_path: Path) -> None:
    # the pools were made again for each configuration and each was tried against every pool, and the fix named
    # every pool (2,000 of each: 41 s, the timeout says hang); then each fix still went through every pool near it
    # (12,000 of each: quadratic)
    pools = "".join(
        f"---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata:\n  name: mcp{i}\n"
        f"  labels: {{pools.operator.machineconfiguration.openshift.io/mcp{i}: ''}}\nspec:\n"
        f"  nodeSelector: {{matchLabels: {{node-role.kubernetes.io/mcp{i}: ''}}}}\n" for i in range(12_000))
    configs = "".join(
        "---\napiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\nmetadata:\n"
        f"  name: kc{i}\nspec:\n  machineConfigPoolSelector:\n    matchLabels: {{{label}}}\n"
        "  kubeletConfig: {cpuManagerPolicy: static, reservedSystemCPUs: '0-1'}\n"
        for i, label in enumerate(["machineconfiguration.openshift.io/role: nosuch"] * 11_999
                                  + ["pools.operator.machineconfiguration.openshift.io/mcp7: ''"]))
    (tmp_path / "c.yaml").write_text(pools + configs)
    found = by_rule(cli("check", "-f", "json", str(tmp_path / "c.yaml")), "kubeletconfig-pool")
    assert len(found) == 101 and found[-1]["message"].startswith("… and 11899 more kubeletconfig-pool")
    assert found[0]["message"].startswith("KubeletConfig kc0 selects no MachineConfigPool of the run")
    offers = found[0]["fix"]["description"]
    assert offers.startswith('select the intended MachineConfigPool by its labels: "mcp0" carries pools.operator.')
    assert '"mcp9" carries' in offers and '"mcp10"' not in offers and offers.endswith("; and 11990 more pools")


def test_a_kustomization_of_thousands_of_pattern_targets_settles_what_its_patterns_match(tmp_path: Path) -> None:
    # every pattern was tried for every finding (8,000 patterns over 1,000 Pods: 35 s, the timeout says hang)
    for i in range(1_000):
        (tmp_path / f"p{i}.yaml").write_text(f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, labels: "
                                             "{d: yes}}\nspec: {containers: [{name: c, image: x}]}\n")
    def patch(pattern: str, label: str) -> str:
        return (f"- target: {{kind: Pod, name: '{pattern}'}}\n  patch: |-\n    - op: add\n"
                f"      path: /metadata/labels/{label}\n      value: 'y'\n")
    (tmp_path / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
        + "".join(f"- p{i}.yaml\n" for i in range(1_000)) + "patches:\n"
        + "".join(patch(f"p.*q{i}", "x") for i in range(8_000)) + patch("p(7|99)[7]", "d") + patch("[", "d"))
    found = by_rule(cli("check", "-f", "json", str(tmp_path)), "schema")
    assert len(found) == 998 and {"p77.yaml", "p997.yaml"}.isdisjoint(f["file"] for f in found)


def test_thousands_of_sriov_operator_configs_are_not_walked_for_each_policy(tmp_path: Path) -> None:
    # each policy with a "-" in its resourceName looked through every SriovOperatorConfig for the one that turns
    # the webhook off (5,000 of each: 36 s, the timeout says hang)
    def config(name: str) -> str:
        return ("---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovOperatorConfig\nmetadata:\n"
                f"  name: {name}\n  namespace: openshift-sriov-network-operator\n"
                "spec: {enableOperatorWebhook: false}\n")

    def policy(i: int) -> str:
        return (f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata:\n"
                f"  name: p{i}\n  namespace: openshift-sriov-network-operator\nspec:\n  resourceName: r-{i}\n"
                "  numVfs: 8\n"
                f"  nicSelector: {{pfNames: [ens{i}f0]}}\n  nodeSelector: {{n{i}: b}}\n")
    configs = "".join(config(f"c{i}") for i in range(5_000))
    policies = "".join(policy(i) for i in range(5_000))
    (tmp_path / "p.yaml").write_text(configs + policies)
    assert len(by_rule(cli("check", "-f", "json", str(tmp_path / "p.yaml")), "schema")) == 101  # the webhook refuses
    (tmp_path / "p.yaml").write_text(configs + config("default") + policies)
    assert cli("check", "-f", "json", str(tmp_path / "p.yaml")).findings() == []  # the device plugin takes "-"


def test_pods_attaching_a_network_name_of_thousands_of_namespaces_look_it_up_once(tmp_path: Path) -> None:
    # each pod walked every network of the name, twice, and its finding named every namespace (8,000 networks and
    # 8,000 pods: over 30 s, the timeout says hang)
    networks = "".join(f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetwork\nmetadata: {{name: net, "
                       f"namespace: ns{i}}}\nspec: {{resourceName: r{i}, networkNamespace: ns{i}}}\n"
                       for i in range(8_000))
    pods = "".join(f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}, namespace: zz, annotations: "
                   "{k8s.v1.cni.cncf.io/networks: net}}, spec: {containers: [{name: c, image: x, resources: "
                   "{limits: {cpu: 2, memory: 1Gi}}}]}}\n" for i in range(8_000))
    (tmp_path / "n.yaml").write_text(networks + pods)
    found = by_rule(cli("check", "-f", "json", str(tmp_path / "n.yaml")), "sriov-unknown-resource")
    assert len(found) == 101 and found[0]["message"].startswith(
        'Pod zz/p0 attaches network "net" (k8s.v1.cni.cncf.io/networks), but the network of that name is in '
        'namespace "ns0" and "ns1" and "ns10" and "ns100"')
    assert ' and 7990 more, not in "zz", where Multus looks' in found[0]["message"]


def test_a_policy_repeating_one_pf_counts_once(tmp_path: Path) -> None:
    # each entry of the PF was paired with every other entry of it (40,000: over 30 s, the timeout says hang)
    def policy(name: str, pfs: str) -> str:
        return ("---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata:\n"
                f"  name: {name}\n  namespace: openshift-sriov-network-operator\nspec:\n  resourceName: {name}\n"
                f"  numVfs: 8\n  nicSelector: {{pfNames: [{pfs}]}}\n  nodeSelector: {{a: b}}\n")
    (tmp_path / "p.yaml").write_text(policy("a", ", ".join(["ens1f0"] * 40_000)) + policy("b", "ens1f0"))
    [found] = by_rule(cli("check", "-f", "json", str(tmp_path / "p.yaml")), "sriov-policy-conflict")
    assert found["line"] == 21 and 'of "b" is overlapped with existing policy "a"' in found["message"]


def test_thousands_of_repeats_each_with_a_suppression_are_judged_once(tmp_path: Path) -> None:
    # each suppression was compared with every repeat of the object (16,000 copies: 27 s, the timeout says hang)
    (tmp_path / "p.yaml").write_text("".join(
        "---\nkind: Pod\napiVersion: v1\nmetadata: {name: p}  # numalint: disable=not-guaranteed\n"
        "spec: {containers: [{name: c, image: x}]}\n" for _ in range(16_000)))
    [found] = cli("check", "-f", "json", str(tmp_path / "p.yaml")).findings()
    assert (found["rule"], found["line"], found["column"]) == ("unused-suppression", 4, 22)  # the first copy's


def test_thousands_of_disable_file_lines_add_up_in_linear_time_and_report_a_hundred(tmp_path: Path) -> None:
    # each `disable-file` line copied the rules of all those before it (60,000 lines: over 30 s, the timeout says
    # hang), and each unknown rule was its own unused-suppression finding, past the hundred a file reports
    (tmp_path / "p.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n" + "".join(
        f"# numalint: disable-file=bogus{i}\n" for i in range(60_000)))
    found = cli("check", "-f", "json", str(tmp_path / "p.yaml")).findings()
    assert len(found) == 101 and {f["rule"] for f in found} == {"unused-suppression"}
    assert found[-1]["message"].startswith("… and 59900 more unused-suppression finding(s) in this file")
    assert (found[0]["line"], found[0]["column"], found[0]["message"]) == (
        5, 1, 'suppression of "bogus0" is unused (unknown rule)')


def test_one_instancetype_name_in_thousands_of_namespaces_is_found_by_namespace(tmp_path: Path) -> None:
    # each VM looked through every instancetype of its name, twice (24,000 namespaces and VMs: quadratic, the
    # timeout says hang); the VMs of namespace zz still get zz's, which asks for dedicated CPUs a kubelet without
    # the static CPU manager cannot give, and the others none
    def instancetype(namespace: str, dedicated: str = "false") -> str:
        return (f"---\napiVersion: instancetype.kubevirt.io/v1beta1\nkind: VirtualMachineInstancetype\nmetadata: "
                f"{{name: it, namespace: {namespace}}}\nspec: {{cpu: {{guest: 2, dedicatedCPUPlacement: {dedicated}}}, "
                "memory: {guest: 2Gi}}\n")

    def vm(i: int, namespace: str) -> str:
        return (f"---\napiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata: {{name: vm{i}, namespace: "
                f"{namespace}}}\nspec:\n  instancetype: {{kind: VirtualMachineInstancetype, name: it}}\n"
                "  template:\n    spec:\n      domain: {devices: {}}\n")

    (tmp_path / "kubelet.yaml").write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                           "cpuManagerPolicy: none\n")
    (tmp_path / "zz.yaml").write_text(instancetype("zz", "true"))
    for f in range(12):
        (tmp_path / f"it{f}.yaml").write_text("".join(instancetype(f"ns{i}") for i in range(f * 2000, f * 2000 + 2000)))
        (tmp_path / f"vm{f}.yaml").write_text("".join(vm(i, "zz" if f == 11 else "yy") for i in range(2000)))
    found = cli("check", "-f", "json", str(tmp_path)).findings()
    assert {(Path(f["file"]).name, f["rule"]) for f in found} == {("vm11.yaml", "admission-failure")}
    assert len(found) == 101 and "cpumanager=true" in found[0]["message"]


def test_pods_attaching_thousands_of_names_beside_a_chart_of_networks_ask_by_name(tmp_path: Path) -> None:
    # each pod's attachment walked every templated network of the chart for one that may write its name (24,000
    # networks and pods: quadratic, the timeout says hang); each missing network is still reported
    (tmp_path / "chart" / "templates").mkdir(parents=True)
    (tmp_path / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    (tmp_path / "chart" / "templates" / "nets.yaml").write_text("---\n".join(
        f"apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetwork\nmetadata:\n  name: net{i}\n"
        "spec:\n  resourceName: {{ .Values.r }}\n" for i in range(24_000)))
    (tmp_path / "pods.yaml").write_text(
        "apiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetwork\nmetadata: {name: real, namespace: x}\n"
        "spec: {resourceName: rr}\n" + "".join(
            f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}, annotations: {{k8s.v1.cni.cncf.io/networks: "
            f"missing{i}}}}}, spec: {{containers: [{{name: c, image: x}}]}}}}\n" for i in range(24_000)))
    (tmp_path / "attached.yaml").write_text("".join(  # networks the chart writes: not reported
        f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: q{i}, annotations: {{k8s.v1.cni.cncf.io/networks: "
        f"net{i * 200}}}}}, spec: {{containers: [{{name: c, image: x}}]}}}}\n" for i in range(100)))
    found = by_rule(cli("check", "-f", "json", str(tmp_path / "pods.yaml"), str(tmp_path / "attached.yaml"),
                        str(tmp_path / "chart")), "sriov-unknown-resource")
    assert len(found) == 101 and 'network "missing0"' in found[0]["message"]
    assert any(f["message"].startswith("… and 23900 more sriov-unknown-resource") for f in found)
    assert not [f for f in found if f["file"].endswith("attached.yaml")]


def test_topologies_of_one_tree_beside_machineconfigpools_of_another_are_judged_at_once(tmp_path: Path) -> None:
    # each topology asked every MachineConfigPool whether it was of its cluster (6,000 each, in two trees far apart:
    # quadratic, the timeout says hang); none is, so each pool runs the kubelet's defaults, not OpenShift's
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "x" / "y" / "z").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c" / "topologies.yaml").write_text("".join(
        f"---\napiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: t{i}}}\nspec:\n"
        f"  pool: {{nodes: 1, nodeSelector: {{r{i}: ''}}}}\n  sockets: 1\n  threadsPerCore: 1\n"
        "  numaNodes:\n  - {id: 0, cpus: '0-3', memory: 8Gi}\n" for i in range(6_000)))
    (tmp_path / "x" / "y" / "z" / "pools.yaml").write_text("".join(
        f"---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata:\n  name: "
        f"mcp{i}\nspec:\n  nodeSelector: {{matchLabels: {{node-role.kubernetes.io/mcp{i}: ''}}}}\n"
        for i in range(6_000)))
    def pods(name: str, selected: str) -> str:
        return "".join(f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}{i}}}\nspec:\n  nodeSelector: "
                       f"{{{selected}: ''}}\n  containers: [{{name: c, image: x, resources: {{requests: "
                       "{cpu: 10m}}}]\n" for i in range(120))

    (tmp_path / "a" / "b" / "c" / "pods.yaml").write_text(pods("p", "r0"))
    # a topology beside the pools is of their OpenShift cluster: 250 pods a node
    (tmp_path / "x" / "y" / "z" / "near.yaml").write_text(
        "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: near}\nspec:\n"
        "  pool: {nodes: 1, nodeSelector: {near: ''}}\n  sockets: 1\n  threadsPerCore: 1\n"
        "  numaNodes:\n  - {id: 0, cpus: '0-3', memory: 8Gi}\n---\n" + pods("q", "near"))
    ran = cli("simulate", "-f", "json", str(tmp_path))
    assert ran.code == 1, ran.err
    simulated = json.loads(ran.out)
    # the kubelet's 110 pods a node, not OpenShift's 250 (the pools are of another tree), and 120 beside them
    assert len(simulated["pools"]) == 6_001 and (simulated["summary"]["placed"], simulated["summary"]["rejected"]) == (
        230, 10)


def test_pods_with_crio_annotations_beside_thousands_of_profiles_judge_their_directory_once(tmp_path: Path) -> None:
    # each pod tried every PerformanceProfile for those beside it and named them all (8,000 each: quadratic, the
    # timeout says hang); the fix names ten runtime classes and counts the rest
    (tmp_path / "pp.yaml").write_text("".join(
        f"---\napiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {{name: pp{i:04}}}\n"
        f"spec: {{cpu: {{isolated: '2-3', reserved: '0-1'}}, nodeSelector: {{node-role.kubernetes.io/w{i}: ''}}}}\n"
        for i in range(8_000)))
    (tmp_path / "pods.yaml").write_text("".join(
        f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}, annotations: {{cpu-quota.crio.io: disable}}}}, "
        "spec: {containers: [{name: c, image: x, resources: {limits: {cpu: 2, memory: 1Gi}}}]}}\n"
        for i in range(8_000)))
    found = by_rule(cli("check", "-f", "json", str(tmp_path)), "crio-annotations-ignored")
    assert len(found) == 101 and found[0]["fix"]["description"].endswith(
        "performance-pp0008, performance-pp0009 or one of 7990 more")


def test_profiles_of_one_node_selector_in_thousands_of_cluster_trees_meet_only_their_own(tmp_path: Path) -> None:
    # each profile tried every other of its node selector, though those of other trees never meet it (3,000 trees:
    # quadratic, the timeout says hang); two of one tree still do
    def profile(name: str) -> str:
        return (f"apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {{name: {name}}}\n"
                "spec: {cpu: {isolated: '2-3', reserved: '0-1'}, nodeSelector: {node-role.kubernetes.io/worker-cnf: "
                "''}}\n")

    for i in range(3_000):
        (tmp_path / "clusters" / f"c{i}" / "perf").mkdir(parents=True)
        (tmp_path / "clusters" / f"c{i}" / "perf" / "pp.yaml").write_text(profile(f"pp{i}"))
    (tmp_path / "clusters" / "c7" / "perf" / "dup.yaml").write_text(profile("dup"))
    found = by_rule(cli("check", "-f", "json", str(tmp_path)), "performance-profile-invalid")
    assert sorted((Path(f["file"]).name, f["message"].split('"')[1]) for f in found) == [
        ("dup.yaml", "pp7"), ("pp.yaml", "dup")]


def test_fixes_of_thousands_of_kubelet_configurations_beside_thousands_of_policies_prove_alone(tmp_path: Path) -> None:
    # each configuration's fix was proven by analysing the SR-IOV policies again and checking every pair of them
    # (1,200 configurations and policies: quadratic, the timeout says hang); each fix is still proven and offered
    for k in range(60):
        (tmp_path / f"kc{k}.yaml").write_text(
            "---\napiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmemoryManagerPolicy: static\n"
            "reservedMemory: [{numaNode: 0, limits: {memory: 100Mi}}]\n" * 20)
    # one whose fix its proof refutes: the Static policy needs reservedMemory
    (tmp_path / "kc60.yaml").write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                        "memoryManagerPolicy: static\n")
    (tmp_path / "policies.yaml").write_text("".join(
        f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata:\n  name: p{i}\n"
        f"  namespace: openshift-sriov-network-operator\nspec:\n  resourceName: r{i}\n  numVfs: 8\n"
        f"  nicSelector: {{pfNames: [ens{i}f0]}}\n  nodeSelector: {{a: b}}\n" for i in range(1_200)))
    found = by_rule(cli("check", "-f", "json", str(tmp_path)), "invalid-policy-name")
    refuted = [f for f in found if f["file"].endswith("kc60.yaml")]
    assert len(found) == 1_201 and {(f["fix"]["safety"], f["fix"]["description"]) for f in found
                                    if f not in refuted} == {("safe", 'write "Static"')}
    assert refuted[0]["fix"]["safety"] == "display" and "not offered automatically" in refuted[0]["fix"]["description"]


def test_workload_fixes_on_hundreds_of_pools_are_proven_on_their_own_pools(tmp_path: Path) -> None:
    # each fix's proof, one per set of pools, analysed the whole run again and ran every check on every profile (400
    # profiles, each the pool of one workload with a fix: 57 s, the timeout says hang); each fix is still proven
    (tmp_path / "profiles.yaml").write_text("".join(
        f"---\napiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {{name: pp{i}}}\n"
        f"spec: {{cpu: {{isolated: '2-3', reserved: '0-1'}}, nodeSelector: {{node-role.kubernetes.io/w{i}: ''}}}}\n"
        for i in range(400)))
    for k in range(8):
        (tmp_path / f"pods{k}.yaml").write_text("".join(
            f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}}}, spec: {{nodeSelector: "
            f"{{node-role.kubernetes.io/w{i}: ''}}, containers: [{{name: c, image: x, resources: {{limits: "
            "{cpu: 1500m, memory: 1Gi}}}]}}\n" for i in range(k * 50, k * 50 + 50)))
    found = by_rule(cli("check", "-f", "json", str(tmp_path)), "fractional-cpu")
    assert len(found) == 400 and {(f["fix"]["safety"], f["fix"]["description"]) for f in found} == {
        ("unsafe", 'use a whole number of CPUs: cpu: "2" in requests and limits')}


def _labelled_pods(tmp_path: Path, count: int) -> None:
    """``count`` directories c0, c1, ... each with a Pod whose label value is not a string (a schema finding)."""
    for i in range(count):
        (tmp_path / f"c{i}").mkdir()
        (tmp_path / f"c{i}" / "p.yaml").write_text(
            f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  labels: {{d: yes}}\n"
            "spec:\n  containers:\n  - {name: c, image: x}\n")


def test_thousands_of_per_path_globs_are_tried_only_where_they_can_match(tmp_path: Path) -> None:
    # every perPath glob was tried on every finding's file, twice (2,000 of each: over 60 s, the timeout says hang)
    _labelled_pods(tmp_path, 2_000)
    (tmp_path / ".numalint.yaml").write_text("perPath:\n" + "".join(
        f"  'c{i}/*.yaml': {{schema: {'off' if i == 7 else 'info'}}}\n" for i in range(2_000)))
    found = by_rule(cli("check", "-f", "json", str(tmp_path), cwd=tmp_path), "schema")
    assert len(found) == 1_999 and {f["severity"] for f in found} == {"info"}
    assert not [f for f in found if "/c7/" in f["file"]]


def test_thousands_of_declared_clusters_are_tried_only_where_they_can_match(tmp_path: Path) -> None:
    # every cluster's directories were tried on every file (4,000 clusters of one file each: quadratic, the timeout
    # says hang); each file is still its own cluster's
    for i in range(4_000):
        (tmp_path / f"c{i}").mkdir()
        (tmp_path / f"c{i}" / "k.yaml").write_text(f"{KUBELET}cpuManagerPolicy: Static\n")
    (tmp_path / ".numalint.yaml").write_text("clusters:\n" + "".join(f"  k{i}: [c{i}/]\n" for i in range(4_000)))
    found = by_rule(cli("check", "-f", "json", str(tmp_path), cwd=tmp_path), "invalid-policy-name")
    assert len(found) == 4_000 and all(f["cluster"] == f"k{Path(f['file']).parent.name[1:]}" for f in found)


def test_a_component_of_thousands_of_patches_under_thousands_of_overlays_is_indexed_once(tmp_path: Path) -> None:
    # each overlay copied and indexed the component's patches again (4,000 of each: quadratic, the timeout says
    # hang); the one patch that gives a profile its node selector still settles that profile's finding
    patches = "".join(f"- target: {{kind: Deployment, name: z{i}}}\n  patch: |-\n    - op: add\n      path: "
                      "/metadata/labels/x\n      value: y\n" for i in range(4_000))
    patches += ("- target: {kind: PerformanceProfile, name: pp7}\n  patch: |-\n    - op: add\n      path: "
                "/spec/nodeSelector\n      value: {node-role.kubernetes.io/worker-cnf: ''}\n")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n" + patches)
    for i in range(4_000):
        (tmp_path / f"o{i}").mkdir()
        (tmp_path / f"o{i}" / "kustomization.yaml").write_text("resources:\n- pp.yaml\ncomponents:\n- ../c\n")
        (tmp_path / f"o{i}" / "pp.yaml").write_text(
            f"apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n  name: pp{i}\n"
            "spec:\n  cpu: {isolated: '2-3', reserved: '0-1'}\n")
    found = by_rule(cli("check", "-f", "json", str(tmp_path)), "performance-profile-invalid")
    missing = {Path(f["file"]).parent.name for f in found if "spec.nodeSelector is required" in f["message"]}
    assert len(missing) == 3_999 and "o7" not in missing


def test_a_chain_of_thousands_of_kustomize_bases_is_walked_past_the_links_that_only_pass_on(tmp_path: Path) -> None:
    # each profile's file walked the chain to its build, copying its route at each step (3,000 bases: cubic, the
    # timeout says hang); the one base that patches every profile's node selector still settles those below it
    for i in range(3_000):
        (tmp_path / f"k{i}").mkdir()
        patch = ("patches:\n- target: {kind: PerformanceProfile}\n  patch: |-\n    - op: add\n      path: "
                 "/spec/nodeSelector\n      value: {node-role.kubernetes.io/worker-cnf: ''}\n") if i == 1_500 else ""
        (tmp_path / f"k{i}" / "kustomization.yaml").write_text(
            "resources:\n" + (f"- ../k{i - 1}\n" if i else "") + "- pp.yaml\n" + patch)
        (tmp_path / f"k{i}" / "pp.yaml").write_text(
            f"apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n  name: pp{i}\n"
            "spec:\n  cpu: {isolated: '2-3', reserved: '0-1'}\n")
    found = by_rule(cli("check", "-f", "json", str(tmp_path)), "performance-profile-invalid")
    missing = sorted(int(Path(f["file"]).parent.name[1:]) for f in found
                     if "spec.nodeSelector is required" in f["message"])
    assert missing == list(range(1_501, 3_000))


def test_a_base_of_thousands_of_profiles_under_as_many_overlays_stops_at_the_first_unpatched_one(
        tmp_path: Path) -> None:
    # each profile's finding walked every overlay of the base, each patching one profile (3,000 of each: quadratic,
    # the timeout says hang); the profile every overlay patches is still settled
    def patch(name: str) -> str:
        return (f"- target: {{kind: PerformanceProfile, name: {name}}}\n  patch: |-\n    - op: add\n      path: "
                "/spec/nodeSelector\n      value: {node-role.kubernetes.io/worker-cnf: ''}\n")

    (tmp_path / "base").mkdir()
    names = [*(f"pp{i}" for i in range(3_000)), "all"]
    (tmp_path / "base" / "kustomization.yaml").write_text("resources:\n" + "".join(f"- {n}.yaml\n" for n in names))
    for name in names:
        (tmp_path / "base" / f"{name}.yaml").write_text(
            f"apiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata:\n  name: {name}\n"
            "spec:\n  cpu: {isolated: '2-3', reserved: '0-1'}\n")
    for i in range(3_000):
        (tmp_path / f"o{i}").mkdir()
        (tmp_path / f"o{i}" / "kustomization.yaml").write_text(
            "resources:\n- ../base\npatches:\n" + patch(f"pp{i}") + patch("all"))
    found = by_rule(cli("check", "-f", "json", str(tmp_path)), "performance-profile-invalid")
    missing = {Path(f["file"]).stem for f in found if "spec.nodeSelector is required" in f["message"]}
    assert len(missing) == 3_000 and "all" not in missing


def _nics_and_their_policies(count: int, total_vfs: int) -> str:
    """A topology of ``count`` NICs (e0, e1, ...) and a policy of 8 VFs on each, its own resource (r0, r1, ...)."""
    nics = "".join(f"  - {{pciAddress: '0000:{i // 256:02x}:{i % 256:02x}.0', interface: e{i}, vendor: '8086', "
                   f"deviceID: '158b', totalVfs: {total_vfs}, numaNode: 0}}\n" for i in range(count))
    topology = ("apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n  pool: {nodes: 1}\n"
                "  sockets: 1\n  threadsPerCore: 1\n  numaNodes:\n  - {id: 0, cpus: '0-63', memory: 256Gi}\n  nics:\n"
                + nics)
    return topology + "".join(f"---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata: "
                              f"{{name: p{i}, namespace: openshift-sriov-network-operator}}\nspec: {{resourceName: "
                              f"r{i}, numVfs: 8, nicSelector: {{pfNames: [e{i}]}}, nodeSelector: {{a: b}}}}\n"
                              for i in range(count))


def test_sriov_policies_beside_a_topology_of_thousands_of_nics_try_only_their_own(tmp_path: Path) -> None:
    # every policy was tried on every NIC (8,000 of each: over 25 s, the timeout says hang)
    (tmp_path / "n.yaml").write_text(_nics_and_their_policies(8_000, total_vfs=1))
    found = by_rule(cli("check", "-f", "json", str(tmp_path / "n.yaml")), "sriov-numvfs")
    assert len(found) == 101 and found[0]["message"].startswith(
        'numVfs 8 of "p0" is above the 1 VFs PF e0 supports (topology "t")')


def test_thousands_of_workloads_each_selecting_its_own_profile_try_only_those_pools(tmp_path: Path) -> None:
    # each workload's node selection was matched with every pool (8,000 of each: over 25 s, the timeout says hang)
    def profile(i: int) -> str:
        return (f"---\napiVersion: performance.openshift.io/v2\nkind: PerformanceProfile\nmetadata: {{name: pp{i}}}\n"
                f"spec: {{cpu: {{isolated: '2-3', reserved: '0-1'}}, "
                f"nodeSelector: {{node-role.kubernetes.io/w{i}: ''}}}}\n")

    def pod(i: int, cpu: str) -> str:
        return (f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}}}, spec: {{nodeSelector: "
                f"{{node-role.kubernetes.io/w{i}: ''}}, containers: [{{name: c, image: x, resources: "
                f"{{limits: {{cpu: {cpu}, memory: 1Gi}}}}}}]}}}}\n")
    (tmp_path / "p.yaml").write_text("".join(profile(i) for i in range(8_000))
                                     + "".join(pod(i, "2") for i in range(8_000)))
    # which pool each goes to: tests/test_openshift_precision.py (a fix here would be proven on the whole file)
    assert cli("check", "-f", "json", str(tmp_path / "p.yaml")).findings() == []


def test_thousands_of_topologies_find_their_kubelet_configurations_by_name(tmp_path: Path) -> None:
    # each topology looked through every configuration for its name and its labels (6,000 of each: about 50 s, the
    # timeout says hang)
    topologies = "".join(
        f"---\napiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {{name: t{i}}}\nspec:\n"
        f"  pool: {{nodes: 1, kubeletConfig: k{i}, nodeSelector: {{r{i}: ''}}}}\n  sockets: 1\n  threadsPerCore: 1\n"
        "  numaNodes:\n  - {id: 0, cpus: '0-3', memory: 8Gi}\n" for i in range(6_000))
    configurations = "".join(f"---\n{KUBELET}metadata: {{name: k{i}}}\ncpuManagerPolicy: static\n"
                             f"reservedSystemCPUs: '{9 if i == 5_999 else 0}'\n" for i in range(6_000))
    (tmp_path / "t.yaml").write_text(topologies + configurations)
    [found] = by_rule(cli("check", "-f", "json", str(tmp_path / "t.yaml")), "reserved-cpus-invalid")
    assert found["message"].startswith('reservedSystemCPUs "9" names CPUs 9 that topology "t5999" does not have')


def test_workloads_selecting_no_nodes_beside_thousands_of_unlabelled_pools_are_judged_once(tmp_path: Path) -> None:
    # each workload that selects no nodes could land on any of the pools, and each was looked through for a static
    # one (10,000 of each: 28 s, the timeout says hang); of several pools it is on none in particular
    configurations = f"---\n{KUBELET}cpuManagerPolicy: static\nreservedSystemCPUs: '0'\n" * 10_000
    pods = "".join(f"---\n{{kind: Pod, apiVersion: v1, metadata: {{name: p{i}}}, spec: {{containers: [{{name: c, "
                   "image: x, resources: {limits: {cpu: 500m, memory: 1Gi}}}]}}\n" for i in range(10_000))
    (tmp_path / "k.yaml").write_text(configurations + pods)
    assert cli("check", "-f", "json", str(tmp_path / "k.yaml")).findings() == []


def test_thousands_of_per_node_sriov_policies_on_one_pf_are_not_paired(tmp_path: Path) -> None:
    # a policy per node (its hostname) on the same PF name: every pair was a candidate, each then found to share no
    # node (6,000: about 45 s, the timeout says hang); two on one node still conflict
    def policy(i: int, node: str, pf: str = "ens1f0") -> str:
        return ("---\napiVersion: sriovnetwork.openshift.io/v1\nkind: SriovNetworkNodePolicy\nmetadata: "
                f"{{name: p{i}, namespace: openshift-sriov-network-operator}}\nspec:\n  resourceName: r\n  numVfs: 8\n"
                f"  nicSelector: {{pfNames: [{pf}]}}\n  nodeSelector: {{node-role.kubernetes.io/worker: ''{node}}}\n")
    # beside them, a policy of every worker on another PF: it shares nodes with each, but they share none
    (tmp_path / "p.yaml").write_text("".join(policy(i, f", kubernetes.io/hostname: n{i}") for i in range(6_000))
                                     + policy(6_000, ", kubernetes.io/hostname: n17") + policy(6_001, "", "ens9f0"))
    [found] = by_rule(cli("check", "-f", "json", str(tmp_path / "p.yaml")), "sriov-policy-conflict")
    assert 'of "p6000" is overlapped with existing policy "p17"' in found["message"]


def test_a_topology_of_thousands_of_nics_each_its_own_resource_is_simulated_in_time(tmp_path: Path) -> None:
    # the machine's devices were scanned whole for each resource (10,000 NICs of 8 VFs, each policy its own
    # resource: over 30 s, the timeout says hang)
    pod = ("---\n{kind: Pod, apiVersion: v1, metadata: {name: du}, spec: {containers: [{name: c, image: x, resources: "
           "{limits: {cpu: 2, memory: 1Gi, openshift.io/r9999: 9}}}]}}\n")  # one VF more than the PF has
    (tmp_path / "n.yaml").write_text(_nics_and_their_policies(10_000, total_vfs=8) + pod)
    found = cli("check", "-f", "json", str(tmp_path / "n.yaml")).findings()
    assert [f["rule"] for f in found] == ["admission-failure"] and "openshift.io/r9999" in found[0]["message"]


def test_too_many_nodes_is_one_finding(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(KUBELET + "featureGates: [" + ",".join(["1"] * 1_000_001) + "]\n")
    # a million nodes take seconds to read, more on a loaded machine: a generous timeout, not a hang
    [finding] = by_rule(cli("check", "-f", "json", str(tmp_path / "m.yaml"), timeout=120), "yaml-syntax")
    assert finding["message"] == "more than 1000000 YAML nodes in one file; not read"


@pytest.mark.parametrize("end", ["\r", "\x85", "\r\n"])
def test_a_profile_in_a_configmap_with_other_line_ends_is_no_traceback(tmp_path: Path, end: str) -> None:
    """A PerformanceProfile in a ConfigMap's tuning block whose lines end at a lone CR or NEL: libyaml's lines are
    not the file's, and reading a written value at a position of one in the other ended in a traceback (found by
    the fix-safety review). The profile is not read, and an info says why; CRLF files are read as ever."""
    crlf = end == "\r\n"
    text = ("kind: ConfigMap\napiVersion: v1\nmetadata: {name: tuned}\ndata:\n  tuning: |\n"
            "    apiVersion: performance.openshift.io/v2\n    kind: PerformanceProfile\n    metadata: {name: p}\n"
            "    spec: {numa: {topologyPolicy: single-numa-node}, cpu: {reserved: 0}}" + ("\n" if crlf else end)
            + "    # a note\n")
    (tmp_path / "cm.yaml").write_bytes((text.replace("\n", "\r\n") if crlf else text).encode())
    ran = cli("check", "-f", "json", str(tmp_path / "cm.yaml"))
    rules = [f["rule"] for f in ran.findings()]
    if crlf:
        assert "schema" in rules and "not-lintable" not in rules  # reserved: 0, a number where a cpuset is written
    else:
        assert [(f["rule"], f["line"]) for f in ran.findings()] == [("not-lintable", 5)]
    for command in (["fix", "--diff"], ["fix"]):
        assert cli(*command, str(tmp_path / "cm.yaml")).code in (0, 1)  # and no traceback (Ran)


def test_a_byte_that_is_not_utf8_after_a_bom_is_located_in_the_file(tmp_path: Path) -> None:
    """utf-8-sig counts from after the BOM it drops: the finding named byte 9 at 1:10 for the file's byte 12."""
    (tmp_path / "bom.yaml").write_bytes(b"\xef\xbb\xbfkind: Pod\xff\n")
    [finding] = by_rule(cli("check", "-f", "json", str(tmp_path / "bom.yaml")), "yaml-syntax")
    assert (finding["line"], finding["column"]) == (1, 13) and "at byte 12" in finding["message"]
