"""Opening a finding's file in the user's editor: the editor, its argv per family,
and every refusal; then a real run with a fake editor."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from ocr_tui.core.editor import (
    NO_EDITOR,
    Plan,
    Refusal,
    choose_editor,
    editor_argv,
    family,
    plan,
    run,
    usable_line,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "proj"
    (r / "src").mkdir(parents=True)
    (r / "src" / "x.py").write_text("print(1)\n")
    return r


def real(p: Path) -> str:
    return os.path.realpath(p)


def ok(result: Plan | Refusal) -> Plan:
    assert isinstance(result, Plan), result
    return result


def refused(result: Plan | Refusal) -> str:
    assert isinstance(result, Refusal), result
    assert "\n" not in result.reason and result.reason.endswith(".")
    return result.reason


# --- argv per family -----------------------------------------------------------------------

F = "/p/src/x.py"


@pytest.mark.parametrize(
    "program",
    [
        "vi", "vim", "nvim", "gvim", "nano", "emacs", "emacsclient", "micro", "kak", "joe",
        "ne", "mg", "jed", "mcedit", "/usr/bin/vim", "vim.basic", "nvim.exe", "NVIM.EXE",
    ],
)  # fmt: skip
def test_plus_family(program):
    assert family(program) == "plus"
    assert editor_argv([program], F, 42) == [program, "+42", F]


@pytest.mark.parametrize("program", ["hx", "helix", "subl", "sublime_text", "zed"])
def test_colon_family(program):
    assert editor_argv([program], F, 42) == [program, f"{F}:42"]


@pytest.mark.parametrize(
    "program", ["code", "code-insiders", "codium", "cursor", "windsurf", "/opt/bin/code"]
)
def test_vscode_family(program):
    assert editor_argv([program], F, 42) == [program, "-g", f"{F}:42"]


@pytest.mark.parametrize(
    "program",
    ["idea", "pycharm", "webstorm", "goland", "clion", "rider", "phpstorm", "rubymine", "idea.sh"],
)
def test_jetbrains_family(program):
    assert editor_argv([program], F, 42) == [program, "--line", "42", F]


@pytest.mark.parametrize("program", ["ed", "cat", "myeditor", "env", "nvim-qt"])
def test_unknown_programs_get_only_the_file(program):
    assert family(program) == "other"
    assert editor_argv([program], F, 42) == [program, F]


@pytest.mark.parametrize("program", ["vim", "hx", "code", "idea", "myeditor"])
def test_without_a_line_only_the_file(program):
    assert editor_argv([program], F, None) == [program, F]


def test_the_editors_own_arguments_come_first():
    assert editor_argv(["emacsclient", "-nw"], F, 7) == ["emacsclient", "-nw", "+7", F]
    assert editor_argv(["code", "--wait"], F, 7) == ["code", "--wait", "-g", f"{F}:7"]


# --- which editor --------------------------------------------------------------------------


def test_visual_before_editor_before_ide(tmp_path):
    both = {"VISUAL": "nvim", "EDITOR": "nano", "PATH": str(tmp_path)}
    assert choose_editor(both, "vscode") == ["nvim"]
    assert choose_editor({"EDITOR": "nano"}, "vscode") == ["nano"]
    assert choose_editor({"VISUAL": "", "EDITOR": "nano"}, None) == ["nano"]
    assert choose_editor({"VISUAL": "   ", "EDITOR": "nano"}, None) == ["nano"]


def test_env_values_are_split_as_a_shell_would(tmp_path):
    assert choose_editor({"EDITOR": "emacsclient -nw"}, None) == ["emacsclient", "-nw"]
    assert choose_editor({"VISUAL": "code --wait"}, None) == ["code", "--wait"]
    got = choose_editor({"EDITOR": "'/opt/my editor/bin/vim' -u NONE"}, None)
    assert got == ["/opt/my editor/bin/vim", "-u", "NONE"]


def test_an_env_value_that_does_not_split_is_passed_over():
    assert choose_editor({"VISUAL": "vim 'oops", "EDITOR": "nano"}, None) == ["nano"]
    assert choose_editor({"VISUAL": "'' -n", "EDITOR": "nano"}, None) == ["nano"]
    reason = refused(choose_editor({"VISUAL": "vim 'oops"}, None))
    assert "$VISUAL" in reason and "set $VISUAL or $EDITOR" in reason


def test_no_editor_at_all():
    assert refused(choose_editor({}, None)) == NO_EDITOR
    assert refused(choose_editor({"VISUAL": "", "EDITOR": ""}, "auto")) == NO_EDITOR
    assert refused(choose_editor({}, "")) == NO_EDITOR


def _program(directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    p = directory / name
    p.write_text("#!/bin/sh\nexit 0\n")
    p.chmod(0o755)
    return p


@pytest.mark.parametrize(
    "ide, program",
    [("vscode", "code"), ("cursor", "cursor"), ("windsurf", "windsurf"),
     ("jetbrains", "idea"), ("sublime", "subl"), ("VSCode", "code"), (" zed ", "zed")],
)  # fmt: skip
def test_the_ide_is_searched_on_path(tmp_path, ide, program):
    exe = _program(tmp_path / "bin", program)
    assert choose_editor({"PATH": str(tmp_path / "bin")}, ide) == [str(exe)]


def test_an_ide_not_on_path_is_named(tmp_path):
    reason = refused(choose_editor({"PATH": str(tmp_path)}, "vscode"))
    assert reason.startswith("No editor: set $VISUAL or $EDITOR")
    assert "code is not on PATH" in reason


def test_an_unknown_ide_name_is_never_run(tmp_path):
    """`dashboard.ide` comes from the project's files: only known names map to programs."""
    _program(tmp_path / "bin", "evil")
    for ide in ("evil", "/tmp/evil", "vim -c '!sh'"):
        reason = refused(choose_editor({"PATH": str(tmp_path / "bin")}, ide))
        assert "not an IDE ocr-tui knows" in reason


