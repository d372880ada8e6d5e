"""What `fix` writes inside an edit: the replaced scalar's quoting (a JSON file stays JSON), anchors and tags
kept, numbers quoted as written only where the field's Go parser reads that text, and diffs of files with a
BOM that git apply and patch accept."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from numalint import fixer
from tests.conftest import run

KC = '"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"'


def _fix(path: Path, *flags: str) -> str:
    run("fix", *flags, str(path))
    return path.read_text(encoding="utf-8")


def test_json_rename_policy_case_and_retype_stay_json(tmp_path: Path) -> None:
    target = tmp_path / "kc.json"
    target.write_text("{\n  " + KC + ',\n  "cpuManagerPolicy": "static",\n  "reservedSystemCPUs": "0",\n'
                      '  "memoryManagerPolicy": "none",\n  "topologyManagerPolicy": "single-numa-node",\n'
                      '  "failSwapOn": "false",\n  "reservedSystemCpus_": 1\n}\n')
    fixed = _fix(target)
    data = json.loads(fixed)  # raised before: `"memoryManagerPolicy": None,`
    assert data["memoryManagerPolicy"] == "None" and data["failSwapOn"] is False
    one_line = tmp_path / "one.json"
    one_line.write_text("{" + KC + ', "cpuManagerPolicy": "static", "reservedSystemCpus": "0-1", '
                        '"topologyManagerPolicy": "single-numa-node"}\n')
    data = json.loads(_fix(one_line))  # raised before: bare reservedSystemCPUs
    assert data["reservedSystemCPUs"] == "0-1" and "reservedSystemCpus" not in data


def test_retyped_number_in_json_is_a_json_string(tmp_path: Path) -> None:
    target = tmp_path / "kc.json"
    target.write_text("{" + KC + ', "cpuManagerPolicy": "static", "reservedSystemCPUs": 0, '
                      '"systemReserved": {"memory": 1024}, "cpuManagerPolicyOptions": {"full-pcpus-only": true}}\n')
    data = json.loads(_fix(target))
    assert data["reservedSystemCPUs"] == "0" and data["systemReserved"] == {"memory": "1024"}
    assert data["cpuManagerPolicyOptions"] == {"full-pcpus-only": "true"}


def test_single_quoted_and_plain_scalars_keep_their_style(tmp_path: Path) -> None:
    target = tmp_path / "kc.yaml"
    target.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                      "'topologyManagerPolicies': 'single-numa-node'\nmemoryManagerPolicy: 'none'\n"
                      "cpuManagerPolicy: none\n")
    fixed = _fix(target)
    assert "'topologyManagerPolicy': 'single-numa-node'\n" in fixed
    assert "memoryManagerPolicy: 'None'\n" in fixed and "cpuManagerPolicy: none\n" in fixed


STATIC = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
          'reservedSystemCPUs: "0"\n')


def test_workload_value_edits_keep_json_and_quotes(tmp_path: Path) -> None:
    (tmp_path / "kc.yaml").write_text(STATIC)
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c", "image": "x", "resources": {
               "limits": {"cpu": "2500m", "memory": "1Gi", "hugepages-2Mi": "200Mi"},
               "requests": {"cpu": "2500m", "memory": "1Gi", "hugepages-2Mi": "100Mi"}}}]}}
    target = tmp_path / "pod.json"
    target.write_text(json.dumps(pod, indent=2) + "\n")
    run("fix", "--unsafe-fixes", str(tmp_path))
    resources = json.loads(target.read_text())["spec"]["containers"][0]["resources"]
    assert resources["requests"]["hugepages-2Mi"] == "200Mi"
    assert resources["limits"]["cpu"] == resources["requests"]["cpu"] == "3"
    single = tmp_path / "pod.yaml"
    single.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n  containers:\n    - name: c\n"
                      "      image: x\n      resources:\n        limits: {cpu: '1500m', memory: 1Gi}\n"
                      "        requests: {cpu: '1500m', memory: 1Gi}\n")
    target.unlink()
    run("fix", "--unsafe-fixes", str(tmp_path))
    assert "limits: {cpu: '2', memory: 1Gi}" in single.read_text()


def test_reserved_memory_correction_in_json(tmp_path: Path) -> None:
    target = tmp_path / "kc.json"
    target.write_text("{" + KC + ', "memoryManagerPolicy": "Static", "systemReserved": {"memory": "1Gi"}, '
                      '"reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}]}\n')
    data = json.loads(_fix(target, "--unsafe-fixes"))  # the bare 1124Mi was not JSON
    assert data["reservedMemory"][0]["limits"]["memory"] == "1124Mi"


# go-yaml v2 (resolve.go) reads plain 010 as octal 8, 0o17 as 15, 0x400 as 1024, 1_0 as 10, 1e3 as 1000.0
NUMBERS = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
           "reservedSystemCPUs: 010\nsystemReserved:\n  memory: 0x400\n  cpu: 1_0\n  ephemeral-storage: 1:30\n"
           "kubeReserved:\n  memory: 1e3\n  cpu: +1\n  pid: 0o17\n")


def test_numbers_are_quoted_as_written_where_the_parser_reads_that_text(tmp_path: Path) -> None:
    target = tmp_path / "kc.yaml"
    target.write_text(NUMBERS)
    report = run("check", "--format", "json", str(target)).json()["findings"]
    fixed = _fix(target)
    # cpuset.Parse reads each bound with strconv.Atoi: "010" is CPU 10, the digits written ("8" was written before)
    assert 'reservedSystemCPUs: "010"\n' in fixed
    # resource.ParseQuantity reads "1e3" as 1000 and "+1" as 1: the value YAML read, as written
    assert '  memory: "1e3"\n' in fixed and '  cpu: "+1"\n' in fixed
    # ParseQuantity refuses "0x400", "1_0" and "0o17": no automatic fix, the message gives both readings
    for written in ("memory: 0x400", "cpu: 1_0", "pid: 0o17"):
        assert f"  {written}\n" in fixed
    pid = next(f for f in report if f["message"].startswith("kubeReserved.pid"))
    assert "0o17" in pid["message"] and "15" in pid["message"] and not pid["fix"]["edits"]
    # 1:30 is a string to go-yaml v2 (no sexagesimal): never a type error, never quoted
    assert "ephemeral-storage: 1:30\n" in fixed
    assert not any("ephemeral-storage" in f["message"] and f["rule"] == "schema" for f in report)


def test_number_in_a_field_without_a_known_parser_is_left_to_the_author(tmp_path: Path) -> None:
    target = tmp_path / "pod.yaml"
    target.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {version: 010, build: 7}\n"
                      "spec:\n  containers: [{name: c, image: x}]\n")
    fixed = _fix(target)
    assert "labels: {version: 010, build: \"7\"}" in fixed  # 7 is written as read; 010 could mean "010" or "8"


def test_anchor_and_tag_stay_when_the_value_is_edited(tmp_path: Path) -> None:
    # the aliases mirror the same setting (under the same key): they follow the edit, as the anchor means
    target = tmp_path / "kc.yaml"
    target.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                      'failSwapOn: &f "false"\nx-copy: {failSwapOn: *f}\ncpuManagerPolicy: !!str   none\n'
                      "topologyManagerPolicy: &t # note\n  Restricted\nx-other:\n  topologyManagerPolicy: *t\n")
    result = run("fix", str(target))
    fixed = target.read_text()
    assert "failSwapOn: &f false\n" in fixed
    assert "cpuManagerPolicy: !!str   none\n" in fixed  # "none" is right for cpuManagerPolicy
    assert "topologyManagerPolicy: &t # note\n  restricted\n" in fixed
    assert "yaml-syntax" not in result.output and "would not parse" not in result.stderr


def test_workload_edit_keeps_the_anchor_an_alias_uses(tmp_path: Path) -> None:
    (tmp_path / "kc.yaml").write_text(STATIC)
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: d\n"
                   "      image: x\n      resources:\n        limits: {cpu: &c 1500m, memory: 1Gi}\n"
                   "        requests: {cpu: *c, memory: 1Gi}\n")
    result = run("fix", "--unsafe-fixes", str(tmp_path))
    assert "yaml-syntax" not in result.output and "would not parse" not in result.stderr
    # the alias reads the edited value: it stays an alias (README, "Fixes")
    assert 'limits: {cpu: &c "2", memory: 1Gi}\n        requests: {cpu: *c, memory: 1Gi}' in pod.read_text()


@pytest.mark.parametrize("text,anchor", [
    # quoting the label would turn hostNetwork, which reads it, from true into the string "yes"
    ("metadata:\n  name: p\n  labels: {dedicated: &y yes}\nspec:\n  hostNetwork: *y\n"
     "  containers:\n  - {name: a, image: x}\n", "y"),
    # the hugepages request made equal to its limit would change the env variable that reads it too
    ("metadata: {name: p}\nspec:\n  containers:\n  - name: a\n    image: x\n    resources:\n"
     "      requests: {cpu: \"2\", memory: 1Gi, hugepages-1Gi: &h 2Gi}\n"
     "      limits: {cpu: \"2\", memory: 1Gi, hugepages-1Gi: 4Gi}\n    env: [{name: HEAP, value: *h}]\n", "h"),
    # a list item reading it, under no key
    ("metadata:\n  name: p\n  labels:\n    dedicated: &y yes\nspec:\n  containers:\n"
     "  - name: a\n    image: x\n    args: [*y]\n", "y"),
])
def test_an_anchored_value_read_as_another_setting_is_not_edited(tmp_path: Path, text: str, anchor: str) -> None:
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\n" + text)
    checked = run("check", str(pod))
    assert f"not offered automatically: the value it edits is anchored (&{anchor}) and read elsewhere" in checked.output
    result = run("fix", "--unsafe-fixes", str(pod))
    assert pod.read_text() == "apiVersion: v1\nkind: Pod\n" + text
    assert "fixed 0 finding(s)" in result.stderr


def _break_fixed_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text the fixer makes ends in a line that does not parse."""
    real = fixer.apply_edits

    def breaking(text, edits):  # type: ignore[no-untyped-def]
        new, fixed, later = real(text, edits)
        return new + "x: [\n", fixed, later

    monkeypatch.setattr(fixer, "apply_edits", breaking)


