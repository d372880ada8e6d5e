"""`numalint fix` / `check --fix`: exact text edits, nothing else touched, atomic, convergent."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from numalint.catalogue import catalogue
from numalint.findings import Edit, Finding
from numalint.fixer import apply_edits
from numalint.reading.yamlpos import Span
from tests.conftest import run, write

BEFORE = """\
# kubelet for the numa pool -- keep comments!
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cpuManagerPolicy: static        # pinned CPUs
reservedSystemCPUs: 0
memoryManagerPolicy: static
cpuManagerPolicyOptions:
  full-pcpus-only: yes
topologyManagerPolicies: 'single-numa-node'
systemReserved:
  memory: 1Gi
reservedMemory:
  - numaNode: 0
    limits:
      memory: 1Gi
---
apiVersion: v1
kind: ConfigMap
metadata: {name: untouched}
data: {key: "  spaced  "}
"""

# "static" -> "Static" is not safe here: it turns on the Static memory manager, whose reservedMemory then misses
# the eviction threshold (reserved-memory-mismatch, an unsafe fix); only --unsafe-fixes applies both
AFTER_SAFE = BEFORE.replace("reservedSystemCPUs: 0", 'reservedSystemCPUs: "0"').replace(
    "full-pcpus-only: yes", 'full-pcpus-only: "true"').replace(
    "topologyManagerPolicies: 'single", "topologyManagerPolicy: 'single")
AFTER_UNSAFE = AFTER_SAFE.replace("memoryManagerPolicy: static", "memoryManagerPolicy: Static").replace(
    "      memory: 1Gi\n---", "      memory: 1124Mi\n---")


def test_safe_fixes_edit_only_their_spans(tmp_path: Path) -> None:
    target = tmp_path / "kubelet.yaml"
    target.write_text(BEFORE)
    os.chmod(target, 0o640)
    result = run("fix", str(target))
    assert target.read_text() == AFTER_SAFE
    assert oct(os.stat(target).st_mode & 0o777) == "0o640"
    assert result.exit_code == 1  # invalid-policy-name remains: its fix brings one that only an unsafe fix settles
    assert "invalid-policy-name" in result.output and "fixed 3 finding(s) in 1 file(s)" in result.stderr
    assert "(then reserved-memory-mismatch needs its own fix, applied with --unsafe-fixes" in result.output


def test_unsafe_fixes_and_convergence(tmp_path: Path) -> None:
    target = tmp_path / "kubelet.yaml"
    target.write_text(BEFORE)
    first = run("fix", "--unsafe-fixes", str(target))
    once = target.read_text()
    assert once == AFTER_UNSAFE
    assert first.exit_code == 0
    second = run("fix", "--unsafe-fixes", str(target))
    assert target.read_text() == once and second.exit_code == 0
    assert run("check", "--format", "json", str(target)).json()["findings"] == []


def test_diff_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "kubelet.yaml"
    target.write_text(BEFORE)
    result = run("fix", "--diff", str(target))
    assert result.exit_code == 1
    assert "\n-reservedSystemCPUs: 0\n" in result.output and "\n+reservedSystemCPUs: \"0\"\n" in result.output
    assert target.read_text() == BEFORE
    assert run("check", "--diff", str(target)).output == result.output


def test_files_without_fixes_are_not_touched(tmp_path: Path) -> None:
    clean = tmp_path / "clean.yaml"
    clean.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                     "cpuManagerPolicy: static  # nothing to fix\n")  # no-cpu-reservation has no edit
    old = time.time() - 1000
    os.utime(clean, (old, old))
    run("fix", "--unsafe-fixes", str(tmp_path))
    assert os.stat(clean).st_mtime == old


def test_a_file_that_does_not_parse_is_never_written(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                      "memoryManagerPolicy: static\nx: [\n")
    run("fix", str(tmp_path))
    assert broken.read_text().endswith("x: [\n") and "static" in broken.read_text()


def test_stdin_in_fixed_text_out() -> None:
    result = run("fix", "-", stdin=BEFORE)
    assert result.output == AFTER_SAFE


def test_stdin_diff_is_labelled_as_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # stdin has no file a patch could name: "-" as GNU diff labels it, not a/- (a file named "-")
    result = run("fix", "--diff", "-", stdin=BEFORE)
    assert result.output.startswith("--- -\n+++ -\n@@ ")
    (tmp_path / "-").write_text(BEFORE)  # a file really named "-" keeps git's a/ b/ names
    monkeypatch.chdir(tmp_path)
    assert run("fix", "--diff", "./-").output.startswith("--- a/-\n+++ b/-\n@@ ")


def test_check_fix_reports_what_remains(tmp_path: Path) -> None:
    target = tmp_path / "kubelet.yaml"
    target.write_text(BEFORE)
    result = run("check", "--fix", "--format", "json", str(target))
    assert [f["rule"] for f in result.json()["findings"]] == ["invalid-policy-name"]
    assert target.read_text() == AFTER_SAFE


def test_overlapping_edits_wait_for_a_later_pass() -> None:
    text = "key: value\n"
    a = Finding("schema", "a", "f", Span(1, 6, 1, 11))
    b = Finding("schema", "b", "f", Span(1, 1, 1, 11))
    new, fixed, deferred = apply_edits(text, [(Edit(Span(1, 6, 1, 11), '"value"'), a),
                                             (Edit(Span(1, 1, 1, 11), "other: 1"), b)])
    assert new == "other: 1\n" and fixed == [b] and deferred == [a]


FIXABLE = [(slug, i, ex) for slug, rule in catalogue().items() if rule.fix_safety != "display"
           for i, ex in enumerate(rule.examples) if ex["expect"] == "bad"]


@pytest.mark.parametrize("slug,index,example", FIXABLE, ids=[f"{s}-{i}" for s, i, _ in FIXABLE])
def test_bad_examples_fix_then_check(tmp_path: Path, slug: str, index: int, example: dict) -> None:  # type: ignore[type-arg]
    write(tmp_path, dict(example["files"]))
    before = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    with_edits = [f for f in before if f["rule"] == slug and f["fix"] and f["fix"]["edits"]]
    run("fix", "--unsafe-fixes", str(tmp_path))
    texts = {p: p.read_text() for p in tmp_path.rglob("*.yaml")}
    after = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    if with_edits:
        assert len([f for f in after if f["rule"] == slug]) < len([f for f in before if f["rule"] == slug])
        assert not [f for f in after if f["rule"] == slug and f["fix"] and f["fix"]["edits"]]
    run("fix", "--unsafe-fixes", str(tmp_path))
    assert {p: p.read_text() for p in tmp_path.rglob("*.yaml")} == texts  # fixing twice equals fixing once


def test_a_boolean_where_text_belongs_is_quoted_as_the_author_wrote_it(tmp_path: Path) -> None:
    """`dedicated: yes` meant the label value "yes" (go-yaml read a boolean): writing "true" would send the pod to
    the nodes labelled true. Only where the kubelet parses the value as a boolean word (policy options) is it
    "true"."""
    write(tmp_path, {
        "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                    "  nodeSelector: {dedicated: yes, tier: Y, other: off, plain: true}\n"
                    "  containers:\n  - name: c\n    image: x\n",
        "kubelet.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                        "cpuManagerPolicy: static\nreservedSystemCPUs: '0'\ncpuManagerPolicyOptions:\n"
                        "  full-pcpus-only: yes\n"})
    run("fix", str(tmp_path))
    assert '{dedicated: "yes", tier: "Y", other: "off", plain: "true"}' in (tmp_path / "pod.yaml").read_text()
    assert 'full-pcpus-only: "true"' in (tmp_path / "kubelet.yaml").read_text()
    assert run("check", "--format", "json", str(tmp_path)).rules() == []


def test_a_tagged_value_must_be_of_its_tag_and_its_fix_is_not_offered(tmp_path: Path) -> None:
    """go-yaml refuses `!!int 1124Mi` ("cannot decode !!str `1124Mi` as a !!int"): a reservedMemory correction that
    keeps the !!int tag would stop the kubelet, so it is a hint, and the tagged text itself is a syntax error."""
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmemoryManagerPolicy: Static\n"
               "kubeReserved: {memory: 1Gi}\nreservedMemory: [{numaNode: 0, limits: {memory: !!int VALUE}}]\n")
    write(tmp_path, {"k.yaml": kubelet.replace("VALUE", "1073741824")})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [f["rule"] for f in found] == ["reserved-memory-mismatch"] and not found[0]["fix"]["edits"]
    run("fix", "--unsafe-fixes", str(tmp_path))
    assert (tmp_path / "k.yaml").read_text() == kubelet.replace("VALUE", "1073741824")
    write(tmp_path, {"k.yaml": kubelet.replace("VALUE", "1124Mi")})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(f["rule"], f["line"]) for f in found] == [("yaml-syntax", 5)]
    assert "cannot decode !!str `1124Mi` as a !!int" in found[0]["message"]


@pytest.mark.parametrize(("value", "read", "refused"), [
    ("!!null static", "!!str `static` as a !!null", True),  # go-yaml resolves null only from the null words
    ("!!null", "", False), ("!!null ~", "", False), ('!!null ""', "", False),
    ("!!int true", "!!bool `true` as a !!int", True),
    ("!!bool 1", "!!int `1` as a !!bool", True),
])
def test_a_tag_is_refused_when_its_text_reads_as_another_type(tmp_path: Path, value: str, read: str,
                                                               refused: bool) -> None:
    write(tmp_path, {"k.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                               f"cpuManagerPolicy: {value}\n"})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    syntax = [f for f in found if f["rule"] == "yaml-syntax"]
    assert bool(syntax) == refused, found
    assert not refused or f"cannot decode {read}" in syntax[0]["message"]


def test_a_tagged_value_of_the_wrong_type_gets_no_quoting_fix(tmp_path: Path) -> None:
    """`!!float 3` stays a float once quoted (the tag decides, go-yaml resolve): a quoting fix would change nothing
    and be offered forever. The finding says to drop the tag instead."""
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {h: !!float 3, b: !!bool yes}\n"
           "  containers:\n  - name: c\n    image: x\n")
    write(tmp_path, {"pod.yaml": pod})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(f["rule"], f["fix"]) for f in found] == [("schema", None), ("schema", None)]
    assert all("its tag decides its type" in f["message"] for f in found)
    run("fix", "--unsafe-fixes", str(tmp_path))
    assert (tmp_path / "pod.yaml").read_text() == pod


def test_binary_tagged_text_reads_as_go_yaml_decodes_it(tmp_path: Path) -> None:
    """go-yaml base64-decodes `!!binary` into a string field: `c3RhdGlj` is the policy "static"; data that is not
    base64 is refused ("!!binary value contains invalid base64 data")."""
    kubelet = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
               "cpuManagerPolicy: !!binary VALUE\nreservedSystemCPUs: '0'\n")
    write(tmp_path, {"k.yaml": kubelet.replace("VALUE", "c3RhdGlj")})
    assert run("check", "--format", "json", str(tmp_path)).rules() == []
    write(tmp_path, {"k.yaml": kubelet.replace("VALUE", "'not base64!'")})
    found = run("check", "--format", "json", str(tmp_path)).json()["findings"]
    assert [(f["rule"], f["line"]) for f in found] == [("yaml-syntax", 3)]
    assert "invalid base64" in found[0]["message"]


KUBELET_HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


def test_a_fix_whose_follow_up_the_selection_leaves_out_is_held_back(tmp_path: Path) -> None:
    # the rename turns on "static", which the kubelet refuses; its own fix ("Static") is not selected
    target = tmp_path / "kubelet.yaml"
    text = KUBELET_HEAD + "memoryManagerPolicyy: static\nreservedMemory:\n  - {numaNode: 0, limits: {memory: 100Mi}}\n"
    target.write_text(text)
    assert run("check", "--fail-on", "error", str(target)).exit_code == 0
    result = run("fix", "--select", "unknown-field", str(target))
    assert target.read_text() == text
    assert "held back" in result.stderr and "invalid-policy-name" in result.output
    assert run("check", "--fail-on", "error", str(target)).exit_code == 0
    run("fix", str(target))  # with both rules, both fixes apply: the kubelet starts
    assert "memoryManagerPolicy: Static\n" in target.read_text()
    assert run("check", "--fail-on", "error", str(target)).exit_code == 0


def test_a_safe_fix_whose_follow_up_is_unsafe_waits_for_unsafe_fixes(tmp_path: Path) -> None:
    target = tmp_path / "kubelet.yaml"
    text = KUBELET_HEAD + "memoryManagerPolicyy: Static\nreservedMemory:\n  - {numaNode: 0, limits: {memory: 1Gi}}\n"
    target.write_text(text)
    found = run("check", "--format", "json", str(target)).json()["findings"]
    rename = next(f for f in found if f["rule"] == "unknown-field")
    assert rename["fix"]["safety"] == "unsafe" and "--unsafe-fixes" in rename["fix"]["description"]
    run("fix", str(target))
    assert target.read_text() == text  # a starting kubelet is not turned into one that refuses to start
    run("fix", "--unsafe-fixes", str(target))
    assert "memoryManagerPolicy: Static" in target.read_text() and "memory: 100Mi" in target.read_text()
    assert run("check", "--fail-on", "error", str(target)).exit_code == 0


def test_a_fix_that_moves_what_a_suppression_covers_is_held_back(tmp_path: Path) -> None:
    # joining the block scalar's two lines would bring the options line under the comment's "line below"
    target = tmp_path / "kubelet.yaml"
    text = KUBELET_HEAD + ("topologyManagerPolicy: |-  # numalint: disable=policy-option\n  Best-effort\n"
                           'topologyManagerPolicyOptions: {bogus: "true"}\n')
    target.write_text(text)
    result = run("fix", str(target))
    assert target.read_text() == text
    assert "a suppression comment would then cover the finding on line 5" in result.output
    assert "[policy-option]" in run("check", str(target)).output


def test_a_save_made_while_fix_writes_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # an editor saves the file after numalint read it, while the temporary file is being written
    import numalint.fixer as fixer

    target = tmp_path / "kubelet.yaml"
    target.write_text(KUBELET_HEAD + "cpuManagerPolicy: static\nreservedSystemCPUs: 0\n")
    real_fsync = os.fsync

    def saved_meanwhile(descriptor: int) -> None:
        real_fsync(descriptor)
        with open(target, "a") as handle:
            handle.write("# saved by an editor\n")

    monkeypatch.setattr(fixer.os, "fsync", saved_meanwhile)
    result = run("fix", str(target))
    assert target.read_text().endswith("reservedSystemCPUs: 0\n# saved by an editor\n")
    assert result.exit_code == 2 and "changed while numalint wrote it" in result.stderr


ANCHORED_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers:
    - name: app
      image: x
      resources:
        requests:
          cpu: &c
            # COMMENT
            2500m
          memory: 1Gi
        limits: {cpu: 2500m, memory: 1Gi}
      env:
        - {name: CPU_QUOTA, value: *c}
"""


