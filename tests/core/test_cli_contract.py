"""The command line's contract: `--version`; a mistyped command is
a usage error with a "did you mean", not a PATH; a PATH that does not exist says so; the
dashboard refuses to start without a terminal (exit 2, pointing at `status` and `watch
--jsonl`) unless OCR_TUI_FORCE_TTY=1, and still opens in one. Exit codes: 2 for usage errors,
a missing PATH or project, an unknown session; the stdout guard's rules still hold."""

from __future__ import annotations

import fcntl
import importlib.metadata
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from ocr_tui import cli
from ocr_tui.cli import COMMANDS, FORCE_TTY, main

SCRIPT = Path(sys.executable).with_name("ocr-tui")
WAIT_S = 60.0


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.delenv(FORCE_TTY, raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)


class FakeApp:
    return_code = 0

    def __init__(self, project, **kw) -> None:
        self.project, self.kw = project, kw

    def run(self) -> None:
        pass


@pytest.fixture
def built(monkeypatch) -> list[FakeApp]:
    """The dashboards `main` builds (none runs): `make_app` replaced by a recorder."""
    apps: list[FakeApp] = []

    def make_app(project, **kw):
        apps.append(FakeApp(project, **kw))
        return apps[-1]

    monkeypatch.setattr(cli, "make_app", make_app)
    return apps


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse: --help, --version, a usage error
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def project(root: Path) -> Path:
    (root / ".ocr" / "sessions").mkdir(parents=True)
    return root


def script(*args: str, **kw) -> subprocess.CompletedProcess:
    assert SCRIPT.exists(), "ocr-tui is not installed in the venv (pip install -e .)"
    env = {k: v for k, v in os.environ.items() if k not in (FORCE_TTY, "COLUMNS")}
    env["OCR_TUI_CACHE_DIR"] = "off"
    return subprocess.run(
        [str(SCRIPT), *args], stdin=subprocess.DEVNULL, capture_output=True, timeout=WAIT_S,
        env=env, **kw,
    )  # fmt: skip


# --- --version, unknown words, paths -------------------------------------------------


def test_version_prints_the_installed_version(capsys):
    code, out, err = run(capsys, "--version")
    assert (code, err) == (0, "")
    assert out == f"ocr-tui {importlib.metadata.version('ocr-tui')}\n"


def test_version_falls_back_to_the_package(capsys, monkeypatch):
    import ocr_tui

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out == f"ocr-tui {ocr_tui.__version__}\n"


def test_version_from_the_installed_script():
    done = script("--version")
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.decode().startswith("ocr-tui ") and done.stdout.count(b"\n") == 1


