"""The session screen's actions that open another screen (a map run, the event log, the
current round, the latest findings): a mixin of `SessionScreen` (`self` is the screen), whose
message handlers stay on it; and why there is no round to open (`no_round`)."""

from __future__ import annotations

from textual.binding import Binding

from ocr_tui.core.view import SessionView
from ocr_tui.ui.navigation import (
    RUN_FILE,
    EventsTarget,
    FindingsTarget,
    MapRunTarget,
    Open,
    RoundTarget,
)
from ocr_tui.ui.screens.base.nothing_to_open import events_reason, no_round_reason
from ocr_tui.ui.widgets.fit_table import FitTable

# The keys (the actions below, and `r`: the Reviews view, the drill-down screens').
KEYS = [
    Binding("c", "current_round", "Current round", id="session.current_round"),
    Binding("F", "latest_findings", "Findings", id="session.findings"),
    Binding(
        "m",
        "map_run",
        "Map run",
        id="session.map_run",
        tooltip="The map run under the cursor (else the latest): its sections, files and "
        "what is reviewed",
    ),  # fmt: skip
    Binding(
        "l",
        "event_log",
        "Event log",
        id="session.events",
        tooltip="What OCR recorded as the session ran: phases, rounds, closing (ocr.db)",
    ),  # fmt: skip
    Binding(
        "r",
        "reviews",
        "Reviews",
        id="session.reviews",
        tooltip="Every round of every OCR session, at this session's latest",
    ),
    Binding(
        "t",
        "mark_round",
        "Triage round",
        id="session.triage",
        tooltip="The triage of the round under the cursor (else the latest) in ocr.db: needs "
        "review, in progress, changes made, acknowledged, dismissed, or clear (x)",
    ),  # fmt: skip
    Binding("n", "note_session", "Note", id="session.note", tooltip="A note on the session"),
    Binding(
        "N",
        "edit_notes",
        "Notes…",
        id="session.notes",
        show=False,
        tooltip="The session's notes: change one (Enter) or delete it (d)",
    ),  # fmt: skip
    Binding("u", "undo_mark", "Undo mark", id="session.undo", show=False),
]


class SessionActions:
    """`action_*` of the session screen's keys that open another screen."""

    def _open_run(self, rel: str | None) -> None:
        """The map run screen of the run `rel` names (its directory or one of its files),
        else of the latest run."""
        runs = self.view.map_runs if self.view else []
        if not runs:
            self.notify("This session has no map run.", severity="warning", markup=False)
            return
        m = RUN_FILE.match(rel or "")
        path = m.group(1) if m else rel
        run = next((r for r in runs if r.path == path), runs[-1])
        self.post_message(Open(MapRunTarget(self.session_id, run.number, run.path)))

    def action_map_run(self) -> None:
        table = self.query_one("#runs", FitTable)
        self._open_run(table.cursor_key if table.display else None)

    def action_event_log(self) -> None:
        view = self.view
        if view is None or not view.events:
            self.notify(events_reason(view), severity="warning", markup=False)
            return
        self.post_message(Open(EventsTarget(self.session_id)))

    def action_current_round(self) -> None:
        view = self.view
        if view is None or view.current is None:
            self.notify(no_round(view), severity="warning", markup=False)
            return
        current = view.current
        self.post_message(Open(RoundTarget(self.session_id, current.number, current.path)))

    def action_latest_findings(self) -> None:
        view = self.view
        if view is None or not view.rounds:
            self.notify(no_round(view), severity="warning", markup=False)
            return
        latest = view.rounds[-1]
        self.post_message(Open(FindingsTarget(self.session_id, latest.number, latest.path)))


def no_round(view: SessionView | None) -> str:
    return no_round_reason(
        view, "c and F", "This session is not read yet: it has no review round to open."
    )
