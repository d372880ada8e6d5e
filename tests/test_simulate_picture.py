"""`simulate` as a picture: 80 columns, a legend, collapsed nodes, every workload, a CPU map, an HTML page."""

from __future__ import annotations

import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import run, write

KUBELET = """\
    apiVersion: kubelet.config.k8s.io/v1beta1
    kind: KubeletConfiguration
    cpuManagerPolicy: static
    reservedSystemCPUs: "0,8"
    topologyManagerPolicy: single-numa-node
    memoryManagerPolicy: Static
    kubeReserved: {memory: 1Gi}
    reservedMemory:
      - numaNode: 0
        limits: {memory: 1124Mi}
    """
TOPOLOGY = """\
    apiVersion: numalint.io/v1alpha1
    kind: NodeTopology
    metadata: {name: box}
    spec:
      pool: {nodes: NODES}
      threadsPerCore: 2
      numaNodes:
        - {id: 0, cpus: "0-3,8-11", memory: 64Gi, hugepages: {1Gi: 8}}
        - {id: 1, cpus: "4-7,12-15", memory: 64Gi, hugepages: {1Gi: 8}}
      devices:
        - {resource: nvidia.com/gpu, numaNode: 1, count: 2}
    """


def pod(name: str, cpu: str, memory: str = "1Gi", extra: str = "", kind: str = "Pod") -> str:
    resources = f"resources: {{limits: {{cpu: \"{cpu}\", memory: {memory}{extra}}}}}"
    if kind == "Pod":
        return (f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  containers:\n"
                f"    - {{name: app, image: x, {resources}}}\n")
    body = f"      containers:\n        - {{name: app, image: x, {resources}}}\n"
    return (f"apiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: {name}, namespace: ml}}\nspec:\n  replicas: 3\n"
            f"  template:\n    spec:\n{body}")


def cluster(tmp_path: Path, nodes: int = 7, pods: str = "") -> Path:
    default = "---\n".join([
        pod("infer", "4", "8Gi", ", nvidia.com/gpu: 1, hugepages-1Gi: 2Gi", kind="Deployment"),
        pod("big", "7", "4Gi"),
        pod("huge", "4", "60Gi")])
    write(tmp_path, {"kubelet.yaml": KUBELET, "topology.yaml": TOPOLOGY.replace("NODES", str(nodes)),
                     "pods.yaml": pods or default})
    return tmp_path


def assert_fits(text: str) -> None:
    for line in text.splitlines():
        assert len(line) <= 80, line
        assert "\x1b" not in line, line


def test_text_fits_80_columns_with_a_legend_aligned_columns_and_collapsed_nodes(tmp_path: Path) -> None:
    result = run("simulate", str(cluster(tmp_path, nodes=20)))
    assert result.exit_code == 1  # huge is rejected
    assert_fits(result.output)
    assert "legend: [rr##....] r reserved, # used by pods, . free" in result.output
    assert "  node box-4..19 (16 nodes): empty" in result.output
    assert "  node box-0..2 (3 nodes): identical" in result.output
    heading = next(line for line in result.output.splitlines() if line.strip().startswith("NUMA resource"))
    cpu = next(line for line in result.output.splitlines() if line.startswith("    0    cpu"))
    assert cpu == "    0    cpu            [rrrr............]       8       2       0       6"
    assert heading.index("FREE") + 4 == len(cpu)  # numbers right-aligned under their headings
    # memory adds up: hugepages on their own line, memory without them (64Gi - 8Gi)
    memory = next(line for line in result.output.splitlines() if line.startswith("         memory"))
    assert memory.split()[-4:] == ["56Gi", "1.1Gi", "0", "54.9Gi"]
    assert any(line.startswith("         hugepages-1Gi  [") for line in result.output.splitlines())


def test_every_workload_appears_with_its_fate_and_the_fix_check_prints(tmp_path: Path) -> None:
    cluster(tmp_path)
    (tmp_path / "chart.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: {{ .Values.name }}}\n")
    (tmp_path / "zero.yaml").write_text(pod("idle", "1", kind="Deployment").replace("replicas: 3", "replicas: 0"))
    result = run("simulate", str(tmp_path))
    out = result.output
    assert_fits(out)
    assert "placed    Deployment ml/infer: 3 pods" in out and "placed    Pod big" in out
    assert "REJECTED  Pod huge" in out
    assert "huge -> box-4: TopologyAffinityError" in out
    assert "free on box-4 at that moment:" in out
    checked = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    fix = next(f for f in checked if f["rule"] == "admission-failure")["fix"]["description"]
    for part in fix.split("; or "):
        assert part.split(" (")[0] in out.replace("\n           ", " ")
    assert "not simulated" in out
    assert "Deployment ml/idle" in out and "no replicas" in out
    assert "chart.yaml: a template ({{ ... }}) outside any Helm chart" in " ".join(out.split())


