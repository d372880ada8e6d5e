"""Reading YAML like Kubernetes does, with exact positions, and never crashing on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from numalint.k8s.cpuset import CPUSetError, format_cpuset, parse_cpuset
from numalint.k8s.quantity import format_bytes, parse_quantity
from numalint.reading.yamlpos import YamlError, load_all
from tests.conftest import run, write


def test_yaml_1_1_scalars_resolve_like_go_yaml_v2() -> None:
    (doc, _), = load_all("a: yes\nb: off\nc: 010\nd: '010'\ne: 0x1F\nf: ~\ng: 1.5\nh: on\ni: y\nj: 12_000\n")
    assert doc == {"a": True, "b": False, "c": 8, "d": "010", "e": 31, "f": None, "g": 1.5, "h": True,
                   "i": True, "j": 12000}


def test_positions_are_one_based_and_exact() -> None:
    (doc, span), = load_all("kind: Pod\nspec:\n  containers:\n    - name: app\n")
    assert span.line == 1
    assert doc.key_spans["spec"][:2] == (2, 1)
    container = doc["spec"]["containers"]
    assert container.item_spans[0][:2] == (4, 7)
    assert container[0].value_spans["name"][:2] == (4, 13)


def test_aliases_merge_keys_and_multiple_documents() -> None:
    docs = load_all("a: &x {cpu: '1'}\nb: *x\nc:\n  <<: *x\n  memory: 1Gi\n---\nkind: B\n")
    first = docs[0][0]
    assert first["b"] == {"cpu": "1"} and first["c"] == {"cpu": "1", "memory": "1Gi"}
    assert docs[1][0]["kind"] == "B" and docs[1][1].line == 7


# every kind of event: tags, anchors, aliases, merge keys, flow and block styles, several documents, a non-LF break
_EVENTS_SAMPLE = ("%YAML 1.1\n---\napiVersion: v1\nkind: Pod\nmetadata: &m {name: a, labels: {x: 'y'}}\n"
                  "spec:\n  <<: {hostNetwork: true}\n  containers:\n  - name: c\n    args: [!!str 1, \"2\", *m, 0x1F]\n"
                  "    command: |\n      run\n  1: one\n  true: yes\n---\nkind: Service\napiVersion: v1\n"
                  "spec: {a: [1]}\n--- !!map\nk: v\rw: x\n")


def _shape(docs: object) -> str:
    def walk(node: object) -> object:
        if isinstance(node, dict):
            return [type(node).__name__, node.span, [(repr(k), walk(v), node.key_spans[k], node.value_spans[k])
                                                    for k, v in node.items()]]
        if isinstance(node, list):
            return [node.span, [(walk(v), s) for v, s in zip(node, node.item_spans, strict=True)]]
        return repr(node)
    return repr([(walk(root), span) for root, span in docs])  # type: ignore[attr-defined]


def test_reading_without_the_fast_event_records_gives_the_same_trees(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another ruamel.yaml.clib may call the event classes differently: events are then converted, same result."""
    from numalint.reading import events, sources

    keep = sources._wanted(_EVENTS_SAMPLE)
    fast = (_shape(load_all(_EVENTS_SAMPLE)), _shape(load_all(_EVENTS_SAMPLE, keep)))
    assert events.Events.fast  # the installed ruamel.yaml.clib passes the check
    monkeypatch.setattr(events.Events, "fast", False)
    assert (_shape(load_all(_EVENTS_SAMPLE)), _shape(load_all(_EVENTS_SAMPLE, keep))) == fast
    with pytest.raises(YamlError, match="found undefined alias 'nope'"):
        load_all("a: *nope\n")


def test_reading_puts_ruamel_yaml_event_classes_back() -> None:
    """The fixer (and anything else) reading with the C parser sees ruamel.yaml's own events."""
    from ruamel.yaml import events
    from ruamel.yaml.cyaml import CParser

    load_all(_EVENTS_SAMPLE)
    with pytest.raises(YamlError):
        load_all("a: [1\n")
    parser = CParser("a: 1\n")
    try:
        kinds = [type(parser.get_event()) for _ in range(4)]
    finally:
        parser.dispose()
    assert kinds[3] is events.ScalarEvent and kinds[0] is events.StreamStartEvent


@pytest.mark.parametrize("text,expected", [
    ("4000m", 4), ("1Gi", 1024 * 2**20), ("1024Mi", 2**30), ("1G", 10**9), ("1000M", 10**9), ("1.5", 1.5),
    ("100Mi", 100 * 2**20), ("1e3", 1000), ("500m", 0.5), (2, 2),
])
def test_quantities_parse_exactly(text: object, expected: float) -> None:
    assert parse_quantity(text) == expected


