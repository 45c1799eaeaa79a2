"""NotesList: the session's notes (`user_notes`), one line each, to change or delete one:
Enter opens it in the note pane (`NoteEditor`), `d` deletes it, Esc closes. Dismissed with
("edit", note) or ("delete", note), or None."""

from __future__ import annotations

from datetime import datetime

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ocr_tui.core.cells import clip_end
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import Note
from ocr_tui.ui import fmt
from ocr_tui.ui.widgets.notes_pane import note_place


class NotesList(ModalScreen[tuple[str, Note] | None]):
    """`NotesList(title, notes, now)`: the notes that have an id (ocr.db's)."""

    DEFAULT_CSS = """
    NotesList { align: center middle; }
    NotesList > #notes-box { width: 80%; max-width: 110; height: auto; max-height: 80%;
        border: round $accent; padding: 0 1; background: $surface; }
    NotesList OptionList, NotesList OptionList:focus { height: auto; max-height: 20;
        border: none; padding: 0; background: $surface; }
    """
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("d", "delete", "Delete note"),
    ]

    def __init__(self, title: str, notes: list[Note], now: datetime) -> None:
        super().__init__()
        self.title_text = safe_line(title)
        self.notes = [n for n in notes if n.id is not None]
        self.now = now

    def compose(self) -> ComposeResult:
        with Vertical(id="notes-box") as box:
            box.border_title = self.title_text
            box.border_subtitle = "Enter changes · d deletes · Esc closes"
            items = []
            for i, n in enumerate(self.notes):
                head = " · ".join(t for t in (note_place(n), fmt.when(n.at, self.now)) if t)
                first = safe_line(n.text.strip().split("\n")[0])
                items.append(Option(Content.assemble((head, "dim"), "  ", clip_end(first, 70)),
                                    id=str(i)))  # fmt: skip
            yield OptionList(*items, id="notes-options")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def _at_cursor(self) -> Note | None:
        listing = self.query_one(OptionList)
        i = listing.highlighted
        return self.notes[i] if i is not None and 0 <= i < len(self.notes) else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        note = self._at_cursor()
        if note is not None:
            self.dismiss(("edit", note))

    def action_delete(self) -> None:
        note = self._at_cursor()
        if note is not None:
            self.dismiss(("delete", note))

    def action_close(self) -> None:
        self.dismiss(None)
