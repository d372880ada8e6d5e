"""`numalint server`: runs through the warm server answer exactly as a new process does (output, stderr, exit
status, files written, signals), and the server declines whenever that might not hold. Real processes: the
command as a user runs it (`python -m numalint`), a real server in a private directory of its own."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import numalint
from tests.conftest import write

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="Unix sockets; the tests watch the server's runs through /proc")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
KUBELET = """\
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    topologyManagerPolicy: single-numa-node
    cpuManagerPolicy: static
"""
POD = """\
    apiVersion: v1
    kind: Pod
    metadata: {name: dpdk}
    spec:
      containers:
        - name: app
          image: app
          resources:
            requests: {cpu: 1500m, memory: 1Gi}
            limits: {cpu: 1500m, memory: 1Gi}
"""


class Server:
    """A private runtime directory (XDG_RUNTIME_DIR) and the commands run with it."""

    def __init__(self, runtime: Path) -> None:
        self.env = {name: value for name, value in os.environ.items() if name != "NUMALINT_SERVER"}
        self.env["XDG_RUNTIME_DIR"] = str(runtime)

    def run(self, *args: str, cwd: Path, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "numalint", *args], cwd=cwd, input=stdin, text=True,
                              capture_output=True, env={**self.env, **env}, timeout=120)

    def cold(self, *args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return self.run(*args, cwd=cwd, stdin=stdin, NUMALINT_SERVER="off")

    def served(self, cwd: Path) -> int | None:
        """Runs the server has served, or None when none runs."""
        status = self.run("server", "status", cwd=cwd)
        if status.returncode:
            assert "no numalint server is running" in status.stdout
            return None
        found = re.search(r"(\d+) run\(s\) served", status.stdout)
        assert found, status.stdout
        return int(found.group(1))

    def pid(self, cwd: Path) -> int:
        found = re.search(r"\(pid (\d+)\)", self.run("server", "status", cwd=cwd).stdout)
        assert found
        return int(found.group(1))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    runtime = Path(tempfile.mkdtemp(prefix="nl-"))  # short: a Unix socket's path has at most ~100 bytes
    made = Server(runtime)
    try:
        yield made
    finally:
        made.run("server", "stop", cwd=tmp_path)
        shutil.rmtree(runtime, ignore_errors=True)


def descendants(root: int) -> list[int]:
    """The processes below ``root`` (the server's runs and their supervisors), from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except OSError:
            continue
        if entry.isdigit():
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [root]
    while frontier:
        below = [pid for pid, parent in parents.items() if parent in frontier]
        found += below
        frontier = below
    return found


def wait_reading_stdin(readers: Callable[[], list[int]]) -> None:
    """Until a process reading stdin blocks in its read (Linux's /proc/PID/wchan), else a while."""
    if not os.path.exists("/proc/self/wchan"):
        time.sleep(3)
        return
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for pid in readers():
            try:  # blocked reading a pipe, and its read is of fd 0 (not the server's own pipes)
                if "pipe_read" in Path(f"/proc/{pid}/wchan").read_text() and \
                        Path(f"/proc/{pid}/syscall").read_text().split()[1:2] == ["0x0"]:
                    return
            except (OSError, IndexError):
                pass
        time.sleep(0.05)


def same(served: subprocess.CompletedProcess[str], cold: subprocess.CompletedProcess[str]) -> None:
    assert (served.returncode, served.stdout, served.stderr) == (cold.returncode, cold.stdout, cold.stderr)


def test_runs_through_the_server_answer_as_a_new_process(server: Server, tmp_path: Path) -> None:
    write(tmp_path, {"node.yaml": KUBELET, "pod.yaml": POD})
    assert server.served(tmp_path) is None
    started = server.run("server", "start", cwd=tmp_path)
    assert started.returncode == 0 and "numalint server started" in started.stdout, started.stderr
    commands: list[tuple[tuple[str, ...], str]] = [
        (("check", "."), ""),
        (("check", "-f", "json", "."), ""),
        (("check", "-f", "sarif", "--show-source", str(EXAMPLES)), ""),
        (("check", "-f", "github", "--color", "always", str(EXAMPLES)), ""),
        (("check", "-"), POD.replace("    ", "", 1)),
        (("check", "--no-such-option"), ""),  # usage error: exit 2, "Usage: python -m numalint check ..."
        (("check",), ""),
        (("fix", "--diff", "."), ""),
        (("simulate", "pod.yaml", "--topology", str(EXAMPLES / "nodes" / "topology.yaml")), ""),
        (("explain", "NL101"), ""),
        (("--version",), ""),
    ]
    for args, stdin in commands:
        served, cold = server.run(*args, cwd=tmp_path, stdin=stdin), server.cold(*args, cwd=tmp_path, stdin=stdin)
        same(served, cold)
    assert server.run("check", ".", cwd=tmp_path).returncode == 1  # the pod asks for 1.5 CPUs: a finding
    assert "python -m numalint check" in server.run("check", "--no-such-option", cwd=tmp_path).stderr
    assert server.served(tmp_path) == len(commands) + 2  # every run went through the server


def test_many_files_with_worker_processes(server: Server, repository: Path) -> None:
    """A run of 400 files forks worker processes from the server's run: the same findings."""
    server.run("server", "start", cwd=repository)
    served = server.run("check", "-f", "json", "-j", "2", "repo", cwd=repository)
    same(served, server.cold("check", "-f", "json", "-j", "2", "repo", cwd=repository))
    assert served.stdout.count('"rule"') > 10
    assert server.served(repository) == 1


def test_fix_writes_the_same_bytes(server: Server, tmp_path: Path) -> None:
    text = EXAMPLES.joinpath("nodes", "kubelet-config.yaml").read_text()
    write(tmp_path, {"a/kubelet.yaml": text, "b/kubelet.yaml": text})
    server.run("server", "start", cwd=tmp_path)
    served = server.run("fix", "--unsafe-fixes", "kubelet.yaml", cwd=tmp_path / "a")
    cold = server.cold("fix", "--unsafe-fixes", "kubelet.yaml", cwd=tmp_path / "b")
    same(served, cold)
    assert (tmp_path / "a" / "kubelet.yaml").read_bytes() == (tmp_path / "b" / "kubelet.yaml").read_bytes()
    assert server.served(tmp_path) == 1


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signals_reach_the_run(server: Server, tmp_path: Path, signum: int) -> None:
    """Ctrl-C stops a run reading stdin with click's "Aborted!" (exit 1); SIGTERM ends it as it ends a process."""
    server.run("server", "start", cwd=tmp_path)
    daemon = server.pid(tmp_path)
    outcomes = []
    for env in (server.env, {**server.env, "NUMALINT_SERVER": "off"}):
        process = subprocess.Popen([sys.executable, "-m", "numalint", "check", "-"], cwd=tmp_path, env=env,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        cold = env is not server.env
        wait_reading_stdin(lambda pid=process.pid, cold=cold: [pid] if cold else descendants(daemon))  # type: ignore[misc]
        process.send_signal(signum)
        process.wait(timeout=30)  # stdin still open: the signal, not the end of the input, ends the run
        out, err = process.communicate(timeout=30)
        outcomes.append((process.returncode, out, err))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == (1 if signum == signal.SIGINT else -signum)
    assert server.served(tmp_path) == 1


def test_declines_and_stops_when_numalint_changes_on_disk(server: Server, tmp_path: Path) -> None:
    write(tmp_path, {"node.yaml": KUBELET, "pod.yaml": POD})
    server.run("server", "start", cwd=tmp_path)
    module = Path(numalint.__file__).parent / "server" / "protocol.py"
    before = module.stat()
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    try:
        same(server.run("check", ".", cwd=tmp_path), server.cold("check", ".", cwd=tmp_path))
        assert server.served(tmp_path) is None  # it stopped rather than answer with the code it has
    finally:
        os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_declines_other_locale_settings(server: Server, tmp_path: Path) -> None:
    write(tmp_path, {"node.yaml": KUBELET, "pod.yaml": POD})
    server.run("server", "start", cwd=tmp_path)
    served = server.run("check", ".", cwd=tmp_path, PYTHONIOENCODING="latin-1")
    assert served.returncode == 1 and "2 file(s) checked" in served.stdout
    assert server.served(tmp_path) == 0  # ran by itself: the server's streams were set up otherwise


def test_a_directory_others_may_enter_is_not_trusted(server: Server, tmp_path: Path) -> None:
    write(tmp_path, {"node.yaml": KUBELET, "pod.yaml": POD})
    server.run("server", "start", cwd=tmp_path)
    directory = Path(server.env["XDG_RUNTIME_DIR"]) / "numalint"
    directory.chmod(0o755)
    try:
        assert server.run("check", ".", cwd=tmp_path).returncode == 1
    finally:
        directory.chmod(0o700)
    assert server.served(tmp_path) == 0


def test_start_stop_status(server: Server, tmp_path: Path) -> None:
    status = server.run("server", "status", cwd=tmp_path)
    assert (status.returncode, status.stdout) == (1, "no numalint server is running\n")
    assert server.run("server", "stop", cwd=tmp_path).stdout == "no numalint server was running\n"
    assert server.run("server", "start", cwd=tmp_path).returncode == 0
    again = server.run("server", "start", cwd=tmp_path)
    assert again.returncode == 1 and "already runs" in again.stderr
    pid = server.pid(tmp_path)
    assert server.run("server", "stop", cwd=tmp_path).stdout == f"numalint server stopped (pid {pid})\n"
    assert server.served(tmp_path) is None
    assert server.run("server", "start", cwd=tmp_path).returncode == 0  # at once: the old one is gone


def test_a_killed_server_leaves_runs_working(server: Server, tmp_path: Path) -> None:
    write(tmp_path, {"node.yaml": KUBELET, "pod.yaml": POD})
    server.run("server", "start", cwd=tmp_path)
    os.kill(server.pid(tmp_path), signal.SIGKILL)
    time.sleep(0.2)
    same(server.run("check", ".", cwd=tmp_path), server.cold("check", ".", cwd=tmp_path))  # its socket remains
    assert server.run("server", "start", cwd=tmp_path).returncode == 0
    assert server.served(tmp_path) == 0


def test_auto_starts_a_server_for_the_next_run(server: Server, tmp_path: Path) -> None:
    write(tmp_path, {"node.yaml": KUBELET, "pod.yaml": POD})
    first = server.run("check", ".", cwd=tmp_path, NUMALINT_SERVER="auto")
    same(first, server.cold("check", ".", cwd=tmp_path))
    deadline = time.monotonic() + 30
    while server.served(tmp_path) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    same(server.run("check", ".", cwd=tmp_path, NUMALINT_SERVER="auto"), first)
    assert server.served(tmp_path) == 1


def test_a_closed_standard_stream_runs_without_the_server(server: Server, tmp_path: Path) -> None:
    """With stdin closed the socket would take fd 0: the caller runs by itself (before: the run hung)."""
    write(tmp_path, {"node.yaml": KUBELET, "pod.yaml": POD})
    server.run("server", "start", cwd=tmp_path)
    script = f"exec {sys.executable} -m numalint check - <&-"
    outcomes = [subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                               env=env) for env in (server.env, {**server.env, "NUMALINT_SERVER": "off"})]
    assert [(o.returncode, o.stdout) for o in outcomes] == [(outcomes[1].returncode, outcomes[1].stdout)] * 2
    assert server.served(tmp_path) == 0


def test_a_killed_caller_takes_its_run_with_it(server: Server, tmp_path: Path) -> None:
    """A new process dies with its caller: the server's run is killed when its caller goes (SIGKILL cannot be
    passed on), and writes nothing after."""
    server.run("server", "start", cwd=tmp_path)
    daemon = server.pid(tmp_path)
    out = tmp_path / "out.txt"
    with out.open("w") as sink:
        process = subprocess.Popen([sys.executable, "-m", "numalint", "check", "-"], cwd=tmp_path, env=server.env,
                                   stdin=subprocess.PIPE, stdout=sink, stderr=sink)
        wait_reading_stdin(lambda: descendants(daemon))
        process.kill()
        process.wait(timeout=30)
        assert process.stdin is not None
        deadline = time.monotonic() + 30
        while descendants(daemon) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert descendants(daemon) == []
        try:
            process.stdin.write(textwrap_dedent(POD).encode())
            process.stdin.close()
        except BrokenPipeError:
            pass
    time.sleep(0.5)
    assert out.read_text() == ""


def textwrap_dedent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text)


