"""`ocr-tui serve [PATH]`: the dashboard in a browser, through textual-serve. A small web server
hands the browser a page holding a terminal (xterm.js); each page opened starts its own
dashboard process (this Python: `-m ocr_tui dashboard PATH`), which draws through Textual's web
driver over a websocket. The server itself reads no session and never imports Textual.

It listens on 127.0.0.1 unless told otherwise; any other address is one line of warning (the
page shows the project to whoever reaches the port, and takes their keys). A page from another
site may not open the websocket (its Origin must be the page's own host), and while listening on
loopback only a loopback name is served (no DNS rebinding onto it). Ctrl-C stops the server and
every dashboard it started: a quiet 130 (SIGTERM a quiet 0), as `ocr_tui.stdout` has it."""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import os
import shlex
import signal
import socket
import sys
from contextlib import suppress
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ocr_tui.stdout import EXIT_INTERRUPTED, EXIT_TERMINATED, say

if TYPE_CHECKING:
    from aiohttp import web

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
EXIT_NO_LISTEN = 1  # the address cannot be listened on (the port is taken, no such address)
EXIT_BAD_PORT = 2  # a usage error, as argparse's
FORCE_TTY = "OCR_TUI_FORCE_TTY"  # `ocr_tui.cli.FORCE_TTY` (cli imports this module, not back)
QUIT_S = 2.0  # how long a dashboard gets to quit before it is terminated (then killed)
TITLE = "ocr-tui"


def is_loopback(host: str) -> bool:
    """`localhost`, 127.0.0.0/8, ::1: reachable from this machine only."""
    name = host.strip().strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, port: int) -> str | None:
    """The one line said when the server listens beyond this machine, else None."""
    if is_loopback(host):
        return None
    return (
        f"ocr-tui: warning: listening on {host}:{port}: anyone who can reach this port can see"
        " the project (and press keys in the dashboard)"
    )


def dashboard_command(args: argparse.Namespace) -> str:
    """The shell command textual-serve runs for each page: this same Python and ocr-tui, the
    dashboard on each PATH and the `--scan` DIR (absolute: the page may be opened long after
    a `cd`), with the flags that change what it reads. OCR_TUI_FORCE_TTY=1: its stdout is
    textual-serve's pipe, not a terminal, and the dashboard would refuse it
    (`ocr_tui.cli.refuse_without_terminal`)."""
    paths = getattr(args, "paths", None) or ([args.path] if args.path else [])
    scan = getattr(args, "scan", None)
    if not paths and not scan:
        paths = [os.getcwd()]
    argv = ["env", f"{FORCE_TTY}=1", sys.executable, "-c", OWN_GROUP, "dashboard"]
    if scan:
        argv += ["--scan", os.path.abspath(scan), "--depth", str(getattr(args, "depth", 3))]
    if getattr(args, "poll", False):
        argv.append("--poll")
    if not getattr(args, "allow_writes", False):
        argv.append("--read-only")  # a page writes marks only when the server allows it
    stall_after = getattr(args, "stall_after", None)
    if stall_after is not None:
        argv += ["--stall-after", f"{stall_after:.3f}".rstrip("0").rstrip(".") + "s"]
    if getattr(args, "via", None):
        argv += ["--via", args.via]
    from ocr_tui.cli_scope import _remote_path  # (HOST:PATH: the far side's, kept as given)

    argv += ["--", *(p if _remote_path(p) else os.path.abspath(p) for p in paths)] if paths else []
    return "exec " + shlex.join(argv)  # exec: the dashboard gets signals, not a shell


# `python -m ocr_tui ARGS` in a process group of its own: Ctrl-C in the terminal reaches the
# server alone, which ends each dashboard itself (one still exiting, its page closed, would
# otherwise print a KeyboardInterrupt traceback from its interpreter's shutdown).
OWN_GROUP = (
    "import os, sys; os.setpgid(0, 0);"
    " os.execv(sys.executable, [sys.executable, '-m', 'ocr_tui', *sys.argv[1:]])"
)


def request_host(request: web.Request) -> str:
    """The host name the browser asked for (the Host header's, without its port)."""
    return (urlsplit(f"//{request.host}").hostname or "").lower()


