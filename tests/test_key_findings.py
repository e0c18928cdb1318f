"""Key findings that answer the run's question (issue 25, item 2): a Heroes of the Village run
leads with the team win rate, the best and worst pet teams (named only when the paired gap to
the next excludes 0) and each pet's effect; a mirror match leads with its seats, not with the
fair share its one policy wins by construction; a Farmer's Market run says which items look
worth buying and which look like traps, within seat, and names the item behind an extreme
first-player advantage."""

from __future__ import annotations

import json

from fake_runs import FakeSpec, write_fake_run
from small_runs import fm_report, hotv_report, mirror_report  # noqa: F401 (fixtures)

from bnb_sim.analysis.key_findings import simulate_findings
from bnb_sim.analysis.report import write_report
from bnb_sim.games.heroes_village.findings import hotv_findings


def _kinds(summary):
    return [f["kind"] for f in summary["key_findings"]]


# --------------------------------------------------------------------------------------
# mirror match


def test_a_mirror_match_leads_with_seats_fpa_and_balance_not_its_fair_share(tmp_path):
    spec = FakeSpec(n_games=1500, policies=("heuristic",) * 3, seat_weight=(0.45, 0.3, 0.25))
    write_fake_run(tmp_path / "run", spec)
    written = write_report(tmp_path / "run", tmp_path / "out")
    summary = json.loads(written["summary"].read_text())
    kinds = _kinds(summary)
    assert kinds[:3] == ["seat_win_rates", "first_player_advantage", "balance"], kinds
    assert "win_rate" not in kinds  # not "every seat plays heuristic: it wins 33.3%"
    seats = summary["key_findings"][0]
    assert [r["seat"] for r in seats["by_seat"]] == [0, 1, 2]
    assert "seat 0 (starts) **" in seats["text"] and "n = 1,500 games each" in seats["text"]
    assert "mirror match" in seats["text"]
    # the one-bar per-policy plot is gone; the seat plot stays
    names = {p.name for p in written["figures"]}
    assert "win-rate-by-policy.png" not in names and "win-rate-by-seat.png" in names


def test_a_mixed_run_still_leads_with_the_best_policy_and_its_plot(tmp_path):
    write_fake_run(tmp_path / "run", FakeSpec(n_games=800, chunk_size=400, seed=4))
    written = write_report(tmp_path / "run", tmp_path / "out")
    summary = json.loads(written["summary"].read_text())
    assert _kinds(summary)[:2] == ["best_policy", "first_player_advantage"]
    assert "seat_win_rates" not in _kinds(summary)
    assert "win-rate-by-policy.png" in {p.name for p in written["figures"]}


def test_mirror_report_of_real_games_leads_with_seats(mirror_report):  # noqa: F811
    findings = mirror_report["summary"]["key_findings"]
    assert [f["kind"] for f in findings[:3]] == [
        "seat_win_rates",
        "first_player_advantage",
        "balance",
    ]
    seat0 = findings[0]["by_seat"][0]
    assert seat0["seat"] == 0 and seat0["lo"] > 1 / 3  # the starting player's edge
    assert findings[0]["by_seat"][0]["n"] == 2000


def test_experiment_simulation_items_use_the_same_findings():
    summary = {
        "win_rate": {
            "by_policy": [{"policy": "heuristic", "rate": 1 / 3, "lo": 0.33, "hi": 0.34, "n": 30}],
            "by_seat": [
                {"seat": s, "rate": r, "lo": r - 0.05, "hi": r + 0.05, "n": 10}
                for s, r in enumerate((0.5, 0.3, 0.2))
            ],
        },
        "fair_share": 1 / 3,
    }
    found = simulate_findings(summary, "3 players: ")
    assert found[0].numbers["kind"] == "seat_win_rates"
    assert found[0].text.startswith("3 players: Seat win rates: seat 0 (starts) **50.0%")


# --------------------------------------------------------------------------------------
# Heroes of the Village


