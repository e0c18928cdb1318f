"""The answer on the first screen (issue 25, "Done when"): each report the natural command
writes, opened in headless Chromium at 1280x800, shows its answer within the first 800
pixels: the team win rate and pet teams of a Heroes of the Village run, the seat win rates,
first-player advantage and balance of a mirror match, the items worth buying and the traps of
a Farmer's Market run. A screenshot of each first screen is saved under the test's tmp dir
(``first-screen.png``) for a person to look at when a test fails."""

from __future__ import annotations

import struct

from first_screen import HEIGHT, WIDTH, first_screen
from small_runs import bnb, fm_report, hotv_report, mirror_report  # noqa: F401 (fixtures)


def _png_size(path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def _finding(summary, kind):
    return next(f for f in summary["key_findings"] if f["kind"] == kind)


def test_hotv_first_screen_shows_team_win_rate_and_pet_teams(hotv_report, tmp_path):  # noqa: F811
    screen = first_screen(hotv_report["html"], tmp_path)
    assert _png_size(screen.png) == (WIDTH, HEIGHT)
    screen.assert_visible("Team win rate:")
    overall = _finding(hotv_report["summary"], "team_win_rate")
    screen.assert_visible(f"{100 * overall['rate']:.1f}%")
    best = _finding(hotv_report["summary"], "best_pet_team")
    if best["separated"]:
        screen.assert_visible(f"Best pet team: {best['best']}")
    else:
        screen.assert_visible("Pet teams at the top are not separated")
    screen.assert_visible(best["ranked_first"])
    worst = _finding(hotv_report["summary"], "worst_pet_team")
    screen.assert_visible(worst["ranked_first"])
    screen.assert_visible("Each pet's effect")


def test_mirror_first_screen_shows_seats_first_player_advantage_and_balance(
    mirror_report,  # noqa: F811
    tmp_path,
):
    screen = first_screen(mirror_report["html"], tmp_path)
    assert _png_size(screen.png) == (WIDTH, HEIGHT)
    seats = screen.assert_visible("Seat win rates: seat 0 (starts)")
    fpa = screen.assert_visible("First-player advantage: the starting player gains")
    balance = screen.assert_visible("Balance")
    assert seats.y < fpa.y < balance.y  # the seats lead
    assert "Every seat plays heuristic: it wins" not in screen.text


def test_fm_first_screen_says_which_items_are_worth_buying(fm_report, tmp_path):  # noqa: F811
    screen = first_screen(fm_report["html"], tmp_path)
    screen.assert_visible("Seat win rates: seat 0 (starts)")
    screen.assert_visible("look worth buying:")
    screen.assert_visible("look like traps:")
    screen.assert_visible("a correlation, not a cause")
    items = _finding(fm_report["summary"], "fm_items")
    screen.assert_visible(items["worth_buying"][0])
    outlier = [f for f in fm_report["summary"]["key_findings"] if f["kind"] == "fm_seat_outlier"]
    if outlier:
        screen.assert_visible(f"seat {outlier[0]['seat']} buys {outlier[0]['item']} in")


def test_sweep_first_screen_shows_fairness_per_variant(tmp_path):
    """Designer's question 5 (a house rule's effect on fairness): the sweep's first screen
    gives each variant's first-player advantage and balance against the baseline, and says
    that a mirror match's per-policy win-rate changes are zero by construction."""
    out = tmp_path / "sweep"
    bnb("sweep", "--set", "mobs.enderman.hearts=6,7", "--games", 2000, "--players", 3,
        "--policy", "heuristic", "--seed", 5, "-o", out, "--quiet")  # fmt: skip
    screen = first_screen(out / "report.html", tmp_path)
    assert _png_size(screen.png) == (WIDTH, HEIGHT)
    fairness = screen.assert_visible("Fairness:")
    screen.assert_visible("first-player advantage")
    screen.assert_visible("paired difference")
    screen.assert_visible("balance")
    mirror = screen.assert_visible("zero by construction")
    assert fairness.y < mirror.y  # the fairness answer leads
    assert "Win rate: no detectable effect" not in screen.text
