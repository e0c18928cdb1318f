"""``bnb sensitivity --attach RUN`` (issue 27, part 2): a finding that moves by more than its
own interval under an estimate is flagged in the run report's key findings ("hinges on the
estimate farmers_market.items.crafting_table.letter"); a folder of another set-up is refused
before anything is played; a run replaced in the same folder shows no stale flag."""

from __future__ import annotations

import json

from test_sensitivity import run_cli

FM3 = ["--expansion", "farmers-market", "--players", "3"]
SENS = ["sensitivity", "--finding", "first_player_advantage", *FM3,
        "--estimate", "farmers_market.items.crafting_table.letter",
        "--screen-games", "40", "--games", "300", "--top", "1", "-q"]  # fmt: skip


def _simulate(capsys, run, *extra, seed=3):
    code, _out, err = run_cli(capsys, ["simulate", "-n", "300", *FM3, "--policy", "heuristic",
                                       "--seed", seed, "-o", run, "--quiet", *extra])  # fmt: skip
    assert code == 0, err


def _report_findings(capsys, run, out):
    code, _out, err = run_cli(capsys, ["report", run, "--out", out])
    assert code == 0, err
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))["key_findings"]


def test_run_report_flags_the_estimate_its_first_player_advantage_hinges_on(tmp_path, capsys):
    run = tmp_path / "run"
    _simulate(capsys, run)
    before = _report_findings(capsys, run, tmp_path / "before")
    assert not [f for f in before if f.get("source") == "bnb sensitivity"]
    code, out, err = run_cli(capsys, [*SENS, "--attach", run, "-o", tmp_path / "sens"])
    assert code == 0, err
    assert (run / "sensitivity.json").is_file()
    after = _report_findings(capsys, run, tmp_path / "after")
    flagged = [f for f in after if f.get("kind") == "hinges_on_estimate"]
    assert flagged and flagged[0]["source"] == "bnb sensitivity"
    assert flagged[0]["key"] == "farmers_market.items.crafting_table.letter"
    assert "hinges on the estimate farmers_market.items.crafting_table.letter" in flagged[0]["text"]
    html = (tmp_path / "after" / "report.html").read_text(encoding="utf-8")
    assert "hinges on the estimate" in html


def test_attach_to_a_run_of_another_player_count_is_refused_before_playing(tmp_path, capsys):
    run = tmp_path / "run4"
    code, _o, err = run_cli(capsys, ["simulate", "-n", "20", "--players", "4", "-o", run, "-q"])
    assert code == 0, err
    code, out, err = run_cli(capsys, [*SENS, "--attach", run, "-o", tmp_path / "sens"])
    assert code == 2, (out, err)
    assert "--attach" in err and "4 players" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "sens").exists() and not (run / "sensitivity.json").exists()


def test_attach_to_a_folder_that_is_not_a_run_is_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, out, err = run_cli(capsys, [*SENS, "--attach", tmp_path / "empty", "-o", tmp_path / "s"])
    assert code == 2, (out, err)
    assert "not a run folder" in err and len(err.strip().splitlines()) == 1


def test_a_replaced_run_shows_no_stale_flag(tmp_path, capsys):
    run = tmp_path / "run"
    _simulate(capsys, run)
    code, out, err = run_cli(capsys, [*SENS, "--attach", run, "-o", tmp_path / "sens"])
    assert code == 0, err
    _simulate(capsys, run, "--force", seed=4)  # another run (new run id) in the same folder
    after = _report_findings(capsys, run, tmp_path / "after")
    assert not [f for f in after if f.get("source") == "bnb sensitivity"]
