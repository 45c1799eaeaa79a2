"""Parsed file contents kept in memory (and loaded from the persistent parse cache): at most one
entry per file (per session, kind and path within it), whatever the number of its versions.

An entry is (stamp, value): the stamp is the file's (size, mtime, ctime, inode) when it was
parsed, or for a value computed from several files a digest of every input (`fs.cached_of_many`).
A lookup whose stamp differs parses again and replaces the entry, so a file rewritten 20,000
times holds one entry, not 20,000. Entries for files a session no longer lists are dropped when
it is read again (`prune`), a session's all when it goes (`forget`), a project's when its engine
is dropped (`forget_under`). Memory follows the files that exist now, never the changes made.

Thread-safe: the engine's thread and the screens' (a map run, a round's findings) read at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Container, Iterator

Stamp = tuple[int, int, int, int] | str
Entry = tuple[Stamp, object]
# session directory -> (kind, path within the session) -> (stamp, value)
_CACHE: dict[str, dict[tuple[str, str], Entry]] = {}
_PERSISTED: dict[str, dict[tuple[str, str], Entry]] = {}  # loaded, not asked for yet
_lock = threading.Lock()
_dirty = False


def lookup(session: str, kind: str, rel: str, stamp: Stamp, parse: Callable[[], object]):
    """The value for `rel` of `session` as of `stamp`: kept, else persisted, else `parse()`."""
    key = (kind, rel)
    files = _CACHE.get(session)
    if files is not None:
        hit = files.get(key)
        if hit is not None and hit[0] == stamp:
            return hit[1]
    value = None
    with _lock:
        old = _PERSISTED.get(session)
        if old is not None:
            got = old.pop(key, None)
            if not old:
                del _PERSISTED[session]
            if got is not None and got[0] == stamp:
                value = got[1]
    if value is None:
        global _dirty
        value = parse()  # (outside the lock: it reads a file)
        _dirty = True
    with _lock:
        _CACHE.setdefault(session, {})[key] = (stamp, value)
    return value


def prune(session: str, present: Container[str]) -> None:
    """Drop the entries of `session` whose path is not in `present` (what its listing found)."""
    with _lock:
        for table in (_CACHE, _PERSISTED):
            files = table.get(session)
            if files is None:
                continue
            for key in [k for k in files if k[1] not in present]:
                del files[key]
            if not files:
                del table[session]


def forget(session: str) -> None:
    """The session is gone: drop everything kept for it."""
    with _lock:
        _CACHE.pop(session, None)
        _PERSISTED.pop(session, None)


def forget_under(prefix: str) -> None:
    """Drop every session whose directory starts with `prefix` (a project's sessions dir)."""
    with _lock:
        for table in (_CACHE, _PERSISTED):
            for session in [s for s in table if s.startswith(prefix)]:
                del table[session]


def keep_only(sessions: Container[str], prefix: str) -> None:
    """Of the sessions under `prefix`, keep only `sessions` (those a full scan listed)."""
    with _lock:
        for table in (_CACHE, _PERSISTED):
            for session in [s for s in table if s.startswith(prefix) and s not in sessions]:
                del table[session]


def use_persisted(loaded: dict[str, dict[tuple[str, str], Entry]]) -> None:
    """Serve entries loaded by `parse_cache.load` (checked after the kept ones)."""
    with _lock:
        for session, files in loaded.items():
            _PERSISTED.setdefault(session, {}).update(files)


def entries() -> Iterator[tuple[str, str, str, Stamp, object]]:
    """(kind, session, rel, stamp, value) of what to persist: every kept entry, then the
    persisted ones not asked for in this process (the sessions the result cache served were
    not parsed, and their entries still hold)."""
    with _lock:
        both = [(s, dict(f)) for s, f in _PERSISTED.items()]
        both += [(s, dict(f)) for s, f in _CACHE.items()]
    merged: dict[str, dict[tuple[str, str], Entry]] = {}
    for session, files in both:
        merged.setdefault(session, {}).update(files)
    for session, files in merged.items():
        for (kind, rel), (stamp, value) in files.items():
            yield kind, session, rel, stamp, value


def dirty() -> bool:
    """Whether entries were parsed anew since the last `mark_saved`."""
    return _dirty


def mark_saved() -> None:
    global _dirty
    _dirty = False


def size() -> int:
    """How many entries are kept (not counting those loaded and not asked for)."""
    return sum(len(f) for f in list(_CACHE.values()))


def session_entries(session: str) -> list[tuple[str, str]]:
    """(kind, rel) of the entries kept for `session` (tests)."""
    return sorted(_CACHE.get(session, {}))


def clear() -> None:
    """Forget everything (tests; a new process)."""
    global _dirty
    with _lock:
        _CACHE.clear()
        _PERSISTED.clear()
        _dirty = False
