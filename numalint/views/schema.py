"""JSON Schema validation of known kinds, and the kubelet's field catalogue.

jsonschema costs ~70 ms to import, so it is imported only when a document of a
known kind is validated; field names come straight from the schema JSON.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from functools import cache, lru_cache
from typing import Any

from numalint import catalogue as registry
from numalint.data import data_dir
from numalint.findings import SAFE, Edit, Finding, Fix
from numalint.k8s.kinds import (
    KUBEFLOW_REPLICA_SPECS,
    KUBELET_CONFIG,
    KUBELET_CONFIGURATION,
    NODE_TOPOLOGY,
    RAY_KINDS,
    SCHEMA_FILES,
    layout,
)
from numalint.k8s.quantity import QuantityError, parse_quantity, try_quantity
from numalint.k8s.templates import pod_templates
from numalint.reading.locate import Path, get, locate
from numalint.reading.scalars import value_start
from numalint.reading.sources import Document
from numalint.reading.yamlpos import line_starts, resolve_plain
from numalint.views.literals import consumer, fraction_quoted, quoting_keeps_digits

KUBELET_SCHEMA = "kubelet-config.schema.json"
PODTEMPLATE_SCHEMA = "podtemplate.schema.json"
# the counts and shapes numalint reads of each kind with a pod template per role (k8s/kinds.py MULTI_TEMPLATE_KINDS)
LAYOUT_SCHEMAS = {
    **dict.fromkeys(KUBEFLOW_REPLICA_SPECS, "kubeflow-job.schema.json"), **dict.fromkeys(RAY_KINDS, "ray.schema.json"),
    "JobSet": "jobset.schema.json", "LeaderWorkerSet": "leaderworkerset.schema.json",
    "VolcanoJob": "volcano-job.schema.json",
}
QUANTITY_PATTERN = "^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$"


@cache
def load_schema(name: str) -> dict[str, Any]:
    with open(data_dir("schemas") / name, encoding="utf-8") as handle:
        result: dict[str, Any] = json.load(handle)
    return _mark_quantities(result)


def _mark_quantities(node: Any) -> Any:
    """Add ``format: quantity`` beside each quantity ``anyOf``: the pattern accepts ``1e999999999`` and the number
    branch ``.nan``, so the value itself is parsed (in bounded time) to find what is out of range."""
    if isinstance(node, dict):
        for value in node.values():
            _mark_quantities(value)
        if any(isinstance(b, dict) and b.get("pattern") == QUANTITY_PATTERN for b in node.get("anyOf", ())):
            node["format"] = "quantity"
    elif isinstance(node, list):
        for value in node:
            _mark_quantities(value)
    return node


def _is_quantity(instance: Any) -> bool:
    """Values of the wrong type or shape are the ``anyOf``'s to report; the others must parse."""
    if isinstance(instance, str):
        return _quantity_text(instance) if len(instance) <= 64 else _quantity_text.__wrapped__(instance)
    return not isinstance(instance, (int, float)) or isinstance(instance, bool) or try_quantity(instance) is not None


@lru_cache(maxsize=4096)  # a repository repeats the same few quantities ("500m", "1Gi") thousands of times
def _quantity_text(instance: str) -> bool:
    return _regex(QUANTITY_PATTERN).search(instance) is None or try_quantity(instance) is not None


def _check_quantity(instance: Any) -> bool:
    if not _is_quantity(instance):
        parse_quantity(instance)  # raises the QuantityError jsonschema reports as the cause
    return True


@cache
def kubelet_field_names() -> frozenset[str]:
    return frozenset(load_schema(KUBELET_SCHEMA)["properties"])


@cache
def validator(name: str) -> Any:
    from jsonschema import Draft202012Validator, FormatChecker, validators

    checker = FormatChecker(formats=())
    checker.checks("quantity", raises=QuantityError)(_check_quantity)
    unordered = Draft202012Validator.VALIDATORS["additionalProperties"]

    def additional_properties(validator: Any, schema_of_extras: Any, instance: Any, schema: Any) -> Iterator[Any]:
        """jsonschema's additionalProperties, descending into the extra properties in the document's order:
        jsonschema takes them as a set, whose order changes from run to run with string hashing, and so did
        which findings a file of over a hundred showed."""
        if not (validator.is_type(schema_of_extras, "object") and validator.is_type(instance, "object")):
            yield from unordered(validator, schema_of_extras, instance, schema)
            return
        properties = schema.get("properties", {})
        patterns = "|".join(schema.get("patternProperties", {}))
        for extra in instance:
            if extra not in properties and not (patterns and re.search(patterns, extra)):
                yield from validator.descend(instance[extra], schema_of_extras, path=extra)

    ordered = validators.extend(Draft202012Validator, {"additionalProperties": additional_properties})
    return ordered(load_schema(name), format_checker=checker)


