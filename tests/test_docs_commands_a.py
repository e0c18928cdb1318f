"""Every ``bnb ...`` command of the docs pages before "docs/e" (alphabetically)
runs verbatim, each page in its own fresh copy of the repository (tests/doc_commands.py).
The pages are split over four files (``DOC_FILES``) so that pytest-xdist, which hands out
whole files, runs them side by side."""

from __future__ import annotations

import pytest
from doc_commands import make_checkout, pages_of, run_page

PAGES = pages_of("a")


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_command_of_the_page_runs_verbatim(page, tmp_path_factory):
    run_page(page, make_checkout(tmp_path_factory))


def test_the_four_files_cover_every_page_once():
    from doc_commands import DOC_FILES, doc_pages

    pages = [page for key in DOC_FILES for page in pages_of(key)]
    assert sorted(pages) == doc_pages() and len(set(pages)) == len(pages)
    assert all(pages_of(key) for key in DOC_FILES)  # no file without a page
    assert "docs/experiments.md" in pages_of("b") and "docs/policies.md" in pages_of("d")
