"""`.ocr/config.yaml`'s `dashboard.ide`, read without a YAML library: the shapes OCR writes
and the ones it might, and files that are not config files at all."""

from __future__ import annotations

import os
import time

import pytest

from ocr_tui.formats.ocr.config import MAX_CONFIG, dashboard_ide, parse_dashboard_ide

# OCR's own template's tail (packages/agents/skills/ocr/assets/config.yaml, OCR >= 1.5).
OCR_TEMPLATE = """\
# Open Code Review Configuration

context_discovery:
  openspec:
    enabled: true
    config: "openspec/config.yaml"      # Project conventions from OpenSpec
  references:
    - "AGENTS.md"
    - ".cursorrules"

default_team:
  principal: 2    # Holistic architecture review
  # security: 1   # Auto-added for auth/API/data changes

github:
  auto_prompt_post: false
  comment_format: "single"  # "single" or "inline"

# ──────────────────────────────────────────────────────────────
# DASHBOARD
# ──────────────────────────────────────────────────────────────

dashboard:
  ide: {ide}  # auto | vscode | cursor | windsurf | jetbrains | sublime
"""


def write(tmp_path, content: str | bytes):
    ocr = tmp_path / ".ocr"
    ocr.mkdir(exist_ok=True)
    path = ocr / "config.yaml"
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", newline="")
    else:
        path.write_bytes(content)
    return ocr


@pytest.mark.parametrize("ide", ["vscode", "cursor", "windsurf", "jetbrains", "sublime", "auto"])
def test_ocrs_own_template(tmp_path, ide):
    assert dashboard_ide(write(tmp_path, OCR_TEMPLATE.replace("{ide}", ide))) == ide


@pytest.mark.parametrize(
    "text, want",
    [
        ("dashboard:\n  ide: vscode\n", "vscode"),
        ("dashboard:\n    ide: cursor\n", "cursor"),
        ("dashboard:\n  ide:   vscode   \n", "vscode"),
        ('dashboard:\n  ide: "vscode"\n', "vscode"),
        ("dashboard:\n  ide: 'vscode'\n", "vscode"),
        ('dashboard:\n  ide: "vscode"  # the default\n', "vscode"),
        ("dashboard:\n  ide: vscode # comment\n", "vscode"),
        ("dashboard:\n  ide: vscode\t# comment\n", "vscode"),
        ("dashboard:   # the dashboard\n  ide: zed\n", "zed"),
        ("dashboard:\n  # ide: cursor\n  ide: vscode\n", "vscode"),
        ("dashboard:\n\n  # comment\n\n  ide: vscode\n", "vscode"),
        ("dashboard:\n# a comment at column 0\n  ide: vscode\n", "vscode"),
        ("dashboard:\n\t# a tab before a comment\n  ide: vscode\n", "vscode"),
        ("dashboard:\n  port: 4173\n  ide: vscode\n  theme: dark\n", "vscode"),
        ("dashboard:\n  nested:\n    ide: cursor\n    deeper:\n      ide: x\n  ide: vscode\n",
         "vscode"),
        ("dashboard:\n  other: |\n    ide: cursor\n  ide: vscode\n", "vscode"),
        ("a: 1\nb:\n  ide: cursor\ndashboard:\n  ide: vscode\nc:\n  ide: zed\n", "vscode"),
        ("---\ndashboard:\n  ide: vscode\n", "vscode"),
        ("dashboard:\n  ide: VSCode\n", "VSCode"),
        ("dashboard:\n  ide: code-insiders\n", "code-insiders"),
        ("dashboard:\n  ide: vscode#x\n", None),  # `#` without a space is part of the value
        ("dashboard:\n  \"ide\": vscode\n", "vscode"),
        ("dashboard:\n  ide :  vscode\n", "vscode"),
    ],
)  # fmt: skip
def test_shapes_that_give_the_ide(text, want):
    assert parse_dashboard_ide(text) == want


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# only comments\n",
        "context_discovery:\n  ide: vscode\n",  # another block's ide
        "ide: vscode\n",  # top level, not under dashboard
        "  dashboard:\n    ide: vscode\n",  # not a top-level key
        "dashboard:\nide: vscode\n",  # not indented: a top-level key
        "dashboard:\n  ide:\n",  # null
        "dashboard:\n  ide: ~\n",
        "dashboard:\n  ide: null\n",
        "dashboard:\n  ide: ''\n",
        'dashboard:\n  ide: ""\n',
        "dashboard:\n  ide:\n    vscode\n",  # a value on the next line
        "dashboard: {ide: vscode}\n",  # a flow mapping
        "dashboard: vscode\n",
        "dashboard: &d\n  ide: vscode\n",
        "dashboard:\n  ide: [vscode]\n",
        "dashboard:\n  ide: {name: vscode}\n",
        "dashboard:\n  ide: |\n    vscode\n",
        "dashboard:\n  ide: >\n    vscode\n",
        "dashboard:\n  ide: *alias\n",
        "dashboard:\n  ide: !tag vscode\n",
        'dashboard:\n  ide: "vs\\"code"\n',  # an escape
        "dashboard:\n  ide: 'vs''code'\n",
        'dashboard:\n  ide: "vscode\n',  # unclosed
        'dashboard:\n  ide: "vscode" trailing\n',
        "dashboard:\n  ide: vs code\n",
        "dashboard:\n  ide: /usr/bin/code\n",
        "dashboard:\n  ide: vscode; rm -rf ~\n",
        "dashboard:\n  ide: -vscode\n",
        "dashboard:\n  ide: " + "a" * 65 + "\n",
        "dashboard:\n  ide: vscöde\n",
        "dashboard:\n  ide: vscode\n  ide: cursor\n",  # a key twice
        "dashboard:\n  ide: vscode\ndashboard:\n  ide: cursor\n",  # a block twice
        "dashboard:\n\tide: vscode\n",  # a tab in the indentation
        "dashboard:\n    port: 1\n  ide: vscode\n",  # back to a shallower indentation
        "dashboard:\n  - ide: vscode\n",  # a sequence
        "dashboard:\n  just words\n  ide: vscode\n",
        "dashboard:\n  ide: vscode\x85x\n",  # NEL is not a YAML line break
    ],
)
def test_shapes_that_give_nothing(text):
    assert parse_dashboard_ide(text) is None