def validate_document(doc: Document, text: str | None = None) -> Iterator[Finding]:
    """Schema findings for one known document (and its embedded kubelet config), lazily.

    jsonschema builds every error eagerly; a caller that stops early (FindingCap) bounds the cost of a
    document with hundreds of thousands of wrong items. ``text``, the file's text, shows how a number was
    written (``010``), which a quoting fix keeps.
    """
    kind_layout = layout(doc.api_version, doc.kind)
    if kind_layout is not None:  # a custom resource with a pod template per role: its counts, then each template
        yield from _validate(doc, LAYOUT_SCHEMAS[kind_layout], doc.root, (), text, nulls=False)
        for template in pod_templates(doc.api_version, doc.kind, doc.root):
            yield from _validate_template(doc, template.spec_path[:-1], text)
        return
    name = SCHEMA_FILES.get(doc.kind)
    if name is not None:
        yield from _validate(doc, name, doc.root, (), text)
    if doc.kind == KUBELET_CONFIG:
        embedded = doc.root.get("spec", {}).get("kubeletConfig") if isinstance(doc.root.get("spec"), dict) else None
        if isinstance(embedded, dict):
            yield from _validate(doc, KUBELET_SCHEMA, embedded, ("spec", "kubeletConfig"), text)


def conforms(instance: Any, schema: dict[str, Any], root: dict[str, Any]) -> bool:
    """A fast yes/no check for the JSON Schema keywords numalint's schemas use.

    Nearly every document conforms; answering that without importing jsonschema (~70 ms) keeps a
    one-file pre-commit run instant and a large run fast. On "no", jsonschema produces the findings.
    Unknown keywords answer "no" so that jsonschema decides.
    """
    return _compiled(schema, root)(instance)


Check = Callable[[Any], bool]
# (id(schema), id(root)) -> (schema, root, its check): the schemas are kept alive, so ids are not reused
_COMPILED: dict[tuple[int, int], tuple[Any, Any, Check]] = {}


def _compiled(schema: Any, root: Any) -> Check:
    """The check of ``schema``: one Python function per (sub)schema, made the first time it is needed.

    Walking the schema's keywords for every node of every document cost about a tenth of reading a
    workload; each keyword becomes a closure instead. Subschemas of ``properties`` are made when a
    document first holds that property (a one-file run compiles only what it visits)."""
    key = (id(schema), id(root))
    found = _COMPILED.get(key)
    if found is not None:
        return found[2]
    late: list[Check] = []
    _COMPILED[key] = (schema, root, lambda instance: late[0](instance))  # a $ref back to a schema being made
    try:
        check = _compile(schema, root)
    except BaseException:
        del _COMPILED[key]
        raise
    late.append(check)
    _COMPILED[key] = (schema, root, check)
    return check


def _always(instance: Any) -> bool:
    return True


def _never(instance: Any) -> bool:
    return False


def _compile(schema: Any, root: Any) -> Check:
    if not isinstance(schema, dict):
        return _never  # not a schema numalint writes (``true``): jsonschema decides
    if "$ref" in schema:
        try:
            target: Any = root
            for part in schema["$ref"].lstrip("#/").split("/"):
                target = target[part]
        except (KeyError, IndexError, TypeError, AttributeError):
            return _never
        return _compiled(target, root)
    checks: list[Check] = []
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        make = _KEYWORDS.get(keyword)
        if make is None:
            return _never
        checks.append(make(value, schema, root))
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    every = tuple(checks)

    def all_of(instance: Any) -> bool:
        for check in every:
            if not check(instance):
                return False
        return True

    return all_of


_TYPES: dict[str, Check] = {
    "object": lambda i: isinstance(i, dict),
    "array": lambda i: isinstance(i, list),
    "string": lambda i: isinstance(i, str),
    "integer": lambda i: isinstance(i, int) and not isinstance(i, bool) or isinstance(i, float) and i.is_integer(),
    "number": lambda i: isinstance(i, (int, float)) and not isinstance(i, bool),
    "boolean": lambda i: isinstance(i, bool),
    "null": lambda i: i is None,
}


