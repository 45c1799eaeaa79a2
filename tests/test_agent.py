"""`ocr-tui agent --stdio`: the far side of a remote project (issue 29's first part). Its hello
first, then watch's stream; requests answered between the stream's lines; garbage, an unknown
op and a path out of the session answered with one error line each; stdin closed ends it
(exit 0); the tree is never written."""

from __future__ import annotations

import json
import math
import os
import select
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.formats.ocr.sim import Simulator

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("agent")
    Simulator(root, store="ocr.db", seed=7, start=START, speed=math.inf, history=2).setup()
    return root


class Agent:
    def __init__(self, root: Path) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.p = subprocess.Popen(
            [sys.executable, "-m", "ocr_tui", "agent", "--stdio", str(root)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
        )  # fmt: skip
        self.buf = b""

    def line(self, timeout: float = 20.0) -> dict:
        """The next line (waits for: the agent to write it)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            assert left > 0, "the agent wrote no line in time"
            ready, _, _ = select.select([self.p.stdout], [], [], left)
            if ready:
                chunk = os.read(self.p.stdout.fileno(), 65536)
                assert chunk, f"the agent ended: {self.p.stderr.read().decode()}"
                self.buf += chunk
        head, self.buf = self.buf.split(b"\n", 1)
        return json.loads(head)

    def until(self, pred, what: str) -> dict:
        for _ in range(500):
            got = self.line()
            if pred(got):
                return got
        raise AssertionError(f"no line {what}")

    def ask(self, **req) -> dict:
        self.p.stdin.write((json.dumps({"type": "request", **req}) + "\n").encode())
        self.p.stdin.flush()
        rid = req.get("id")
        return self.until(lambda m: m.get("type") == "reply" and m.get("id") == rid,
                          f"answering request {rid}")  # fmt: skip

    def send(self, raw: bytes) -> None:
        self.p.stdin.write(raw)
        self.p.stdin.flush()

    def close(self) -> int:
        self.p.stdin.close()
        return self.p.wait(timeout=20)


def test_hello_stream_requests_and_a_quiet_end(made, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(made, root, symlinks=True)
    before = sorted((p, p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file())
    agent = Agent(root)
    hello = agent.line()
    assert hello["type"] == "hello" and hello["protocol"] == 1 and hello["min_protocol"] == 1
    assert hello["root"] == str(root)
    snap = agent.until(lambda m: m.get("type") in ("snapshot", "changed")
                       and m["session"].get("rounds"),
                       "of a session with rounds")  # fmt: skip
    sid = review = snap["session"]["id"]
    # every session listed first (stand-ins), each then sent as it is read, then `scanned`
    agent.until(lambda m: m.get("type") == "scanned", "every session read")
    assert agent.ask(id=1, op="ping")["result"] == "pong"
    got = agent.ask(id="f", op="findings", session=review, round=1)["result"]
    assert got["round"] == 1 and got["findings"] and {"id", "title"} <= set(got["findings"][0])
    assert "error" in agent.ask(id=2, op="findings", session=review, round=99)
    assert (
        agent.ask(id=3, op="document", session=sid, path="../../../../etc/passwd")["error"]
        == "the path leads out of the session's directory"
    )
    assert agent.ask(id=4, op="frobnicate")["error"].startswith("unknown op 'frobnicate'")
    agent.send(b"not json\n")
    assert agent.until(lambda m: m.get("type") == "reply", "for garbage") == {
        "type": "reply", "id": None, "error": "not a request of protocol 1"
    }  # fmt: skip
    agent.send(b'{"type": "request", "op": "ping", "id": "' + b"x" * 70_000 + b'"}\n')
    assert agent.until(lambda m: m.get("type") == "reply", "for a huge line")["id"] is None
    # live: a reviewer's file appears on the far side
    extra = root / ".ocr" / "sessions" / sid / "rounds" / "round-1" / "reviews" / "extra-1.md"
    extra.write_text("# Extra review\n\n## Findings\n\n### Finding 1: Late one\n\n"
                     "**Severity**: low\n**Location**: src/x.py:L1\n")  # fmt: skip
    changed = agent.until(lambda m: m.get("type") == "changed" and m["session"]["id"] == sid,
                          "saying the session changed")  # fmt: skip
    assert changed["session"]["id"] == sid
    assert agent.close() == 0
    after = sorted((p, p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()
                   and p != extra)  # fmt: skip
    assert after == before  # the agent wrote nothing


def test_a_document_of_the_session(made, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(made, root, symlinks=True)
    agent = Agent(root)
    agent.line()
    snap = agent.until(lambda m: m.get("type") in ("snapshot", "changed")
                       and m["session"].get("rounds"),
                       "with rounds")  # fmt: skip
    sid = snap["session"]["id"]
    rel = next(p for p in (root / ".ocr" / "sessions" / sid).rglob("*.md")).relative_to(
        root / ".ocr" / "sessions" / sid
    )
    got = agent.ask(id=1, op="document", session=sid, path=str(rel))["result"]
    assert (
        got["path"] == str(rel)
        and got["text"] == (root / ".ocr" / "sessions" / sid / rel).read_text()
    )
    assert agent.close() == 0


def test_the_read_seams_reads_answered_as_here(made, tmp_path):
    """`read`: the same reads the screens make of a local project (`core.reads`), run by the
    agent; what it answers decodes into the same value as the read made here; a read it does
    not know, an argument it does not take or of the wrong type: one error each."""
    import msgspec

    from ocr_tui.core.project import Project
    from ocr_tui.core.reads import LocalReader, kinds
    from ocr_tui.core.view import SessionView

    root = tmp_path / "p"
    shutil.copytree(made, root, symlinks=True)
    agent = Agent(root)
    agent.line()
    snap = agent.until(
        lambda m: m.get("type") in ("snapshot", "changed") and m["session"].get("rounds")
        and m["session"]["workflow"] == "review",
        "a review with rounds",
    )  # fmt: skip
    view = msgspec.convert(snap["session"], SessionView)
    rnd = view.rounds[0]
    here = LocalReader(Project(root))
    asks = {
        "round": {"number": rnd.number},
        "discourse": {"round_path": rnd.path, "number": rnd.number},
        "document": {"rel": view.documents[0] if view.documents else "final.md"},
    }
    for i, (name, args) in enumerate(asks.items(), start=1):
        reply = agent.ask(id=i, op="read", session=view.id, name=name, args=args)
        assert "result" in reply, reply
        there = msgspec.convert(reply["result"], kinds()[name].result)
        assert there == here.read(name, view, **args), name
    bad = {
        10: ("nope", {}, "no read 'nope'"),
        11: ("round", {"number": "1"}, "round's number must be int"),
        12: ("round", {"number": True}, "round's number must be int"),
        13: ("round", {"path": "/etc"}, "round takes no 'path'"),
    }
    for rid, (name, args, said) in bad.items():
        reply = agent.ask(id=rid, op="read", session=view.id, name=name, args=args)
        assert reply.get("error") == said, reply
    reply = agent.ask(id=20, op="read", session=view.id, name="document",
                      args={"rel": "../../../../../../etc/passwd"})  # fmt: skip
    assert reply["result"]["status"] == "error"  # kept inside its project
    assert agent.close() == 0


def test_a_round_directory_out_of_the_session_is_refused(made, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(made, root, symlinks=True)
    agent = Agent(root)
    agent.line()
    snap = agent.until(lambda m: m.get("type") in ("snapshot", "changed")
                       and m["session"].get("rounds"),
                       "with rounds")  # fmt: skip
    for rid, path in enumerate(["../../..", "/etc", "rounds/../../x"], start=1):
        reply = agent.ask(id=rid, op="read", session=snap["session"]["id"], name="discourse",
                          args={"round_path": path, "number": 1})  # fmt: skip
        assert reply.get("error") == "a round's directory is a path inside its session"
    assert agent.close() == 0
