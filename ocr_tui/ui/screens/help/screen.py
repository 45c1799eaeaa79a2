"""`?`: the keys of the screen it was pressed on, read from the bindings that screen and its
focused widget have right now (so it cannot drift from what the keys do, and lists no key
that does nothing there), the keys that work everywhere, and a legend of the glyphs.

A binding's `tooltip` says more than its footer label (what a cycle key cycles through); a key
whose action does not apply here (`check_action` False) is left out, one that applies but
cannot act now (`check_action` None) is listed dimmed. `why_key_does_nothing` is the other
side: what a key that was pressed anyway says (the node's `explain_disabled`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from ocr_tui.ui import fmt
from ocr_tui.ui import textual_compat as tc
from ocr_tui.ui.style import MARK_STYLE, STATE_STYLE
from ocr_tui.ui.widgets.message_line import MessageLine

KEY_STYLE = "bold $text-accent"
SECTION_STYLE = "bold $text-primary"
MUTED = "$text-muted"

# Each screen's section title (by class name); another screen shows its class name.
SCREEN_TITLES = {
    "MainScreen": "Session list",
    "SessionScreen": "Session",
    "RoundScreen": "Round",
    "FindingsScreen": "Findings of a round",
    "FindingScreen": "One finding",
    "DiscourseScreen": "Discourse",
    "DocumentScreen": "Document",
}

# Textual's own keys are listed where one of ours does the same (`↓` beside `j`), and these:
TEXTUAL_KEPT = {"page_up", "page_down"}
FOCUS_ACTIONS = {"focus_next", "focus_previous"}

# Keys by name rather than by glyph (`⏎`, `esc` and `^p` are cryptic in a list of keys).
KEY_NAMES = {
    "enter": "Enter",
    "escape": "Esc",
    "tab": "Tab",
    "shift+tab": "Shift+Tab",
    "space": "Space",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "home": "Home",
    "end": "End",
}


def key_name(app: App, binding: Binding) -> str:
    if binding.key in KEY_NAMES:
        return KEY_NAMES[binding.key]
    shown = app.get_key_display(binding)
    if shown.startswith("^") and len(shown) > 1:
        rest = shown[1:]
        return f"Ctrl+{rest.upper() if len(rest) == 1 else rest.capitalize()}"
    return shown


# -- the bindings in force on a screen ------------------------------------------------------


def binding_chain(screen: Screen) -> list[tuple[DOMNode, list[Binding]]]:
    """(node, its bindings) from the screen's focused widget up to the app: the nodes whose
    bindings a key press on `screen` tries, in that order (Textual's own chain)."""
    return [
        (node, [binding for _key, binding in bindings])
        for node, bindings in tc.modal_binding_chain(screen)
    ]


def action_state(app: App, binding: Binding, node: DOMNode) -> bool | None:
    """The node's `check_action` for the binding: True, False (does not apply: hidden) or
    None (applies, cannot act now: dimmed)."""
    return tc.check_action_state(app, binding.action, node)


def our_bindings(node: DOMNode) -> list[Binding]:
    """The bindings ocr-tui's classes (not Textual's) give `node`. A class of ours that
    carries Textual's own keys (`TEXTUAL_KEYS`: a table drawn like DataTable) counts as
    Textual's."""
    return [
        binding
        for klass in type(node).__mro__
        if klass.__module__.startswith("ocr_tui.") and not klass.__dict__.get("TEXTUAL_KEYS")
        for binding in Binding.make_bindings(klass.__dict__.get("BINDINGS", []))
    ]


def why_key_does_nothing(screen: Screen, key: str) -> str | None:
    """Why `key`, pressed on `screen`, runs nothing although it is bound there: the reason
    the binding's node gives (`explain_disabled(action, parameters)`), else a plain one. None
    when a binding of the key applies (it runs), or when no binding has it."""
    app = screen.app
    hidden: list[tuple[DOMNode, Binding]] = []
    for node, bindings in binding_chain(screen):
        for binding in bindings:
            if binding.key != key:
                continue
            if action_state(app, binding, node):
                return None  # this one runs
            hidden.append((node, binding))
    for node, binding in hidden:
        target, name, parameters = tc.parse_action(app, binding.action, node)
        explain = getattr(target, "explain_disabled", None)
        reason = explain(name, parameters) if explain is not None else None
        if reason:
            return reason
    for _node, binding in hidden:
        if binding.description:
            return f"{key_name(app, binding)} ({binding.description}) does nothing here."
    return None


# -- the rows of the help -------------------------------------------------------------------


@dataclass
class Row:
    keys: list[str]
    description: str
    tooltip: str
    enabled: bool
    action: tuple = ()  # (id of the node that runs it, action name, parameters)


def _rows(app: App, chain: list[tuple[DOMNode, list[Binding]]]) -> list[Row]:
    """One row per action (keys doing the same thing go together): ocr-tui's keys, and
    Textual's that do what one of ours does (or are TEXTUAL_KEPT). The outermost node's
    first (the screen's keys before its focused table's moving about)."""
    found: list[tuple[int, tuple, Binding, bool, bool]] = []
    ours_by_action: set[tuple] = set()
    taken: set[str] = set()  # keys a node nearer the focus has: they shadow the outer ones
    for depth, (node, bindings) in enumerate(chain):
        ours = our_bindings(node)
        here: set[str] = set()
        for binding in bindings:
            if binding.key in taken:
                continue
            state = action_state(app, binding, node)
            if state is False:
                continue  # does not apply here
            here.add(binding.key)
            if not binding.description or binding.system:
                continue
            target, name, parameters = tc.parse_action(app, binding.action, node)
            action = (id(target), name, parameters)
            mine = binding in ours
            if mine:
                ours_by_action.add(action)
            found.append((depth, action, binding, mine, state is not None))
        taken |= here
    rows: dict[tuple, tuple[int, Row]] = {}
    for depth, action, binding, mine, enabled in found:
        if not (mine or action in ours_by_action or action[1] in TEXTUAL_KEPT):
            continue
        if action not in rows:
            rows[action] = (depth, Row([], binding.description, "", enabled, action))
        row = rows[action][1]
        if mine:
            row.description = binding.description
            row.tooltip = row.tooltip or binding.tooltip
        shown = key_name(app, binding)
        if shown not in row.keys:
            row.keys.append(shown)
    ordered = sorted(rows.values(), key=lambda pair: -pair[0])  # stable within a node
    return [row for _depth, row in ordered]


def screen_title(screen: Screen) -> str:
    name = type(screen).__name__
    title = getattr(screen, "HELP_TITLE", None) or SCREEN_TITLES.get(name)
    return title or (name.removesuffix("Screen") or name)


def help_sections(screen: Screen) -> list[tuple[str, list[Row]]]:
    """(title, rows): the keys of `screen` (and its focused widget), then those that work
    on every screen."""
    app = screen.app
    chain = binding_chain(screen)
    here = [(node, bindings) for node, bindings in chain if node is not app]
    everywhere = _rows(app, [(node, b) for node, b in chain if node is app])
    app_actions = {row.action for row in everywhere}
    rows = [row for row in _rows(app, here) if row.action not in app_actions]  # a screen's `q`
    palette = Binding(app.COMMAND_PALETTE_BINDING, "command_palette", "Command palette")
    everywhere.append(
        Row([key_name(app, palette)], "Command palette", "sessions and this screen's keys", True)
    )
    several_panes = len(screen.focus_chain) > 1
    for node, bindings in here:
        if node is not screen or not several_panes:
            continue
        for binding in bindings:
            if binding.action.removeprefix("app.") in FOCUS_ACTIONS:
                text = "Focus the next pane" if "next" in binding.action else "The previous one"
                everywhere.append(Row([key_name(app, binding)], text, "", True))
    return [(screen_title(screen), rows), ("Everywhere", everywhere)]


# A line of the help: what hangs at its left (two spaces and the keys or the glyph, padded to
# the column's width) and the text after it. Wrapped, the text's further lines are indented
# under its first (`hang`), not under the keys. A title or a blank line has an empty text.
Line = tuple[Content, Content]


def help_lines(screen: Screen) -> list[Line]:
    """The keys of `screen`, the keys of every screen, then the legend."""
    lines: list[Line] = []
    for title, rows in help_sections(screen):
        if not rows:
            continue
        lines.append((Content.styled(title, SECTION_STYLE), Content("")))
        width = max(cell_len(" ".join(row.keys)) for row in rows) + 3
        for row in rows:
            keys = " ".join(row.keys)
            keys += " " * (width - cell_len(keys))
            head = Content.assemble("  ", (keys, KEY_STYLE if row.enabled else MUTED))
            parts: list[str | tuple[str, str]] = [
                row.description if row.enabled else (row.description, MUTED)
            ]
            if row.tooltip and row.tooltip != row.description:
                parts.append((f"  {row.tooltip}", MUTED))
            if not row.enabled:
                parts.append((" (not now)", MUTED))
            lines.append((head, Content.assemble(*parts)))
        lines.append((Content(""), Content("")))
    lines.extend(legend())
    return lines[:-1]


def hang(lines: list[Line], width: int | None = None) -> Content:
    """`lines` as one text; with `width`, each line's text wrapped at words within `width`
    cells, its further lines indented as far as its first starts (a hanging indent)."""
    out: list[Content] = []
    for head, text in lines:
        indent = head.cell_length
        room = (width or 0) - indent
        if width is None or room < 12 or indent + text.cell_length <= width:
            out.append(head + text)
            continue
        wrapped = text.wrap(room)
        out.append(head + wrapped[0].rstrip())
        out.extend(Content(" " * indent) + more.rstrip() for more in wrapped[1:])
    return Content("\n").join(out)


def help_content(screen: Screen, width: int | None = None) -> Content:
    """The keys of `screen`, the keys of every screen, then the legend; with `width`,
    wrapped under each entry's text (`hang`)."""
    return hang(help_lines(screen), width)


def legend() -> list[Line]:
    blank = (Content(""), Content(""))
    lines = [(Content.styled("Session states", SECTION_STYLE), Content(""))]
    for state, (glyph, meaning) in fmt.STATES.items():
        head = Content.assemble("  ", (glyph, STATE_STYLE[state]), "  ")
        lines.append((head, Content(meaning)))
    lines.append(blank)
    lines.append((Content.styled("Phases", SECTION_STYLE), Content("")))
    marks = {"done": "done", "current": "current phase", "pending": "still to come"}
    for state, meaning in marks.items():
        head = Content.assemble("  ", (fmt.PHASE_MARKS[state], MARK_STYLE[state]), "  ")
        lines.append((head, Content(meaning)))
    bar = Content.assemble("  ", ("▰▰▰", "$text-accent"), ("▱▱▱", "$text-muted"), "  ")
    lines.append((bar, Content("one cell per phase, filled up to the current one")))
    lines.append(blank)
    lines.extend(marker_legend())
    return lines


def marker_legend() -> list[Line]:
    """The marks the session and round screens draw, from `fmt.MARKERS` (`{mark: (where,
    meaning)}`; a bare meaning works too), when the format helpers define them."""
    markers = getattr(fmt, "MARKERS", None)
    if not markers:
        return []
    rows: list[tuple[str, str, str]] = []
    for mark, value in markers.items() if isinstance(markers, dict) else markers:
        if isinstance(value, str):
            where, meaning = "", value
        else:
            where, meaning = (value[0], value[-1]) if len(value) > 1 else ("", value[0])
        rows.append((str(mark), str(where), str(meaning)))
    width = max(cell_len(mark) for mark, _, _ in rows) + 2
    lines: list[Line] = [(Content.styled("Markers", SECTION_STYLE), Content(""))]
    for mark, where, meaning in rows:
        head = Content.assemble("  ", (mark, "bold"), " " * (width - cell_len(mark)))
        parts: list[str | tuple[str, str]] = [meaning]
        if where:
            parts.append((f"  ({where})", MUTED))
        lines.append((head, Content.assemble(*parts)))
    lines.append((Content(""), Content("")))
    return lines


class HelpScreen(ModalScreen[None]):
    """`HelpScreen(screen)`: the keys of `screen` (the one `?` was pressed on)."""

    BINDINGS = [
        Binding("escape", "dismiss", "Close help"),
        Binding("question_mark", "dismiss", "Close help"),
        Binding("q", "dismiss", "Close help", show=False),
        Binding("j", "scroll('down')", "Scroll down", show=False),
        Binding("k", "scroll('up')", "Scroll up", show=False),
    ]

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        # Read now, while `screen` is the active one (its focus and state as the user sees
        # them); no reference to it is kept.
        self.about = screen_title(screen)
        self.lines = help_lines(screen)
        self.content = hang(self.lines)  # unwrapped
        self._wrapped_at: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog") as dialog:
            dialog.border_title = f"Keys and legend · {self.about}"
            dialog.border_subtitle = "Esc closes"
            with VerticalScroll(id="help-body"):
                yield Static(self.content, id="help-text")
        yield MessageLine()  # over the screen's own: the same place, above the footer

    def on_resize(self) -> None:
        self.call_after_refresh(self._wrap)

    def on_mount(self) -> None:
        self.call_after_refresh(self._wrap)

    def _wrap(self) -> None:
        """Each entry wrapped under its text at the width the help has now (a scrollbar's
        cell kept free)."""
        body = self.query_one("#help-body", VerticalScroll)
        width = body.scrollable_content_region.width - 1
        if width > 0 and width != self._wrapped_at:
            self._wrapped_at = width
            self.query_one("#help-text", Static).update(hang(self.lines, width))

    def action_scroll(self, direction: str) -> None:
        body = self.query_one("#help-body", VerticalScroll)
        if direction == "down":
            body.scroll_down(animate=False)
        else:
            body.scroll_up(animate=False)
