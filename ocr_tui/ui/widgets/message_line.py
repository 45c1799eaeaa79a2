"""The message line: on a small terminal, one reserved line above the footer where the app's
notifications are said, instead of toasts over the content (at 80x24 two
stacked toasts hid most of the findings table and sat over the `?` help).

What it says (`chosen`): a reply to the user's own key first (a key that does nothing here, a
file that does not exist) for as long as it lasts, never replaced by the sessions' news; else
the newest news (a phase changed, a round completed), led by how many more there are. The texts
are made safe here too (control characters shown, one line); a reply may take up to three
lines, news one. The app (`ocr_tui.ui.message_board`) decides which notifications are news.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from textual.content import Content
from textual.geometry import Size
from textual.notifications import Notification
from textual.widgets import Static

from ocr_tui.core.textsafe import safe_line

SMALL_WIDTH = 120  # below this many columns, or
SMALL_HEIGHT = 32  # this many lines, nothing covers the content: the line says it
SEVERITY_STYLE = {"error": "bold $text-error", "warning": "$text-warning", "information": ""}


def is_small(size: Size) -> bool:
    return size.width < SMALL_WIDTH or size.height < SMALL_HEIGHT


def chosen(notes: Sequence[Notification], news: Collection[str]) -> tuple[Notification | None, int]:
    """The notification the line says (None: none) and how many others are up: the newest
    reply to a key while one is up, else the newest news (`news`: their identities)."""
    replies = [n for n in notes if n.identity not in news and not n.has_expired]
    said = [n for n in notes if n.identity in news and not n.has_expired]
    if replies:
        return replies[-1], len(said)
    if said:
        return said[-1], len(said) - 1
    return None, 0


def line_content(note: Notification, more: int) -> Content:
    """`Title: message` in the severity's colour, its lines joined; led by `+2 ` when two
    more are up (the end of a long line may be cut, never the count)."""
    text = " · ".join(safe_line(part) for part in str(note.message).splitlines() if part.strip())
    style = SEVERITY_STYLE.get(note.severity, "")
    parts: list[tuple[str, str] | str] = []
    if more:
        parts.append((f"+{more} ", "$text-muted"))
    if note.title:
        parts.append((f"{safe_line(note.title)}: ", f"bold {style}".strip()))
    parts.append((text, style))
    return Content.assemble(*parts)


class MessageLine(Static):
    """The line itself: docked at the bottom, above the footer (a modal's over its screen's);
    shown on a small terminal only (`-shown`), blank while there is nothing to say."""

    DEFAULT_CSS = """
    MessageLine {
        dock: bottom;
        display: none;
        height: 1;
        margin-bottom: 1;
        padding: 0 1;
        background: $panel;
        color: $foreground;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &.-shown { display: block; }
        &.-reply { height: auto; max-height: 3; text-wrap: wrap; }
    }
    """

    def __init__(self, *, classes: str | None = None) -> None:
        super().__init__("", classes=classes, markup=False)
        self._said: tuple | None = None

    def say(self, shown: bool, note: Notification | None, more: int, reply: bool) -> None:
        said = (shown, note.identity if note else None, more, reply)
        if said == self._said:
            return
        self._said = said
        self.set_class(shown, "-shown")
        self.set_class(reply, "-reply")
        self.update(line_content(note, more) if note is not None else "")

    @property
    def text(self) -> str:
        """What it says (tests)."""
        return str(self.render()) if self.has_class("-shown") else ""
