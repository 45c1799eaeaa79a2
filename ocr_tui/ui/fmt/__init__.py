"""How the dashboard shows a value, by what it formats: `times` (the one time convention),
`phases`, `rounds` (OCR's rounds in words), `text` (cut, escape-safe, labelled values) and
`markers` (the legend). Pure functions: no IO, no Textual; everything from disk that comes out
of here has been through `ocr_tui.core.textsafe`. Helpers that need the theme or a widget are
in `ocr_tui.ui.style`. The names are also here, as `fmt.when`, `fmt.round_label`, ….
"""

from __future__ import annotations

from ocr_tui.core.display import format_label, format_short
from ocr_tui.core.states import (  # noqa: F401 (shared names)
    PHASE_MARKS,
    STATES,
    glyph,
    session_state,
)
from ocr_tui.core.timeutil import human_duration, human_relative, local_clock, zone_name  # noqa: F401
from ocr_tui.ui.fmt.markers import MARKERS  # noqa: F401
from ocr_tui.ui.fmt.phases import (  # noqa: F401
    TONES,
    phase_bar,
    phase_fraction,
    phase_parts,
    phase_position,
    phase_text,
    state_tone_style,
)
from ocr_tui.ui.fmt.rounds import (  # noqa: F401
    ROUND_STATES,
    TREND_ROUNDS,
    VERDICT_CLASSES,
    blocker_trend,
    blockers_known,
    findings_change,
    first_of_each_number,
    round_label,
    round_state,
    timeline_unit,
    twin_name,
    verdict_kind,
    verdict_tone,
)
from ocr_tui.ui.fmt.text import (  # noqa: F401
    KEEP_TOGETHER,
    MIN_VALUE,
    clip,
    clip_cells,
    display_path,
    home_paths,
    label_width,
    labelled_lines,
    safe,
    words,
    wrap,
)
from ocr_tui.ui.fmt.times import (  # noqa: F401
    WHEN_ROOMS,
    clock_cell,
    day_text,
    duration,
    elapsed_seconds,
    elapsed_text,
    idle_seconds,
    one_day,
    stall_text,
    started_at,
    ticking_duration,
    times_in,
    ts,
    when,
)

# The formats' names: one table (core.display), for the list, status and every screen.
framework_short = format_short
framework_label = format_label
SEVERITY_KEYS = ("critical", "high", "medium", "low", "info")
