"""iDumb (OpenCode plugin, seed 004) as a Source.

Sessions: one per `.idumb/sessions/*.json` and `.idumb/brain/sessions/*.json` (the same file stem
in both is one session, the copy updated last wins). Their state comes from idle time
(`now - lastUpdated`): active < 1 h, resumable 1-48 h, stale > 48 h, old > 168 h and
archive-eligible > 720 h (advisory). The project-level header is the brain
(`.idumb/brain/state.json`, or `.idumb/idumb-brain/state.json` of one historical version).

Shared files are read once and kept until a change under them (`_Aux`): phase checkpoints
(`.idumb/{,brain/,idumb-brain/}execution/{phase}/*.json`, the phase is the directory name),
halt contexts (`execution/halt-*/halt-context.json`), the execution metrics (one session's, by
`sessionId`) and v2 delegations (`brain/delegations.json`). Checkpoints, halts and delegations
are shown on the sessions whose lifetime holds them; metrics on the session they name, else in
the header.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from msgspec import UNSET

from ocr_tui.derive.timeutil import fmt_ts, from_mtime, human_duration, parse_ts
from ocr_tui.model import idumb as M
from ocr_tui.model.view import Elapsed, Fact, Header, SessionView, Step
from ocr_tui.sources.base import Source, Touch, is_temp_name
from ocr_tui.textsafe import unsurrogate

IDUMB = ".idumb"
SESSION_DIRS = (("sessions",), ("brain", "sessions"))
STATE_FILES = (("brain", "state.json"), ("idumb-brain", "state.json"))
EXEC_ROOTS = (("execution",), ("brain", "execution"), ("idumb-brain", "execution"))
METRICS = ("brain", "execution-metrics.json")
DELEGATIONS = ("brain", "delegations.json")
H = 3600.0
ACTIVE_H, RESUME_H, OLD_H, ARCHIVE_H = 1, 48, 168, 720
THRESHOLDS = (ACTIVE_H, RESUME_H, OLD_H, ARCHIVE_H)
SLACK = timedelta(minutes=1)  # a checkpoint written just before the session file is its own


@dataclass
class _Aux:
    """The files every session shares, read once per change."""

    checkpoints: list[M.Cp] = field(default_factory=list)
    halts: list[M.HaltRec] = field(default_factory=list)
    metrics: M.Metrics | None = None
    delegations: list[M.Delegation] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class IdumbSource(Source):
    framework = "idumb"
    label = "iDumb"
    markers = (IDUMB,)

    def __init__(self, root: Path, **kwargs) -> None:
        super().__init__(root, **kwargs)
        self.base = root / IDUMB
        self._files = FileCache()
        self._aux: _Aux | None = None
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
                out.setdefault(unsurrogate(name[:-5]), p)
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
                t.keys.add(unsurrogate(path.stem))
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

    def _shared(self) -> _Aux:
        if self._aux is None:
            aux = _Aux()
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

    def derive(self, key: str, path: Path, now: datetime) -> SessionView:
        try:
            return self._derive(key, path, now)
        except Exception as exc:  # pragma: no cover - a last guard: the session stays listed
            self._expiry.pop(str(path), None)
            return _broken(key, path, f"could not be read: {type(exc).__name__}: {exc}")

    def _derive(self, key: str, path: Path, now: datetime) -> SessionView:
        problems: list[str] = []
        facts: list[Fact] = []
        meta, chosen = self._pick_copy(key, path, problems, facts)
        m = meta or M.SessionMeta()
        sid = m.sessionId or key

        def ts(name: str, raw: str | None) -> datetime | None:
            dt = parse_ts(raw)
            if raw is not None and dt is None:
                problems.append(f"{name} {raw!r} is not a timestamp")
            elif dt is not None and dt > now + SLACK:
                problems.append(f"{name} {fmt_ts(dt)} is in the future")
            return dt

        created = ts("createdAt", m.createdAt)
        updated = ts("lastUpdated", m.lastUpdated)
        last = updated or created
        if last is None:
            try:
                last = from_mtime(os.stat(chosen).st_mtime)
                if meta is not None:
                    problems.append("no lastUpdated or createdAt: idle time from the file's time")
            except OSError:
                last = None
        idle = max(0.0, (now - last).total_seconds()) if last else None
        word, tone = M.idle_state(idle)
        active = word == "active"
        alerts: list[str] = []
        badges = [word] if word != "unknown" else []
        expiry: list[datetime] = []
        if last is not None:
            later = [last + timedelta(hours=h) for h in THRESHOLDS]
            expiry += [t for t in later if t > now]
        idle_text = human_duration(idle)
        if word == "active":
            state_text = f"active (idle {idle_text})"
        elif word == "resumable":
            left = human_duration(RESUME_H * H - (idle or 0))
            state_text = f"resumable (idle {idle_text}; {left} left to resume in context)"
        elif word == "stale":
            state_text = f"stale (idle {idle_text}, over 48 h)"
            alerts.append(f"stale: idle {idle_text} (over 48 h); start fresh or confirm resume")
        elif word == "old":
            state_text = f"old (idle {idle_text}, over 7 days)"
            alerts.append(f"old: idle {idle_text} (over 7 days)")
        elif word == "archive-eligible":
            state_text = f"archive-eligible (idle {idle_text}, over 30 days; advisory)"
            alerts.append(f"archive-eligible: idle {idle_text}, over 30 days (advisory)")
        else:
            state_text = "unknown (no time in the file)"
        head = [Fact(label="state", value=state_text, tone=tone)]
        if created:
            head.append(Fact(label="created", value=fmt_ts(created) or ""))
        if last:
            head.append(Fact(label="last update", value=fmt_ts(last) or ""))
        phase_text = (m.phase or "").strip()
        if phase_text:
            head.append(Fact(label="phase at creation", value=phase_text))
        head.append(Fact(label="session", value=sid))
        if m.governanceLevel:
            head.append(Fact(label="governance", value=m.governanceLevel))

        # -- delegation depth / parent: only where the file has them --
        if m.delegationDepth is not UNSET and m.delegationDepth is not None:
            d = m.delegationDepth
            head.append(
                Fact(label="delegation depth", value=str(d), tone="bad" if d >= 5 else "neutral")
            )
            if d > 0:
                badges.append(f"depth {d}")
            if d >= 5:
                alerts.append(f"delegation loop: depth {d} (5 or more)")
        if isinstance(m.parentSession, str) and m.parentSession:
            head.append(Fact(label="parent session", value=m.parentSession))

        # -- compaction --
        if m.compactedAt or m.contextSize:
            size = f" ({m.contextSize})" if m.contextSize else ""
            badges.append(f"compacted{size}")
            at = parse_ts(m.compactedAt)
            when = fmt_ts(at) if at else (m.compactedAt or "time unknown")
            head.append(Fact(label="compacted", value=f"{when}{size}", tone="warn"))

        # -- shared files: what happened during this session --
        aux = self._shared()
        start = (created or last or now) - SLACK
        end = now if active else (last or now) + SLACK
        steps: list[Step] = []
        mine = [c for c in aux.checkpoints if c.at is not None and start <= c.at <= end]
        if created is None and last is None:
            mine = []
        cp_facts, cp_steps, cp_exp = M.checkpoint_views(mine, now)
        facts += cp_facts
        steps += cp_steps
        expiry += cp_exp
        for h in aux.halts:
            if h.halt.sessionId == sid or (
                h.halt.sessionId is None and h.at and start <= h.at <= end
            ):
                steps.append(M.halt_step(h))
                alerts.append(f"emergency halt: {h.halt.reason or 'no reason given'}")
                badges.append("halted")
        dels = [d for d in aux.delegations if (t := M.when(d.createdAt)) and start <= t <= end]
        d_facts, d_steps, d_alerts, d_exp = M.delegation_views(dels, now)
        facts += d_facts
        steps += d_steps
        alerts += d_alerts
        expiry += d_exp
        summary = None
        if aux.metrics is not None and aux.metrics.sessionId in (sid, key):
            mf, ms, ma, summary = M.metrics_views(aux.metrics)
            facts += mf
            steps += ms
            alerts += ma
        if summary is None and dels:
            summary = f"{len(dels)} delegation(s)"

        number, total = M.phase_position(phase_text)
        future = [t for t in expiry if t > now]
        self._expiry.pop(str(path), None)  # (path may now be the other copy)
        if future:
            self._expiry[str(chosen)] = min(future)
        else:
            self._expiry.pop(str(chosen), None)
        since = created or last
        seconds = None
        if since is not None:
            end_t = now if active else (last or now)
            seconds = max(0, int((end_t - since).total_seconds()))
        return SessionView(
            id=key,
            branch=None,
            source=unsurrogate(path.name),
            status="active" if word in ("active", "resumable", "unknown") else "closed",
            workflow="session",
            phase=phase_text or "unknown",
            phase_label=phase_text or "unknown",
            phase_number=number,
            phase_total=total,
            complete=False,
            started_at=fmt_ts(created),
            updated_at=fmt_ts(updated),
            last_activity=fmt_ts(last),
            stalled=False,
            elapsed=Elapsed(since=fmt_ts(since), seconds=seconds, running=active),
            current_round=None,
            rounds=[],
            current_map_run=None,
            map_runs=[],
            problems=list(dict.fromkeys(problems)),
            path=str(chosen),
            timeline=[],
            documents=[],
            framework=self.framework,
            title=(f"phase {phase_text}" if phase_text else sid),
            badges=list(dict.fromkeys(badges)),
            summary=summary,
            waiting=False,
            alerts=list(dict.fromkeys(alerts)),
            facts=head + facts,
            steps=steps,
        )

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
        else:
            s = state or M.BrainState()
            title = f"iDumb brain · {s.framework or '?'} · phase {s.phase or '?'}"
            facts, more = M.brain_facts(s, now)
            alerts += more
        sessions = set(self.list_sessions())
        if aux.metrics is not None and aux.metrics.sessionId not in sessions:
            mf, _, ma, _ = M.metrics_views(aux.metrics)
            facts += mf
            alerts += ma
        facts += M.checkpoint_views(aux.checkpoints, now, per_phase_only=True)[0]
        for h in aux.halts:
            if h.halt.sessionId not in sessions:
                alerts.append(f"emergency halt {h.name}: {h.halt.reason or 'no reason given'}")
        if aux.delegations:
            facts += M.delegation_views(aux.delegations, now, summary_only=True)[0]
        alerts += aux.problems
        return Header(
            framework=self.framework,
            title=title,
            path=str(where or self.base),
            facts=facts,
            alerts=list(dict.fromkeys(alerts)),
        )


# -- reading ----------------------------------------------------------------------------------

MAX_JSON = 1024 * 1024  # a larger file is not decoded
MAX_PER_PHASE = 200  # checkpoint files read per phase directory (the newest names)
MAX_DIRS = 200  # phase and halt directories read per execution root


def _read_capped(path: Path, name: str, problems: list[str]) -> bytes | None:
    """At most MAX_JSON bytes of a regular file (never blocks on a FIFO), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(f"{name} cannot be read ({exc.strerror or type(exc).__name__})")
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            problems.append(f"{name} is not a regular file")
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_JSON + 1)
    except OSError as exc:
        problems.append(f"{name} cannot be read ({exc.strerror or type(exc).__name__})")
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_JSON:
        problems.append(f"{name} is larger than 1 MiB: not read")
        return None
    if not data.strip():
        problems.append(f"{name} is empty")
        return None
    return data


class FileCache:
    """Decoded files by path, re-read when their (mtime, size, inode) changes."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, type], tuple[tuple, object, list[str]]] = {}

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
        data = _read_capped(path, name, mine)
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
            at = parse_ts(h.timestamp) or M.when(_int(name[5:]))
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
    return int(text) if text.isdigit() and len(text) < 16 else None


def _broken(key: str, path: Path, problem: str) -> SessionView:
    return SessionView(
        id=key,
        branch=None,
        source=unsurrogate(path.name),
        status="active",
        workflow="session",
        phase="unknown",
        phase_label="unknown",
        phase_number=None,
        phase_total=0,
        complete=False,
        started_at=None,
        updated_at=None,
        last_activity=None,
        stalled=False,
        elapsed=Elapsed(since=None, seconds=None, running=False),
        current_round=None,
        rounds=[],
        current_map_run=None,
        map_runs=[],
        problems=[problem],
        path=str(path),
        framework="idumb",
        title=key,
    )