def test_an_ide_program_inside_the_project_is_not_trusted(root):
    _program(root / "bin", "code")
    reason = refused(choose_editor({"PATH": str(root / "bin")}, "vscode", root))
    assert "code is not on PATH" in reason


# --- the plan ------------------------------------------------------------------------------


ENV = {"EDITOR": "vim"}


def test_a_relative_path_at_its_line(root):
    p = ok(plan(root, "src/x.py", 42, ENV))
    target = real(root / "src" / "x.py")
    assert p.argv == ("vim", "+42", target)
    assert p.cwd == Path(real(root))
    assert p.file == Path(target) and p.line == 42 and p.editor == "vim"
    assert p.display == "src/x.py:42 in vim"


@pytest.mark.parametrize("given", ["./src/x.py", "src/../src/x.py", "src//x.py", " src/x.py "])
def test_other_spellings_of_the_same_file(root, given):
    assert ok(plan(root, given, 3, ENV)).argv[-1] == real(root / "src" / "x.py")


def test_an_absolute_path_inside_the_root(root):
    p = ok(plan(root, str(root / "src" / "x.py"), 1, ENV))
    assert p.argv[-1] == real(root / "src" / "x.py") and p.display == "src/x.py:1 in vim"


def test_a_symlink_inside_the_project_opens_its_target(root):
    (root / "link.py").symlink_to(root / "src" / "x.py")
    assert ok(plan(root, "link.py", 2, ENV)).argv[-1] == real(root / "src" / "x.py")


def test_a_symlinked_root_is_fine(root, tmp_path):
    alias = tmp_path / "alias"
    alias.symlink_to(root)
    p = ok(plan(alias, "src/x.py", 2, ENV))
    assert p.argv[-1] == real(root / "src" / "x.py")


@pytest.mark.parametrize("line", [None, 0, -3, True, False, "42", 4.0, 10**12])
def test_a_line_that_is_not_a_positive_int_opens_the_file_alone(root, line):
    p = ok(plan(root, "src/x.py", line, ENV))
    assert p.argv == ("vim", real(root / "src" / "x.py")) and p.line is None
    assert p.display == "src/x.py in vim"


def test_usable_line():
    assert usable_line(1) == 1 and usable_line(10**9) == 10**9
    assert usable_line(10**9 + 1) is None and usable_line(0) is None


