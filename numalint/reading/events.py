"""libyaml's parse events as cheap records.

ruamel.yaml's C parser (``_ruamel_yaml.CParser``, Cython over libyaml) makes each event by calling the
event class it finds in its own module, e.g. ``ScalarEvent(anchor, tag, implicit, value, start_mark,
end_mark, style)``. ruamel.yaml's event classes run three Python ``__init__`` methods per event (a third of
the cost of reading a file). While numalint reads, those module names point at the record classes below
instead: subclasses of ``BaseException`` without Python methods, so making one is a C call that keeps the
arguments, in order, in ``args``. The original classes are put back as soon as the text is read (the
swap is process-wide: numalint reads in one thread per process, and the fixer's own use of the C parser
sees ruamel.yaml's events).

The C parser's calls are checked once per process against ruamel.yaml's own event classes (a sample text
holding every kind of event); if any argument differs, as it might in another ruamel.yaml.clib release,
``Events`` converts ruamel.yaml's events into the same records instead: slower, same result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Record(BaseException):
    """One event: ``args`` holds what the C parser passed, in its order. Never raised.

    Each subclass has the name of the ruamel.yaml event class it stands for (messages name it)."""

    __slots__ = ()


class ScalarEvent(Record):
    """args: anchor, tag, (plain implicit, quoted implicit), value, start mark, end mark, style."""

    __slots__ = ()


class MappingStartEvent(Record):
    """args: anchor, tag, implicit, start mark, end mark, flow style."""

    __slots__ = ()


class SequenceStartEvent(Record):
    """args: anchor, tag, implicit, start mark, end mark, flow style."""

    __slots__ = ()


class AliasEvent(Record):
    """args: anchor, start mark, end mark."""

    __slots__ = ()


class MappingEndEvent(Record):
    """args: start mark, end mark."""

    __slots__ = ()


class SequenceEndEvent(Record):
    """args: start mark, end mark."""

    __slots__ = ()


class DocumentStartEvent(Record):
    """args: start mark, end mark, explicit, version, tags."""

    __slots__ = ()


class DocumentEndEvent(Record):
    """args: start mark, end mark, explicit."""

    __slots__ = ()


class StreamStartEvent(Record):
    """args: start mark, end mark, encoding."""

    __slots__ = ()


class StreamEndEvent(Record):
    """args: start mark, end mark."""

    __slots__ = ()


# ruamel.yaml's event class name -> (record class, the event's attributes in the C parser's argument order)
_FIELDS: dict[str, tuple[type[Record], tuple[str, ...]]] = {
    "ScalarEvent": (ScalarEvent, ("anchor", "tag", "implicit", "value", "start_mark", "end_mark", "style")),
    "MappingStartEvent": (MappingStartEvent, ("anchor", "tag", "implicit", "start_mark", "end_mark", "flow_style")),
    "SequenceStartEvent": (SequenceStartEvent, ("anchor", "tag", "implicit", "start_mark", "end_mark", "flow_style")),
    "AliasEvent": (AliasEvent, ("anchor", "start_mark", "end_mark")),
    "MappingEndEvent": (MappingEndEvent, ("start_mark", "end_mark")),
    "SequenceEndEvent": (SequenceEndEvent, ("start_mark", "end_mark")),
    "DocumentStartEvent": (DocumentStartEvent, ("start_mark", "end_mark", "explicit", "version", "tags")),
    "DocumentEndEvent": (DocumentEndEvent, ("start_mark", "end_mark", "explicit")),
    "StreamStartEvent": (StreamStartEvent, ("start_mark", "end_mark", "encoding")),
    "StreamEndEvent": (StreamEndEvent, ("start_mark", "end_mark")),
}
_RECORDS = {name: record for name, (record, _) in _FIELDS.items()}

# Every kind of event, anchors, aliases, tags, flow and block styles, quoted and plain scalars, a directive.
_SAMPLE = ("%YAML 1.1\n%TAG !e! tag:example.com,2000:\n--- !e!doc\na: &x [1, 'b', \"c\"]\n? *x\n: !!int '2'\n"
           "d: {e: ~, f: !local g}\nh: |\n  text\n...\n--- plain\n")


def _module() -> Any:
    """The C parser's module (ruamel.yaml picks ``_ruamel_yaml``, else ``_ruamel_yaml_clibz``)."""
    from ruamel.yaml import cyaml

    return __import__(cyaml.CParser.__module__, fromlist=["CParser"])


class Events:
    """Reads a text's events as records: ``get()`` returns the next one; ``close()`` when done (always)."""

    module: Any = None  # the C parser's module, found once
    fast = False  # whether the C parser's own calls make the records (checked once)
    originals: dict[str, Any] = {}  # ruamel.yaml's event classes, put back when the last reader closes
    open = 0  # readers with the records installed

    def __init__(self, text: str) -> None:
        module = Events.module
        if module is None:
            module = _module()
            Events.fast = _check(module)
            Events.module = module
        self.installed = False
        if Events.fast:
            if Events.open == 0:
                names = module.__dict__
                Events.originals = {name: names[name] for name in _RECORDS}
                names.update(_RECORDS)  # one dict update: Cython sees the new names (dict version changed)
            Events.open += 1
            self.installed = True
        try:
            self.parser = module.CParser(text)
        except BaseException:
            self.close()
            raise
        self.get: Callable[[], Record] = self.parser.get_event if Events.fast else self._converted

    def _converted(self) -> Record:
        return _convert(self.parser.get_event())

    def close(self) -> None:
        """Dispose of the parser and put ruamel.yaml's event classes back (after the last open reader)."""
        if self.installed:
            self.installed = False
            Events.open -= 1
            if Events.open == 0:
                Events.module.__dict__.update(Events.originals)
        parser = getattr(self, "parser", None)
        if parser is not None:
            parser.dispose()


def _convert(event: Any) -> Record:
    """A ruamel.yaml event as the record the C parser would have made."""
    record, fields = _FIELDS[event.__class__.__name__]
    return record(*(getattr(event, name) for name in fields))


def _comparable(value: Any) -> Any:
    if hasattr(value, "line") and hasattr(value, "column") and hasattr(value, "index"):
        return ("mark", value.index, value.line, value.column)
    return value if isinstance(value, (str, bool, int, tuple, type(None))) else str(value)


def _check(module: Any) -> bool:
    """Whether the C parser's calls make records equal to ruamel.yaml's own events, on ``_SAMPLE``, and
    ruamel.yaml's events come back once its classes are put back."""
    try:
        if not all(isinstance(getattr(module, name, None), type) for name in _RECORDS):
            return False
        originals = [event.__class__ for event in _events(module)]
        expected = [_convert(event) for event in _events(module)]
        saved = {name: getattr(module, name) for name in _RECORDS}
        try:
            for name, record in _RECORDS.items():
                setattr(module, name, record)
            found = _events(module)
        finally:
            for name, original in saved.items():
                setattr(module, name, original)
        return len(found) == len(expected) and all(
            a.__class__ is b.__class__ and [_comparable(x) for x in a.args] == [_comparable(x) for x in b.args]
            for a, b in zip(found, expected, strict=True)) and [e.__class__ for e in _events(module)] == originals
    except Exception:  # any surprise: ruamel.yaml's events, converted
        return False


def _events(module: Any) -> list[Any]:
    parser = module.CParser(_SAMPLE)
    try:
        found = []
        while True:
            found.append(parser.get_event())
            if found[-1].__class__.__name__ == "StreamEndEvent":
                return found
    finally:
        parser.dispose()
