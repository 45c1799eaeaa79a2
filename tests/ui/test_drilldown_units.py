"""Pure helpers of the drill-down screens (no app)."""

from __future__ import annotations

import os
from pathlib import Path

from ocr_tui.core.document_read import MAX_RENDER, load_document, rel_is_safe
from ocr_tui.core.view import Round
from ocr_tui.ui.fmt import ticking_duration, verdict_kind
from ocr_tui.ui.navigation import adjacent, steps_between_rounds
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb


def test_ticking_duration() -> None:
    assert ticking_duration(None) == "—"
    assert ticking_duration(5) == "5s"
    assert ticking_duration(65) == "1m 05s"
    assert ticking_duration(3725) == "1h 02m 05s"
    assert ticking_duration(90061) == "1d 1h 01m"


def test_adjacent_skips_missing_numbers() -> None:
    assert adjacent([1, 2, 5], 2, 1) == 5
    assert adjacent([1, 2, 5], 5, -1) == 2
    assert adjacent([1, 2, 5], 1, -1) is None
    assert adjacent([1, 2, 5], 5, 1) is None


def test_only_files_of_a_round_or_map_run_step() -> None:
    """`[`/`]` are shown on a document only when they lead somewhere."""
    assert steps_between_rounds("rounds/round-1/reviews/principal-1.md")
    assert steps_between_rounds("rounds/round-01/final.md")
    assert steps_between_rounds("map/runs/run-2/topology.md")
    assert not steps_between_rounds("context.md")
    assert not steps_between_rounds("rounds/round-1")  # the round itself, not a file of it
    assert not steps_between_rounds("../../.specs/x.md")  # another format's document


def test_verdict_kind() -> None:
    def rnd(verdict, complete=True):
        return Round(
            number=1, complete=complete, discourse=False, verdict=verdict, counts=None,
            reviewers=[], path="rounds/round-1",
        )  # fmt: skip

    assert verdict_kind(rnd("APPROVE")) == "approve"
    assert verdict_kind(rnd("APPROVED")) == "approve"
    assert verdict_kind(rnd("REQUEST CHANGES")) == "request"
    assert verdict_kind(rnd("NEEDS DISCUSSION")) == "discuss"
    assert verdict_kind(rnd(None, complete=False)) == "progress"
    assert verdict_kind(rnd("SHIP IT")) == "unknown"
    assert verdict_kind(None) == "unknown"


def test_breadcrumb_parts_are_made_safe() -> None:
    content = Breadcrumb.build([("Sessions", True), ("evil\x1b]0;t\x07", False)])
    assert "\x1b" not in content.plain and "\x07" not in content.plain
    assert content.plain == "Sessions › evil␛]0;t␇"


def test_load_document_limits(tmp_path: Path) -> None:
    (tmp_path / "big.md").write_bytes(b"line\n" * (MAX_RENDER // 5 + 1000))
    big = load_document(str(tmp_path), "big.md")
    assert big.status == "ok" and big.truncated and len(big.text) <= MAX_RENDER
    assert big.text.endswith("line\n")
    assert load_document(str(tmp_path), "big.md", big.key).status == "unchanged"
    (tmp_path / "bin.md").write_bytes(b"PK\x03\x04\x00\x00binary")
    assert load_document(str(tmp_path), "bin.md").status == "binary"
    assert load_document(str(tmp_path), "gone.md").status == "deleted"
    os.symlink(tmp_path / "big.md", tmp_path / "link.md")
    assert load_document(str(tmp_path), "link.md").status == "error"
    assert load_document(str(tmp_path), "../etc/passwd").status == "error"
    assert not rel_is_safe("/etc/passwd") and rel_is_safe("rounds/round-1/final.md")


def test_document_paths_may_climb_but_never_leave_the_project(tmp_path):
    root = tmp_path / "proj"
    session = root / ".claude" / ".docs" / "260110-x"
    session.mkdir(parents=True)
    (root / ".claude" / ".specs").mkdir()
    (root / ".claude" / ".specs" / "x.md").write_text("# spec\n")
    (tmp_path / "secret.md").write_text("outside\n")
    (session / "state.json").write_text("{}")
    ok = load_document(str(session), "../../.specs/x.md", root=str(root))
    assert ok.status == "ok" and "spec" in ok.text
    # a session file's directory is the base
    assert (
        load_document(str(session / "state.json"), "../../.specs/x.md", root=str(root)).status
        == "ok"
    )
    out = load_document(str(session), "../../../../secret.md", root=str(root))
    assert out.status == "error" and "outside" not in (out.text or "")
    os.symlink(tmp_path, session / "up")  # a directory link leading out
    assert load_document(str(session), "up/secret.md", root=str(root)).status == "error"