def test_report_after_fix_is_of_the_text_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fixed text that would not parse is not written; the findings shown are those of the file as it is."""
    _break_fixed_texts(monkeypatch)
    target = tmp_path / "kc.yaml"
    original = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfailSwapOn: 'false'\n"
    target.write_text(original)
    result = run("fix", str(target))
    assert target.read_text() == original
    assert "would not parse" in result.stderr or "held back" in result.stderr  # never written either way
    assert "[yaml-syntax]" not in result.output and "failSwapOn" in result.output


def test_fix_diff_says_which_fixes_it_leaves_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty diff used to read as "nothing to fix" when every fix was held back or would not parse."""
    _break_fixed_texts(monkeypatch)
    target = tmp_path / "kc.yaml"
    target.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfailSwapOn: 'false'\n")
    result = run("fix", "--diff", str(target))
    assert "numalint: not in the diff:" in result.stderr and ("held back" in result.stderr
                                                             or "would not parse" in result.stderr)


BOM_FILES = {
    "kc.yaml": "\ufeffapiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfailSwapOn: \"false\"\n",
    "kc.json": "\ufeff{" + KC + ', "failSwapOn": "false"}\n',
}


@pytest.mark.parametrize("tool", ["git", "patch"])
def test_diff_of_files_with_a_bom_applies(tmp_path: Path, tool: str) -> None:
    if shutil.which(tool) is None or shutil.which("git") is None:
        pytest.skip(f"{tool} is not installed")
    for name, text in BOM_FILES.items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    diff = run("check", "--diff", ".", cwd=tmp_path).output
    assert "kc.json" in diff and "kc.yaml" in diff
    (tmp_path / "fix.patch").write_bytes(diff.encode("utf-8"))
    command = ["git", "apply", "--check", "fix.patch"] if tool == "git" else ["patch", "--dry-run", "-p1", "-i",
                                                                                "fix.patch"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    if tool == "git":
        subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True)
        assert (tmp_path / "kc.json").read_bytes().startswith(b"\xef\xbb\xbf{")
        assert json.loads((tmp_path / "kc.json").read_text(encoding="utf-8-sig"))["failSwapOn"] is False


