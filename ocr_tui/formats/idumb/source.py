"""iDumb (OpenCode plugin, seed 004) as a Source.

Sessions: one per `.idumb/sessions/*.json` and `.idumb/brain/sessions/*.json` (the same file stem
in both is one session, the copy updated last wins). Their state comes from idle time
(`now - lastUpdated`): active < 1 h, resumable 1-48 h, stale > 48 h, old > 168 h and
archive-eligible > 720 h (advisory). The project-level header is the brain
(`.idumb/brain/state.json`, or `.idumb/idumb-brain/state.json` of one historical version).

Shared files are read once and kept until a change under them (`D.Aux`): phase checkpoints
(`.idumb/{,brain/,idumb-brain/}execution/{phase}/*.json`, the phase is the directory name),
halt contexts (`execution/halt-*/halt-context.json`), the execution metrics (one session's, by
`sessionId`) and v2 delegations (`brain/delegations.json`). Checkpoints, halts and delegations
are shown on the sessions whose lifetime holds them; metrics on the session they name, else in
the header.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ocr_tui.core.lenient import small_int, when
from ocr_tui.core.safe_read import read_capped
from ocr_tui.core.source import Source, Touch, is_temp_name
from ocr_tui.core.textsafe import name_key, unsurrogate
from ocr_tui.core.timeutil import from_mtime, parse_ts
from ocr_tui.core.view import Fact, Header, SessionView
from ocr_tui.formats.idumb import model as M

if TYPE_CHECKING:
    from ocr_tui.formats.idumb import derive as D

IDUMB = ".idumb"
SESSION_DIRS = (("sessions",), ("brain", "sessions"))
STATE_FILES = (("brain", "state.json"), ("idumb-brain", "state.json"))
EXEC_ROOTS = (("execution",), ("brain", "execution"), ("idumb-brain", "execution"))
METRICS = ("brain", "execution-metrics.json")
DELEGATIONS = ("brain", "delegations.json")


class IdumbSource(Source):
    framework = "idumb"
    label = "iDumb"
    default_workflow = "session"
    markers = (IDUMB,)

    def __init__(self, root: Path, **kwargs) -> None:
        super().__init__(root, **kwargs)
        self.base = root / IDUMB
        self._files = FileCache()
        self._aux: D.Aux | None = None
        self._expiry: dict[str, datetime] = {}  # by view path: the engine may rename ids
        self._owner: str | None = None  # the session the metrics were last shown on

    # -- where ------------------------------------------------------------------------------

    def watch_dirs(self) -> list[Path]:
        return [self.base]

    def homes(self) -> list[Path]:
        return [self.base.joinpath(*d) for d in SESSION_DIRS]

    def accept(self, path: str) -> bool:
        return not is_temp_name(os.path.basename(path)) and self._kind(Path(path)) is not None

    def list_sessions(self) -> dict[str, Path]:
        out: dict[str, Path] = {}
        for d in SESSION_DIRS:  # `.idumb/sessions/` first: it keeps the key's path
            for name, p in json_files(self.base.joinpath(*d)):
                out.setdefault(name_key(name[:-5]), p)
        return out

    def _kind(self, path: Path) -> str | None:
        try:
            parts = path.relative_to(self.base).parts
        except ValueError:
            return None
        if not parts or parts in (("brain",), ("idumb-brain",)):
            return "dir"
        if parts in SESSION_DIRS:
            return "sessions"
        if parts[:-1] in SESSION_DIRS and len(parts) in (2, 3):
            return "session" if parts[-1].endswith(".json") else None
        if parts in STATE_FILES:
            return "state"
        if parts in (METRICS, DELEGATIONS):
            return "aux"
        if any(parts[: len(r)] == r for r in EXEC_ROOTS):
            return "aux"
        return None

    def touched(self, paths: Iterable[Path]) -> Touch:
        t = Touch()
        for path in paths:
            kind = self._kind(path)
            if kind in ("dir", "sessions"):
                t.relist = t.header = t.everything = True
                self._aux = None
            elif kind == "session":
                t.keys.add(name_key(path.stem))
                t.relist = True  # appeared or went: listing is two directory reads
            elif kind == "state":
                t.header = True
            elif kind == "aux":
                old = self._owner
                self._aux = None
                if path.parts[-1] == METRICS[-1]:
                    self._shared()
                    t.keys |= {sid for sid in (old, self._owner) if sid}
                else:
                    t.everything = True
                t.header = True
        return t

    def begin_scan(self) -> None:
        self._aux = None

    # -- what -------------------------------------------------------------------------------

    def expires(self, view: SessionView) -> datetime | None:
        return self._expiry.get(view.path)

    def _shared(self) -> D.Aux:
        from ocr_tui.formats.idumb import derive as D

        if self._aux is None:
            aux = D.Aux()
            for r in EXEC_ROOTS:
                cps, halts = walk_execution(self.base.joinpath(*r), self._files, aux.problems)
                aux.checkpoints += cps
                aux.halts += halts
            aux.metrics = self._files.read(self.base.joinpath(*METRICS), M.Metrics, aux.problems)
            store = self._files.read(
                self.base.joinpath(*DELEGATIONS), M.DelegationStore, aux.problems
            )
            aux.delegations = store.delegations if store else []
            self._aux = aux
            self._owner = aux.metrics.sessionId if aux.metrics else None
        return self._aux

    def forget(self, key: str, path: Path) -> None:
        self._expiry.pop(str(path), None)
        self._files.forget(path)

    def derive(self, key: str, path: Path, now: datetime) -> SessionView:
        from ocr_tui.formats.idumb import derive as D

        # A reader's bug is caught by the engine (the session stays listed with the error).
        problems: list[str] = []
        facts: list[Fact] = []
        meta, chosen = self._pick_copy(key, path, problems, facts)
        try:
            mtime: float | None = os.stat(chosen).st_mtime
        except OSError:
            mtime = None
        read = D.Read(meta, chosen, mtime, self._shared(), facts)
        view, expiry = D.build(key, path, now, read, problems)
        self._expiry.pop(str(path), None)  # (path may now be the other copy)
        if expiry is not None:
            self._expiry[str(chosen)] = expiry
        else:
            self._expiry.pop(str(chosen), None)
        return view

    def _pick_copy(
        self, key: str, path: Path, problems: list[str], facts: list[Fact]
    ) -> tuple[M.SessionMeta | None, Path]:
        """The session file, or its copy in the other sessions directory if that one is newer."""
        copies = [self.base.joinpath(*d, path.name) for d in SESSION_DIRS]
        copies = [c for c in copies if c != path and c.is_file()]
        meta = self._files.read(path, M.SessionMeta, problems, missing=True)
        if not copies:
            return meta, path
        other_problems: list[str] = []
        other = self._files.read(copies[0], M.SessionMeta, other_problems)
        facts.append(
            Fact(label="copies", value=f"also in {copies[0].parent.relative_to(self.base)}/")
        )
        mine_t = parse_ts(meta.lastUpdated) if meta else None
        other_t = parse_ts(other.lastUpdated) if other else None
        if other is not None and (
            meta is None or (other_t and (mine_t is None or other_t > mine_t))
        ):
            problems.clear()
            problems += other_problems
            return other, copies[0]
        return meta, path

    def header(self, now: datetime) -> Header | None:
        from ocr_tui.formats.idumb.derive_brain import brain_facts
        from ocr_tui.formats.idumb.derive_shared import (
            checkpoint_views,
            delegation_views,
            metrics_views,
        )

        if not self.base.is_dir():
            return None
        aux = self._shared()
        alerts: list[str] = []
        facts: list[Fact] = []
        state, where = None, None
        for f in STATE_FILES:
            p = self.base.joinpath(*f)
            if os.path.lexists(p):
                state, where = self._files.read(p, M.BrainState, alerts), p
                break
        if where is None:
            title = "iDumb brain: no state.json"
            alerts.append("no brain state (.idumb/brain/state.json): treated as stale")
        elif state is None:  # unreadable (the reader said why): no facts to claim from it
            title = "iDumb brain · state.json unreadable"
        else:
            title = f"iDumb brain · {state.framework or '?'} · phase {state.phase or '?'}"
            facts, more = brain_facts(state, now)
            alerts += more
        sessions = set(self.list_sessions())
        if aux.metrics is not None and aux.metrics.sessionId not in sessions:
            mf, _, ma, _ = metrics_views(aux.metrics)
            facts += mf
            alerts += ma
        facts += checkpoint_views(aux.checkpoints, now, per_phase_only=True)[0]
        for h in aux.halts:
            if h.halt.sessionId not in sessions:
                alerts.append(f"emergency halt {h.name}: {h.halt.reason or 'no reason given'}")
        if aux.delegations:
            facts += delegation_views(aux.delegations, now, summary_only=True)[0]
        alerts += aux.problems
        return Header(
            framework=self.framework,
            title=title,
            path=str(where or self.base),
            facts=facts,
            alerts=list(dict.fromkeys(alerts)),
        )


# -- reading ----------------------------------------------------------------------------------

MAX_PER_PHASE = 200  # checkpoint files read per phase directory (the newest names)
MAX_DIRS = 200  # phase and halt directories read per execution root


class FileCache:
    """Decoded files by path, re-read when their (mtime, size, inode) changes."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, type], tuple[tuple, object, list[str]]] = {}

    def forget(self, path: Path) -> None:
        """The file is gone: its entries (one per type it was read as) go too."""
        for ck in [ck for ck in self._cache if ck[0] == str(path)]:
            self._cache.pop(ck, None)

    def read(self, path: Path, cls, problems: list[str], *, missing: bool = False):
        name = unsurrogate(path.name)
        try:
            st = os.stat(path)
            sig: tuple | None = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            sig = None
        ck = (str(path), cls)
        hit = self._cache.get(ck)
        if sig is not None and hit is not None and hit[0] == sig:
            problems += hit[2]
            return hit[1]
        mine: list[str] = []
        data = read_capped(path, name, mine)[0]
        value = M.decode(data, cls, name, mine) if data is not None else None
        if data is None and not mine and missing:
            mine.append(f"{name} is missing")
        if sig is not None:
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[ck] = (sig, value, list(mine))
        problems += mine
        return value


