"""Heroes of the Village items of experiment files (``bnb run FILE.toml``).

An item with ``game = "hotv"`` (or ``"heroes-of-the-village"``) in a ``[[simulation]]``,
``[[compare]]`` or ``[[sweep]]`` table is this game's::

    [[simulation]]
    game = "hotv"
    name = "pet teams"
    games = 20000                 # per pet team
    players = 3
    policies = ["team"]
    pets = "all"                  # or "wolf,cat,fox"
    difficulty = "standard"       # or "easy" ("normal": an old name of standard)
    buildings = "level:1,2,3"     # or by number, "1,5,9"
    components = ["my_dice.toml"] # and/or set = { "path.start_normal" = 8 }
    run_dir = "runs/pets"         # optional: keep the run folder (resumed when it exists)

    [[compare]]
    game = "hotv"
    a = "team"
    b = "team:complete=6"
    players = 3
    pets = "wolf,cat,fox"
    precision = 0.01              # and/or max_games; or sprt = [0, 10] (alpha, beta)

    [[sweep]]
    game = "hotv"
    games = 2000                  # per variant, the same game indices (paired)
    players = 3
    policies = ["team"]
    set = { "path.start_normal" = [6, 8, 10] }   # several paths: every combination
    mode = "grid"                 # or "zip": the values position by position

The shared experiment code (:mod:`bnb_sim.analysis.experiment`) hands such a table to
:func:`parse_item` (the game's ``experiment_item`` entry point) and then asks the item for
its games, its text and its report sections; nothing there names this game.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError
from bnb_sim.games.heroes_village.difficulty import CHOICES as DIFFICULTY_CHOICES
from bnb_sim.games.heroes_village.difficulty import canonical
from bnb_sim.games.heroes_village.item_parts import (
    GAME,
    item_components,
    resolve_path,
    warm_batch_kernel,
)

KINDS = ("simulation", "compare", "sweep", "ladder")
_COMMON = ("game", "name", "seed", "components", "set", "players", "pets", "difficulty",
           "buildings")  # fmt: skip
ALLOWED = {
    "simulation": (*_COMMON, "games", "policies", "run_dir"),
    "compare": (*_COMMON, "a", "b", "sprt", "alpha", "beta", "precision", "max_games"),
    "sweep": (*_COMMON, "games", "policies", "mode"),
    "ladder": (*_COMMON, "games", "rungs"),
}
MAX_GAMES = 10_000_000


@dataclass
class HotvItem:
    """One Heroes of the Village item: what to play, and how to show it."""

    kind: str
    name: str
    seed: int
    components: Any  # HotvComponents
    component_files: list[str]
    overrides: dict[str, Any]
    players: int
    pets: str | None
    difficulty: str
    buildings: str | None
    policies: list[str] = field(default_factory=list)
    games: int = 0
    run_dir: str | None = None
    a: str = ""
    b: str = ""
    precision: float | None = None
    max_games: int = 200_000
    sprt: tuple[float, float] | None = None
    alpha: float = 0.05
    beta: float = 0.05
    sets: list = field(default_factory=list)  # a sweep's [(path, [values])]
    mode: str = "grid"
    variants: list = field(default_factory=list)  # a sweep's [(label, components)]
    readings: dict = field(default_factory=dict)
    game: str = GAME

    # -- what the shared experiment code asks ----------------------------------------------
    def teams(self) -> int:
        from bnb_sim.games.heroes_village.runner import parse_pets

        return len(parse_pets(self.pets, self.players))

    def budget(self) -> int:
        """Games it plays at most (every pet team, both sides of a comparison)."""
        if self.kind == "compare":
            return 2 * self.max_games
        if self.kind == "sweep":
            return self.games * len(self.variants)  # the component file is one of them
        return self.games * self.teams()

    def games_text(self) -> str:
        if self.kind == "compare":
            rule = f"precision ±{100 * self.precision:g} pp, " if self.precision else ""
            if self.sprt:
                rule = f"SPRT [{self.sprt[0]:g}, {self.sprt[1]:g}], "
            return f"{rule}at most {self.max_games:,} paired games"
        if self.kind == "sweep":
            return f"{self.games:,} games x {len(self.variants)} variants"
        teams = self.teams()
        return f"{self.games:,} games" + (f" x {teams} pet teams" if teams > 1 else "")

    def what(self) -> str:
        who = f"{self.a} vs {self.b}" if self.kind == "compare" else ", ".join(self.policies)
        return f"Heroes of the Village, {self.players} players: {who}; pets {self.pets_text()}"

    def pets_text(self) -> str:
        return self.pets or "default"

    def readings_text(self) -> str:
        return (
            f"difficulty={self.difficulty}, buildings={self.buildings or 'level:1,2,3'}, "
            f"pets={self.pets_text()}"
        )

    def played(self, result) -> int:
        if self.kind == "compare":
            return 2 * int(result["games"])
        if self.kind == "sweep":
            return sum(len(won) for won in result.values())
        return len(result[1])

    def warmup(self):
        """``(key, step)``: the engine this item plays (items with equal keys share it) and a
        function that compiles it or loads it from the cache, so ``bnb run`` warms only the
        engines its items need (this game's batch kernel, never the first game's)."""
        return (GAME, "batch kernel"), warm_batch_kernel

    # -- playing ---------------------------------------------------------------------------
    def run(self, *, threads=None, progress=None, yes=False):
        from bnb_sim.runner.budget import confirm_games

        confirm_games(self.budget(), f"{self.kind} '{self.name}'", yes=yes)
        if self.kind == "compare":
            from bnb_sim.games.heroes_village.paired_compare import compare_policies

            return compare_policies(
                self.components, self.a, self.b, players=self.players, pets=self.pets,
                difficulty=self.difficulty, buildings=self.buildings, seed=self.seed,
                precision=self.precision, max_games=self.max_games, threads=threads,
                sprt=self.sprt, alpha=self.alpha, beta=self.beta,
            )  # fmt: skip
        if self.kind == "sweep":
            return self._sweep(threads, progress)
        return self._simulate(threads, progress)

    def _sweep(self, threads, progress):
        """``{variant label: won}``, played as ``bnb sweep --game hotv`` plays them."""
        from bnb_sim.games.heroes_village.variants import play_sweep

        if progress is not None:
            progress(f"  {self.games_text()}: {self.what()}")
        say = None if progress is None else lambda label, rate: progress(f"  {label}: {rate}")
        return play_sweep(
            self.variants, games=self.games, players=self.players, specs=self.policies,
            pets=self.pets, difficulty=self.difficulty, buildings=self.buildings,
            seed=self.seed, threads=threads, say=say,
        )  # fmt: skip

    def _simulate(self, threads, progress):
        import tempfile

        from bnb_sim.games.heroes_village.runner import make_config, simulate_to_dir
        from bnb_sim.runner.run_reader import load_run

        config = make_config(
            self.components, self.players, self.policies, self.pets, self.difficulty,
            self.buildings, self.seed,
        )  # fmt: skip
        if progress is not None:
            progress(f"  {self.games_text()}, {self.players} players: {self.what()}")
        if self.run_dir is not None:
            out = Path(self.run_dir)
            simulate_to_dir(config, self.games, out, threads=threads,
                            resume=(out / "run.json").exists())  # fmt: skip
            return load_run(out)
        with tempfile.TemporaryDirectory(prefix="bnb-hotv-") as tmp:
            simulate_to_dir(config, self.games, Path(tmp) / "run", threads=threads)
            return load_run(Path(tmp) / "run")

    # -- the report ------------------------------------------------------------------------
    def report(self, result):
        """``(sections, summary, findings)`` of the played item."""
        if self.kind == "compare":
            return self._compare_report(result)
        if self.kind == "sweep":
            return self._sweep_report(result)
        from bnb_sim.analysis.protocol_report import shared_sections, to_section
        from bnb_sim.core.registry import get_game
        from bnb_sim.games.heroes_village.report import report_sections

        seats, games, meta = result  # the shared team win rate, then the game's sections
        own = [to_section(data) for data in report_sections(seats, games, meta)]
        sections = [*shared_sections(get_game(GAME), seats, games, meta), *own]
        summary: dict[str, Any] = {"kind": "simulation", "game": GAME, "n_games": len(games)}
        _name_sections(sections, self.name, summary)
        summary["params"] = meta.get("params", {})
        rate = summary.get("win_rate", {})
        findings = []
        if rate:
            from bnb_sim.analysis.report_builder import Finding
            from bnb_sim.analysis.table_format import fmt_rate

            text = fmt_rate(rate["rate"], rate["lo"], rate["hi"])
            indices = rate.get("game_indices", len(games))
            unit = (f" on {indices:,} game indices, 95% CI clustered by game index"
                    if indices < len(games) else "")  # fmt: skip
            findings.append(Finding(
                f"{self.name}: the team wins {text} of {len(games):,} Heroes of the Village "
                f"games ({self.players} players, {self.difficulty}, pets {self.pets_text()}"
                f"{unit}).",
                {"kind": "win_rate", "game": GAME, **rate},
            ))  # fmt: skip
        from bnb_sim.games.heroes_village.findings import hotv_findings

        teams = hotv_findings(summary, f"{self.name}: ")  # pet teams and pet effects
        kinds = ("best_pet_team", "worst_pet_team", "pet_effects")
        findings += [f for f in teams if f.numbers["kind"] in kinds]
        return sections, summary, findings

    def _compare_report(self, result):
        return compare_report(result, self.name, self.a, self.b)

    def _sweep_report(self, won):
        from bnb_sim.analysis.leaders import paired_ranking
        from bnb_sim.analysis.protocol_text import sweep_table
        from bnb_sim.analysis.report_builder import Finding, Section
        from bnb_sim.analysis.stats_intervals import Rate

        table = sweep_table(won)
        sec = Section(f"{self.name}: Heroes of the Village component sweep")
        sec.text(
            f"{self.what()}; {self.difficulty}. {self.games:,} games per variant on the same "
            "game indices (paired); each variant's difference against the component file "
            "has a paired t interval."
        )
        sec.table(table)
        variants = {label: Rate.from_bools(values).to_dict() for label, values in won.items()}
        summary = {"kind": "sweep", "game": GAME, "n_games": self.played(won),
                   "variants": variants}  # fmt: skip
        leader = paired_ranking({label: values for label, values in won.items()}).leader
        best = leader.first
        shown = table.set_index("variant").loc[best, "win rate [95% CI]"]
        claim = leader.claim(f"gives the team its highest win rate, {shown}",
                             name=lambda s: f"`{s}`")  # fmt: skip
        summary["leader"] = leader.to_dict()
        finding = Finding(
            f"{self.name}: {claim}; n = {self.games:,} Heroes of the Village games per "
            "variant, paired.",
            {"kind": "sweep", "game": GAME, "best": leader.to_dict()["best"],
             "ranked_first": best, **variants[best]},
        )  # fmt: skip
        return [sec], summary, [finding]


def compare_report(result, name: str, a: str, b: str):
    """``(sections, summary, findings)`` of a Heroes of the Village comparison (an experiment
    item's, or ``bnb compare --game hotv -o DIR``'s)."""
    import pandas as pd

    from bnb_sim.analysis.report_builder import Finding, Section
    from bnb_sim.analysis.table_format import fmt_signed_pp

    diff, test = result["difference"], result["mcnemar"]
    from bnb_sim.analysis.protocol_text import bound_note as _bound_note

    shown = fmt_signed_pp(diff["mean_diff"], diff["lo"], diff["hi"]) + _bound_note(diff)
    sec = Section(f"{name}: Heroes of the Village comparison")
    sec.text(
        f"Every seat plays A, then every seat plays B, on the same game indices (paired): "
        f"{result['games']:,} pairs, {result['players']} players, pets "
        f"{','.join(result['pets'])}, {result['difficulty']}; stopped by "
        f"{result['stopped']}. The difference has a paired t interval; the p value is the "
        "exact McNemar test."
    )
    if "sprt" in result:
        from bnb_sim.analysis.protocol_text import sprt_text

        sec.text(sprt_text(result["sprt"], a, b))
    sec.table(pd.DataFrame({
        "policy": [f"A {a}", f"B {b}", "A - B (paired)"],
        "team win rate [95% CI]": [str(result["rate_a"]), str(result["rate_b"]), shown],
    }))  # fmt: skip
    summary = {
        "kind": "compare", "game": GAME, "n_games": 2 * int(result["games"]),
        "win_rate_a": result["win_rate_a"], "win_rate_b": result["win_rate_b"],
        "difference": {k: diff[k] for k in ("mean_diff", "lo", "hi") if k in diff},
        "mcnemar_p": test["p_value"], "stopped": result["stopped"],
    }  # fmt: skip
    if "sprt" in result:
        summary["sprt"] = result["sprt"]
    finding = Finding(
        f"{name}: {a} minus {b}: {shown} team win rate over "
        f"{result['games']:,} paired Heroes of the Village games (McNemar p = "
        f"{test['p_value']:.3g}).",
        {"kind": "compare", "game": GAME, **summary["difference"]},
    )
    return [sec], summary, [finding]


def _name_sections(sections, name: str, summary: dict) -> None:
    from bnb_sim.analysis import report_builder as R

    for section in sections:
        section.title = f"{name}: {section.title}"
        section.anchor = R._slug(section.title)
        for fig in section.figures:
            fig.name = R._slug(f"{name}-{fig.name}")
        summary.update(section.summary)
        section.summary = {}


# ----------------------------------------------------------------------------- parsing


def parse_item(kind: str, table: dict, *, source: str, where: str, seed: int,
               base_dir: Path, component_files: list[str]) -> HotvItem:  # fmt: skip
    """A ``[[simulation]]`` or ``[[compare]]`` table with ``game = "hotv"``, checked now
    (one line naming the file and the key)."""
    from bnb_sim.analysis.experiment_reader import _REQUIRED, _Reader, _slug_ok

    if kind == "robustness":  # bnb robustness --game hotv (games/heroes_village/robustness.py)
        from bnb_sim.games.heroes_village.robustness import parse_item as robustness_item

        return robustness_item(table, source=source, where=where, seed=seed,
                               base_dir=base_dir, component_files=component_files)  # fmt: skip
    if kind not in KINDS:
        raise BnbError(
            f"{source}: {where}: Heroes of the Village items are [[simulation]], "
            "[[compare]], [[sweep]] and [[ladder]]"
        )
    r = _Reader(source, where, table, ALLOWED[kind])
    name = r.str("name", where.replace("[", " ").rstrip("]"))  # "simulation 1", as the others
    if not _slug_ok(name):
        r.fail("name", "use letters, digits, spaces and -_.,:+()= (at most 80)")
    r.where = f"{kind} '{name}'" if r.has("name") else where
    players = r.int("players", 3, low=2, high=4)
    difficulty = canonical(r.str("difficulty", "standard", DIFFICULTY_CHOICES))
    files = [str(resolve_path(base_dir, f)) for f in component_files + r.str_list("components", [])]
    overrides = r.mapping("set") if kind != "sweep" else {}  # a sweep's set is its values
    comps = item_components(r, files, overrides)
    common = dict(
        kind=kind, name=name, seed=r.int("seed", seed, low=0, high=2**63 - 1),
        components=comps, component_files=files, overrides=overrides, players=players,
        pets=r.str("pets", None), difficulty=difficulty, buildings=r.str("buildings", None),
    )  # fmt: skip
    if kind == "ladder":  # the cooperative ladder (bnb ladder --game hotv)
        from bnb_sim.games.heroes_village.ladder import parse_ladder_item

        return parse_ladder_item(r, common)
    if kind == "simulation":
        item = HotvItem(
            **common,
            games=r.int("games", _REQUIRED, low=1, high=MAX_GAMES),
            policies=r.str_list("policies", ["team"]),
            run_dir=_run_dir(r, base_dir),
        )
    elif kind == "sweep":
        item = _sweep_item(r, common)
    else:
        item = HotvItem(
            **common,
            a=r.str("a", _REQUIRED),
            b=r.str("b", _REQUIRED),
            precision=r.float("precision", None),
            max_games=r.int("max_games", 200_000, low=2, high=MAX_GAMES),
            sprt=_sprt(r),
            alpha=r.float("alpha", 0.05),
            beta=r.float("beta", 0.05),
        )
        if item.precision is not None and not 0 < item.precision < 1:
            r.fail("precision", f"must be between 0 and 1, got {item.precision:g}")
        from bnb_sim.games.heroes_village.paired_compare import check_stopping

        given = {key for key in ("alpha", "beta") if r.has(key)}
        try:
            check_stopping(item.sprt, item.precision, item.alpha, item.beta, given)
        except BnbError as exc:  # the CLI's words, said of the file's keys
            key = next((k for k in ("sprt", "alpha", "beta") if r.has(k)), "sprt")
            r.fail(key, str(exc).split(": ", 1)[-1].replace("--", ""))
    _check(r, item)
    return item


def _sprt(r) -> tuple[float, float] | None:
    """``sprt = [ELO0, ELO1]`` of a ``[[compare]]``, as the first game's items give it."""
    if not r.has("sprt"):
        return None
    value = r.table["sprt"]
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        r.fail("sprt", f"must be [ELO0, ELO1], got {value!r}")
    return float(value[0]), float(value[1])


