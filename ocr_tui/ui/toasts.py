"""Change toasts: what a batch of changed sessions means to a person watching (a new session, a
round complete, a new phase, a session stalled or finished), as a few toasts at most (news, on a
small terminal said on the message line instead: `ui.message_board`). The same
events, in the same words, are the `--notify` bell or desktop notifications (`ocr_tui.ui.notify`).

- A change to the session on screen (the one whose screen is open, or the list's highlighted
  row, whose detail pane shows it) raises no toast: the screen shows it.
- One toast per session: a new change of a session whose toast is still up replaces it (the
  newest word on that session), so quick phase changes never stack.
- At most MAX_SESSION_TOASTS sessions' toasts at once; changes of more sessions than that
  in a short while collect in one "N more sessions changed" toast, itself replaced.
- Many new sessions at once (a branch checked out, a project copied in) are one toast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.app import App, ScreenStackError
from textual.css.query import NoMatches
from textual.notifications import Notification

from ocr_tui.core import rounds
from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui import textual_compat as tc

MAX_NEW_SESSION_TOASTS = 3
MAX_SESSION_TOASTS = 3  # sessions with a toast of their own on screen at once
TOAST_SECONDS = 5.0
MORE = "\0more"  # the key of the "N more sessions changed" toast
TITLES = {
    "new": "New session",
    "round": "Round complete",
    "phase": "Phase",
    "stalled": "Session stalled",
    "finished": "Session finished",
}


@dataclass(frozen=True)
class Event:
    kind: str  # "new" | "round" | "phase" | "stalled" | "finished"
    session: str  # the session's id
    text: str  # terminal-safe


def transitions(old: SessionView | None, view: SessionView) -> list[Event]:
    """What changing `old` (None: not known before) into `view` means to a person watching."""
    sid = fmt.safe(view.id, 60)
    if old is None:
        return [Event("new", view.id, sid)]
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
        blockers = rounds.blockers_words(rnd)
        out.append(Event("round", view.id, f"{sid}: {label} complete · {verdict} · {blockers}"))
    phase = fmt.safe(view.phase_label, 40)
    if old.running and not view.running:  # it stopped: that says more than its last phase
        text = f"{sid}: finished" if view.complete else f"{sid}: closed in {phase}"
        out.append(Event("finished", view.id, text))
    elif old.phase != view.phase and not (completed and view.complete):
        before = fmt.safe(old.phase_label, 40)
        out.append(Event("phase", view.id, f"{sid}: {before} → {phase}"))
    if view.stalled and not old.stalled and view.running:
        out.append(Event("stalled", view.id, f"{sid}: stalled in {phase}"))
    return out


class ChangeToasts:
    """Announces events as toasts on `app`. `in_view()` names the session on screen, if any.
    (The bell and desktop notifications: `ocr_tui.ui.notify`, by the same rules.)"""

    def __init__(self, app: App, *, in_view: Callable[[], str | None] = lambda: None) -> None:
        self.app = app
        self.in_view = in_view
        self._up: dict[str, Notification] = {}  # by session (or MORE): the toast on screen
        self._more: set[str] = set()  # the sessions counted in the MORE toast

    def announce(self, events: list[Event]) -> None:
        if not events:
            return
        viewed = self.in_view()
        events = [e for e in events if e.session != viewed]
        new = [e for e in events if e.kind == "new"]
        if len(new) > MAX_NEW_SESSION_TOASTS:
            events = [e for e in events if e.kind != "new"]
            self._show("\0new", f"{len(new)} new sessions", "New sessions")
        by_session: dict[str, list[Event]] = {}
        for e in events:
            by_session.setdefault(e.session, []).append(e)
        for sid, mine in by_session.items():
            text = "\n".join(e.text for e in mine)
            self._toast(sid, text, TITLES[mine[-1].kind])

    def _toast(self, sid: str, text: str, title: str) -> None:
        self._reap()
        own = [k for k in self._up if not k.startswith("\0")]
        if sid in self._up or len(own) < MAX_SESSION_TOASTS:
            self._show(sid, text, title)
            return
        self._more.add(sid)
        n = len(self._more)
        self._show(MORE, f"{n} more session{'s' if n > 1 else ''} changed", "Sessions")

    def _reap(self) -> None:
        for key, n in list(self._up.items()):
            if n.has_expired:
                del self._up[key]
                if key == MORE:
                    self._more.clear()

    def _show(self, key: str, text: str, title: str) -> None:
        """Show `text` as the toast of `key`, in place of the one it has on screen, if any."""
        note = Notification(text, title, "information", TOAST_SECONDS, markup=False)
        self.post(note, self._up.get(key))
        self._up[key] = note

    def post(self, note: Notification, replaces: Notification | None = None) -> None:
        """Show `note` (in place of `replaces`). Textual has no public call to take one toast
        down (a click on a toast does it privately), and `App.notify` posts a message, so a
        replacement made before it is handled would miss: the collection is changed here, at
        once, on the UI thread. Textual is pinned; tests/ui/test_toasts.py checks the toasts
        it shows."""
        notes = tc.notifications(self.app)
        if replaces is not None and tc.retoast(self.app, replaces, note):
            del notes[replaces]  # shown in its toast, under its identity (news already)
            notes.add(note)
            return
        mark_news = getattr(self.app, "mark_news", None)
        if mark_news is not None:  # news, not a reply to a key (`ui.message_board`)
            mark_news(note)
        if replaces is not None:
            del notes[replaces]
            self._take_down(replaces)
        notes.add(note)
        tc.refresh_notifications(self.app)

    def _take_down(self, note: Notification) -> None:
        """Unmount `note`'s toast with the ToastHolder around it. Textual's `ToastRack.show`
        removes a toast whose notification is gone, but not its holder: every replaced toast
        left an empty holder mounted for good (a live widget, its styles, caches and message
        queue: ~2 MB of RSS a minute beside the simulator at 20x). A toast not
        mounted yet (replaced before the rack was shown) has no holder: nothing to do."""
        try:
            rack = self.app.screen.get_child_by_type(tc.ToastRack)
            holder = rack.get_child_by_id(tc.toast_id(note))
        except (NoMatches, ScreenStackError):
            return
        holder.remove()