def test_not_simulated_workloads_say_why_and_json_tells_start_errors_apart(tmp_path: Path) -> None:
    write(tmp_path, {
        "kubelet.yaml": KUBELET.replace("    kubeReserved: {memory: 1Gi}\n", ""),  # reservedMemory does not add up
        "gpu.yaml": TOPOLOGY.replace("NODES", "1").replace("metadata: {name: box}", "metadata: {name: gpu}")
        .replace("pool: {", "pool: {nodeSelector: {role: gpu}, kubeletConfig: kubelet.yaml, "),
        "other.yaml": TOPOLOGY.replace("NODES", "1").replace("metadata: {name: box}", "metadata: {name: other}")
        .replace("pool: {", "pool: {nodeSelector: {role: other}, "),
        "pods.yaml": pod("p", "1").replace("spec:\n", "spec:\n  nodeSelector: {role: gpu}\n") + "---\n"
        + pod("q", "1").replace("spec:\n", "spec:\n  nodeSelector: {role: db}\n")})
    result = run("simulate", str(tmp_path))
    assert_fits(result.output)
    assert "the kubelet does not start" in result.output
    assert 'pool "gpu" does not start (see above)' in result.output
    assert "Pod q" in result.output and "no pool matches its nodeSelector" in result.output
    data = run("simulate", "--format", "json", str(tmp_path)).json()
    pool = data["pools"][0]
    assert pool["status"] == "kubelet-does-not-start" and pool["kubelet_start_error"] and not pool["not_simulated"]
    assert pool["start_error"] == pool["kubelet_start_error"]  # the field of earlier releases keeps its meaning
    reasons = {w["name"]: w["not_simulated"]["reason"] for w in data["workloads"]}
    assert reasons == {"p": "kubelet-does-not-start", "q": "no-pool"}
    assert data["summary"] == {"workloads": 2, "placed": 0, "rejected": 0, "not_simulated": 2}


def test_json_keeps_its_fields_and_adds_fixes_free_tables_and_cpu_owners(tmp_path: Path) -> None:
    data = run("simulate", "--format", "json", str(cluster(tmp_path))).json()
    assert data["version"] == 1
    huge = next(p for p in data["pods"] if p["name"] == "huge")
    earlier = {"name", "namespace", "pool", "node", "admitted", "reason", "message", "numa_nodes", "containers"}
    assert earlier <= set(huge)
    assert huge["fixes"] and huge["free"]["1"]["cpu"] == 8
    node = data["pools"][0]["nodes"][0]
    assert node["reserved_cpus"] == [0, 8]
    assert node["cpu_assignments"] == [{"pod": "ml/infer-0", "container": "app", "cpus": [4, 5, 12, 13]}]
    statuses = {w["name"]: w["status"] for w in data["workloads"]}
    assert statuses == {"infer": "placed", "big": "placed", "huge": "rejected"}


def test_cpu_map_shows_owners_smt_siblings_side_by_side_and_reserved_cpus(tmp_path: Path) -> None:
    result = run("simulate", "--cpus", str(cluster(tmp_path, nodes=1, pods=pod("w", "4"))))
    assert_fits(result.output)
    lines = result.output.splitlines()
    start = lines.index("    CPU map: SMT siblings side by side; r reserved, . shared, a-z containers")
    assert lines[start + 1:start + 5] == [
        "    NUMA 0  ids  0  8 |  1  9 |  2 10 |  3 11",
        "            use  r  r |  a  a |  a  a |  .  .",
        "    NUMA 1  ids  4 12 |  5 13 |  6 14 |  7 15",
        "            use  .  . |  .  . |  .  . |  .  ."]
    assert lines[start + 5] == "      a w app: cpus 1-2,9-10"


