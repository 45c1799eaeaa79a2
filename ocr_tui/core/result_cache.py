"""A persistent cache of derived session views, so a second start on a large history reads
only the sessions that changed.

A Source takes part by having two methods (the built-in OCR source has them; a Source
without them is always derived):

- `fingerprint(key, path) -> bytes | None`: a digest of everything `derive` reads for that
  session (directory listings and files' stat keys, store rows), computed with stat calls,
  never reads; None: not cacheable now.
- `timeless(view) -> bool`: the view, once derived, does not change as time passes alone
  (not running, nothing computed from "now"; `session_seconds` is recomputed on a hit).

An entry is (framework, key, path, fingerprint, when it was derived, the view). It is served
only when the session's fingerprint is the same now and the clock has not gone back since.
The fingerprint is taken before the session is derived: a write during the derivation makes
the stored one older, a miss next time, never a stale view.

The file is stamped with the build (the program's version, the cache schema, a digest of
the source of the core modules a view depends on and of every format taking part): a file of
another build is not read, and every view is decoded against `SessionView`, so a value of
another shape is a miss, never a wrong answer. It lives in the user's cache directory
(`$OCR_TUI_CACHE_DIR`, else `$XDG_CACHE_HOME/ocr-tui`, else `~/.cache/ocr-tui`), never inside
the watched tree; `OCR_TUI_CACHE_DIR=off` disables it. One file per project, replaced atomically.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Container
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

import ocr_tui
from ocr_tui.core.cachedir import encode_stamped, project_file, write_atomically
from ocr_tui.core.view import SessionView

SCHEMA = 1
MAX_ENTRIES = 200_000

# (framework, key, path, fingerprint, derived at (epoch seconds), the view)
_Entry = tuple[str, str, str, bytes, float, msgspec.Raw]
_DEC = msgspec.msgpack.Decoder(tuple[int, str, list[_Entry]])
_VIEW = msgspec.msgpack.Decoder(SessionView)


def cache_file(project_root: Path) -> Path | None:
    """Where this project's views are cached; None when disabled or inside the project."""
    return project_file(project_root, f"views-v{SCHEMA}")


def takes_part(src: Any) -> bool:
    return callable(getattr(src, "fingerprint", None)) and callable(getattr(src, "timeless", None))


_PACKAGE = Path(ocr_tui.__file__).parent


# The core modules whose code decides a view: what the formats' readers import (and what
# they import), and the engine's finishing of a view. Not the UI, the CLI, the watcher.
_CORE = (
    "cells", "display", "lenient", "project", "reading", "result_cache", "safe_read", "source",
    "textdecode", "textsafe", "timeutil", "view",
)  # fmt: skip


def _code_files(sources: list[Any]) -> list[Path]:
    """The source files whose code decides a view: those core modules, and for each taking-part
    source its format's package (a built-in one, but its simulator) or its module (a
    plugin's)."""
    files = {_PACKAGE / "core" / f"{name}.py" for name in _CORE}
    for src in sources:
        mod = sys.modules.get(type(src).__module__)
        f = getattr(mod, "__file__", None)
        if not f:
            continue
        p = Path(f)
        try:
            inside = p.resolve().is_relative_to((_PACKAGE / "formats").resolve())
            found = list(p.parent.glob("*.py")) if inside else [p]
        except OSError:
            found = [p]
        files |= {x for x in found if not x.name.startswith("sim")}
    return sorted(files)


_stamps: dict[tuple, str] = {}


def build_stamp(sources: list[Any]) -> str:
    """`{version}/schema-{SCHEMA}/{digest of the code}`."""
    files = _code_files(sources)
    memo = tuple(files)
    got = _stamps.get(memo)
    if got is not None:
        return got
    digest = hashlib.sha256()
    for f in files:
        try:
            digest.update(os.fsencode(f.relative_to(_PACKAGE)))
        except ValueError:  # a plugin's module
            digest.update(os.fsencode(f.name))
        try:
            digest.update(f.read_bytes())
        except OSError:  # installed without sources: the version and schema still tell
            pass
    got = _stamps[memo] = f"{ocr_tui.__version__}/schema-{SCHEMA}/{digest.hexdigest()[:24]}"
    return got


