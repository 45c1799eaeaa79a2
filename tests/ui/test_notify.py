"""`--notify off|bell|desktop`: the terminal's notification escape chosen
from its identity, byte for byte (tmux passthrough too), never raw text from disk, and, in the
running app, one escape for a change of a session not on screen and none for the one on it."""

from __future__ import annotations

import re
import subprocess

import msgspec
import pytest
from textual.drivers.headless_driver import HeadlessDriver

from ocr_tui.core.project import Project
from ocr_tui.core.view import Elapsed, Round, SessionView
from ocr_tui.ui import notify
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.live import LiveApp
from ocr_tui.ui.notify import (
    BODY_CELLS,
    TITLE_CELLS,
    Note,
    Tmux,
    ask_tmux,
    choose_protocol,
    clean,
    desktop_protocol,
    escape_for,
    escapes,
    kitty_ident,
    notes_for,
)
from ocr_tui.ui.toasts import Event, transitions

from .builders import NOW, SIZE, fixed_clock, iso, loaded, wait_until
from .test_live import set_state

AUTH = "2026-03-10-feat-auth"
CACHE = "2026-03-10-fix-cache"
ESC, BEL, ST = "\x1b", "\x07", "\x1b\\"
TMUX = "/tmp/tmux-1000/default,42,0"

# -- which escape for which terminal ----------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "protocol"),
    [
        ({"KITTY_WINDOW_ID": "1", "TERM": "xterm-kitty"}, "osc99"),
        ({"TERM": "xterm-kitty"}, "osc99"),
        ({"TERM_PROGRAM": "iTerm.app"}, "osc9"),
        ({"LC_TERMINAL": "iTerm2", "TERM": "xterm-256color"}, "osc9"),  # over ssh
        ({"ITERM_SESSION_ID": "w0t0p0:ABC"}, "osc9"),
        ({"TERM_PROGRAM": "WezTerm"}, "osc777"),
        ({"WEZTERM_EXECUTABLE": "/usr/bin/wezterm-gui"}, "osc777"),
        ({"TERM_PROGRAM": "ghostty", "TERM": "xterm-ghostty"}, "osc777"),
        ({"GHOSTTY_RESOURCES_DIR": "/usr/share/ghostty"}, "osc777"),
        ({"TERM": "foot"}, "osc777"),
        ({"TERM": "foot-extra"}, "osc777"),
        ({"TERM": "rxvt-unicode-256color"}, "osc777+bell"),  # with an extension only
        ({"KONSOLE_VERSION": "240802"}, "osc777"),
        ({"WT_SESSION": "5f6c-..."}, "osc777"),
        ({"VTE_VERSION": "7600", "TERM": "xterm-256color"}, "osc777+bell"),  # patched only
        # inside tmux: the outer terminal's variables name it, tmux's own TERM_PROGRAM does not
        ({"TMUX": TMUX, "TERM_PROGRAM": "tmux", "KITTY_WINDOW_ID": "3"}, "osc99"),
        ({"TMUX": TMUX, "TERM_PROGRAM": "tmux", "TERM": "tmux-256color"}, "bell"),
        ({"TERM_PROGRAM": "Apple_Terminal"}, "bell"),
        ({"TERM_PROGRAM": "vscode", "TERM": "xterm-256color"}, "bell"),
        ({"TERM": "alacritty"}, "bell"),
        ({"ConEmuPID": "123", "TERM": "xterm"}, "bell"),
        ({"TERM": "linux"}, "bell"),
        ({}, "bell"),
    ],
)  # fmt: skip
def test_the_protocol_table(env: dict[str, str], protocol: str) -> None:
    assert choose_protocol(env) == protocol


# -- the escapes, byte for byte ---------------------------------------------------------------


def test_osc_777() -> None:
    assert escape_for("osc777", "ocr-tui · Phase", "s1: Context → Review") == (
        "\x1b]777;notify;ocr-tui · Phase;s1: Context → Review\x07"
    )


def test_osc_9_carries_the_title_in_its_one_text() -> None:
    assert escape_for("osc9", "ocr-tui · Phase", "s1: Context → Review") == (
        "\x1b]9;ocr-tui · Phase: s1: Context → Review\x07"
    )


def test_osc_99_title_then_body_under_one_id() -> None:
    assert escape_for("osc99", "ocr-tui · Phase", "s1: A → B", ident="ocr-1") == (
        "\x1b]99;i=ocr-1:d=0;ocr-tui · Phase\x1b\\\x1b]99;i=ocr-1:p=body;s1: A → B\x1b\\"
    )
    # an id is kitty's word: only letters, digits, - and _
    assert escape_for("osc99", "t", "b", ident="a:b;c\x1b") == (
        "\x1b]99;i=abc:d=0;t\x1b\\\x1b]99;i=abc:p=body;b\x1b\\"
    )
    assert re.fullmatch(r"ocr-[0-9a-f]{10}", kitty_ident(AUTH))
    assert kitty_ident(AUTH) == kitty_ident(AUTH) != kitty_ident(CACHE)


