"""Experiment-file items (``bnb run FILE.toml``) of every game but the first, through the protocol.

A ``[[simulation]]``, ``[[compare]]``, ``[[tournament]]`` or ``[[sweep]]`` table with
``game = NAME`` becomes a :class:`ProtocolItem` (parsed and checked by
:mod:`bnb_sim.analysis.protocol_item_parse`); the shared experiment code asks it for its
games, its texts, to play, and for its report sections (the same interface as every other
item). It plays what ``bnb simulate|compare|tournament|sweep --game NAME`` play (a
competitive game's compare, tournament and sweep: :mod:`bnb_sim.runner.compare_play`,
``tournament_play``, ``sweep_play``, as the first game's items; a cooperative game's: the team
studies of :mod:`bnb_sim.analysis.protocol_studies`; a run: :mod:`bnb_sim.runner.protocol_run`)
and reports their sections (:mod:`bnb_sim.analysis.protocol_item_report`).
Where the outcome kinds differ the code branches on ``game.outcome``, never on a name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

COOPERATIVE = "cooperative"


@dataclass
class ComponentsInfo:
    """The provenance of components that do not describe themselves (plain data)."""

    content_hash: str
    source: str = "defaults"
    files: tuple = ()
    n_estimates: int = 0

    def estimates(self) -> list:
        return []


def provenance(game: Any, components: Any) -> Any:
    """What the experiment report says of an item's components: the components themselves
    where they describe their files, hash and estimates, else their content hash."""
    own = ("source", "files", "content_hash", "n_estimates", "estimates")
    if all(hasattr(components, name) for name in own):
        return components
    from bnb_sim.runner.protocol_run import component_info

    return ComponentsInfo(component_info(game, components)["content_hash"])


def warm_step(game: Any):
    """``(key, step)``: one game of the default setting, which compiles (or loads) the
    game's kernels before the first item plays; items with equal keys share it."""

    def step() -> None:
        config = game.make_config(game.load_components([]), players=None,
                                  policies=[game.default_policy], seed=0, options={})  # fmt: skip
        game.play_block(config, 0, 1, 1)

    return (game.name, "batch kernel"), step


class GameItemParts:
    """What every item of a game served through the protocol says the same way: its game's
    name, its components' provenance and its options as the report's readings column (the
    item has ``game_object``, ``game_components`` and ``options``)."""

    game_object: Any
    game_components: Any
    options: dict[str, Any]
    reading_items: tuple[str, ...] = ()  # the item's readings, as --reading NAME=VALUE

    @property
    def game(self) -> str:
        return self.game_object.name

    @property
    def components(self) -> Any:
        return provenance(self.game_object, self.game_components)

    def readings_text(self) -> str:
        shown = [f"{k}={v}" for k, v in self.options.items() if v is not None]
        return ", ".join([*shown, *self.reading_items]) or "-"