def test_ignored_signals_stay_ignored(server: Server, tmp_path: Path) -> None:
    """Under nohup (SIGHUP ignored) or a shell's `trap '' INT`, the run ignores them as a new process would."""
    server.run("server", "start", cwd=tmp_path)
    daemon = server.pid(tmp_path)
    outcomes = []
    for env in (server.env, {**server.env, "NUMALINT_SERVER": "off"}):
        process = subprocess.Popen(
            [sys.executable, "-m", "numalint", "check", "-"], cwd=tmp_path, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=lambda: [signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGHUP)])
        cold = env is not server.env
        wait_reading_stdin(lambda pid=process.pid, cold=cold: [pid] if cold else descendants(daemon))  # type: ignore[misc]
        process.send_signal(signal.SIGINT)
        process.send_signal(signal.SIGHUP)
        time.sleep(0.3)
        out, err = process.communicate(textwrap_dedent(POD), timeout=30)
        outcomes.append((process.returncode, out, err))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == 0 and "1 file(s) checked" in outcomes[0][1]


def test_the_callers_limits_apply(server: Server, tmp_path: Path) -> None:
    """`ulimit -f`: a report larger than the caller may write fails as it does in a new process."""
    import resource

    server.run("server", "start", cwd=tmp_path)

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    outcomes = []
    for env in (server.env, {**server.env, "NUMALINT_SERVER": "off"}):
        ran = subprocess.run([sys.executable, "-m", "numalint", "check", "-f", "sarif=report.sarif", str(EXAMPLES)],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, preexec_fn=limited)
        outcomes.append((ran.returncode, ran.stdout, ran.stderr, (tmp_path / "report.sarif").stat().st_size))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == 2 and "File too large" in outcomes[0][2] and outcomes[0][3] == 4096
    assert server.served(tmp_path) == 1