def test_bom_and_crlf(tmp_path):
    body = "# config\r\ndashboard:\r\n  ide: cursor # here\r\n"
    assert dashboard_ide(write(tmp_path, b"\xef\xbb\xbf" + body.encode())) == "cursor"
    assert dashboard_ide(write(tmp_path, body.replace("\r\n", "\r"))) == "cursor"  # old Mac
    assert dashboard_ide(write(tmp_path, codecs_utf16(body))) == "cursor"


def codecs_utf16(text: str) -> bytes:
    return b"\xff\xfe" + text.encode("utf-16-le")


def test_missing(tmp_path):
    assert dashboard_ide(tmp_path / ".ocr") is None
    (tmp_path / ".ocr").mkdir()
    assert dashboard_ide(tmp_path / ".ocr") is None


def test_not_a_file(tmp_path):
    (tmp_path / ".ocr" / "config.yaml").mkdir(parents=True)
    assert dashboard_ide(tmp_path / ".ocr") is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_does_not_block(tmp_path):
    (tmp_path / ".ocr").mkdir()
    os.mkfifo(tmp_path / ".ocr" / "config.yaml")
    assert dashboard_ide(tmp_path / ".ocr") is None


def test_binary(tmp_path):
    data = b"dashboard:\n  ide: vscode\n\x00\x01\x02" + os.urandom(512)
    assert dashboard_ide(write(tmp_path, data)) is None
    assert dashboard_ide(write(tmp_path, os.urandom(4096))) is None


def test_bad_bytes_elsewhere_do_not_hide_the_value(tmp_path):
    data = b"# caf\xe9\ndashboard:\n  ide: vscode\n"
    assert dashboard_ide(write(tmp_path, data)) == "vscode"


def test_huge(tmp_path):
    pad = "# " + "x" * 78 + "\n"
    text = pad * (MAX_CONFIG // len(pad) + 1) + "dashboard:\n  ide: vscode\n"
    assert dashboard_ide(write(tmp_path, text)) is None  # over the cap: not read
    just = "dashboard:\n  ide: vscode\n" + pad * ((MAX_CONFIG - 30) // len(pad))
    assert dashboard_ide(write(tmp_path, just)) == "vscode"


def test_linear_time_on_hostile_lines():
    lines = [
        "dashboard:\n  ide: " + "a:" * 100_000 + "\n",
        "dashboard:\n  " + ":" * 200_000 + "\n",
        "dashboard:\n  ide: " + " " * 200_000 + "x #\n",
        "dashboard:\n" + "  k: v\n" * 50_000 + "  ide: vscode\n",
        "dashboard:\n  ide: '" + "'" * 200_000 + "\n",
    ]
    for text in lines:
        start = time.perf_counter()
        parse_dashboard_ide(text)
        assert time.perf_counter() - start < 10.0  # quadratic on 200,000 characters: minutes


def test_unreadable(tmp_path):
    ocr = write(tmp_path, "dashboard:\n  ide: vscode\n")
    (ocr / "config.yaml").chmod(0)
    try:
        if os.access(ocr / "config.yaml", os.R_OK):
            pytest.skip("running as root: permissions are not enforced")
        assert dashboard_ide(ocr) is None
    finally:
        (ocr / "config.yaml").chmod(0o644)
