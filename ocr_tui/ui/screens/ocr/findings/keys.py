"""The findings screen's keys: the filters (severity, blockers, triage, search), the sort,
the editor, the triage marks and notes written into ocr.db (`marks.py`), the clipboard, the
round before or after, and Esc (the search first)."""

from __future__ import annotations

from textual.binding import Binding

# fmt: off
BINDINGS = [
    Binding(
        "v", "cycle_severity", "Severity ≥", id="findings.severity",
        tooltip="All → info → low → medium → high → critical (a minimum; levels that show "
        "the same rows are skipped)",
    ),
    Binding(
        "b", "toggle_blockers", "Blockers", id="findings.blockers",
        tooltip="Blockers only, or every finding",
    ),
    Binding(
        "t", "cycle_triage", "Triage", id="findings.triage",
        tooltip="Any → each triage state in this round (from ocr.db)",
    ),
    # priority: the box has focus before the next key is dispatched (`/retry⏎` typed fast)
    Binding(
        "slash", "search", "Search", id="findings.search", priority=True,
        tooltip="Title, file, reviewers; Enter keeps it, Esc clears it",
    ),
    Binding(
        "s", "cycle_sort", "Sort", id="findings.sort",
        tooltip="Next column: severity → blocker → evolution → title → file → reviewers "
        "(→ triage); the round before's resolved and pending findings stay last (unless"
        " sorted by evolution)",
    ),
    Binding("S", "reverse_sort", "Reverse sort", id="findings.reverse", show=False),
    Binding("e", "edit", "Editor", id="findings.edit"),
    Binding(
        "m", "mark", "Mark", id="findings.mark",
        tooltip="The finding's triage in ocr.db (or the selected findings'): a state OCR's "
        "store allows, or clear (x)",
    ),
    Binding("M", "clear_mark", "Clear mark", id="findings.clear_mark", show=False),
    Binding(
        "space", "select", "Select", id="findings.select", show=False,
        tooltip="Select the finding (m marks every selected one)",
    ),
    Binding("n", "note", "Note", id="findings.note", tooltip="A note on the finding (ocr.db)"),
    Binding("u", "undo_mark", "Undo mark", id="findings.undo", show=False),
    Binding("y", "copy_location", "Copy file:line", id="findings.copy", show=False),
    Binding("[", "step(-1)", "Prev round", id="findings.prev", show=False),
    Binding("]", "step(1)", "Next round", id="findings.next", show=False),
    Binding(
        "escape", "escape", "Back", id="findings.back",
        tooltip="Clear the search if there is one, else back",
    ),
]
# fmt: on