def json_files(d: Path) -> list[tuple[str, Path]]:
    """(name, path) of the regular `*.json` files in `d` (not temp files), sorted by name."""
    out = []
    try:
        with os.scandir(d) as it:
            for e in it:
                if e.name.endswith(".json") and not is_temp_name(e.name):
                    try:
                        if e.is_file():
                            out.append((e.name, Path(e.path)))
                    except OSError:
                        continue
    except OSError:
        return []
    return sorted(out)


def walk_execution(
    root: Path, files: FileCache, problems: list[str]
) -> tuple[list[M.Cp], list[M.HaltRec]]:
    """Checkpoints per phase directory (the directory name is the phase: ids are not split)
    and `halt-*` directories' halt contexts under one execution root."""
    cps: list[M.Cp] = []
    halts: list[M.HaltRec] = []
    try:
        with os.scandir(root) as it:
            dirs = sorted(e.name for e in it if e.is_dir(follow_symlinks=False))
    except OSError:
        return cps, halts
    for name in dirs[-MAX_DIRS:]:
        d = root / name
        shown = unsurrogate(name)
        if name.startswith("halt-"):
            mine: list[str] = []
            h = files.read(d / "halt-context.json", M.Halt, mine) or M.Halt()
            at = parse_ts(h.timestamp) or when(_int(name[5:]))
            halts.append(M.HaltRec(name=shown, halt=h, at=at, problems=mine))
            continue
        for fname, p in json_files(d)[-MAX_PER_PHASE:]:
            mine = []
            cp = files.read(p, M.Checkpoint, mine)
            at = parse_ts(cp.createdAt) if cp else None
            if at is None:
                try:
                    at = from_mtime(os.stat(p).st_mtime)
                except OSError:
                    at = None
            cps.append(M.Cp(phase=shown, name=unsurrogate(fname[:-5]), cp=cp, at=at, problems=mine))
    return cps, halts


def _int(text: str) -> int | None:
    """(A file name's number: `²` is a digit to str.isdigit, not to int.)"""
    return small_int(text, 15) if text.isascii() and text.isdigit() else None
