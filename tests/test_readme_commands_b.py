"""The README's study commands (``bnb run``, ``value``, ``sensitivity``, ``ladder``, ``luck``,
``tune``) run verbatim from a fresh copy of the repository, in the order written; the other
commands are tests/test_readme_commands.py (two files, so that pytest-xdist runs them side by
side)."""

from __future__ import annotations

import pytest
from doc_commands import make_checkout, run_page


@pytest.mark.slow
def test_every_readme_study_command_runs_verbatim(tmp_path_factory):
    checkout = make_checkout(tmp_path_factory)
    ran = run_page("README.md", checkout, part=1)
    assert (checkout / "reports" / "my-experiment" / "report.html").is_file()
    assert any(c.startswith("bnb tune game --game hotv") for c in ran)
    assert len(ran) >= 5
