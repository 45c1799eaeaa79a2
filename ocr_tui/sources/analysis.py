"""Scientific Analysis Architect sessions as a Source (seed 003).

Where: `<root>/.scientific-analysis-session/` (the live session), `<root>/.scientific-analysis-
session.archive/` (an old session the skill renamed; a second rename lands inside it), and the
skill's fallback `<tmp>/scientific-analysis-architect-session-{date}-{time}-{pid}[.archive]/`
directories whose `config.output_directory` (or `session_directory`) is inside the project root.
The temp directory is not watched recursively: `poll` scans it (cheap, cached by mtime) and the
sessions found there are offered to the watcher by `extra_watch_dirs`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path

from ocr_tui.derive.timeutil import fmt_ts, from_mtime, human_duration, parse_ts
from ocr_tui.model import analysis as A
from ocr_tui.model.view import Elapsed, Fact, SessionView
from ocr_tui.sources.base import Source, Touch
from ocr_tui.textsafe import unsurrogate

PRIMARY = ".scientific-analysis-session"
ARCHIVE = PRIMARY + ".archive"
TMP_PREFIX = "scientific-analysis-architect-session-"
STATE = "session-state.json"
ERRORS_LOG = ("logs", "errors.log")
MAX_JSON = 1024 * 1024  # a larger state file is not decoded
LOG_TAIL = 64 * 1024  # bytes read from the end of logs/errors.log
LOG_LINES = 50  # errors.log entries kept
RESUME_WINDOW = timedelta(hours=72)
MAX_NEST = 3  # .archive/.scientific-analysis-session/... (a second rename lands inside)
_LIVE = (None, "initialized", "in_progress")


def tmp_key(name: str) -> str:
    return "tmp-" + unsurrogate(name[len(TMP_PREFIX) :])


def _inside(path: str, tops: Iterable[str]) -> bool:
    return any(path == t or path.startswith(t.rstrip(os.sep) + os.sep) for t in tops)


class AnalysisSource(Source):
    framework = "analysis"
    label = "Scientific analysis"
    markers = (PRIMARY,)

    def __init__(self, root: Path, *, tmp_dir: Path | str | None = None, **kwargs) -> None:
        super().__init__(root, **kwargs)
        self.primary = root / PRIMARY
        self.archive = root / ARCHIVE
        self.tmp_dir = Path(tmp_dir or os.environ.get("OCR_TUI_ANALYSIS_TMP") or "/tmp")
        tops = {os.path.normpath(os.path.abspath(root))}
        try:
            tops.add(os.path.realpath(root))
        except (OSError, ValueError):
            pass
        self._tops = tuple(tops)
        self._tmp: dict[str, Path] = {}  # key -> temp session dir of this project
        self._tmp_names: list[str] | None = None
        self._tmp_sig: tuple | None = None
        self._seen: dict[str, tuple[tuple | None, bool]] = {}  # name -> (state stat, belongs)
        self._expiry: dict[str, datetime] = {}

    # -- where ------------------------------------------------------------------------------

    def watch_dirs(self) -> list[Path]:
        return [self.primary, self.archive]

    def extra_watch_dirs(self) -> list[Path]:
        if self._tmp_names is None:
            self._refresh_tmp()
        return list(self._tmp.values())  # the engine keeps the existing ones

    def list_sessions(self) -> dict[str, Path]:
        out: dict[str, Path] = {}
        if os.path.isdir(self.primary):  # os.path: False on any OSError, never raises
            out["project"] = self.primary
        d, n = self.archive, 1
        while n <= MAX_NEST and os.path.isdir(d) and (n == 1 or os.path.isfile(d / STATE)):
            out["project.archive" if n == 1 else f"project.archive.{n}"] = d
            d, n = d / PRIMARY, n + 1
        self._refresh_tmp()
        out.update(self._tmp)
        return out

    def poll(self) -> bool:
        return self._refresh_tmp()

    def touched(self, paths: Iterable[Path]) -> Touch:
        t = Touch()
        for path in paths:
            if path in (self.primary, self.archive) or self.primary.is_relative_to(path):
                t.relist = True
            if path.is_relative_to(self.primary):
                t.keys.add("project")
            elif path.is_relative_to(self.archive):
                parts = path.relative_to(self.archive).parts
                depth = 1
                while len(parts) > 0 and parts[0] == PRIMARY and depth < MAX_NEST:
                    if parts[1:] in ((), (STATE,)):  # a nested dir or its state file came/went
                        t.relist = True
                    parts, depth = parts[1:], depth + 1
                t.keys.add("project.archive" if depth == 1 else f"project.archive.{depth}")
            elif path.is_relative_to(self.tmp_dir):
                parts = path.relative_to(self.tmp_dir).parts
                if not parts or not parts[0].startswith(TMP_PREFIX):
                    continue
                if parts[1:] in ((), (STATE,)):  # a session dir or its state: its owner may change
                    self._tmp_sig = None
                    t.relist = True
                key = tmp_key(parts[0])
                if key in self._tmp:
                    t.keys.add(key)
        return t

    def _refresh_tmp(self) -> bool:
        """Rescan the temp dir when its mtime changed; re-check a candidate's owner when its
        state file changed. True when the set of this project's temp sessions changed."""
        try:
            st = os.stat(self.tmp_dir)
            sig: tuple | None = (st.st_mtime_ns, st.st_ino)
        except OSError:
            sig = None
        if sig != self._tmp_sig or self._tmp_names is None:
            self._tmp_sig = sig
            names: list[str] = []
            if sig is not None:
                try:
                    with os.scandir(self.tmp_dir) as it:
                        for e in it:
                            if e.name.startswith(TMP_PREFIX) and e.is_dir(follow_symlinks=False):
                                names.append(e.name)
                except OSError:
                    names = []
            self._tmp_names = names
            self._seen = {n: v for n, v in self._seen.items() if n in names}
        found: dict[str, Path] = {}
        for name in self._tmp_names:
            d = self.tmp_dir / name
            try:
                fst = os.stat(d / STATE)
                fsig: tuple | None = (fst.st_mtime_ns, fst.st_size, fst.st_ino)
            except OSError:
                fsig = None
            seen = self._seen.get(name)
            if seen is None or seen[0] != fsig:
                seen = (fsig, fsig is not None and self._belongs(d))
                self._seen[name] = seen
            if seen[1]:
                found[tmp_key(name)] = d
        changed = found != self._tmp
        self._tmp = found
        return changed

    def _belongs(self, d: Path) -> bool:
        data = _read_capped(d / STATE, [])
        state = A.decode_state(data, []) if data else None
        if state is None:
            return False
        for p in (state.config.output_directory, state.config.session_directory):
            if isinstance(p, str) and os.path.isabs(p) and self._in_root(p):
                return True
        return False

    def _in_root(self, p: str) -> bool:
        norm = os.path.normpath(p)
        if not _inside(norm, self._tops):
            return False
        try:
            return _inside(os.path.realpath(norm), self._tops)
        except (OSError, ValueError):
            return False

    # -- what -------------------------------------------------------------------------------

    def expires(self, view: SessionView) -> datetime | None:
        return self._expiry.get(view.path)  # by path: the engine may rename a clashing id

    def derive(self, key: str, path: Path, now: datetime) -> SessionView:
        try:
            return self._derive(key, path, now)
        except Exception as exc:  # pragma: no cover - a last guard: the session stays listed
            self._expiry.pop(str(path), None)
            return _broken(key, path, f"could not be read: {type(exc).__name__}: {exc}")

    def _derive(self, key: str, path: Path, now: datetime) -> SessionView:
        problems: list[str] = []
        state_file = path / STATE
        data = _read_capped(state_file, problems)
        state = A.decode_state(data, problems) if data is not None else None
        if data is None and not problems:
            problems.append(f"{STATE} is missing")
        st = state or A.SessionState()
        errors = A.merge_errors(st.errors, _tail_errors(path.joinpath(*ERRORS_LOG), problems))
        expiry: list[datetime] = []
        alerts: list[str] = []
        facts: list[Fact] = []
        badges: list[str] = []

        # --- status ---
        word = st.status if st.status in A.STATUSES else None
        if st.status is not None and word is None:
            problems.append(f"unknown status {st.status!r}: ignored")
        archived, temp = ".archive" in key, key.startswith("tmp-")

        # --- times ---
        def ts(name: str, raw: str | None) -> datetime | None:
            dt = parse_ts(raw)
            if raw is not None and dt is None:
                problems.append(f"{name} {raw!r} is not a timestamp")
            elif dt is not None and dt > now + timedelta(minutes=5):
                problems.append(f"{name} {fmt_ts(dt)} is in the future")
            return dt

        created = ts("created_at", st.created_at)
        updated = ts("last_updated", st.last_updated)
        last = updated or created
        if last is None:
            try:
                last = from_mtime(os.stat(state_file).st_mtime)
            except OSError:
                pass
        expired = bool(
            word in ("in_progress", "interrupted") and last and now - last > RESUME_WINDOW
        )
        complete = word == "completed"
        closed = complete or word == "aborted" or archived or expired
        live = not closed and word in _LIVE

        # --- phase ---
        done = sorted({p for p in st.completed_phases or [] if 0 <= p < len(A.PHASES)})
        cur = st.current_phase
        if cur is None:
            cur = max(done) + 1 if done else 0
        elif not 0 <= cur <= len(A.PHASES):
            problems.append(f"current_phase {cur} is outside 0-7")
            cur = min(max(cur, 0), len(A.PHASES))
        if complete or cur >= len(A.PHASES):
            phase, phase_label, number = "complete", "Complete", len(A.PHASES)
        else:
            phase, phase_label = A.PHASES[cur]
            number = cur + 1
        in_phase = cur if cur < len(A.PHASES) else None
        name = A.PHASES[in_phase][1] if in_phase is not None else "Complete"

        # --- gates and the interview ---
        approvals = st.user_approvals
        waiting = False
        for gate in A.GATES:
            ap = approvals.get(f"phase_{gate}")
            if ap is not None:
                ok = ap.approved is True
                text = ("approved" if ok else "changes requested") + A.at_text(ap.timestamp)
                facts.append(Fact(label=f"gate {gate}", value=text, tone="good" if ok else "warn"))
            if live and gate == in_phase and not (ap is not None and ap.approved is True):
                waiting = True
                wait_text = f"phase {gate} ({name}) needs your approval"
                facts.append(Fact(label="waiting on you", value=wait_text, tone="warn"))
        ip = st.interview_progress
        if ip is not None and ip.total_concerns:
            at = ip.current_index if ip.current_index is not None else ip.decisions_made or 0
            concerns = f"{min(at, ip.total_concerns)}/{ip.total_concerns} concerns"
            facts.append(Fact(label="interview", value=concerns, tone="neutral"))
            if in_phase == 6:
                badges.append(concerns)
                waiting = waiting or (live and at < ip.total_concerns)

        # --- alerts by status and time ---
        where = f"phase {in_phase} ({name})" if in_phase is not None else "the end"
        if word == "interrupted":
            alerts.append(f"interrupted at {where}")
        elif word == "aborted":
            alerts.append(f"aborted at {where}")
        elif word == "error":
            alerts.append(f"error: stopped at {where}")
        if word in ("in_progress", "interrupted") and last is not None and not archived:
            if expired:
                idle = human_duration((now - last).total_seconds())
                alerts.append(f"no longer resumable (last update {idle} ago, over 72 h)")
            else:
                expiry.append(last + RESUME_WINDOW)
                facts.append(Fact(label="resumable until", value=fmt_ts(last + RESUME_WINDOW)))
        stalled = False
        if live and not waiting and last is not None and in_phase is not None:
            idle_s = (now - last).total_seconds()
            limit = A.TIMEOUT_MINUTES[in_phase] * 60
            if idle_s > limit:
                alerts.append(
                    f"overdue: {where} has run {human_duration(idle_s)} without an update "
                    f"(timeout {A.TIMEOUT_MINUTES[in_phase]} min)"
                )
            else:
                expiry.append(last + timedelta(seconds=limit))
            stalled = idle_s > self.stall_after
            if not stalled:
                expiry.append(last + timedelta(seconds=self.stall_after))

        # --- errors ---
        if errors:
            latest = max(enumerate(errors), key=lambda ie: (A.sort_ts(ie[1].timestamp), ie[0]))[1]
            text = A.error_text(latest)
            facts.append(Fact(label="errors", value=str(len(errors)), tone="bad"))
            facts.append(Fact(label="last error", value=text, tone="bad"))
            if word == "error" or (live and latest.phase == in_phase):
                alerts.append(f"error: {text}")

        # --- documents, agent runs, timeline ---
        docs = _Docs(self, path, st.config.output_directory)
        per_phase = A.phase_outputs(st.outputs)
        phase_docs = {p: [d for d in (docs.get(x) for x in xs) if d] for p, xs in per_phase.items()}
        steps, runs_by_phase = A.run_steps(st.agent_execution_log, docs.get)
        given = st.completed_phases is not None
        timeline = A.timeline(
            cur, done, given, complete, created, approvals, runs_by_phase, phase_docs
        )
        steps += A.gate_steps(approvals) + A.error_steps(errors)
        documents = list(dict.fromkeys(d for p in sorted(phase_docs) for d in phase_docs[p]))
        if docs.missing:
            facts.append(Fact(label="outputs missing", value=str(docs.missing), tone="warn"))

        # --- badges, facts, title ---
        if word not in (None, "in_progress", "completed"):
            badges.insert(0, word)
        if archived:
            badges.append("archived")
        if temp:
            badges.append("tmp")
        if st.config.num_chapters is not None:
            badges.append(f"{st.config.num_chapters} chapters")
        if st.version:
            badges.append(f"v{st.version}")
        ctx = st.user_context
        title = ctx.dataset_description or ctx.research_goals or st.session_id or key
        head = [Fact(label="status", value=st.status or "unknown", tone=A.TONES.get(word, "warn"))]
        head.append(Fact(label="phase", value=where if in_phase is not None else "all done"))
        if done:
            head.append(Fact(label="completed phases", value=", ".join(map(str, done))))
        if ctx.research_goals and ctx.research_goals != title:
            head.append(Fact(label="goals", value=ctx.research_goals))
        if st.session_id:
            head.append(Fact(label="session", value=st.session_id))
        if st.config.output_directory:
            head.append(Fact(label="output directory", value=st.config.output_directory))

        since = created
        seconds = None
        if since is not None:
            end = now if live else (updated or now)
            seconds = max(0, int((end - since).total_seconds()))
        future = [t for t in expiry if t > now]
        if future:
            self._expiry[str(path)] = min(future)
        else:
            self._expiry.pop(str(path), None)
        return SessionView(
            id=key,
            branch=None,
            source=STATE,
            status="closed" if closed else "active",
            workflow="analysis",
            phase=phase,
            phase_label=phase_label,
            phase_number=number,
            phase_total=len(A.PHASES),
            complete=complete,
            started_at=fmt_ts(created),
            updated_at=fmt_ts(updated),
            last_activity=fmt_ts(last),
            stalled=stalled,
            elapsed=Elapsed(since=fmt_ts(since), seconds=seconds, running=live),
            current_round=None,
            rounds=[],
            current_map_run=None,
            map_runs=[],
            problems=list(dict.fromkeys(problems)),
            path=str(path),
            timeline=timeline,
            documents=documents,
            framework=self.framework,
            title=title.strip() or key,
            badges=badges,
            summary=A.summary(st.agent_execution_log, in_phase),
            waiting=waiting,
            alerts=alerts,
            facts=head + facts,
            steps=steps,
        )


