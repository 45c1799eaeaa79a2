"""`ocr-tui serve`: the dashboard in a browser. The server runs as a user
runs it (a process of its own, on a free port); headless Chromium loads the page, and we read
what the page's terminal (xterm.js) holds through the DevTools protocol, over a pipe (no port,
no client library: JSON messages ended by NUL on fds 3 and 4). Its canvas has no text in the
DOM, so a script set before the page's own catches the page's `Terminal` as it is made.

Everything waits on what the page shows (polled up to a deadline), never on fixed sleeps. The
browser tests skip when Chromium is not installed (CI installs it in .ci/run).
`OCR_TUI_SCREENSHOTS=1` also saves the page to screenshots/browser.png (the README's)."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from argparse import Namespace
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ocr_tui import cli, serve
from tests.ui.builders import RoundSpec, make_project, write_session

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK), reason="chromium is not installed (CI: .ci/run installs it)"
)
DEADLINE_S = 20.0  # generous for a loaded CI machine; the page draws in ~2 s
SID = "2026-11-20-feat-browser-mode"
WIDTH, HEIGHT = 1280, 800
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--hide-scrollbars", "--mute-audio", f"--window-size={WIDTH},{HEIGHT}",
    "--remote-debugging-pipe",
]  # fmt: skip

# Before the page's scripts: keep each object assigned to a `.terminal` property (textual-serve's
# page does `this.terminal = new Terminal(...)`), then let the property be an ordinary one.
CATCH_TERMINAL = """(() => {
  const caught = [];
  window.__terminals = caught;
  Object.defineProperty(Object.prototype, "terminal", {
    configurable: true,
    set(value) {
      Object.defineProperty(this, "terminal",
        {value, writable: true, configurable: true, enumerable: true});
      caught.push(value);
    },
  });
})()"""
# The terminal's rows as text ("" until it exists), and its size.
SCREEN = """(() => {
  const t = (window.__terminals || []).find(x => x && x.buffer && x.buffer.active);
  if (!t) return {text: "", cols: 0, rows: 0};
  const b = t.buffer.active, rows = [];
  for (let i = 0; i < t.rows; i++) {
    const line = b.getLine(b.viewportY + i);
    rows.push(line ? line.translateToString(true) : "");
  }
  return {text: rows.join("\\n"), cols: t.cols, rows: t.rows};
})()"""
# The terminal faded in (the page fades it over 0.3 s), then two frames painted.
PAINTED = """(async () => {
  const el = document.querySelector(".textual-terminal");
  if (!el || getComputedStyle(el).opacity !== "1") return false;
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return true;
})()"""


def above_4(fd: int) -> int:
    """`fd` moved to 10 or above, where putting the other end on 3 or 4 cannot overwrite it."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class Browser:
    """Headless Chromium, driven over --remote-debugging-pipe: one page."""

    def __init__(self, profile: Path) -> None:
        chrome_in, self._to = os.pipe()
        self._from, chrome_out = os.pipe()
        chrome_in, chrome_out = above_4(chrome_in), above_4(chrome_out)
        # The pipe's ends on the fds 3 and 4 Chromium reads and writes (bash: dash takes no
        # fd above 9).
        on_3_and_4 = f"3<&{chrome_in} 4>&{chrome_out} {chrome_in}<&- {chrome_out}>&-"
        self.proc = subprocess.Popen(
            ["bash", "-c", f'exec "$@" {on_3_and_4}', "bash", CHROMIUM, *CHROMIUM_FLAGS,
             f"--user-data-dir={profile}", "about:blank"],
            pass_fds=(chrome_in, chrome_out),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        os.close(chrome_in)
        os.close(chrome_out)
        self._buffer = b""
        self._id = 0
        self._session: str | None = None

    def call(self, method: str, params: dict | None = None, *, page: bool = True) -> dict:
        self._id += 1
        message: dict = {"id": self._id, "method": method, "params": params or {}}
        if page and self._session:
            message["sessionId"] = self._session
        os.write(self._to, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + DEADLINE_S
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"chromium did not answer {method}")
            if select.select([self._from], [], [], left)[0]:
                chunk = os.read(self._from, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"chromium exited ({self.proc.poll()}) during {method}")
                self._buffer += chunk

    def open(self, url: str) -> None:
        targets = self.call("Target.getTargets", page=False)["targetInfos"]
        target = next(t["targetId"] for t in targets if t["type"] == "page")
        attach = {"targetId": target, "flatten": True}
        self._session = self.call("Target.attachToTarget", attach, page=False)["sessionId"]
        self.call("Page.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
        )
        # A page in the background: the dashboard is told it lost focus, and shows no keys.
        self.call("Emulation.setFocusEmulationEnabled", {"enabled": True})
        self.call("Page.addScriptToEvaluateOnNewDocument", {"source": CATCH_TERMINAL})
        self.call("Page.navigate", {"url": url})

    def evaluate(self, expression: str):
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        return self.call("Runtime.evaluate", params)["result"].get("value")

    def screen(self) -> dict:
        return self.evaluate(SCREEN) or {"text": "", "cols": 0, "rows": 0}

    def wait(self, cond: Callable[[str], bool], what: str) -> str:
        deadline = time.monotonic() + DEADLINE_S
        while True:
            text = self.screen()["text"]
            if cond(text):
                return text
            if time.monotonic() > deadline:
                pytest.fail(f"the page never showed {what}; its terminal holds:\n{text}")
            time.sleep(0.02)  # a poll interval, not a wait for something to happen

    def screenshot(self, path: Path) -> None:
        deadline = time.monotonic() + DEADLINE_S
        while not self.evaluate(PAINTED):
            if time.monotonic() > deadline:
                pytest.fail("the page's terminal never faded in")
            time.sleep(0.02)
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.call("Browser.close", page=False)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to)
        os.close(self._from)


