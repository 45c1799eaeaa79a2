"""NoteEditor: the small pane `n` opens to write a note (OCR's `user_notes`) on a session,
round or finding, or to change one: a text area, Ctrl+S saves, Esc cancels, Ctrl+E hands the
text to `$VISUAL`/`$EDITOR` for a long one. Dismissed with the text, or None."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import TextArea

from ocr_tui.core.textsafe import safe_line


class NoteEditor(ModalScreen[str | None]):
    """`NoteEditor(title, text="")`."""

    DEFAULT_CSS = """
    NoteEditor { align: center middle; }
    NoteEditor > #note-box { width: 80%; max-width: 100; height: 14; border: round $accent;
        background: $surface; padding: 0 1; }
    NoteEditor TextArea, NoteEditor TextArea:focus { height: 1fr; border: none; padding: 0; }
    """
    BINDINGS = [
        Binding("ctrl+s", "save", "Save note", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
        Binding("ctrl+e", "external", "In $EDITOR", priority=True),
    ]

    def __init__(self, title: str, text: str = "") -> None:
        super().__init__()
        self.title_text = safe_line(title)
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box") as box:
            box.border_title = self.title_text
            box.border_subtitle = "Ctrl+S saves · Esc cancels · Ctrl+E in $EDITOR"
            yield TextArea(self.text, id="note-text", soft_wrap=True, show_line_numbers=False)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        text = self.query_one(TextArea).text
        self.dismiss(text if text.strip() else None)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_external(self) -> None:
        """The text in the user's editor (the terminal handed over, as `e` does); what it
        saves comes back into the pane."""
        from ocr_tui.ui.screens.ocr.triage.external import edit_text

        area = self.query_one(TextArea)
        got = edit_text(self.app, area.text)
        if got is not None:
            area.text = got
        area.focus()