def test_colour_only_on_request_or_terminal_and_no_color_wins_over_auto(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    cluster(tmp_path, nodes=1)
    assert "\x1b[" not in run("simulate", str(tmp_path)).output  # not a terminal
    assert "\x1b[" in run("simulate", "--color", "always", str(tmp_path)).output
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in run("simulate", str(tmp_path)).output
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in run("simulate", str(tmp_path)).output
    assert "\x1b[" in run("simulate", "--color", "always", str(tmp_path)).output
    monkeypatch.delenv("NO_COLOR")
    assert "\x1b[" not in run("simulate", "--color", "never", str(tmp_path)).output


def test_long_and_hostile_names_stay_within_80_columns_and_inert(tmp_path: Path) -> None:
    name = "a" * 150
    cluster(tmp_path, nodes=2, pods=pod(name, "1") + "---\n" + pod("x-\u202e-\x1b", "1").replace(
        "name: x-\u202e-\x1b", 'name: "x-\\u202e-\\x1b"'))
    (tmp_path / "topology.yaml").write_text((tmp_path / "topology.yaml").read_text().replace(
        "nvidia.com/gpu", "example.com/a-very-long-extended-resource-name"))
    result = run("simulate", "--cpus", str(tmp_path))
    assert_fits(result.output)
    assert "\u202e" not in result.output and "\\u202e" in result.output


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.urls += [v or "" for k, v in attrs if k in ("src", "href")]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _html(tmp_path: Path) -> tuple[Path, _Page, str]:
    cluster(tmp_path / "in", nodes=8, pods="---\n".join([
        pod("infer", "4", "8Gi", ", nvidia.com/gpu: 1", kind="Deployment"), pod("huge", "4", "60Gi"),
        pod("<script>alert(1)</script>", "1").replace("name: <script>alert(1)</script>",
                                                      'name: "<script>alert(1)</script>"')]))
    target = tmp_path / "report.html"
    result = run("simulate", "--format", "html", "-o", str(target), str(tmp_path / "in"))
    assert result.exit_code == 1 and result.output == ""
    page = _Page()
    text = target.read_text(encoding="utf-8")
    page.feed(text)
    page.close()
    return target, page, text


def test_html_report_is_one_self_contained_page_with_the_same_content(tmp_path: Path) -> None:
    _, page, text = _html(tmp_path)
    assert text.startswith("<!DOCTYPE html>")
    assert page.tags.count("script") == 0 and page.urls == []  # no script, no link, no external asset
    assert "http://" not in text and "https://" not in text and "@import" not in text
    assert "svg" in page.tags and "style" in page.tags
    words = " ".join(page.text)
    assert "Node box-0..2 (3 nodes): identical" in words or "Node box-0" in words
    assert "(4 nodes): empty" in words
    assert "TopologyAffinityError" in words and "fix: " in words and "free on box-" in words
    assert "ml/infer-0" in words
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text  # names from the inputs are escaped
    assert 'title="CPU 0: reserved"' in text


@pytest.mark.skipif(shutil.which("chromium") is None, reason="no headless Chromium installed")
def test_html_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    target, _, _ = _html(tmp_path)
    png = tmp_path / "report.png"
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,1600",
                    f"--screenshot={png}", target.as_uri()], check=True, capture_output=True, timeout=120)
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_output_file_for_text_and_json(tmp_path: Path) -> None:
    cluster(tmp_path / "in", nodes=1)
    out = tmp_path / "sim.json"
    result = run("simulate", "--format", "json", "-o", str(out), str(tmp_path / "in"))
    assert result.output == "" and json.loads(out.read_text())["version"] == 1


def test_topology_capture_writes_provenance_and_a_pool_stub_that_still_passes_check(tmp_path: Path) -> None:
    from tests.test_topology_sources import fake_sysfs

    root = tmp_path / "sysroot"
    fake_sysfs(root)
    (root / "proc/sys/kernel").mkdir(parents=True)
    (root / "proc/sys/kernel/hostname").write_text("node-7\n::error::x\n")
    (root / "proc/sys/kernel/osrelease").write_text("6.8.0-45-generic\n")
    result = run("topology", "capture", "--sysfs-root", str(root), "--name", "n7")
    assert result.exit_code == 0, result.stderr
    header = result.output.split("apiVersion:")[0].splitlines()
    assert all(line.startswith("# ") for line in header)
    assert "# host: node-7\\n::error::x" in header  # one comment line, inert
    assert "# kernel: 6.8.0-45-generic" in header
    assert any(line.startswith("# date: 20") and line.endswith("Z") for line in header)
    assert "  # pool:" in result.output and "  #   nodeSelector:" in result.output
    (tmp_path / "topology.yaml").write_text(result.output)
    checked = run("check", "--format", "json", str(tmp_path / "topology.yaml"))
    assert checked.exit_code == 0 and checked.json()["findings"] == []
    filled = result.output.replace("  # pool:\n  #   nodeSelector:", "  pool:\n    nodeSelector:").replace(
        "  #   nodes: 1", "    nodes: 1")
    (tmp_path / "topology.yaml").write_text(filled)
    assert run("check", "--format", "json", str(tmp_path / "topology.yaml")).exit_code == 0


def test_free_capacity_lists_devices_of_no_numa_node_apart(tmp_path: Path) -> None:
    # a shared RDMA device has no NUMA node: it is not "0 free" on every NUMA node
    write(tmp_path, {
        "k.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                  'cpuManagerPolicy: static\nreservedSystemCPUs: "0"\ntopologyManagerPolicy: single-numa-node\n',
        "t.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\nspec:\n  numaNodes:\n"
                  '    - {id: 0, cpus: "0-7", memory: 64Gi}\n    - {id: 1, cpus: "8-15", memory: 64Gi}\n'
                  "  devices:\n    - {resource: rdma/shared, count: 4}\n"
                  "    - {resource: nvidia.com/gpu, numaNode: 0, count: 1}\n",
        "p.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: p}\nspec:\n  replicas: 3\n  template:\n"
                  "    spec:\n      containers:\n"
                  '      - {name: c, image: x, resources: {limits: {cpu: "5", memory: 1Gi, rdma/shared: 1}}}\n'})
    result = run("check", str(tmp_path))
    line = next(x for x in result.output.splitlines() if "TopologyAffinityError" in x)
    assert line.endswith("NUMA 0: 2 CPUs, 64Gi free, GPU 1 | NUMA 1: 3 CPUs, 64Gi free, GPU 0 | "
                         "no NUMA node: rdma/shared 2")