class ResultCache:
    """One project's cached views: loaded at a scan's start, saved at its end."""

    def __init__(self, project_root: Path, sources: list[Any]) -> None:
        self.file = cache_file(project_root)
        self.sources = [s for s in sources if takes_part(s)]
        self._stamp: str | None = None
        # (framework, key) -> (path, fingerprint, at, the view): what the file held (the view
        # Raw, decoded on a hit), or after `save` what this process wrote (SessionView or Raw)
        self._old: dict[tuple[str, str], tuple[str, bytes, float, msgspec.Raw | SessionView]] = {}
        # what this scan found valid or derived anew: (framework, key) -> entry
        self._new: dict[tuple[str, str], tuple] = {}  # _Entry, the view Raw or a SessionView
        self._dirty = False
        self.hits = 0
        self.misses = 0

    @property
    def enabled(self) -> bool:
        return self.file is not None and bool(self.sources)

    def stamp(self) -> str:
        if self._stamp is None:
            self._stamp = build_stamp(self.sources)
        return self._stamp

    # -- the file -----------------------------------------------------------------------------

    def load(self) -> None:
        """Read the file (nothing from a file of another build or layout)."""
        self._old, self._new, self._dirty = {}, {}, False
        self.hits = self.misses = 0
        if not self.enabled:
            return
        try:
            schema, stamp, entries = _DEC.decode(self.file.read_bytes())  # type: ignore[union-attr]
        except (OSError, msgspec.DecodeError, ValueError, TypeError, RecursionError):
            self._dirty = True  # unreadable or another layout: replace it
            return
        if schema != SCHEMA or stamp != self.stamp():
            self._dirty = True
            return
        self._old = {(fw, key): (path, fp, at, raw) for fw, key, path, fp, at, raw in entries}

    @property
    def known(self) -> Container[tuple[str, str]]:
        """(framework, key) of every session the file holds a view of."""
        return self._old.keys()

    def forget(self) -> None:
        self._old, self._new = {}, {}

    def save(self) -> bool:
        """Write what this scan found valid or derived (if anything differs from the file).
        The entries written are kept for lookups (re-reads right after a start) until
        `forget`."""
        old, new = self._old, self._new
        self._old = {ident: (e[2], e[3], e[4], e[5]) for ident, e in new.items()}
        if not self.enabled or not (self._dirty or set(old) != set(new)):
            return False
        self._dirty = False
        entries = list(new.values())[:MAX_ENTRIES]
        path = self.file
        assert path is not None
        return write_atomically(path, encode_stamped(SCHEMA, self.stamp(), entries), ".views-")

    # -- one session --------------------------------------------------------------------------

    def fingerprint(self, src: Any, key: str, path: Path) -> bytes | None:
        if not self.enabled or not takes_part(src):
            return None
        try:
            return src.fingerprint(key, path)
        except Exception:  # a reader's bug: derive it, as always
            return None

    def get(
        self, src: Any, key: str, path: Path, fp: bytes | None, now: datetime
    ) -> SessionView | None:
        """The cached view of a session whose fingerprint is `fp`, or None (a miss)."""
        if fp is None:
            return None
        ident = (src.framework, key)
        new = self._new.get(ident)  # derived (or found valid) by this scan: e.g. a re-read
        old = self._old.get(ident) if new is None else (new[2], new[3], new[4], new[5])
        if old is None or old[0] != str(path) or old[1] != fp or now.timestamp() < old[2]:
            self.misses += 1
            return None
        got = old[3]
        if isinstance(got, SessionView):  # derived by this process: a copy to finish
            view = msgspec.structs.replace(got)
        else:
            try:
                view = _VIEW.decode(got)
            except (msgspec.DecodeError, ValueError, TypeError, RecursionError):
                self.misses += 1
                return None
        if view.framework != src.framework or view.path != str(path):
            self.misses += 1
            return None
        self._new[ident] = (src.framework, key, old[0], fp, old[2], old[3])
        self.hits += 1
        return view

    def put(
        self, src: Any, key: str, path: Path, fp: bytes | None, view: SessionView, now: datetime
    ) -> None:
        """Note a view derived anew (kept when its source says time alone does not change it)."""
        if fp is None:
            return
        ident = (src.framework, key)
        try:
            keep = bool(src.timeless(view))
        except Exception:
            keep = False
        if not keep:
            self._new.pop(ident, None)
            self._dirty = True
            return
        # A copy (its fields shared): what the caller does to its view later is not cached.
        kept = msgspec.structs.replace(view)
        self._new[ident] = (src.framework, key, str(path), fp, now.timestamp(), kept)
        self._dirty = True
