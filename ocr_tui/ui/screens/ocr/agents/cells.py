"""The running agents' table without a widget: one row per agent command
OCR records as started and not finished (`SessionView.agents`): the command, its persona and
model where the OCR build records them, since when it runs, how long ago its last heartbeat
was, and its state: `● pid 4049`, or, with the session list's stall glyph (nothing moves), `⚠
stale` when the heartbeat is older than 60 s or `⚠ pid 4049 gone` when the process is not on
this machine. Times are relative (`3m ago`) and tick.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from rich.style import Style
from rich.text import Text

from ocr_tui.core.states import UNKNOWN, glyph
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import RunningAgent
from ocr_tui.formats.ocr.api import agent_gone
from ocr_tui.ui import fmt

ThemeStyle = Callable[..., Style]

COLUMNS = [
    ("command", "Command"),
    ("persona", "Persona"),
    ("model", "Model"),
    ("since", "Started"),
    ("beat", "Heartbeat"),
    ("state", "State"),
]
FLEX = ("command", "persona", "model")


def state_cell(agent: RunningAgent, now: datetime, style: ThemeStyle) -> Text:
    """`● pid 4049` (or `● running` without a pid); stale: `⚠ pid 4049 gone` when the
    heartbeat is fresh but the process is not on this machine, else `⚠ stale`."""
    pid = f"pid {agent.pid}" if agent.pid is not None else ""
    if not agent.stale:
        return Text(f"{glyph('running')} {pid or 'running'}", style=style("success"))
    text = f"{pid} gone" if agent_gone(agent, now) else "stale"
    return Text(f"{glyph('stalled')} {text}", style=style("warning", bold=True))


def agent_cells(agent: RunningAgent, now: datetime, style: ThemeStyle) -> list[Text]:
    muted = style("foreground-muted")

    def text(value: object) -> Text:
        shown = safe_line(value) if value not in (None, "") else UNKNOWN
        return Text(shown, style="" if shown != UNKNOWN else muted)

    beat = fmt.when(agent.heartbeat_at, now, "ago")
    return [
        text(agent.command),
        text(agent.persona),
        text(agent.model),
        text(fmt.when(agent.started_at, now, "ago")),
        Text(beat or "none", style="" if beat else muted),
        state_cell(agent, now, style),
    ]


def agent_key(agent: RunningAgent, i: int) -> str:
    return f"{i}:{agent.command}:{agent.started_at}"


def agent_rows(
    agents: list[RunningAgent], now: datetime, style: ThemeStyle
) -> list[tuple[str, list[Text]]]:
    return [(agent_key(a, i), agent_cells(a, now, style)) for i, a in enumerate(agents)]


def agents_title(agents: list[RunningAgent]) -> str:
    """`Running agents · 2` (`· 1 stale` when one is)."""
    stale = sum(1 for a in agents if a.stale)
    return f"Running agents · {len(agents)}" + (f" · {stale} stale" if stale else "")
