"""Running the ``bnb ...`` commands of the README and the docs verbatim (the tests are
tests/test_readme_commands*.py and tests/test_docs_commands_*.py, one file per group of pages
so that pytest-xdist runs them side by side).

Commands are the lines starting with ``bnb `` inside the ```sh blocks of README.md and
docs/*.md (a trailing backslash continues a line). Plain ``` blocks hold synopses and output,
which are not run. Each page runs in its own fresh copy of the repository, in the order
written (a command may use what an earlier one on the same page wrote). One command is known
and left out: the built-in demo (``make demo``, a few minutes); its experiment file is
validated instead.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
SKIP = {"bnb run --builtin demo --out reports/demo"}  # make demo: validated below instead
# docs/tuning.md's worked examples run with the budgets whose results the page quotes (minutes
# each); tests/test_tune.py covers both forms of `bnb tune` with small budgets, and the README's
# `bnb tune` lines (small budgets) run here.
LONG_PAGES = {"docs/tuning.md"}


def sh_commands(text: str) -> list[str]:
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.M | re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        commands += [line.strip() for line in joined.splitlines() if line.startswith("bnb ")]
    return commands


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)


def all_commands() -> list[tuple[str, str]]:
    return [(page, c) for page in PAGES for c in sh_commands((ROOT / page).read_text())]


def make_checkout(tmp_path_factory) -> Path:
    """A copy of the tracked files (as a fresh clone has them), with ``bnb`` on PATH.

    The package itself is imported from this checkout (``PYTHONPATH``) rather than copied
    (a copy of identical code would find the same compiled kernels, but copying it tests
    nothing more)."""
    root = tmp_path_factory.mktemp("fresh") / "bnb-sim"
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    files = listed.stdout.split() if listed.returncode == 0 else []
    if not files:  # not a git checkout: copy the folders a clone has
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]
        files = [f for f in files if not f.startswith((".git", ".venv", "reports/", "runs/"))]
    for name in files:
        if name.startswith("bnb_sim/"):
            continue
        if (ROOT / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, root / name)
    shim = root.parent / "bin" / "bnb"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m bnb_sim "$@"\n')
    shim.chmod(0o755)
    return root


def _env(root: Path) -> dict:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PATH": f"{root.parent / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "MPLBACKEND": "Agg",
    }


#: The README's study commands (``bnb run``, ``value``, ``sensitivity``, ``ladder``, ``luck``,
#: ``tune``: about half of its minute and a half here) run in a second test file beside the
#: others, so that the README is two pieces of work for pytest-xdist rather than one long one
#: at the end; they read nothing the other commands write (a test checks it).
README_SECOND_PART = ("bnb run ", "bnb value ", "bnb sensitivity ", "bnb ladder ", "bnb luck ")
README_SECOND_PART += ("bnb tune ",)


def readme_part(command: str) -> int:
    """0 for the README's first test file, 1 for its study commands."""
    return int(command.startswith(README_SECOND_PART))


def path_words(command: str) -> set[str]:
    """The words of ``command`` that name a file or folder of the checkout other than the
    shipped examples (what one command may write and a later one read)."""
    words = shlex.split(command.split(" #")[0])
    return {
        w.split("=")[-1]
        for w in words
        if ("/" in w or re.search(r"\.(toml|svg|csv|json|parquet|html)$", w))
        and not w.split("=")[-1].startswith("examples/")
    }


def run_page(
    page: str, checkout: Path, part: int | None = None, *, in_process: bool = True
) -> list[str]:
    """Run every command of ``page`` in ``checkout``, in order; returns the commands run.
    ``part`` (README.md only): run only the commands of that part (:func:`readme_part`).

    ``in_process``: each command goes to the ``bnb`` entry point (``bnb_sim.cli.main``) in
    this process, with its words as the shell would split them, the checkout as the working
    directory and stdout/stderr captured: the same command-line code without a new
    interpreter per command (about two CPU seconds each: Python, numba, pandas and the
    compiled kernels loaded again; a hundred commands). Otherwise each runs in ``bash`` as a
    user types it (the README's first part does, see tests/test_readme_commands.py)."""
    ran = []
    for command in sh_commands((ROOT / page).read_text()):
        if command in SKIP or page in LONG_PAGES:
            continue
        if part is not None and readme_part(command) != part:
            continue
        started = time.perf_counter()
        run = _run_here if in_process and not SHELL.search(_words(command)) else _run_in_shell
        code, err = run(command, checkout)
        assert code == 0, f"{page}: {command}\n{err[-2000:]}"
        assert "Traceback" not in err, f"{page}: {command}\n{err[-2000:]}"
        ran.append(command)
        print(f"{time.perf_counter() - started:6.1f} s  {command}")
    return ran


#: Shell syntax beyond words and quotes: such a command runs in bash.
SHELL = re.compile(r"[|><;&$`*?~]")


def _words(command: str) -> str:
    """The command without its trailing comment, quoted parts removed (for :data:`SHELL`)."""
    return re.sub(r"\"[^\"]*\"|'[^']*'", "", command.split(" #")[0])


def _run_in_shell(command: str, checkout: Path) -> tuple[int, str]:
    done = subprocess.run(
        ["bash", "-c", command], cwd=checkout, env=_env(checkout), capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip
    return done.returncode, done.stderr


def _run_here(command: str, checkout: Path) -> tuple[int, str]:
    """``command`` through ``bnb_sim.cli.main`` in this process; (exit code, stderr). The
    working directory, the signal handlers and ``MPLBACKEND`` are put back afterwards."""
    import contextlib
    import io
    import signal

    from bnb_sim.cli import main

    words = shlex.split(command, comments=True)
    assert words[0] == "bnb", command
    out, err = io.StringIO(), io.StringIO()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    here, backend = os.getcwd(), os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "Agg"
    code = 0
    try:
        os.chdir(checkout)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(words[1:])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        os.chdir(here)
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
        if backend is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = backend
    return code, err.getvalue()


#: The docs pages' tests, one file per range of page names (tests/test_docs_commands_X.py):
#: pytest-xdist hands out whole files, so the long pages (docs/experiments.md about 75 s,
#: heroes-of-the-village.md and policies.md about 50 s each on 2 cores) sit in files of their
#: own rather than one after the other in one file.
DOC_FILES = {"a": ("docs/a", "docs/e"), "b": ("docs/e", "docs/h"), "c": ("docs/h", "docs/p")}
DOC_FILES["d"] = ("docs/p", "docs/~")


def pages_of(file: str) -> list[str]:
    """The docs pages that tests/test_docs_commands_{file}.py runs."""
    first, end = DOC_FILES[file]
    return [page for page in doc_pages() if first <= page < end]


def doc_pages() -> list[str]:
    """The docs pages with commands that run (README.md has its own test)."""
    return [
        page
        for page in PAGES
        if page != "README.md"
        and page not in LONG_PAGES
        and any(c not in SKIP for c in sh_commands((ROOT / page).read_text()))
    ]
