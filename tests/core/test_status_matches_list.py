"""The dashboard's list and `ocr-tui status` say the same things in the same words ("one
vocabulary"): the session's time (Elapsed) and OCR's round time (Round time), the formats' names,
the columns' names, the ids shortened by one rule for every row, the same column plan fitting the
width, `--oneline` in 60 cells with the list's words."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import msgspec
import pytest
from rich.cells import cell_len

from ocr_tui.cli import main
from ocr_tui.core import display, registry
from ocr_tui.core.lenient import blank_view
from ocr_tui.core.view import Elapsed, SessionView
from ocr_tui.status_text import oneline, table

NOW = datetime(2026, 11, 23, 22, 0, tzinfo=UTC)


def iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def view(sid: str = "s", framework: str = "ocr", workflow: str = "review", **kw) -> SessionView:
    v = blank_view(sid, "/p", framework, workflow, source="x", problems=[], phase_total=8)
    return msgspec.structs.replace(v, **kw)


def closed_ocr(sid: str = "2026-11-22-main") -> SessionView:
    """A closed review that ran 9 minutes, its last round 4 min 11 s."""
    start = NOW - timedelta(days=1)
    end = start + timedelta(minutes=9, seconds=20)
    round_start = end - timedelta(minutes=4, seconds=11)
    return view(
        sid,
        status="closed",
        complete=True,
        started_at=iso(start),
        last_activity=iso(end),
        elapsed=Elapsed(since=iso(round_start), seconds=251, running=False),
    )


# --- 1. one session time -----------------------------------------------------------------


def test_elapsed_is_the_session_time_in_the_list_and_in_status():
    from ocr_tui.ui.screens.sessions.cells import row_cells

    v = closed_ocr()
    assert display.session_seconds(v, NOW) == 9 * 60 + 20
    assert display.round_seconds(v, NOW) == 251
    cells = row_cells(v, NOW)
    assert cells["elapsed"][0][0] == display.elapsed_text(v, NOW) == "9m"
    assert cells["round_time"][0][0] == display.round_time_text(v, NOW) == "4m"
    lines = table([v], None, NOW).splitlines()
    head = [h for h in lines[0].split("  ") if h.strip()]
    assert [h.strip() for h in head][-4:] == ["ROUND TIME", "ELAPSED", "STARTED (UTC)", "ACTIVITY"]
    start = lines[0].index("ELAPSED")
    assert lines[1][start:].split()[0] == "9m"  # not OCR's round time (was `4m 11s`)
    assert lines[1][lines[0].index("ROUND TIME") :].split()[0] == "4m"
    assert oneline([v], None, NOW).endswith(" · 9m")


def test_status_json_says_the_session_time(tmp_path, capsys):
    from ocr_tui.demo import every_format_part_way

    every_format_part_way(tmp_path)
    assert main(["status", "--json", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    for s in doc["sessions"]:
        assert "elapsed" in s and set(s["elapsed"]) == {"since", "seconds", "running"}  # kept
        assert s["session_seconds"] is None or isinstance(s["session_seconds"], int)
    assert any(s["session_seconds"] for s in doc["sessions"])


# --- 2. one word per format and per column -------------------------------------------------


def test_a_format_has_one_short_name_in_the_list_and_in_status():
    from ocr_tui.ui.screens.sessions import layout as list_layout
    from ocr_tui.ui.screens.sessions.cells import row_cells

    v = view("session-20261123-220146-10156", "analysis", "analysis", started_at=iso(NOW))
    assert row_cells(v, NOW)["format"][0][0] == "analysis"
    fmt_cap = list_layout.BY_KEY["format"].cap
    assert all(
        len(display.format_short(f)) <= fmt_cap
        for f in (cls.framework for cls in registry.source_classes())
    )
    out = table([v, closed_ocr()], None, NOW)
    assert "analysis" in out.splitlines()[1] and " sci " not in out


def test_status_columns_are_the_lists_in_upper_case():
    from ocr_tui.ui.screens.sessions import layout as list_layout

    other = view("261123-x", "code", "code:fast", alerts=["stale: idle over 48h"])
    head = table([closed_ocr(), other], None, NOW).splitlines()[0]
    names = [h.strip() for h in head.split("  ") if h.strip()]
    listed = {s.header.upper() for s in list_layout.SPECS} | {"STARTED (UTC)"}
    assert set(names) - {"STATUS"} <= listed, names
    assert "NEEDS" in names and "FLOW" in names and "FMT" in names and "RND" in names
    for old in ("ALERT", "WORKFLOW", "FORMAT", "ROUND"):
        assert old not in names


# --- 3. one id-shortening rule ------------------------------------------------------------


def test_shorten_id_drops_the_redundant_prefix_then_the_middle():
    assert display.id_core("2026-11-23-feat-live-review") == "feat-live-review"
    assert display.id_core("261123-csv-export") == "csv-export"
    assert display.id_core("session-20261123-220146-10156") == "20261123-220146-10156"
    assert display.id_core("ses_u8jzPde0IgxLd6GncfBAepfJBd") == "u8jzPde0IgxLd6GncfBAepfJBd"
    assert display.id_core("2026-11-23-") == "2026-11-23-"  # never empty
    short = display.shorten_id("session-20261123-220146-10156", 16, drop=True)
    assert short.startswith("2026") and short.endswith("-10156") and cell_len(short) == 16
    long = display.shorten_id("2026-11-23-feat-live-review-with-cache", 20, drop=True)
    assert long.endswith("with-cache") and "…" in long and cell_len(long) == 20
    assert display.shorten_id("2026-11-22-main", 30, drop=False) == "2026-11-22-main"


def test_ambiguous_ids_keep_their_prefix():
    ids = ["2026-11-22-main", "2026-11-23-main", "2026-11-23-feat"]
    assert display.ambiguous(ids) == {"2026-11-22-main", "2026-11-23-main"}
    assert display.ambiguous(["2026-11-22-main", "2026-11-23-feat"]) == set()


def test_status_shortens_every_id_alike():
    long = "2026-11-23-feature-a-very-long-branch-name-for-the-login-page-rework"
    views = [closed_ocr(), closed_ocr(long), view("session-20261123-220146-10156", "analysis",
             "analysis")]  # fmt: skip
    lines = table(views, 100, NOW).splitlines()
    ids = [ln.split()[0] for ln in lines[1:4]]
    assert ids[0] == "main"  # it would fit whole: the date goes in every row alike
    assert ids[1].endswith("login-page-rework") and "…" in ids[1]
    assert ids[2] == "20261123-220146-10156"  # the date that differs between rows, kept
    whole = table(views, None, NOW)  # a pipe: every cell whole
    assert long in whole and "2026-11-22-main" in whole and "session-2026" in whole


# --- 4. the same column plan -------------------------------------------------------------


def demo_views() -> list[SessionView]:
    """Like the demo: OCR, code and analysis sessions, alerts in few of them."""
    phase = dict(phase_label="Document Generation", phase_number=6, phase_total=8)
    out = [closed_ocr(f"2026-11-{20 + i}-feat-live-review-{i}") for i in range(3)]
    out += [view(f"session-2026112{i}-223129-1015{i}", "analysis", "analysis", **phase)
            for i in range(3)]  # fmt: skip
    out += [view(f"26112{i}-api-rate-limiting-{i}", "code", "code") for i in range(3)]
    out.append(view("261120-jwt", "code", "code", alerts=["stale: idle over 48h; start fresh"]))
    return out


def test_status_at_80_keeps_the_phase_whole_before_a_mostly_blank_column():
    lines = table(demo_views(), 80, NOW).splitlines()
    assert all(cell_len(ln) <= 80 for ln in lines)
    # not `6/8 Reviewe…`: the phase is planned for its labels up to 20 cells (every OCR
    # phase's; the analysis' longest is cut), as the list plans it, whatever the cells now
    assert "6/8 Document Generation" in lines[4]  # whole: planned for its labels
    names = [h.strip() for h in lines[0].split("  ") if h.strip()]
    assert "FMT" not in names  # the format gave way before the phase was cut


@pytest.mark.parametrize("width", [80, 120, 200])
def test_status_plans_its_columns_as_the_list_does(width):
    views = demo_views()
    lines = table(views, width, NOW).splitlines()
    names = [h.strip() for h in lines[0].split("  ") if h.strip()]
    from ocr_tui.ui.screens.sessions import layout as list_layout

    order = [s.header.upper() for s in list_layout.SPECS]
    kept = [n.split(" (")[0] for n in names if n != "STATUS"]
    assert kept == [n for n in order if n in kept]  # the list's order


# --- 5. the list at 200 columns: nothing cut while another column has room ---------------


def test_list_plan_at_200_gives_room_to_cut_cells_before_air():
    from ocr_tui.ui.screens.sessions import layout as list_layout

    natural = {"id": 32, "id_core": 26, "format": 8, "flow": 6, "phase": 29, "round": 2}
    natural |= {"reviewers": 1, "findings": 1, "verdict": 16, "agents": 20, "needs": 25}
    natural |= {"started": 12}
    every = {"ocr", "code", "analysis", "idumb"}
    shown = {s.key: s.width for s in list_layout.plan(every, natural, 200)}
    assert sum(w + 2 for w in shown.values()) == 200
    # what the cells need, now that the ids lost their prefix (`id_core`); the verdict in
    # its short form (CHANGES, DISCUSS: nothing lost) while free-text cells want the room
    for key in ("phase", "agents", "needs"):
        assert shown[key] >= natural[key], (key, shown)
    assert shown["verdict"] >= len("DISCUSS")
    assert shown["id"] >= natural["id_core"]


# --- 6. --oneline -------------------------------------------------------------------------


def test_oneline_fits_60_cells_in_the_lists_words():
    code = view("261123-api-rate-limiting", "code", "code:fast",
                summary="2× scouter (parallel)", waiting=True, started_at=iso(NOW))  # fmt: skip
    line = oneline([code], now=NOW)
    assert cell_len(line) <= 60
    assert line.startswith("◆ api-rate-limiting")  # no date: the list's id rule
    assert "your approval" in line  # the list's Needs words
    whole = oneline([code], None, NOW)
    assert "code fast" in whole and "code:code" not in whole  # Fmt and Flow, as listed
    m = view("2026-11-19-map", "ocr", "map", current_map_run=1, started_at=iso(NOW))
    assert " · M1 · " in oneline([m], None, NOW)  # the list's Rnd: map run 1
