"""How a `LineTable` looks and which keys it answers: Textual's `DataTable`'s, under its names
and with its component classes and CSS, so a screen drawn with one is the same as with the other
(the help shows these keys as Textual's own)."""

from __future__ import annotations

from textual.binding import Binding, BindingType

BINDINGS: list[BindingType] = [
    Binding("enter", "select_cursor", "Select", show=False),
    Binding("up", "cursor_up", "Cursor up", show=False),
    Binding("down", "cursor_down", "Cursor down", show=False),
    Binding("right", "cursor_right", "Cursor right", show=False),
    Binding("left", "cursor_left", "Cursor left", show=False),
    Binding("pageup", "page_up", "Page up", show=False),
    Binding("pagedown", "page_down", "Page down", show=False),
    Binding("ctrl+home", "scroll_top", "Top", show=False),
    Binding("ctrl+end", "scroll_bottom", "Bottom", show=False),
    Binding("home", "scroll_home", "Home", show=False),
    Binding("end", "scroll_end", "End", show=False),
]

COMPONENT_CLASSES: set[str] = {
    "datatable--cursor",
    "datatable--hover",
    "datatable--fixed",
    "datatable--fixed-cursor",
    "datatable--header",
    "datatable--header-cursor",
    "datatable--header-hover",
    "datatable--odd-row",
    "datatable--even-row",
}

CSS = """
LineTable {
    background: $surface;
    color: $foreground;
    height: auto;
    max-height: 100%;

    &:focus {
        background-tint: $foreground 5%;
        & > .datatable--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
        & > .datatable--header {
            background-tint: $foreground 5%;
        }
        & > .datatable--fixed-cursor {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
        }
    }
    &:dark {
        & > .datatable--even-row {
            background: $surface-darken-1 40%;
        }
    }
    & > .datatable--header {
        text-style: bold;
        background: $panel;
        color: $foreground;
    }
    &:ansi > .datatable--header {
        background: ansi_bright_blue;
        color: ansi_default;
    }
    & > .datatable--fixed {
        background: $secondary-muted;
        color: $foreground;
    }
    & > .datatable--odd-row {
    }
    & > .datatable--even-row {
        background: $surface-lighten-1 50%;
    }
    & > .datatable--cursor {
        background: $block-cursor-blurred-background;
        color: $block-cursor-blurred-foreground;
        text-style: $block-cursor-blurred-text-style;
    }
    & > .datatable--fixed-cursor {
        background: $block-cursor-blurred-background;
        color: $foreground;
    }
    & > .datatable--header-cursor {
        background: $accent-darken-1;
        color: $foreground;
    }
    & > .datatable--header-hover {
        background: $accent 30%;
    }
    & > .datatable--hover {
        background: $block-hover-background;
    }
}
"""