def run_serve(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C (130) or SIGTERM (0); 1 when the address cannot be listened on, 2
    for a port out of range. `--port 0` takes a free port (the line printed names it)."""
    host = getattr(args, "host", None) or DEFAULT_HOST
    port = DEFAULT_PORT if getattr(args, "port", None) is None else args.port
    if not 0 <= port <= 65535:
        say(f"ocr-tui: serve: --port {port} is not a port (0 to 65535; 0: any free one)")
        return EXIT_BAD_PORT
    try:
        sock = listen(host, port)
    except OSError as exc:
        if isinstance(exc, socket.gaierror) or not exc.errno:
            why = exc.strerror or str(exc)
        else:
            why = os.strerror(exc.errno)  # not create_server's "(while attempting to bind …)"
        say(f"ocr-tui: cannot listen on {host}:{port}: {why}")
        return EXIT_NO_LISTEN
    port = sock.getsockname()[1]
    warning = exposure_warning(host, port)
    if warning:
        say(warning)
    server = make_server(dashboard_command(args), host, port)
    return server.run(sock)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on the first address `host` names (bound here, not by aiohttp: a
    taken port is one line, and port 0's real number is known)."""
    family, _, _, _, address = socket.getaddrinfo(
        host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    return socket.create_server(address, family=family)  # SO_REUSEADDR, as aiohttp's


def page_url(host: str, port: int) -> str:
    """Where to point a browser on this machine (an IPv6 address in brackets; for every
    address, 0.0.0.0 or ::, the loopback one: browsers refuse 0.0.0.0)."""
    with suppress(ValueError):
        address = ipaddress.ip_address(host.strip("[]"))
        if address.is_unspecified:
            host = "127.0.0.1" if address.version == 4 else "::1"
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/"


def make_server(command: str, host: str, port: int):  # -> DashboardServer
    """textual-serve's Server, imported only here (its web stack is for `serve` alone)."""
    import aiohttp_jinja2
    from aiohttp import web
    from aiohttp.web_runner import GracefulExit
    from textual_serve.app_service import AppService
    from textual_serve.server import Server, to_int

    class DashboardServer(Server):
        """textual-serve's Server with: the page's URLs from the request (behind a forwarded
        port or a proxy the browser's host is not the one listened on), the checks above, our
        start-up line instead of its logo, and a stop that ends every dashboard it started
        (its own leaves them running when only the server is signalled) with Ctrl-C's code."""

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.exit_code = 0
            self.stopping = False
            self.pages: set[asyncio.Task] = set()  # one per page open: its websocket's handler

        def _check(self, request: web.Request) -> None:
            origin = request.headers.get("Origin")
            if origin is not None and urlsplit(origin).netloc.lower() != request.host.lower():
                raise web.HTTPForbidden(text="ocr-tui: another site's page may not connect\n")
            if is_loopback(self.host) and not is_loopback(request_host(request)):
                raise web.HTTPForbidden(text="ocr-tui: served on this machine's loopback only\n")

        @aiohttp_jinja2.template("app_index.html")
        async def handle_index(self, request: web.Request) -> dict:
            self._check(request)
            websocket = request.app.router["websocket"].url_for()
            scheme = "wss" if request.secure else "ws"
            return {
                "font_size": to_int(request.query.get("fontsize", "16"), 16),
                "app_websocket_url": f"{scheme}://{request.host}{websocket}",
                "config": {"static": {"url": f"{request.scheme}://{request.host}/static/"}},
                "application": {"name": self.title},
            }

        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
            """One page: its dashboard runs while the page is open (textual-serve's own
            handler, but the dashboard is seen to its end, and the server can end it)."""
            self._check(request)
            websocket = web.WebSocketResponse(heartbeat=15)
            await websocket.prepare(request)
            service = AppService(
                self.command,
                write_bytes=websocket.send_bytes,
                write_str=websocket.send_str,
                close=websocket.close,
                download_manager=self.download_manager,
                debug=self.debug,
            )
            task = asyncio.current_task()
            assert task is not None
            self.pages.add(task)
            try:
                await service.start(
                    to_int(request.query.get("width", "80"), 80),
                    to_int(request.query.get("height", "24"), 24),
                )
                await self._process_messages(websocket, service)  # until the page closes
            except asyncio.CancelledError:
                pass  # the server is stopping
            finally:
                self.pages.discard(task)
                await end_dashboard(service)
                await websocket.close()
            return websocket

        async def on_startup(self, app: web.Application) -> None:
            """Nothing: the line saying where to browse is printed once listening."""

        def stop(self, code: int) -> None:
            """The first signal closes the pages (each quits its dashboard) then the server;
            a second one stops at once."""
            if self.stopping:
                raise GracefulExit
            self.stopping, self.exit_code = True, code
            asyncio.get_running_loop().create_task(self._close_pages())

        async def _close_pages(self) -> None:
            pages = set(self.pages)
            for task in pages:
                task.cancel()
            if pages:
                await asyncio.wait(pages, timeout=2 * QUIT_S + 1)
            asyncio.get_running_loop().call_soon(self._exit)

        def _exit(self) -> None:
            raise GracefulExit  # out of the loop (from a task it would be only logged)

        def run(self, sock: socket.socket) -> int:
            logger = logging.getLogger("textual-serve")
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("ocr-tui: serve: %(message)s"))
            logger.addHandler(handler)
            logger.setLevel(logging.WARNING)
            logger.propagate = False
            # asyncio's "Unknown child process pid N, will report returncode 255": a dashboard
            # that ended as its page closed, reaped by the transport's poll() before the child
            # watcher's thread (a race in asyncio, harmless: it is seen to its end here).
            logging.getLogger("asyncio").setLevel(logging.ERROR)
            loop = asyncio.new_event_loop()
            loop.add_signal_handler(signal.SIGINT, self.stop, EXIT_INTERRUPTED)
            loop.add_signal_handler(signal.SIGTERM, self.stop, EXIT_TERMINATED)
            url = page_url(self.host, self.port)
            web.run_app(
                self._make_app(),
                sock=sock,
                loop=loop,
                handle_signals=False,
                access_log=None,
                shutdown_timeout=1.0,  # the pages are closed by then
                print=lambda *_: say(f"ocr-tui: serving the dashboard at {url} (Ctrl-C stops)"),
            )
            return self.exit_code

    async def end_dashboard(service: AppService) -> None:
        """Ask the page's dashboard to quit, as textual-serve does when a tab closes; one that
        has not ended within QUIT_S is terminated (SIGTERM: Textual quits cleanly), then
        killed (in a process group of its own, nothing else ends it). `_process` is
        textual-serve's (pinned; tests/test_serve.py sees the dashboards end)."""
        process = service._process
        with suppress(Exception):  # (asyncio.timeout: 3.11's wait_for may swallow a cancel)
            async with asyncio.timeout(QUIT_S):
                await service.stop()
        if process is None:
            return
        for end in (None, process.terminate, process.kill):
            if process.returncode is not None:
                return
            if end is not None:
                with suppress(ProcessLookupError):
                    end()
            with suppress(TimeoutError):
                async with asyncio.timeout(QUIT_S):
                    await process.wait()

    return DashboardServer(command, host=host, port=port, title=TITLE)