def _pet_summary(best_lo: float) -> dict:
    def gap(mean, lo, hi):
        return {"mean_diff": mean, "lo": lo, "hi": hi, "n": 500, "p_value": 0.01}

    teams = {"fox,horse": 0.92, "panda,horse": 0.90, "wolf,llama": 0.73}
    rates = {t: {"rate": r, "lo": r - 0.02, "hi": r + 0.02, "n": 500} for t, r in teams.items()}
    best = {"side": "best", "ranked_first": "fox,horse", "others": ["panda,horse", "wolf,llama"],
            "gaps": {"panda,horse": gap(0.02, best_lo, 0.04),
                     "wolf,llama": gap(0.19, 0.15, 0.23)}}  # fmt: skip
    worst = {"side": "worst", "ranked_first": "wolf,llama", "others": ["panda,horse", "fox,horse"],
             "gaps": {"panda,horse": gap(-0.17, -0.2, -0.14),
                      "fox,horse": gap(-0.19, -0.23, -0.15)}}  # fmt: skip
    return {
        "win_rate": {"rate": 0.85, "lo": 0.84, "hi": 0.86, "n": 1500, "game_indices": 500},
        "win_rate_by_pets": rates,
        "pet_ranking": {"best": best, "worst": worst},
        "pet_effects": {"horse": gap(0.068, 0.06, 0.076), "llama": gap(-0.055, -0.06, -0.05)},
    }


def test_hotv_findings_name_the_best_team_only_when_its_paired_gap_excludes_zero():
    separated = hotv_findings(_pet_summary(best_lo=0.01))
    kinds = [f.numbers["kind"] for f in separated]
    assert kinds == ["team_win_rate", "best_pet_team", "worst_pet_team", "pet_effects"]
    assert "Team win rate: **85.0% [84.0, 86.0]**" in separated[0].text
    assert "n = 1,500 games on 500 game indices" in separated[0].text
    best = separated[1]
    assert best.numbers["best"] == "fox,horse"
    assert "Best pet team: **fox,horse**" in best.text and "+2.0 pp [+1.0, +4.0]" in best.text
    assert "panda,horse" in best.text
    assert "Worst pet team: **wolf,llama**" in separated[2].text
    assert separated[3].text.index("horse +6.8 pp") < separated[3].text.index("llama -5.5 pp")

    tied = hotv_findings(_pet_summary(best_lo=-0.01))[1]
    assert tied.numbers["best"] is None and not tied.numbers["separated"]
    assert "not separated" in tied.text and "Best pet team" not in tied.text
    assert "-1.0" in tied.text  # the gap's interval, which includes 0, is shown


def test_hotv_report_key_findings_lead_with_the_answer(hotv_report):  # noqa: F811
    summary = hotv_report["summary"]
    kinds = _kinds(summary)
    assert kinds[0] == "team_win_rate", kinds  # the box was empty before (review Q4)
    assert {"best_pet_team", "worst_pet_team", "pet_effects"} <= set(kinds)
    overall = summary["key_findings"][0]
    assert overall["n"] == 15_000 and overall["game_indices"] == 1000
    assert overall["lo"] < overall["rate"] < overall["hi"]
    md = hotv_report["markdown"].read_text()
    box = md[md.index("## Key findings") : md.index("Contents:")]
    assert "Team win rate:" in box and "Each pet's effect" in box


# --------------------------------------------------------------------------------------
# Farmer's Market


def test_fm_report_says_which_items_look_worth_buying_within_seat(fm_report):  # noqa: F811
    summary = fm_report["summary"]
    kinds = _kinds(summary)
    assert kinds[:3] == ["seat_win_rates", "first_player_advantage", "balance"]
    items = next(f for f in summary["key_findings"] if f["kind"] == "fm_items")
    assert "a correlation" in items["text"] and "within each seat" in items["text"]
    assert "look worth buying" in items["text"] and "look like traps" in items["text"]
    assert items["worth_buying"]  # with these estimates some item is clearly bought by winners
    within = summary["items"]["within_seat"]
    assert {r["item"] for r in within} >= set(items["worth_buying"])
    md = fm_report["markdown"].read_text()
    assert "Buyers against non-buyers within seat" in md


def test_fm_report_names_the_item_behind_an_extreme_first_player_advantage(fm_report):  # noqa: F811
    summary = fm_report["summary"]
    fpa = summary["first_player_advantage"]["value"]
    outlier = summary["items"]["seat_outlier"]
    assert outlier is not None and outlier["seat"] == 0
    found = [f for f in summary["key_findings"] if f["kind"] == "fm_seat_outlier"]
    assert (fpa >= 0.20) == bool(found)
    if found:
        text = found[0]["text"]
        assert f"seat 0 buys **{outlier['item']}**" in text and "a correlation" in text
