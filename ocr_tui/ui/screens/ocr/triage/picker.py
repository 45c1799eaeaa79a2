"""StatePicker: the small dialog `m` opens on a finding (or several) or a round: the states
OCR's store allows, each on its own key, and `x` to clear the mark. Dismissed with the state
picked, CLEAR, or None (Esc: nothing changes)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ocr_tui.core.textsafe import safe_line

CLEAR = ""  # the picker's answer for "no mark"

FINDING_WORDS = {
    "unread": ("u", "unread"),
    "read": ("r", "read"),
    "acknowledged": ("a", "acknowledged"),
    "fixed": ("f", "fixed"),
    "wont_fix": ("w", "won't fix"),
}
ROUND_WORDS = {
    "needs_review": ("n", "needs review"),
    "in_progress": ("i", "in progress"),
    "changes_made": ("c", "changes made"),
    "acknowledged": ("a", "acknowledged"),
    "dismissed": ("d", "dismissed"),
}


def choices(
    states: tuple[str, ...], words: dict[str, tuple[str, str]]
) -> list[tuple[str, str, str]]:
    """(key, state, label) for each state the store allows (one it names that ocr-tui has no
    word for: its first free letter), and `x` clear."""
    out, taken = [], {"x"}
    for state in states:
        key, label = words.get(state, ("", state.replace("_", " ")))
        if not key or key in taken:
            key = next((c for c in state if c.isalpha() and c not in taken), "")
        taken.add(key)
        out.append((key, state, label))
    out.append(("x", CLEAR, "clear the mark"))
    return out


class StatePicker(ModalScreen[str | None]):
    """`StatePicker(title, choices, current)`."""

    DEFAULT_CSS = """
    StatePicker { align: center middle; }
    StatePicker > #picker { width: auto; min-width: 34; max-width: 60; height: auto;
        border: round $accent; padding: 0 1; background: $surface; }
    StatePicker OptionList, StatePicker OptionList:focus { height: auto; max-height: 12;
        border: none; padding: 0; background: $surface; }
    """
    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, title: str, options: list[tuple[str, str, str]], current: str | None):
        super().__init__()
        self.title_text = safe_line(title)
        self.options = options
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="picker") as box:
            box.border_title = self.title_text
            box.border_subtitle = "key or Enter · Esc cancels"
            items = []
            for key, state, label in self.options:
                now = "  (now)" if state == (self.current or CLEAR) and state else ""
                items.append(Option(Content.assemble((f"{key} ", "bold"), label, (now, "dim")),
                                    id=state or "clear"))  # fmt: skip
            yield OptionList(*items, id="picker-options")

    def on_mount(self) -> None:
        listing = self.query_one(OptionList)
        ids = [s or "clear" for _, s, _ in self.options]
        want = self.current if self.current in ids else None
        listing.highlighted = ids.index(want) if want else 0
        listing.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        picked = event.option.id
        self.dismiss(CLEAR if picked == "clear" else picked)

    def on_key(self, event) -> None:
        for key, state, _ in self.options:
            if event.key == key:
                event.stop()
                self.dismiss(state)
                return

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
