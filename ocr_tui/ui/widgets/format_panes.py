"""Drill-down panes for formats without review rounds: what needs attention and the format's
facts (spec, agents, approvals, metrics...), and its steps (agent runs, checkpoints...) as a
table whose rows open their first document (`documents` maps row keys to them)."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.style import theme_style
from ocr_tui.ui.widgets.drill_table import DrillTable

STEP_COLUMNS = [
    ("at", "When"),
    ("step", "Step"),
    ("state", "State"),
    ("took", "Took"),
    ("detail", "Detail"),
]
STATE_VAR = {"$text-success": "success", "$text-error": "error", "$text-warning": "warning"}


def facts_content(view: SessionView) -> Content:
    rows: list[Content] = []
    if view.waiting:
        rows.append(Content.styled("◆ waiting on you: an approval is needed", "bold $text-warning"))
    rows += [Content.styled(f"! {fmt.safe(a)}", "$text-warning") for a in view.alerts]
    if view.badges:
        rows.append(Content.styled(" · ".join(fmt.safe(b, 24) for b in view.badges), "$text-muted"))
    width = max((len(f.label) for f in view.facts), default=0)
    width = min(width, 16) + 1
    for fact in view.facts:
        rows.append(
            Content.assemble(
                (fmt.safe(fact.label, 16).ljust(width), "$text-muted"),
                (fmt.safe(fact.value), fmt.TONES.get(fact.tone, "")),
            )
        )
    return Content("\n").join(rows) if rows else Content.styled("Nothing recorded.", "$text-muted")


class FormatPanes(Vertical):
    """`show(view, now)`; hidden for OCR sessions (rounds and map runs are shown instead)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="facts-pane", classes="dd-pane") as pane:
            pane.border_title = "Details"
            yield Static(id="facts")
        with Vertical(id="steps-pane", classes="dd-pane") as pane:
            pane.border_title = "Steps"
            yield DrillTable(STEP_COLUMNS, id="steps")

    def on_mount(self) -> None:
        self.documents: dict[str, str] = {}  # step row key -> the document it opens

    def show(self, view: SessionView, now: datetime) -> None:
        self.query_one("#facts", Static).update(facts_content(view))
        rows = self._step_rows(view, now)
        self.query_one("#steps", DrillTable).sync_rows(rows)
        self.query_one("#steps-pane").display = bool(rows)

    def _step_rows(self, view: SessionView, now: datetime) -> list[tuple[str, list[Text]]]:
        rows = []
        self.documents = {}
        for i, step in enumerate(view.steps):
            key = f"{i}:{step.key}"
            if step.documents:
                self.documents[key] = step.documents[0]
            var = STATE_VAR.get(fmt.state_tone_style(step.state), "foreground-muted")
            detail = step.detail or ""
            if step.documents:
                detail = (detail + " · " if detail else "") + f"{len(step.documents)} doc(s)"
            took = fmt.duration(step.seconds) if step.seconds is not None else "—"
            rows.append(
                (
                    key,
                    [
                        Text(fmt.clock_text(step.at, now) or "—"),
                        Text(fmt.safe(step.label, 40)),
                        Text(fmt.safe(step.state, 14), style=theme_style(self, var)),
                        Text(took),
                        Text(fmt.safe(detail, 60)),
                    ],
                )
            )
        return rows
