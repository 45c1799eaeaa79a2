"""KeyFooter: a Footer that fits its width (keys that mean what they say).

Textual's Footer lays out every shown binding in one row and cuts the row where the terminal
ends: at 80 columns the last keys, the app's `? Help` among them, were gone. KeyFooter shows
the keys that fit, in their usual order, and leaves out the least important first:

- `?` Help and `q` Quit are always shown;
- then Esc (Back);
- then the keys of the focused widget and the screen, the later ones given up first;
- the app's other keys (`d` Demo) go first of all.

A key left out still works, and is listed by `?` and the command palette. The footer is laid
out again when its width changes.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer

from ocr_tui.ui import textual_compat as tc
from ocr_tui.ui.widgets.message_line import MessageLine

ALWAYS = frozenset({"help", "quit"})  # action names shown at any width
BACK = frozenset({"back", "escape"})
PALETTE_EXTRA = 2  # the palette key's left border and right padding


def key_width(key_display: str, description: str) -> int:
    """Cells a FooterKey takes (not compact): the key padded by one each side, the
    description and one cell after it."""
    return cell_len(key_display) + 2 + (cell_len(description) + 1 if description else 0)


def rank(action: str, from_app: bool) -> int:
    """How much a key must stay: 0 always, 1 Back, 2 the screen's, 3 the app's other keys."""
    name = action.rsplit(".", 1)[-1]
    if name in ALWAYS:
        return 0
    if name in BACK:
        return 1
    return 3 if from_app else 2


def keys_that_fit(keys: list[tuple[int, int]], room: int) -> set[int]:
    """Of `keys` (`(rank, width)`, in footer order) the indexes that fit `room` cells: the
    highest rank given up first, the last of a rank before the ones ahead of it; rank 0 is
    always kept."""
    kept = set(range(len(keys)))
    used = sum(width for _, width in keys)
    order = sorted(range(len(keys)), key=lambda i: (-keys[i][0], -i))
    for i in order:
        if used <= room or keys[i][0] == 0:
            break
        kept.discard(i)
        used -= keys[i][1]
    return kept


class KeyFooter(Footer):
    """A Footer whose keys fit its width (see the module)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._laid_out_at = 0
        self._keys_composed: tuple | None = None  # what the keys shown were composed from

    def on_mount(self) -> None:
        # The message line comes with the footer, above it: on a small terminal the app's
        # notifications are said there, not over the content (`ui.message_board`).
        parent = self.parent
        if parent is not None and not parent.query_children(MessageLine):
            parent.mount(MessageLine(), before=self)
            self.call_after_refresh(tc.refresh_notifications, self.app)

    def _width(self) -> int:
        return self.size.width or self.app.size.width

    def _keys_shown(self) -> tuple:
        """What `compose` builds the keys from: the screen's bindings as the footer shows
        them, and the room."""
        app = self.app
        return (
            self._width(),
            self.compact,
            self.show_command_palette,
            tuple(
                (b.key, b.action, b.description, b.show, id(b.group), on, tip, node is app)
                for node, b, on, tip in self.screen.active_bindings.values()
            ),
        )

    def bindings_changed(self, screen: Screen) -> None:
        """Textual's Footer composes its keys again whenever any binding is refreshed (many
        times a second at start-up and during a burst, ~5 ms each): here only when what it
        shows changed."""
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if self.is_attached and self._keys_shown() != self._keys_composed:
            await self.recompose()

    def compose(self):
        if self._bindings_ready:
            self._keys_composed = self._keys_shown()
        widgets = list(super().compose())
        if any(not isinstance(w, tc.FooterKey) for w in widgets):
            yield from widgets  # binding groups: shown as Footer shows them
            return
        self._laid_out_at = self._width()
        active = self.screen.active_bindings
        room = self._laid_out_at
        keys: list[tuple[int, int]] = []
        for w in widgets:
            width = key_width(w.key_display, w.description)
            if w.has_class("-command-palette"):
                room -= width + PALETTE_EXTRA
                keys.append((0, 0))
                continue
            binding = active.get(w.key)
            from_app = binding is not None and binding.node is self.app
            keys.append((rank(w.action, from_app), width))
        kept = keys_that_fit(keys, room)
        yield from (w for i, w in enumerate(widgets) if i in kept)

    def on_resize(self, _event: Resize) -> None:
        if self.size.width != self._laid_out_at and self.is_attached:
            self.call_after_refresh(self.recompose)
