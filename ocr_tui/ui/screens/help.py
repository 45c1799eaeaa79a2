"""`?`: every key of every screen, read from the classes' BINDINGS (so it cannot drift from
what the keys do), and a legend of the glyphs."""

from __future__ import annotations

import importlib
from types import ModuleType

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Static

from ocr_tui.ui import fmt
from ocr_tui.ui.style import MARK_STYLE, STATE_STYLE

# (section title, module whose screens and ocr_tui widgets are listed); missing ones skipped.
SCREEN_MODULES = (
    ("Session list", "ocr_tui.ui.screens.main"),
    ("Session", "ocr_tui.ui.screens.session"),
    ("Round", "ocr_tui.ui.screens.round"),
    ("Findings", "ocr_tui.ui.screens.findings"),
    ("Finding", "ocr_tui.ui.screens.finding"),
    ("Discourse", "ocr_tui.ui.screens.discourse"),
    ("Document", "ocr_tui.ui.screens.document"),
    ("Help", "ocr_tui.ui.screens.help"),
)
KEY_STYLE = "bold $text-accent"
SECTION_STYLE = "bold $text-primary"


# Textual's own keys are listed where one of ours does the same (`k` beside `↑`), and these:
TEXTUAL_KEPT = {"page_up", "page_down"}
FOCUS_ACTIONS = {"app.focus_next", "app.focus_previous"}


def class_bindings(cls: type[DOMNode]) -> list[tuple[Binding, bool]]:
    """A class's bindings, inherited ones included, subclasses overriding by key; with
    whether ocr-tui (rather than Textual) defines each."""
    by_key: dict[str, tuple[Binding, bool]] = {}
    for klass in reversed(cls.__mro__):
        ours = klass.__module__.startswith("ocr_tui.")
        for binding in Binding.make_bindings(klass.__dict__.get("BINDINGS", [])):
            by_key[binding.key] = (binding, ours)
    return [(b, ours) for b, ours in by_key.values() if b.description and not b.system]


def key_rows(app: App, classes: list[type[DOMNode]]) -> list[tuple[str, str]]:
    """(keys, description) rows, one per action: keys doing the same thing go together."""
    found = [pair for cls in classes for pair in class_bindings(cls)]
    our_actions = {b.action for b, ours in found if ours}
    rows: dict[str, tuple[list[str], str]] = {}
    for b, ours in found:
        if not (ours or b.action in our_actions or b.action in TEXTUAL_KEPT):
            continue
        keys, description = rows.get(b.action, ([], b.description))
        shown = app.get_key_display(b)
        if shown not in keys:
            keys.append(shown)
        rows[b.action] = (keys, b.description if ours else description)
    return [(" ".join(keys), description) for keys, description in rows.values()]


def module_classes(module: ModuleType) -> list[type[DOMNode]]:
    """The screens a module defines, then the ocr_tui widgets it uses."""
    screens, widgets = [], []
    for obj in vars(module).values():
        if not isinstance(obj, type) or not issubclass(obj, Widget):
            continue
        if issubclass(obj, Screen):
            if obj.__module__ == module.__name__:
                screens.append(obj)
        elif obj.__module__.startswith("ocr_tui."):
            widgets.append(obj)
    return screens + widgets


def help_sections(app: App) -> list[tuple[str, list[tuple[str, str]]]]:
    palette = Binding(app.COMMAND_PALETTE_BINDING, "command_palette", "Command palette")
    everywhere = key_rows(app, [type(app)])
    everywhere.append((app.get_key_display(palette), "Command palette: sessions and actions"))
    for b, _ours in class_bindings(Screen):
        if b.action in FOCUS_ACTIONS:
            everywhere.append((app.get_key_display(b), b.description))
    sections = [("Everywhere", everywhere)]
    for title, name in SCREEN_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        rows = key_rows(app, module_classes(module))
        if rows:
            sections.append((title, rows))
    return sections


def help_content(app: App) -> Content:
    """Keys of the app and the session list, the legend, then the other screens' keys."""
    lines: list[Content] = []
    sections = help_sections(app)
    for index, (title, rows) in enumerate(sections):
        if index == 2:
            lines.extend(legend())
        lines.append(Content.styled(title, SECTION_STYLE))
        width = max(len(k) for k, _ in rows) + 3
        for keys, description in rows:
            lines.append(Content.assemble("  ", (keys.ljust(width), KEY_STYLE), description))
        lines.append(Content(""))
    if len(sections) <= 2:
        lines.extend(legend())
    return Content("\n").join(lines[:-1])


def legend() -> list[Content]:
    lines = [Content.styled("Session states", SECTION_STYLE)]
    for state, (glyph, meaning) in fmt.STATES.items():
        lines.append(Content.assemble("  ", (glyph, STATE_STYLE[state]), f"  {meaning}"))
    lines.append(Content(""))
    lines.append(Content.styled("Phases", SECTION_STYLE))
    marks = {"done": "done", "current": "current phase", "pending": "still to come"}
    for state, meaning in marks.items():
        lines.append(
            Content.assemble("  ", (fmt.PHASE_MARKS[state], MARK_STYLE[state]), f"  {meaning}")
        )
    lines.append(
        Content.assemble(
            "  ",
            ("▰▰▰", "$text-accent"),
            ("▱▱▱", "$text-muted"),
            "  one cell per phase, filled up to the current one",
        )
    )
    lines.append(Content(""))
    return lines


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "dismiss", "Close help"),
        Binding("question_mark", "dismiss", "Close help"),
        Binding("q", "dismiss", "Close help", show=False),
        Binding("j", "scroll('down')", "Scroll down", show=False),
        Binding("k", "scroll('up')", "Scroll up", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog") as dialog:
            dialog.border_title = "Keys and legend"
            dialog.border_subtitle = "Esc closes"
            with VerticalScroll(id="help-body"):
                yield Static(help_content(self.app), id="help-text")

    def action_scroll(self, direction: str) -> None:
        body = self.query_one("#help-body", VerticalScroll)
        if direction == "down":
            body.scroll_down(animate=False)
        else:
            body.scroll_up(animate=False)