@pytest.mark.parametrize("comment", ["was 2", "x" * 600])
def test_an_anchored_value_under_comment_lines_is_not_rewritten(tmp_path: Path, comment: str) -> None:
    write(tmp_path, {"kubelet.yaml": KUBELET_HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0,16"\n',
                     "pod.yaml": ANCHORED_POD.replace("COMMENT", comment)})
    before = (tmp_path / "pod.yaml").read_text()
    result = run("fix", "--unsafe-fixes", str(tmp_path))
    assert (tmp_path / "pod.yaml").read_text() == before  # the env variable read through *c keeps 2500m
    assert "anchored (&c) and read elsewhere through *c" in result.output


ANCHORED_REQUESTS = """\
apiVersion: v1
kind: Pod
metadata: {name: app}
spec:
  containers:
    - name: app
      image: x
      resources:
        requests: &req
          cpu: 2500m
          memory: 1Gi
        limits: READ
"""


@pytest.mark.parametrize(("read", "elsewhere"), [
    ("*req", ""), ("{<<: *req}", ""), ("*req", "  nodeSelector: *req\n"), ("*req", "  nodeSelector: {<<: *req}\n")])
def test_a_mapping_anchored_around_the_value_and_read_elsewhere_is_not_rewritten(
        tmp_path: Path, read: str, elsewhere: str) -> None:
    """An edit inside an anchored mapping changes every alias of it: the pod's limits read as its requests are
    the same setting, and the fix changes both; a node selector reading them is another, which the edit would
    change unseen (found by a fix-safety hunt: the anchor of the mapping around the value went unnoticed)."""
    write(tmp_path, {"kubelet.yaml": KUBELET_HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0,16"\n',
                     "pod.yaml": ANCHORED_REQUESTS.replace("READ", read) + elsewhere})
    before = (tmp_path / "pod.yaml").read_text()
    result = run("fix", "--unsafe-fixes", str(tmp_path))
    if elsewhere:
        assert (tmp_path / "pod.yaml").read_text() == before
        assert "anchored (&req) and read elsewhere through *req" in result.output
    else:
        assert (tmp_path / "pod.yaml").read_text() == before.replace("cpu: 2500m", 'cpu: "3"')