def test_tmux_passthrough_doubles_every_esc() -> None:
    assert escape_for("osc777", "T", "B", tmux=True) == (
        "\x1bPtmux;\x1b\x1b]777;notify;T;B\x07\x1b\\"
    )
    assert escape_for("osc9", "T", "B", tmux=True) == "\x1bPtmux;\x1b\x1b]9;T: B\x07\x1b\\"
    assert escape_for("osc99", "T", "B", tmux=True, ident="x") == (
        "\x1bPtmux;\x1b\x1b]99;i=x:d=0;T\x1b\x1b\\\x1b\x1b]99;i=x:p=body;B\x1b\x1b\\\x1b\\"
    )


def test_the_bell_is_never_wrapped() -> None:
    assert escape_for("bell", "T", "B") == BEL
    assert escape_for("bell", "T", "B", tmux=True) == BEL
    notes = [Note("a", "b", "s1"), Note("c", "d", "s2")]
    assert escapes(notes, "bell", tmux=True) == [BEL]  # one ring for a batch
    assert escapes([], "osc777", tmux=False) == []
    with pytest.raises(ValueError):
        escape_for("osc1337", "T", "B")


def test_tmux_that_drops_the_escape_gets_the_bell() -> None:
    def answer(out: str, rc: int = 0):
        def run(argv, **kw):
            assert argv == ["tmux", "display-message", "-p", notify.TMUX_ASK]
            return subprocess.CompletedProcess(argv, rc, out, "")

        return run

    def broken(argv, **kw):
        raise FileNotFoundError("tmux")

    env = {"TMUX": TMUX, "TERM": "tmux-256color", "KITTY_WINDOW_ID": "1"}
    assert ask_tmux(env, answer("0\txterm-kitty\n")) == Tmux(blocks=True, term="xterm-kitty")
    assert desktop_protocol(env, answer("0\txterm-kitty\n")) == "bell"
    assert desktop_protocol(env, answer("1\txterm-kitty\n")) == "osc99"
    assert not ask_tmux(env, answer("all\t\n")).blocks  # tmux 3.4: invisible panes too
    assert ask_tmux(env, answer("\tfoot\n")) == Tmux(term="foot")  # before 3.3: no option
    assert ask_tmux(env, answer("", 1)) == Tmux()
    assert ask_tmux(env, broken) == Tmux()
    assert ask_tmux({}, broken) == Tmux()  # not in tmux: tmux is not asked


def test_inside_tmux_the_attached_terminal_names_itself() -> None:
    """foot and urxvt export nothing but TERM, which tmux replaces: its `client_termname`
    names them (seen for real: foot 1.13 in tmux 3.3a said `foot`)."""
    env = {"TMUX": TMUX, "TERM": "tmux-256color", "TERM_PROGRAM": "tmux"}

    def says(term: str):
        return lambda argv, **kw: subprocess.CompletedProcess(argv, 0, f"1\t{term}\n", "")

    assert desktop_protocol(env, says("foot")) == "osc777"
    assert desktop_protocol(env, says("xterm-ghostty")) == "osc777"
    assert desktop_protocol(env, says("rxvt-unicode-256color")) == "osc777+bell"
    assert desktop_protocol(env, says("xterm-256color")) == "bell"
    assert desktop_protocol(env, says("\x1b]0;x\x07foot")) == "bell"  # cleaned, not foot
    # the outer TERM counts only for tmux's (or screen's) own TERM
    assert choose_protocol({"TMUX": TMUX, "TERM": "xterm-256color"}, "foot") == "bell"
    assert choose_protocol({"TERM": "screen"}, "foot") == "bell"  # not in tmux


def test_uncertain_terminals_get_the_bell_too() -> None:
    notes = [Note("T1", "B1", "s1"), Note("T2", "B2", "s2")]
    out = escapes(notes, "osc777+bell", tmux=False)
    assert out[:2] == [escape_for("osc777", n.title, n.body) for n in notes]
    assert out[2:] == [BEL]  # one bell for the batch


# -- hostile text ---------------------------------------------------------------------------

HOSTILE = [
    "\x1b]777;notify;pwned;x\x07",  # an escape of its own
    "a\x1b\\b",  # ST, 7-bit
    "a\x9cb\x9b31mc\x90d\x9de",  # C1: ST, CSI, DCS, OSC
    "semi;colons;here",
    "line one\nline two\r\nthree\tfour",
    "bell\x07\x07\x00nul\x7fdel",
    "bidi\u202eevil\u2066x\u2069",
    "surrogate \udcff byte",
    "x" * 10_000,
    "\x1b" * 5_000 + ";" * 5_000,
    "宽" * 200,  # wide characters: two cells each
]


