"""Pipes and full disks, as git and coreutils handle them: the installed `ocr-tui` script, run as
a real process, ends quietly when the reader of its output goes away (`| head`, a pipe closed
before anything was written, `watch --jsonl` whose reader leaves while it has nothing to say),
says one plain line when stdout cannot be written (`> /dev/full`, `>&-`), and ends quietly with
130 on Ctrl-C. Never a traceback, never Python's "Exception ignored ... BrokenPipeError" at exit."""

from __future__ import annotations

import asyncio
import errno
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from ocr_tui.formats.ocr.sim import Simulator

PIPE_CLOSED = (0, 141)  # quiet, as git and coreutils: 0, or 128 + SIGPIPE
WAIT_S = 120.0  # a hang bound, not a speed: 700 sessions ~3.5 s quiet, more under load
DEV_FULL = Path("/dev/full")
needs_dev_full = pytest.mark.skipif(
    not DEV_FULL.exists(), reason="/dev/full does not exist on this system"
)
needs_head = pytest.mark.skipif(shutil.which("head") is None, reason="no `head` command")


# Run through this first, ocr-tui takes Ctrl-C as a terminal's foreground job does, however this
# test was started (a background job of a script ignores SIGINT, and so do its children: a
# `make test &` then hung here, its ocr-tui rightly ignoring the signal).
CTRL_C_DEFAULT = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.argv[1], sys.argv[1:])",
]


def ocr_tui() -> list[str]:
    """The installed console script next to this interpreter, else `python -m ocr_tui`."""
    script = shutil.which("ocr-tui", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "ocr_tui"]


def env(unbuffered: bool = False) -> dict[str, str]:
    out = dict(os.environ, OCR_TUI_CACHE_DIR="off", LC_ALL="C")
    out.pop("PYTHONUNBUFFERED", None)
    if unbuffered:  # every write reaches the fd at once (and fails there, not at a flush)
        out["PYTHONUNBUFFERED"] = "1"
    return out


@pytest.fixture(params=["buffered", "unbuffered"])
def unbuffered(request) -> bool:
    return request.param == "unbuffered"


def simulated(root: Path, history: int) -> Path:
    Simulator(root, history=history, speed=0).setup()
    return root


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """700 closed sessions: `status --json` is ~2 MB and the table ~75 KB, both well over a
    pipe buffer (64 KiB), so a reader that stops early really closes the pipe mid-write."""
    return simulated(tmp_path_factory.mktemp("big"), 700)


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """One session: every output fits in a pipe buffer (it is all written before `head` ends,
    so a watcher only learns that its reader left by watching the pipe)."""
    return simulated(tmp_path_factory.mktemp("small"), 1)


class Ended:
    def __init__(self, code: int, err: bytes, out: bytes, seconds: float) -> None:
        self.code, self.err, self.out, self.seconds = code, err, out, seconds

    def quiet(self) -> None:
        assert self.err == b"", f"stderr is not empty: {self.err.decode(errors='replace')}"
        assert self.code in PIPE_CLOSED, f"exit {self.code}"

    def one_line_error(self) -> None:
        text = self.err.decode(errors="replace")
        assert "Traceback" not in text and "Exception ignored" not in text, text
        assert len(text.splitlines()) == 1 and text.endswith("\n"), f"stderr: {text!r}"
        assert text.startswith("ocr-tui: "), text
        assert self.code == 1, f"exit {self.code}"


def run_into(
    args: list[str], stdout, *, timeout: float = WAIT_S, unbuffered: bool = False
) -> Ended:
    """`ocr-tui ARGS` with stdout on the given file/fd; stderr captured."""
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(
            [*ocr_tui(), *args],
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=err,
            env=env(unbuffered),
        )
        try:
            code = proc.wait(timeout)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        seconds = time.monotonic() - start
        err.seek(0)
        return Ended(code, err.read(), b"", seconds)


