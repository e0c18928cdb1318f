"""Experiment-file items (``bnb run FILE.toml``) of a game served through the protocol.

A ``[[simulation]]``, ``[[compare]]``, ``[[tournament]]`` or ``[[sweep]]`` table with
``game = NAME`` of such a game becomes a :class:`ProtocolItem`; the shared experiment code
asks it for its games, its texts, to play, and for its report sections (the same interface
as every other game's items). It plays what ``bnb simulate|compare|tournament|sweep --game
NAME`` play (:mod:`bnb_sim.analysis.protocol_studies`, :mod:`bnb_sim.runner.protocol_run`).

    [[compare]]
    game = "NAME"
    a = "..."
    b = "..."
    max_games = 20000        # and/or precision = 0.01; or sprt = [ELO0, ELO1] (alpha, beta)

    [[sweep]]
    game = "NAME"
    games = 2000
    policies = ["..."]
    set = { "some.path" = [1, 2, 3] }
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bnb_sim.errors import BnbError

_COMMON = ("game", "name", "seed", "players")
ALLOWED = {
    "simulation": (*_COMMON, "games", "policies"),
    "compare": (*_COMMON, "a", "b", "precision", "max_games", "sprt", "alpha", "beta"),
    "tournament": (*_COMMON, "games", "policies"),
    "sweep": (*_COMMON, "games", "policies", "set", "mode"),
}
MAX_GAMES = 10_000_000


@dataclass
class ComponentsInfo:
    """What the experiment report says of an item's components (its provenance table)."""

    content_hash: str
    source: str = "defaults"
    files: tuple = ()
    n_estimates: int = 0

    def estimates(self) -> list:
        return []