def test_quantity_equalities_and_rendering() -> None:
    assert parse_quantity("4000m") == parse_quantity(4)
    assert parse_quantity("1Gi") == parse_quantity("1024Mi")
    assert parse_quantity("1G") == parse_quantity("1000M")
    assert format_bytes(parse_quantity("6244Mi")) == "6244Mi"


def test_cpusets_parse_as_linux_lists() -> None:
    assert parse_cpuset("0-3,8") == {0, 1, 2, 3, 8}
    assert parse_cpuset("") == frozenset()
    assert format_cpuset({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11"
    for bad in ("0, 1", "3-1", "a", "1-", "0,,1"):
        with pytest.raises(CPUSetError):
            parse_cpuset(bad)


HOSTILE = {
    "broken.yaml": "apiVersion: v1\nkind: Pod\nspec: [\n",
    "tabs.yaml": "kind: Pod\n\tspec: 1\n",
    "binary.yaml": None,
    "deep.yaml": "a: " + "[" * 5000 + "]" * 5000 + "\n",
    "alias-bomb.yaml": "a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\nd: [*c, *c, *c]\n",
    "wrong-types.yaml": "apiVersion: v1\nkind: Pod\nmetadata: 5\nspec:\n  containers: {a: 1}\n",
    "list.yaml": "apiVersion: v1\nkind: List\nitems: [1, null, {kind: Pod}]\n",
    "scalar.yaml": "just a string\n",
    "empty.yaml": "",
    "kubelet-wrong.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                          "reservedMemory: 5\ncpuManagerPolicyOptions: [a]\nsystemReserved: {cpu: [1]}\n"
                          "topologyManagerPolicyOptions: 7\n",
    "kubeletconfig-wrong.yaml": "apiVersion: machineconfiguration.openshift.io/v1\nkind: KubeletConfig\n"
                                "spec: {kubeletConfig: [1, 2]}\n",
    "topo-wrong.yaml": "apiVersion: numalint.io/v1alpha1\nkind: NodeTopology\nmetadata: {name: t}\n"
                       "spec: {numaNodes: [{id: x, cpus: 5}, 3]}\n",
    "nrt-wrong.yaml": "apiVersion: topology.node.k8s.io/v1alpha2\nkind: NodeResourceTopology\nzones: [{name: 3}]\n",
}


def test_hostile_files_never_crash_and_the_run_goes_on(tmp_path: Path) -> None:
    files = {k: v for k, v in HOSTILE.items() if v is not None}
    write(tmp_path, files)
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00kind: Pod\x00\x01")
    write(tmp_path, {"good.yaml": """\
        apiVersion: kubelet.config.k8s.io/v1beta1
        kind: KubeletConfiguration
        topologyManagerPolicy: Single-NUMA-Node
        """})
    result = run("check", "--format", "json", str(tmp_path))
    assert result.exit_code == 1
    findings = result.json()["findings"]
    by_file = {Path(f["file"]).name: f for f in findings if f["rule"] == "yaml-syntax"}
    assert {"broken.yaml", "tabs.yaml", "binary.yaml"} <= set(by_file)
    # libyaml gives up at the end of the stream, line 4 of a 3-line file: reported at the end of the last line
    assert (by_file["broken.yaml"]["line"], by_file["broken.yaml"]["column"]) == (3, 8)
    assert any(f["rule"] == "invalid-policy-name" and f["file"].endswith("good.yaml") for f in findings)
    assert all(f["line"] >= 1 and f["column"] >= 1 for f in findings)


def test_json_input_and_kind_list_are_read(tmp_path: Path) -> None:
    write(tmp_path, {"kubelet.json": '{"apiVersion": "kubelet.config.k8s.io/v1beta1", '
                                     '"kind": "KubeletConfiguration",\n "cpuManagerPolicy": "Static"}',
                     "list.yaml": """\
        apiVersion: v1
        kind: List
        items:
          - apiVersion: v1
            kind: Pod
            metadata:
              name: p
            spec:
              containers:
                - name: c
                  resources:
                    requests:
                      nvidia.com/gpu: 1
        """})
    result = run("check", "--format", "json", str(tmp_path))
    rules = {(Path(f["file"]).name, f["rule"], f["line"]) for f in result.json()["findings"]}
    assert ("kubelet.json", "invalid-policy-name", 2) in rules
    assert ("list.yaml", "invalid-resources", 13) in rules


def test_oversized_file_is_reported_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import numalint.reading.sources as sources

    monkeypatch.setattr(sources, "MAX_FILE_BYTES", 100)
    write(tmp_path, {"big.yaml": "a: " + "x" * 200 + "\n", "small.yaml": "a: 1\n"})
    result = run("check", "--format", "json", str(tmp_path))
    messages = [f["message"] for f in result.json()["findings"] if f["rule"] == "yaml-syntax"]
    assert any("larger than" in m for m in messages)
    assert result.exit_code == 1
