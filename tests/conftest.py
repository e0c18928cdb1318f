"""Shared test settings (kept small). Helpers for rule tests live in ``engine_helpers.py``."""

from __future__ import annotations


def pytest_configure(config):
    # numba warns on every first-class function type (the plugin path); it is expected here
    config.addinivalue_line(
        "filterwarnings", "ignore:First-class function type feature is experimental"
    )


# ``BNB_COMPILE_LOG=FILE``: append one line per numba compile a test causes (test id, function,
# CPU seconds), to find tests that compile what ``bnb warmup`` did not (docs/design.md).
_COMPILE_LOG = __import__("os").environ.get("BNB_COMPILE_LOG")
_CURRENT_TEST = ["(collection)"]

if _COMPILE_LOG:
    import time as _time

    def _log_compiles() -> None:
        from numba.core import event

        stack = []

        class _Listener(event.Listener):
            def on_start(self, ev):
                stack.append(_time.process_time())

            def on_end(self, ev):
                took = _time.process_time() - stack.pop()
                if stack:  # a callee: its caller's line counts it
                    return
                func = ev.data["dispatcher"].py_func
                with open(_COMPILE_LOG, "a") as log:
                    name = f"{func.__module__}.{func.__qualname__}"
                    log.write(f"{_CURRENT_TEST[0]}\t{name}\t{took:.2f}\n")

        event.register("numba:compile", _Listener())

    def pytest_runtest_setup(item):
        if not getattr(_log_compiles, "done", False):
            _log_compiles()
            _log_compiles.done = True
        _CURRENT_TEST[0] = item.nodeid


# The tiny third game (tests/dice_race.py) is registered here and only here: this one line
# is all a game needs to be served by the shared commands (docs/design.md "Adding a game").
# Its cooperative variant (the dice team) covers the shared code's cooperative branch.
from dice_race import GAME as DICE_RACE  # noqa: E402
from dice_race import TEAM_GAME as DICE_TEAM  # noqa: E402

from bnb_sim.core.registry import register_game  # noqa: E402

register_game(DICE_RACE)
register_game(DICE_TEAM)


# pytest-xdist (`--dist loadfile`) hands out whole files in collection order, and `make test`
# turns off its own reordering (by number of tests, which put the README's three long tests
# last): the files that take longest start first, so that short ones fill the end and no long
# one runs alone while the other workers wait (longest-first scheduling). Seconds of one
# worker, measured with `--durations=0` on the 2-core development machine; the order is what
# matters, and a file missing here only starts later.
LONGEST_FIRST = (
    "test_faults.py",  # 106
    "test_hostile_input.py",  # 100
    "test_readme_commands.py",  # 55 (its commands in bash)
    "test_robustness_cli.py",  # 49
    "test_readme_commands_b.py",  # the docs' files: about half of their time in bash
    "test_docs_commands_b.py",
    "test_sequential.py",  # 44
    "test_report_findings.py",  # 42
    "test_reliability_signals.py",  # 40
    "test_robustness_stats.py",  # 38
    "test_report.py",  # 37
    "test_docs_commands_d.py",
    "test_first_screen.py",  # 33
    "test_key_findings.py",  # 31
    "test_studies_dask.py",  # 30
    "test_docs_commands_c.py",
    "test_cli_conventions.py",  # 27
    "test_api_tune.py",  # 26
    "test_luck_estimator.py",  # 26
    "test_readings.py",  # 24
    "test_sensitivity_attach.py",  # 24
    "test_docs_commands_a.py",
)


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: in-file order kept


# A test must leave the SIGINT and SIGTERM handlers as it found them: a child process inherits
# an ignored SIGINT (Python then installs no KeyboardInterrupt handler), so a later test's `bnb`
# child in the same worker would not see Ctrl-C at all (test_reliability_signals' h3 failed so
# on fresh clones). The test that changes them fails here, and they are put back.
import signal as _signal  # noqa: E402

import pytest  # noqa: E402

_WATCHED_SIGNALS = (_signal.SIGINT, _signal.SIGTERM)


def _ignored_mask() -> str:
    """The signals this process ignores at the OS level (``SigIgn`` of /proc; "" elsewhere):
    a C library can ignore SIGINT without Python's ``getsignal`` seeing it."""
    try:
        with open("/proc/self/status") as status:
            return next((ln.split()[1] for ln in status if ln.startswith("SigIgn:")), "")
    except OSError:
        return ""


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    before = {s: _signal.getsignal(s) for s in _WATCHED_SIGNALS}
    mask = _ignored_mask()
    yield
    after = {s: _signal.getsignal(s) for s in _WATCHED_SIGNALS}
    changed = {s: after[s] for s in _WATCHED_SIGNALS if after[s] != before[s]}
    assert _ignored_mask() == mask, (
        f"the test changed the ignored signals: {mask} -> {_ignored_mask()}"
    )
    for signum in changed:
        _signal.signal(signum, before[signum])
    assert not changed, "the test left signal handlers changed: " + ", ".join(
        f"{_signal.Signals(s).name} {before[s]!r} -> {h!r}" for s, h in changed.items()
    )
