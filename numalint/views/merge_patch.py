"""RFC 7386 JSON merge patches over located trees: how kind applies its kubeadmConfigPatches and how the kubelet
merges a drop-in over its configuration (nodeadm's NodeConfig), every value located where it was written last."""

from __future__ import annotations

from typing import Any

from numalint.reading.yamlpos import YMap

MERGE_BUDGET = 1_000_000  # keys merged in all: aliases of a large patch must not multiply the work unbounded


def merged(base: YMap, patches: list[YMap]) -> YMap | None:
    """RFC 7386: ``patches`` over ``base`` in order, each value located where it was written last; None past
    MERGE_BUDGET keys. The mappings made here are changed in place (a copy per patch was quadratic in the number of
    patches); a patch's own mappings are copied before one is changed. A patch applied twice in a row is applied
    once (a merge patch is idempotent: aliases of one patch, listed again and again)."""
    owned = {id(node) for node in _mappings(base)}
    budget = [MERGE_BUDGET]
    previous: YMap | None = None
    for patch in patches:
        if patch is not previous:
            _merge_into(base, patch, owned, budget)
            previous = patch
        if budget[0] < 0:
            return None
    return base


def _mappings(node: Any) -> list[YMap]:
    return [node, *(m for value in node.values() if isinstance(value, YMap) for m in _mappings(value))] \
        if isinstance(node, YMap) else []


def _merge_into(target: YMap, patch: YMap, owned: set[int], budget: list[int]) -> None:
    if patch.duplicates:  # every patch's repeated keys stay said
        target.duplicates = [*target.duplicates, *patch.duplicates]
    for key, value in patch.items():
        budget[0] -= 1
        if value is None:
            target.pop(key, None)
            target.key_spans.pop(key, None)
            target.value_spans.pop(key, None)
            continue
        if isinstance(value, YMap):
            existing = target.get(key)
            if not isinstance(existing, YMap) or id(existing) not in owned:
                fresh = YMap()
                if isinstance(existing, YMap):
                    budget[0] -= len(existing)
                    fresh.update(existing)
                    fresh.key_spans.update(existing.key_spans)
                    fresh.value_spans.update(existing.value_spans)
                    fresh.duplicates = existing.duplicates
                owned.add(id(fresh))
                existing = fresh
            existing.span = value.span
            _merge_into(existing, value, owned, budget)
            value = existing
        target[key] = value
        target.key_spans[key], target.value_spans[key] = patch.key_spans[key], patch.value_spans[key]
