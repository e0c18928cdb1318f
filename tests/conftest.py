"""Shared test settings (kept small). Helpers for rule tests live in ``engine_helpers.py``."""

from __future__ import annotations


def pytest_configure(config):
    # numba warns on every first-class function type (the plugin path); it is expected here
    config.addinivalue_line(
        "filterwarnings", "ignore:First-class function type feature is experimental"
    )


# Files that keep one worker busy for minutes go first: with ``--dist loadfile
# --no-loadscope-reorder`` (as ``make test`` runs it) pytest-xdist hands files out in collection
# order. README/docs commands (3-4 min of sequential commands) handed out last (xdist's default
# order, by number of tests) left the other worker idle at the end of CI.
START_FIRST = ("test_readme_commands.py",)


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=lambda item: item.path.name not in START_FIRST)  # stable: the rest keep order
