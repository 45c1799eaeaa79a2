"""Open Code Review as a Source: `.ocr/sessions/*/` directories, with workflow position from
`.ocr/data/ocr.db` (OCR >= 1.5) or each session's `state.json` (older OCR), else from files."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from ocr_tui.core.project import Project, session_dirs
from ocr_tui.core.source import Source, Touch, is_temp_name
from ocr_tui.core.textdecode import short
from ocr_tui.core.textsafe import name_key
from ocr_tui.core.view import SessionView
from ocr_tui.formats.ocr.phases import MAP_PHASES, REVIEW_PHASES

if TYPE_CHECKING:
    from ocr_tui.formats.ocr.db import DbSnapshot

# The readers (parse cache, files, ocr.db, the derivation) are imported where they are first
# used: listing the formats (their keys, labels, markers: `core.registry`) imports this module
# alone, and the dashboard's first frame needs no more (`core.early_read` reads meanwhile).

MAX_FINGERPRINT = 4096  # entries of a session's tree stat'ed for its fingerprint; more: none
_ENC = msgspec.msgpack.Encoder()


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists on this machine (signal 0: nothing is sent). A process of
    another user exists too (EPERM)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True
    return True


class OcrSource(Source):
    framework = "ocr"
    label = "Open Code Review"
    flow_words = ("review", "map")
    host = True  # rounds, findings, map runs: the UI's own screens (`formats/ocr/api.py`)
    markers = (".ocr",)
    reads_module = "ocr_tui.formats.ocr.reads"
    phase_labels = tuple(label for _, label in REVIEW_PHASES + MAP_PHASES)
    # Its derivation is a function of the session's files and ocr.db alone, and `expires` of
    # the view alone: worker processes may derive it (`ocr_tui.core.pool`).
    pool_safe = True

    def __init__(self, root: Path, **kwargs) -> None:
        from ocr_tui.formats.ocr import parse_cache
        from ocr_tui.formats.ocr.db import ABSENT

        super().__init__(root, **kwargs)
        self.project = Project(root)
        self.db: DbSnapshot = ABSENT
        self._cache_file = parse_cache.cache_file(root)
        self._cache_loaded = False
        self._scanning = False
        p = self.project
        self._exact = {str(p.ocr_dir), str(p.sessions_dir), str(p.data_dir), str(p.db_path)}
        self._sessions_prefix = str(p.sessions_dir) + os.sep

    # -- where ------------------------------------------------------------------------------

    def watch_dirs(self) -> list[Path]:
        return [self.project.ocr_dir]

    def homes(self) -> list[Path]:
        return [self.project.sessions_dir]

    def accept(self, path: str) -> bool:
        """Only what can change a session: anything under sessions/ but temp files, ocr.db."""
        if path in self._exact:
            return True
        if path.startswith(self._sessions_prefix):
            return not is_temp_name(os.path.basename(path))
        return False

    def list_sessions(self) -> dict[str, Path]:
        return {name_key(p.name): p for p in session_dirs(self.project)}

    def touched(self, paths: Iterable[Path]) -> Touch:
        """A change to ocr.db re-derives the sessions whose rows or findings rows changed
        (every session when its readability changed); a change to the sessions directory
        itself re-lists it."""
        t = Touch()
        p = self.project
        sessions_dir = p.sessions_dir
        db_touched = False
        for path in paths:
            if path == sessions_dir or (sessions_dir.is_relative_to(path) and path != sessions_dir):
                t.relist = True
                continue
            if path.parent == p.data_dir or path == p.data_dir:
                db_touched = True
                continue
            try:
                rel = path.relative_to(sessions_dir)
            except ValueError:
                continue
            if not rel.parts or rel.parts[0].startswith("."):
                continue
            t.keys.add(name_key(rel.parts[0]))
            if path.parent == sessions_dir:
                t.relist = True
        if db_touched:
            old = self.db
            if self._refresh_db():
                t.keys |= _db_changes(old, self.db)
                if old.error != self.db.error or old.findings_error != self.db.findings_error:
                    t.everything = True
        return t

    # -- what -------------------------------------------------------------------------------

    def _refresh_db(self) -> bool:
        """Re-read ocr.db if it changed; True when its content may differ."""
        from ocr_tui.formats.ocr.db_findings import read_all_findings
        from ocr_tui.formats.ocr.db_load import load_db

        new = load_db(self.project.db_path, self.db, findings=read_all_findings)
        changed = new is not self.db
        self.db = new
        return changed

    def derive(self, key: str, path: Path, now: datetime) -> SessionView:
        from ocr_tui.formats.ocr import fs as ocr_fs
        from ocr_tui.formats.ocr.derive import derive_session
        from ocr_tui.formats.ocr.derive_rounds import completed_rounds
        from ocr_tui.formats.ocr.model import state_from_json
        from ocr_tui.formats.ocr.tally import tally_rounds

        if self._scanning:  # a live change reads its few files anew: no load on its path
            self._load_parse_cache()
        problems: list[str] = []
        row = self.db.rows.get(path.name) if self.db.present else None
        if self.db.error:
            problems.append(self.db.error)
        if self.db.findings_error:
            problems.append(self.db.findings_error)
        with ocr_fs.keep_texts():  # what read_session reads, the findings model reads too
            files = ocr_fs.read_session(path, read_state_json=row is None)
            try:  # the rows `ocr-tui findings` reads for this session (by its id, as it asks)
                tally_rounds(files, self.db.findings.get(key), completed_rounds(row))
            except Exception as exc:  # a bug in the findings model: not the session's view
                problems.append(f"its findings could not be counted: {short(exc)}")
        state = row
        if state is None and files.state is not None:
            state = state_from_json(files.state)
        view = derive_session(
            files, state, now=now, stall_after=self.stall_after, problems=problems,
            pid_alive=pid_alive,
        )  # fmt: skip
        view.id = key
        return view

    def expires(self, view: SessionView) -> datetime | None:
        """The stall threshold, or sooner, when a running agent's heartbeat turns stale."""
        from ocr_tui.formats.ocr.derive_records import heartbeat_due

        due = [t for t in (super().expires(view), heartbeat_due(view)) if t is not None]
        return min(due, default=None)

    # -- the result cache (`ocr_tui.core.result_cache`) ---------------------------------------

    def fingerprint(self, key: str, path: Path) -> bytes | None:
        """A digest of everything `derive` reads for a session: every entry of its directory
        tree (names in listing order, kinds, and each file's mode, size, mtime, ctime and
        inode; stat calls, no reads), its ocr.db row and findings rows, and the store's
        errors. None when the tree is larger than MAX_FINGERPRINT entries."""
        parts: list = []
        if not _walk(os.fsencode(path), b"", parts, [MAX_FINGERPRINT]):
            return None
        db = self.db
        if db.present:
            row = db.rows.get(path.name)
            found = db.findings.get(key)
            parts.append((db.error, db.findings_error, row, found))
        else:
            parts.append(None)
        parts.append(self.stall_after)
        try:
            data = _ENC.encode(parts)
        except (TypeError, ValueError, OverflowError):  # e.g. a name msgpack cannot hold
            return None
        return hashlib.blake2b(data, digest_size=20).digest()

    def timeless(self, view: SessionView) -> bool:
        """Whether time passing alone leaves the view as it is (`session_seconds` aside): not
        running (nothing stalls, no round time grows), no agents (their heartbeat ages), no
        time in the future (it would stop being so), and an end time of its own (a session
        without one is counted to now)."""
        if view.running or view.stalled or view.agents:
            return False
        if view.elapsed.since is not None and view.last_activity is None:
            return False
        return not any("in the future" in p for p in view.problems)

    # -- caches -----------------------------------------------------------------------------

    def _load_parse_cache(self) -> None:
        """Serve parse results from the persistent cache: loaded once, at the first session
        derived (none is when every view comes from the result cache)."""
        from ocr_tui.formats.ocr import file_cache, parse_cache

        if not self._cache_loaded:
            self._cache_loaded = True
            file_cache.use_persisted(parse_cache.load(self._cache_file))

    def begin_scan(self) -> None:
        self._scanning = True
        self._refresh_db()

    def end_scan(self) -> None:
        """Write the persistent cache if anything new was parsed: the entries of the sessions
        listed now (those of sessions gone are dropped, in memory too)."""
        from ocr_tui.formats.ocr import file_cache, parse_cache

        self._scanning = False
        if file_cache.dirty():
            self._load_parse_cache()  # what is not re-parsed is kept (`file_cache.entries`)
        listed = {str(p) for p in self.list_sessions().values()}
        file_cache.keep_only(listed, self._sessions_prefix)
        if (
            file_cache.dirty()
            and self._cache_file is not None
            and parse_cache.save(self._cache_file, file_cache.entries())
        ):
            file_cache.mark_saved()

    def forget(self, key: str, path: Path) -> None:
        """The session is gone (or moved): its files' parse results go too."""
        from ocr_tui.formats.ocr import file_cache

        file_cache.forget(str(path))

    def close(self) -> None:
        """The engine is dropped: the parse results of the project's sessions go."""
        from ocr_tui.formats.ocr import file_cache

        file_cache.forget_under(self._sessions_prefix)


