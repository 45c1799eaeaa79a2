"""The near side of a remote project (`core.remote`): `HOST:PATH` and `ssh://` told from local
paths; the ssh command; a link to a real far side started through `--via` (no sshd needed:
the agent run directly), its hello, stream and requests; and a far side that is missing, too
old, silent or sends garbage: one plain line each, never a hang, no process left."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ocr_tui.core.remote import RemoteError, RemoteLink, RemoteSpec, parse_remote


@pytest.mark.parametrize(
    "text, host, path, port",
    [
        ("devbox:~/src/api", "devbox", "~/src/api", None),
        ("ana@devbox:/srv/repo", "ana@devbox", "/srv/repo", None),
        ("ci-7:/srv/repo", "ci-7", "/srv/repo", None),
        ("devbox:", "devbox", ".", None),
        ("ssh://ana@devbox:2222/srv/repo", "ana@devbox", "srv/repo", 2222),
        ("ssh://devbox/~/src", "devbox", "~/src", None),
    ],
)
def test_remote_forms(text, host, path, port):
    spec = parse_remote(text)
    assert spec is not None and (spec.host, spec.path, spec.port) == (host, path, port)


@pytest.mark.parametrize("text", [".", "./a:b", "/x:y", "~/a:b", "src/a:b", "proj", "-x:y",
                                  "ssh://h:99999/p"])  # fmt: skip
def test_local_paths_stay_local(text):
    assert parse_remote(text) is None


def test_the_ssh_command():
    spec = RemoteSpec(host="ana@devbox", path="~/my repo", port=2222, agent="uvx ocr-tui")
    assert spec.command() == [
        "ssh", "-T", "-o", "BatchMode=yes", "-p", "2222", "ana@devbox", "--",
        "uvx ocr-tui agent --stdio '~/my repo'",
    ]  # fmt: skip
    assert spec.label == "devbox:my repo"


def local(root: Path) -> RemoteSpec:
    """The far side run here, directly (`--via` a command that runs it)."""
    return RemoteSpec(host="localhost", path=str(root), via=(sys.executable, "-m"),
                      agent="ocr_tui")  # fmt: skip


def test_a_link_to_a_far_side(far):
    link = RemoteLink(local(far))
    hello = link.open()
    assert hello["protocol"] == 1 and hello["root"] == str(far)
    snaps = []
    for line in link.lines(timeout=20):
        if line["type"] == "snapshot":
            snaps.append(line["session"])
        if len(snaps) == 2:
            break
    review = next(s for s in snaps if s.get("rounds")) if any(
        s.get("rounds") for s in snaps) else None  # fmt: skip
    assert link.request("ping") == "pong"
    if review is not None:
        got = link.request("findings", session=review["id"], round=1)
        assert got["round"] == 1
    with pytest.raises(RemoteError, match="unknown op"):
        link.request("frobnicate")
    proc = link._proc
    link.close()
    assert proc.poll() is not None  # reaped: nothing left behind


def fake(*script: str) -> RemoteSpec:
    """A far side that is a shell line."""
    return RemoteSpec(host="box", path="/p", via=("sh", "-c", "; ".join(script), "sh"))


@pytest.mark.parametrize(
    "spec, says",
    [
        (fake("echo 'sh: ocr-tui: not found' >&2", "exit 127"), "ocr-tui is not installed on box"),
        (
            fake(
                'echo \'{"type":"hello","protocol":0,"min_protocol":0,"version":"0.0.1"}\'',
                "sleep 5",
            ),
            "ocr-tui 0.0.1 on box is older than this one",
        ),  # fmt: skip
        (
            fake(
                'echo \'{"type":"hello","protocol":9,"min_protocol":7,"version":"9.0"}\'', "sleep 5"
            ),
            "is newer than this one",
        ),  # fmt: skip
        (fake("echo garbage", "sleep 5"), "not JSON: cut off"),
        (fake('echo \'{"type": "snapshot"}\'', "sleep 5"), "its first line is no hello"),
    ],
)
def test_a_far_side_that_will_not_do(spec, says):
    link = RemoteLink(spec, hello_timeout=10)
    with pytest.raises(RemoteError, match=says) as got:
        link.open()
    assert "\n" not in str(got.value)
    assert link._proc.poll() is not None


def test_a_silent_far_side_times_out():
    link = RemoteLink(fake("sleep 30"), hello_timeout=0.5)
    with pytest.raises(RemoteError, match="no answer from ocr-tui on box within"):
        link.open()
    assert link._proc.poll() is not None


HELLO = 'echo \'{"type":"hello","protocol":1,"min_protocol":1,"version":"9"}\''


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ('\'{"type":"reply","id":[1],"result":1}\'', None),  # an id we never gave: ignored
        ('"$(python3 -c \'print("[" * 200000)\')"', "cannot be read"),  # past the parser
    ],
    ids=["a-reply-of-no-request", "nested-past-the-parser"],
)
def test_what_the_reader_cannot_take_ends_the_link_never_a_dead_one(line, says):
    """A line the reader thread could not handle once killed it quietly: the link stayed
    "up", nothing more came, and every request waited its whole timeout."""
    link = RemoteLink(fake(HELLO, f"echo {line}", 'echo \'{"type":"scanned"}\'', "sleep 30"))
    link.open()
    try:
        if says is None:  # ignored: the stream goes on
            assert link.batch(10) == [{"type": "scanned"}]
            return
        with pytest.raises(RemoteError, match=says):
            while link.batch(10) is not None:  # waits for: the cut-off
                pass
        with pytest.raises(RemoteError, match="ended"):
            link.request("ping", timeout=30)  # at once: no reply will come
    finally:
        link.close()
    assert link._proc.poll() is not None
