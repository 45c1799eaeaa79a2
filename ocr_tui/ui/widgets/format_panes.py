"""Drill-down panes for formats without review rounds: what needs attention and the format's
facts (spec, agents, approvals, metrics...), and its steps (agent runs, checkpoints...) as a
table whose rows open their first document (`documents` maps row keys to them).

Two widgets the session and round screens share live here too: `LabelledRows` (labels as wide
as the longest, values wrapped at words under themselves, laid out for the width the widget
has) and `FitTable` (a DrillTable that is never wider than its pane: its flexible columns end
in `…` instead of a horizontal scrollbar, and take back their width when there is room; its
`wrap` columns wrap at words instead, their rows as tall as the text needs).
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical

from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.fmt.text import unsaid_badges
from ocr_tui.ui.style import theme_style
from ocr_tui.ui.widgets.fit_table import FitTable
from ocr_tui.ui.widgets.labelled_rows import Item, Labelled, LabelledRows, Line

STATE_VAR = {"$text-success": "success", "$text-error": "error", "$text-warning": "warning"}


# -- the format panes ------------------------------------------------------------------------


def fact_items(view: SessionView, now: datetime) -> list[Item]:
    """What needs the user first (an approval, the alerts), the badges not said elsewhere
    (`unsaid_badges`), then the facts (not one an alert already said); the times in them as
    `fmt.when` shows every time."""
    items: list[Item] = []
    if view.waiting:
        glyph = fmt.glyph("input")
        waiting = "waiting on you: an approval is needed"
        items.append(Line(f"{glyph} ", waiting, "bold $text-warning"))
    mark = f"{fmt.glyph('alert')} "
    items += [Line(mark, fmt.times_in(fmt.safe(a), now), "$text-warning") for a in view.alerts]
    badges = unsaid_badges(view)
    if badges:
        items.append(Line("", " · ".join(fmt.safe(b) for b in badges), "$text-muted"))
    alerts = [a.strip().lower() for a in view.alerts]
    for fact in view.facts:
        said = fact.value.strip().lower()
        if said and any(a.startswith(said) for a in alerts):
            continue  # said above, as an alert
        value = fmt.home_paths(fmt.times_in(fmt.safe(fact.value), now))
        items.append(Labelled(fmt.safe(fact.label), value, fmt.TONES.get(fact.tone, "")))
    return items


def step_columns(now: datetime) -> list[tuple[str, str]]:
    return [
        ("at", f"When ({fmt.zone_name(now)})"),
        ("step", "Step"),
        ("state", "State"),
        ("took", "Took"),
        ("detail", "Detail"),
    ]


class FormatPanes(Vertical):
    """`show(view, now)`; hidden for OCR sessions (rounds and map runs are shown instead)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.documents: dict[str, str] = {}  # step row key -> the document it opens

    def compose(self) -> ComposeResult:
        with Vertical(id="facts-pane", classes="dd-pane") as pane:
            pane.border_title = "Details"
            yield LabelledRows("Nothing recorded.", id="facts")
        with Vertical(id="steps-pane", classes="dd-pane") as pane:
            pane.border_title = "Steps"
            yield FitTable(
                step_columns(self.app.now()),
                flex=("step", "detail"),
                wrap=("step", "detail"),
                id="steps",
            )

    def show(self, view: SessionView, now: datetime) -> None:
        self.show_facts(view, now)
        rows = self._step_rows(view, now)
        self.query_one("#steps", FitTable).sync_rows(rows)
        self.query_one("#steps-pane").display = bool(rows)

    def show_facts(self, view: SessionView, now: datetime) -> None:
        """The facts alone (the 1 s tick: their relative times move)."""
        self.query_one("#facts", LabelledRows).set_items(fact_items(view, now))

    def _step_rows(self, view: SessionView, now: datetime) -> list[tuple[str, list[Text]]]:
        rows = []
        self.documents = {}
        for i, step in enumerate(view.steps):
            key = f"{i}:{step.key}"
            if step.documents:
                self.documents[key] = step.documents[0]
            var = STATE_VAR.get(fmt.state_tone_style(step.state), "foreground-muted")
            detail = fmt.times_in(fmt.safe(step.detail or ""), now)
            if step.documents:
                n = len(step.documents)
                docs = f"{n} document{'s' if n != 1 else ''}"
                detail = f"{detail} · {docs}" if detail else docs
            took = fmt.duration(step.seconds) if step.seconds is not None else "—"
            rows.append(
                (
                    key,
                    [
                        Text(fmt.when(step.at, now, "cell") or "—"),
                        Text(fmt.safe(step.label)),
                        Text(fmt.words(step.state), style=theme_style(self, var)),
                        Text(took),
                        Text(detail),
                    ],
                )
            )
        return rows
