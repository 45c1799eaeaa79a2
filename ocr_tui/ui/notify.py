"""`--notify off|bell|desktop`: the change toasts' events (`ocr_tui.ui.toasts.transitions`: a
session started, a phase changed, a round completed with its verdict and blocker count, a
session stalled or finished) told to a user who is not looking at the dashboard, as the
terminal's bell or as a desktop notification the terminal raises for an escape sequence.

No Textual, and pure but for `ask_tmux` (which asks tmux, once, as the app is built).
`LiveApp` (`ocr_tui.ui.live`) writes what this returns, on the UI thread.

The escape is chosen from the terminal's identity in the environment (`choose_protocol`); the
first that matches wins:

- kitty (`KITTY_WINDOW_ID`, `TERM=xterm-kitty`, `TERM_PROGRAM=kitty`): OSC 99, kitty's own
  (a title and a body; from kitty 0.36 a newer note on the same session replaces the one
  shown, before that each is a note of its own);
- iTerm2 (`TERM_PROGRAM=iTerm.app`, `LC_TERMINAL=iTerm2`, `ITERM_SESSION_ID`): OSC 9 (one
  text: `title: body`);
- WezTerm (`WEZTERM_EXECUTABLE`, `WEZTERM_PANE`, `TERM_PROGRAM=WezTerm`), Ghostty
  (`GHOSTTY_RESOURCES_DIR`, `TERM_PROGRAM=ghostty`, `TERM=xterm-ghostty`), foot (`TERM=foot*`),
  Konsole (`KONSOLE_VERSION`), Windows Terminal (`WT_SESSION`; 1.25 on): OSC 777;
- VTE terminals (`VTE_VERSION`: GNOME Terminal, Tilix, xfce4-terminal...) and urxvt
  (`TERM=rxvt-unicode*`): OSC 777 and the bell (`osc777+bell`). They show OSC 777 only with a
  patch or an extension (Fedora's and Ubuntu's GNOME Terminal; urxvt with a `notify-osc`
  perl extension) and drop it silently without: Debian's GNOME Terminal 3.46 and
  xfce4-terminal 1.0 showed nothing, so the bell rings as well;
- anything else (Apple Terminal, Alacritty, VS Code, ConEmu, the Linux console...): the bell.

Inside tmux (`$TMUX`) the outer terminal is the one that shows the notification: the variables
above that it exported before tmux started (tmux sets `TERM_PROGRAM=tmux` itself, which names no
terminal) pick the escape, and where they name none, the `TERM` of the terminal attached
(tmux's `client_termname`: foot and urxvt export nothing else); the escape is wrapped in tmux's
passthrough (`ESC P tmux; … ESC \\`, every ESC inside doubled), which tmux 3.3+ forwards only
with `set -g allow-passthrough on`: when tmux says it is off (`ask_tmux`), the bell instead,
as tmux would drop the escape without a trace. The bell needs no wrapping: tmux passes it on
by itself (`bell-action`). Tried for real (Debian 12, notifications read off D-Bus): kitty
0.26 (OSC 99, 9 and 777 all shown), foot 1.13 (777 and 9), Konsole 22.12 (777), each end to
end with `--notify desktop`, kitty and foot through tmux 3.3 too; xterm, Alacritty: the bell.

Every title and body is cleaned (`clean`): no control character at all (C0, DEL, C1, so no
ESC, BEL or ST; the bidi overrides), whitespace runs one space, at most TITLE_CELLS / BODY_CELLS
terminal cells with `…`. `;` separates OSC 777's fields (and OSC 9's sub-commands in ConEmu,
Windows Terminal and Ghostty: `9;4;…` is a progress bar), so it becomes `,` in those two.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ocr_tui.core.cells import clip_end
from ocr_tui.core.textsafe import unsurrogate
from ocr_tui.ui.toasts import MAX_NEW_SESSION_TOASTS, MAX_SESSION_TOASTS, TITLES, Event

MODES = ("off", "bell", "desktop")
PROTOCOLS = ("osc99", "osc9", "osc777", "osc777+bell", "bell")
TITLE_CELLS = 40
BODY_CELLS = 120
APP = "ocr-tui"

ESC = "\x1b"
BEL = "\x07"
ST = ESC + "\\"

# Every control character (C0 with tab and newline, DEL, C1), the line and paragraph separators
# and the bidi overrides; whitespace (a newline too) is made one space first.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufe0f]")
_SPACE = re.compile(r"[\s\u2028\u2029]+")


def choose_protocol(env: Mapping[str, str], outer_term: str = "") -> str:
    """One of PROTOCOLS for the terminal `env` (os.environ) describes (the table above);
    `outer_term`: inside tmux, the TERM of the terminal attached (`ask_tmux`)."""
    term = env.get("TERM", "")
    if outer_term and in_tmux(env) and term.startswith(("tmux", "screen")):
        term = outer_term
    program = env.get("TERM_PROGRAM", "")
    if env.get("KITTY_WINDOW_ID") or term == "xterm-kitty" or program == "kitty":
        return "osc99"
    if program == "iTerm.app" or env.get("LC_TERMINAL") == "iTerm2" or env.get("ITERM_SESSION_ID"):
        return "osc9"
    if env.get("WEZTERM_EXECUTABLE") or env.get("WEZTERM_PANE") or program == "WezTerm":
        return "osc777"
    if env.get("GHOSTTY_RESOURCES_DIR") or program == "ghostty" or term == "xterm-ghostty":
        return "osc777"
    if term.startswith("foot") or env.get("KONSOLE_VERSION") or env.get("WT_SESSION"):
        return "osc777"
    if term.startswith("rxvt-unicode") or env.get("VTE_VERSION"):
        return "osc777+bell"
    return "bell"


def in_tmux(env: Mapping[str, str]) -> bool:
    return bool(env.get("TMUX"))


@dataclass(frozen=True)
class Tmux:
    """What tmux says of the pane ocr-tui runs in: whether its `allow-passthrough` is off
    (the escapes would be dropped), and the TERM of the terminal attached ("" unknown)."""

    blocks: bool = False
    term: str = ""


TMUX_ASK = "#{allow-passthrough}\t#{client_termname}"


def ask_tmux(
    env: Mapping[str, str], run: Callable[..., subprocess.CompletedProcess] = subprocess.run
) -> Tmux:
    """Inside tmux, one question to it (`Tmux`); outside, or when tmux cannot be asked,
    `Tmux()`. `allow-passthrough` reads 0 when off, 1 or `all` when on, nothing before tmux
    3.3 (no such option: the escape is passed on)."""
    if not in_tmux(env):
        return Tmux()
    try:
        done = run(
            ["tmux", "display-message", "-p", TMUX_ASK],
            capture_output=True, text=True, timeout=1.0, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return Tmux()
    if done.returncode != 0:
        return Tmux()
    passthrough, _, term = done.stdout.strip("\n").partition("\t")
    return Tmux(blocks=passthrough.strip() in ("0", "off"), term=clean(term, 40))


def desktop_protocol(
    env: Mapping[str, str], run: Callable[..., subprocess.CompletedProcess] = subprocess.run
) -> str:
    """The protocol `--notify desktop` uses here: `choose_protocol`'s, asking tmux inside it
    (the bell when tmux would drop the escape)."""
    tmux = ask_tmux(env, run)
    return "bell" if tmux.blocks else choose_protocol(env, tmux.term)


def clean(text: object, cap: int) -> str:
    """`text` (from disk, maybe hostile) as one short line for a notification: no control
    character, whitespace runs one space, at most `cap` terminal cells (`…` when cut)."""
    out = _SPACE.sub(" ", unsurrogate(str(text)))
    out = _CONTROL.sub("", out).strip()
    return clip_end(out, cap)


def escape_for(
    protocol: str, title: str, body: str, tmux: bool = False, *, ident: str = APP
) -> str:
    """The escape sequence that asks the terminal for a notification (the bell for "bell"),
    wrapped for tmux's passthrough if `tmux`. `title` and `body` are cleaned here (TITLE_CELLS,
    BODY_CELLS). `ident`: kitty's notification id (`[A-Za-z0-9-_]`; a newer notification
    with the same id replaces the one shown)."""
    if protocol == "bell":
        return BEL
    title = clean(title, TITLE_CELLS)
    body = clean(body, BODY_CELLS)
    if protocol == "osc777":
        seq = f"{ESC}]777;notify;{_field(title)};{_field(body)}{BEL}"
    elif protocol == "osc9":
        text = f"{title}: {body}" if title and body else title or body
        seq = f"{ESC}]9;{_field(text)}{BEL}"
    elif protocol == "osc99":
        ident = re.sub(r"[^A-Za-z0-9_-]", "", ident) or APP
        seq = f"{ESC}]99;i={ident}:d=0;{title}{ST}{ESC}]99;i={ident}:p=body;{body}{ST}"
    else:
        raise ValueError(f"unknown notification protocol: {protocol!r}")
    return tmux_passthrough(seq) if tmux else seq


def tmux_passthrough(seq: str) -> str:
    """`seq` for tmux to hand on to the terminal it runs in (needs `allow-passthrough on`)."""
    return f"{ESC}Ptmux;" + seq.replace(ESC, ESC + ESC) + ST


def _field(text: str) -> str:
    return text.replace(";", ",")


# -- which events, in which notifications --------------------------------------------------


@dataclass(frozen=True)
class Note:
    """One notification: `key` names what it is about (a session's id), for kitty's `i=`."""

    title: str
    body: str
    key: str


def notes_for(events: Sequence[Event], viewed: str | None) -> list[Note]:
    """The notifications for one batch of events, by the toasts' rules: none for the session
    on screen (`viewed`), one per session (its events on one line, titled by the last), many
    new sessions at once one note, changes of more than MAX_SESSION_TOASTS sessions one note."""
    events = [e for e in events if e.session != viewed]
    notes: list[Note] = []
    new = [e for e in events if e.kind == "new"]
    if len(new) > MAX_NEW_SESSION_TOASTS:
        events = [e for e in events if e.kind != "new"]
        notes.append(Note(f"{APP} · New sessions", f"{len(new)} new sessions", "new"))
    by_session: dict[str, list[Event]] = {}
    for e in events:
        by_session.setdefault(e.session, []).append(e)
    if len(by_session) > MAX_SESSION_TOASTS:
        n = len(by_session)
        return [*notes, Note(f"{APP} · Sessions", f"{n} sessions changed", "sessions")]
    for sid, mine in by_session.items():
        title = f"{APP} · {TITLES[mine[-1].kind]}"
        notes.append(Note(title, " — ".join(e.text for e in mine), sid))
    return notes


def kitty_ident(key: str) -> str:
    """A notification id kitty accepts, the same for the same `key` (a session's id)."""
    return "ocr-" + hashlib.sha1(key.encode("utf-8", "surrogateescape")).hexdigest()[:10]


def escapes(notes: Sequence[Note], protocol: str, tmux: bool) -> list[str]:
    """What to write for `notes` with `protocol`: one escape per note, or one bell for all."""
    if not notes:
        return []
    if protocol == "bell":
        return [BEL]
    osc = "osc777" if protocol == "osc777+bell" else protocol
    out = [escape_for(osc, n.title, n.body, tmux, ident=kitty_ident(n.key)) for n in notes]
    return [*out, BEL] if protocol == "osc777+bell" else out
