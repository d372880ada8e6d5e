"""Finding and reading input files into located documents.

A source is one file (or stdin). Reading never raises: unreadable, binary,
oversized, templated or broken files become findings and the run goes on.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from numalint import catalogue as registry
from numalint.findings import Finding, Fix
from numalint.k8s.kinds import (
    CAPI_BOOTSTRAP_GROUP,
    CAPI_CONFIG_TEMPLATE,
    HOME_API_VERSIONS,
    KARPENTER_NODE_CLASS,
    KIND_CLUSTER_GROUP,
    KUBEADM_NODE_KINDS,
    KUBELET_CONFIGURATION,
    NODE_CONFIG,
    NODE_TOPOLOGY,
    NODEADM_GROUP,
    is_known,
)
from numalint.reading.locate import locate
from numalint.reading.yamlpos import Span, YamlError, YMap, YSeq, load_all

MAX_FILE_BYTES = 8 * 1024 * 1024
YAML_SUFFIXES = (".yaml", ".yml", ".json")
_TEMPLATE_RE = re.compile(r"\{\{-?\s*[-.$a-zA-Z/(\"]")
# Jinja (Ansible, kubespray, j2) statements: {% if ht %}, {%- for x in y %}, {%+ do x %}: a tag's name
_JINJA_RE = re.compile(r"\{%[-+]?\s*[a-z_]")
_DIRECTIVE_RE = re.compile(r"#\s*numalint:\s*disable(-file)?")
_RULE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_,- ")
FILE_WIDE = -1  # the key of a file-level suppression in Source.suppressions (its line is kept beside)


class _SealedList(list):  # type: ignore[type-arg]
    """The empty list sealed sources share: changing it raises instead of changing every source."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a sealed Source is read-only")

    append = extend = insert = __setitem__ = __iadd__ = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return _sealed, ("list",)  # one shared copy in the receiving process too


class _SealedDict(dict):  # type: ignore[type-arg]
    """The empty mapping sealed sources share."""

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a sealed Source is read-only")

    __setitem__ = update = setdefault = __ior__ = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> tuple[Any, ...]:
        return _sealed, ("dict",)


SEALED_LIST: Any = _SealedList()
SEALED_DICT: Any = _SealedDict()


def _sealed(kind: str) -> Any:
    return SEALED_LIST if kind == "list" else SEALED_DICT


@dataclass(slots=True)
class Document:
    """One YAML document with its identity and its position in the file."""

    file: str
    index: int
    root: YMap
    span: Span
    odd_keyed: tuple[YMap, ...] = ()  # its mappings that repeat a key or hold a null or collection key

    @property
    def api_version(self) -> str:
        value = self.root.get("apiVersion")
        return value if isinstance(value, str) else ""

    @property
    def kind(self) -> str:
        value = self.root.get("kind")
        return value if isinstance(value, str) else ""


@dataclass(slots=True)
class Source:
    """One input file: its documents, its suppression comments and read problems."""

    path: str
    documents: list[Document] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    suppressions: dict[int, tuple[set[str], int]] = field(default_factory=dict)
    justifications: dict[int, str] = field(default_factory=dict)  # line -> text after "--" of its suppression
    # (document span, annotation span, slugs) of every numalint.io/disable annotation
    annotations: list[tuple[Span, Span, set[str]]] = field(default_factory=list)
    template: bool = False
    parsed: bool = False
    text: str | None = None
    unchecked: bool = False  # a worker died before reading it
    template_kind: str = ""  # "helm" ({{ }}), "jinja" ({% %}) or "envsubst" (${VAR}) when the file is a template
    # (line, path) of each "# Source: path" comment `helm template` writes before a document
    labels: list[tuple[int, str]] = field(default_factory=list)
    fragment: str | None = None  # the kustomization that uses this file as a patch
    patches: tuple[str, ...] = ()  # a kustomization: the real paths of the files it names as patches
    stamp: int | None = None  # CRC-32 of the bytes read from disk: `fix` edits no file that changed since
    # a template (Helm, envsubst, ZTP): (kind, the name it gives, None when templated or unknown) of each object
    # it writes, as far as they show; the name of an SR-IOV policy is its resourceName
    template_kinds: tuple[tuple[str, str | None], ...] = ()
    # the documents kubectl refuses (a null or collection key: a yaml-syntax finding), which `fix` never edits
    refused: tuple[Span, ...] = ()

    def seal(self) -> None:
        """Once read: the text and trees go, and the empty containers (all of them in most files) become ones
        every sealed source shares, read-only, so a run of many files keeps a few bytes per file. Helm's
        ``# Source:`` labels are read only on stdin and by a file-wide suppression: other files drop them."""
        self.text = None
        if self.path != "-" and FILE_WIDE not in self.suppressions:
            self.labels = []
        for name in ("documents", "findings", "annotations", "labels"):
            if not getattr(self, name):
                setattr(self, name, SEALED_LIST)
        for name in ("suppressions", "justifications"):
            if not getattr(self, name):
                setattr(self, name, SEALED_DICT)

    def label_at(self, line: int) -> str | None:
        """The file `helm template` says the document at ``line`` came from."""
        found = None
        for start, name in self.labels:
            if start > line:
                break
            found = name
        return found


