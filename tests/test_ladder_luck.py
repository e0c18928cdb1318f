"""``bnb ladder --luck`` (issue 27, part 4: luck and skill in the ladder and its report): the
chance sources' shares at each affordable rung join the ladder's report, summary.json and
key findings; search rungs are left out with a line saying so; a ladder of search rungs only
is refused before anything is played."""

from __future__ import annotations

import json

from test_cli_simulate import run_cli

SMALL = ["--games", "20", "--bootstrap", "50", "--seed", "4", "-q"]
LUCK = ["--luck", "--luck-groups", "10"]


def _ladder(capsys, tmp_path, name, *args):
    return run_cli(capsys, ["ladder", *SMALL, *args, "-o", tmp_path / name])


def test_ladder_luck_adds_each_rungs_shares_to_the_report(tmp_path, capsys):
    code, out, err = _ladder(capsys, tmp_path, "bnb", "--rungs", "random,greedy", *LUCK,
                             "--json")  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)["summary"]
    luck = summary["luck"]
    assert luck["rungs"] == ["random", "greedy"] and luck["groups"] == 10
    assert luck["pair_games"] == 0  # the head-to-head games are the ladder's own
    for rung in ("random", "greedy"):
        assert {s["source"] for s in luck["shares"][rung]} >= {"cube", "tiles", "seats"}
    kinds = [f["kind"] for f in summary["key_findings"]]
    assert "luck_top_source" in kinds
    assert summary["kind"] == "ladder" and summary["rungs"] == ["random", "greedy"]
    html = (tmp_path / "bnb" / "report.html").read_text(encoding="utf-8")
    assert "chance source" in html.lower()


def test_ladder_without_luck_plays_no_luck_design(tmp_path, capsys):
    code, out, err = _ladder(capsys, tmp_path, "plain", "--rungs", "random,greedy", "--json")
    assert code == 0, err
    assert "luck" not in json.loads(out)["summary"]


def test_ladder_luck_leaves_out_search_rungs_and_says_so(tmp_path, capsys):
    code, out, err = run_cli(
        capsys,
        ["ladder", "--games", "2", "--bootstrap", "20", "--rungs", "greedy,mc:rollouts=1",
         *LUCK, "-o", tmp_path / "mixed", "--json"],
    )  # fmt: skip
    assert code == 0, err
    assert "leaves out the search rungs mc" in err
    assert json.loads(out)["summary"]["luck"]["rungs"] == ["greedy"]


def test_ladder_luck_of_search_rungs_only_is_refused_before_playing(tmp_path, capsys):
    code, out, err = _ladder(capsys, tmp_path, "search",
                             "--rungs", "mc:rollouts=1,ismcts:iterations=2", *LUCK)  # fmt: skip
    assert code == 2, (out, err)
    assert "every rung is a search bot" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "search").exists()


def test_hotv_ladder_luck_measures_the_team_rungs(tmp_path, capsys):
    code, out, err = run_cli(
        capsys,
        ["ladder", "--game", "hotv", "--games", "200", "--rungs", "random,team", *LUCK,
         "--seed", "2", "-q", "-o", tmp_path / "hotv", "--json"],
    )  # fmt: skip
    assert code == 0, err
    luck = json.loads(out)["summary"]["luck"]
    assert luck["rungs"] == ["random", "team"]
    assert {s["source"] for s in luck["shares"]["team"]} >= {"pouch", "dice"}