@dataclass
class ProtocolItem:
    """One item of a protocol game: what to play, and how to show it."""

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
    max_games: int = 20_000
    sprt: tuple[float, float] | None = None  # a compare's SPRT (ELO0, ELO1), alpha, beta
    alpha: float = 0.05
    beta: float = 0.05
    variants: list = field(default_factory=list)
    overrides: dict = field(default_factory=dict)  # no component files or overrides yet

    @property
    def game(self) -> str:
        return self.game_object.name

    @property
    def components(self) -> ComponentsInfo:
        from bnb_sim.runner.protocol_run import component_info

        info = component_info(self.game_object, self.game_components)
        return ComponentsInfo(info["content_hash"])

    # -- what the shared experiment code asks ----------------------------------------------
    def budget(self) -> int:
        from bnb_sim.analysis.protocol_studies import tables

        if self.kind == "compare":
            return int(self.max_games)
        if self.kind == "sweep":
            return self.games * len(self.variants)
        if self.kind == "tournament":
            return self.games * len(tables(self.game_object, self.policies, self.players))
        return int(self.games)

    def games_text(self) -> str:
        if self.kind == "compare":
            rule = f"precision ±{100 * self.precision:g} pp, " if self.precision else ""
            if self.sprt:
                rule = f"SPRT [{self.sprt[0]:g}, {self.sprt[1]:g}], "
            return f"{rule}at most {self.max_games:,} games"
        if self.kind == "sweep":
            return f"{self.games:,} games x {len(self.variants)} variants"
        return f"{self.games:,} games"

    def what(self) -> str:
        who = f"{self.a} vs {self.b}" if self.kind == "compare" else ", ".join(self.policies)
        return f"{self.game_object.title}: {who}"

    def readings_text(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.options.items() if v is not None) or "-"

    def played(self, result) -> int:
        if self.kind == "compare":
            return int(result["games"])
        if self.kind in ("sweep", "tournament"):
            return self.budget()
        return len(result[1])

    def warmup(self):
        """``(key, step)``: nothing to compile ahead (the game plays on first use)."""
        return (self.game, "none"), lambda: None

    # -- playing ---------------------------------------------------------------------------
    def run(self, *, threads=None, progress=None, yes=False):
        from bnb_sim.analysis import protocol_studies as S
        from bnb_sim.runner.budget import confirm_games

        confirm_games(self.budget(), f"{self.kind} '{self.name}'", yes=yes)
        if progress is not None:
            progress(f"  {self.games_text()}: {self.what()}")
        common = dict(players=self.players, seed=self.seed, options=self.options, threads=threads)
        g = self.game_object
        if self.kind == "compare":
            return S.compare(g, self.game_components, self.a, self.b, max_games=self.max_games,
                             precision=self.precision, sprt=self.sprt, alpha=self.alpha,
                             beta=self.beta, **common)  # fmt: skip
        if self.kind == "tournament":
            return S.tournament(g, self.game_components, self.policies, games=self.games, **common)
        if self.kind == "sweep":
            return S.sweep(g, self.game_components, self.variants, self.policies, games=self.games,
                           **common)  # fmt: skip
        return self._simulate(threads)

    def _simulate(self, threads):
        import tempfile
        from pathlib import Path

        from bnb_sim.runner.protocol_run import simulate_to_dir
        from bnb_sim.runner.storage import load_run

        g = self.game_object
        config = g.make_config(self.game_components, players=self.players, policies=self.policies,
                               seed=self.seed, options=self.options)  # fmt: skip
        with tempfile.TemporaryDirectory(prefix="bnb-item-") as tmp:
            simulate_to_dir(g, config, self.game_components, self.games, Path(tmp) / "run",
                            threads=threads)  # fmt: skip
            return load_run(Path(tmp) / "run")

    # -- the report ------------------------------------------------------------------------
    def report(self, result):
        """``(sections, summary, findings)`` of the played item."""
        from bnb_sim.analysis.protocol_report import run_sections
        from bnb_sim.analysis.report import Finding, Section

        summary: dict[str, Any] = {"kind": self.kind, "game": self.game}
        if self.kind == "simulation":
            seats, games, meta = result
            sections, findings = run_sections(self.game_object, seats, games, meta)
            for section in sections:
                section.title = f"{self.name}: {section.title}"
                summary.update(section.summary)
            for finding in findings:  # the game's key findings, named by the item
                finding.text = f"{self.name}: {finding.text}"
            return sections, summary, findings
        result = {k: v for k, v in result.items() if not k.startswith("_")}
        section = Section(f"{self.name}: {self.game_object.title} {self.kind}")
        section.text(f"{self.what()}; {self.games_text()}; the same game indices for every "
                     "entrant (paired), 95% intervals.")  # fmt: skip
        summary.update(result)
        findings = []
        if self.kind == "compare":
            d = result["difference"]
            text = (f"{self.name}: {self.a} minus {self.b}: {100 * d['mean_diff']:+.1f} pp "
                    f"[{100 * d['lo']:+.1f}, {100 * d['hi']:+.1f}] over "
                    f"{result['game_indices']:,} paired game indices.")  # fmt: skip
            section.text(text)
            if "sprt" in result:
                from bnb_sim.analysis.protocol_text import sprt_text

                section.text(sprt_text(result["sprt"], self.a, self.b))
            numbers = {"kind": "compare", "game": self.game}
            numbers.update({k: d[k] for k in ("mean_diff", "lo", "hi")})
            findings.append(Finding(text, numbers))
        elif self.kind == "tournament":
            for row in result["ranking"]:
                section.text(f"{row['policy']}: {100 * row['score']:.1f}% "
                             f"[{100 * row['lo']:.1f}, {100 * row['hi']:.1f}]")  # fmt: skip
        else:
            for row in result["variants"]:
                rates = ", ".join(f"{k} {100 * v['rate']:.1f}%"
                                  for k, v in row["win_rates"].items())  # fmt: skip
                section.text(f"{row['variant']}: {rates}")
        section.summary[self.kind] = result
        return [section], summary, findings