def test_the_ide_is_used_when_no_env(root, tmp_path):
    exe = _program(tmp_path / "bin", "code")
    p = ok(plan(root, "src/x.py", 9, {"PATH": str(tmp_path / "bin")}, "vscode"))
    assert p.argv == (str(exe), "-g", f"{real(root / 'src' / 'x.py')}:9")
    assert p.display == "src/x.py:9 in code"


def test_env_defaults_to_os_environ(root, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", "nano")
    assert ok(plan(root, "src/x.py", 5)).argv[:2] == ("nano", "+5")


# --- refusals ------------------------------------------------------------------------------


def test_outside_the_root(root, tmp_path):
    (tmp_path / "secret.py").write_text("x")
    assert (
        refused(plan(root, "../secret.py", 1, ENV))
        == f"../secret.py is not in this project ({root.resolve()})."
    )
    assert "not in this project" in refused(plan(root, str(tmp_path / "secret.py"), 1, ENV))
    assert "not in this project" in refused(plan(root, "/etc/passwd", 1, ENV))
    assert "not in this project" in refused(plan(root, "src/../../secret.py", 1, ENV))


def test_a_sibling_with_the_roots_name_as_prefix_is_outside(root, tmp_path):
    other = tmp_path / "proj2"
    other.mkdir()
    (other / "a.py").write_text("x")
    assert "not in this project" in refused(plan(root, "../proj2/a.py", 1, ENV))


def test_a_symlink_out_of_the_project(root, tmp_path):
    (tmp_path / "secret.py").write_text("x")
    (root / "src" / "out.py").symlink_to(tmp_path / "secret.py")
    (root / "outdir").symlink_to(tmp_path)
    assert (
        refused(plan(root, "src/out.py", 1, ENV))
        == f"src/out.py is not in this project ({root.resolve()})."
    )
    assert "not in this project" in refused(plan(root, "outdir/secret.py", 1, ENV))


def test_missing(root):
    assert (
        refused(plan(root, "src/nope.py", 1, ENV))
        == f"src/nope.py does not exist in {root.resolve()}."
    )
    assert (
        refused(plan(root, "src/x.py/y", 1, ENV))
        == f"src/x.py/y does not exist in {root.resolve()}."
    )
    (root / "dangling.py").symlink_to(root / "gone.py")
    assert (
        refused(plan(root, "dangling.py", 1, ENV))
        == f"dangling.py does not exist in {root.resolve()}."
    )


def test_a_directory_or_the_root_itself(root):
    assert refused(plan(root, "src", 1, ENV)) == "src is a directory, not a file."
    assert "is a directory" in refused(plan(root, ".", 1, ENV))
    assert "is a directory" in refused(plan(root, str(root), 1, ENV))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_not_a_regular_file(root):
    os.mkfifo(root / "pipe")
    assert refused(plan(root, "pipe", 1, ENV)) == "pipe is not a regular file."


@pytest.mark.parametrize(
    "name",
    ["src/x.py\nrm -rf /", "src/x.py\x00", "\x1b[31msrc/x.py", "src/\u202ex.py", "a\rb", "a\tb"],
)
def test_control_characters_are_refused(root, name):
    reason = refused(plan(root, name, 1, ENV))
    assert reason.endswith("is not a usable file name.")
    assert not any(c in reason for c in "\x00\x1b\n\r\t\u202e")


def test_a_long_name_is_refused_and_shown_cut(root):
    reason = refused(plan(root, "a/" * 3000, 1, ENV))
    assert "is not a usable file name" in reason and len(reason) < 200


@pytest.mark.parametrize("name", ["", "   ", None])
def test_no_file(root, name):
    assert refused(plan(root, name, 1, ENV)) == "The finding names no file."


def test_a_leading_dash_is_never_an_option(root):
    """The editor always gets the absolute path: `-c` or `--cmd=...` cannot reach it as an
    option; a file really named `-x.py` opens."""
    (root / "-x.py").write_text("x")
    (root / "+x.py").write_text("x")
    for name in ("-x.py", "+x.py"):
        p = ok(plan(root, name, 4, ENV))
        assert p.argv == ("vim", "+4", real(root / name))
        assert p.argv[-1].startswith("/")
    assert (
        refused(plan(root, "--cmd=!sh", 1, ENV)) == f"--cmd=!sh does not exist in {root.resolve()}."
    )
    assert refused(plan(root, "-c", 1, ENV)) == f"-c does not exist in {root.resolve()}."


def test_no_editor(root):
    assert refused(plan(root, "src/x.py", 1, {})) == NO_EDITOR
    assert refused(plan(root, "src/x.py", 1, {"EDITOR": ""}, "auto")) == NO_EDITOR


def test_the_file_is_checked_before_the_editor(root):
    assert refused(plan(root, "nope.py", 1, {})) == f"nope.py does not exist in {root.resolve()}."


def test_plan_never_raises(root):
    assert isinstance(plan(root, 42, 1, ENV), Refusal)  # type: ignore[arg-type]
    assert isinstance(plan(root / "gone", "x.py", 1, ENV), Refusal)


# --- running it ----------------------------------------------------------------------------


def _fake_editor(tmp_path: Path, status: int = 0) -> tuple[Path, Path]:
    """An executable that writes its argv (one per line) and its cwd to a file."""
    record = tmp_path / "argv.txt"
    script = tmp_path / "bin" / f"fake-editor-{status}"
    script.parent.mkdir(exist_ok=True)
    script.write_text(
        f"#!{sys.executable}\n"
        "import os, sys\n"
        f"with open({str(record)!r}, 'w') as fh:\n"
        "    fh.write(os.getcwd() + '\\n' + '\\n'.join(sys.argv[1:]))\n"
        f"sys.exit({status})\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, record


def test_run_opens_the_file(root, tmp_path):
    script, record = _fake_editor(tmp_path)
    vim = tmp_path / "bin" / "vim"
    vim.symlink_to(script)  # named vim: the plus family
    p = ok(plan(root, "src/x.py", 42, {"EDITOR": f"{vim} -n"}))
    assert run(p) is None
    cwd, *args = record.read_text().split("\n")
    assert args == ["-n", "+42", real(root / "src" / "x.py")]
    assert cwd == real(root)


def test_run_with_an_unknown_program_gives_only_the_file(root, tmp_path):
    script, record = _fake_editor(tmp_path)
    assert run(ok(plan(root, "src/x.py", 42, {"VISUAL": str(script)}))) is None
    assert record.read_text().split("\n")[1:] == [real(root / "src" / "x.py")]


def test_run_reports_a_failing_editor(root, tmp_path):
    script, _ = _fake_editor(tmp_path, status=3)
    p = ok(plan(root, "src/x.py", 1, {"EDITOR": str(script)}))
    assert run(p) == "fake-editor-3 exited with status 3."


def test_run_reports_a_missing_program(root, tmp_path):
    p = ok(plan(root, "src/x.py", 1, {"EDITOR": str(tmp_path / "no-such-editor")}))
    assert run(p) == "no-such-editor was not found: is it installed and on PATH?"
    p = ok(plan(root, "src/x.py", 1, {"EDITOR": "ocr-tui-no-such-editor-xyz --flag"}))
    assert run(p) == "ocr-tui-no-such-editor-xyz was not found: is it installed and on PATH?"


def test_run_reports_a_program_that_cannot_run(root, tmp_path):
    notexec = tmp_path / "notexec"
    notexec.write_text("#!/bin/sh\n")
    notexec.chmod(0o644)
    p = ok(plan(root, "src/x.py", 1, {"EDITOR": str(notexec)}))
    assert run(p) == "notexec could not be started (permission denied)."


def test_run_reports_a_signal(root, tmp_path):
    script = tmp_path / "killed"
    script.write_text("#!/bin/sh\nkill -TERM $$\n")
    script.chmod(0o755)
    assert run(ok(plan(root, "src/x.py", 1, {"EDITOR": str(script)}))) == (
        "killed was stopped by SIGTERM."
    )


def test_run_when_the_project_is_gone(root, tmp_path):
    script, _ = _fake_editor(tmp_path)
    p = ok(plan(root, "src/x.py", 1, {"EDITOR": str(script)}))
    gone = Plan(p.argv, tmp_path / "gone", p.editor, p.file, p.line, p.display)
    assert run(gone) == "The project directory is gone."
