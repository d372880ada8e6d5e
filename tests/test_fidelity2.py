"""Issue 12, second part: API-server validation, version-dependent fields, OpenShift release by release,
proven kubelet fixes and the Topology Manager merge with impossible providers; through the command line.

Each test cites the Go source whose behaviour it pins."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import run, write

HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


def findings(tmp_path: Path, files: dict[str, str], *args: str) -> list[dict[str, Any]]:
    write(tmp_path, files)
    result = run("check", "--format", "json", "--fail-on", "never", *args, str(tmp_path))
    assert "Traceback" not in result.stderr
    assert result.exit_code == 0, result.output + result.stderr
    found: list[dict[str, Any]] = result.json()["findings"]
    return found


def where(found: list[dict[str, Any]], rule: str) -> list[tuple[int, int, str]]:
    return [(f["line"], f["column"], f["message"]) for f in found if f["rule"] == rule]


# --- item 6: the merge with a provider that has no possible NUMA affinity ------------------------------

FOUR = {"nodes": [0, 1, 2, 3], "distances": None}


def _case(name: str, policy: str, providers: list[Any], hint: dict[str, Any], admit: bool) -> str:
    return json.dumps({"source": "numalint tests/test_fidelity2.py", "name": name, "policy": policy,
                       "policy_options": {}, "numa": FOUR, "providers": providers,
                       "expected": {"hint": hint, "admit": admit}})


# pkg/kubelet/cm/topologymanager/policy.go (v1.32 and later):
#   filterProvidersHints turns a resource's empty list `[]` into [{nil, false}];
#   NewHintMerger sets BestNonPreferredAffinityCount = maxOfMinAffinityCounts(hints), and
#   maxOfMinAffinityCounts skips every list whose narrowestHint is nil -- narrowestHint ignores nil
#   affinities, so a `[]` provider contributes nothing (it does NOT count as "all NUMA nodes").
# Here the CPU list's narrowest hint is {0}: the count to aim for is 1, so among the (all non-preferred)
# merged hints {0} and {0,1}, HintMerger.compare keeps {0} (case 2: current count == best, candidate's
# is not). Counting the `[]` provider as 4 would make {0,1} win (case 3ca).
IMPOSSIBLE = [{"gpu": []}, {"cpu": [{"numa": [0], "preferred": True}, {"numa": [0, 1], "preferred": False}]}]
MERGE_VECTORS = [
    _case("[] provider, best-effort: aim at the CPU's narrowest count", "best-effort", IMPOSSIBLE,
          {"numa": [0], "preferred": False}, True),
    _case("[] provider, restricted: same merged hint, rejected", "restricted", IMPOSSIBLE,
          {"numa": [0], "preferred": False}, False),
    # policy_single_numa_node.go filterSingleNumaHints drops {nil, false}: an empty list, no permutation,
    # the default {all, false} and then {nil, false}
    _case("[] provider, single-numa-node: nothing merges", "single-numa-node", IMPOSSIBLE,
          {"numa": None, "preferred": False}, False),
    # the order of the lists does not matter: the `[]` provider last
    _case("[] provider last", "best-effort", IMPOSSIBLE[::-1], {"numa": [0], "preferred": False}, True),
    # a `[]` next to a nil (no preference) list and a wide list: best count 2 from the wide list
    _case("[] provider with a nil list", "best-effort",
          [{"gpu": [], "nic": None}, {"cpu": [{"numa": [0, 1], "preferred": True},
                                              {"numa": [0, 1, 2], "preferred": False}]}],
          {"numa": [0, 1], "preferred": False}, True),
]


def test_merge_with_an_impossible_provider_matches_policy_go(tmp_path: Path) -> None:
    vectors = tmp_path / "impossible.jsonl"
    vectors.write_text("\n".join(MERGE_VECTORS) + "\n")
    proc = subprocess.run([sys.executable, "-m", "numalint.conformance.runner", str(vectors)],
                          capture_output=True, text=True)
    assert proc.stdout.strip() == f"topologymanager merge (cases): {len(MERGE_VECTORS)} passed, 0 failed", proc.stdout
    assert proc.returncode == 0