EMBEDDED_PROFILE = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: tuned, namespace: clusters}
data:
  tuning: |
    apiVersion: performance.openshift.io/v2
    kind: PerformanceProfile
    metadata:
      name: perf
    spec:
      cpu: {isolated: "2-15", reserved: "0-1"}
      numa: &n {topologyPolicy: Single-numa-node}
      READ
"""


@pytest.mark.parametrize(("read", "changed"), [
    ("nodeSelector: *n", False), ("nodeSelector: {<<: *n}", False), ("additionalKernelArgs: [*n]", False),
    ("nodeSelector: {node-role.kubernetes.io/cnf: ''}", True)])
def test_an_anchored_mapping_of_an_embedded_profile_read_elsewhere_is_not_rewritten(
        tmp_path: Path, read: str, changed: bool) -> None:
    """The anchored mapping guard reads the PerformanceProfile a ConfigMap embeds (HyperShift's ``tuning: |``) as it
    reads a file: the policy's case fix edited ``numa: &n {...}`` that the profile's nodeSelector reads through
    ``*n``, so the profile chose other nodes unseen (found by a fix-safety hunt)."""
    write(tmp_path, {"cm.yaml": EMBEDDED_PROFILE.replace("READ", read)})
    before = (tmp_path / "cm.yaml").read_text()
    result = run("fix", "--unsafe-fixes", str(tmp_path))
    if changed:
        assert (tmp_path / "cm.yaml").read_text() == before.replace("Single-numa-node", "single-numa-node")
    else:
        assert (tmp_path / "cm.yaml").read_text() == before
        assert "anchored (&n) and read elsewhere through *n" in result.output


TWIN = """\
apiVersion: machineconfiguration.openshift.io/v1
kind: KubeletConfig
metadata: {name: kc}
spec:
  machineConfigPoolSelector:
    matchLabels: {pools.operator.machineconfiguration.openshift.io/worker: ""}
  kubeletConfig: {cpuManagerPolicy: Static, reservedSystemCPUs: "0"}
"""


def test_an_anchored_mapping_that_ends_its_block_scalar_holds_nothing_after_it(tmp_path: Path) -> None:
    """The anchored mapping of a block scalar's document ends with the block, not on the file's next line: the fix
    there was held back as though inside it (found by a hunt)."""
    pad = " " * 24  # deeper than the fixed value's column: the end placed on the next line then covered it
    write(tmp_path, {"k.yaml": KUBELET_HEAD + f'reservedSystemCPUs: "0"\nx-note: |\n{pad}a: &x\n{pad}  b: 1\n'
                                             f"{pad}  c: *x\ncpuManagerPolicy: Static\n"})
    run("fix", str(tmp_path))
    assert "cpuManagerPolicy: static\n" in (tmp_path / "k.yaml").read_text()


@pytest.mark.parametrize("files", [{"a.yaml": TWIN, "b.yaml": TWIN}, {"a.yaml": TWIN + "---\n" + TWIN}])
def test_an_object_written_twice_identically_is_not_fixed_in_one_copy(tmp_path: Path, files: dict[str, str]) -> None:
    """Identical copies are checked once (merged): `fix` edited the first, so the copies then differed (a new
    duplicate-object warning) and the other kept the error (found by a fix-safety hunt). The fix is a hint naming
    the other copy."""
    write(tmp_path, files)
    result = run("fix", str(tmp_path))
    assert {name: (tmp_path / name).read_text() for name in files} == files
    assert "the same object is written again, identically, at" in result.output
    after = run("check", "--format", "json", "--fail-on", "never", str(tmp_path)).json()["findings"]
    assert "duplicate-object" not in {f["rule"] for f in after}
    write(tmp_path, {"b.yaml": TWIN.replace('"0"', '"0,1"')} if "b.yaml" in files else {})  # a copy no more
    if "b.yaml" in files:
        run("fix", str(tmp_path))
        assert "cpuManagerPolicy: static" in (tmp_path / "a.yaml").read_text()


def test_a_suppressed_warning_does_not_hold_back_a_kubelet_fix(tmp_path: Path) -> None:
    # the case fix starts the static CPU manager, and then the pod's suppressed fractional-cpu warning applies
    write(tmp_path, {"kubelet.yaml": KUBELET_HEAD + 'cpuManagerPolicy: Static\nreservedSystemCPUs: "0"\n',
                     "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n"
                                 "    image: i\n    resources:\n"
                                 "      # numalint: disable=fractional-cpu -- fine shared\n"
                                 "      limits: {cpu: 1500m, memory: 1Gi}\n"})
    run("fix", str(tmp_path))
    assert "cpuManagerPolicy: static\n" in (tmp_path / "kubelet.yaml").read_text()


def test_a_follow_up_the_run_never_applies_holds_back_the_fix_that_needs_it(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # one pass only: the rename's follow-up (the case of "static") is left for another run, so the rename would
    # leave the kubelet refusing to start; the run is made again without follow-ups and holds the rename back
    import numalint.fixer as fixer

    monkeypatch.setattr(fixer, "MAX_PASSES", 1)
    target = tmp_path / "kubelet.yaml"
    text = KUBELET_HEAD + "memoryManagerPolicyy: static\nreservedMemory:\n  - {numaNode: 0, limits: {memory: 100Mi}}\n"
    target.write_text(text)
    result = run("fix", str(target))
    assert target.read_text() == text and "held back" in result.stderr
    assert run("check", "--fail-on", "error", str(target)).exit_code == 0


def test_a_fix_fix_would_refuse_is_not_offered_and_does_not_stop_the_others(tmp_path: Path) -> None:
    # in a ConfigMap's embedded PerformanceProfile, the folded policy name is no whole node of the file: its fix
    # is a hint; the misspelt field's rename is still offered and applied
    text = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tuning, namespace: clusters}\ndata:\n  tuning: |\n"
            "    apiVersion: performance.openshift.io/v2\n    kind: PerformanceProfile\n    metadata:\n"
            "      name: cnf\n    spec:\n      cpu:\n        isolated: \"2-7\"\n        reserved: \"0-1\"\n"
            "      nodeSelector:\n        node-role.kubernetes.io/worker-cnf: \"\"\n      numa:\n"
            "        topologyPolicy: >-   # policy\n          Single-numa-node\n      realTimeKernal:\n"
            "        enabled: true\n")
    target = tmp_path / "cm.yaml"
    target.write_text(text)
    found = run("check", "--format", "json", str(target)).json()["findings"]
    # the API server refuses the profile (schema); the kubelet rule's case fix goes with that finding
    [policy] = [f for f in found if "topologyPolicy" in f["message"]]
    assert policy["fix"]["edits"] == [] and "does not cover one whole YAML node" in policy["fix"]["description"]
    result = run("fix", str(target))
    assert "fixed 1 finding(s) in 1 file(s)" in result.stderr
    assert target.read_text() == text.replace("realTimeKernal", "realTimeKernel")


def test_a_fix_that_moves_a_shown_warning_under_a_suppression_is_held_back(tmp_path: Path) -> None:
    target = tmp_path / "kubelet.yaml"
    text = KUBELET_HEAD + ("topologyManagerPolicy: |-  # numalint: disable=unknown-field\n  Best-effort\n"
                           "bogusFieldXyz: 1\n")
    target.write_text(text)
    assert "[unknown-field]" in run("check", str(target)).output
    result = run("fix", str(target))
    assert target.read_text() == text and "a suppression comment would then cover" in result.output


def test_a_fix_of_a_value_read_through_an_alias_is_a_hint_and_the_others_apply(tmp_path: Path) -> None:
    target = tmp_path / "kubelet.yaml"
    text = ("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmetadata: {name: &p Static}\n"
            "cpuManagerPolicy: *p\nreservedSystemCPUs: \"0\"\ntopologyManagerPolicies: none\n")
    target.write_text(text)
    found = run("check", "--format", "json", str(target)).json()["findings"]
    case = next(f for f in found if f["rule"] == "invalid-policy-name")
    assert case["fix"]["edits"] == []
    run("fix", str(target))
    assert "topologyManagerPolicy: none\n" in target.read_text()


@pytest.mark.parametrize("requests", ['{"x #y": 1, cpu: &c\n            2500m, memory: 1Gi}',
                                      "{cpu: &c" + " " * 600 + "2500m, memory: 1Gi}"])
def test_an_anchor_behind_a_quoted_hash_or_far_blanks_is_still_seen(tmp_path: Path, requests: str) -> None:
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: app}\nspec:\n  containers:\n    - name: app\n      image: x\n"
           f"      resources:\n        requests: {requests}\n        limits: {{cpu: 2500m, memory: 1Gi}}\n"
           "      env:\n        - {name: CPU_QUOTA, value: *c}\n")
    write(tmp_path, {"kubelet.yaml": KUBELET_HEAD + 'cpuManagerPolicy: static\nreservedSystemCPUs: "0,16"\n',
                     "pod.yaml": pod})
    run("fix", "--unsafe-fixes", str(tmp_path))
    assert (tmp_path / "pod.yaml").read_text() == pod
