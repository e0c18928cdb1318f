"""Every ``bnb ...`` command of the docs pages from "docs/h" to "docs/p"
runs verbatim, each page in its own fresh copy of the repository (tests/doc_commands.py).
The pages are split over four files (``DOC_FILES``) so that pytest-xdist, which hands out
whole files, runs them side by side."""

from __future__ import annotations

import pytest
from doc_commands import make_checkout, pages_of, run_page

PAGES = pages_of("c")


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_command_of_the_page_runs_verbatim(page, tmp_path_factory):
    run_page(page, make_checkout(tmp_path_factory))
