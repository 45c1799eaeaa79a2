"""`ocr-tui agent --stdio [PATH]`: the far side of a remote project (issue 29). Started by the
dashboard as `ssh HOST ocr-tui agent --stdio PATH` (or through `--via CMD`), it watches PATH
with the same engine as `watch --jsonl` and speaks a small versioned protocol on its standard
streams, one JSON object a line (docs/remote.md):

- first, `{"type": "hello", "protocol": PROTOCOL, "min_protocol": MIN_PROTOCOL, "version":
  …, "host": …, "root": …}`: the near side checks the range before anything else;
- then `watch --jsonl`'s stream as it is (`headers`, `snapshot`, `changed`, `removed`,
  `projects`, `waiting`, `polling`), with `{"type": "scanned"}` after each whole scan's
  snapshots (the near side then knows every session);
- requests on stdin, `{"type": "request", "id": N, "op": OP, …}`, each answered by one
  `{"type": "reply", "id": N, "result": …}` or `{"type": "reply", "id": N, "error": "one
  line"}`: `ping`; `findings` (`session`, `round`: the round's findings as `findings --json`
  gives them); `document` (`session`, `path`: a file of the session's directory, as text,
  at most MAX_DOCUMENT bytes); `read` (`session`, `name`, `args`: one read of the read seam,
  `core.reads`, as the screens make it of a local project);
- `{"type": "touched", "ids": […]}` after a batch that changed sessions' files (their views may
  be unchanged): the near side's open screens read them again.

Read-only: the agent never writes the tree (no journal either). A line on stdin that is not a
request of this protocol is answered with an error (id null) and ignored; stdin closed ends
the agent quietly, as a closed stdout does. Text from disk is sent as it is: the near side
applies the escape rules to every string it shows.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from ocr_tui.core.workspace import Scope

PROTOCOL = 1
MIN_PROTOCOL = 1
MAX_REQUEST = 64 * 1024  # bytes of one request line; a longer one is refused
MAX_DOCUMENT = 4 * 1024 * 1024
CONCURRENT = 4  # requests answered at once


def hello(scope: Scope) -> dict:
    from ocr_tui.cli_parser import version

    root = str(scope.projects[0].root) if scope.projects else None
    return {
        "type": "hello",
        "protocol": PROTOCOL,
        "min_protocol": MIN_PROTOCOL,
        "version": version(),
        "host": socket.gethostname(),
        "root": root,
    }


def answer(scope: Scope, args: argparse.Namespace, line: str) -> dict:
    """The reply to one line of stdin (never raises)."""
    try:
        req = json.loads(line) if len(line) <= MAX_REQUEST else None
    except ValueError:
        req = None
    if not isinstance(req, dict) or req.get("type") != "request":
        return {"type": "reply", "id": None, "error": "not a request of protocol 1"}
    rid = req.get("id")
    if not isinstance(rid, int | str) or isinstance(rid, bool):
        return {"type": "reply", "id": None, "error": "a request needs an id"}
    try:
        return {"type": "reply", "id": rid, "result": _run(scope, args, req)}
    except _Refused as exc:
        return {"type": "reply", "id": rid, "error": str(exc)}
    except Exception as exc:  # a bug or a file that cannot be read: said, the agent goes on
        return {"type": "reply", "id": rid, "error": f"{type(exc).__name__}: {exc}"[:500]}


class _Refused(Exception):
    pass


def _session_dir(scope: Scope, args: argparse.Namespace, sid: object) -> tuple[Path, object]:
    from ocr_tui.core.engine import Engine

    if not isinstance(sid, str) or not scope.projects:
        raise _Refused("a request needs a session id")
    project = scope.projects[0]
    here = project.sessions_dir / sid  # an OCR session: its directory, named by its id
    if "/" not in sid and sid not in (".", "..") and here.is_dir():
        return here, project
    view = next((v for v in Engine(project, stall_after=args.stall_after).scan()
                 if v.id == sid), None)  # fmt: skip
    if view is None:
        raise _Refused(f"no session {sid!r}")
    return Path(view.path), project


def _run(scope: Scope, args: argparse.Namespace, req: dict) -> object:
    op = req.get("op")
    if op == "ping":
        return "pong"
    if op == "findings":
        from ocr_tui.findings_cli import to_json
        from ocr_tui.formats.ocr import api

        number = req.get("round")
        if not isinstance(number, int) or isinstance(number, bool):
            raise _Refused("findings needs a round number")
        session, project = _session_dir(scope, args, req.get("session"))
        rounds = api.read_rounds(str(session), project.db_path, req["session"])
        rnd = next((r for r in rounds if r.number == number), None)
        if rnd is None:
            raise _Refused(f"no round {number}")
        return {"round": number, "source": rnd.source, "complete": rnd.complete,
                "findings": [to_json(f) for f in rnd.findings]}  # fmt: skip
    if op == "document":
        rel = req.get("path")
        if not isinstance(rel, str) or not rel or "\x00" in rel:
            raise _Refused("document needs a path")
        session, _ = _session_dir(scope, args, req.get("session"))
        target = (session / rel).resolve()
        base = session.resolve()
        if target != base and base not in target.parents:
            raise _Refused("the path leads out of the session's directory")
        if not target.is_file():
            raise _Refused(f"no file {rel!r} in the session")
        data = target.read_bytes()[: MAX_DOCUMENT + 1]
        if len(data) > MAX_DOCUMENT:
            raise _Refused(f"{rel!r} is over {MAX_DOCUMENT // (1024 * 1024)} MiB")
        return {"path": rel, "text": data.decode("utf-8", "replace")}
    if op == "read":
        return _read(scope, args, req)
    raise _Refused(f"unknown op {op!r} (ping, read, findings, document)")


def _read(scope: Scope, args: argparse.Namespace, req: dict) -> object:
    """`read`: one read of the read seam (`core.reads`), run here as the near side would run
    it on a local project; its result as JSON (the near side decodes it into its type)."""
    from ocr_tui.core.reads import ReadRefused, Where, checked

    name, given = req.get("name"), req.get("args", {})
    if not isinstance(name, str) or not isinstance(given, dict):
        raise _Refused("read needs a name and args")
    try:
        kind = checked(name, given)
    except ReadRefused as exc:
        raise _Refused(str(exc)) from None
    session, project = _session_dir(scope, args, req.get("session"))
    where = Where(session_dir=str(session), session_id=req["session"], db_path=project.db_path,
                  root=str(project.root))  # fmt: skip
    try:
        return kind.run(where, **given)
    except ReadRefused as exc:
        raise _Refused(str(exc)) from None


async def agent_stream(scope: Scope, args: argparse.Namespace) -> None:
    """Hello, then the watch stream, answering requests from stdin between its lines; stdin
    closed ends it."""
    from ocr_tui.core.engine import encode_json
    from ocr_tui.watch_stream import stream_jsonl

    loop = asyncio.get_running_loop()
    out = sys.stdout

    def emit(obj: dict) -> None:
        out.write(encode_json(obj) + "\n")
        out.flush()

    emit(hello(scope))
    closed: asyncio.Future = loop.create_future()
    lines: asyncio.Queue[str] = asyncio.Queue()

    def read_stdin() -> None:  # a thread: stdin's reads block
        for raw in sys.stdin.buffer:
            loop.call_soon_threadsafe(lines.put_nowait, raw.decode("utf-8", "replace"))
        loop.call_soon_threadsafe(lambda: closed.done() or closed.set_result(None))

    threading.Thread(target=read_stdin, name="agent-stdin", daemon=True).start()

    running = asyncio.Semaphore(CONCURRENT)  # a slow read does not hold up the others
    pending: set[asyncio.Task] = set()

    async def one(line: str) -> None:
        async with running:
            emit(await asyncio.to_thread(answer, scope, args, line))

    async def serve() -> None:
        while True:
            line = (await lines.get()).strip()
            if line:
                task = asyncio.ensure_future(one(line))
                pending.add(task)
                task.add_done_callback(pending.discard)

    tasks = [asyncio.ensure_future(stream_jsonl(scope, args)), asyncio.ensure_future(serve())]
    try:
        await asyncio.wait({closed, *tasks}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in [*tasks, *pending]:
            t.cancel()
        for t in tasks:
            if t.done() and not t.cancelled() and t.exception() is not None:
                raise t.exception()  # type: ignore[misc]


def run_agent(scope: Scope, args: argparse.Namespace) -> int:
    from ocr_tui.watch_stream import run_watch

    args.session = None  # every session: the near side filters
    args.scanned_line = True  # `{"type": "scanned"}` after each whole scan's snapshots
    run_watch(scope, args, agent_stream, settle=False)
    return 0