def _sweep_item(r, common: dict) -> HotvItem:
    """A ``[[sweep]]``: ``set`` maps component paths to their values (a value or a list)."""
    from bnb_sim.analysis.experiment_reader import _REQUIRED
    from bnb_sim.games.heroes_village.variants import sweep_variants

    raw = r.mapping("set")
    if not raw:
        r.fail("set", 'is required, e.g. set = { "path.start_normal" = [6, 8, 10] }')
    sets = [(p, list(v) if isinstance(v, list) else [v]) for p, v in raw.items()]
    for path, values in sets:
        if not values:
            r.fail("set", f"{path}: give at least one value")
        if len({repr(v) for v in values}) != len(values):
            r.fail("set", f"{path}: a value is listed twice")
    mode = r.str("mode", "grid", ("grid", "zip"))
    if mode == "zip" and len({len(v) for _, v in sets}) > 1:
        r.fail("set", "mode = 'zip' needs the same number of values for every path")
    if common["pets"] == "all":
        r.fail("pets", "a sweep plays one pet team (a simulation with pets = 'all' ranks them)")
    try:
        variants = sweep_variants(common["components"], sets, mode == "zip",
                                  origin=f"{r.source}: {r.where}.set")  # fmt: skip
    except BnbError as exc:
        msg = str(exc).replace("--set ", "", 1)
        raise BnbError(msg if r.source in msg else f"{r.source}: {r.where}.set: {msg}") from None
    return HotvItem(
        **common,
        games=r.int("games", _REQUIRED, low=2, high=MAX_GAMES),
        policies=r.str_list("policies", ["team"]),
        sets=sets,
        mode=mode,
        variants=variants,
    )


