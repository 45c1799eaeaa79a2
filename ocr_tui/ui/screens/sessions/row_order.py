"""The list's rows in its order, kept by bisection: a session that changes leaves its place and
finds its new one in O(log n) key comparisons (and a memmove), never a re-sort of them all.

Pure (no Textual): `SessionTable` holds one as its row keys while the list is in a steady
state (a change costs the same at any history size).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol, overload


class Keyed(Protocol):
    @property
    def id(self) -> str: ...


class RowOrder(Sequence[str]):
    """Ids ordered by `key(item)` ascending (`reverse`: descending), as `sorted` orders them
    (keys must be unique: end them with the id). Reads like a list of the ids."""

    def __init__(self, key: Callable, reverse: bool = False) -> None:
        self.key = key
        self.reverse = reverse
        self._entries: list[tuple] = []  # (key, id), ascending
        self._of: dict[str, tuple] = {}  # id -> its entry
        self._items: dict[str, object] = {}  # id -> the item its entry was computed from
        self.keyed = 0  # keys computed (the work a change costs; for tests)

    def _entry(self, item: Keyed) -> tuple:
        sid = item.id
        if self._items.get(sid) is item:
            return self._of[sid]  # (items are immutable: the same one, the same key)
        self.keyed += 1
        return (self.key(item), sid)

    def resorted(self, items: Iterable[Keyed], reverse: bool | None = None) -> RowOrder:
        """A new order of exactly `items`, by the same key (reused where an item is the
        one this order holds)."""
        new = RowOrder(self.key, self.reverse if reverse is None else reverse)
        new._items, new._of = self._items, self._of  # (read by `_entry` alone, then replaced)
        new.rebuild(items)
        new.keyed += self.keyed
        return new

    def rebuild(self, items: Iterable[Keyed]) -> None:
        """Exactly `items`, sorted (their keys reused where an item is unchanged)."""
        items = list(items)
        entries = [self._entry(item) for item in items]
        self._items = {item.id: item for item in items}
        self._of = {entry[1]: entry for entry in entries}
        entries.sort()
        self._entries = entries

    def put(self, item: Keyed) -> bool:
        """Add or re-place `item`; whether its place among the others changed."""
        entry = self._entry(item)
        sid = item.id
        old = self._of.get(sid)
        self._items[sid] = item
        if old == entry:
            return False
        i = None
        if old is not None:
            i = bisect_left(self._entries, old)
            del self._entries[i]
        j = bisect_left(self._entries, entry)
        self._entries.insert(j, entry)
        self._of[sid] = entry
        return i != j

    def discard(self, sid: str) -> bool:
        """Remove `sid`; whether it was there."""
        old = self._of.pop(sid, None)
        if old is None:
            return False
        del self._items[sid]
        del self._entries[bisect_left(self._entries, old)]
        return True

    def position(self, sid: str) -> int | None:
        """Where `sid` is (O(log n)), None when it is not."""
        entry = self._of.get(sid)
        if entry is None:
            return None
        i = bisect_left(self._entries, entry)
        return len(self._entries) - 1 - i if self.reverse else i

    # -- a sequence of ids ------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._entries)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...
    def __getitem__(self, index: int | slice) -> str | list[str]:
        entries, n = self._entries, len(self._entries)
        if isinstance(index, slice):
            return [entries[n - 1 - i if self.reverse else i][1] for i in range(*index.indices(n))]
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        return entries[n - 1 - index if self.reverse else index][1]

    def __iter__(self) -> Iterator[str]:
        entries = reversed(self._entries) if self.reverse else self._entries
        return (sid for _, sid in entries)

    def __contains__(self, sid: object) -> bool:
        return sid in self._of

    def index(self, sid: object, start: int = 0, stop: int | None = None) -> int:
        at = self.position(sid) if isinstance(sid, str) else None
        if at is None or at < start or (stop is not None and at >= stop):
            raise ValueError(f"{sid!r} is not in the rows")
        return at

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RowOrder({list(self)!r})"