@pytest.mark.parametrize(
    ("word", "hint"),
    [
        ("stauts", "did you mean 'status'?"),
        ("statu", "did you mean 'status'?"),
        ("findigns", "did you mean 'findings'?"),
        ("wach", "did you mean 'watch'?"),
        ("dashbord", "did you mean 'dashboard'?"),
        ("help", "did you mean '--help'?"),
        ("version", "did you mean '--version'?"),
        ("zzz", "(commands: " + ", ".join(COMMANDS) + ")"),
    ],
)
def test_an_unknown_word_is_a_usage_error(word, hint, tmp_path, monkeypatch, capsys, built):
    """Not a command and not an existing path: never the dashboard on a PATH of that name."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(FORCE_TTY, "1")  # the dashboard would open, were the word a PATH
    code, out, err = run(capsys, word)
    assert code == 2 and out == "" and built == []
    assert err.startswith("usage: ocr-tui ")
    last = err.splitlines()[-1]
    assert last.startswith("ocr-tui: error: ") and f"{word!r} is neither a command" in last
    assert last.endswith(hint)


def test_an_unknown_word_after_dashboard_options_too(tmp_path, monkeypatch, capsys, built):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "--poll", "stauts")
    assert code == 2 and "did you mean 'status'?" in err and built == []


def test_the_typo_from_the_installed_script(tmp_path):
    done = script("stauts", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    assert b"did you mean 'status'?" in done.stderr and b"Traceback" not in done.stderr


def test_an_existing_path_that_looks_like_a_command_stays_a_path(
    tmp_path, monkeypatch, capsys, built
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(FORCE_TTY, "1")
    project(tmp_path / "statu")
    code, _, err = run(capsys, "statu")
    assert code == 0 and err == ""
    (app,) = built
    assert app.kw["start_path"] == Path("statu")
    assert app.project is not None and app.project.root == tmp_path / "statu"


def test_a_command_name_is_the_command_and_dot_slash_the_directory(
    tmp_path, monkeypatch, capsys, built
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(FORCE_TTY, "1")
    project(tmp_path / "status")
    code, _, err = run(capsys, "status")  # the command, on the current directory
    assert code == 2 and "no OCR project found" in err and built == []
    code, _, err = run(capsys, "./status")
    assert code == 0 and [a.kw["start_path"] for a in built] == [Path("./status")]


@pytest.mark.parametrize(
    "argv",
    [
        ["status", "{missing}"],
        ["status", "{missing}", "--json"],
        ["status", "{missing}", "--oneline"],
        ["findings", "{missing}"],
        ["watch", "{missing}", "--jsonl"],
        ["dashboard", "{missing}"],
        ["{missing}"],  # a path by its looks: not taken for a command
    ],
    ids=lambda a: " ".join(a),
)
def test_a_path_that_does_not_exist_is_named(argv, tmp_path, capsys, monkeypatch, built):
    monkeypatch.setenv(FORCE_TTY, "1")
    missing = str(tmp_path / "no" / "such" / "dir")
    code, out, err = run(capsys, *(a.format(missing=missing) for a in argv))
    assert code == 2 and out == "" and built == []
    assert err == f"ocr-tui: no such directory: {missing}\n"


def test_a_relative_missing_path_is_a_path(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for word in ("./nope", "../nope", "sub/nope", "~nobody-here/x"):
        code, _, err = run(capsys, word)
        assert code == 2 and err == f"ocr-tui: no such directory: {word}\n", word


def test_sessions_not_made_yet_is_not_a_missing_path(tmp_path, capsys):
    (tmp_path / ".ocr").mkdir()
    code, out, err = run(capsys, "status", str(tmp_path / ".ocr" / "sessions"))
    assert code == 0 and err == "" and "No sessions yet" in out


def test_a_file_inside_a_project_still_finds_it(tmp_path, capsys):
    project(tmp_path)
    (tmp_path / "README.md").write_text("x")
    code, out, err = run(capsys, "status", str(tmp_path / "README.md"), "--json")
    assert code == 0 and err == "" and str(tmp_path) in out


@pytest.mark.parametrize(
    "argv",
    [
        ["status", "--bogus"],
        ["status", "--max-width", "-1"],
        ["status", "--max-width", "wide"],
        ["status", "--json", "--oneline"],
        ["findings", "--round", "x"],
        ["--bogus"],
    ],
    ids=lambda a: " ".join(a),
)
def test_usage_errors_exit_2(argv, tmp_path, capsys):
    project(tmp_path)
    code, out, err = run(capsys, *argv, str(tmp_path))
    assert code == 2 and out == "" and "error:" in err


@pytest.mark.parametrize(
    ("argv", "command", "unread"),
    [
        (["status", "--bogus"], "status", "--bogus"),
        (["findings", "A", "B"], "findings", "B"),
        (["watch", "--bogus"], "watch", "--bogus"),
        (["simulate", "DIR", "--bogus"], "simulate", "--bogus"),
        (["serve", "--bogus"], "serve", "--bogus"),
        (["completion", "bash", "--bogus"], "completion", "--bogus"),
        (["demo", "--bogus"], "demo", "--bogus"),
        (["dashboard", "--bogus"], "dashboard", "--bogus"),
        (["--bogus"], "dashboard", "--bogus"),  # no command: the dashboard's options
        (["status", "--depth", "3"], "status", None),  # cli.py's own usage error
    ],
    ids=lambda a: " ".join(a) if isinstance(a, list) else None,
)
def test_a_command_s_usage_error_prints_its_own_usage(argv, command, unread, tmp_path, capsys):
    """`status --bogus` printed `usage: ocr-tui [-h] [--version] COMMAND ...`, the
    top level's, where the command's options are what the user needs to see."""
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"usage: ocr-tui {command} "), err
    last = err.splitlines()[-1]
    assert last.startswith(f"ocr-tui {command}: error: "), last
    if unread:
        assert last.endswith(f"unrecognized arguments: {unread}")


def test_no_project_and_unknown_session_exit_2(tmp_path, capsys):
    code, _, err = run(capsys, "status", str(tmp_path))
    assert code == 2 and len(err.splitlines()) == 1
    project(tmp_path)
    code, _, err = run(capsys, "status", str(tmp_path), "--session", "nope")
    assert code == 2 and len(err.splitlines()) == 1 and "no session 'nope'" in err


# --- the dashboard needs a terminal -------------------------------------------------


@pytest.mark.parametrize("argv", [[], ["dashboard"], ["--poll"], ["demo"]], ids=str)
def test_the_dashboard_refuses_without_a_terminal(argv, tmp_path, capsys, monkeypatch, built):
    """capsys' stdout is not a terminal: one plain line, exit 2, no app built."""
    project(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and built == []
    assert err.count("\n") == 1 and err.startswith("ocr-tui: the dashboard needs a terminal")
    assert "`ocr-tui status`" in err and "`ocr-tui watch --jsonl`" in err and FORCE_TTY in err


def test_force_tty_opens_it_anyway(tmp_path, capsys, monkeypatch, built):
    project(tmp_path)
    monkeypatch.setenv(FORCE_TTY, "1")
    code, _, err = run(capsys, str(tmp_path))
    assert code == 0 and err == "" and len(built) == 1
    code, _, _ = run(capsys, "demo")
    assert code == 0 and built[-1].kw["demo"] is True
    monkeypatch.setenv(FORCE_TTY, "0")  # only 1 forces
    code, _, _ = run(capsys, str(tmp_path))
    assert code == 2 and len(built) == 2


class Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_both_stdout_and_the_drawing_stream_must_be_terminals(monkeypatch):
    """Textual draws on the real stderr; stdout is what the issue names (a script's capture)."""
    for out, err, missing in [
        (True, True, None),
        (False, True, "stdout"),
        (True, False, "stderr"),
        (None, True, "stdout"),  # stdout closed (`>&-`)
    ]:
        monkeypatch.setattr(sys, "stdout", None if out is None else Stream(out))
        monkeypatch.setattr(sys, "__stderr__", Stream(err))
        assert cli.terminal_missing() == missing


@pytest.mark.parametrize("argv", [[], ["demo"]], ids=str)
def test_the_installed_script_without_a_terminal_ends_at_once(argv, tmp_path):
    """Run from a script or CI (stdout and stderr pipes): it used to draw forever."""
    project(tmp_path)
    start = time.monotonic()
    done = script(*argv, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == b""
    err = done.stderr.decode()
    assert err.count("\n") == 1 and "needs a terminal" in err and "watch --jsonl" in err
    assert time.monotonic() - start < 30


def test_the_dashboard_still_opens_in_a_terminal(tmp_path):
    """In a real terminal (a pty for stdin, stdout and stderr) the dashboard starts, draws on
    the alternate screen, and `q` ends it with 0."""
    project(tmp_path)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in (FORCE_TTY, "COLUMNS", "LINES")}
    env |= {"TERM": "xterm-256color", "OCR_TUI_CACHE_DIR": "off", "LC_ALL": "C.UTF-8"}
    proc = subprocess.Popen(
        [str(SCRIPT), str(tmp_path)], stdin=slave, stdout=slave, stderr=slave, env=env,
        start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + WAIT_S
    sent = False
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:  # the child closed its side
                    break
            if not sent and b"\x1b[?1049h" in seen and b"No sessions" in seen:
                os.write(master, b"q")
                sent = True
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert sent, seen[-2000:]
    assert code == 0, seen[-2000:]
    assert b"needs a terminal" not in seen


# --- the stdout guard still holds ------------------------------------------------------------


def test_version_into_a_closed_pipe_is_quiet():
    r, w = os.pipe()
    os.close(r)
    try:
        done = subprocess.run(
            [str(SCRIPT), "--version"], stdout=w, stderr=subprocess.PIPE, timeout=WAIT_S
        )
    finally:
        os.close(w)
    assert done.returncode in (0, 141) and done.stderr == b""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
@pytest.mark.parametrize("argv", [["--version"], ["status", "--oneline"], ["status"]])
def test_a_write_error_is_one_line_and_exit_1(argv, tmp_path):
    project(tmp_path)
    (tmp_path / ".ocr/sessions/2026-03-10-main").mkdir()
    extra = [str(tmp_path)] if argv[0] == "status" else []
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [str(SCRIPT), *argv, *extra], stdout=full, stderr=subprocess.PIPE, timeout=WAIT_S
        )
    err = done.stderr.decode()
    assert done.returncode == 1 and err.count("\n") == 1 and err.startswith("ocr-tui: write error")
