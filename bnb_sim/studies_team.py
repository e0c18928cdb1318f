"""The Python API's studies of a cooperative game (outcome ``"cooperative"``: the players
are one team against the game, measured by the team win rate), as ``bnb tournament``,
``bnb compare`` and ``bnb sweep --game NAME`` play them: :func:`bnb_sim.tournament`,
:func:`bnb_sim.compare` and :func:`bnb_sim.sweep` hand such a game here, by its outcome
kind, never by its name. Each returns the data the command prints with ``--json``;
``out=FOLDER`` writes the command's report. Rule readings are set on the components (the
game's ``with_readings``), so every study plays them and names them in its setting.
"""

from __future__ import annotations

from typing import Any

from bnb_sim.errors import BnbError
from bnb_sim.study_args import (
    _components,
    _game_options,
    _game_readings,
    _out,
    _playing,
    _write,
)


def _setting(game: str, components: Any, readings: Any, what: str):
    """``(protocol, components)`` of a team study: the components with the readings set."""
    from bnb_sim.analysis.study_hooks import game_protocol

    proto = game_protocol(game)
    comps, left = _game_readings(game, components, readings, what)
    if left:
        raise BnbError(f"{what}: {proto.title} has no rule readings to set here")
    return proto, _components(comps, None, game)


def team_tournament(game, specs, players, games, *, seed, components, readings, threads, out,
                    progress, yes, options) -> dict:  # fmt: skip
    """The tournament of a cooperative ``game``: each team policy in every seat on the same
    games (:func:`bnb_sim.analysis.protocol_studies.tournament`), its report in ``out``."""
    from bnb_sim.analysis import protocol_studies as S
    from bnb_sim.analysis.protocol_text import team_tournament_report
    from bnb_sim.runner.budget import confirm_games

    proto, comps = _setting(game, components, readings, "tournament")
    confirm_games(games * len(S.tables(proto, specs, players)), f"tournament --game "
                  f"{proto.name}", yes=yes)  # fmt: skip
    folder = _out(out)
    with _playing(progress, [players], game):
        own = _game_options(game, options, "tournament")
        result = S.tournament(proto, comps, specs, players=players, games=games, seed=seed,
                              options=own, threads=threads)  # fmt: skip
    _, builder = team_tournament_report(proto.title, result, games=games, seed=seed)
    _write(builder if folder else None, folder)
    return result


def team_compare(game, a, b, *, components, readings, options, out, rivals, yes, **kw):
    """``compare`` of a cooperative game: the data of ``bnb compare --game NAME --json``."""
    from bnb_sim.analysis import protocol_studies as S
    from bnb_sim.analysis.protocol_text import compare_builder
    from bnb_sim.runner.budget import confirm_games

    proto, comps = _setting(game, components, readings, "compare")
    if rivals:
        raise BnbError(f"compare: opponents are not offered for {proto.title} (a team game)")
    confirm_games(2 * kw["max_games"], f"compare --game {proto.name}", yes=yes)
    folder = _out(out)
    result = S.compare(proto, comps, a, b, options=options, **kw)
    _write(compare_builder(proto.title, result, kw["seed"]) if folder else None, folder)
    return result


def team_sweep(game, sets, *, mode, games, players, policies, seed, components, readings,
               options, threads, out, progress, yes) -> dict:  # fmt: skip
    """``sweep`` of a cooperative game: the variants of ``bnb sweep --game NAME --set`` (the
    game's ``sweep_variants`` hook, else dotted paths), each variant's team win rate and its
    paired difference from the first (the component file's values); the data of ``bnb sweep
    --game NAME --json``."""
    from bnb_sim.analysis import protocol_studies as S
    from bnb_sim.analysis.protocol_text import sweep_table, team_sweep_report
    from bnb_sim.runner.budget import confirm_games

    proto, comps = _setting(game, components, readings, "sweep")
    own = getattr(proto, "sweep_variants", None)  # the game's paths and labels, if it has them
    variants = (own(comps, sets, mode) if callable(own)
                else S.sweep_variants(proto, comps, sets, mode))  # fmt: skip
    confirm_games(len(variants) * games, f"sweep --game {proto.name}", yes=yes)
    policies = list(policies) if policies else [proto.default_policy]
    folder = _out(out)
    with _playing(progress, [players or 2], game):
        result = S.sweep(proto, comps, variants, policies, players=players, games=games,
                         seed=seed, options=_game_options(game, options, "sweep"),
                         threads=threads)  # fmt: skip
    scores = result.pop("_scores")
    if folder is not None:
        table = sweep_table({label: s.astype(bool) for label, s in scores.items()})
        head = (f"{proto.title}, {result['setting']}, policies {', '.join(policies)}, "
                f"{games:,} games per variant on the same game indices (paired).")  # fmt: skip
        team_sweep_report(proto, comps, sets, result, head, table).write(folder)
    return result
