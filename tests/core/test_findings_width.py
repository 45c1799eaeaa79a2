"""`ocr-tui findings` fits the width as `status` does: the terminal's, else $COLUMNS, else (a
pipe, a file) nothing is cut; `--max-width N` (0: no limit). The least telling columns go
first, then the title (at its end) and the location (in its middle: the file name and line
kept) are cut; a row is never wrapped. One line above the table names the session and round."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from rich.cells import cell_len

from ocr_tui.core.cells import elide_path

from .test_findings_cli import EVIL, finding, put, run

SID = "2026-11-25-main"
LONG_TITLE = (
    "Session token is never rotated after a privilege change in the admin impersonation flow"
)
LONG_PATH = "services/billing/webhooks/handlers/stripe/events/invoice_paid.py"
TEAM = ("principal-1", "principal-2", "quality-1", "security-1")


def by_all(*findings: str) -> dict[str, str]:
    """Every reviewer of TEAM raises the same findings: the REVIEWERS column is wide."""
    return {name: "".join(findings) for name in TEAM}


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    s = tmp_path / ".ocr" / "sessions" / SID
    put(s / "state.json", json.dumps({"current_phase": "reviews", "status": "active",
                                      "current_round": 2}))  # fmt: skip
    r1 = {
        "principal-1.md": finding(1, "Retry loop never gives up", "Medium", "src/retry.py:10"),
        "quality-1.md": finding(1, "Session token is logged", "High", "src/auth/session.py:20"),
    }
    for name, text in r1.items():
        put(s / "rounds/round-1/reviews" / name, text)
    r2 = by_all(
        finding(1, "Session token is logged", "High", "src/auth/session.py:20"),
        finding(2, LONG_TITLE, "Critical", "src/auth/session.py:L49-L52"),
        finding(3, "Webhook retries are not idempotent", "Medium", f"{LONG_PATH}:L120-L134"),
        finding(4, f"Cache key {EVIL} ignores the tenant", "Low", "src/cache.py:7"),
    )
    for name, text in r2.items():
        put(s / "rounds/round-2/reviews" / f"{name}.md", text)
    put(s / "rounds/round-2/final.md", "# Review\n\n**Verdict**: REQUEST CHANGES\n")  # all in
    return tmp_path


def table(capsys, project: Path, *args: str) -> list[str]:
    code, out, _ = run(capsys, str(project), *args)
    assert code == 0
    return out.splitlines()


def cells(lines: list[str]) -> dict[str, list[str]]:
    """The table's columns by header: each row's cell (the line after the heading is the
    header row; columns start where its names do)."""
    header = lines[1]
    names = header.split()
    starts = [header.index(n) for n in names]
    ends = [*starts[1:], None]
    spans = zip(names, starts, ends, strict=True)
    return {n: [ln[a:b].strip() for ln in lines[2:]] for n, a, b in spans}


# --- the width -----------------------------------------------------------------------------------


COLUMNS_AT = {
    80: ["SEVERITY", "TITLE", "LOCATION", "EVOLUTION"],
    120: ["SEVERITY", "BLOCKER", "TITLE", "LOCATION", "EVOLUTION"],
    200: ["SEVERITY", "BLOCKER", "TITLE", "LOCATION", "EVOLUTION"],
}  # fmt: skip


@pytest.mark.parametrize("width", [80, 120, 200])
def test_the_table_fits_columns(project, capsys, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))  # through a pipe, as `status` does
    lines = table(capsys, project)
    assert all(cell_len(ln) <= width for ln in lines), [ln for ln in lines if cell_len(ln) > width]
    if width < 200:  # cells were cut: the room is used
        assert max(cell_len(ln) for ln in lines) > width - 5
    assert len(lines) == 2 + 5  # the heading, the header, one row a finding: nothing wrapped
    table_ = cells(lines)
    assert list(table_) == COLUMNS_AT[width]  # REVIEWERS goes first, then BLOCKER
    assert "src/auth/session.py:49-52" in table_["LOCATION"]  # short paths stay whole
    monkeypatch.delenv("COLUMNS")
    whole = cells(table(capsys, project))
    if width == 200:  # REVIEWERS gone, the other cells whole: as through a pipe
        assert all(table_[name] == whole[name] for name in table_)
    else:
        assert table_["TITLE"] != whole["TITLE"] and table_["LOCATION"] != whole["LOCATION"]


def test_a_pipe_without_columns_keeps_the_whole_lines(project, capsys):
    """capsys' stdout is not a terminal: with no $COLUMNS nothing is cut (as `status`)."""
    lines = table(capsys, project)
    assert lines == table(capsys, project, "--max-width", "0")
    table_ = cells(lines)
    assert "REVIEWERS" in table_ and ", ".join(TEAM) in table_["REVIEWERS"]
    assert f"{LONG_PATH}:120-134" in table_["LOCATION"]
    assert LONG_TITLE[:59] + "…" in table_["TITLE"]  # titles were always capped at 60 cells
    assert max(cell_len(ln) for ln in lines) > 200