def run_piped(args: list[str], reader: list[str], *, timeout: float = WAIT_S) -> Ended:
    """`ocr-tui ARGS | READER`: the writer's exit code and stderr, the reader's stdout."""
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        writer = subprocess.Popen(
            [*ocr_tui(), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            env=env(),
        )
        head = None
        try:
            head = subprocess.Popen(reader, stdin=writer.stdout, stdout=subprocess.PIPE)
            writer.stdout.close()  # only `head` holds the read end now
            out, _ = head.communicate(timeout=timeout)
            code = writer.wait(timeout)
        finally:
            for p in (writer, head):
                if p is not None and p.poll() is None:
                    p.kill()
                    p.wait()
        seconds = time.monotonic() - start
        err.seek(0)
        return Ended(code, err.read(), out, seconds)


def run_closed_pipe(args: list[str], *, unbuffered: bool = False) -> Ended:
    """stdout is a pipe whose read end is closed before anything is written: the first write
    fails with EPIPE, every time."""
    r, w = os.pipe()
    os.close(r)
    try:
        return run_into(args, w, unbuffered=unbuffered)
    finally:
        os.close(w)


# --- a reader that stops early ----------------------------------------------------------------


@needs_head
def test_status_json_into_head_c(big: Path) -> None:
    ended = run_piped(["status", "--json", str(big)], ["head", "-c", "100"])
    assert ended.out.startswith(b"{") and len(ended.out) == 100
    ended.quiet()


@needs_head
def test_status_table_into_head_1(big: Path) -> None:
    ended = run_piped(["status", str(big)], ["head", "-n", "1"])
    assert ended.out.startswith(b"SESSION") and ended.out.count(b"\n") == 1
    ended.quiet()


@needs_head
@pytest.mark.parametrize("size", ["small", "big"])
def test_watch_jsonl_into_head_n1_ends_promptly(size: str, request) -> None:
    """The watcher streams forever: once `head` has its line and leaves, the watcher ends,
    also when it has nothing more to write (small) and so never hits EPIPE itself: without
    noticing the closed pipe it would wait for changes that never come, past WAIT_S. (How
    soon it ends is a speed, measured by none of the tests.)"""
    root = request.getfixturevalue(size)
    ended = run_piped(["watch", "--jsonl", str(root)], ["head", "-n", "1"])
    assert ended.out.startswith(b'{"type":') and ended.out.count(b"\n") == 1
    ended.quiet()


def test_bash_pipeline_is_quiet(big: Path) -> None:
    """The shell form from the issue, through bash: nothing on the terminal but the bytes."""
    if shutil.which("bash") is None or shutil.which("head") is None:
        pytest.skip("no bash or head")
    cmd = 'set -o pipefail; "$@" status --json "$ROOT" | head -c 100 >/dev/null; echo "rc=$?"'
    done = subprocess.run(
        ["bash", "-c", cmd, "bash", *ocr_tui()],
        env={**env(), "ROOT": str(big)},
        capture_output=True,
        timeout=WAIT_S,
    )
    assert done.stderr == b""
    assert done.stdout.decode().strip() in {f"rc={c}" for c in PIPE_CLOSED}


@pytest.mark.parametrize(
    "args",
    [
        ["status", "--oneline"],
        ["status", "--json"],
        ["status"],
        ["watch", "--jsonl"],
        ["--help"],
        ["status", "--help"],
    ],
    ids=lambda a: " ".join(a),
)
def test_pipe_closed_before_writing(args: list[str], small: Path, unbuffered: bool) -> None:
    extra = [] if "--help" in args else [str(small)]
    ended = run_closed_pipe([*args, *extra], unbuffered=unbuffered)
    ended.quiet()


def test_simulate_into_closed_pipe(tmp_path: Path, unbuffered: bool) -> None:
    ended = run_closed_pipe(
        ["simulate", str(tmp_path / "sim"), "--speed", "0"], unbuffered=unbuffered
    )
    ended.quiet()


# --- a full disk ------------------------------------------------------------------------------


@needs_dev_full
@pytest.mark.parametrize(
    ("args", "size"),
    [
        (["status", "--json"], "big"),  # buffered: fails while printing, mid-way
        (["status", "--json"], "small"),  # buffered: fails only at the final flush
        (["status", "--oneline"], "small"),
        (["status"], "small"),
        (["watch", "--jsonl"], "small"),
        (["--help"], None),
    ],
    ids=lambda a: " ".join(a) if isinstance(a, list) else str(a),
)
def test_dev_full_says_one_line(args: list[str], size: str | None, unbuffered: bool, request):
    extra = [str(request.getfixturevalue(size))] if size else []
    with DEV_FULL.open("wb") as full:
        ended = run_into([*args, *extra], full, unbuffered=unbuffered)
    ended.one_line_error()
    assert b"No space left on device" in ended.err


@needs_dev_full
def test_simulate_into_dev_full(tmp_path: Path, unbuffered: bool) -> None:
    with DEV_FULL.open("wb") as full:
        ended = run_into(
            ["simulate", str(tmp_path / "sim"), "--speed", "0"], full, unbuffered=unbuffered
        )
    ended.one_line_error()


@pytest.mark.parametrize(
    "args", [["status", "--json"], ["watch", "--jsonl"], ["--help"]], ids=lambda a: " ".join(a)
)
def test_closed_stdout_says_one_line(args: list[str], small: Path) -> None:
    """`ocr-tui ... >&-`: Python starts with no sys.stdout at all; as coreutils, EBADF."""
    extra = [] if "--help" in args else [str(small)]
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [*ocr_tui(), *args, *extra],
            stdin=subprocess.DEVNULL,
            stderr=err,
            env=env(),
            preexec_fn=lambda: os.close(1),
        )
        try:
            code = proc.wait(WAIT_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        err.seek(0)
        ended = Ended(code, err.read(), b"", 0.0)
    ended.one_line_error()


# --- Ctrl-C -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sig", "expected"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 0)],
    ids=["SIGINT", "SIGTERM"],
)
def test_watch_interrupted_is_quiet(sig: int, expected: int, small: Path) -> None:
    """Ctrl-C: 128 + SIGINT, as shells report it; SIGTERM, a requested stop: 0, as before."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [*CTRL_C_DEFAULT, *ocr_tui(), "watch", "--jsonl", str(small)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=err,
            env=env(),
        )
        try:
            assert proc.stdout.readline().startswith(b'{"type":')  # it is streaming
            proc.send_signal(sig)
            code = proc.wait(WAIT_S)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        err.seek(0)
        assert err.read() == b""
        assert code == expected


# --- a write inside the event loop's callbacks ------------------------------------------------


@pytest.mark.parametrize(
    ("error", "expected", "says"),
    [(errno.ENOSPC, 1, "ocr-tui: write error: No space left on device\n"), (errno.EPIPE, 0, "")],
    ids=["ENOSPC", "EPIPE"],
)
def test_watch_ends_when_a_callback_cannot_write(
    error: int, expected: int, says: str, small: Path, monkeypatch, capsys
) -> None:
    """asyncio only logs what a callback raises: `watch` still ends at once, as for its own
    writes (a closed pipe quietly, any other error in one line)."""
    from ocr_tui import cli, watch_stream

    class Failing(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError(error, os.strerror(error))  # EPIPE makes a BrokenPipeError

    async def stream(project, args) -> None:
        asyncio.get_running_loop().call_soon(lambda: print("a line from a callback"))
        await asyncio.sleep(3600)  # ends only if the failed write ends it

    monkeypatch.setattr(watch_stream, "stream_jsonl", stream)
    monkeypatch.setattr(sys, "stdout", Failing())
    start = time.monotonic()
    assert cli.main(["watch", "--jsonl", str(small)]) == expected
    assert time.monotonic() - start < WAIT_S  # not the hour the stream would wait
    assert capsys.readouterr().err == says