KC_YAML = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


@pytest.mark.parametrize(("header", "written"), [
    ("|-", 'cpuManagerPolicy: "static"\n'),
    (">-", 'cpuManagerPolicy: "static"\n'),
    ("|2-", 'cpuManagerPolicy: "static"\n'),
    ("|-  # was Static", 'cpuManagerPolicy: "static"  # was Static\n'),
])
def test_case_fix_of_a_block_scalar_keeps_the_next_line(tmp_path: Path, header: str, written: str) -> None:
    """The block's span runs through its final line break: the quoted value keeps that break (and the header's
    comment), so the next key stays on its own line (it was joined to the value and the fix refused)."""
    target = tmp_path / "kc.yaml"
    target.write_text(KC_YAML + f'cpuManagerPolicy: {header}\n  Static\n\n# policy above\nreservedSystemCPUs: "0,1"\n')
    shown = run("check", "--format", "json", str(target)).json()["findings"]
    case = next(f for f in shown if f["rule"] == "invalid-policy-name")
    assert case["fix"]["safety"] == "safe" and len(case["fix"]["edits"]) == 1
    fixed = _fix(target)
    assert fixed == KC_YAML + written + '\n# policy above\nreservedSystemCPUs: "0,1"\n'
    assert run("check", str(target)).exit_code == 0


