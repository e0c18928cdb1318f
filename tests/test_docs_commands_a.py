"""Every ``bnb ...`` command of the docs pages before "docs/h" (alphabetically) runs verbatim,
each page in its own fresh copy of the repository (tests/doc_commands.py). The pages are split
over two files so that pytest-xdist, which hands out whole files, runs them beside the
README's."""

from __future__ import annotations

import pytest
from doc_commands import doc_pages, make_checkout, run_page

PAGES = [page for page in doc_pages() if page < "docs/h"]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_command_of_the_page_runs_verbatim(page, tmp_path_factory):
    run_page(page, make_checkout(tmp_path_factory))


def test_the_two_files_cover_every_page():
    from test_docs_commands_b import PAGES as OTHERS

    assert sorted(PAGES + OTHERS) == doc_pages() and not set(PAGES) & set(OTHERS)
    assert any("bots" in p for p in PAGES) and any("simulate" in p for p in OTHERS)
