"""`ocr-tui status HOST:PATH`: a remote project's status through its far side, reached here
with `--via env` (the agent run directly, no sshd): the same sessions as a local `status`, each
with its `"host"`; the table and `--oneline` as a local project's; a far side that is not there
is one line and exit 1; a local path with a colon stays local."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pytest

from ocr_tui.cli import main


@pytest.fixture
def agent(monkeypatch):
    monkeypatch.setenv("OCR_TUI_AGENT", f"{sys.executable} -m ocr_tui")


def test_the_same_sessions_as_here_each_with_its_host(far, agent, capsys):
    assert main(["status", str(far), "--json"]) == 0
    here = json.loads(capsys.readouterr().out)
    assert main(["status", f"localhost:{far}", "--via", "env", "--json"]) == 0
    there = json.loads(capsys.readouterr().out)
    assert there["host"] == "localhost"
    assert {s["host"] for s in there["sessions"]} == {"localhost"}
    assert sorted(s["id"] for s in there["sessions"]) == sorted(s["id"] for s in here["sessions"])
    mine = {s["id"]: s["phase"] for s in here["sessions"]}
    assert {s["id"]: s["phase"] for s in there["sessions"]} == mine


def test_the_table_and_the_oneline(far, agent, capsys):
    assert main(["status", str(far)]) == 0
    here = capsys.readouterr().out
    assert main(["status", f"localhost:{far}", "--via", "env"]) == 0
    there = capsys.readouterr().out
    assert here.splitlines()[0] == there.splitlines()[0]  # the same columns
    assert len(here.splitlines()) == len(there.splitlines())
    assert main(["status", f"localhost:{far}", "--via", "env", "--oneline"]) == 0
    assert capsys.readouterr().out.count("\n") == 1


def test_a_far_side_not_there_is_one_line(far, monkeypatch, capsys):
    monkeypatch.setenv("OCR_TUI_AGENT", "/nonexistent/ocr-tui")
    assert main(["status", f"box:{far}", "--via", "env"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ocr-tui: ocr-tui is not installed on box") and err.count("\n") == 1


def test_a_local_path_with_a_colon_stays_local(far, tmp_path, capsys):
    local = tmp_path / "a:b"
    shutil.copytree(far, local, symlinks=True)
    assert main(["status", str(local), "--json"]) == 0
    assert "host" not in json.loads(capsys.readouterr().out)


def test_watch_relays_the_far_sides_stream_and_leaves_nothing_behind(far, tmp_path):
    import os
    import signal
    import subprocess

    root = tmp_path / "p"
    shutil.copytree(far, root, symlinks=True)
    env = dict(os.environ, OCR_TUI_AGENT=f"{sys.executable} -m ocr_tui")
    p = subprocess.Popen(
        [sys.executable, "-m", "ocr_tui", "watch", f"localhost:{root}", "--via", "env"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
    )  # fmt: skip
    try:
        first = json.loads(p.stdout.readline())  # waits for: the far side's first line
        assert first["type"] == "headers"
        snap = json.loads(p.stdout.readline())  # waits for: a session's snapshot
        assert snap["type"] == "snapshot" and snap["session"]["host"] == "localhost"
        sid = snap["session"]["id"]
        os.utime(root / ".ocr" / "sessions" / sid)
        (root / ".ocr" / "sessions" / sid / "notes.md").write_text("a new file\n")
        while True:  # waits for: the change, relayed
            line = json.loads(p.stdout.readline())
            assert line["type"] != "scanned"
            if line["type"] == "changed" and line["session"]["id"] == sid:
                break
        children = subprocess.run(["pgrep", "-f", f"agent --stdio {root}"],
                                  capture_output=True, text=True).stdout.split()  # fmt: skip
        assert children
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=20) == 0
        for _ in range(100):  # waits for: the far side to end
            left = subprocess.run(["pgrep", "-f", f"agent --stdio {root}"],
                                  capture_output=True, text=True).stdout.split()  # fmt: skip
            if not left:
                break
            time.sleep(0.1)
        assert not left, "a far side was left running"
    finally:
        if p.poll() is None:
            p.kill()


def test_status_of_local_and_remote_projects_together(far, agent, tmp_path, capsys):
    here = tmp_path / "here"
    shutil.copytree(far, here)
    assert main(["status", str(here), f"box:{far}", "--via", "env", "--json"]) == 0
    both = json.loads(capsys.readouterr().out)
    by_project: dict[str, list[str]] = {}
    for s in both["sessions"]:
        by_project.setdefault(s["project"], []).append(s["id"].split("/", 1)[1])
    assert sorted(by_project) == [f"box:{far.name}", "here"]
    assert sorted(by_project[f"box:{far.name}"]) == sorted(by_project["here"])
    assert {s.get("host") for s in both["sessions"]} == {None, "box"}
    assert [p["name"] for p in both["projects"]] == ["here", f"box:{far.name}"]
    # the newest first, whichever project
    times = [s["last_activity"] or "" for s in both["sessions"]]
    assert times == sorted(times, reverse=True)


def test_an_unreachable_one_is_a_line_the_rest_shown(far, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("OCR_TUI_AGENT", "/nonexistent/ocr-tui")
    here = tmp_path / "here"
    shutil.copytree(far, here)
    assert main(["status", str(here), f"box:{far}", "--via", "env", "--oneline"]) == 1
    out, err = capsys.readouterr()
    assert out.count("\n") == 1 and err.count("\n") == 1 and "not installed on box" in err


def test_watch_of_local_and_remote_projects_together(far, agent, tmp_path):
    here = tmp_path / "here"
    shutil.copytree(far, here)
    n = len(list((far / ".ocr" / "sessions").iterdir()))
    p = subprocess.Popen(
        [sys.executable, "-m", "ocr_tui", "watch", str(here), f"box:{far}", "--via", "env"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        first = json.loads(p.stdout.readline())  # waits for: the stream's first line
        assert first["type"] == "projects"
        assert [r["name"] for r in first["projects"]] == ["here", f"box:{far.name}"]
        seen: dict[str, set[str]] = {"here": set(), f"box:{far.name}": set()}
        while min(len(v) for v in seen.values()) < n:  # waits for: both projects' snapshots
            line = json.loads(p.stdout.readline())
            if line["type"] == "snapshot":
                s = line["session"]
                seen[s["project"]].add(s["id"])
                assert s.get("host") == ("box" if s["project"] == f"box:{far.name}" else None)
        sid = sorted(seen[f"box:{far.name}"])[0].split("/", 1)[1]
        (far / ".ocr" / "sessions" / sid / "notes.md").write_text("new\n")
        while True:  # waits for: the far change relayed
            line = json.loads(p.stdout.readline())
            if line["type"] == "changed" and line["session"]["id"] == f"box:{far.name}/{sid}":
                break
    finally:
        p.terminate()
        assert p.wait(timeout=20) == 0
        (far / ".ocr" / "sessions" / sid / "notes.md").unlink(missing_ok=True)