def payload(seq: str, protocol: str, tmux: bool) -> str:
    """The text between the escape's fixed parts (what came from the title and body)."""
    if tmux:
        assert seq.startswith("\x1bPtmux;") and seq.endswith(ST)
        seq = seq[len("\x1bPtmux;") : -len(ST)].replace(ESC + ESC, ESC)
    if protocol == "osc777":
        m = re.fullmatch(r"\x1b\]777;notify;([^;]*);([^;]*)\x07", seq, re.S)
        assert m, repr(seq)
        return m.group(1) + m.group(2)
    if protocol == "osc9":
        m = re.fullmatch(r"\x1b\]9;([^;]*)\x07", seq, re.S)
        assert m, repr(seq)
        return m.group(1)
    m = re.fullmatch(
        r"\x1b\]99;i=[\w-]+:d=0;(.*?)\x1b\\\x1b\]99;i=[\w-]+:p=body;(.*?)\x1b\\", seq, re.S
    )
    assert m, repr(seq)
    return m.group(1) + m.group(2)


@pytest.mark.parametrize("tmux", [False, True])
@pytest.mark.parametrize("protocol", ["osc777", "osc9", "osc99"])
@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_never_reaches_the_escape_raw(text: str, protocol: str, tmux: bool) -> None:
    seq = escape_for(protocol, text, text, tmux, ident=text)
    inner = payload(seq, protocol, tmux)
    assert not re.search("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", inner)
    assert "\udcff" not in inner
    if protocol != "osc99":
        assert ";" not in inner
    assert len(inner) <= TITLE_CELLS + BODY_CELLS + 2  # ": " (OSC 9's title: body)


def test_clean() -> None:
    assert clean("a\x1b[31mred\x1b[0m\x07", 40) == "a[31mred[0m"
    assert clean("line one\n\nline two\t end", 40) == "line one line two end"
    assert clean("x" * 10_000, 40) == "x" * 39 + "…"
    assert clean("宽" * 100, 10) == "宽" * 4 + "…"  # cells, not characters
    assert clean("  \x9c\x9b  ", 40) == ""
    assert clean("semi;colon", 40) == "semi;colon"  # `;` is the escapes' to replace


# -- which events, in how many notifications ----------------------------------------------------


def test_notes_follow_the_toasts_rules() -> None:
    ev = [
        Event("phase", "s1", "s1: A → B"),
        Event("round", "s1", "s1: round 1 complete · APPROVE · 0 blockers"),
        Event("phase", "s2", "s2: A → B"),
    ]
    assert notes_for(ev, viewed="s2") == [
        Note(
            "ocr-tui · Round complete",
            "s1: A → B — s1: round 1 complete · APPROVE · 0 blockers",
            "s1",
        )
    ]
    assert notes_for(ev[2:], viewed="s2") == []
    many = [Event("new", f"n{i}", f"n{i}") for i in range(5)]
    assert notes_for(many, None) == [Note("ocr-tui · New sessions", "5 new sessions", "new")]
    busy = [Event("phase", f"s{i}", f"s{i}: A → B") for i in range(6)]
    assert notes_for(busy, None) == [Note("ocr-tui · Sessions", "6 sessions changed", "sessions")]


def view(**kw) -> SessionView:
    base = SessionView(framework="ocr",
        id="s1", branch=None, source="state.json", status="active", workflow="review",
        phase="reviews", phase_label="Parallel Reviews", phase_number=4, phase_total=8,
        complete=False, started_at=None, updated_at=None, last_activity=None, stalled=False,
        elapsed=Elapsed(since=None, seconds=None, running=False), current_round=1,
        rounds=[], current_map_run=None, map_runs=[], problems=[], path="/p",
    )  # fmt: skip
    return msgspec.structs.replace(base, **kw)


def rnd(complete: bool, verdict: str | None = None, blockers: int = 0) -> Round:
    return Round(
        number=1, complete=complete, discourse=False, verdict=verdict, counts=None,
        reviewers=[], blockers=blockers, path="rounds/round-1",
    )  # fmt: skip


def texts(old: SessionView, new: SessionView) -> list[tuple[str, str]]:
    return [(e.kind, e.text) for e in transitions(old, new)]