@pytest.mark.parametrize("header", ["|", "|+", ">", "|2"])
def test_workload_fix_of_a_block_quantity_keeps_the_next_line(tmp_path: Path, header: str) -> None:
    """A pod's quantity is read by Quantity.UnmarshalJSON, which trims spaces (k8s.io/apimachinery/pkg/api/resource
    quantity.go): `cpu: |` with 1500m is 1500m. The whole-core fix replaces the block and keeps the memory line."""
    (tmp_path / "kc.yaml").write_text(STATIC)
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n"
                   f"      image: x\n      resources:\n        limits:\n          cpu: {header}\n            1500m\n"
                   "          memory: 1Gi\n        requests: {cpu: 1500m, memory: 1Gi}\n")
    run("fix", "--unsafe-fixes", str(tmp_path))
    wanted = '        limits:\n          cpu: "2"\n          memory: 1Gi\n        requests: {cpu: "2", memory: 1Gi}\n'
    assert wanted in pod.read_text()
    assert run("check", str(tmp_path)).exit_code == 0


# k8s.io/apimachinery/pkg/api/resource ParseQuantity reads a quoted fraction in thousandths: "0.5" is 500m, "1.50"
# is 1500m. For a CPU amount that is what was written; for bytes it is milli-bytes, never what was meant.
FRACTIONS = (KC_YAML + "systemReserved:\n  cpu: 0.5\n  memory: 1.50\nkubeReserved:\n  cpu: 1.50\n"
             "  hugepages-2Mi: .5\n  ephemeral-storage: 5e-1\ntopologyManagerScope: 1.5\n")


def test_a_cpu_fraction_is_quoted_as_written_and_a_byte_fraction_is_left_to_the_author(tmp_path: Path) -> None:
    target = tmp_path / "kc.yaml"
    target.write_text(FRACTIONS)
    report = run("check", "--format", "json", str(target)).json()["findings"]
    shown = {f["message"].split(":")[0]: f for f in report if f["rule"] == "schema"}
    for field, text in (("systemReserved.cpu", '"0.5"'), ("kubeReserved.cpu", '"1.50"')):
        assert shown[field]["fix"]["safety"] == "safe" and [e["text"] for e in shown[field]["fix"]["edits"]] == [text]
        assert f"reads the text {text} as" in shown[field]["message"]
    for field, written in (("systemReserved.memory", "1.50"), ("kubeReserved.hugepages-2Mi", ".5"),
                           ("kubeReserved.ephemeral-storage", "5e-1")):
        assert shown[field]["fix"]["edits"] == [] and shown[field]["fix"]["safety"] == "display"
        assert f'"{written}" as' in shown[field]["message"] and "milli-bytes" in shown[field]["message"]
    fixed = _fix(target)
    assert fixed == FRACTIONS.replace("cpu: 0.5", 'cpu: "0.5"').replace("cpu: 1.50", 'cpu: "1.50"')


def test_a_fraction_in_a_string_field_is_not_called_a_quantity(tmp_path: Path) -> None:
    target = tmp_path / "kc.yaml"
    target.write_text(KC_YAML + "topologyManagerScope: 1.5\nreservedSystemCPUs: 1.5\n")
    found = {f["line"]: f for f in run("check", "--format", "json", str(target)).json()["findings"]}
    scope, cpus = found[3], found[4]
    assert scope["message"].endswith('quote it if you mean the text "1.5"') and "quantit" not in scope["message"]
    assert "500m" not in scope["message"] and scope["fix"]["edits"] == []
    assert 'cpuset.Parse refuses the text "1.5"' in cpus["message"] and cpus["fix"]["edits"] == []
    assert _fix(target) == KC_YAML + "topologyManagerScope: 1.5\nreservedSystemCPUs: 1.5\n"