class _Docs:
    """Output paths as documents relative to the session dir: relative paths are looked up in
    the session dir, then the output directory (when inside the project), then the project
    root; absolute ones are kept when inside the project root or the session dir. Markdown
    files that exist are offered; `missing` counts the others."""

    def __init__(self, src: AnalysisSource, session: Path, output_dir: str | None) -> None:
        self.session = os.path.normpath(os.path.abspath(session))
        self.real_session = os.path.realpath(self.session)
        bases = [self.session]
        if output_dir and os.path.isabs(output_dir) and src._in_root(output_dir):
            bases.append(os.path.normpath(output_dir))
        bases.append(src._tops[0])
        self.bases = list(dict.fromkeys(bases))
        self.src = src
        self.missing = 0
        self._memo: dict[str, str | None] = {}

    def get(self, raw: str) -> str | None:
        if raw in self._memo:
            return self._memo[raw]
        found = None
        if raw.lower().endswith(".md") and "\x00" not in raw:  # documents are markdown
            for base in [""] if os.path.isabs(raw) else self.bases:
                cand = os.path.normpath(os.path.join(base, raw))
                if os.path.isfile(cand) and self._allowed(cand):
                    found = os.path.relpath(cand, self.session)
                    break
            if found is None:
                self.missing += 1
        self._memo[raw] = found
        return found

    def _allowed(self, cand: str) -> bool:
        """Inside the session dir or the project root, symbolic links resolved."""
        try:
            real = os.path.realpath(cand)
        except (OSError, ValueError):
            return False
        return _inside(real, (self.real_session, *self.src._tops))