def test_the_events_a_session_raises() -> None:
    running = view(rounds=[rnd(False)])
    stalled = msgspec.structs.replace(running, stalled=True)
    assert texts(running, stalled) == [("stalled", "s1: stalled in Parallel Reviews")]
    assert texts(stalled, stalled) == []
    done = view(
        phase="complete", phase_label="Complete", complete=True,
        rounds=[rnd(True, "REQUEST CHANGES", 2)],
    )  # fmt: skip
    assert texts(running, done) == [
        ("round", "s1: round 1 complete · REQUEST CHANGES · 2 blockers"),
        ("finished", "s1: finished"),
    ]
    closed = msgspec.structs.replace(running, status="closed")
    assert texts(running, closed) == [("finished", "s1: closed in Parallel Reviews")]
    one = view(phase="synthesis", phase_label="Synthesis", rounds=[rnd(True, "APPROVE", 1)])
    assert texts(running, one) == [
        ("round", "s1: round 1 complete · APPROVE · 1 blocker"),
        ("phase", "s1: Parallel Reviews → Synthesis"),
    ]
    hostile = view(phase="x", phase_label="\x1b]0;owned\x07")
    assert "\x1b" not in texts(running, hostile)[0][1]


def test_the_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    assert LiveApp(None).notify_mode == "off"
    monkeypatch.setenv("TERM", "foot")
    monkeypatch.setattr("ocr_tui.ui.notify.ask_tmux", lambda env, run=None: Tmux(blocks=True))
    assert LiveApp(None, notify="desktop")._notify_protocol == "bell"
    monkeypatch.setattr("ocr_tui.ui.notify.ask_tmux", lambda env, run=None: Tmux())
    assert LiveApp(None, notify="desktop")._notify_protocol == "osc777"
    assert LiveApp(None, bell=True).notify_mode == "bell"
    assert LiveApp(None, notify="desktop").notify_mode == "desktop"
    with pytest.raises(ValueError):
        LiveApp(None, notify="loud")


# -- in the running app -----------------------------------------------------------------------

IDENTITY = (
    "TERM", "TERM_PROGRAM", "LC_TERMINAL", "ITERM_SESSION_ID", "KITTY_WINDOW_ID",
    "WEZTERM_EXECUTABLE", "WEZTERM_PANE", "GHOSTTY_RESOURCES_DIR", "KONSOLE_VERSION",
    "WT_SESSION", "VTE_VERSION", "TMUX",
)  # fmt: skip


@pytest.mark.parametrize("tmux", [False, True])
async def test_one_escape_for_a_session_not_on_screen(
    project: Project, monkeypatch: pytest.MonkeyPatch, tmux: bool
) -> None:
    for name in IDENTITY:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "foot")
    if tmux:
        monkeypatch.setenv("TMUX", TMUX)
    monkeypatch.setattr("ocr_tui.ui.notify.ask_tmux", lambda env, run=None: Tmux())
    written: list[str] = []
    monkeypatch.setattr(HeadlessDriver, "write", lambda self, data: written.append(data))
    app = OcrTuiApp(project, clock=fixed_clock, notify="desktop")

    def notes() -> list[str]:
        return [w for w in written if "]777;" in w]

    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("j", "j")  # the cursor (and the detail pane) on fix-cache
        assert app.main_screen.table.highlighted_id == CACHE

        set_state(project, CACHE, current_phase="synthesis", updated_at=iso(NOW))
        await wait_until(
            pilot,
            lambda: app.sessions[CACHE].phase == "synthesis",
            what="fix-cache to be read at the synthesis phase",
        )
        await pilot.pause()
        assert notes() == []  # on screen: no notification

        set_state(project, AUTH, current_phase="discourse", updated_at=iso(NOW))
        await wait_until(
            pilot,
            lambda: app.sessions[AUTH].phase == "discourse",
            what="feat-auth to be read at the discourse phase",
        )
        await wait_until(pilot, lambda: notes(), what="a notification for feat-auth, off screen")
        await pilot.pause()
    seq = "\x1b]777;notify;ocr-tui · Phase;" + AUTH + ": Parallel Reviews → Reviewer Discourse\x07"
    if tmux:
        seq = "\x1bPtmux;" + seq.replace(ESC, ESC + ESC) + ST
    assert notes() == [seq]


async def test_the_bell_rings_for_sessions_not_on_screen_only(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = OcrTuiApp(project, clock=fixed_clock, bell=True)
    bells: list[int] = []
    monkeypatch.setattr(app, "bell", lambda: bells.append(1))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("j", "j")
        set_state(project, CACHE, current_phase="synthesis", updated_at=iso(NOW))
        await wait_until(
            pilot,
            lambda: app.sessions[CACHE].phase == "synthesis",
            what="fix-cache to be read at the synthesis phase",
        )
        await pilot.pause()
        assert bells == []
        set_state(project, AUTH, current_phase="discourse", updated_at=iso(NOW))
        await wait_until(pilot, lambda: bells, what="the bell for feat-auth, off screen")
        await pilot.pause()
        assert bells == [1]