def _type(value: Any, schema: Any, root: Any) -> Check:
    if not isinstance(value, list):
        return _TYPES.get(value, _never)
    each = tuple(_TYPES.get(name, _never) for name in value)
    return lambda i: any(is_type(i) for is_type in each)


def _properties(value: Any, schema: Any, root: Any) -> Check:
    made: dict[Any, Check] = {}

    def properties(instance: Any) -> bool:
        if not isinstance(instance, dict):
            return True
        for key, item in instance.items():  # the keys both have, from the (smaller) document's side
            check = made.get(key)
            if check is None:
                if key not in value:
                    continue
                check = made[key] = _compiled(value[key], root)
            if not check(item):
                return False
        return True

    return properties


def _additional(value: Any, schema: Any, root: Any) -> Check:
    declared = schema.get("properties", {})
    if value is False:
        return lambda i: not isinstance(i, dict) or all(k in declared for k in i)
    made: list[Check] = []

    def additional(instance: Any) -> bool:
        if not isinstance(instance, dict):
            return True
        for key, item in instance.items():
            if key not in declared:
                if not made:
                    made.append(_compiled(value, root))
                if not made[0](item):
                    return False
        return True

    return additional


def _items(value: Any, schema: Any, root: Any) -> Check:
    made: list[Check] = []

    def items(instance: Any) -> bool:
        if not isinstance(instance, list):
            return True
        if not made:
            made.append(_compiled(value, root))
        check = made[0]
        for item in instance:
            if not check(item):
                return False
        return True

    return items


def _pattern(value: Any, schema: Any, root: Any) -> Check:
    search = _regex(value).search
    return lambda i: not isinstance(i, str) or search(i) is not None


def _required(value: Any, schema: Any, root: Any) -> Check:
    return lambda i: not isinstance(i, dict) or all(k in i for k in value)


def _minimum(value: Any, schema: Any, root: Any) -> Check:
    number = _TYPES["number"]
    return lambda i: not number(i) or i >= value


def _maximum(value: Any, schema: Any, root: Any) -> Check:
    number = _TYPES["number"]
    return lambda i: not number(i) or i <= value


def _min_items(value: Any, schema: Any, root: Any) -> Check:
    return lambda i: not isinstance(i, list) or len(i) >= value


def _format(value: Any, schema: Any, root: Any) -> Check:
    return _is_quantity if value == "quantity" else _always


def _enum(value: Any, schema: Any, root: Any) -> Check:
    return lambda i: i in value and all(type(i) is type(x) for x in value if x == i)


def _const(value: Any, schema: Any, root: Any) -> Check:
    return lambda i: i == value and type(i) is type(value)


def _any_of(value: Any, schema: Any, root: Any) -> Check:
    each = [_compiled(sub, root) for sub in value]
    return lambda i: any(check(i) for check in each)


def _one_of(value: Any, schema: Any, root: Any) -> Check:
    each = [_compiled(sub, root) for sub in value]
    return lambda i: sum(check(i) for check in each) == 1


# a template variable in a value: "$numVfs", "${MTU}", "${{NUMVFS}}", "mlx_$DIR", "{{ .spec.x }}", "<pf_name>"
_TEMPLATE_VARIABLE = re.compile(r"\$\{{0,2}[A-Za-z_]|\{\{|<[A-Za-z_][\w.-]*>")


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_ANNOTATIONS = frozenset({"description", "title", "$schema", "$id", "$defs", "default", "examples"})
_KEYWORDS: dict[str, Callable[[Any, Any, Any], Check]] = {
    "type": _type, "properties": _properties, "additionalProperties": _additional, "items": _items,
    "pattern": _pattern, "required": _required, "minimum": _minimum, "maximum": _maximum,
    "minItems": _min_items, "format": _format, "enum": _enum, "const": _const, "anyOf": _any_of, "oneOf": _one_of,
}


def _validate_template(doc: Document, path: Path, text: str | None) -> Iterator[Finding]:
    """A pod template (metadata and spec) at ``path`` of a custom resource, as a PodTemplate's ``template``: only
    the templates are checked, the rest of the resource has no schema in numalint. The API server prunes a
    custom resource's nulls (a field written ``cpu:`` is no field), so a null is no error there."""
    yield from _validate(doc, PODTEMPLATE_SCHEMA, {"template": get(doc.root, path)}, path, text, within=1,
                         nulls=False)


