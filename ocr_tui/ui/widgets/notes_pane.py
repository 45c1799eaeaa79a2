"""NotesPane: the notes the user wrote in OCR's dashboard (`user_notes`),
read-only, where their target is: the session screen shows the session's own notes and those
on its map runs, sections and files (which have no screen of their own but the map run's)
with what each is on; the round screen shows the notes on that round and its findings.

Each note: a muted line saying what it is on and when it was written (`round 2 · 14:02 (2h
ago)`), then its text, its line breaks kept, wrapped at words, control characters shown as
symbols (`safe_block`). The pane hides itself when there is no note.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from ocr_tui.core.textsafe import safe_block, safe_line
from ocr_tui.core.view import Note
from ocr_tui.ui import fmt
from ocr_tui.ui.widgets.static_update import set_border_title, update_static

NOTE_LINES = 12  # a longer note is cut here, with how many lines are left


def note_place(note: Note) -> str:
    """What a note is on, in words: `session`, `round 2`, `a finding of round 2`, `map run 1 ·
    section 3`, `file src/app.py (map run 1)`."""
    run = f"map run {note.run}" if note.run is not None else "a map run"
    match note.target:
        case "session":
            return "session"
        case "round":
            return f"round {note.round}" if note.round is not None else "a round"
        case "finding":
            return f"a finding of round {note.round}" if note.round is not None else "a finding"
        case "run":
            return run
        case "section":
            return f"{run} · section {note.section}" if note.section is not None else run
        case "file":
            return f"file {safe_line(note.key or '?')} ({run})"
    return fmt.words(note.target)


def note_content(note: Note, now: datetime) -> Content:
    head = " · ".join(t for t in (note_place(note), fmt.when(note.at, now)) if t)
    lines = safe_block(note.text).strip("\n").split("\n")
    if len(lines) > NOTE_LINES:
        lines = [*lines[: NOTE_LINES - 1], f"… {len(lines) - NOTE_LINES + 1} more lines"]
    parts = [Content.styled(head, "$text-muted")]
    parts += [Content(line) for line in lines]
    return Content("\n").join(parts)


def notes_content(notes: Sequence[Note], now: datetime) -> Content:
    """The notes, oldest first, a blank line between two."""
    return Content("\n\n").join(note_content(n, now) for n in notes)


class NotesPane(Vertical):
    """`show(notes, now)`: hidden without notes."""

    DEFAULT_CSS = """
    NotesPane > Static {
        height: auto;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str = "") -> None:
        super().__init__(id=id, classes=classes)
        self._shown: str | None = None

    def compose(self):
        yield Static(id=f"{self.id or 'notes'}-text")

    def on_mount(self) -> None:
        self.display = False

    def show(self, notes: Sequence[Note], now: datetime) -> None:
        """Also every second on the session screen: a note's `(5m ago)` moves on; the pane is
        repainted only when its text changed."""
        self.display = bool(notes)
        set_border_title(self, f"Notes · {len(notes)}" if notes else "Notes")
        content = notes_content(notes, now) if notes else Content("")
        if content.plain != self._shown:
            self._shown = content.plain
            update_static(self.query_one(Static), content)