def test_max_width_wins_over_columns(project, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    assert max(map(cell_len, table(capsys, project, "--max-width", "0"))) > 200  # 0: no limit
    assert max(map(cell_len, table(capsys, project, "--max-width", "100"))) <= 100


def test_a_terminal_gives_its_width(project, capsys, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: os.terminal_size((90, 30)))
    lines = table(capsys, project)
    assert all(cell_len(ln) <= 90 for ln in lines) and len(lines) == 7


def test_no_row_ever_wraps_and_every_width_fits(project, capsys):
    for width in range(20, 240, 9):
        lines = table(capsys, project, "--max-width", str(width))
        assert len(lines) == 7, width
        assert all(cell_len(ln) <= width for ln in lines), width
        assert lines[1].startswith("SEVERITY"), width


def test_a_long_path_keeps_its_file_name_and_line(project, capsys):
    lines = table(capsys, project, "--max-width", "80")
    (cell,) = [c for c in cells(lines)["LOCATION"] if "invoice" in c]
    assert "…" in cell and cell.endswith("/invoice_paid.py:120-134")
    head, _, tail = cell.partition("…")
    assert LONG_PATH.startswith(head) and f"{LONG_PATH}:120-134".endswith(tail)


def test_a_long_title_is_cut_at_its_end(project, capsys):
    lines = table(capsys, project, "--max-width", "80")
    (cell,) = [c for c in cells(lines)["TITLE"] if c.startswith("Session token is never")]
    assert cell.endswith("…") and LONG_TITLE.startswith(cell[:-1])
    assert "Session token is logged" in cells(lines)["TITLE"]  # short enough: whole


def test_narrow_tables_stay_escape_safe(project, capsys):
    for width in ("0", "80", "40"):
        _, out, err = run(capsys, str(project), "--max-width", width)
        assert "\x1b" not in out and "\x07" not in out
    assert "␛" in run(capsys, str(project))[1]  # shown, made visible


def test_at_80_columns(project, capsys):
    """The whole table at 80 columns: REVIEWERS and BLOCKER gone (the heading counts the
    blockers), EVOLUTION kept (without it the resolved finding read as open), the long title
    and the long path cut, every line within 80."""
    assert table(capsys, project, "--max-width", "80") == [
        "2026-11-25-main · round 2 · 4 findings · 1 blocker · 1 resolved",
        "SEVERITY  TITLE                             LOCATION                   EVOLUTION",
        "critical  Session token is never rotated …  src/auth/session.py:49-52  new",
        "high      Session token is logged           src/auth/session.py:20     open",
        "medium    Webhook retries are not idempot…  …/invoice_paid.py:120-134  new",
        "low       Cache key ␛]0;pwned␇ ignores th…  src/cache.py:7             new",
        "medium    Retry loop never gives up         src/retry.py:10            resolved",
    ]


def test_a_column_that_says_nothing_goes_first(project, capsys):
    """Round 1 has nothing to evolve from (EVOLUTION all `—`): it went after the titles were
    cut; now first."""
    lines = table(capsys, project, "--round", "1", "--max-width", "80")
    assert "EVOLUTION" not in lines[1]


# --- the heading -------------------------------------------------------------------------------


def test_the_heading_names_the_session_and_round_it_chose(project, capsys):
    lines = table(capsys, project)
    assert lines[0] == f"{SID} · round 2 · 4 findings · 1 blocker · 1 resolved"
    # Round 1 has no synthesis, and the session went on to round 2: it was stopped.
    one = table(capsys, project, "--round", "1")[0]
    assert one == f"{SID} · round 1 · stopped before its synthesis · 2 findings"
    filtered = table(capsys, project, "--min-severity", "high")
    assert filtered[0] == f"{SID} · round 2 · 4 findings · 1 blocker · 1 resolved · 2 shown"
    assert len(filtered) == 2 + 2


def test_json_is_unchanged_by_the_width(project, capsys, monkeypatch):
    code, whole, _ = run(capsys, str(project), "--json")
    monkeypatch.setenv("COLUMNS", "40")
    code2, narrow, _ = run(capsys, str(project), "--json")
    assert code == code2 == 0 and whole == narrow and whole.count("\n") == 1
    doc = json.loads(whole)
    assert list(doc) == ["version", "session", "round", "complete", "counts", "findings"]
    assert doc["session"] == SID and doc["round"] == 2
    assert any(f["file"] == LONG_PATH for f in doc["findings"])  # never cut


# --- cutting a path ------------------------------------------------------------------------------


def test_elide_path_drops_whole_directories_from_the_middle():
    path = "src/api/routes/users.py:195-213"
    assert elide_path(path, 40) == path
    assert elide_path(path, 30) == "…/api/routes/users.py:195-213"  # the nearest directories
    assert elide_path(path, 27) == "…/routes/users.py:195-213"
    assert elide_path("src/services/notifications.py:265-270", 30) == (
        "src/…/notifications.py:265-270"  # then those at the start
    )
    assert elide_path(path, 20) == "…/users.py:195-213"
    assert elide_path(path, 12) == "….py:195-213"  # the end, the line, kept
    for width in range(1, 40):
        cut = elide_path(path, width)
        assert cell_len(cut) <= width
        if width >= 9:
            assert cut.endswith(":195-213")
    assert elide_path("/abs/olute/dir/file.py:1", 18) == "/…/dir/file.py:1"
    assert elide_path("a-very-long-file-name.py:12", 12) == "…-name.py:12"