def _validate(doc: Document, schema: str, instance: Any, base: Path, text: str | None,
              within: int = 0, nulls: bool = True) -> Iterator[Finding]:
    """Schema findings of ``instance``, which lies at ``base`` of the document (the first ``within`` steps of an
    error's path are the wrapping around it); none about a null unless ``nulls``."""
    loaded = load_schema(schema)
    if conforms(instance, loaded, loaded):
        return
    for error in validator(schema).iter_errors(instance):
        if error.instance is None and (error.validator == "type" or not nulls):
            continue  # Go decodes null into any field as its zero value
        if isinstance(error.instance, str) and _TEMPLATE_VARIABLE.search(error.instance):
            continue  # "$numVfs": a PolicyGenerator / kube-compare source CR, filled in before it is applied
        if error.validator == "oneOf" and not isinstance(error.instance, dict):
            continue  # the type error already says it
        path = base + tuple(error.absolute_path)[within:]
        span = locate(doc.root, path)
        number = _Number.of(error, span, text, doc.kind, path)
        word = _bool_word(error, span, text, path)
        # a tagged value (`!!float 3`) keeps its tag through an edit of its text, and the tag decides its type:
        # quoting it would change nothing
        tagged = _tagged(text, span)
        fix = None if tagged else _retype(error, span, number, word)
        yield registry.finding("schema", _describe(error, path, doc.kind, number, word, tagged), doc.file, span,
                               fix=fix)


def _tagged(text: str | None, span: Any) -> bool:
    """Whether the one-line node at ``span`` is written with an explicit tag (``!!float 3``, ``&a !!int 1``)."""
    written = _as_written(text, span)
    return written is not None and "!" in written[0]


def _as_written(text: str | None, span: Any) -> tuple[str, str] | None:
    """(properties, value) of the node at a one-line ``span`` as the file writes them: its anchor and tag, then
    its text; None without the text or for a node over several lines."""
    if text is None or span.line != span.end_line or span.line > len(_line_starts(text)):
        return None
    start = _offset(text, span.line, span.col)
    end = start + span.end_col - span.col
    if not 0 <= start <= end <= len(text):  # a span of another line model than the text's: nothing to read
        return None
    at = value_start(text, start, end)
    return text[start:at], text[at:end]


# maps whose values the kubelet parses with strconv.ParseBool (pkg/kubelet/cm/cpumanager/policy_options.go,
# topologymanager/policy_options.go): there a boolean means the word "true" or "false", however it was written
_PARSE_BOOL_MAPS = frozenset({"cpuManagerPolicyOptions", "topologyManagerPolicyOptions"})


def _bool_word(error: Any, span: Any, text: str | None, path: Path) -> str | None:
    """What to quote for a boolean where a string belongs: the word as the author wrote it (``yes``, ``on``,
    ``y``: go-yaml read a boolean, the author meant the text; writing "true" would change it), or "true" /
    "false" where the field's parser reads booleans from words; None when the written word cannot be told."""
    value = error.instance
    if error.validator != "type" or error.validator_value != "string" or not isinstance(value, bool):
        return None
    if len(path) >= 2 and path[-2] in _PARSE_BOOL_MAPS:
        return "true" if value else "false"
    as_written = _as_written(text, span)
    written = as_written[1] if as_written is not None else ""
    if not written or written[0] in "\"'!&*" or resolve_plain(written) is not value:
        return None  # not the plain word that was read (an alias, a tagged value)
    return written


def _finite_number(value: Any) -> bool:
    return isinstance(value, int) or isinstance(value, float) and math.isfinite(value)