def _check(r, item: HotvItem) -> None:
    """Everything the play would refuse, refused now: policies, pets, buildings."""
    from bnb_sim.games.heroes_village.runner import make_config

    where = "policies"
    try:
        specs = item.policies if item.kind != "compare" else [item.a]
        if item.kind == "compare":
            where = "a"
            make_config(item.components, item.players, [item.a], item.pets, item.difficulty,
                        item.buildings)  # fmt: skip
            where = "b"
            specs = [item.b]
        make_config(item.components, item.players, specs, item.pets, item.difficulty,
                    item.buildings)  # fmt: skip
    except BnbError as exc:
        key = where if str(exc).startswith(("policy", "unknown policy")) else "pets"
        if "--buildings" in str(exc):
            key = "buildings"
        r.fail(key, str(exc))
    if item.kind == "compare" and item.pets == "all":
        r.fail(
            "pets", "a comparison plays one pet team (a simulation with pets = 'all' ranks them)"
        )


def _run_dir(r, base_dir: Path) -> str | None:
    text = r.str("run_dir", None)
    if text is None:
        return None
    path = Path(os.path.normpath(resolve_path(base_dir, text)))
    if path.exists() and not path.is_dir():
        r.fail("run_dir", f"{path} exists and is not a folder")
    if path.is_dir() and not (path / "run.json").is_file() and any(path.iterdir()):
        r.fail("run_dir", f"{path} is a non-empty folder that is not a run")
    return str(path)
