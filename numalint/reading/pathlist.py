"""A run's file paths kept packed: a streamed run of 20,000 files held them as 2.5 MiB of strings from its start to
its report, a seventh of its memory. Neighbouring paths share most of their text, so blocks of them compress to a
tenth; a path is unpacked when asked for, a block at a time (runs ask in order)."""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

_BLOCK = 128  # paths per block: ~10 KB of text, unpacked in ~20 us
_SEPARATOR = "\0"  # no path holds a NUL


class PathList(Sequence[str]):
    """An immutable list of paths, packed."""

    __slots__ = ("_blocks", "_length", "_last")

    def __init__(self, paths: Iterable[str]) -> None:
        self._blocks: list[bytes] = []
        self._length = 0
        block: list[str] = []
        for path in paths:
            block.append(path)
            if len(block) == _BLOCK:
                self._add(block)
                block = []
        if block:
            self._add(block)
        self._last: tuple[int, list[str]] = (-1, [])

    def _add(self, block: list[str]) -> None:
        # surrogatepass: a path the file system could not decode keeps its escapes (os.fsdecode's surrogates)
        self._blocks.append(zlib.compress(_SEPARATOR.join(block).encode("utf-8", "surrogatepass"), 1))
        self._length += len(block)

    def _block(self, number: int) -> list[str]:
        last, paths = self._last  # read once: a thread that unpacked another block meanwhile changes nothing here
        if last != number:
            text = zlib.decompress(self._blocks[number]).decode("utf-8", "surrogatepass")
            paths = text.split(_SEPARATOR)
            self._last = (number, paths)
        return paths

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("path index out of range")
        number, at = divmod(index, _BLOCK)
        return self._block(number)[at]

    def __iter__(self) -> Iterator[str]:
        for number in range(len(self._blocks)):
            yield from self._block(number)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and not isinstance(other, str) and list(self) == list(other)

    def __repr__(self) -> str:
        return f"PathList({list(self)!r})"