def test_large_requests_and_foreign_descriptors(server: Server, tmp_path: Path) -> None:
    """A large environment goes through (it was never served); the server keeps no descriptor of whoever
    started it (a pipe it was started from closes)."""
    write(tmp_path, {"node.yaml": KUBELET, "pod.yaml": POD})
    script = f"exec {sys.executable} -m numalint server start 3>&1"
    started = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=server.env, capture_output=True, text=True,
                             timeout=60)  # returns only once every copy of its stdout pipe is closed
    assert started.returncode == 0, started.stderr
    big = {f"NUMALINT_TEST_{i}": "x" * 100_000 for i in range(3)}
    same(server.run("check", ".", cwd=tmp_path, **big), server.cold("check", ".", cwd=tmp_path))
    assert server.served(tmp_path) == 1


def test_what_no_numalint_sends_leaves_the_server_running(server: Server, tmp_path: Path) -> None:
    import socket

    from numalint.server import protocol

    server.run("server", "start", cwd=tmp_path)
    os.environ["XDG_RUNTIME_DIR"], old = server.env["XDG_RUNTIME_DIR"], os.environ.get("XDG_RUNTIME_DIR")
    try:
        path = protocol.socket_path()
    finally:
        if old is None:
            del os.environ["XDG_RUNTIME_DIR"]
        else:
            os.environ["XDG_RUNTIME_DIR"] = old
    wrong = protocol.frame_request({"version": protocol.VERSION, "op": "run", "interpreter": protocol.interpreter(),
                                    "env": {"A": 1}, "argv": ["numalint"]})
    fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (0, 1, 2))
    bombs = [b"l2147483647:", b"(\xff\xff\xff\x7f", b"l1:" * 100 + b"i0:"]  # counts beyond the bytes; nesting
    for message in (b"\xff\xff\xff\xf0garbage", wrong, b"\x00\x00",
                    *(len(bomb).to_bytes(4, "big") + bomb for bomb in bombs)):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(10)
            sock.connect(path)
            sock.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
    assert server.served(tmp_path) == 0  # still there, and answering


