"""``bnb tune`` for a game that implements only the protocol (:mod:`bnb_sim.core.protocol`)
and declares no ``tune`` entry: the tuning hooks that
:mod:`bnb_sim.games.builders_biomes.tune_hooks` lists, written once from the protocol, so a
new game is tuned with no code of its own.

* **Components and readings.** ``load_components`` and, where the game takes rule readings,
  its ``parse_readings`` hook and ``with_readings`` method (without them ``--reading`` is
  refused). Component values are set by dotted paths, as ``bnb sweep --set`` sets them: the
  game's ``sweep_variants`` if it has one, else paths into mapping components; every value
  is checked by the game's ``make_config`` before a game is played.
* **bnb tune policy.** The game says which parameters of a policy spec may be searched and
  how a spec with other values is written (the ``policy_params`` and ``policy_spec``
  hooks). A candidate is played through ``make_config`` and ``play_block``: a ranked game's
  lineup in every seating (the candidate as each player in turn, on the same game index: a
  win 1, a win shared by k players 1/k, a loss 0); a cooperative game's candidate plays
  every seat and scores the team's result.
* **bnb tune game.** The games of a setting are ``play_block``'s rows, and the targets
  read the protocol's columns (``won``, ``seat``, ``policy``; ``game_length`` the game
  rows' ``turns`` where the game declares it). The answer is a component file of the
  tuned values, read back through ``load_components``.

The branch between ranked and team results is on the protocol's ``outcome``, never on a
game's name. A protocol game's tuning plays in this process: ``--dask`` is refused (a game
registered at run time is not known to a worker).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from bnb_sim.core.protocol import hook
from bnb_sim.errors import BnbError

MAX_PLAYERS = 8  # the player counts probed for the range a game accepts
SPEC_FILE = "tuned-spec.txt"  # the answer of a policy tuning: the tuned spec
PARAMS_OWNER = "the policy"  # what an out-of-range --param is said to leave


@dataclass(frozen=True)
class PolicySpec:
    """A policy spec as the tuning drivers pass it (``plan.spec_for`` relabels it)."""

    text: str
    label: str


class ProtocolTuneHooks:
    """The ``tune`` hooks of ``game`` (an object implementing the protocol)."""

    PARAMS_OWNER = PARAMS_OWNER

    def __init__(self, game: Any):
        self.game = game
        self.DEFAULT_POLICY = game.default_policy

    # ----------------------------------------------------------------------------------
    # components and readings

    @cached_property
    def _defaults(self):
        return self.game.load_components([])

    def _options(self) -> dict:
        """The game's option defaults (a tuning sets none of its own)."""
        return {o.name: o.default for o in self.game.options if o.applies_to("tune")}

    def _config(self, components, players, policies: Sequence[str], seed: int):
        return self.game.make_config(components, players=players, policies=list(policies),
                                     seed=int(seed), options=self._options())  # fmt: skip

    @cached_property
    def PLAYERS(self) -> tuple[int, int]:
        """The player counts the game's ``make_config`` accepts (the protocol states no
        range: a count it does not take is a one-line error there)."""
        ok = []
        for n in range(1, MAX_PLAYERS + 1):
            try:
                self._config(self._defaults, n, [self.DEFAULT_POLICY], 0)
            except (BnbError, ValueError):
                continue
            ok.append(n)
        if not ok:
            raise BnbError(f"tune: {self.game.title} takes no player count up to {MAX_PLAYERS}")
        return min(ok), max(ok)

    def load_components(self, given):
        """``given`` when it is loaded component data, else the files it names (or none)."""
        if given is None:
            return self._defaults
        if isinstance(given, list | tuple) and all(isinstance(g, str | os.PathLike) for g in given):
            return self.game.load_components([str(g) for g in given])
        return given

    def components_from_dict(self, data: dict, name: str):
        raise BnbError(_no_dask(self.game))

    def content_hash(self, components) -> str:
        """The hash of the components as ``bnb simulate`` records them (run.json)."""
        from bnb_sim.runner.protocol_run import component_info

        return component_info(self.game, components)["content_hash"]

    def component_data(self, components):
        """The components as nested mappings (the game's ``component_data`` if it has one)."""
        own = getattr(self.game, "component_data", None)
        return own(components) if callable(own) else components

    def parse_readings(self, reading: Sequence[str], variant: str | None) -> dict:
        """``--reading NAME=VALUE`` items, checked by the game's ``parse_readings`` hook."""
        if variant is not None:
            raise BnbError(f"tune: --variant is not a rule reading of {self.game.title}")
        parse = hook(self.game, "parse_readings")
        if parse is not None:
            return dict(parse(list(reading), {}))
        if reading:
            raise BnbError(f"tune: --reading is not offered for {self.game.title} (it has no "
                           "rule readings)")  # fmt: skip
        return {}

    def tune_readings(self, components, readings, variant, seating: str, what: str):
        """``(components with the readings set, the readings)``: the game's ``with_readings``."""
        if variant is not None:
            self.parse_readings((), variant)
        given = {str(k): str(v) for k, v in dict(readings or {}).items()}
        if not given:
            return components, {}
        with_readings = getattr(self.game, "with_readings", None)
        if not callable(with_readings):
            raise BnbError(f"tune: --reading is not offered for {self.game.title} (it has no "
                           "rule readings)")  # fmt: skip
        return with_readings(components, [f"{k}={v}" for k, v in given.items()]), given

    # ----------------------------------------------------------------------------------
    # bnb tune policy

    def check_policy(self, spec: str) -> None:
        """A one-line error for a spec the game does not play (its ``policy_labels`` hook,
        else its ``make_config``)."""
        labels = hook(self.game, "policy_labels")
        if labels is not None:
            labels([spec])
            return
        self._config(self._defaults, self.PLAYERS[0], [spec], 0)

    def parse_policy(self, spec: str) -> PolicySpec:
        self.check_policy(spec)
        return PolicySpec(spec.strip(), spec.strip())

    def _params(self, policy: str):
        """``(family, {name: PolicyParam})`` of the game's ``policy_params`` hook."""
        params = hook(self.game, "policy_params")
        if params is None or hook(self.game, "policy_spec") is None:
            raise BnbError(
                f"tune: {self.game.title} says of no policy which parameters may be tuned "
                "(the protocol's policy_params and policy_spec hooks)"
            )
        family, found = params(policy.strip())
        found = {p.name: p for p in found}
        if not found:
            raise BnbError(f"tune: policy '{policy}' has no parameters to tune")
        return str(family), found

    def policy_family(self, policy: str):
        """``(family, names, values, fixed)``: the parameters the game declares."""
        family, params = self._params(policy)
        values = {name: float(p.value) for name, p in params.items()}
        return family, list(values), values, {}

    def bot_thresholds(self, policy: str) -> tuple[str, dict]:
        """The declared parameters (value, range, whole number): they bound the search."""
        return "", self._params(policy)[1]

    def budget_params(self, family: str) -> tuple[str, ...]:
        return ()

    def default_params(self, family: str, names: list[str]) -> list[str]:
        return list(names)

    def spec_text(self, family: str, values: dict, fixed: dict, integers: Sequence[str]) -> str:
        """The game's spec of ``family`` with ``values`` (whole numbers where declared)."""
        write = hook(self.game, "policy_spec")
        point = {k: int(round(v)) if k in integers else float(v) for k, v in values.items()}
        return str(write(family, point))

    def policy_scores(self, plan, spec, seed: int, start: int, n: int, threads: int) -> dict:
        """Per-seed scores of ``spec`` on game indices ``start .. start+n-1`` (a seed is
        one game index): a ranked game's every lineup in every seating (a win 1, a win
        shared by k players 1/k, a loss 0; their mean), a team game's result (1 or 0)."""
        if plan.team:
            config = self._config(plan.components, plan.players, [spec.text] * plan.players,
                                  seed)  # fmt: skip
            seats, games = self.game.play_block(config, start, n, threads)
            won = _team_won(seats, games, start, n)
            return {"per_seed": won, "wins": int(won.sum()), "games": int(n)}
        total, wins, games = np.zeros(n), 0, 0
        players = plan.players
        for lineup in plan.lineups:
            table = [spec.text, *lineup]
            for r in range(players):  # the candidate is player r
                order = [table[(p - r) % players] for p in range(players)]
                config = self._config(plan.components, players, order, seed)
                seats, _ = self.game.play_block(config, start, n, threads)
                index = seats["game"].to_numpy(dtype=np.int64) - start
                won = seats["won"].to_numpy(dtype=bool)
                mine = won & (seats["player"].to_numpy() == r)
                winners = np.bincount(index, weights=won, minlength=n)
                scored = np.bincount(index, weights=mine, minlength=n) > 0
                total += np.where(scored, 1.0 / np.maximum(winners, 1.0), 0.0)
                wins += int(scored.sum())
                games += n
        return {"per_seed": total / plan.games_per_seed, "wins": wins, "games": games}

    def warm_config(self, plan):
        raise BnbError(_no_dask(self.game))

    def write_weights(
        self, path: Path, family: str, weights: dict, header: Sequence[str] = (), spec=None
    ) -> Path:
        """The tuned spec as the last line of ``tuned-spec.txt`` beside ``path`` (checked:
        it must play as it is written)."""
        if not spec:
            raise BnbError("tune: no tuned spec to write")
        self.check_policy(spec)
        lines = [f"# {h}" for h in header]
        lines += ["# the tuned policy spec (the last line): use it as --policy SPEC", spec]
        return _write(path.with_name(SPEC_FILE), "\n".join(lines) + "\n")

    # ----------------------------------------------------------------------------------
    # bnb tune game

    def game_policies(self, policies: Sequence[str], players: int) -> list[str]:
        """The label of each player's policy (``make_config`` checks the specs and the
        player count)."""
        return list(self._config(self._defaults, players, policies, 0).labels)

    def check_targets(self, targets) -> None:
        """A one-line error for a target the game's columns cannot measure."""
        seat_columns, game_columns = self.game.columns()
        for t in targets:
            if t.name == "game_length" and "turns" not in game_columns:
                raise BnbError(f"tune: --target {t.key}: {self.game.title}'s game rows have "
                               "no 'turns' column")  # fmt: skip
            if t.name == "xp_share" and not {"xp", f"xp_{t.arg}"} <= set(seat_columns):
                raise BnbError(f"tune: --target {t.key}: {self.game.title}'s seat rows have "
                               f"no 'xp' and 'xp_{t.arg}' columns")  # fmt: skip

    def value_at(self, components, path: str):
        from bnb_sim.analysis.sweep_variants import _lookup

        return _lookup(self.component_data(components), path)

    def with_values(self, components, point: dict, origin: str):
        """A copy with the values at the dotted paths of ``point`` set (the game's
        ``sweep_variants`` if it has one, else paths into mapping components), checked by
        its ``make_config``: one line naming the path and the value otherwise."""
        from bnb_sim.analysis.protocol_studies import set_value

        label = ", ".join(f"{k}={v}" for k, v in point.items())
        own = getattr(self.game, "sweep_variants", None)
        try:
            if callable(own):
                out = own(components, [(k, [v]) for k, v in point.items()], "grid")[0][1]
            else:
                out = components
                for path, value in point.items():
                    out = set_value(out, path, copy.deepcopy(value))
        except (KeyError, TypeError, IndexError):
            raise BnbError(f"{origin} {label}: {self.game.title} has no such component "
                           "value") from None  # fmt: skip
        try:
            self._config(out, None, [self.DEFAULT_POLICY], 0)
        except (BnbError, ValueError) as exc:
            raise BnbError(f"{origin} {label}: {exc}") from None
        return out

    def play_games(self, plan, components, seed: int, start: int, n: int, threads: int, keep):
        """``(seats, games)`` of games ``start .. start+n-1`` under ``components``; a team
        game's rows get the team's ``won`` per game where the game rows lack it."""
        config = self._config(components, plan.players, plan.policies, seed)
        seats, games = self.game.play_block(config, start, n, threads)
        if plan.team and "won" not in games.columns:
            games = games.assign(won=games["game"].map(seats.groupby("game")["won"].max()))
        return seats, games

    def game_warm_config(self, plan):
        raise BnbError(_no_dask(self.game))

    def override_entries(self, tuned, paths: Sequence[str]) -> dict[tuple, dict]:
        """``{table parts: {key: value}}`` of each tuned path (a path through a list
        restates its top-level value whole: arrays replace whole)."""
        out: dict[tuple, dict] = {}
        for path in paths:
            parts = path.split(".")
            if any(p.isdigit() for p in parts):
                out.setdefault((), {})[parts[0]] = tuned[parts[0]]
                continue
            out.setdefault(tuple(parts[:-1]), {})[parts[-1]] = self.value_at(tuned, path)
        return out

    def retag(self, value, reason: str):
        return value

    def load_override(self, files: Sequence[str]):
        return self.game.load_components(list(files))


