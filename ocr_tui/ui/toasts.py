"""Change toasts: what a batch of changed sessions means to a person watching (a new session, a
round complete, a new phase), shown as a few toasts at most."""

from __future__ import annotations

import time

from textual.app import App

from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt

MAX_NEW_SESSION_TOASTS = 3
MAX_TOASTS = 4  # change toasts on screen at once
TOAST_SECONDS = 5.0

Event = tuple[str, str]  # (kind: "new" | "round" | "phase", text)


def transitions(old: SessionView | None, view: SessionView) -> list[Event]:
    """What changing `old` (None: not known before) into `view` means to a person watching."""
    sid = fmt.safe(view.id, 60)
    if old is None:
        return [("new", sid)]
    if old.source == "loading":  # start-up: the stand-in was replaced by the real view
        return []
    out = []
    completed = []
    for rnd in view.rounds:
        before = old.round(rnd.number, rnd.path)  # by directory: round-01 is not round-1
        if rnd.complete and (before is None or not before.complete):
            completed.append(rnd)
    for rnd in completed:
        verdict = fmt.safe(rnd.verdict, 40) if rnd.verdict else "no verdict"
        label = fmt.round_label(view, rnd).lower()  # `round 1 (round-01)` for a twin
        out.append(("round", f"{sid}: {label} complete · {verdict}"))
    if old.phase != view.phase and not (completed and view.complete):
        out.append(("phase", f"{sid}: {old.phase_label} → {view.phase_label}"))
    return out


class ChangeToasts:
    """Announces events as toasts on `app` (and rings its bell if `bell`), at most
    MAX_TOASTS on screen: the table shows every change anyway, and a toast stack taller
    than the screen leaves stale cells behind (Textual 8.2.8)."""

    def __init__(self, app: App, *, bell: bool = False) -> None:
        self.app = app
        self.bell = bell
        self._shown: list[float] = []  # when the toasts on screen were shown

    def announce(self, events: list[Event]) -> None:
        if not events:
            return
        new = [text for kind, text in events if kind == "new"]
        if len(new) > MAX_NEW_SESSION_TOASTS:
            self._toast(f"{len(new)} new sessions", "New sessions")
        else:
            for sid in new:
                self._toast(sid, "New session")
        titles = {"round": "Round complete", "phase": "Phase"}
        for kind, text in events:
            if kind in titles:
                self._toast(text, titles[kind])
        if self.bell:
            self.app.bell()

    def _toast(self, text: str, title: str) -> None:
        now = time.monotonic()
        self._shown = [t for t in self._shown if now - t < TOAST_SECONDS]
        if len(self._shown) >= MAX_TOASTS:
            return
        self._shown.append(now)
        self.app.notify(text, title=title, timeout=TOAST_SECONDS, markup=False)
