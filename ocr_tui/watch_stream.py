"""`ocr-tui watch --jsonl`: session changes as JSON lines on stdout (schema in docs/json.md), until
the project's watch ends, stdout's reader goes away, or a write fails, however it fails (see
`run_stream`). How the command then ends is `ocr_tui.stdout`'s."""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import stat
import sys
from contextlib import suppress
from typing import TYPE_CHECKING

from ocr_tui.stdout import Terminated, is_output_error, terminate

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Coroutine

    from ocr_tui.core.workspace import Scope

    Stream = Callable[[Scope, argparse.Namespace], Coroutine[object, object, None]]


async def stream_jsonl(scope: Scope, args: argparse.Namespace) -> None:
    """Write the project's headers (always; `[]` when none), its sessions, then every change to
    them, one JSON object a line. With several projects (`scope.several`), a `projects` line
    first and whenever the list of projects changes (`--scan`), and each session names its
    `project`."""
    from ocr_tui.core.engine import encode_json
    from ocr_tui.core.workspace import make_engine

    engine = make_engine(scope, stall_after=args.stall_after)
    project = engine.project
    out = sys.stdout

    def emit(obj: dict) -> None:
        out.write(encode_json(obj) + "\n")
        out.flush()

    only = set(args.session or ())
    # view id -> the session's own id (`api/ID` -> `ID`): with several projects `--session`
    # takes either, as `status` does
    own: dict[str, str] = {}

    def wanted(sid: str) -> bool:  # `--session`: a session that appears later is streamed too
        return not only or sid in only or own.get(sid) in only

    if scope.remotes:  # remote projects too (`watch . devbox:api`): relayed beside
        from ocr_tui.remote_status import relay_remotes

        taken = {r.name for r in getattr(engine, "refs", list)()}
        relay = relay_remotes(scope, emit, lambda sid, far: not only or sid in only
                              or far in only, taken)  # fmt: skip
        if not scope.local:  # only remote ones: nothing to watch here
            emit({"type": "projects", "projects": far_refs(scope, set())})
            emit({"type": "headers", "headers": []})
            await relay
            return
        relaying = asyncio.ensure_future(relay)
    else:
        relaying = None
    try:
        far = far_refs(scope, taken) if scope.remotes else []
        await _follow_local(engine, project, args, emit, wanted, own, far)
    finally:
        if relaying is not None:
            relaying.cancel()
            with suppress(asyncio.CancelledError):
                await relaying


def far_refs(scope: Scope, taken: set[str]) -> list[dict]:
    """The remote projects as a `projects` line names them."""
    from ocr_tui.core.remote import remote_names

    specs = list(scope.remotes)
    names = remote_names(specs, taken)
    return [{"name": n, "path": f"{s.host}:{s.path}"} for s, n in zip(specs, names, strict=True)]


async def _follow_local(engine, project, args, emit, wanted, own, far: list) -> None:
    """The local projects' part of `stream_jsonl` (`far`: the remote projects' refs, said in
    its `projects` lines after the local ones)."""
    from ocr_tui.core.display import local_id
    from ocr_tui.core.watch import Changed, PollingFallback, ProjectMissing, Scanned, watch_project
    from ocr_tui.core.workspace import Workspace

    # None: the first event says the headers whatever they are (`[]`), as docs/json.md promises; an
    # engine's version starts at 0, so one project without project-level state had said none
    headers_seen: object = None
    projects_seen: list | None = None  # (an empty list is said too: none found yet)
    # `agent`: the list first (a stand-in per session, `listed`), then each session as it is
    # read (`changed`), `scanned` once every one is: a far side's list is shown at once
    agent = getattr(args, "scanned_line", False)
    reading = False
    async for ev in watch_project(engine, poll=args.poll, progressive=agent):
        if isinstance(engine, Workspace) and (refs := engine.refs()) != projects_seen:
            projects_seen = refs
            emit({"type": "projects", "projects": [*refs, *far]})
        if engine.headers_version != headers_seen:  # a format's project-level state changed
            headers_seen = engine.headers_version
            emit({"type": "headers", "headers": [h for _, h in sorted(engine.headers.items())]})
        if isinstance(ev, Scanned):
            for v in ev.sessions:
                own[v.id] = local_id(v)
                if wanted(v.id):
                    emit({"type": "snapshot", "session": v})
            if not ev.sessions_dir:
                where = project.root if isinstance(engine, Workspace) else project.sessions_dir
                emit({"type": "waiting", "path": str(where)})
            if agent:  # the list is whole now (its sessions read next)
                emit({"type": "listed"})
                reading = True
        elif isinstance(ev, Changed):
            for sid in ev.removed:
                if wanted(sid):
                    emit({"type": "removed", "id": sid})
                own.pop(sid, None)
            for v in ev.sessions:
                own[v.id] = local_id(v)
                if wanted(v.id):
                    emit({"type": "changed", "session": v})
            if ev.touched and agent:  # files changed (their views may not have)
                emit({"type": "touched", "ids": sorted(ev.touched)})
        elif isinstance(ev, ProjectMissing):
            where = project.root if isinstance(engine, Workspace) else project.ocr_dir
            emit({"type": "waiting", "path": str(where)})
        elif isinstance(ev, PollingFallback):
            emit({"type": "polling", "reason": ev.reason})
        if reading and not engine.pending:  # `agent`: every session listed has been read
            reading = False
            emit({"type": "scanned"})


