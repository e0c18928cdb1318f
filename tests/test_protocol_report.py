"""``bnb report`` through the protocol (issue 24 point 2): a game's own sections are data
(:class:`~bnb_sim.core.protocol.ReportSection` with ordered :class:`ReportBlock` s: text,
tables, figures, warnings; and key findings), written by the shared report for every game.
Heroes of the Village's report is one of them (its own writer is gone); the dice race, which
implements only the protocol, gets the same blocks, findings and run-folder attachments.
"""

from __future__ import annotations

import json
import re

import pytest
from small_runs import bnb, hotv_report  # noqa: F401 (fixtures)

from bnb_sim.core.protocol import ReportBlock, ReportSection
from bnb_sim.core.registry import get_game
from bnb_sim.games import get_game as get_spec

HOTV_SECTIONS = ["Team win rate", "Run", "Win rates", "Pet teams", "Why games are lost",
                 "Fights against the exact odds", "What the players did"]  # fmt: skip


def _sections(markdown: str) -> list[str]:
    return re.findall(r"^## (.+)$", markdown, flags=re.M)


def test_hotv_report_is_the_shared_report_with_its_sections(hotv_report):  # noqa: F811
    assert get_spec("hotv").entry("write_report") is None  # no writer of its own
    md = hotv_report["markdown"].read_text()
    assert _sections(md) == ["Key findings", *HOTV_SECTIONS]
    summary = hotv_report["summary"]
    assert summary["outcome"] == "cooperative" and summary["game"] == "heroes_village"
    # the shared team win rate and the game's own (the key finding's) are the same numbers
    shared, own = summary["team_win_rate"], summary["win_rate"]
    assert (shared["rate"], shared["lo"], shared["hi"], shared["n"]) == pytest.approx(
        (own["rate"], own["lo"], own["hi"], own["n"])
    )
    kinds = [f["kind"] for f in summary["key_findings"]]
    assert kinds[0] == "team_win_rate" and "pet_effects" in kinds
    assert (hotv_report["dir"] / "pet-teams.png").is_file()  # figures survive as data
    assert "bnb simulate --game heroes_village" in md.split("## Key findings")[0]  # subtitle


def test_a_report_block_is_checked():
    with pytest.raises(ValueError, match="unknown kind"):
        ReportBlock("chart")
    with pytest.raises(ValueError, match="figure"):
        ReportBlock("figure", name="x")


def _dice_sections(seats, games, meta):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure()
    fig.add_subplot().plot([1, 2, 3], [3, 1, 2])
    rows = ({"turns": int(games["turns"].max())},)
    blocks = (
        ReportBlock("text", text="First the text."),
        ReportBlock("table", rows=rows, caption="Longest race"),
        ReportBlock("figure", figure=fig, name="race-shape", caption="The shape of a race"),
        ReportBlock("warning", title="Made-up dice", text="These dice are invented."),
        ReportBlock("text", text=f"Run folder known: {bool(meta.get('run_dir'))}."),
    )
    finding = {"text": "Races are short.", "kind": "race_length", "turns": rows[0]["turns"]}
    return [ReportSection("Race shape", blocks=blocks, findings=(finding,))]


def test_a_protocol_game_gets_blocks_findings_and_attachments(tmp_path, monkeypatch):
    game = get_game("dice_race")
    monkeypatch.setattr(game, "report_sections", _dice_sections)
    run, rep = tmp_path / "run", tmp_path / "rep"
    bnb("simulate", "--game", "dice_race", "--games", "50", "--out", run, "--quiet")
    (run / "robustness.json").write_text("not json")  # an attachment of bnb robustness --run
    bnb("report", run, "--out", rep, "--quiet")
    md = (rep / "report.md").read_text()
    assert _sections(md) == ["Key findings", "Win rate by policy", "Win rate by seat",
                             "Race shape", "How far these findings hold"]  # fmt: skip
    body = md.split("## Race shape")[1]
    order = ["First the text.", "*Longest race*", "race-shape.png", "Made-up dice",
             "Run folder known: True."]  # fmt: skip
    assert [body.index(s) for s in order] == sorted(body.index(s) for s in order)
    top = md.split("## Win rate by policy")[0]
    assert "- Races are short." in top and "Made-up dice" in top  # findings and caveats first
    assert (rep / "race-shape.png").is_file()
    summary = json.loads((rep / "summary.json").read_text())
    first = summary["key_findings"][0]
    assert first == {"text": "Races are short.", "kind": "race_length", "turns": first["turns"]}
    assert "Unreadable." in md.split("## How far these findings hold")[1]


# --------------------------------------------------------------------------------------
# the shared [[compare]] item takes an SPRT (as HotV's own items did), for every game

SPRT_ITEM = """
[[compare]]
game = "dice"
name = "bold vs steady"
a = "bold"
b = "steady"
max_games = 4000
sprt = [0, 200]
"""


def test_a_protocol_compare_item_stops_by_its_sprt(tmp_path):
    file = tmp_path / "sprt.toml"
    file.write_text(SPRT_ITEM, encoding="utf-8")
    bnb("run", file, "--out", tmp_path / "rep", "--quiet")
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    found = json.dumps(summary)
    assert '"decision": "H1"' in found  # bold beats steady by far: accepted early
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "H1 accepted: bold is stronger than steady" in md  # the verdict, as B&B's item
    assert "SPRT [0, 200], at most 4,000 games" in md  # the stopping rule in the item's size


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("alpha = 0.1\n", ".alpha: alpha applies to sprt only"),
        ("sprt = [10, 0]\n", ".sprt: sprt needs ELO0 < ELO1"),
        ("sprt = [0, 10]\nprecision = 0.01\n", ".sprt: give sprt or precision, not both"),
        ('sprt = "0 10"\n', ".sprt: must be [ELO0, ELO1]"),
        ("sprt = [0, 10]\nbeta = 0.7\n", "alpha and beta must be between 0 and 0.5"),
    ],
)
def test_a_bad_stopping_rule_of_a_compare_item_names_the_key(tmp_path, capsys, extra, message):
    file = tmp_path / "bad.toml"
    file.write_text('[[compare]]\ngame = "dice"\na = "bold"\nb = "steady"\n' + extra)
    with pytest.raises(SystemExit) as exc:
        from bnb_sim.cli import main

        main(["run", str(file), "--out", str(tmp_path / "rep")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "bad.toml" in err and message in err, err
    assert len(err.strip().splitlines()) == 1


def test_builders_biomes_report_is_the_shared_report_with_its_layout(tmp_path):
    """Builders & Biomes has no writer of its own either: its sections (win rates included)
    and its layout (title, subtitle, the note on bots) come through the protocol hooks."""
    from fake_runs import FakeSpec, write_fake_run

    from bnb_sim.games.builders_biomes.report import PROVENANCE

    assert get_spec("bnb").entry("write_report") is None
    run, rep = tmp_path / "run", tmp_path / "rep"
    write_fake_run(run, FakeSpec(n_games=400, chunk_size=200, seed=2))
    bnb("report", run, "--out", rep, "--quiet")
    md = (rep / "report.md").read_text()
    sections = _sections(md)
    assert sections[:3] == ["Key findings", "Overview", "Win rates"]
    assert "Win rate by policy" not in sections and sections[-1] == PROVENANCE
    assert md.startswith("# bnb-sim run report: run\n") and "generated " in md
    assert "measured with these bots" in md  # the layout's standing note
    summary = json.loads((rep / "summary.json").read_text())
    assert summary["game"] == "builders_biomes" and summary["outcome"] == "competitive"
    assert summary["key_findings"][0]["kind"] == "best_policy"