def _team_won(seats, games, start: int, n: int) -> np.ndarray:
    """Per game index ``start .. start+n-1``: did the team win (the game rows' ``won``,
    else any seat's)."""
    if "won" in games.columns:
        index, won = games["game"].to_numpy(dtype=np.int64), games["won"].to_numpy(dtype=bool)
    else:
        index, won = seats["game"].to_numpy(dtype=np.int64), seats["won"].to_numpy(dtype=bool)
    return (np.bincount(index - start, weights=won, minlength=n) > 0).astype(float)


def _no_dask(game) -> str:
    return (f"tune: --dask is not offered for {game.title} (a protocol game's tuning plays in "
            "this process)")  # fmt: skip


def _write(path: Path, text: str) -> Path:
    from bnb_sim.safe_io import write_atomic

    try:
        write_atomic(path, text)  # never through a link
    except OSError as exc:
        raise BnbError(f"tune: cannot write {path} ({exc.strerror or exc})") from None
    return path


_HOOKS: dict[int, tuple[Any, ProtocolTuneHooks]] = {}


def hooks_for(game: Any) -> ProtocolTuneHooks:
    """The tuning hooks of the protocol object ``game`` (one per game object: its player
    range and default components are worked out once)."""
    found = _HOOKS.get(id(game))
    if found is None or found[0] is not game:
        found = _HOOKS[id(game)] = (game, ProtocolTuneHooks(game))
    return found[1]
