"""The core (everything outside ocr_tui.ui) never imports textual."""

import pkgutil
import subprocess
import sys

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
