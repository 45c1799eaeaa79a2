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
    """`path` as a remote project (`HOST:PATH`, `ssh://…`), reached through `--via` when given,
    its far side's command `$OCR_TUI_AGENT` (default `ocr-tui`); None for a local path."""
    import dataclasses
    import os
    import shlex

    from ocr_tui.core.remote import DEFAULT_AGENT, parse_remote

    spec = parse_remote(path)
    if spec is None:
        return None
    via = tuple(shlex.split(args.via)) if getattr(args, "via", None) else ()
    agent = os.environ.get("OCR_TUI_AGENT") or DEFAULT_AGENT
    return dataclasses.replace(spec, via=via, agent=agent)


def remote_sessions(spec: RemoteSpec) -> list[dict]:
    """The far side's sessions as its first whole scan has them (JSON objects)."""
    link = RemoteLink(spec)
    link.open()
    try:
        sessions: dict[str, dict] = {}
        for line in link.lines(timeout=SCAN_TIMEOUT_S):
            kind = line.get("type")
            if kind == "snapshot" and isinstance(line.get("session"), dict):
                s = line["session"]
                sessions[str(s.get("id"))] = s
            elif kind == "scanned":
                return list(sessions.values())
        raise RemoteError(f"{spec.label}: the far side ended before its sessions were read")
    finally:
        link.close()


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

    from ocr_tui.core.engine import encode_json
    from ocr_tui.stdout import terminate

    only = set(args.session or ())
    link = RemoteLink(spec)
    previous = signal.signal(signal.SIGTERM, terminate)  # unwinds: the far side is ended
    try:
        link.open()
        for line in link.lines():
            kind = line.get("type")
            if kind == "scanned":
                continue  # the protocol's, not watch's
            session = line.get("session")
            if isinstance(session, dict):
                if only and session.get("id") not in only:
                    continue
                line = {**line, "session": {**session, "host": spec.host}}
            elif kind == "removed" and only and line.get("id") not in only:
                continue
            sys.stdout.write(encode_json(line) + "\n")
            sys.stdout.flush()
        raise RemoteError(f"{spec.label}: the connection was lost")
    except RemoteError as exc:
        print(f"ocr-tui: {safe_line(exc)}", file=sys.stderr)
        return EXIT_UNREACHABLE
    finally:
        link.close()
        signal.signal(signal.SIGTERM, previous)


def run_remote(spec: RemoteSpec, args: argparse.Namespace) -> int:
    """`status` or `watch` of a remote project."""
    if args.command == "watch":
        return cmd_remote_watch(spec, args)
    return cmd_remote_status(spec, args)