def _db_changes(old: DbSnapshot, new: DbSnapshot) -> set[str]:
    """The sessions whose rows or findings rows differ between two versions of ocr.db: what
    an incremental read found (`DbSnapshot.changed`; it reads findings only when they did not
    change), else every session's compared."""
    if new.changed is not None:
        return set(new.changed)
    keys = set()
    for sid in set(old.rows) | set(new.rows):
        if old.rows.get(sid) != new.rows.get(sid):
            keys.add(sid)
    for sid in set(old.findings) | set(new.findings):
        if old.findings.get(sid) != new.findings.get(sid):
            keys.add(sid)
    return keys


def _walk(d: bytes, rel: bytes, out: list, left: list[int]) -> bool:
    """Append every entry under directory `d` (symbolic links not followed) to `out`, in
    listing order; False when more than `left[0]` entries were seen."""
    try:
        it = os.scandir(d)
    except OSError as exc:
        out.append((rel, "error", exc.errno or 0))
        return True
    with it:
        for e in it:
            left[0] -= 1
            if left[0] < 0:
                return False
            r = rel + b"/" + e.name
            try:
                if e.is_symlink():
                    out.append((r, "link"))
                elif e.is_dir(follow_symlinks=False):
                    out.append((r, "dir"))
                    if not _walk(e.path, r, out, left):
                        return False
                else:
                    st = e.stat(follow_symlinks=False)
                    out.append((r, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns,
                                st.st_ino))  # fmt: skip
            except OSError as exc:
                out.append((r, "error", exc.errno or 0))
    return True