def test_numbers_read_as_go_yaml_v2_reads_them(tmp_path: Path) -> None:
    """resolve.go strips underscores, then tries strconv.ParseInt(s, 0, 64) (either case of 0x/0o/0b; a leading
    0 is octal, so 08 fails) and ParseFloat when the text looks like a float: 08 and 0_8 are the float 8, 0X2
    the int 2, 1_0.5 the float 10.5; 1e400 is out of range and stays a string (kubectl agrees on each)."""
    head = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
    for written in ("08", "0_8", "1_0.5"):
        target = tmp_path / "kc.yaml"
        target.write_text(head + f"reservedSystemCPUs: {written}\n")
        found = run("check", "--format", "json", str(target)).json()["findings"]
        assert [(f["rule"], f["line"]) for f in found if f["severity"] == "error"] == [("schema", 4)], (written, found)
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: x\n"
           "    resources: {limits: {cpu: CPU, memory: 1Gi}}\n")
    (tmp_path / "kc.yaml").unlink()
    (tmp_path / "pod.yaml").write_text(pod.replace("CPU", "0X2"))
    assert run("check", "--format", "json", str(tmp_path)).json()["findings"] == []
    (tmp_path / "pod.yaml").write_text(pod.replace("CPU", "1e400"))
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert all("1e400" not in f["message"] or "inf" not in f["message"].lower() for f in found), found


def test_a_merge_overrides_a_key_written_before_it_as_go_yaml_v2_reads_it(tmp_path: Path) -> None:
    """decode.go merge writes the merged mapping where ``<<`` stands: a key written before it is overridden
    (kubectl reads cpuManagerPolicy "Static" here, and the kubelet refuses it), one written after it wins. The
    overridden key never applies: it is reported like a key written twice."""
    head = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nreservedSystemCPUs: \"0\"\n"
    target = tmp_path / "kc.yaml"
    target.write_text(head + "cpuManagerPolicy: static\n<<: {cpuManagerPolicy: Static}\n")
    found = {(f["rule"], f["line"]) for f in run("check", "--format", "json", str(target)).json()["findings"]}
    assert found == {("unknown-field", 4), ("invalid-policy-name", 5)}, found
    target.write_text(head + "<<: {cpuManagerPolicy: Static}\ncpuManagerPolicy: static\n")
    assert run("check", "--format", "json", str(target)).json()["findings"] == []


def test_a_file_changed_after_it_was_checked_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # an editor saves the file while fix runs: the spans fix found fit the old text, not the new one
    import numalint.fixer

    target = tmp_path / "kc.yaml"
    head = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
    target.write_text(head + "reservedSystemCPUs: 0\n")
    checked = numalint.fixer.run_check
    calls: list[int] = []

    def saved_meanwhile(*args: object, **kwargs: object) -> object:
        report = checked(*args, **kwargs)  # type: ignore[arg-type]
        if not calls:
            target.write_text(head + "reservedSystemCPUs: 5\n")
        calls.append(1)
        return report

    monkeypatch.setattr(numalint.fixer, "run_check", saved_meanwhile)
    result = run("fix", str(target))
    assert target.read_text() == head + "reservedSystemCPUs: 5\n"
    assert "not fixed, nothing written: file changed since numalint checked it" in result.stderr
    assert result.exit_code == 1


def test_an_anchor_of_the_same_name_in_another_document_is_another_anchor(tmp_path: Path) -> None:
    # anchors are per document: the ConfigMap's *n reads its own &n, not the kubelet configuration's
    kubelet = tmp_path / "kc.yaml"
    text = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncpuManagerPolicy: static\n"
            "reservedSystemCPUs: &n 0\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
            "data: {a: &n one, b: *n}\n")
    kubelet.write_text(text)
    assert run("fix", str(kubelet)).exit_code == 0
    assert kubelet.read_text() == text.replace("&n 0", '&n "0"')