def pipe_fd(stream) -> int | None:
    """The fd of `stream` when it is the write-only end of a pipe: the event loop can then be
    told when the reader closes it (the write end then polls as an error)."""
    try:
        import fcntl

        fd = stream.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_WRONLY:
            return None  # also readable (`1<>fifo`): our own lines would look like the signal
    except (AttributeError, ImportError, OSError, ValueError):
        return None
    return fd


async def run_stream(scope: Scope, args: argparse.Namespace, stream: Stream) -> None:
    """`stream` until it ends or fails. It also ends, with the same errors a write raises,
    when the reader of stdout goes away while nothing is being written (`| head -n 1` after
    the first lines: a watch would otherwise wait for the next change to learn it), and when a
    write to stdout fails in a callback of the loop (asyncio would only log that)."""
    loop = asyncio.get_running_loop()
    failed: asyncio.Future = loop.create_future()

    def fail(exc: BaseException) -> None:
        if not failed.done():
            failed.set_exception(exc)

    def on_loop_error(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        exc = context.get("exception")
        if exc is not None and is_output_error(exc):
            fail(exc)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(on_loop_error)
    # SIGTERM ends the stream from a callback of the loop: raised by a handler wherever the
    # main thread happens to be, it could land in a task that catches everything (a watcher's
    # pump closing its inotify fd on a re-arm) and be lost, and the watch never ended.
    # Ctrl-C the same way (a KeyboardInterrupt raised where the main thread was could be lost
    # alike), unless it was ignored when we started: a job started in the background by a
    # script ignores it, as every program does.
    term = intr = False
    with suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGTERM, fail, Terminated())
        term = True
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        with suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGINT, fail, KeyboardInterrupt())
            intr = True
    fd = pipe_fd(sys.stdout)
    if fd is not None:

        def reader_gone() -> None:
            loop.remove_reader(fd)
            fail(BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE)))

        try:
            loop.add_reader(fd, reader_gone)
        except (NotImplementedError, OSError, ValueError):  # no poll on it (Windows, ...)
            fd = None
    task = asyncio.ensure_future(stream(scope, args))
    try:
        await asyncio.wait({task, failed}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if term:
            loop.remove_signal_handler(signal.SIGTERM)  # (leaves SIG_DFL: `terminate` again)
            signal.signal(signal.SIGTERM, terminate)
        if intr:
            loop.remove_signal_handler(signal.SIGINT)  # (Python's own again: KeyboardInterrupt)
        if fd is not None:
            loop.remove_reader(fd)
        if not failed.done():
            failed.cancel()  # a failure while winding down is not news
        if not task.done():
            task.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await task  # ended for `failed`, or we are cancelled: how is not news
        # Taken here, so asyncio never logs "exception was never retrieved" at exit (a
        # KeyboardInterrupt in `task` leaves the loop at once, its task still holding it).
        errors = [f.exception() for f in (failed, task) if f.done() and not f.cancelled()]
    for exc in errors:
        if exc is not None:
            raise exc


def settle_journals(scope: Scope) -> None:
    """Write again each mark of the user's that a concurrent OCR write dropped from one of
    the projects' ocr.db (`core.journal`; nothing is imported when there is none)."""
    from ocr_tui.core.journal import Journal

    for project in scope.projects:
        if Journal(project.db_path).pending():
            from ocr_tui.formats.ocr import api

            api.settle_marks(project.db_path)


def run_watch(
    scope: Scope, args: argparse.Namespace, stream: Stream | None = None, *, settle: bool = True
) -> None:
    """`run_stream` (of `stream_jsonl` unless told otherwise) in its own event loop; SIGTERM
    stops it as Ctrl-C does (`Terminated`)."""
    if settle and not getattr(getattr(args, "settings", None), "read_only", False):
        settle_journals(scope)  # the user's marks a concurrent OCR write dropped: again
    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        asyncio.run(run_stream(scope, args, stream or stream_jsonl))
    finally:
        signal.signal(signal.SIGTERM, previous)
