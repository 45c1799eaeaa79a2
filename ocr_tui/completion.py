"""Shell completion for bash, zsh and fish, generated from the command line's own argparse
parser (`ocr-tui completion SHELL` prints it): every command, every option with its help, the
choices of those that have some (`--store`, `--min-severity`, ...), directories where a PATH or
DIR goes. Nothing to install beside ocr-tui, nothing run at each Tab: the script is plain shell,
made once from the parser, so it says what the installed version accepts.

`default_command` names the command whose options and positionals apply when no command is
given (`ocr-tui --poll PATH` is the dashboard's), as the CLI reads them.

Only argparse's public attributes and two of its long-standing internals are read: a
subparsers action's `choices` and `_choices_actions` (each command's help) and a parser's
`_actions`."""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field

SHELLS = ("bash", "zsh", "fish")
DIRS = "@dirs"  # a positional that completes to directories (PATH, DIR)


@dataclass
class _Option:
    flags: tuple[str, ...]
    help: str
    takes_value: bool
    choices: tuple[str, ...] | None
    metavar: str
    repeats: bool

    @property
    def dirs(self) -> bool:
        """Its value is a directory (`--scan DIR`)."""
        return self.takes_value and not self.choices and self.metavar == "DIR"


@dataclass
class _Command:
    name: str
    help: str
    options: list[_Option] = field(default_factory=list)
    positionals: list[str] = field(default_factory=list)  # DIRS or the choices, space-separated
    more: bool = False  # the last positional takes any number of words (nargs * or +)


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The help as `--help` shows it (`%(default)s` expanded), on one line."""
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    try:
        text = parser._get_formatter()._expand_help(action)
    except (KeyError, TypeError, ValueError):
        text = action.help
    return " ".join(text.split())


def _read(name: str, help_text: str, parser: argparse.ArgumentParser) -> tuple[_Command, dict]:
    """One parser's options and positionals, and its commands' parsers by name (if any)."""
    cmd = _Command(name, help_text)
    subs: dict[str, tuple[str, argparse.ArgumentParser]] = {}
    for action in parser._actions:
        if action.help == argparse.SUPPRESS:
            continue
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for word, sub in action.choices.items():
                primary = next((n for n, p in action.choices.items() if p is sub), word)
                subs[word] = (" ".join(helps.get(primary, "").split()), sub)
        elif action.option_strings:
            choices = tuple(str(c) for c in action.choices) if action.choices else None
            metavar = action.metavar if isinstance(action.metavar, str) else action.dest
            cmd.options.append(
                _Option(
                    flags=tuple(action.option_strings),
                    help=_help(parser, action),
                    takes_value=action.nargs != 0,
                    choices=choices,
                    metavar=metavar.upper(),
                    repeats=isinstance(action, argparse._AppendAction | argparse._CountAction),
                )
            )
        else:
            spec = " ".join(str(c) for c in action.choices) if action.choices else DIRS
            count = action.nargs if isinstance(action.nargs, int) else 1
            cmd.positionals += [spec] * count
            cmd.more = action.nargs in (argparse.ZERO_OR_MORE, argparse.ONE_OR_MORE)
    return cmd, subs


def _model(parser: argparse.ArgumentParser, default_command: str | None):
    """The top level (its own options, and the default command's) and each command."""
    top, subs = _read(parser.prog, parser.description or "", parser)
    commands = [_read(word, help_text, sub)[0] for word, (help_text, sub) in subs.items()]
    default = next((c for c in commands if c.name == default_command), None)
    if default is not None:
        seen = {f for o in top.options for f in o.flags}
        top.options += [o for o in default.options if not seen & set(o.flags)]
        top.positionals, top.more = default.positionals, default.more
    return top, commands, default


def script(shell: str, parser: argparse.ArgumentParser, *, default_command: str | None = None):
    """The completion script for `shell` (bash, zsh or fish) of `parser`'s program."""
    if shell not in SHELLS:
        raise ValueError(f"no completion for {shell!r} (one of: {', '.join(SHELLS)})")
    top, commands, default = _model(parser, default_command)
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](parser.prog, top, commands, default)


def _function(prog: str) -> str:
    return "_" + re.sub(r"\W", "_", prog)


# --- bash ------------------------------------------------------------------------------------


