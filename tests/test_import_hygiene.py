"""The house rules, read from the code's own imports: only ocr_tui.ui imports textual; core
imports only core, a format only core and itself, ui no top-level module and no format but
OCR's facade; screens never import each other; no import circles."""

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import ocr_tui


def core_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(ocr_tui.__path__, "ocr_tui."):
        if info.name.startswith("ocr_tui.ui") or info.name == "ocr_tui.__main__":
            continue
        names.append(info.name)
    return names


def test_core_modules_found():
    mods = core_modules()
    assert "ocr_tui.core.engine" in mods and "ocr_tui.core.watch" in mods and "ocr_tui.cli" in mods


def test_core_never_imports_textual():
    mods = core_modules()
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"textual imported by the core: {out.stdout}"


# --- the house: layers and circles, read from the code's own imports ------------------------

PACKAGE = Path(ocr_tui.__file__).parent


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("ocr_tui", *path.relative_to(PACKAGE).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Every ocr_tui module `name` imports: at module level, inside functions and under
    `if TYPE_CHECKING:` alike (a typing-only import is still a dependency)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("ocr_tui.")}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up) + (f".{base}" if base else "")
            if base == "ocr_tui" or base.startswith("ocr_tui."):
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    found.add(sub if sub in MODULES else base)
    found.discard("ocr_tui")  # the package's own __init__: its version only
    found.discard(name)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 2 and parts[1] in ("core", "formats", "ui") else "top"


def test_the_layers_are_found():
    layers = {_layer(m) for m in MODULES}
    assert layers == {"core", "formats", "ui", "top"}
    assert {m.split(".")[2] for m in MODULES if _layer(m) == "formats" and m.count(".") >= 2} >= {
        "ocr", "codeflow", "analysis", "idumb"
    }  # fmt: skip


def test_no_import_from_a_lower_layer_to_a_higher_one():
    """core imports only core; a format imports core and itself (no other format); ui imports
    core, formats and ui; only the top (cli, demo) imports anything."""
    bad = []
    for name, deps in GRAPH.items():
        layer = _layer(name)
        for dep in deps:
            dl = _layer(dep)
            if layer == "core" and dl != "core":
                bad.append(f"{name} -> {dep}")
            elif layer == "formats" and not (
                dl == "core" or dep.split(".")[:3] == name.split(".")[:3]
            ):
                bad.append(f"{name} -> {dep}")
            elif layer == "ui" and dl == "top":
                bad.append(f"{name} -> {dep}")
    assert bad == []


FACADE = "ocr_tui.formats.ocr.api"


def test_the_ui_reaches_the_host_formats_data_only_through_its_facade():
    """OCR's data beyond the session list (findings, discourse, map runs, agents) reaches the
    screens through `formats/ocr/api.py` alone, imported only under `ui/screens/ocr/`; no other
    format is imported by the UI at all: a format's sessions come to the UI as views, through
    the engine."""
    bad = [
        f"{name} -> {dep}"
        for name, deps in GRAPH.items()
        if _layer(name) == "ui"
        for dep in deps
        if _layer(dep) == "formats"
        and (dep != FACADE or not name.startswith("ocr_tui.ui.screens.ocr."))
    ]
    assert bad == []
    assert any(FACADE in deps for name, deps in GRAPH.items() if _layer(name) == "ui")


def _is_screen(name: str) -> bool:
    """A screen's module: `ui/screens/<feature>/screen.py` (`ui/screens/ocr/<feature>/…`)."""
    return name.startswith("ocr_tui.ui.screens.") and name.endswith(".screen")


def test_screens_never_import_each_other_and_widgets_never_import_screens():
    """A screen opens another by posting `Open(target)` (the router imports it); only the app
    imports a screen (the first one and help). Widgets are shared: they import no screen's
    package."""
    bad = [
        f"{name} -> {dep}"
        for name, deps in GRAPH.items()
        for dep in deps
        if dep != name
        and (
            (_is_screen(dep) and name != "ocr_tui.ui.app")
            or (name.startswith("ocr_tui.ui.widgets.") and dep.startswith("ocr_tui.ui.screens."))
        )
    ]
    assert bad == []


UI_ROOT = {
    "app", "app_demo", "commands", "contract", "latest", "listing", "live", "live_changes",
    "live_projects", "live_remote",
    "message_board", "messages", "navigation", "notify", "router", "style", "terminal_writer",
    "textual_compat", "toasts",
}  # fmt: skip


def test_the_root_of_ui_keeps_only_what_every_screen_shares():
    """The app, router, navigation, contract, messages, the live data and its query, style and
    the Textual seams; a screen's own modules live in `ui/screens/<feature>/`, a shared widget
    in `ui/widgets/` (one per module), how values read in `ui/fmt/`."""
    root = {
        m.split(".")[2]
        for m in MODULES
        if m.startswith("ocr_tui.ui.") and m.count(".") == 2 and m != "ocr_tui.ui.fmt"
    } - {"screens", "widgets"}
    assert root == UI_ROOT


def test_no_import_circles():
    """Tarjan's strongly connected components over every import: none larger than one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in GRAPH:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in GRAPH:
        if v not in index:
            visit(v)
    assert circles == []


# `code` is also VS Code's command, which the editor launcher knows by name.
ROOT = Path(ocr_tui.__file__).resolve().parent.parent
NOT_A_FORMAT = {("ocr_tui/core/editor.py", "code")}


def test_core_and_ui_name_no_format():
    """Which format is the host, what a format is called, which workflow it says by default
    and which words its Flow cells show come from its Source (`core/registry.py`): no string in
    core or ui is a format's key."""
    from ocr_tui.core import registry

    keys = {cls.framework for cls in registry.source_classes()}
    found = []
    for pkg in ("core", "ui"):
        for path in sorted((ROOT / "ocr_tui" / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and node.value in keys:
                    if (rel, node.value) not in NOT_A_FORMAT:
                        found.append(f"{rel}:{node.lineno}: {node.value!r}")
    assert found == []