def discover(paths: Iterable[str], exclude: Iterable[str], base: str | None = None, names: Collection[str] = (),
             walked: dict[str, Listing] | None = None, given: Collection[str] = ()) -> tuple[list[str], list[str]]:
    """Expand files and directories into sorted input files; return (files, missing).

    ``exclude`` globs match a path relative to ``base`` (the config file's directory), the path as
    given, or its file name; a pattern naming a directory excludes everything under it. A path that
    exists but cannot be inspected or listed stays in ``files``: reading it reports why. ``walked`` learns
    each directory listed (named as ``os.path.dirname`` names it for a file in it): the files among ``names``
    it holds, whatever their suffix or exclusion (the kustomizations beside the inputs, without a system call
    per name and directory), and which of its entries are symbolic links (no ``lstat`` per file to tell).
    ``given``: paths whose text the caller holds (stdin standing for a file, --stdin-filename): files, excluded
    or not like any other, whether or not they exist.
    """
    found: list[str] = []
    missing: list[str] = []
    excluded = _exclusion(exclude, base)
    for raw in paths:
        if raw == "-":
            found.append("-")
            continue
        try:
            is_dir = stat.S_ISDIR(os.stat(raw).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            if raw not in given:
                missing.append(raw)
            elif not excluded(raw):
                found.append(raw)
            continue
        except (OSError, ValueError):
            is_dir = False  # e.g. inside a directory we may not enter: read_source says so
        if not is_dir:
            if not excluded(raw):
                found.append(raw)
            continue

        def unlisted(err: OSError) -> None:
            if err.filename is not None and not excluded(str(err.filename)):
                found.append(str(err.filename))  # read_source reports "cannot read directory"

        for root, dirs, files, links in _directories(raw, unlisted):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            if walked is not None:  # most directories hold neither: they share one listing
                found_names = [n for n in files if n in names]
                walked[os.path.dirname(os.path.join(root, "-"))] = (Listing(found_names, links)
                                                                    if found_names or links else _NOTHING)
            for name in sorted(files):
                if name.endswith(YAML_SUFFIXES) and not name.startswith("."):
                    full = os.path.join(root, name)
                    if not excluded(full):
                        found.append(full)
    return found, missing


class Listing(NamedTuple):
    """What the walk saw in one directory."""

    kustomizations: list[str]  # the entries among the names ``discover`` was asked about
    links: frozenset[str]  # the entries that are symbolic links


_NO_LINKS: frozenset[str] = frozenset()  # one for every directory without links (thousands: 0.6 MiB each their own)
_NOTHING = Listing([], _NO_LINKS)  # read-only: the listing of a directory without kustomizations or links


def _directories(top: str, onerror: Callable[[OSError], None]) -> Iterator[tuple[str, list[str], list[str],
                                                                                frozenset[str]]]:
    """``os.walk(top)`` (top-down, links to directories listed but not entered, ``dirs`` pruned in place),
    also yielding the entries that are symbolic links, which ``os.scandir`` knows without a system call."""
    stack = [top]
    while stack:
        root = stack.pop()
        dirs: list[str] = []
        files: list[str] = []
        links: set[str] = set()
        try:
            with os.scandir(root) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    try:
                        if entry.is_symlink():
                            links.add(entry.name)
                    except OSError:
                        pass  # gone meanwhile: reading it says so
                    (dirs if is_dir else files).append(entry.name)
        except OSError as err:
            onerror(err)
            continue
        yield root, dirs, files, frozenset(links) if links else _NO_LINKS
        stack.extend(os.path.join(root, name) for name in reversed(dirs) if name not in links)


def _inside(mappings: list[YMap], starts: list[tuple[tuple[int, int], int]], outer: Span) -> tuple[YMap, ...]:
    """The ``mappings`` that start and end within ``outer`` (``starts``: their start positions, sorted), found by
    bisection: a List of thousands of items, each with a repeated key, stays linear."""
    low = bisect_left(starts, ((outer.line, outer.col), -1))
    high = bisect_right(starts, ((outer.end_line, outer.end_col), len(mappings)))
    return tuple(m for _, i in starts[low:high]
                 if ((m := mappings[i]).span.end_line, m.span.end_col) <= (outer.end_line, outer.end_col))


def path_matches(path: str, pattern: str, base: str | None) -> bool:
    """A glob of the configuration (relative to ``base``, the path as given, or the file name)."""
    return _excluded(path, (pattern,), base)


def match_texts(path: str, base: str | None) -> set[str]:
    """What a configuration glob is matched against: the path as given, its file name, and the path relative to
    ``base`` when it is below it."""
    candidates = {path.replace(os.sep, "/").removeprefix("./"), os.path.basename(path)}
    if base is not None:
        relative = os.path.relpath(os.path.abspath(path), base)
        if not relative.startswith(".."):
            candidates.add(relative.replace(os.sep, "/"))
    return candidates


def _exclusion(patterns: Iterable[str], base: str | None) -> Callable[[str], bool]:
    """Whether a path is excluded (``_excluded``), for the many paths of a walk: with many globs (thousands of
    directories excluded one by one), each path tries only those whose literal start begins one of its texts."""
    patterns = [pattern.rstrip("/") for pattern in patterns]
    if len(patterns) < _FEW_GLOBS:
        return lambda path: _excluded(path, patterns, base)
    from numalint.reading.globs import GlobBuckets  # here: only a run excluding many globs needs it

    buckets = GlobBuckets(patterns)

    def excluded(path: str) -> bool:
        candidates = match_texts(path, base)
        return any(_excluded_by(candidates, patterns[number]) for number in buckets.candidates(candidates))

    return excluded


_FEW_GLOBS = 16  # fewer exclude globs are each tried on every path


def _excluded_by(candidates: Iterable[str], pattern: str) -> bool:
    return any(fnmatch.fnmatch(candidate, pattern) or fnmatch.fnmatch(candidate, pattern + "/*")
               for candidate in candidates)


def _excluded(path: str, patterns: Iterable[str], base: str | None) -> bool:
    if not patterns:
        return False
    candidates = match_texts(path, base)
    return any(_excluded_by(candidates, pattern.rstrip("/")) for pattern in patterns)


class ReadError(Exception):
    """A file that cannot be read as text; the message says why."""


def read_capped(path: str, limit: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; raise ReadError otherwise.

    The open is non-blocking (a FIFO must not block), and type and size are checked on the open
    descriptor (no race with a swapped path); at most ``limit`` + 1 bytes are read, so a device
    like /dev/zero cannot exhaust memory.
    """
    limit = MAX_FILE_BYTES if limit is None else limit
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        what = "directory" if os.path.isdir(path) else "file"
        raise ReadError(f"cannot read {what}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ReadError(f"not a regular file ({_file_type(info.st_mode)}); not read")
        size = f"{limit // (1024 * 1024)} MiB" if limit >= 1024 * 1024 else f"{limit} bytes"
        too_big = ReadError(f"file is larger than {size}; not read")
        if info.st_size > limit:
            raise too_big
        chunks: list[bytes] = []
        left = limit + 1
        # one byte beyond the size fstat gives: a file read whole in one call (a short read of exactly that
        # size is its end); a file whose size says nothing (procfs says 0) is read until a read returns nothing
        want = min(left, info.st_size + 1, 1 << 20)
        try:
            while left > 0:
                chunk = os.read(fd, want)
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
                if len(chunk) < want and limit + 1 - left == info.st_size:
                    break
                want = min(left, 1 << 20)
        except OSError as exc:
            raise ReadError(f"cannot read file: {exc.strerror or exc}") from None
        if left <= 0:
            raise too_big  # it grew while being read
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


def _file_type(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def _byte_position(data: bytes, offset: int) -> Span:
    """The line and column of byte ``offset`` (columns count the bytes before it on its line: the text cannot be
    decoded)."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    line, col = data.count(b"\n", 0, offset) + 1, offset - line_start + 1
    return Span(line, col, line, col + 1)


def decode(data: bytes) -> str:
    """UTF-8 text (a BOM dropped); UnicodeDecodeError otherwise."""
    return data.decode("utf-8-sig")


def stdin_text(data: bytes) -> str:
    """Stdin's bytes as text; bytes that are not UTF-8 survive as surrogates so that reading "-" reports them
    exactly like the same bytes in a file, whatever the terminal's encoding."""
    return data.decode("utf-8-sig", "surrogateescape")


def read_source(path: str, given: str | None = None, checked_only: bool = False, stamped: bool = False) -> Source:
    """Read (or take ``given`` text for) one file and parse it; every problem becomes a finding.

    ``checked_only``: build only the documents numalint checks (see ``parse_text``). ``stamped``: keep the
    CRC-32 of the bytes read (``Source.stamp``, for `fix`)."""
    source = Source(path=path)
    raw = b""  # the bytes decoded, when they may not be UTF-8
    try:
        if given is not None or path == "-":
            text = given or ""
            if _has_surrogates(text):
                raw = text.encode("utf-8", "surrogateescape")
                text = decode(raw)
        else:
            raw = read_capped(path)
            if stamped:
                from zlib import crc32  # here, not at the top: only `fix` needs it (start-up time)

                source.stamp = crc32(raw)
            text = decode(raw)
    except UnicodeDecodeError as exc:
        at = exc.start + len(raw) - len(exc.object)  # utf-8-sig counts from after the BOM it drops
        message = f"file is not UTF-8 text ({exc.reason} at byte {at})"
        source.findings.append(registry.finding("yaml-syntax", message, path, _byte_position(raw, at)))
        return source
    except ReadError as exc:
        source.findings.append(registry.finding("yaml-syntax", str(exc), path, Span(1, 1, 1, 1)))
        return source
    source.text = text
    parse_text(source, text, checked_only)
    return source


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _on_a_line(text: str, line: int, col: int) -> tuple[int, int]:
    """libyaml places an error at the end of the stream after the last line break, on a line the file does not
    have (a 4-line file's 5:1): the end of the last line instead, where editors and CI annotations can show it."""
    if col == 1 and line > 1 and text.endswith("\n") and line == text.count("\n") + 1:
        last = text[:-1].rsplit("\n", 1)[-1]
        return line - 1, len(last.rstrip("\r")) + 1
    return line, col


def parse_text(source: Source, text: str, checked_only: bool = False) -> None:
    """Parse ``text`` into the source's documents (expanding ``kind: List``).

    ``checked_only``: documents of kinds numalint does not check are read (syntax errors and limits
    still count) but not built: their roots are ``Skipped`` (apiVersion and kind only). Lists are built,
    and ConfigMaps when the text mentions a PerformanceProfile (HyperShift ``data.tuning``)."""
    if "numalint:" in text:
        source.suppressions = _suppressions(text, source.justifications)
    if "# Source: " in text:
        source.labels = [(number, match.group(1).strip()) for number, line in enumerate(text.split("\n"), start=1)
                         if (match := _SOURCE_RE.match(line))]
    jinja = ("{%" in text or "{#" in text) and _jinja(text)
    looks_templated = jinja or ("{{" in text and _TEMPLATE_RE.search(text) is not None)
    if looks_templated:
        source.template_kind = "jinja" if jinja or source.path.endswith(_JINJA_SUFFIXES) else "helm"
    try:
        odd_keyed: list[YMap] = []
        parsed = load_all(text, _wanted(text) if checked_only else None, odd_keyed)
    except YamlError as err:
        if looks_templated and not err.hostile:
            source.template = True  # read, and reported once as not lintable
            source.parsed = True
            source.template_kinds = _helm_objects(text)
            return
        message = err.message if err.hostile else f"YAML syntax error: {err.message}"
        line, col = _on_a_line(text, err.line, err.col)
        source.findings.append(registry.finding("yaml-syntax", message, source.path, Span(line, col, line, col + 1)))
        return
    source.parsed = True
    index = 0
    starts = sorted(((m.span.line, m.span.col), i) for i, m in enumerate(odd_keyed))  # where each one starts
    for root, span in parsed:
        for item, item_span in _expand_lists(root, span):
            repeats = _inside(odd_keyed, starts, item_span) if odd_keyed else ()
            source.documents.append(Document(source.path, index, item, item_span, repeats))
            index += 1
            if "kind" in item and not item.get("kind") and isinstance(item.get("apiVersion"), str) \
                    and not item["apiVersion"].startswith("kustomize.config.k8s.io/"):  # kustomize defaults it
                source.findings.append(registry.finding(
                    "schema", 'kind is empty: kubectl and the API server refuse the object ("Object \'Kind\' is '
                    'missing"), and numalint checks it as nothing', source.path, locate(item, ("kind",), key=True)))
            elif "kind" in item:
                _core_group_kind(source, item)
    if looks_templated and any(
        is_known(doc.api_version, doc.kind) and _templated(doc.root) for doc in source.documents
    ):
        source.template = True
    elif "$" in text or _ztp_source(source.path):
        known = [doc for doc in source.documents if is_known(doc.api_version, doc.kind)]
        if "$" in text and any(_patch_directive(doc.root) for doc in known):
            source.template, source.template_kind = True, "patch"
        elif _ztp_source(source.path) and any(_placeholder(doc.root) or _blank(doc.root) for doc in known):
            source.template, source.template_kind = True, "ztp"
        elif "$" in text and any(_placeholder(doc.root) for doc in known):
            source.template, source.template_kind = True, "envsubst"
    if source.template:
        if source.template_kind != "patch":  # a patch writes no object of its own
            source.template_kinds = tuple(dict.fromkeys((doc.kind, _literal_name(doc)) for doc in source.documents
                                                        if doc.kind))
        source.documents = []


_CORE_VERSION = re.compile(r"v\d+(?:(?:alpha|beta)\d+)?")  # a version of the core group: no group before it


def _core_group_kind(source: Source, item: YMap) -> None:
    """A kind numalint reads written with a core-group apiVersion (``v1``, no group), which serves none of them
    (a KubeletConfig of ``apiVersion: v1``): the object is refused, so what it says never applies; a finding
    rather than silence."""
    kind, api_version = item.get("kind"), item.get("apiVersion")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not _CORE_VERSION.fullmatch(api_version):
        return  # another group's, or a placeholder a template fills in (${API}, {{ .Values.api }})
    home = HOME_API_VERSIONS.get(kind)
    if home is None:
        return
    refused = ("the kubelet refuses the file (it reads KubeletConfiguration of kubelet.config.k8s.io/v1beta1)"
               if kind == KUBELET_CONFIGURATION else
               f"numalint reads NodeTopology of {home} only" if kind == NODE_TOPOLOGY else
               f'kubectl and the API server refuse the object (no matches for kind "{kind}" in version '
               f'"{api_version}"), so it never applies')
    source.findings.append(registry.finding(
        "schema", f'apiVersion "{api_version}" is the core API group, which has no kind {kind}: {refused}',
        source.path, locate(item, ("apiVersion",)), fix=Fix(f"set apiVersion: {home}")))


def _literal_name(doc: Document) -> str | None:
    """The name a templated object is sure to have: its resourceName for an SR-IOV policy, else its name; None
    when a placeholder writes it."""
    root = doc.root
    spec, metadata = root.get("spec"), root.get("metadata")
    value = (spec.get("resourceName") if isinstance(spec, dict) else None) if doc.kind == "SriovNetworkNodePolicy" \
        else (metadata.get("name") if isinstance(metadata, dict) else None)
    return value if isinstance(value, str) and value and "$" not in value and "{{" not in value else None


def _helm_objects(text: str) -> tuple[tuple[str, str | None], ...]:
    """(kind, name) of what a Helm template that does not parse writes, read from its lines: the kinds, and the
    resourceNames of SR-IOV policies when every one is written plainly; other names are unknown (None)."""
    kinds = dict.fromkeys(_KIND_LINE.findall(text))
    found = [(kind, None) for kind in kinds if kind != "SriovNetworkNodePolicy"]
    if "SriovNetworkNodePolicy" in kinds:  # the resourceNames of the policies' documents, not the networks'
        names = [name for chunk in _DOCUMENT_START.split(text) if "SriovNetworkNodePolicy" in _KIND_LINE.findall(chunk)
                 for name in _RESOURCE_LINE.findall(chunk)]
        plain = names and all(_PLAIN_NAME.fullmatch(n) for n in names)
        found += [("SriovNetworkNodePolicy", n) for n in dict.fromkeys(names)] if plain else \
            [("SriovNetworkNodePolicy", None)]
    return tuple(found)


_DOCUMENT_START = re.compile(r"^---", re.M)
_RESOURCE_LINE = re.compile(r"^[ \t]*resourceName:[ \t]*[\"']?([^\s\"'#]*)", re.M)
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]+")
_KIND_LINE = re.compile(r"^[ \t-]*kind:[ \t]*[\"']?([A-Za-z][A-Za-z0-9]*)[\"']?[ \t]*(?:#.*)?$", re.M)


def _wanted(text: str) -> Callable[[str, str], bool]:
    embedded = "PerformanceProfile" in text
    flags = "kubeletExtraArgs" in text  # kubeadm's, over a KubeletConfiguration of the file (views.kubelet_flags)
    patched = "kubeadmConfigPatches" in text  # a kind cluster's kubelet (views.kind_cluster)
    rancher = "kubelet-arg" in text  # an RKE2 or K3s node's configuration (views.rancher): no apiVersion, no kind
    eks = "node.eks.aws" in text  # an Amazon EKS NodeConfig, or a Karpenter EC2NodeClass carrying one (views.nodeadm)

    def keep(api_version: str, kind: str) -> bool:
        return is_known(api_version, kind) or kind == "List" or (embedded and kind == "ConfigMap") or (
            flags and kind in KUBEADM_NODE_KINDS) or (patched and kind == "Cluster" and api_version.startswith(
                KIND_CLUSTER_GROUP)) or (flags and kind == CAPI_CONFIG_TEMPLATE and api_version.startswith(
                    CAPI_BOOTSTRAP_GROUP)) or (rancher and not kind and not api_version) or (
            eks and (kind == NODE_CONFIG and api_version.startswith(NODEADM_GROUP)
                     or (api_version, kind) == KARPENTER_NODE_CLASS))

    return keep


def _expand_lists(root: Any, span: Span) -> Iterator[tuple[YMap, Span]]:
    if not isinstance(root, YMap):
        return
    items = root.get("items")
    if root.get("kind") == "List" and isinstance(items, YSeq):
        for i, item in enumerate(items):
            if isinstance(item, YMap):
                yield item, items.item_spans[i]
        return
    yield root, span


def _walk(root: Any, found: Callable[[Any], bool], skip: frozenset[str] = frozenset()) -> bool:
    """True when ``found`` holds for a key or value of the document. Iterative, and each shared (aliased)
    mapping or list is visited once: nested aliases must not multiply the walk. Values under ``skip`` keys
    are not visited."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, dict):
                if any(found(k) for k in node):
                    return True
                stack.extend(v for k, v in node.items() if k not in skip)
            else:
                stack.extend(node)
        elif found(node):
            return True
    return False


_JINJA_SUFFIXES = (".j2", ".jinja", ".jinja2")


def _jinja(text: str) -> bool:
    """A Jinja statement tag, or a comment ``{# ... #}`` (it may span lines; bash's ``${#VAR}`` opens none).
    Linear in the text: only the first opening is looked at (a closing after a later one is after it too; a
    regular expression for the comment retried every opening)."""
    if "{%" in text and _JINJA_RE.search(text) is not None:
        return True
    start = text.find("{#")
    while start > 0 and text[start - 1] == "$":
        start = text.find("{#", start + 2)
    return start != -1 and text.find("#}", start + 2) != -1


def _templated(root: Any) -> bool:
    """True when a key or value of the document holds a Go template expression or a Jinja tag. A Jinja tag in
    shell text or cloud-init data is the program's own (cloud-init renders `## template: jinja` user data)."""
    return _walk(root, lambda v: isinstance(v, str) and "{{" in v and _TEMPLATE_RE.search(v) is not None) or _walk(
        root, lambda v: isinstance(v, str) and ("{%" in v or "{#" in v) and _jinja(v), _OWN_TEMPLATES)


_SOURCE_RE = re.compile(r"^# Source: (\S.*)$")
# envsubst / shell placeholders: ${VAR} anywhere, or a whole value that is $VAR
# ${VAR} or ${VAR:-default} (also =, +, ?): the start, and whether an operator follows the name
_BRACED_START = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(:?[-=+?])?")
_BARE_RE = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*")
# values that are shell text at run time, where $VAR is the program's business, not a template's
_SHELL_KEYS = frozenset({"command", "args", "env", "script", "lifecycle", "livenessProbe", "readinessProbe",
                         "startupProbe", "data", "stringData", "annotations"})
_PATCH_DIRECTIVES = ("$patch", "$setElementOrder/", "$retainKeys", "$deleteFromPrimitiveList/")


def _patch_directive(root: Any) -> bool:
    """True when the document holds strategic-merge-patch directives (``$patch: replace``): a patch."""
    return _walk(root, lambda v: isinstance(v, str) and v.startswith(_PATCH_DIRECTIVES))


def _placeholder(root: Any) -> bool:
    """True when a value the checks read is an envsubst placeholder (``${NUM_VFS}``, ``$VAR``)."""
    return _walk(root, lambda v: isinstance(v, str) and "$" in v
                 and (_braced(v) or _BARE_RE.fullmatch(v) is not None), _SHELL_KEYS)


def left_to_fill(root: Any) -> bool:
    """Whether a key or value of ``root`` is left for a template tool (``filled_in_later``)."""
    return _walk(root, lambda v: isinstance(v, str) and filled_in_later(v))


def filled_in_later(value: str) -> bool:
    """Whether a text value is left for a template tool: an envsubst placeholder (``${VAR}``, a whole ``$VAR``:
    clusterctl, scripts) or a Go template expression (Helm)."""
    return ("$" in value and (_braced(value) or _BARE_RE.fullmatch(value) is not None)) or (
        "{{" in value and _TEMPLATE_RE.search(value) is not None)


def _ztp_source(path: str) -> bool:
    """Is the file a ZTP source CR: in a directory named ``source-crs``, where GitOps ZTP keeps the CRs that
    PolicyGenerator and PolicyGenTemplate copy and fill in (``$isolated``, or a value left blank)?"""
    return "source-crs" in path and f"{os.sep}source-crs{os.sep}" in f"{os.sep}{os.path.dirname(path)}{os.sep}"


# maps of labels and text, whose empty values are values
_OWN_TEMPLATES = _SHELL_KEYS | {"userData", "userDataBase64", "networkData", "networkDataBase64"}
_TEXT_MAPS = _SHELL_KEYS | {"labels", "nodeSelector", "matchLabels", "machineConfigPoolSelector"}


def _blank(root: Any) -> bool:
    """True when a field of the document's spec is left blank (``cpu:`` with nothing under it, ``vlan: ""``)
    outside maps of labels and text, where an empty value means something (``node-role.kubernetes.io/worker:
    ""``). Metadata and status are not looked at (``creationTimestamp: null`` in every export), nor list items
    (an empty kernel argument is a value)."""
    if not isinstance(root, dict):
        return False
    if "spec" in root and root["spec"] in (None, ""):
        return True  # a spec left blank whole
    seen: set[int] = set()
    stack = [root.get("spec")]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            for key, value in node.items():
                if value is None or value == "":
                    return True
                if isinstance(value, (dict, list)) and key not in _TEXT_MAPS:
                    stack.append(value)
        elif isinstance(node, list):
            stack += [item for item in node if isinstance(item, (dict, list))]
    return False


def _braced(value: str) -> bool:
    """Whether ``value`` holds ``${VAR}`` or ``${VAR<op>...}``; linear in its length (a regular expression with
    ``[^}]*`` looked for a closing brace from every ``${`` again: "${a-${a-..." was quadratic)."""
    last_close = value.rfind("}")
    for start in _BRACED_START.finditer(value):
        if value.startswith("}", start.end()) if start.group(1) is None else last_close >= start.end():
            return True
    return False


def _suppressions(text: str, justifications: dict[int, str]) -> dict[int, tuple[set[str], int]]:
    """Map each line carrying ``# numalint: disable=...`` to its slugs and column (and, in ``justifications``,
    to the reason written after ``--``)."""
    result: dict[int, tuple[set[str], int]] = {}
    for number, line in enumerate(text.split("\n"), start=1):  # the line model of yamlpos
        if "numalint:" not in line:
            continue
        found = _directive(line, file_wide=False)
        if found:
            column, rules, why = found
            result[number] = ({s.strip() for s in (rules or "").split(",") if s.strip()}, column)
            if why:
                justifications[number] = why.strip()
            continue
        found = _directive(line, file_wide=True)
        if found:  # `# numalint: disable-file[=rules]`: the whole file; several lines add up
            column, rules, why = found
            slugs = {s.strip() for s in (rules if rules is not None else "all").split(",") if s.strip()}
            # the first line's place (line and column, packed); later lines add their rules to its set (copying the
            # set for each line was quadratic in thousands of such lines)
            result.setdefault(FILE_WIDE, (set(), number * 1_000_000 + column))[0].update(slugs)
            if why:
                justifications[FILE_WIDE] = why.strip()
    return result


def _directive(line: str, file_wide: bool) -> tuple[int, str | None, str | None] | None:
    """The first ``# numalint: disable=RULES [-- why]`` (``file_wide``: ``disable-file[=RULES] [-- why]``) of the
    line: (its column, the rules as written or None, the justification or None). RULES are letters, digits and
    ``_,-`` and spaces, up to the first run of white space followed by ``--``; only white space may follow.

    Parsed by hand in one pass over the line: the regular expression it replaces (a lazy ``[A-Za-z0-9_,\\- ]+?``
    before ``\\s+--``) was quadratic in a long run of spaces. Each directive's rules end at the first character
    that cannot be in them (the next directive's ``#`` included), so the scans never overlap."""
    spaces: list[int] | None = None
    for match in _DIRECTIVE_RE.finditer(line):
        if (match.group(1) is not None) != file_wide:
            continue
        at = match.end()
        spaces = spaces or _space_runs(line)
        if not line.startswith("=", at):
            if file_wide:
                matches, why = _justification(line, at, spaces)
                if matches:
                    return match.start() + 1, None, why
            continue
        begin = at + 1
        for end in range(begin + 1, len(line) + 1):  # the shortest rules the rest of the line allows
            if line[end - 1] not in _RULE_CHARS:
                break
            matches, why = _justification(line, end, spaces)
            if matches:
                return match.start() + 1, line[begin:end], why
    return None


def _space_runs(text: str) -> list[int]:
    """For each offset, where the run of white space starting there ends (the offset itself when none does)."""
    ends = list(range(len(text) + 1))
    for index in range(len(text) - 1, -1, -1):
        if text[index].isspace():
            ends[index] = ends[index + 1]
    return ends


def _justification(text: str, start: int, spaces: list[int]) -> tuple[bool, str | None]:
    """Whether ``text[start:]`` is ``(?:\\s+--(.*))?\\s*$``, and the justification after ``--`` (None when only
    white space is left); ``spaces``: ``_space_runs(text)``."""
    end = spaces[start]
    if end > start and text.startswith("--", end):
        return True, text[end + 2:]
    return end == len(text), None
