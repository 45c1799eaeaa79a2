"""`ocr-tui status HOST:PATH` and `ocr-tui watch HOST:PATH`: a remote project through its far
side (`ocr-tui agent --stdio`, `core.remote`). `status`: its sessions once it has scanned
them, shown as a local project's are (the table, `--oneline`, `--json` with each session's
`"host"`). `watch`: the far side's stream as `watch --jsonl` prints it, each session with its
`"host"`. A far side that cannot be reached, is missing or too old, or a connection lost:
one line, exit 1."""

from __future__ import annotations

import argparse
import sys

import msgspec

from ocr_tui.core.remote import RemoteError, RemoteLink, RemoteSpec
from ocr_tui.core.textsafe import safe_line

EXIT_UNREACHABLE = 1
SCAN_TIMEOUT_S = 120.0


def remote_of(path: str, args: argparse.Namespace) -> RemoteSpec | None:
    """`path` as a remote project (`HOST:PATH`, `ssh://…`); None for a local path. Reached
    through `--via`, else its config table's `via`, else the file's; its far command
    `$OCR_TUI_AGENT`, else its table's `agent`, else the file's, else `ocr-tui`; `e` on its
    findings through its table's `editor_remote`, else the file's."""
    import dataclasses
    import os
    import shlex

    from ocr_tui.core.remote import DEFAULT_AGENT, parse_remote

    spec = parse_remote(path)
    if spec is None:
        return None
    settings = getattr(args, "settings", None)
    own = None
    for name, table in (getattr(settings, "remotes", None) or {}).items():
        named = parse_remote(name)
        if named is not None and named.place == spec.place:
            own = table
    via = getattr(args, "via", None) or _first("via", own, settings)
    agent = os.environ.get("OCR_TUI_AGENT") or _first("agent", own, settings) or DEFAULT_AGENT
    try:
        words = tuple(shlex.split(via)) if via else ()
    except ValueError as exc:  # an open quote
        print(f"ocr-tui: --via {safe_line(via)!r}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    return dataclasses.replace(spec, via=words, agent=agent,
                               editor=_first("editor_remote", own, settings))  # fmt: skip


def _first(key: str, *settings: object) -> str | None:
    for s in settings:
        value = getattr(s, key, None) if s is not None else None
        if value:
            return value
    return None


def remote_sessions(spec: RemoteSpec) -> list[dict]:
    """The far side's sessions as its first whole scan has them (JSON objects)."""
    link = RemoteLink(spec)
    link.open()
    try:
        sessions: dict[str, dict] = {}
        for line in link.lines(timeout=SCAN_TIMEOUT_S):
            kind = line.get("type")
            if kind in ("snapshot", "changed") and isinstance(line.get("session"), dict):
                s = line["session"]  # (listed first as a stand-in, then as read)
                sessions[str(s.get("id"))] = s
            elif kind == "removed":
                sessions.pop(str(line.get("id")), None)
            elif kind == "scanned":
                return list(sessions.values())
        raise RemoteError(f"{spec.label}: the far side ended before its sessions were read")
    finally:
        link.close()


def with_remotes(scope, local: list, taken: set[str]) -> tuple[list, list, list[str]]:
    """`status` of local and remote projects together: the local views and each remote
    project's (read at once, each in its thread), newest first; the remote projects' refs;
    a line for each far side that could not be read (the rest are shown all the same)."""
    from concurrent.futures import ThreadPoolExecutor

    from ocr_tui.core.order import newest_first
    from ocr_tui.core.remote import remote_names
    from ocr_tui.core.remote_feed import far_view
    from ocr_tui.core.view import ProjectRef

    specs = list(scope.remotes)
    names = remote_names(specs, taken)
    views, refs, errors = list(local), [], []
    with ThreadPoolExecutor(max_workers=min(8, len(specs)) or 1) as pool:
        answers = list(pool.map(_sessions_or_error, specs))
    for spec, name, (raw, error) in zip(specs, names, answers, strict=True):
        refs.append(ProjectRef(name=name, path=f"{spec.host}:{spec.path}"))
        if error is not None:
            errors.append(error)
            continue
        try:
            views += [far_view(s, name, spec.host) for s in raw]
        except RemoteError as exc:
            errors.append(str(exc))
    return newest_first(views), refs, errors


def _sessions_or_error(spec: RemoteSpec) -> tuple[list[dict], str | None]:
    try:
        return remote_sessions(spec), None
    except RemoteError as exc:
        return [], str(exc)


