"""Shared test settings (kept small). Helpers for rule tests live in ``engine_helpers.py``."""

from __future__ import annotations


def pytest_configure(config):
    # numba warns on every first-class function type (the plugin path); it is expected here
    config.addinivalue_line(
        "filterwarnings", "ignore:First-class function type feature is experimental"
    )
