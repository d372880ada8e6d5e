"""Making text from checked files inert before it reaches a terminal or a CI log.

File names, keys and values are attacker-controlled in a shared repository: an ESC sequence can clear
the screen, set the window title or write the clipboard (OSC 52), a bare CR or a newline can forge an
output line, and a line starting with ``::`` (or ``##[`` anywhere) is a GitHub Actions workflow command.
"""

from __future__ import annotations

import re
from urllib.parse import quote

# C0, DEL, C1 (NEL included), line/paragraph separators, and the bidi embeddings, overrides, isolates
# and marks that reorder what the reader sees (CVE-2021-42574).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def escape_text(text: str) -> str:
    """Control, bidi and line-separator characters as visible escapes (``\\x1b``, ``\\n``, ``\\u202e``);
    the legacy GitHub command prefix ``##[`` broken up, as the runner looks for it anywhere in a line."""
    return _UNSAFE.sub(_visible, text).replace("##[", "#\\x23[")


def escape_lines(text: str) -> str:
    """``escape_text`` on each line of numalint's own multi-line text."""
    return "\n".join(escape_text(line) for line in text.split("\n"))


def safe_line_start(path: str) -> str:
    """A path that can open an output line: prefixed with ``./`` unless it starts with a letter, digit or one of
    ``./_~-``, so a file named ``::error::x`` or `` ::add-mask::x`` cannot be read as a workflow command."""
    path = escape_text(path)
    first = path[:1]
    return path if first and (first.isalnum() or first in "./_~-") else "./" + path


def escape_workflow(text: str, property_value: bool = False) -> str:
    """GitHub workflow-command escaping (``%25``, ``%0D``, ``%0A``; in properties also ``%3A``, ``%2C``);
    other control characters become visible escapes, as GitHub has no encoding for them."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    text = escape_text(text)
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


# RFC 3986 pchar minus percent: unreserved, sub-delims, ':' and '@' ("/" separates segments).
_PCHAR_SAFE = "!$&'()*+,;=:@-._~"


def path_uri(path: str, separator: str = "/") -> str:
    """A file path as an RFC 3986 URI reference: every byte outside pchar percent-encoded (UTF-8),
    ``separator`` (``\\`` on Windows) turned into ``/``, and a relative path whose first segment holds a
    ``:`` prefixed with ``./`` so that it is not read as a scheme."""
    if separator != "/":
        path = path.replace(separator, "/")
    while path.startswith("./") and len(path) > 2:
        path = path[2:]
    if path.startswith("//"):
        path = "/" + path.lstrip("/")  # "//x" would be an authority
    uri = "/".join(quote(_bytes_of(segment), safe=_PCHAR_SAFE) for segment in path.split("/"))
    if re.match(r"[A-Za-z]:/", path):
        return "file:///" + uri  # a Windows drive path is absolute
    if not uri.startswith("/") and ":" in uri.split("/", 1)[0]:
        uri = "./" + uri
    return uri


def _bytes_of(name: str) -> bytes:
    """A path segment's bytes: a name the file system gave undecoded (``caf\\udce9``) is its own bytes again
    (``caf%E9``); any other lone surrogate is kept as written."""
    try:
        return name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogatepass")