def test_start_refusals(server: Server, tmp_path: Path) -> None:
    script = f"exec {sys.executable} -m numalint server start <&-"
    closed = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=server.env, capture_output=True, text=True,
                            timeout=60)
    assert closed.returncode == 1 and "standard streams open" in closed.stderr and "Traceback" not in closed.stderr
    too_long = server.run("server", "start", "--idle-timeout", "1e20", cwd=tmp_path)
    assert too_long.returncode == 2 and "--idle-timeout" in too_long.stderr
    assert server.served(tmp_path) is None


def test_a_run_killed_outright_kills_its_caller_alike(server: Server, tmp_path: Path) -> None:
    """The out-of-memory killer's SIGKILL on the run: the caller dies of SIGKILL too (not exit 1, "findings")."""
    server.run("server", "start", cwd=tmp_path)
    daemon = server.pid(tmp_path)
    process = subprocess.Popen([sys.executable, "-m", "numalint", "check", "-"], cwd=tmp_path, env=server.env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_reading_stdin(lambda: descendants(daemon))
    runs = [pid for pid in descendants(daemon)
            if Path(f"/proc/{pid}/syscall").read_text().split()[1:2] == ["0x0"]]
    assert len(runs) == 1
    os.kill(runs[0], signal.SIGKILL)
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL


def test_ctrl_z_stops_the_run_with_its_caller(server: Server, tmp_path: Path) -> None:
    server.run("server", "start", cwd=tmp_path)
    daemon = server.pid(tmp_path)
    # the caller in a process group of its own, as a shell's job is: when the tests run in an orphaned process group
    # (a background job whose shell has exited), the kernel drops a stop signal whose action is the default
    process = subprocess.Popen([sys.executable, "-m", "numalint", "check", "-"], cwd=tmp_path, env=server.env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=os.setpgrp)  # (process_group=0 needs Python 3.11)
    wait_reading_stdin(lambda: descendants(daemon))
    run = next(pid for pid in descendants(daemon)
               if Path(f"/proc/{pid}/syscall").read_text().split()[1:2] == ["0x0"])

    def state(pid: int) -> str:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]

    process.send_signal(signal.SIGTSTP)
    deadline = time.monotonic() + 30
    while (state(process.pid), state(run)) != ("T", "T") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (state(process.pid), state(run)) == ("T", "T")
    process.send_signal(signal.SIGCONT)
    out, _err = process.communicate(textwrap_dedent(POD), timeout=30)
    assert process.returncode == 0 and "1 file(s) checked" in out