def cmd_remote_status(spec: RemoteSpec, args: argparse.Namespace) -> int:
    from ocr_tui.core.engine import encode_json
    from ocr_tui.core.view import SessionView
    from ocr_tui.status_text import ONELINE_WIDTH, oneline, output_width, table

    try:
        raw = remote_sessions(spec)
    except RemoteError as exc:
        print(f"ocr-tui: {safe_line(exc)}", file=sys.stderr)
        return EXIT_UNREACHABLE
    if args.session:
        raw = [s for s in raw if s.get("id") in set(args.session)]
    if args.json:
        print(encode_json({"version": 1, "host": spec.host,
                           "sessions": [{**s, "host": spec.host} for s in raw]}))  # fmt: skip
        return 0
    views = []
    for s in raw:
        try:
            views.append(msgspec.convert(s, SessionView))
        except (msgspec.ValidationError, TypeError):
            print(f"ocr-tui: {spec.label}: a session the far side sent is not readable",
                  file=sys.stderr)  # fmt: skip
    views.sort(key=lambda v: v.last_activity or "", reverse=True)
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    width = output_width(sys.stdout) if args.max_width is None else (args.max_width or None)
    if args.oneline:
        default = ONELINE_WIDTH if width is None else min(ONELINE_WIDTH, width)
        print(oneline(views, default if args.max_width is None else width, now))
    elif not views:
        print(f"No sessions yet on {safe_line(spec.label)}")
    else:
        print(table(views, width, now))
    return 0


def cmd_remote_watch(spec: RemoteSpec, args: argparse.Namespace) -> int:
    import signal

    from ocr_tui.stdout import terminate

    only = set(args.session or ())
    link = RemoteLink(spec)
    previous = signal.signal(signal.SIGTERM, terminate)  # unwinds: the far side is ended
    try:
        link.open()
        held: dict[str, dict] | None = {}  # the far side's list, until every one is read
        for line in link.lines():
            kind = line.get("type")
            if held is not None and kind in ("snapshot", "changed", "removed"):
                if kind == "removed":
                    held.pop(str(line.get("id")), None)
                elif isinstance(line.get("session"), dict):
                    held[str(line["session"].get("id"))] = line["session"]
                continue
            if kind == "scanned" and held is not None:  # said as a local watch says it
                lines = [{"type": "snapshot", "session": s} for s in held.values()]
                held = None
            elif kind in ("listed", "scanned", "touched"):
                continue  # the protocol's, not watch's
            else:
                lines = [line]
            for out in lines:
                _relay_line(out, spec, only)
        raise RemoteError(f"{spec.label}: the connection was lost")
    except RemoteError as exc:
        print(f"ocr-tui: {safe_line(exc)}", file=sys.stderr)
        return EXIT_UNREACHABLE
    finally:
        link.close()
        signal.signal(signal.SIGTERM, previous)


def _relay_line(line: dict, spec: RemoteSpec, only: set[str]) -> None:
    """One line of the far side's stream as `watch --jsonl` prints it (each session with
    its host; `--session`'s filter)."""
    from ocr_tui.core.engine import encode_json

    session = line.get("session")
    if isinstance(session, dict):
        if only and session.get("id") not in only:
            return
        line = {**line, "session": {**session, "host": spec.host}}
    elif line.get("type") == "removed" and only and line.get("id") not in only:
        return
    sys.stdout.write(encode_json(line) + "\n")
    sys.stdout.flush()


def run_remote(spec: RemoteSpec, args: argparse.Namespace) -> int:
    """`status` or `watch` of a remote project."""
    if args.command == "watch":
        return cmd_remote_watch(spec, args)
    return cmd_remote_status(spec, args)


async def relay_remotes(scope, emit, wanted, taken: set[str]) -> None:
    """`watch` of local and remote projects together: each remote project followed by a
    `RemoteFeed` (reconnecting as the dashboard does), its sessions written as the local
    ones are (`snapshot` after each whole scan of the far side, then `changed` and `removed`),
    each with its `project` and `host`; a connection lost is one line on stderr. Runs until
    cancelled; the far sides are then ended."""
    import asyncio
    import threading

    from ocr_tui.core.remote import remote_names
    from ocr_tui.core.remote_feed import FeedViews, LinkState, RemoteFeed, far_id

    loop = asyncio.get_running_loop()
    events: asyncio.Queue = asyncio.Queue()
    stop = threading.Event()
    specs = list(scope.remotes)
    feeds = [
        RemoteFeed(spec, name, lambda ev: loop.call_soon_threadsafe(events.put_nowait, ev))
        for spec, name in zip(specs, remote_names(specs, taken), strict=True)
    ]
    for feed in feeds:
        threading.Thread(target=feed.run, args=(stop,), daemon=True).start()
    listed: set[str] = set()  # listed by a far side, not said yet (as `snapshot`)
    try:
        while True:
            ev = await events.get()
            if isinstance(ev, LinkState):
                if ev.state == "lost":
                    why = safe_line(ev.message)
                    print(f"ocr-tui: {safe_line(ev.name)}: connection lost ({why}); reconnecting",
                          file=sys.stderr)  # fmt: skip
                continue
            assert isinstance(ev, FeedViews)
            for sid in ev.removed:
                listed.discard(sid)
                if wanted(sid, far_id(sid, ev.name)):
                    emit({"type": "removed", "id": sid})
            if ev.full:  # the far side's list: each session said once it is read
                listed.update(v.id for v in ev.changed)
            for view in ev.changed:
                if view.source == "loading" or not wanted(view.id, far_id(view.id, ev.name)):
                    continue  # (a stand-in: its session comes as it is read)
                kind = "snapshot" if view.id in listed else "changed"
                listed.discard(view.id)
                emit({"type": kind, "session": view})
    finally:
        stop.set()
        for feed in feeds:
            await asyncio.to_thread(feed.close)