def _sh(text: str) -> str:
    """A shell word, quoted (bash and zsh)."""
    if text and re.fullmatch(r"[\w@%+=:,./-]+", text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def _bash_function(name: str, rows: list[tuple[str, str]]) -> str:
    """`name KEY`: echoes the words of the row KEY is (a case over "$1 $2", or "$1"); a key
    ending in " *" matches any second word."""
    body = "\n".join(
        f"        {_sh(k[:-1]) + '*' if k.endswith(' *') else _sh(k)}) echo {_sh(v)} ;;"
        for k, v in rows
        if v
    )
    return f'{name}() {{\n    case "$*" in\n{body}\n    esac\n}}\n'


def _bash(prog: str, top: _Command, commands: list[_Command], default) -> str:
    f = _function(prog)
    everyone = [("", top), *((c.name, c) for c in commands)]  # "": no command yet
    opts, valued, choices, positional = [], [], [], []
    for key, c in everyone:
        opts.append((key, " ".join(fl for o in c.options for fl in o.flags)))
        valued.append((key, " ".join(fl for o in c.options if o.takes_value for fl in o.flags)))
        choices += [(f"{key} {fl}", DIRS if o.dirs else " ".join(o.choices or ()))
                    for o in c.options if o.choices or o.dirs for fl in o.flags]  # fmt: skip
        positional += [(f"{key} {i}", spec) for i, spec in enumerate(c.positionals)]
        if c.more:
            positional.append((f"{key} *", c.positionals[-1]))
    functions = "\n".join(
        _bash_function(f"{f}_{name}", rows)
        for name, rows in (("opts", opts), ("valued", valued), ("choices", choices),
                           ("positional", positional))
    )  # fmt: skip
    names = " ".join(c.name for c in commands)
    return f"""\
# bash completion for {prog}, generated by `{prog} completion bash` (its options as installed).
# Load it from ~/.bashrc:  source <({prog} completion bash)
# or save it where bash-completion looks:
#   {prog} completion bash > ~/.local/share/bash-completion/completions/{prog}

{functions}
{f}() {{
    local commands={_sh(names)}
    local default={_sh(default.name if default else "")}
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}
    local cmd="" npos=0 skip=0 i w spec
    COMPREPLY=()
    # `--opt=value`: bash splits at `=` (COMP_WORDBREAKS)
    if [[ $cur == "=" ]]; then
        cur=""
    elif [[ $prev == "=" && $COMP_CWORD -gt 2 ]]; then
        prev=${{COMP_WORDS[COMP_CWORD-2]}}
    fi
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${{COMP_WORDS[i]}}
        if [[ $w == "=" ]]; then skip=1; continue; fi
        if ((skip)); then skip=0; continue; fi
        if [[ $w == -* ]]; then
            [[ " $({f}_valued "$cmd") " == *" $w "* ]] && skip=1
        elif [[ -z $cmd && $npos -eq 0 && " $commands " == *" $w "* ]]; then
            cmd=$w
        else
            npos=$((npos + 1))
        fi
    done
    if [[ -z $cmd && $npos -gt 0 && -n $default ]]; then
        cmd=$default  # `{prog} PATH ...`: the default command's
    fi
    if [[ $prev == -* && " $({f}_valued "$cmd") " == *" $prev "* ]]; then
        spec=$({f}_choices "$cmd" "$prev")
        if [[ $spec == {DIRS} ]]; then
            local IFS=$'\\n'
            COMPREPLY=($(compgen -d -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$spec" -- "$cur"))
        fi
        return 0
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$({f}_opts "$cmd")" -- "$cur"))
        return 0
    fi
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    fi
    spec=$({f}_positional "$cmd" "$npos")
    if [[ $spec == {DIRS} ]]; then
        local IFS=$'\\n'
        COMPREPLY+=($(compgen -d -- "$cur"))
    elif [[ -n $spec ]]; then
        COMPREPLY+=($(compgen -W "$spec" -- "$cur"))
    fi
    return 0
}}

complete -o filenames -F {f} {prog}
"""


# --- zsh -------------------------------------------------------------------------------------


def _zq(text: str) -> str:
    """Text inside a single-quoted zsh _arguments spec: its brackets and colons escaped."""
    text = re.sub(r"([\\\[\]:])", r"\\\1", text)
    return text.replace("'", "'\\''")


def _zsh_specs(c: _Command, with_positionals: bool) -> list[str]:
    specs = []
    for o in c.options:
        star = "*" if o.repeats else ""
        if o.takes_value:
            action = f"({' '.join(_zq(x) for x in o.choices)})" if o.choices else " "
            action = "_directories" if o.dirs else action
            value = f":{_zq(o.metavar.lower())}:{action}"
        else:
            value = ""
        exclude = f"({' '.join(o.flags)})" if len(o.flags) > 1 else ""
        eq = "=" if o.takes_value else ""
        helps = f"[{_zq(o.help)}]" if o.help else ""
        if len(o.flags) > 1:
            flags = "{" + ",".join(fl + eq for fl in o.flags) + "}"
            specs.append(f"'{star}{exclude}'{flags}'{helps}{value}'")
        else:
            specs.append(f"'{star}{o.flags[0]}{eq}{helps}{value}'")
    if with_positionals:
        for i, spec in enumerate(c.positionals, 1):
            action = "_directories" if spec == DIRS else f"({_zq(spec)})"
            specs.append(f"'{i}:: :{action}'")
        if c.more:
            specs.append(specs.pop().replace(f"'{len(c.positionals)}:: :", "'*: :", 1))
    return specs


def _zsh_case(label: str, specs: list[str]) -> str:
    body = " \\\n          ".join(["_arguments -s", *specs])
    return f"      {label})\n        {body} && ret=0\n        ;;"


def _zsh(prog: str, top: _Command, commands: list[_Command], default) -> str:
    f = _function(prog)
    described = "\n".join(
        f"        {_sh(c.name.replace(':', chr(92) + ':') + ':' + c.help)}" for c in commands
    )
    cases = [_zsh_case(_sh(c.name), _zsh_specs(c, with_positionals=True)) for c in commands]
    if default is not None:  # `prog PATH [OPTIONS]`: the default command's options
        cases.append(_zsh_case("*", _zsh_specs(default, with_positionals=False)))
    dirs = "\n      _directories && ret=0" if top.positionals[:1] == [DIRS] else ""
    top_specs = " \\\n      ".join(
        ["_arguments -C -s", *_zsh_specs(top, False), "'1: :->command'", "'*:: :->args'"]
    )
    return f"""\
#compdef {prog}
# zsh completion for {prog}, generated by `{prog} completion zsh` (its options as installed).
# Load it from ~/.zshrc, after compinit:  source <({prog} completion zsh)
# or save it as _{prog} in a directory of $fpath:
#   {prog} completion zsh > "${{fpath[1]}}/_{prog}"

{f}() {{
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  {top_specs} && ret=0
  case $state in
    command)
      local -a commands
      commands=(
{described}
      )
      _describe -t commands '{prog} command' commands && ret=0{dirs}
      ;;
    args)
      curcontext=${{curcontext%:*:*}}:{prog}-$line[1]:
      case $line[1] in
{chr(10).join(cases)}
      esac
      ;;
  esac
  return ret
}}

if [[ $funcstack[1] == {f} ]]; then
  {f} "$@"
else
  compdef {f} {prog}
fi
"""


# --- fish ------------------------------------------------------------------------------------


def _fq(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_option(prog: str, condition: str, o: _Option) -> str:
    parts = [f"complete -c {prog} -n {_fq(condition)}"]
    for fl in o.flags:
        if fl.startswith("--"):
            parts.append(f"-l {fl[2:]}")
        elif len(fl) == 2:
            parts.append(f"-s {fl[1]}")
        else:
            parts.append(f"-o {fl[1:]}")
    if o.takes_value:
        parts.append("-x")
        if o.choices:
            parts.append(f"-a {_fq(' '.join(o.choices))}")
        elif o.dirs:
            parts.append(f"-a {_fq('(__fish_complete_directories)')}")
    if o.help:
        parts.append(f"-d {_fq(o.help)}")
    return " ".join(parts)


def _fish_positional(prog: str, condition: str, spec: str) -> str:
    words = "(__fish_complete_directories)" if spec == DIRS else spec
    return f"complete -c {prog} -n {_fq(condition)} -a {_fq(words)}"


def _fish(prog: str, top: _Command, commands: list[_Command], default) -> str:
    names = " ".join(c.name for c in commands)
    lines = [
        f"# fish completion for {prog}, generated by `{prog} completion fish` (its options as"
        " installed).",
        f"# Load it:  {prog} completion fish | source",
        f"# or save it:  {prog} completion fish > ~/.config/fish/completions/{prog}.fish",
        "",
        f"complete -c {prog} -e",
        f"complete -c {prog} -f",
    ]
    none_yet = f"not __fish_seen_subcommand_from {names}"
    for c in commands:
        help_text = f" -d {_fq(c.help)}" if c.help else ""
        lines.append(f"complete -c {prog} -n __fish_use_subcommand -a {_fq(c.name)}{help_text}")
    lines += [_fish_option(prog, none_yet, o) for o in top.options]
    if top.positionals:
        lines.append(_fish_positional(prog, "__fish_use_subcommand", top.positionals[0]))
    for c in commands:
        lines.append("")
        seen = f"__fish_seen_subcommand_from {c.name}"
        lines += [_fish_option(prog, seen, o) for o in c.options]
        for spec in dict.fromkeys(c.positionals):
            lines.append(_fish_positional(prog, seen, spec))
    return "\n".join(lines) + "\n"
