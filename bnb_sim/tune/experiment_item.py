"""The ``[[tune]]`` item of experiment files (``bnb run``; docs/experiments.md, docs/tuning.md).

::

    [[tune]]
    name = "stronger heuristic"
    what = "policy"                    # or "game"
    policy = "heuristic"               # what = "policy": the start spec
    against = ["greedy", "heuristic"]  # the field
    players = 2
    budget = 20000
    params = ["board=0..3"]            # as --param (default: every weight but xp)
    dir = "tunes/heuristic"            # optional tuning folder (tune.json: re-running resumes;
                                       # relative to the experiment file's folder)
    readings = { hunger = "one-by-one" }  # optional rule readings (the seating is the tune's)

    [[tune]]
    what = "game"
    params = ["mobs.enderman.hearts=4..8"]
    targets = ["first_player_advantage=0", "balance=max"]
    policies = ["heuristic", "greedy", "random", "random"]
    players = 4
    budget = 30000

    [[tune]]                           # Heroes of the Village (or any registered game)
    game = "hotv"
    what = "game"
    params = ["path.start_normal=6..11"]
    targets = ["win_rate=0.5"]         # the team win rate
    players = 3
    budget = 20000

An item of another game than the first (``game = NAME``) takes that game's component files
(``components``, relative to the experiment file), readings (``readings``) and values
(``set``); a cooperative game's policy item has no ``against`` (the policy is the team).

Everything is validated (planned) when the file is read, before any game. Pure Python here;
:func:`run_tune_item` plays.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from bnb_sim.errors import BnbError

__all__ = [
    "TUNE_KEYS",
    "TuneSpec",
    "parse_other_game",
    "parse_tune_item",
    "run_tune_item",
    "tune_sections",
]

TUNE_KEYS = (
    "name",
    "seed",
    "variant",
    "readings",
    "components",
    "set",
    "what",
    "policy",
    "against",
    "players",
    "budget",
    "params",
    "targets",
    "policies",
    "method",
    "top",
    "population",
    "sigma",
    "seeds_per_candidate",
    "sprt",
    "games_per_eval",
    "dir",
)
MAX_BUDGET = 10_000_000


@dataclass
class TuneSpec:
    name: str
    seed: int
    variant: str
    components: Any
    component_files: list[str]
    overrides: dict
    what: str = "policy"
    plan: Any = None  # a PolicyTune or a GameTune
    dir: str | None = None
    readings: dict = field(default_factory=dict)  # the rule readings the file sets
    kind: str = "tune"

    @property
    def game(self) -> str:
        """The registry name of the game it tunes (its plan's)."""
        return self.plan.game

    @property
    def players(self) -> int:
        return self.plan.players

    @property
    def policies(self) -> list[str]:
        if self.what == "policy":
            return [self.plan.policy, *self.plan.against]
        return list(self.plan.policies)


def parse_tune_item(
    r, common: dict, base_dir: Path | None = None, game: str | None = None
) -> TuneSpec:
    """A :class:`TuneSpec` from an experiment reader ``r`` (``analysis.experiment._Reader``);
    a relative ``dir`` is resolved against ``base_dir`` (the experiment file's folder).
    ``game``: the item's game (None: the first game)."""
    from bnb_sim.tune.game_tune import plan_game_tune
    from bnb_sim.tune.hooks import is_team, tune_hooks
    from bnb_sim.tune.policy_tune import plan_policy_tune

    hooks = tune_hooks(game)
    what = r.str("what", "policy", ("policy", "game"))
    budget = r.int("budget", None, low=1, high=MAX_BUDGET)
    if budget is None:
        r.fail("budget", "is required (games to spend)")
    params = r.str_list("params", [])
    top = r.int("top", 3, low=1, high=50)
    shared = dict(
        budget=budget,
        seed=common["seed"],
        top=top,
        components=common["components"],
        readings=common.get("readings") or {},
        variant=common["variant"],
        game=game,
    )
    try:
        if what == "policy":
            against = r.str_list("against", None)
            if is_team(game) and against is not None:
                r.fail("against", "a cooperative game has no field (the policy is the team)")
            if not against and not is_team(game):
                r.fail("against", 'is required for what = "policy" (the field)')
            plan = plan_policy_tune(
                r.str("policy", hooks.DEFAULT_POLICY),
                sprt=_sprt(r),
                against=against or [],
                players=r.int("players", 2, low=2, high=4),
                params=params,
                population=r.int("population", None, low=2, high=1000),
                sigma=r.float("sigma", 0.2),
                seeds_per_candidate=r.int("seeds_per_candidate", None, low=1, high=1_000_000),
                **shared,
            )
        else:
            if r.has("sprt"):
                r.fail("sprt", 'applies to what = "policy" only (the final comparison)')
            if not params:
                r.fail("params", 'is required for what = "game" (e.g. ["mobs.witch.hearts=3..7"])')
            plan = plan_game_tune(
                params=params,
                targets=r.str_list("targets", []),
                players=r.int("players", 4, low=2, high=4),
                policies=r.str_list("policies", [hooks.DEFAULT_POLICY]),
                method=r.str("method", "auto", ("auto", "grid", "ntbea")),
                games_per_eval=r.int("games_per_eval", None, low=2, high=10_000_000),
                component_files=common["component_files"],
                **shared,
            )
    except BnbError as exc:
        msg = str(exc)
        raise BnbError(msg if r.source in msg else f"{r.source}: {r.where}: {msg}") from None
    known = {f.name for f in fields(TuneSpec)}
    shared_keys = {k: v for k, v in common.items() if k in known}
    folder = _tune_dir(r, Path(base_dir or "."))
    return TuneSpec(**shared_keys, what=what, plan=plan, dir=folder)


def _tune_dir(r, base_dir: Path) -> str | None:
    """``dir``, resolved against the experiment file's folder and checked now, before
    anything plays: new, empty, or a tuning folder (then it is resumed); never a simulate
    run folder or a folder of other files."""

    from bnb_sim.tune.store import tune_folder_state

    path = r.folder("dir", base_dir)
    if path is None:
        return None
    try:
        state = tune_folder_state(path)
    except BnbError as exc:
        r.fail("dir", str(exc))
    problems = {
        "file": "exists and is not a folder",
        "run": "is a simulate run folder (run.json); give a new or empty folder",
        "foreign": "is a non-empty folder that is not a tuning run (no tune.json); give a new "
        "or empty folder (an existing tuning folder is resumed)",
    }
    if state in problems:
        r.fail("dir", f"{path} {problems[state]}")
    return str(path)


def _sprt(r):
    """``sprt = [ELO0, ELO1]`` of a policy item, or None."""
    if not r.has("sprt"):
        return None
    value = r.table["sprt"]
    ok = isinstance(value, list) and len(value) == 2
    if not ok or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        r.fail("sprt", f"must be [ELO0, ELO1], got {value!r}")
    return float(value[0]), float(value[1])


def run_tune_item(spec: TuneSpec, *, threads=None, progress=None) -> dict:
    """Play a ``[[tune]]`` item into its folder (``dir``, resumed when it holds the same run;
    a temporary folder without ``dir``) and return the result dict."""
    from bnb_sim.tune.game_tune import run_game_tune
    from bnb_sim.tune.policy_tune import run_policy_tune

    runner = run_policy_tune if spec.what == "policy" else run_game_tune

    from bnb_sim.tune.store import TUNE_FILE, open_tune_folder

    def go(folder: Path, resume: bool, lock=None) -> dict:
        return runner(
            spec.plan, folder, resume=resume, threads=threads, progress=progress, lock=lock
        )

    if spec.dir is None:
        with tempfile.TemporaryDirectory(prefix="bnb-tune-") as tmp:
            return go(Path(tmp) / "tune", False)
    folder = Path(spec.dir)
    resume = (folder / TUNE_FILE).exists()
    lock = open_tune_folder(folder, resume=resume)  # one writer, the answer file included
    try:
        result = go(folder, resume, lock)
        _write_answer(spec, result, folder)
    finally:
        lock.release()
    return result


def _write_answer(spec: TuneSpec, result: dict, folder: Path) -> None:
    """The answer file in the item's folder, as ``bnb tune`` writes it."""
    from bnb_sim.tune.store import OVERRIDE_FILE, WEIGHTS_FILE

    header = [f"tuned by the experiment item '{spec.name}'"]
    if spec.what == "policy":
        from bnb_sim.tune.policy_tune import write_weights

        write_weights(folder / WEIGHTS_FILE, spec.plan.family, result["weights"], header,
                      spec=result["spec"], game=spec.plan.game)  # fmt: skip
    else:
        from bnb_sim.tune.game_tune import write_override

        write_override(spec.plan, result["best"], folder / OVERRIDE_FILE, header)


class OtherGameTuneSpec(TuneSpec):
    """A ``[[tune]]`` item of another game than the first: it names its own readings and
    the engine it warms (the shared report and runner code serve it as any tune item)."""

    def readings_text(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.plan.readings.items()) or "none"

    def warmup(self):
        """``(key, step)``: the game's batch kernel (items with equal keys share it; a game
        without compile jobs has nothing to compile ahead)."""
        from bnb_sim import feedback

        return feedback.warmup_step(self.plan.game)


OTHER_KEYS = tuple(k for k in TUNE_KEYS if k != "variant") + ("game",)


def parse_other_game(table: dict, game, *, source: str, where: str, seed: int,
                     base_dir: Path) -> OtherGameTuneSpec:  # fmt: skip
    """A ``[[tune]]`` table with ``game = NAME`` (``game``: its registry entry) of a game
    other than the first, checked now (one line naming the file and the key)."""
    from bnb_sim.analysis.experiment_reader import _Reader, _slug_ok
    from bnb_sim.tune.hooks import tune_hooks

    r = _Reader(source, where, table, OTHER_KEYS)
    name = r.str("name", where.replace("[", " ").rstrip("]"))  # "tune 1", as the others
    if not _slug_ok(name):
        r.fail("name", "use letters, digits, spaces and -_.,:+()= (at most 80)")
    r.where = f"tune '{name}'" if r.has("name") else where
    hooks = tune_hooks(game.name)
    files = [str(_resolve(base_dir, f)) for f in r.str_list("components", [])]
    overrides = r.mapping("set")
    readings = {k: str(v) for k, v in r.mapping("readings").items()}
    try:
        comps = hooks.load_components(files or None)
        if overrides:
            comps = hooks.with_values(comps, overrides, f"{source}: {r.where}.set")
    except BnbError as exc:
        msg = str(exc)
        raise BnbError(msg if source in msg else f"{source}: {r.where}.components: {msg}") from None
    common = dict(
        name=name, seed=r.int("seed", seed, low=0, high=2**63 - 1), variant=None,
        components=comps, component_files=files, overrides=overrides, readings=readings,
    )  # fmt: skip
    spec = parse_tune_item(r, common, base_dir, game=game.name)
    if game.protocol is not None:  # what the experiment report says of its components
        from bnb_sim.analysis.protocol_item import ComponentsInfo
        from bnb_sim.tune.hooks import content_hash

        source = "files" if files else "defaults"
        info = ComponentsInfo(content_hash(game.name, comps), source, tuple(files))
        spec = replace(spec, components=info)  # the plan keeps the game's own components
    return OtherGameTuneSpec(**{f.name: getattr(spec, f.name) for f in fields(TuneSpec)})


def _resolve(base_dir: Path, path: str) -> Path:
    p = Path(path).expanduser()
    return p if p.is_absolute() else base_dir / p


def design_seating(what: str) -> str:
    """The seating a tuning run plays under (its own design, not a reading the file sets)."""
    from bnb_sim.tune.game_tune import SEATING as GAME_SEATING
    from bnb_sim.tune.policy_tune import SEATING as POLICY_SEATING

    return POLICY_SEATING if what == "policy" else GAME_SEATING


def games_text(spec: TuneSpec) -> str:
    return f"budget {spec.plan.budget:,} games"


def what_text(spec: TuneSpec) -> str:
    if spec.what == "policy":
        return (
            f"tune {spec.plan.policy} against {', '.join(spec.plan.against)}, "
            f"{spec.plan.players} players"
        )
    targets = ", ".join(t.describe() for t in spec.plan.targets)
    return f"tune {', '.join(spec.plan.space.names)} toward {targets}"


def tune_sections(result: dict, name: str):
    """The item's report sections (titles and figure names prefixed with ``name``) and its
    summary."""
    from bnb_sim.analysis.report_builder import name_item_sections
    from bnb_sim.tune.report import build_game_report, build_policy_report

    if result["kind"] == "tune-policy":
        builder = build_policy_report(result)
    else:
        builder = build_game_report(result)
    sections = builder.sections
    name_item_sections(sections, name, lead="tuning, ")
    summary = {k: result[k] for k in result if k not in ("search", "ranking", "sensitivity")}
    return sections, summary
