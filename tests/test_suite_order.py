"""The suite's own scheduling (tests/conftest.py): the longest files start first."""

from __future__ import annotations

from pathlib import Path

from conftest import LONGEST_FIRST


def test_every_file_named_longest_first_exists_once():
    here = Path(__file__).resolve().parent
    missing = [name for name in LONGEST_FIRST if not (here / name).is_file()]
    assert not missing, f"renamed or removed: update tests/conftest.py: {missing}"
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)


def test_the_collection_starts_with_the_longest_files(request):
    files = []
    for item in request.session.items:
        if item.path.name not in files:
            files.append(item.path.name)
    present = [name for name in LONGEST_FIRST if name in files]
    assert files[: len(present)] == present
