"""Drawing helpers shared by screens and widgets that need Textual: the styles of session
states, phase marks and verdicts, theme colours as rich Styles (for DataTable cells), and the
"session removed" banner. The pure text helpers are in `ocr_tui.ui.fmt`.
"""

from __future__ import annotations

from rich.style import Style
from textual.color import Color
from textual.widget import Widget
from textual.widgets import Static

MUTED = "$text-muted"
KEY = "bold $text-accent"  # a key to press, or the value a setting has

# A phase's mark (fmt.PHASE_MARKS) and a session's state glyph (fmt.STATES), as Content styles.
MARK_STYLE = {
    "done": "$text-success",
    "current": "bold $text-accent",
    "pending": MUTED,
    "skipped": MUTED,
    "stopped": MUTED,
    "unreached": MUTED,
}
STATE_STYLE = {
    "input": "bold $text-warning",
    "alert": "$text-warning",
    "running": "$text-success",
    "waiting": "$text-warning",
    "stalled": "$text-warning",
    "closed": MUTED,
    "problem": "$text-error",
    "loading": MUTED,
    "offline": MUTED,
}

# fmt.verdict_kind -> the theme variable of its colour (none: the foreground).
VERDICT_VAR = {"approve": "success", "request": "error", "discuss": "warning"}


TEXT_VARIANTS = frozenset({"primary", "secondary", "warning", "error", "success", "accent"})


def theme_style(node: Widget, variable: str, **kw: bool) -> Style:
    """A rich Style in the current theme's colour `variable` (for DataTable cells, which
    need rich Text). A colour with a text variant (`warning` → `text-warning`: tinted to read
    on the theme's background, as orange on a light one does not) is drawn in that."""
    variables = node.app.theme_variables
    if variable in TEXT_VARIANTS:
        variable = f"text-{variable}"
    value = variables.get(variable)
    color = None
    if value:
        try:
            parsed = Color.parse(value)
            if parsed.a < 1:  # e.g. foreground-muted: blend it over the background
                parsed = Color.parse(variables.get("background", "black")) + parsed
            color = parsed.rich_color
        except Exception:  # pragma: no cover - a theme with an odd value: no colour
            color = None
    return Style(color=color, **kw)


def removed_banner(what: str = "its last known state") -> Static:
    """The note each drill-down screen shows once its session is gone from disk."""
    return Static(
        f"This session was removed from disk: what you see is {what}.",
        id="removed",
        classes="dd-removed",
    )
