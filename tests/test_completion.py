"""`ocr_tui.completion`: the bash, zsh and fish scripts made from the full parser name every
command and option, are valid shell, and (bash, always here; fish where installed) complete
what they should. zsh and fish are checked only where they are installed (skipped, saying so,
elsewhere); bash always."""

from __future__ import annotations

import argparse
import shutil
import subprocess

import pytest

from ocr_tui import cli
from ocr_tui.completion import SHELLS, script


def _full() -> argparse.ArgumentParser:
    return cli.build_parser(None)


def _walk(parser: argparse.ArgumentParser) -> tuple[list[str], dict[str, list[str]]]:
    """The commands, and the option strings of the top level ("") and of each command."""
    commands: list[str] = []
    options: dict[str, list[str]] = {"": []}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                commands.append(name)
                options[name] = [f for a in sub._actions for f in a.option_strings]
        else:
            options[""] += action.option_strings
    return commands, options


def _scripts() -> dict[str, str]:
    return {shell: script(shell, _full(), default_command="dashboard") for shell in SHELLS}


def test_the_full_parser_has_what_the_scripts_must_name():
    commands, options = _walk(_full())
    assert {"status", "findings", "watch", "simulate", "demo", "dashboard"} <= set(commands)
    assert "--fail-on" in options["findings"] and "--json" in options["status"]


@pytest.mark.parametrize("shell", SHELLS)
def test_every_command_and_option_is_named(shell):
    text = _scripts()[shell]
    commands, options = _walk(_full())
    for command in commands:
        assert command in text, (shell, command)
    for flags in options.values():
        for flag in flags:
            if shell == "fish":  # `complete -l json`, `-s h`
                spelled = f"-l {flag[2:]}" if flag.startswith("--") else f"-s {flag[1:]}"
            else:
                spelled = flag
            assert spelled in text, (shell, flag)
    # The choices of an option; and the help, where the shell shows it (not bash).
    assert "state.json" in text and "ocr.db" in text and "blocker" in text
    if shell != "bash":
        assert "print the sessions once and exit" in text and "only blockers" in text


def test_unknown_shell_is_refused():
    with pytest.raises(ValueError, match="powershell"):
        script("powershell", _full())


