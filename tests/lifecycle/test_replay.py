"""Live truth: replay every simulated lifecycle one action at a time (OCR review,
re-review and map with state.json and with ocr.db, and with final.md's blockers as an
ordered list; the code workflow, scientific analysis, iDumb) and hold, at every step, each
fact as `status --json`, the list row, `status` (at 80, 100, 120 columns and through a pipe)
and `--oneline`, the detail pane, the session screen, `findings --json` and the Reviews view
say it, to each other and to what the files on disk support.

A disagreement today's code has is listed in `known.py` and marked xfail(strict) below."""

from __future__ import annotations

import re

import pytest

from .known import KNOWN, known_in
from .replay import LIFECYCLES, replay

# What each lifecycle must go through, or the replay proved little: the states a session
# takes, the gate's three answers, a round begun before its findings are in.
OCR_SEEN = {
    "glyph ●", "glyph ◐", "glyph ✓", "glyph ⚠", "a map run", "a round runs",
    "blockers not known yet", "blockers found before the synthesis",
    "findings not re-reviewed yet", "findings resolved",
    "findings --fail-on blocker exits 0", "findings --fail-on blocker exits 1",
    "findings --fail-on blocker exits 3",
}  # fmt: skip
SEEN = {
    "ocr-state.json": OCR_SEEN,
    "ocr-ocr.db": OCR_SEEN | {"glyph !"},  # a stale agent (ocr.db's command_executions)
    "ocr-state.json-ordered-blockers": OCR_SEEN,
    "code": {"glyph ●", "glyph ◆", "glyph ⚠", "glyph ✓"},
    "analysis": {"glyph ●", "glyph ◆", "glyph !", "glyph ⚠", "glyph ✓"},
    "idumb": {"glyph ●", "glyph !"},
}
# Checks that run at every step (and probe) of a lifecycle of that kind.
EVERY_STEP = {
    "ocr": ("state glyph", "state glyph matches the files", "phase position", "phase label",
            "round or map run", "elapsed matches the stored times", "stalled", "agents",
            "the dashboard's engine reads what status reads", "blockers",
            "round complete matches the files", "unresolved blockers"),
    "other": ("state glyph", "state glyph matches the files", "phase position", "phase label",
              "elapsed", "stalled", "agents", "needs",
              "the dashboard's engine reads what status reads"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(LIFECYCLES))
def test_every_surface_agrees_with_the_others_and_the_files(name: str) -> None:
    result = replay(name)
    kind = "ocr" if LIFECYCLES[name].kind == "ocr" else "other"
    assert result.steps >= (60 if kind == "ocr" else 12)
    assert SEEN[name] <= result.seen, f"never went through {SEEN[name] - result.seen}"
    for check in EVERY_STEP[kind]:
        assert result.ran[check] >= result.steps, f"{check!r} ran {result.ran[check]} times"
    known = known_in(name)
    failing = sorted(c for c, misses in result.misses.items() if misses and c not in known)
    assert not failing, "surfaces disagree:\n" + result.report(failing)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40]


@pytest.mark.parametrize(
    ("name", "check"),
    [
        pytest.param(name, k.check, id=f"{name}:{_slug(k.check)}",
                     marks=pytest.mark.xfail(strict=True, reason=k.reason))
        for k in KNOWN
        for name in k.lifecycles
    ],
)  # fmt: skip
def test_known_disagreement(name: str, check: str) -> None:
    """Passes (and so fails as XPASS) once the product agrees: then drop it from known.py."""
    result = replay(name)
    assert result.ran[check] > 0, f"{check!r} never ran in {name}"
    assert not result.misses.get(check), result.report([check])