def test_descriptors_named_in_arguments_run_without_the_server(server: Server, tmp_path: Path) -> None:
    """`-f sarif=/dev/fd/3` or `<(...)` name descriptors of the caller that the server's run does not have."""
    server.run("server", "start", cwd=tmp_path)
    script = f"exec {sys.executable} -m numalint check -f sarif=/dev/fd/3 {EXAMPLES / 'nodes'} 3>report.sarif"
    outcomes = []
    for env in (server.env, {**server.env, "NUMALINT_SERVER": "off"}):
        ran = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
        outcomes.append((ran.returncode, ran.stdout, ran.stderr, (tmp_path / "report.sarif").read_text()))
    assert outcomes[0] == outcomes[1] and '"runs"' in outcomes[0][3]
    assert server.served(tmp_path) == 0


def test_a_server_started_with_signals_blocked_still_answers(server: Server, tmp_path: Path) -> None:
    write(tmp_path, {"node.yaml": KUBELET, "pod.yaml": POD})
    started = subprocess.run([sys.executable, "-m", "numalint", "server", "start"], cwd=tmp_path, env=server.env,
                             capture_output=True, text=True, timeout=60,
                             preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCHLD]))
    assert started.returncode == 0, started.stderr
    same(server.run("check", ".", cwd=tmp_path), server.cold("check", ".", cwd=tmp_path))
    assert server.served(tmp_path) == 1
