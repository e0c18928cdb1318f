"""scripts/import_graph.py finds import cycles, counting imports inside functions."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "import_graph.py"


@pytest.fixture(scope="module")
def graph_module():
    spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["import_graph"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("import_graph", None)


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        file = root / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)
    return root


def test_a_cycle_through_a_function_level_relative_import_is_found(graph_module, tmp_path):
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": "def f():\n    from . import a\n    return a\n",
            "pkg/c.py": "import pkg.sub.d\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/d.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from pkg import c\n"  # never runs: not an edge
            ),
        },
    )
    known, edges = graph_module.graph(root, "pkg")
    assert set(known) == {"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.sub", "pkg.sub.d"}
    assert graph_module.cycles(known, edges) == [["pkg.a", "pkg.b"]]
    back = next(e for e in edges if e.source == "pkg.b")
    assert (back.target, back.line, back.nested) == ("pkg.a", 2, True)
    assert {(e.source, e.target) for e in edges} == {
        ("pkg.a", "pkg.b"),  # `from pkg import b`: the submodule, not the package
        ("pkg.b", "pkg.a"),
        ("pkg.c", "pkg.sub.d"),
    }


def test_parent_relative_imports_and_names_of_a_module_resolve(graph_module, tmp_path):
    root = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/top.py": "from pkg.sub.low import VALUE\n",
            "pkg/sub/__init__.py": "from .low import VALUE\n",
            "pkg/sub/low.py": "VALUE = 1\n\ndef up():\n    from ..top import VALUE\n",
        },
    )
    known, edges = graph_module.graph(root, "pkg")
    assert {(e.source, e.target) for e in edges} == {
        ("pkg.top", "pkg.sub.low"),
        ("pkg.sub", "pkg.sub.low"),
        ("pkg.sub.low", "pkg.top"),
    }
    assert graph_module.cycles(known, edges) == [["pkg.sub.low", "pkg.top"]]


def test_the_command_lists_the_cycle_and_fails_only_when_there_is_one(tmp_path):
    root = _package(
        tmp_path,
        {"pkg/__init__.py": "", "pkg/a.py": "import pkg.b\n", "pkg/b.py": "import pkg.a\n"},
    )
    args = [sys.executable, str(SCRIPT), "--root", str(root), "--package", "pkg"]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert "cycle 1: 2 modules" in done.stdout
    assert "pkg.a -> pkg.b  (pkg/a.py:1)" in done.stdout
    (root / "pkg" / "b.py").write_text("")
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.returncode == 0 and "0 cycle(s)" in done.stdout