def _read_capped(path: Path, problems: list[str]) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_JSON + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(f"{STATE} cannot be read ({exc.strerror or type(exc).__name__})")
        return None
    if len(data) > MAX_JSON:
        problems.append(f"{STATE} is larger than {MAX_JSON // (1024 * 1024)} MiB: not read")
        return None
    if not data.strip():
        problems.append(f"{STATE} is empty")
        return None
    return data


def _tail_errors(path: Path, problems: list[str]) -> list[A.ErrorEntry]:
    """The last entries of `logs/errors.log` (JSON lines); unreadable lines are counted."""
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            start = max(0, size - LOG_TAIL)
            fh.seek(start)
            data = fh.read(LOG_TAIL)
    except OSError:
        return []
    lines = data.splitlines()
    if start > 0 and lines:
        lines = lines[1:]  # the first line is cut
    out: list[A.ErrorEntry] = []
    bad = 0
    for line in lines:
        if not line.strip():
            continue
        entry = A.decode_error_line(line)
        if entry is None:
            bad += 1
        else:
            out.append(entry)
    if bad:
        problems.append(f"logs/errors.log: {bad} line(s) are not JSON objects")
    return out[-LOG_LINES:]


def _broken(key: str, path: Path, problem: str) -> SessionView:
    return SessionView(
        id=key, branch=None, source=STATE, status="active", workflow="analysis", phase="unknown",
        phase_label="unknown", phase_number=None, phase_total=len(A.PHASES), complete=False,
        started_at=None, updated_at=None, last_activity=None, stalled=False,
        elapsed=Elapsed(since=None, seconds=None, running=False), current_round=None, rounds=[],
        current_map_run=None, map_runs=[], problems=[problem], path=str(path),
        framework="analysis", title=key,
    )  # fmt: skip