def parse_item(game: Any, kind: str, table: dict, *, source: str, where: str, seed: int,
               base_dir=None, component_files=()) -> ProtocolItem:  # fmt: skip
    """An item table of ``game``, checked now (one line naming the file and the key)."""
    from bnb_sim.analysis import protocol_studies as S

    if kind not in ALLOWED:
        raise BnbError(f"{source}: {where}: {game.title} has no [[{kind}]] items")
    option_names = tuple(o.name for o in game.options if o.applies_to("run"))
    allowed = (*ALLOWED[kind], *option_names)
    for key in table:
        if key not in allowed:
            raise BnbError(f"{source}: {where}.{key}: not a key of a {game.title} {kind} "
                           f"(allowed: {', '.join(allowed)})")  # fmt: skip

    def get(key, kind_of, default):
        value = table.get(key, default)
        if value is not None and not isinstance(value, kind_of):
            raise BnbError(f"{source}: {where}.{key}: expected {kind_of.__name__}, got {value!r}")
        return value

    games = get("games", int, 1000)
    if not 1 <= games <= MAX_GAMES:
        raise BnbError(f"{source}: {where}.games: between 1 and {MAX_GAMES:,}, got {games}")
    comps = game.load_components([])
    item = ProtocolItem(
        game, kind, get("name", str, f"{kind} ({game.name})"), get("seed", int, seed), comps,
        get("players", int, None), {n: table.get(n) for n in option_names},
        policies=list(get("policies", list, [game.default_policy])), games=games,
        a=get("a", str, ""), b=get("b", str, ""), precision=get("precision", float, None),
        max_games=get("max_games", int, 20_000),
    )  # fmt: skip
    if kind == "compare" and not (item.a and item.b):
        raise BnbError(f"{source}: {where}: a compare needs a and b")
    if kind == "compare":
        _stopping(item, table, f"{source}: {where}")
    if kind == "tournament" and len(item.policies) < 2:
        raise BnbError(f"{source}: {where}.policies: a tournament needs at least two")
    if kind == "sweep":
        sets = get("set", dict, {})
        mode = get("mode", str, "grid")
        if not sets or not all(isinstance(v, list) and v for v in sets.values()):
            raise BnbError(f"{source}: {where}.set: give each path a list of values")
        if mode not in ("grid", "zip"):
            raise BnbError(f"{source}: {where}.mode: 'grid' or 'zip', got {mode!r}")
        try:
            item.variants = S.sweep_variants(game, comps, list(sets.items()), mode)
        except BnbError as exc:
            raise BnbError(f"{source}: {where}.set: {exc}") from None
    return item


def _stopping(item: ProtocolItem, table: dict, at: str) -> None:
    """A compare's stopping rule, checked now: ``sprt = [ELO0, ELO1]`` (with ``alpha`` and
    ``beta``) as ``bnb compare --sprt`` checks it, or ``precision``, not both."""
    from bnb_sim.analysis.compare import make_rule

    sprt = table.get("sprt")
    for key in ("alpha", "beta"):
        value = table.get(key, 0.05)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BnbError(f"{at}.{key}: expected a number, got {value!r}")
        if key in table and sprt is None:
            raise BnbError(f"{at}.{key}: applies to sprt only")
        setattr(item, key, float(value))
    if sprt is None:
        return
    if not (
        isinstance(sprt, list)
        and len(sprt) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in sprt)
    ):
        raise BnbError(f"{at}.sprt: must be [ELO0, ELO1], got {sprt!r}")  # fmt: skip
    if item.precision is not None:
        raise BnbError(f"{at}.sprt: give sprt or precision, not both")
    item.sprt = (float(sprt[0]), float(sprt[1]))
    try:
        make_rule(item.sprt, None, item.alpha, item.beta)
    except BnbError as exc:
        raise BnbError(f"{at}.sprt: {str(exc).split(': ', 1)[-1].replace('--', '')}") from None