def _whole_number(value: Any) -> bool:
    """A number quoting keeps exactly; a fraction is quoted only where its field reads it as the author wrote it
    (``literals.fraction_quoted``: quoted, 0.5 is the quantity 500m, which for memory is milli-bytes)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value.bit_length() <= 2 * MAX_SHOWN  # a huge integer is not printed (describe_value)
    return isinstance(value, float) and value.is_integer() and abs(value) < 2.0 ** 64


class _Number:
    """A number where a string belongs, as written (``010``, ``1.50``) and as YAML 1.1 read it (``8``, ``1.5``).

    ``safe``: quoting the text as written keeps what the author meant; ``reading`` says how the field's parser
    reads that text, ``advice`` what to write when it is not safe (a fraction, ``views/literals.py``)."""

    def __init__(self, written: str, canonical: str, safe: bool, reading: str, fraction: bool = False,
                 advice: str = "") -> None:
        self.written, self.canonical, self.safe, self.reading = written, canonical, safe, reading
        self.fraction, self.advice = fraction, advice
        self.refused = False

    @classmethod
    def of(cls, error: Any, span: Any, text: str | None, kind: str, path: Path) -> _Number | None:
        """None unless the value is a number for a string field, plain in the text: a whole number written
        otherwise than its decimal form, or a fraction however written."""
        value = error.instance
        as_written = _as_written(text, span)
        if (error.validator != "type" or error.validator_value != "string" or isinstance(value, bool)
                or not _finite_number(value) or as_written is None):
            return None
        fraction = isinstance(value, float) and not value.is_integer()
        if not fraction and not _whole_number(value):
            return None
        written = as_written[1]
        canonical = repr(value) if fraction else str(int(value))
        if (not fraction and written == canonical) or not written or written[0] in "\"'!&*" \
                or resolve_plain(written) != value:
            return None  # written as read, or not the plain number that was read (an alias, a tagged value)
        if fraction:
            safe, reading, advice = fraction_quoted(kind, path, written)
            return cls(written, canonical, safe, reading, True, advice)
        safe, reading = quoting_keeps_digits(kind, path, written)
        number = cls(written, canonical, safe, reading)
        number.refused = not safe and consumer(kind, path) is not None  # its parser refuses the text as written
        return number


def _offset(text: str, line: int, col: int) -> int:
    """The character offset of a 1-based line and column (lines end at LF, as spans do)."""
    return _line_starts(text)[line - 1] + col - 1


_STARTS: list[tuple[str, list[int]]] = []  # the last two texts asked about, by identity, with their line starts


def _line_starts(text: str) -> list[int]:
    """``line_starts`` of the file being checked, once per file: a file of thousands of documents, each with a
    value of the wrong type, looked for each one's line from the start of the file (quadratic). Texts are told
    apart by identity: a proof reads the file again into an equal string, which a cache keyed by the text
    compared with the first one, whole, on every call (quadratic again)."""
    for known, starts in _STARTS:
        if known is text:
            return starts
    starts = line_starts(text)
    _STARTS[:] = [(text, starts), *_STARTS[:1]]
    return starts


def _retype(error: Any, span: Any, number: _Number | None = None, word: str | None = None) -> Fix | None:
    """The safe edit for a scalar of the wrong YAML type: quote it, or unquote a quoted boolean. A number
    written otherwise than YAML reads it (``010``) is quoted as written when the field's parser reads that
    text; otherwise the fix is the author's (both readings are in the message)."""
    if error.validator != "type" or span.line != span.end_line:
        return None
    value, expected = error.instance, error.validator_value
    if number is not None and not number.safe and number.fraction:
        return Fix(number.advice)
    if number is not None and number.refused:  # "1.0" as written would stop the kubelet too
        return Fix(f'write "{number.canonical}" if that is what you mean ({number.reading})')
    if number is not None and not number.safe:
        return Fix(f'quote the value you mean: "{number.written}" as written, or "{number.canonical}" as YAML 1.1 '
                   "reads it")
    if number is not None:
        text = f'"{number.written}"'
    elif expected == "string" and isinstance(value, bool):
        if word is None:
            return None
        text = f'"{word}"'
    elif expected == "string" and _whole_number(value):
        text = f'"{int(value)}"'
    elif expected == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
        text = value.lower()
    else:
        return None
    return Fix(f"write {text}", [Edit(span, text)], SAFE)


# the bounds of Go's integer types, as a schema writes them for an int32 or int64 field (encoding/json refuses a
# number outside them: "cannot unmarshal number 3000000000 into Go struct field ... of type int32")
GO_INT_BITS = {bound: bits for bits in (32, 64) for bound in (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)}


def _decoder(kind: str, path: Path = ()) -> str:
    """Who refuses a document of ``kind`` that does not decode (at ``path``)."""
    if kind == KUBELET_CONFIG:
        # the API server keeps spec.kubeletConfig as it is (preserve-unknown-fields): the machine-config operator
        # decodes it into the kubelet's Go types, fails, and renders no kubelet.conf; the rest is the CRD's
        return "the machine-config operator" if tuple(path[:2]) == ("spec", "kubeletConfig") else "the API server"
    return {KUBELET_CONFIGURATION: "the kubelet", NODE_TOPOLOGY: "numalint"}.get(kind, "the API server")


