"""The config file: what it sets, where flags and project tables win, bad
files and values as one line naming the key, the theme remembered."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from ocr_tui import cli
from ocr_tui.core import config


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "config.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_a_missing_file_sets_nothing(tmp_path):
    s = config.load(path=tmp_path / "nope.toml")
    assert (s.theme, s.sort, s.stall_after, s.problems) == (None, None, None, [])


def test_every_key(tmp_path):
    path = write(
        tmp_path,
        'theme = "textual-light"\nsort = "name"\nfilter = "active"\nstall_after = "45m"\n'
        'notify = "bell"\neditor = "code --wait"\n',
    )
    s = config.load(path=path)
    assert (s.theme, s.sort, s.filter, s.notify, s.editor) == (
        "textual-light", "name", "active", "bell", "code --wait",
    )  # fmt: skip
    assert s.stall_after == 2700 and s.problems == []
    assert config.load(path=write(tmp_path, "stall_after = 90\n")).stall_after == 90


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('sort = "bogus"\n', "sort: 'bogus' is not one of activity, start, name"),
        ("filter = 3\n", "filter: 3 is not a string"),
        ('stall_after = "soon"\n', "stall_after: 'soon' is not a duration"),
        ("stall_after = -5\n", "stall_after: -5 is not a duration"),
        ('colour = "red"\n', "colour: unknown key"),
        ('[projects]\napi = "x"\n', 'projects."api": not a table'),
        ("sort = \n", "ignored"),  # not TOML
    ],
)
def test_a_bad_value_is_one_line_naming_it_and_the_rest_applies(tmp_path, text, named):
    s = config.load(path=write(tmp_path, 'theme = "nord"\n' + text))
    assert len(s.problems) == 1 and named in s.problems[0], s.problems
    assert "\n" not in s.problems[0]
    if "not TOML" not in text and "sort = \n" not in text:
        assert s.theme == "nord"


def test_hostile_files_never_crash_nor_print_escapes(tmp_path):
    for body in (b"\xff\xfe\x00bad", b'sort = "\x1b[31mred"\n', b'"\x1b]0;x\x07" = 1\n'):
        s = config.load(path=write(tmp_path, body))
        assert s.problems and not any("\x1b" in p or "\x07" in p for p in s.problems)
    s = config.load(path=write(tmp_path, b'\xef\xbb\xbfsort = "name"\n'))  # a BOM
    assert s.sort == "name" and s.problems == []
    (tmp_path / "dir.toml").mkdir()
    assert config.load(path=tmp_path / "dir.toml").problems  # not a file


def test_project_tables_where_it_starts_deepest_last(tmp_path):
    api = tmp_path / "src" / "api"
    (api / "sub").mkdir(parents=True)
    path = write(
        tmp_path,
        f'sort = "activity"\nfilter = "all"\n[projects."{tmp_path / "src"}"]\nsort = "start"\n'
        f'filter = "closed"\n[projects."{api}"]\nsort = "name"\n',
    )
    s = config.load(api / "sub", path=path)
    assert (s.sort, s.filter) == ("name", "closed")
    s = config.load(tmp_path, path=path)
    assert (s.sort, s.filter) == ("activity", "all")


def test_off_and_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("OCR_TUI_CONFIG", "off")
    assert config.config_path() is None
    monkeypatch.delenv("OCR_TUI_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert config.config_path() == tmp_path / "ocr-tui" / "config.toml"


def test_the_theme_is_remembered_and_the_rest_kept(tmp_path):
    path = tmp_path / "deep" / "config.toml"
    assert config.save_theme("nord", path) is None
    assert config.load(path=path).theme == "nord"
    path.write_text('# mine\nsort = "name"\n[projects."/x"]\nsort = "start"\n')
    assert config.save_theme("gruvbox", path) is None
    text = path.read_text()
    assert text.index('theme = "gruvbox"') < text.index("[projects")
    assert "# mine" in text and config.load(path=path).sort == "name"
    config.save_theme("textual-light", path)
    assert path.read_text().count("theme =") == 1
    assert config.load(path=path).theme == "textual-light"
    config.save_theme('x"\n[evil]', path)  # not a theme name: not written
    assert "evil" not in path.read_text()


def args_for(argv: list[str]) -> argparse.Namespace:
    parser = cli.build_parser(argv[0])
    return parser.parse_args(argv)


def test_flags_win_over_the_file(monkeypatch, tmp_path, capsys):
    path = write(tmp_path, 'sort = "name"\nstall_after = "45m"\nnotify = "bell"\ncolour = 1\n')
    monkeypatch.setenv("OCR_TUI_CONFIG", str(path))
    args = args_for(["dashboard", str(tmp_path)])
    cli._configure(args, str(tmp_path))
    assert (args.sort, args.stall_after, args.notify) == ("name", 2700, "bell")
    assert "colour: unknown key" in capsys.readouterr().err
    args = args_for(
        ["dashboard", str(tmp_path), "--sort", "start", "--stall-after", "5m", "--notify", "off"]
    )
    cli._configure(args, str(tmp_path))
    assert (args.sort, args.stall_after, args.notify) == ("start", 300, "off")
    args = args_for(["status", str(tmp_path)])  # headless commands: the stall threshold
    cli._configure(args, str(tmp_path))
    assert args.stall_after == 2700


def test_no_file_no_flag_the_defaults(monkeypatch, tmp_path):
    monkeypatch.setenv("OCR_TUI_CONFIG", str(tmp_path / "none.toml"))
    args = args_for(["dashboard", str(tmp_path)])
    cli._configure(args, str(tmp_path))
    assert args.stall_after == cli.DEFAULT_STALL_AFTER and args.notify == "off"
    assert (args.sort, args.filter, args.theme) == (None, None, None)


def test_a_file_named_by_ocr_tui_config_that_is_not_there_is_said(tmp_path, monkeypatch):
    """Named on purpose, its absence is one line; the default file's absence is nothing."""
    from ocr_tui.core import config

    monkeypatch.setenv("OCR_TUI_CONFIG", str(tmp_path / "missing.toml"))
    settings = config.load(tmp_path)
    assert len(settings.problems) == 1 and "no such file" in settings.problems[0]
    monkeypatch.delenv("OCR_TUI_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config.load(tmp_path).problems == []