def _bash_complete(text: str, words: list[str], cwd, function: str = "_ocr_tui") -> list[str]:
    """What the bash script puts in COMPREPLY for `words` (the last one being completed)."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = (
        f"{text}\nCOMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; COMPREPLY=()\n"
        f"{function}\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n"
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile"], input=program, capture_output=True, text=True,
        cwd=cwd, timeout=30,
    )  # fmt: skip
    assert done.returncode == 0 and not done.stderr, done.stderr
    return sorted(line for line in done.stdout.splitlines() if line)


def test_bash_script_is_valid_and_completes(tmp_path):
    text = _scripts()["bash"]
    done = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "complete -o filenames -F _ocr_tui ocr-tui" in text
    (tmp_path / "proj").mkdir()
    (tmp_path / "a file").write_text("")
    commands, options = _walk(_full())

    def complete(*words: str) -> list[str]:
        return _bash_complete(text, ["ocr-tui", *words], tmp_path)

    assert complete("") == sorted([*commands, "proj"])  # commands, and a PATH (directories)
    assert complete("st") == ["status"]
    assert complete("status", "--") == sorted(f for f in options["status"] if f.startswith("--"))
    assert complete("simulate", "--store", "") == ["ocr.db", "state.json"]
    assert complete("simulate", "--store", "=", "o") == ["ocr.db"]  # --store=o
    assert complete("findings", "--fail-on", "b") == ["blocker"]
    assert complete("status", "--session", "X", "") == ["proj"]  # X is --session's value
    assert complete("status", "--session", "") == []  # an id: nothing to offer
    assert complete("proj", "--po") == ["--poll"]  # `ocr-tui PATH --poll`: the dashboard's
    assert complete("status", "proj", "") == ["proj"]  # several PATHs: one more
    assert complete("--scan", "") == ["proj"]  # --scan DIR: directories
    assert complete("status", "--scan", "p") == ["proj"]
    assert complete("status", "--scan", "=", "p") == ["proj"]  # --scan=p
    assert complete("findings", "proj", "") == []  # one PATH only


def _toy() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="my-tool")
    parser.add_argument("-v", "--verbose", action="count", help="it's [more]: %(default)s")
    sub = parser.add_subparsers(dest="command")
    go = sub.add_parser("go", aliases=["g"], help='say "go" $HOME `x` \\ it\'s')
    go.add_argument("mode", choices=["fast", "slow"])
    go.add_argument("rest", nargs="*")
    go.add_argument("--level", type=int, choices=[1, 2], help="100%% sure; {a,b} (c)")
    return parser


def test_bash_script_of_any_parser_quotes_what_it_holds(tmp_path):
    """Help with quotes and brackets, choices on a positional, aliases, nargs='*'."""
    parser = _toy()
    for shell in SHELLS:
        text = script(shell, parser)
        assert "go" in text and "--level" in text or "-l level" in text
    bash = script("bash", parser)
    assert subprocess.run(["bash", "-n"], input=bash, text=True).returncode == 0
    (tmp_path / "d").mkdir()

    def complete(*words: str) -> list[str]:
        return _bash_complete(bash, ["my-tool", *words], tmp_path, function="_my_tool")

    assert complete("") == ["g", "go"]  # no default command: the commands alone
    assert complete("g", "") == ["fast", "slow"]  # an alias is its command
    assert complete("go", "fast", "") == ["d"]  # then nargs="*": directories
    assert complete("go", "fast", "d", "d", "") == ["d"]
    assert complete("go", "--level", "1", "slow", "") == ["d"]
    assert complete("go", "--level", "") == ["1", "2"]
    assert complete("-") == ["--help", "--verbose", "-h", "-v"]


def _needs(shell: str) -> str:
    path = shutil.which(shell)
    if path is None:
        pytest.skip(f"{shell} is not installed here: its script's syntax is not checked")
    return path


def test_zsh_script_is_valid():
    full = _scripts()["zsh"]
    assert full.startswith("#compdef ocr-tui\n") and "compdef _ocr_tui ocr-tui" in full
    assert "'--scan=[" in full and ":dir:_directories'" in full  # --scan DIR: directories
    zsh = _needs("zsh")
    for text in (full, script("zsh", _toy())):
        done = subprocess.run([zsh, "-n"], input=text, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_fish_script_is_valid_and_completes(tmp_path):
    full = _scripts()["fish"]
    assert "complete -c ocr-tui -n __fish_use_subcommand -a 'status'" in full
    fish = _needs("fish")
    path = tmp_path / "ocr-tui.fish"
    path.write_text(full)
    for text in (full, script("fish", _toy())):
        done = subprocess.run([fish, "--no-execute"], input=text, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    line = "ocr-tui simulate --store "
    done = subprocess.run(
        [fish, "--no-config", "-c", f"source {path}; complete -C '{line}'"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert sorted(done.stdout.split()) == ["ocr.db", "state.json"], done.stderr
    (tmp_path / "proj").mkdir()
    scan = f"source {path}; cd {tmp_path}; complete -C 'ocr-tui --scan p'"
    done = subprocess.run(
        [fish, "--no-config", "-c", scan],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.stdout.split()[:1] == ["proj/"], done.stderr  # --scan DIR: directories


def test_the_completion_command_prints_the_script(capsys):
    """`ocr-tui completion SHELL` prints these scripts."""
    assert "completion" in cli.COMMANDS
    for shell in SHELLS:
        assert cli.main(["completion", shell]) == 0
        out = capsys.readouterr().out
        assert out == script(shell, _full(), default_command="dashboard")
        assert "completion" in out