@dataclass
class ProtocolItem(GameItemParts):
    """One item of a game served through the protocol: what to play, and how to show it."""

    game_object: Any
    kind: str
    name: str
    seed: int
    game_components: Any
    players: int | None
    options: dict[str, Any]
    policies: list[str] = field(default_factory=list)
    games: int = 1000
    a: str = ""
    b: str = ""
    precision: float | None = None
    max_games: int = 200_000
    sprt: tuple[float, float] | None = None  # a compare's SPRT (ELO0, ELO1), alpha, beta
    opponents: list[str] = field(default_factory=list)  # a competitive compare's field
    alpha: float = 0.05
    beta: float = 0.05
    variants: list = field(default_factory=list)  # a sweep's [(label, components)]
    component_files: list[str] = field(default_factory=list)
    overrides: dict = field(default_factory=dict)  # `set` (a sweep's: its values)
    run_dir: str | None = None  # a simulation's kept run folder (resumed when it exists)
    config: Any = None  # a simulation's run config (checked when the file is read)

    @property
    def team(self) -> bool:
        return self.game_object.outcome == COOPERATIVE

    # -- what the shared experiment code asks ----------------------------------------------
    def rows(self) -> int:
        """Game rows per game index of a simulation (e.g. one per pet team)."""
        from bnb_sim.runner.game_run_config import rows_per_game

        return rows_per_game(self.config)

    def budget(self) -> int:
        from bnb_sim.analysis.protocol_studies import tables

        if self.kind == "compare":  # A's and B's games; a team game counts index pairs
            return 2 * (self.max_games // (1 if self.team else 2))
        if self.kind == "sweep":
            return self.games * len(self.variants)
        if self.kind == "tournament":
            return self.games * len(tables(self.game_object, self.policies, self.players))
        return self.games * self.rows()

    def games_text(self) -> str:
        if self.kind == "compare":
            rule = f"precision ±{100 * self.precision:g} pp, " if self.precision else ""
            if self.sprt:
                rule = f"SPRT [{self.sprt[0]:g}, {self.sprt[1]:g}], "
            return f"{rule}at most {self.max_games:,} {'paired ' if self.team else ''}games"
        if self.kind == "sweep":
            return f"{self.games:,} games x {len(self.variants)} variants"
        rows = self.rows() if self.kind == "simulation" else 1
        return f"{self.games:,} games" + (f" x {rows} per game index" if rows > 1 else "")

    def what(self) -> str:
        who = f"{self.a} vs {self.b}" if self.kind == "compare" else ", ".join(self.policies)
        if self.opponents:  # a competitive compare against a field (as the first game's item)
            who += f" against {', '.join(self.opponents)}"
        players = self.players or getattr(self.config, "n_players", None)  # a run's own count
        setting = [] if players is None else [f"{players} players"]
        setting += [f"{k} {v}" for k, v in self.options.items() if v is not None]
        return f"{self.game_object.title}: {who}" + (f" ({', '.join(setting)})" if setting else "")

    def played(self, result) -> int:
        if self.kind == "compare":  # the team data (cooperative) or bnb compare's result
            return int(result["games_played"]) if self.team else result.n_games
        if self.kind in ("sweep", "tournament"):
            return self.budget()
        return len(result[1])

    def warmup(self):
        return warm_step(self.game_object)

    # -- playing ---------------------------------------------------------------------------
    def run(self, *, threads=None, progress=None, yes=False):
        from bnb_sim.analysis import protocol_studies as S
        from bnb_sim.runner.budget import confirm_games

        confirm_games(self.budget(), f"{self.kind} '{self.name}'", yes=yes)
        if progress is not None:
            progress(f"  {self.games_text()}: {self.what()}")
        common = dict(players=self.players, seed=self.seed, options=self.options, threads=threads)
        g = self.game_object
        if self.kind == "compare" and not self.team:
            return self._competitive_compare(threads, progress)
        if self.kind == "compare":
            return S.compare(g, self.game_components, self.a, self.b, max_games=self.max_games,
                             precision=self.precision, sprt=self.sprt, alpha=self.alpha,
                             beta=self.beta, **common)  # fmt: skip
        if self.kind == "tournament" and self.team:
            return S.tournament(g, self.game_components, self.policies, games=self.games, **common)
        if self.kind == "tournament":  # the round robin of bnb tournament, for every game
            from bnb_sim.runner.tournament_play import run_tournament

            own = {k: v for k, v in self.options.items() if v is not None}
            return run_tournament(self.policies, self.players or 2, self.games, seed=self.seed,
                                  components=self.game_components, threads=threads, yes=True,
                                  game=self.game, options=own)  # fmt: skip
        if self.kind == "sweep" and not self.team:  # bnb sweep's paired effects
            return self._competitive_sweep(threads, progress)
        if self.kind == "sweep":
            result = S.sweep(g, self.game_components, self.variants, self.policies,
                             games=self.games, **common)  # fmt: skip
            for row in result["variants"] if progress is not None else ():  # as bnb sweep says
                rates = ", ".join(
                    f"{k} {100 * v['rate']:.1f}%" for k, v in row["win_rates"].items()
                )
                progress(f"  {row['variant']}: {rates}")
            return result
        return self._simulate(threads)

    def _competitive_compare(self, threads, progress):
        """A competitive game's comparison: ``bnb compare --game NAME``'s paired games and
        stopping rule (:func:`bnb_sim.runner.compare_play.run_compare`)."""
        from bnb_sim.runner.compare_play import run_compare

        own = {k: v for k, v in self.options.items() if v is not None}
        return run_compare(self.a, self.b, opponents=self.opponents, players=self.players,
                           sprt=self.sprt, precision=self.precision, alpha=self.alpha,
                           beta=self.beta, max_games=self.max_games, seed=self.seed,
                           components=self.game_components, threads=threads, name=self.name,
                           progress=progress, yes=True, game=self.game, options=own)  # fmt: skip

    def _competitive_sweep(self, threads, progress):
        """A competitive game's sweep: ``bnb sweep --game NAME``'s games and analysis."""
        from bnb_sim.runner.sweep_play import run_sweep

        return run_sweep(variants=self.variants, games=self.games, players=self.players,
                         policies=self.policies, seed=self.seed, threads=threads,
                         game=self.game, options=self.options, name=self.name,
                         progress=progress, yes=True)  # fmt: skip

    def _simulate(self, threads):
        """The run of ``bnb simulate --game NAME`` (its run config): in ``run_dir`` when the
        item keeps it (resumed when it is a run), else in a temporary folder."""
        import tempfile
        from pathlib import Path

        from bnb_sim.runner.protocol_run import simulate_to_dir
        from bnb_sim.runner.storage import META_NAME, load_run

        g = self.game_object
        if self.run_dir is not None:
            out = Path(self.run_dir)
            simulate_to_dir(g, self.config, self.game_components, self.games, out,
                            threads=threads, resume=(out / META_NAME).is_file())  # fmt: skip
            return load_run(out)
        with tempfile.TemporaryDirectory(prefix="bnb-item-") as tmp:
            simulate_to_dir(g, self.config, self.game_components, self.games, Path(tmp) / "run",
                            threads=threads)  # fmt: skip
            return load_run(Path(tmp) / "run")

    # -- the report ------------------------------------------------------------------------
    def report(self, result):
        """``(sections, summary, findings)`` of the played item: the sections of ``bnb
        report`` on its run, or of ``bnb compare|tournament|sweep -o DIR``."""
        from bnb_sim.analysis import protocol_item_report as R

        if self.kind == "simulation":
            return R.simulation_report(self, result)
        if self.kind == "compare" and self.team:
            return R.team_compare_report(self, result)
        if self.kind == "compare":
            return R.competitive_compare_report(self, result)
        if self.kind == "sweep" and self.team:
            return R.team_sweep_report(self, result)
        if self.kind == "tournament" and not self.team:
            return R.tournament_report(self, result)
        if self.kind == "sweep":
            return R.competitive_sweep_report(self, result)
        return R.text_report(self, result)
