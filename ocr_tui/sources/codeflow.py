"""The LTVAI-Kit `/code` workflow as a Source (seed 002): `.claude/.docs/{id}/state.json`.

One session per directory of `.claude/.docs`. The view shows the six phases (init, research,
plan, implement, quality, review) with their state, reports and durations; the full/fast and auto
badges; the linked spec; the agents the dispatcher chose. Progress k/6 counts skipped phases as
done; the current phase is the first `in_progress` one, else the first `pending` one. The format
has no staleness rule: a phase `in_progress` whose `updated_at` is older than `stall_after` is
flagged "stalled?". Without `--auto` the workflow asks before each phase, so a session between
phases (none in progress, some done, some pending) waits on the user.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

import msgspec

from ocr_tui.derive.timeutil import fmt_ts, from_mtime, human_duration
from ocr_tui.model import codeflow as C
from ocr_tui.model.view import Elapsed, Fact, PhaseStep, SessionView
from ocr_tui.sources.base import Source, Touch
from ocr_tui.textsafe import unsurrogate

DOCS = (".claude", ".docs")
STATE = "state.json"
MAX_JSON = 1024 * 1024  # a larger state file is not decoded
MAX_DOCS = 200  # markdown files listed per session
DOC_DEPTH = 2  # subdirectory levels searched for markdown files


def _secs(a: datetime | None, b: datetime | None) -> int | None:
    return None if a is None or b is None else max(0, int((b - a).total_seconds()))


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


class CodeWorkflowSource(Source):
    framework = "code"
    label = "Code workflow"
    markers = (os.path.join(*DOCS),)

    def __init__(self, root: Path, **kwargs) -> None:
        super().__init__(root, **kwargs)
        self.docs = root.joinpath(*DOCS)
        self._top = str(root)
        self._stallable: set[str] = set()  # session paths with a phase in progress

    # -- where ------------------------------------------------------------------------------

    def watch_dirs(self) -> list[Path]:
        return [self.docs]

    def list_sessions(self) -> dict[str, Path]:
        out: dict[str, Path] = {}
        try:
            with os.scandir(self.docs) as it:
                for e in it:
                    try:
                        if not e.name.startswith(".") and e.is_dir():
                            out[unsurrogate(e.name)] = Path(e.path)
                    except OSError:
                        continue
        except OSError:
            pass
        return out

    def touched(self, paths: Iterable[Path]) -> Touch:
        t = Touch()
        for path in paths:
            if path == self.docs or self.docs.is_relative_to(path):
                t.relist = True
                continue
            try:
                parts = path.relative_to(self.docs).parts
            except ValueError:
                continue
            if not parts or parts[0].startswith("."):
                continue
            t.keys.add(unsurrogate(parts[0]))
            if len(parts) == 1:
                t.relist = True
        return t

    def expires(self, view: SessionView) -> datetime | None:
        """Only a phase in progress can become stalled: a session between phases, or one
        never started, does not change with time (its elapsed time ticks in the UI)."""
        if view.path not in self._stallable:
            return None
        return super().expires(view)

    # -- reading ------------------------------------------------------------------------------

    def _read_state(self, path: Path, problems: list[str]) -> tuple[dict | None, float | None]:
        """The decoded (dotted keys folded) state.json and its mtime; None when unreadable."""
        f = path / STATE
        try:
            st = os.stat(f)
        except FileNotFoundError:
            problems.append("state.json is missing (the session may be starting)")
            return None, None
        except OSError as exc:
            problems.append(f"state.json cannot be read: {exc.strerror or exc}")
            return None, None
        if not stat.S_ISREG(st.st_mode):
            problems.append("state.json is not a regular file")
            return None, st.st_mtime
        if st.st_size > MAX_JSON:
            problems.append(f"state.json is larger than {MAX_JSON // (1024 * 1024)} MiB: not read")
            return None, st.st_mtime
        try:
            with open(f, "rb") as fh:
                data = fh.read(MAX_JSON + 1)
        except OSError as exc:
            problems.append(f"state.json cannot be read: {exc.strerror or exc}")
            return None, st.st_mtime
        data = data.removeprefix(b"\xef\xbb\xbf")  # a BOM from a Windows editor
        if not data.strip():
            problems.append("state.json is empty")
            return None, st.st_mtime
        try:
            raw = msgspec.json.decode(data)
        except UnicodeDecodeError:
            problems.append("state.json is not valid UTF-8: undecodable bytes replaced")
            try:
                raw = msgspec.json.decode(data.decode("utf-8", "replace").encode())
            except (msgspec.DecodeError, RecursionError, ValueError) as exc:
                problems.append(f"state.json is not valid JSON: {exc}")
                return None, st.st_mtime
        except RecursionError:
            problems.append("state.json is nested too deeply to read")
            return None, st.st_mtime
        except (msgspec.DecodeError, ValueError) as exc:
            problems.append(f"state.json is not valid JSON: {exc}")
            return None, st.st_mtime
        if not isinstance(raw, dict):
            problems.append(f"state.json is not a JSON object ({type(raw).__name__})")
            return None, st.st_mtime
        try:
            return C.undot(raw), st.st_mtime
        except RecursionError:  # pragma: no cover - undot stops at MAX_DEPTH
            problems.append("state.json is nested too deeply to read")
            return None, st.st_mtime

    def _real_root(self) -> str:
        try:
            return os.path.realpath(self.root)
        except (OSError, ValueError):
            return os.path.abspath(self.root)

    def _doc(self, session: Path, name: str, from_root: bool) -> str | None:
        """`name` (relative to the session dir, or to the project root when `from_root`) as a
        path relative to the session dir, when it is a file inside the project root."""
        if not name or "\x00" in name:
            return None
        base = self.root if from_root or os.path.isabs(name) else session
        try:
            full = os.path.normpath(os.path.join(base, name))
            real = os.path.realpath(full)
            if not _inside(real, self._top) or not os.path.isfile(real):
                return None
            return os.path.relpath(full, session)
        except (OSError, ValueError):
            return None

    def _markdown(self, session: Path) -> list[str]:
        found: list[str] = []
        stack: list[tuple[str, int]] = [(str(session), 0)]
        while stack and len(found) < MAX_DOCS:
            d, depth = stack.pop()
            try:
                with os.scandir(d) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            for e in entries:
                try:
                    if e.name.startswith("."):
                        continue
                    if e.is_file() and e.name.lower().endswith(".md"):
                        found.append(os.path.relpath(e.path, session))
                    elif depth < DOC_DEPTH and e.is_dir(follow_symlinks=False):
                        stack.append((e.path, depth + 1))
                except OSError:
                    continue
        return sorted(unsurrogate(p) for p in found[:MAX_DOCS])

    # -- what -------------------------------------------------------------------------------

    def derive(self, key: str, path: Path, now: datetime) -> SessionView:
        problems: list[str] = []
        self._stallable.discard(str(path))
        try:
            return self._derive(key, path, now, problems)
        except Exception as exc:  # never lose the session: show what went wrong on it
            problems.append(f"could not derive this session: {type(exc).__name__}: {exc}")
            return self._blank(key, path, problems)

    def _blank(self, key: str, path: Path, problems: list[str]) -> SessionView:
        return SessionView(
            id=key, branch=None, source=STATE, status="active", workflow="code",
            phase="unknown", phase_label="Unknown", phase_number=None, phase_total=len(C.PHASES),
            complete=False, started_at=None, updated_at=None, last_activity=None, stalled=False,
            elapsed=Elapsed(since=None, seconds=None, running=False), current_round=None,
            rounds=[], current_map_run=None, map_runs=[], problems=problems, path=str(path),
            framework=self.framework, title=None,
        )  # fmt: skip

    def _derive(self, key: str, path: Path, now: datetime, problems: list[str]) -> SessionView:
        self._top = self._real_root()
        raw, mtime = self._read_state(path, problems)
        state = raw or {}
        top = C.lenient(state, C.CodeState, "", problems) if raw else C.CodeState()
        phases = C.read_phases(state.get("phases"), problems) if raw is not None else None
        decisions = C.read_decisions(state, problems)
        spec = C.read_spec(state.get("spec"), problems)
        day, slug = C.id_date(key)
        if day is None and top.id:
            day, slug = C.id_date(top.id)

        # --- times ---
        created = C.ts(top.created_at, "created_at", problems)
        updated = C.ts(top.updated_at, "updated_at", problems)
        stamps = [t for p in phases or () for t in (p.started, p.completed) if t is not None]
        started = created or min(stamps, default=None) or day
        if started is None and mtime is not None:
            started = from_mtime(mtime)
        last = max([t for t in (updated, *stamps) if t is not None], default=None)
        if last is None and mtime is not None:
            last = from_mtime(mtime)

        # --- position ---
        facts: list[Fact] = []
        alerts: list[str] = []
        badges: list[str] = []
        mode = C.mode_of(top.workflow)
        auto = bool(top.auto_mode)
        if mode:
            badges.append(mode)
        if auto:
            badges.append("auto")
        if phases is None:
            view = self._blank(key, path, problems)
            view.title = top.task or (slug.replace("-", " ") if slug else None)
            view.badges = badges
            view.started_at = fmt_ts(started)
            view.updated_at = view.last_activity = fmt_ts(last)
            view.documents = self._markdown(path)
            return view
        done = sum(p.done for p in phases)
        complete = done == len(phases)
        running_phases = [p for p in phases if p.status == "in_progress" and not p.skipped]
        pending = [p for p in phases if not p.done and p.status == "pending"]
        current = (running_phases or pending or [None])[0]
        status = "closed" if complete else "active"

        # --- timeline and documents ---
        documents: list[str] = []
        if spec is not None:
            facts.append(self._spec_fact(path, spec, documents))
        timeline: list[PhaseStep] = []
        for p in phases:
            doc = None
            if p.report:
                doc = self._doc(path, p.report, False) or self._doc(path, p.report, True)
                if doc is None:
                    problems.append(
                        f"{p.label.lower()} report {C._q(p.report)} not found in the project"
                    )
                elif doc not in documents:
                    documents.append(doc)
            if p.skipped:
                state_word = "skipped"
            elif p.done:
                state_word = "done"
            elif p is current or p.status == "in_progress":
                state_word = "current"
            else:
                state_word = "pending"
            end = p.completed if p.done else (now if p.status == "in_progress" else None)
            timeline.append(PhaseStep(
                key=p.key, label=p.label, number=p.number, state=state_word,
                at=fmt_ts(p.started), ended=fmt_ts(p.completed), seconds=_secs(p.started, end),
                document=doc,
            ))  # fmt: skip
            if p.status == "failed":
                alerts.append(f"{p.label} ended as {C._q(p.raw_status, 30)}")
        for doc in self._markdown(path):
            if doc not in documents:
                documents.append(doc)

        # --- agents ---
        steps = []
        by_key = {p.key: p for p in phases}
        for phase, agents in decisions.items():
            p = by_key.get(phase)
            name = p.label if p else phase
            facts.append(Fact(label=f"{name.lower()} agents", value=agents.summary))
            steps.extend(C.agent_steps(agents, p, timeline))
        summary = None
        if decisions:
            chosen = decisions.get(current.key) if current is not None and not complete else None
            if chosen is None:  # the latest phase (in phase order) that has a decision
                chosen = list(decisions.values())[-1]
            summary = chosen.summary

        # --- alerts ---
        skipped = sum(p.skipped for p in phases)
        progress = f"{done}/{len(phases)}" + (f" ({skipped} skipped)" if skipped else "")
        facts.insert(
            0, Fact(label="progress", value=progress, tone="good" if complete else "neutral")
        )
        kind = {"full": "full (/code)", "fast": "fast (/code:fast)"}.get(mode or "", mode or "—")
        facts.insert(1, Fact(label="mode", value=kind + (", auto" if auto else "")))
        if day is not None:
            facts.insert(
                2,
                Fact(label="date", value=day.strftime("%Y-%m-%d") + (f" · {slug}" if slug else "")),
            )
        stalled = waiting = False
        if running_phases and not complete:
            self._stallable.add(str(path))
        else:
            self._stallable.discard(str(path))
        idle = _secs(last, now)
        if not complete and running_phases and idle is not None and idle > self.stall_after:
            stalled = True
            names = ", ".join(p.label for p in running_phases)
            alerts.insert(0, f"stalled? {names} in progress, no update for {human_duration(idle)}")
        if not complete and not running_phases and done and pending and not auto:
            waiting = True
            facts.append(
                Fact(
                    label="next",
                    value=f"{pending[0].label}: waiting for your go-ahead",
                    tone="warn",
                )
            )
        if stalled:
            facts.append(
                Fact(label="stalled?", value=f"no update for {human_duration(idle)}", tone="warn")
            )

        # --- elapsed ---
        if complete:
            end = updated or max((p.completed for p in phases if p.completed), default=None)
            elapsed = Elapsed(since=fmt_ts(started), seconds=_secs(started, end), running=False)
        else:
            elapsed = Elapsed(since=fmt_ts(started), seconds=_secs(started, now), running=True)

        if complete:
            phase_key, phase_label = "complete", "Complete"
        else:
            assert current is not None  # not complete: some phase is neither done nor skipped
            phase_key, phase_label = current.key, current.label
        return SessionView(
            id=key, branch=None, source=STATE, status=status,
            workflow="code:fast" if mode == "fast" else "code",
            phase=phase_key, phase_label=phase_label, phase_number=done,
            phase_total=len(phases), complete=complete, started_at=fmt_ts(started),
            updated_at=fmt_ts(updated or last), last_activity=fmt_ts(last), stalled=stalled,
            elapsed=elapsed, current_round=None, rounds=[], current_map_run=None, map_runs=[],
            problems=problems, path=str(path), timeline=timeline, documents=documents,
            framework=self.framework,
            title=top.task or (slug.replace("-", " ") if slug else None),
            badges=badges, summary=summary, waiting=waiting, alerts=alerts, facts=facts,
            steps=steps,
        )  # fmt: skip

    def _spec_fact(self, path: Path, spec: C.SpecRef, documents: list[str]) -> Fact:
        doc = self._doc(path, spec.path, True) if spec.path else None
        parts = [spec.id or os.path.splitext(os.path.basename(spec.path or ""))[0] or "spec"]
        if spec.status:
            parts.append(f"({spec.status})")
        if spec.path:
            parts.append(f"— {spec.path}" + ("" if doc else " (not found)"))
        if doc:
            documents.append(doc)
        tone = "good" if spec.status == "done" else ("neutral" if doc or not spec.path else "warn")
        return Fact(label="spec", value=" ".join(parts), tone=tone)