def serve_argv(path: Path, *options: str) -> list[str]:
    """`ocr-tui serve PATH OPTIONS` as a user runs it; before the CLI has the command, the
    same through `ocr_tui.serve` under the CLI's guard."""
    if "serve" in cli.COMMANDS:
        return [sys.executable, "-m", "ocr_tui", "serve", str(path), *options]
    host = options[options.index("--host") + 1] if "--host" in options else None
    port = int(options[options.index("--port") + 1]) if "--port" in options else None
    code = (
        "import sys; from argparse import Namespace; from ocr_tui.serve import run_serve;"
        " from ocr_tui.stdout import run_guarded;"
        f" sys.exit(run_guarded(lambda: run_serve(Namespace(path={str(path)!r},"
        f" host={host!r}, port={port!r}))))"
    )
    return [sys.executable, "-c", code]


class Served:
    """`ocr-tui serve` running; `url` once it says where."""

    def __init__(self, path: Path, *options: str, cwd: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        env |= {"OCR_TUI_CACHE_DIR": "off", "OCR_TUI_CONFIG": "off", "TZ": "UTC"}
        env["HOME"] = str(cwd)  # the title reads ~/src/api, not a temporary directory's path
        env.pop(cli.FORCE_TTY, None)  # the server must make its dashboards pass on their own
        self.proc = subprocess.Popen(
            serve_argv(path, *options),
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # Ctrl-C reaches the server and its dashboards, as a job's
        )
        self.lines: list[str] = []
        self.url = ""
        deadline = time.monotonic() + DEADLINE_S
        while not self.url:
            assert self.proc.stderr is not None
            ready = select.select([self.proc.stderr], [], [], max(0, deadline - time.monotonic()))
            line = self.proc.stderr.readline() if ready[0] else ""
            if not line:
                self.proc.kill()
                out, err = self.proc.communicate()
                pytest.fail(f"serve never said where it serves:\n{''.join(self.lines)}{err}{out}")
            self.lines.append(line)
            if m := re.search(r"serving the dashboard at (\S+)", line):
                self.url = m.group(1)

    def children(self) -> list[int]:
        """The dashboards it runs (Linux: /proc; elsewhere not known: [])."""
        path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        try:
            return [int(pid) for pid in path.read_text().split()]
        except OSError:
            return []

    def interrupt(self) -> tuple[int, str, str]:
        """Ctrl-C, as a terminal sends it (to the whole job); its code and its output."""
        os.killpg(self.proc.pid, signal.SIGINT)
        out, err = self.proc.communicate(timeout=DEADLINE_S)
        return self.proc.returncode, out, "".join(self.lines) + err

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.communicate()


@pytest.fixture
def served(tmp_path: Path):
    started: list[Served] = []

    def start(path: Path, *options: str) -> Served:
        server = Served(path, *options, cwd=tmp_path)
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()


def tiny_project(root: Path) -> Path:
    """Three sessions, times relative to now (the served dashboard reads the real clock)."""
    project = make_project(root)
    now = datetime.now(UTC).replace(microsecond=0)
    m = timedelta(minutes=1)
    write_session(
        project, SID, phase="reviews", started=now - 25 * m, updated=now - 1 * m,
        branch="feat/browser-mode",
        rounds=[
            RoundSpec({"principal-1": ["high", "medium"], "quality-1": ["low"]}, discourse=True,
                      verdict="REQUEST CHANGES", counts=(1, 2, 1)),
            RoundSpec({"principal-1": ["medium"], "quality-1": ["low", "info"], "security-1": []}),
        ],
    )  # fmt: skip
    write_session(
        project, "2026-11-19-fix-cache", phase="complete", status="closed",
        started=now - 26 * 60 * m, updated=now - 25 * 60 * m,
        rounds=[RoundSpec({"principal-1": ["low"], "quality-1": []}, verdict="APPROVE")],
    )  # fmt: skip
    write_session(
        project, "2026-11-20-map-onboarding", phase="topology", workflow="map",
        started=now - 12 * m, updated=now - 2 * m, map_runs=[False], state={"current_map_run": 1},
    )  # fmt: skip
    return root


def set_phase(session: Path, phase: str) -> None:
    """Rewrite state.json atomically (temp file + rename), as OCR's agents do."""
    path = session / "state.json"
    data = json.loads(path.read_text())
    data |= {"current_phase": phase, "updated_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    tmp = path.with_name("state.json.tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(path)


# --- in a browser ----------------------------------------------------------------------------


@needs_chromium
def test_the_dashboard_in_a_browser(tmp_path: Path, served) -> None:
    root = tiny_project(tmp_path / "src" / "api")
    server = served(root, "--port", "0")
    assert server.url.startswith("http://127.0.0.1:"), server.lines
    browser = Browser(tmp_path / "profile")
    try:
        browser.open(server.url)
        # The session list, every session read (start-up shows stand-in rows first).
        text = browser.wait(
            lambda s: SID in s and "3 of 3 sessions" in s and "reading" not in s,
            "the session list",
        )
        assert "Filter: all" in text and "~/src/api" in text
        # Focused (as a click into the page does), the dashboard shows its keys in the footer.
        browser.evaluate('document.querySelector(".xterm-helper-textarea").focus()')
        browser.wait(lambda s: "q Quit" in s.splitlines()[-1], "the footer's keys")
        size = browser.screen()
        assert size["cols"] > 120 and size["rows"] > 30, size  # the page's size, not 80x24
        assert len(server.children()) in (0, 1)  # one dashboard for the one page (0: not Linux)

        shot = tmp_path / "browser.png"
        browser.screenshot(shot)
        assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 10_000
        if os.environ.get("OCR_TUI_SCREENSHOTS") == "1":
            shutil.copyfile(shot, ROOT / "screenshots" / "browser.png")

        # Live: the phase moves on disk, the page follows.
        set_phase(root / ".ocr" / "sessions" / SID, "aggregation")
        browser.wait(lambda s: "Aggregate Findings" in s, "the new phase")

        # A key from the page reaches the dashboard: `?` opens its help.
        browser.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": "?", "text": "?"})
        browser.wait(lambda s: "Everywhere" in s, "the help screen")
    finally:
        browser.close()
    code, out, err = server.interrupt()
    assert code == 130, (out, err)
    assert "Traceback" not in out + err
    assert server.children() == []


# --- without a browser -----------------------------------------------------------------------


def test_a_host_beyond_this_machine_is_warned_of_and_ctrl_c_is_quiet(tmp_path: Path, served):
    root = tiny_project(tmp_path / "proj")
    server = served(root, "--host", "0.0.0.0", "--port", "0")
    warning, serving = server.lines[0], server.lines[-1]
    assert len(server.lines) == 2, server.lines
    assert warning.startswith("ocr-tui: warning: listening on 0.0.0.0:")
    assert "anyone who can reach this port can see the project" in warning
    port = serving.rsplit(":", 1)[1].split("/")[0]
    assert f"serving the dashboard at http://127.0.0.1:{port}/" in serving  # not 0.0.0.0
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
        html = page.read().decode()
    # The page's own URLs are the host the browser asked for, not 0.0.0.0.
    assert f'data-session-websocket-url="ws://127.0.0.1:{port}/ws"' in html
    code, out, err = server.interrupt()
    assert (code, out, err.count("\n")) == (130, "", 2), (out, err)


def test_loopback_serves_loopback_names_only_and_no_other_sites_page(tmp_path: Path, served):
    server = served(tiny_project(tmp_path / "proj"), "--port", "0")
    port = server.url.rsplit(":", 1)[1].strip("/")

    def status(path: str, **headers: str) -> int:
        request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return reply.status
        except urllib.error.HTTPError as exc:
            return exc.code

    assert status("/") == 200
    assert status("/", Host=f"localhost:{port}") == 200
    assert status("/", Host=f"attacker.example:{port}") == 403  # DNS rebinding
    upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
               "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}  # fmt: skip
    assert status("/ws", Origin="https://attacker.example", **upgrade) == 403
    code, _, err = server.interrupt()
    assert code == 130 and "Traceback" not in err


def test_a_taken_port_or_a_bad_one_is_one_line(tmp_path: Path, served, capsys) -> None:
    server = served(tiny_project(tmp_path / "proj"), "--port", "0")
    port = int(server.url.rsplit(":", 1)[1].strip("/"))
    args = Namespace(path=str(tmp_path), host="127.0.0.1", port=port)
    assert serve.run_serve(args) == serve.EXIT_NO_LISTEN
    assert capsys.readouterr().err == (
        f"ocr-tui: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    )
    args = Namespace(path=str(tmp_path), host="no-such-host.invalid", port=0)
    assert serve.run_serve(args) == serve.EXIT_NO_LISTEN
    said = capsys.readouterr().err
    assert (
        said.startswith("ocr-tui: cannot listen on no-such-host.invalid:0: ")
        and said.count("\n") == 1
    )
    assert serve.run_serve(Namespace(path=None, host=None, port=70000)) == 2
    assert "--port 70000 is not a port" in capsys.readouterr().err


def test_the_command_each_page_runs(tmp_path: Path, monkeypatch) -> None:
    """This Python and ocr-tui, the dashboard on PATH made absolute, with the flags that change
    what it reads, and told to draw although its stdout is textual-serve's pipe."""
    args = Namespace(path="proj", host=None, port=None, poll=True, stall_after=90.0)
    monkeypatch.chdir(tmp_path)
    command = serve.dashboard_command(args)
    assert command == (
        f"exec env {cli.FORCE_TTY}=1 {sys.executable} -c {shlex.quote(serve.OWN_GROUP)}"
        f" dashboard --poll --read-only --stall-after 90s -- {tmp_path}/proj"
    )
    assert serve.FORCE_TTY == cli.FORCE_TTY
    bare = serve.dashboard_command(Namespace(path=None))
    assert bare.endswith(f" dashboard --read-only -- {tmp_path}")
    # marks and notes only with --allow-writes
    allowed = serve.dashboard_command(Namespace(path=None, allow_writes=True))
    assert allowed.endswith(f" dashboard -- {tmp_path}")
    # several projects: every PATH, and the scanned directory with its depth
    several = Namespace(path="a", paths=["a", "-b"], scan="code", depth=2, poll=False)
    assert (
        several.endswith(  # (`--`: a path that starts with a dash is a path)
            f" dashboard --scan {tmp_path}/code --depth 2 -- {tmp_path}/a {tmp_path}/-b"
        )
        if isinstance(several, str)
        else serve.dashboard_command(several).endswith(
            f" dashboard --scan {tmp_path}/code --depth 2 --read-only -- {tmp_path}/a {tmp_path}/-b"
        )
    )
    # a remote project: its HOST:PATH as given, with --via (issue 29)
    far = Namespace(path="a", paths=["a", "devbox:~/src/api"], via="docker exec -i api")
    assert serve.dashboard_command(far).endswith(
        f" --read-only --via 'docker exec -i api' -- {tmp_path}/a 'devbox:~/src/api'"
    )


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("[::1]", True),
        ("localhost", True), ("LOCALHOST.", True), ("app.localhost", True),
        ("0.0.0.0", False), ("::", False), ("192.168.1.5", False), ("example.com", False),
    ],
)  # fmt: skip
def test_which_hosts_are_this_machine_only(host: str, loopback: bool) -> None:
    assert serve.is_loopback(host) is loopback
    assert "0.0.0.0" not in serve.page_url(host, 8000) and "[::]" not in serve.page_url(host, 8000)
    assert (serve.exposure_warning(host, 8000) is None) is loopback


def test_the_server_never_imports_textual() -> None:
    """Each page's dashboard draws; the server only passes bytes (its web stack, no Textual)."""
    code = (
        "import sys, ocr_tui.serve as s, textual_serve.server, textual_serve.app_service\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
