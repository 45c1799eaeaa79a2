"""Open a finding's file at its line in the user's editor: which editor, with which
arguments, and whether the file may be opened at all. No Textual here: the findings screen
suspends the app and calls `run(plan(...))`.

The editor is `$VISUAL`, else `$EDITOR`, else the IDE named in OCR's `.ocr/config.yaml`
(`dashboard.ide`, read by the caller). An environment value may carry arguments
(`emacsclient -nw`, `code --wait`): it is split as a shell would split it (no shell runs); a
value that is empty or does not split (an open quote) is passed over. An IDE name comes from
the project's own files, so it is only ever looked up in `IDE_COMMANDS` (never run as written)
and its program must be on PATH and lie outside the project.

The program's family (its basename, without `.exe` and, when that is not known, without
everything from the first dot: `vim.basic`, `idea.sh`) picks how the line is given:

    family    programs                                        argv after the editor's own
    plus      vi vim nvim gvim nano emacs emacsclient micro   +LINE FILE
              kak joe ne mg jed vis mcedit gedit ...
    colon     hx helix subl sublime_text zed zeditor          FILE:LINE
    vscode    code code-insiders codium code-oss cursor ...   -g FILE:LINE
    jetbrains idea pycharm webstorm goland clion rider ...    --line LINE FILE
    other     anything else                                   FILE (the line is not given:
                                                              an unknown program might take
                                                              `+42` for a file to create)

Without a line every family gets just FILE. FILE is always the absolute, resolved path (what
was checked is what is opened), so it never starts with `-` or `+` and cannot be read as an
option.

The file name comes from a reviewer's markdown (from disk, possibly hostile): it is resolved
against the project root (a repo-relative path, `./path`, or an absolute path inside the root),
and after symlinks are resolved it must lie inside the root and be an existing regular file.
Spaces around the name are dropped; a name holding a control character (newline, NUL, escape,
bidi override) is refused. A line that is not a positive int opens the file without a line.
Every refusal is one plain sentence, safe to show.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import stat
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ocr_tui.core.safe_read import inside
from ocr_tui.core.textsafe import safe_line

# `dashboard.ide` (OCR's names, and a few more) -> the program it runs.
IDE_COMMANDS: dict[str, str] = {
    "vscode": "code",
    "code": "code",
    "vscode-insiders": "code-insiders",
    "vscodium": "codium",
    "codium": "codium",
    "cursor": "cursor",
    "windsurf": "windsurf",
    "jetbrains": "idea",
    "intellij": "idea",
    "idea": "idea",
    "pycharm": "pycharm",
    "webstorm": "webstorm",
    "goland": "goland",
    "sublime": "subl",
    "subl": "subl",
    "zed": "zed",
}
NO_IDE = frozenset({"", "auto", "none", "null", "~"})  # "auto": OCR's own default

FAMILIES: dict[str, frozenset[str]] = {
    "plus": frozenset(
        {
            "vi",
            "vim",
            "nvim",
            "gvim",
            "mvim",
            "rvim",
            "view",
            "lvim",
            "nano",
            "rnano",
            "pico",
            "emacs",
            "emacsclient",
            "xemacs",
            "mg",
            "zile",
            "jed",
            "micro",
            "kak",
            "vis",
            "ne",
            "mcedit",
            "joe",
            "jmacs",
            "jstar",
            "jpico",
            "rjoe",
            "gedit",
            "xed",
            "pluma",
        }
    ),  # fmt: skip
    "colon": frozenset({"hx", "helix", "subl", "sublime_text", "zed", "zeditor"}),
    "vscode": frozenset(
        {"code", "code-insiders", "codium", "code-oss", "vscodium", "cursor", "windsurf"}
    ),
    "jetbrains": frozenset(
        {
            "idea",
            "idea64",
            "pycharm",
            "pycharm64",
            "webstorm",
            "webstorm64",
            "goland",
            "goland64",
            "clion",
            "clion64",
            "rider",
            "rider64",
            "phpstorm",
            "phpstorm64",
            "rubymine",
            "rubymine64",
            "datagrip",
            "rustrover",
            "studio",
            "studio64",
        }
    ),  # fmt: skip
}
_FAMILY_OF = {name: fam for fam, names in FAMILIES.items() for name in names}

MAX_LINE = 10**9  # a larger "line" is not a line (and vim would only go to the end anyway)
MAX_PATH = 4096
NO_EDITOR = "No editor: set $VISUAL or $EDITOR."


@dataclass(frozen=True)
class Plan:
    """What to run: `argv` (no shell) in `cwd` (the project root, resolved)."""

    argv: tuple[str, ...]
    cwd: Path
    editor: str  # the program's name, safe to show: "vim"
    file: Path  # the resolved file that is opened
    line: int | None
    display: str  # safe to show: "src/x.py:42 in vim"


@dataclass(frozen=True)
class Refusal:
    """Why nothing is opened: one plain sentence, safe to show."""

    reason: str


def family(program: str) -> str:
    """The program's family (`plus`, `colon`, `vscode`, `jetbrains` or `other`) from its
    basename: `/usr/bin/vim`, `nvim.exe`, `vim.basic` and `idea.sh` are known."""
    name = os.path.basename(program.replace("\\", "/")).lower()
    name = name.removesuffix(".exe")
    if name in _FAMILY_OF:
        return _FAMILY_OF[name]
    return _FAMILY_OF.get(name.partition(".")[0], "other")


def editor_argv(command: Sequence[str], file: str, line: int | None) -> list[str]:
    """`command` (the editor and its own arguments) with `file` opened at `line`. `file` must
    already be safe as an argument (absolute: it cannot be read as an option)."""
    argv = list(command)
    if line is None:
        return [*argv, file]
    fam = family(argv[0])
    if fam == "plus":
        return [*argv, f"+{line}", file]
    if fam == "colon":
        return [*argv, f"{file}:{line}"]
    if fam == "vscode":
        return [*argv, "-g", f"{file}:{line}"]
    if fam == "jetbrains":
        return [*argv, "--line", str(line), file]
    return [*argv, file]


def _split(value: str | None) -> list[str] | None:
    if not value or not value.strip():
        return None
    try:
        words = shlex.split(value)
    except ValueError:  # an open quote, a trailing backslash
        return None
    return words if words and words[0].strip() else None  # `""` names no program


def choose_editor(
    env: Mapping[str, str], ide: str | None, root: Path | None = None
) -> list[str] | Refusal:
    """The editor's command words: `$VISUAL`, else `$EDITOR`, else the program of the IDE
    named `ide` when it is on PATH (`env`'s) and not inside `root`."""
    broken = []
    for var in ("VISUAL", "EDITOR"):
        value = env.get(var)
        words = _split(value)
        if words is not None:
            return words
        if value and value.strip():
            broken.append(f"${var}")
    name = (ide or "").strip().lower()
    if name not in NO_IDE:
        program = IDE_COMMANDS.get(name)
        if program is None:
            return Refusal(
                f"No editor: set $VISUAL or $EDITOR (dashboard.ide {_shown(name)} is not an"
                " IDE ocr-tui knows)."
            )
        found = shutil.which(program, path=env.get("PATH", os.defpath))
        if found and root is not None and _within(found, root):
            found = None  # a program the project itself ships is not an editor to trust
        if found:
            return [found]
        return Refusal(
            f"No editor: set $VISUAL or $EDITOR (dashboard.ide is {name}, but {program} is"
            " not on PATH)."
        )
    if broken:
        return Refusal(
            f"No editor: {' and '.join(broken)} could not be read as a command; set $VISUAL"
            " or $EDITOR."
        )
    return Refusal(NO_EDITOR)


def _within(path: str, root: Path) -> bool:
    try:
        return inside(os.path.realpath(path), [os.path.realpath(root)])
    except (OSError, ValueError):
        return True


def _shown(file: str) -> str:
    text = safe_line(file)
    return text if len(text) <= 100 else text[:99] + "…"


def _home(path: str) -> str:
    """`~/src/app` for a path under the home directory: where it looked, short."""
    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


def resolve_file(root: Path, file: str) -> Path | Refusal:
    """The file a finding names, as a resolved absolute path inside `root`, or why not."""
    if not isinstance(file, str) or not file.strip(" "):
        return Refusal("The finding names no file.")
    file = file.strip(" ")  # markdown's spacing, not the name's
    shown = _shown(file)
    if safe_line(file) != file or len(file) > MAX_PATH:
        return Refusal(f"{shown} is not a usable file name.")
    try:
        top = os.path.realpath(root)
        candidate = file if os.path.isabs(file) else os.path.join(top, file)
        real = os.path.realpath(candidate)
    except (OSError, ValueError):
        return Refusal(f"{shown} is not a usable file name.")
    if not inside(real, [top]):
        return Refusal(f"{shown} is not in this project ({_shown(_home(top))}).")
    try:
        st = os.stat(real)
    except (FileNotFoundError, NotADirectoryError):
        return Refusal(f"{shown} does not exist in {_shown(_home(top))}.")
    except OSError as exc:
        return Refusal(f"{shown} cannot be opened ({exc.strerror or type(exc).__name__}).")
    if stat.S_ISDIR(st.st_mode):
        return Refusal(f"{shown} is a directory, not a file.")
    if not stat.S_ISREG(st.st_mode):
        return Refusal(f"{shown} is not a regular file.")
    return Path(real)


def usable_line(line: object) -> int | None:
    """`line` when it is a positive int (not a bool) no larger than MAX_LINE, else None."""
    if isinstance(line, bool) or not isinstance(line, int):
        return None
    return line if 0 < line <= MAX_LINE else None


def plan(
    root: Path,
    file: str,
    line: int | None = None,
    env: Mapping[str, str] | None = None,
    ide: str | None = None,
) -> Plan | Refusal:
    """How to open `file` (as a reviewer wrote it, relative to `root`) at `line`, or why not.
    `env` defaults to `os.environ`; `ide` is `dashboard.ide` from `.ocr/config.yaml`."""
    try:
        target = resolve_file(root, file)
        if isinstance(target, Refusal):
            return target
        command = choose_editor(os.environ if env is None else env, ide, root)
        if isinstance(command, Refusal):
            return command
        at = usable_line(line)
        top = Path(os.path.realpath(root))
        argv = editor_argv(command, str(target), at)
        editor = _shown(os.path.basename(command[0]) or command[0])
        rel = _shown(os.path.relpath(target, top))
        where = f"{rel}:{at}" if at is not None else rel
        return Plan(
            argv=tuple(argv),
            cwd=top,
            editor=editor,
            file=target,
            line=at,
            display=f"{where} in {editor}",
        )
    except Exception as exc:  # never raise to the screen
        return Refusal(f"The file cannot be opened ({safe_line(type(exc).__name__)}).")


def run(p: Plan) -> str | None:
    """Run the plan's editor in the terminal (inherited: call it with the app suspended) and
    wait for it. None when it exited with status 0, else one plain sentence."""
    name = p.editor
    try:
        proc = subprocess.run(list(p.argv), cwd=p.cwd, check=False)
    except FileNotFoundError as exc:
        if exc.filename is not None and os.fspath(exc.filename) == os.fspath(p.cwd):
            return "The project directory is gone."
        return f"{name} was not found: is it installed and on PATH?"
    except PermissionError:
        return f"{name} could not be started (permission denied)."
    except KeyboardInterrupt:
        return f"{name} was interrupted."
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        why = getattr(exc, "strerror", None) or type(exc).__name__
        return f"{name} could not be started ({safe_line(why)})."
    code = proc.returncode
    if code == 0:
        return None
    if code < 0:
        try:
            sig = signal.Signals(-code).name
        except ValueError:
            sig = f"signal {-code}"
        return f"{name} was stopped by {sig}."
    return f"{name} exited with status {code}."