def _describe(error: Any, path: Path, kind: str, number: _Number | None = None, word: str | None = None,
              tagged: bool = False) -> str:
    where = ".".join(str(p) for p in path) or "document"
    value = error.instance
    shown = describe_value(value)
    if error.validator == "format" and error.validator_value == "quantity":
        return f"{where}: not a usable Kubernetes quantity: {error.cause}"
    if error.validator == "type":
        expected = error.validator_value
        if isinstance(expected, str):
            expected = {"object": "mapping", "array": "list"}.get(expected, expected)
        hint = ""
        if expected == "string" and isinstance(value, bool):
            hint = (f'; YAML reads unquoted {word or str(value).lower()} as a boolean, quote it: '
                    f'"{word or str(value).lower()}"')
        elif number is not None and number.fraction:
            reading = f"; {number.reading}" if number.reading else ""
            hint = reading + (f': quote it as written, "{number.written}"' if number.safe else f"; {number.advice}")
        elif number is not None:
            hint = (f"; YAML 1.1 reads {number.written} as the number {number.canonical} (go-yaml), and "
                    f"{number.reading}")
            hint += f': quote it as written, "{number.written}"' if number.safe else (
                f'; quote the value you mean ("{number.canonical}" if you meant {number.canonical})')
        elif expected == "string" and _whole_number(value):
            hint = f'; quote it: "{int(value)}"'
        elif expected == "string" and _finite_number(value):
            hint = "; quote the text you mean"  # no text to show how it was written (an alias, a flow across lines)
        elif expected == "boolean" and isinstance(value, str) and value.lower() in ("true", "false"):
            hint = f"; write it unquoted: {value.lower()}"
        if tagged:
            hint = "; its tag decides its type: write it without the tag"
        article = "an" if str(expected)[:1] in "aeiou" else "a"
        return f"{where}: {shown} is not {article} {expected}; {_decoder(kind, path)} fails to decode it{hint}"
    if error.validator == "pattern":
        why = f"; {error.schema['description']}" if isinstance(error.schema, dict) and error.schema.get(
            "description") else ""
        return f"{where}: {shown} is not a valid value (expected to match {error.validator_value}){why}"
    if error.validator == "anyOf":
        return f"{where}: {shown} is not a valid Kubernetes quantity (e.g. 2, 500m, 1Gi)"
    if error.validator == "oneOf":
        return f"{where}: give exactly one of the alternatives ({error.message.split(' is ', 1)[-1]})"
    if error.validator == "enum":
        return f"{where}: {shown} is not one of {', '.join(json.dumps(v) for v in error.validator_value)}"
    if error.validator in ("minimum", "maximum") and error.validator_value in GO_INT_BITS:
        return (f"{where}: {shown} does not fit the field's Go type, int{GO_INT_BITS[error.validator_value]} "
                f"({error.validator} {error.validator_value}); {_decoder(kind, path)} fails to decode it")
    if error.validator in ("minimum", "maximum", "minItems"):
        return f"{where}: {shown} is outside the {error.validator} {error.validator_value}"
    if error.validator == "additionalProperties" and isinstance(value, dict):
        declared = error.schema.get("properties", {})
        extra = [str(k) for k in value if k not in declared]
        names = ", ".join(json.dumps(k[:MAX_SHOWN]) for k in extra[:5]) + (f" and {len(extra) - 5} more"
                                                                          if len(extra) > 5 else "")
        return f"{where}: unexpected field(s) {names}"
    if error.validator == "required":
        return f"{where}: {error.message[:200]}"
    return f"{where}: {shown} does not match the schema ({error.validator})"


MAX_SHOWN = 60


def describe_value(value: Any) -> str:
    """A short description of a value: by type and size for collections and long text, never by repr.

    A shared (aliased) or huge value must not be expanded into a message.
    """
    if isinstance(value, dict):
        return f"a mapping of {len(value)} key(s)"
    if isinstance(value, list):
        return f"a list of {len(value)} item(s)"
    if isinstance(value, str) and len(value) > MAX_SHOWN:
        return f"a string of {len(value)} characters"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 2 * MAX_SHOWN:
        return f"an integer of {value.bit_length()} bits"
    return json.dumps(value)
