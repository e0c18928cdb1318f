"""Reports name policies given by a file by their name (a bot file's ``name``, a weights
file's stem), never by an absolute path, and round per-game rule hits (issue 25, item 7)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bnb_sim.analysis.names import display_names, short_name


def _bot(tmp_path, name="no fight"):
    path = tmp_path / "deep" / "folder" / "hnofight.toml"
    path.parent.mkdir(parents=True)
    path.write_text(f'name = "{name}"\nfallback = "heuristic"\n', encoding="utf-8")
    return path


def test_a_bot_is_named_by_its_name_and_a_weights_file_by_its_stem(tmp_path):
    bot = _bot(tmp_path)
    weights = tmp_path / "weights.toml"
    weights.write_text("[weights]\nweapon = 2.0\n", encoding="utf-8")
    assert short_name(f"bot:{bot}") == "bot:no fight"
    assert short_name(f"bot:{bot}:risk=0.5") == "bot:no fight:risk=0.5"
    assert short_name(f"heuristic:{weights}") == "heuristic:weights"
    assert short_name(f"strong:{tmp_path / 'gone.toml'}") == "strong:gone"  # moved: the stem
    for plain in ("heuristic", "heuristic:weapon=2", "random", "mc:sims=50"):
        assert short_name(plain) == plain


def test_two_files_shown_alike_keep_their_specs(tmp_path):
    one, two = tmp_path / "a" / "weights.toml", tmp_path / "b" / "weights.toml"
    for path in (one, two):
        path.parent.mkdir()
        path.write_text("[weights]\n", encoding="utf-8")
    names = display_names([f"heuristic:{one}", f"heuristic:{two}", "greedy"])
    assert names == {f"heuristic:{one}": f"heuristic:{one}",
                     f"heuristic:{two}": f"heuristic:{two}", "greedy": "greedy"}  # fmt: skip


def test_the_tournament_report_names_a_weights_file_by_its_stem(tmp_path):
    from bnb_sim.analysis.tournament import analyse_tournament, build_tournament_report

    weights = tmp_path / "examples" / "weights.toml"
    weights.parent.mkdir()
    weights.write_text("[weights]\nweapon = 2.0\n", encoding="utf-8")
    label = f"heuristic:{weights}"
    rng = np.random.default_rng(1)
    rows, games = [], []
    for seed in range(40):
        for rotation, seating in enumerate(((label, "greedy"), ("greedy", label))):
            game = 2 * seed + rotation
            winner = int(rng.random() < 0.5)
            for seat, policy in enumerate(seating):
                won = seat == winner
                rows.append((game, seed, seat, policy, 1 if won else 2, won, rotation, 10.0))
            games.append((game, seed, 1))
    seats = pd.DataFrame(
        rows, columns=["game", "seed_index", "seat", "policy", "rank", "won", "rotation", "xp"]
    )
    frame = pd.DataFrame(games, columns=["game", "seed_index", "winners"])
    result = analyse_tournament(seats, frame, policies=[label, "greedy"], players=2, n_boot=20)
    assert set(result.ratings["policy"]) == {"heuristic:weights", "greedy"}
    markdown = build_tournament_report(result).markdown()
    assert "heuristic:weights" in markdown and str(tmp_path) not in markdown


def test_the_run_report_names_a_bot_by_its_name_and_rounds_rule_hits(tmp_path):
    """The run report's frames are shown by name (``shown_run``, the first step of
    Builders & Biomes' ``report_sections``), and the bot's rule table follows the name."""
    from bnb_sim.analysis.names import shown_run
    from bnb_sim.analysis.report import rule_hits_section

    label = f"bot:{_bot(tmp_path)}"
    n = 30
    hits = np.tile([13, 0], n)
    hits[-2] = 12  # 389 decisions in 30 games: 12.9666... per game
    seats = pd.DataFrame(
        {
            "game": np.repeat(np.arange(n), 2),
            "policy": pd.Categorical(np.tile([label, "heuristic"], n)),
            "rule_hits_0": hits,
            "rule_hits_fallback": np.tile([2, 0], n),
        }
    )
    games = pd.DataFrame({"game": np.arange(n), "winner_policy": pd.Categorical([label] * n)})
    specs = [{"label": label, "kind": "bot", "rules": ["turn[1]: build"]},
             {"label": "heuristic", "kind": "heuristic"}]  # fmt: skip
    meta = {"params": {"players": 2, "policies": [label, "heuristic"], "policy_specs": specs}}
    seats, games, meta = shown_run(seats, games, meta)
    assert list(seats["policy"].cat.categories) == ["bot:no fight", "heuristic"]
    assert set(games["winner_policy"]) == {"bot:no fight"}
    assert meta["params"]["policies"] == ["bot:no fight", "heuristic"]
    assert meta["params"]["policy_names"] == {"bot:no fight": label}
    section = rule_hits_section(seats, meta)
    assert section.summary["rule_hits"] == {"bot:no fight": {"turn[1]: build": 389, "fallback": 60}}
    table = next(b for b in section.blocks if hasattr(b, "df")).df
    assert list(table["per game"]) == ["12.97", "2.00"]
    assert str(tmp_path) not in str(next(b for b in section.blocks if hasattr(b, "df")).caption)
