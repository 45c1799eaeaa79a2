"""Calling a source, guarded: a plugin's bug never takes the others down, and a session whose
reader raised is still listed (with the error as its problem). Also the stand-in shown for a
session while it waits to be read.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from ocr_tui.core.display import session_seconds
from ocr_tui.core.lenient import blank_view
from ocr_tui.core.source import Source
from ocr_tui.core.timeutil import fmt_ts
from ocr_tui.core.view import SessionView

Report = Callable[[Source, Exception], None]  # a source's reader failed: tell the user


def list_sessions(src: Source, report: Report) -> dict[str, Path]:
    """`src.list_sessions()`, or none (reported) if it raised."""
    try:
        return src.list_sessions()
    except Exception as exc:  # a plugin's bug must not take the others down
        report(src, exc)
        return {}


def derive_view(
    src: Source, vid: str, key: str, path: Path, now: datetime
) -> tuple[SessionView, datetime | None]:
    """The view of one session, shown as `vid`, and when passing time alone will change it
    (None: never, or a time already past, which would re-derive it on every tick)."""
    view, _ = derive_raw(src, key, path, now)
    return finish_view(src, vid, view, now)


def derive_raw(src: Source, key: str, path: Path, now: datetime) -> tuple[SessionView, bool]:
    """`src.derive`, guarded: (the view, True), or (a view with the error as its problem,
    False) when the reader raised. Not yet finished (`finish_view`)."""
    try:
        return src.derive(key, path, now), True
    except Exception as exc:  # never lose a session from view, even to a reader's bug
        return _broken_view(src, key, path, exc), False


def finish_view(
    src: Source, vid: str, view: SessionView, now: datetime
) -> tuple[SessionView, datetime | None]:
    """A derived (or cached) view shown as `vid`, its whole-session time counted to `now`, and
    when passing time alone will change it (see `derive_view`)."""
    view.id = vid
    if view.framework != src.framework:
        view.framework = src.framework
    view.session_seconds = session_seconds(view, now)
    exp = None
    try:
        exp = src.expires(view)
    except Exception:
        pass
    if exp is None or exp <= now:
        return view, None
    return view, exp


def mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def placeholder_view(src: Source, key: str, path: Path) -> SessionView:
    """A stand-in while a session waits to be read at start-up (`source == "loading"`)."""
    at_mtime = mtime(path)
    at = fmt_ts(datetime.fromtimestamp(at_mtime, UTC)) if at_mtime is not None else None
    view = _bare_view(src, key, path, phase="loading", label="reading…")
    view.source = "loading"
    view.status = "closed"
    view.last_activity = at
    return view


def _broken_view(src: Source, key: str, path: Path, exc: Exception) -> SessionView:
    """A session whose reader raised: still listed, with the error as its problem."""
    view = _bare_view(src, key, path, phase="unknown", label="unknown")
    view.problems = [f"the {src.label} reader failed on this session: {type(exc).__name__}: {exc}"]
    return view


def _bare_view(src: Source, key: str, path: Path, *, phase: str, label: str) -> SessionView:
    view = blank_view(key, path, src.framework, src.framework, source=src.framework, problems=[])
    view.phase, view.phase_label = phase, label
    return view
