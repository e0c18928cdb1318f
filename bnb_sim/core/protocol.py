"""The protocol a game implements to be served by every shared command.

A game is one object (usually a module-level instance in the game's ``spec`` module) with
the attributes and methods of :class:`GameProtocol`. The shared layers (runner, storage,
reports, studies, CLI) reach a game only through it, and branch on :attr:`outcome`
("competitive": seats play against each other and each game has winners; "cooperative":
the players are one team against the game) never on a game's name. The sketch follows
OpenSpiel's ``Game`` and Pgx's ``Env`` (docs/design.md, "Adding a game").

The protocol is plain data and callables: no click types (options are
:class:`OptionSpec` data that ``bnb_sim.cli`` turns into click options) and no pandas
imports (``play_block`` returns two pandas DataFrames, but this module does not need pandas
to describe that). Nothing here imports numba, pandas or a game.

Optional methods, used where a game offers them (the shared code checks with ``getattr``):
``new_game(config, game_index)`` (a step-by-step game), ``odds``, ``component_data``,
``describe(config) -> str`` (the setting in the words of the study texts),
``with_readings(components, items) -> components`` (``--reading NAME=VALUE`` items set;
without it ``--reading`` is refused), and ``sweep_variants(components, sets, mode)``
(``[(label, components)]`` of ``bnb sweep --set``, the game's own paths and labels, the
component file's values first; without it dotted paths into mapping components).
``expansions``: ``{name: description}`` of ``--expansion NAME`` (its ``load_components``
then takes ``expansion=NAME``; the description starts with the game's name).
``reading_flags``: :class:`OptionSpec` data (each with ``reading``) of the commands' flags
that set one of its rule readings (``--variant``), shown and accepted only as that game's.
``bnb simulate`` (one command body for every game, ``bnb_sim.cli.simulate_cmd``, and one
run-folder path, ``bnb_sim.runner.run_dir.run_to_dir``) gives ``make_config`` (or
``make_run_config``) in ``options`` the game's own options, ``check`` (``--check``) and, for a
game without ``with_readings``, ``readings`` (the ``--reading`` items and alias flags parsed
by its ``parse_readings`` hook; ``{}`` when none is given). It also uses, where
offered: the ``warm_engine`` run hook (:data:`ENTRIES`; called before a run that is not on
Dask, else the kernels compile in the first chunk) and the ``run_summary`` hook
(:data:`HOOKS`), and ``make_run_config`` (as ``make_config``, for a run that may play
several variants of each game index, declared as ``rows_per_game`` in the config's identity),
``run_components(components)`` (run.json's component record, with its ``content_hash``;
default: the data as JSON and its hash), ``run_header(config)`` (run.json's keys that name
the game; default: ``game``, ``outcome`` and ``title``), ``games_per_thread(config)`` (the
default chunk size; default: an eighth of the run), ``run_headline(config, games)`` (the
summary's first line), ``column_prefixes(config) -> (seat_prefixes, game_prefixes)`` (columns
beyond ``columns()`` whose names start so, e.g. one per component type; default: none) and
``changed_settings(config) -> dict`` (what the config sets apart from the game's defaults, as
keyword arguments of ``bnb_sim.simulate``: the Python call that run.json records, and its
``readings`` are the ``--reading`` items of the command that run.json records; without it,
the items as given).
run.json's ``params`` are the run's shape, ``config.identity()`` and how it was played
(threads, backend, Dask). ``bnb report`` also uses, where offered,
``report_layout(seats, games, meta)``: a :class:`ReportLayout` (its own title, subtitle and
notes, and its win rates in place of the shared ones), and the attribute ``report_unread``
(``{"seats": names, "games": names}``: columns its report never reads, left unread).

Rows: ``play_block(config, start, n, threads)`` returns ``(seats, games)``. ``seats`` has
one row per (game, seat) with at least ``game``, ``seat``, ``player``, ``policy`` and ``won``;
``games`` one row per game with at least ``game``. Every row is a pure function of the
config and its game index, so ``play_block(c, 0, 10)`` equals ``play_block(c, 0, 5)``
followed by ``play_block(c, 5, 5)`` (the contract test checks it for every game).

Optional hooks (:data:`HOOKS`, found with :func:`hook`): the parts of a command that only a
game can say (its rule readings, its component tables, its exact odds, its turn-by-turn
transcript, its compile jobs). A game offers the ones that make sense for it; a command
asked of a game that lacks its hook says so in one line.

Run hooks (:data:`ENTRIES`, found with :func:`entry_hook`; shared code asks for them through
``bnb_sim.games.GameSpec.entry``): what the runner and the studies ask of a game that serves
them with code of its own (the built-in games): its run config, batch player and Dask
payload, its step-by-step game from user values, and the modules of its luck, tuning and
designed studies. A game served only through the protocol needs none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

Outcome = Literal["competitive", "cooperative"]
OUTCOMES: tuple[str, ...] = ("competitive", "cooperative")

#: The commands a game's options may attach to (``OptionSpec.commands``).
COMMANDS: tuple[str, ...] = ("simulate", "compare", "tournament", "sweep", "tune", "run")
#: Commands that an option attaches to only where it names them (``OptionSpec.commands``):
#: one game or one fight (``--pet`` of ``bnb odds``), and the studies and training that a
#: built-in game serves with entries of its own (``--difficulty`` of ``bnb value``).
NAMED_COMMANDS: tuple[str, ...] = (
    "play",
    "odds",
    "ladder",
    "luck",
    "robustness",
    "sensitivity",
    "train",
    "value",
)

#: Column types a game may declare (they map one to one onto Arrow types in the runner).
COLUMN_TYPES: tuple[str, ...] = ("bool", "int8", "int16", "int32", "int64", "float64", "string")

#: The columns every game's seat rows and game rows carry (the shared studies read them).
SEAT_BASE: tuple[str, ...] = ("game", "seat", "player", "policy", "won")
GAME_BASE: tuple[str, ...] = ("game",)


@dataclass(frozen=True)
class OptionSpec:
    """One extra command option of a game, as data (``bnb_sim.cli`` makes the click option).

    ``kind``: "str", "int", "float", "flag", "choice" (``choices`` then lists the values) or
    "file" (a file the command writes: checked before anything plays to be new or a regular
    file, and to end in one of ``suffixes`` where given; the value is a ``pathlib.Path``).
    ``commands``: the commands that take it (empty: every command in :data:`COMMANDS`).
    The value reaches :meth:`GameProtocol.make_config` in ``options[name]``. ``metavar``:
    the value's name in ``--help`` (empty: the kind's, e.g. TEXT). ``low``/``high``: the
    range of an "int" option (click refuses a value outside it in one line).

    ``reading``: the rule reading this option is a shorter way to set (``--variant beginner``
    means ``--reading variant=beginner``); such an option goes in the game's
    ``reading_flags``, and its value reaches the game's ``parse_readings`` hook with the
    ``--reading`` items, not ``options``. ``sets``: the value a flag of that kind sets
    (``--fixed-seats``: ``fixed``).
    """

    name: str
    help: str
    kind: Literal["str", "int", "float", "flag", "choice", "file"] = "str"
    default: Any = None
    choices: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    metavar: str = ""
    low: int | None = None
    high: int | None = None
    reading: str = ""
    sets: str = ""
    suffixes: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.name.isidentifier():
            raise ValueError(f"option name {self.name!r} must be a Python identifier")
        if self.kind not in ("str", "int", "float", "flag", "choice", "file"):
            raise ValueError(f"option {self.name!r}: unknown kind {self.kind!r}")
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"option {self.name!r}: a choice needs its choices")
        if self.suffixes and self.kind != "file":
            raise ValueError(f"option {self.name!r}: only a file option has suffixes")
        if (self.low is not None or self.high is not None) and self.kind != "int":
            raise ValueError(f"option {self.name!r}: only an int option has a range")
        unknown = [c for c in self.commands if c not in COMMANDS + NAMED_COMMANDS]
        if unknown:
            raise ValueError(f"option {self.name!r}: unknown commands {unknown}")
        if (self.kind == "flag") != bool(self.sets) and self.reading:
            raise ValueError(f"option {self.name!r}: a flag alias of a reading names the value "
                             "it sets (sets=...), and only a flag does")  # fmt: skip
        if not self.flags:
            object.__setattr__(self, "flags", ("--" + self.name.replace("_", "-"),))

    def applies_to(self, command: str) -> bool:
        return not self.commands or command in self.commands


BLOCK_KINDS: tuple[str, ...] = ("text", "heading", "table", "figure", "warning")


@dataclass(frozen=True)
class ReportBlock:
    """One block of a :class:`ReportSection`, where the order of text, tables, figures and
    warnings matters. ``kind`` says which fields it uses:

    * ``"text"``: ``text`` (a paragraph; `code` and **bold** are kept);
    * ``"heading"``: ``text`` and ``level`` (a sub-heading inside the section, 3 to 6);
    * ``"table"``: ``rows`` (row dicts, the first row's keys are the columns) and ``caption``;
      ``columns``, where given, are the columns in their order (a table may then have no
      rows) and each cell is shown as given (no type inferred from the column);
    * ``"figure"``: ``figure`` (a matplotlib Figure, rendered to PNG) or ``png`` (the PNG
      bytes of one rendered already), ``name`` (the file name, without ``.png``),
      ``caption`` and ``alt`` (the image's text; the caption if empty);
    * ``"warning"``: ``title``, ``text`` and ``items`` (a caveat box with an optional list,
      repeated next to the key findings; a caveat for ``summary.json`` goes in the
      section's ``summary`` under ``warnings``).
    """

    kind: Literal["text", "heading", "table", "figure", "warning"]
    text: str = ""
    rows: tuple[Mapping[str, Any], ...] = ()
    caption: str = ""
    name: str = ""
    figure: Any = None
    title: str = ""
    level: int = 3
    columns: tuple[str, ...] = ()
    png: bytes = b""
    alt: str = ""
    items: tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in BLOCK_KINDS:
            raise ValueError(f"report block: unknown kind {self.kind!r} (kinds: {BLOCK_KINDS})")
        if self.kind == "figure" and ((self.figure is None and not self.png) or not self.name):
            raise ValueError("a figure block needs its figure (or its png) and a name")


@dataclass(frozen=True)
class ReportSection:
    """A report section as data: a title, paragraphs, tables (lists of row dicts), then
    ``blocks`` (:class:`ReportBlock`: text, tables, figures and warnings in their order).

    ``summary`` goes into the report's ``summary.json`` (its keys merged with the other
    sections'). ``findings``: the key findings this section contributes, shown first in the
    report, each a mapping with its sentence under ``"text"`` and its numbers beside it (as
    ``summary.json`` lists them under ``key_findings``). ``anchor``: the section's link
    target in the contents (empty: made from the title).
    """

    title: str
    paragraphs: tuple[str, ...] = ()
    tables: tuple[tuple[str, tuple[Mapping[str, Any], ...]], ...] = ()
    summary: Mapping[str, Any] = field(default_factory=dict)
    blocks: tuple[ReportBlock, ...] = ()
    findings: tuple[Mapping[str, Any], ...] = ()
    anchor: str = ""


@dataclass(frozen=True)
class ReportLayout:
    """How a game's run report departs from the shared layout (the optional hook
    ``report_layout(seats, games, meta)``; without it every field keeps its default).

    ``title`` / ``subtitle``: the report's heading (empty: "<game title>: <run folder>" and
    the run's command; ``bnb report --title`` wins over both). ``own_win_rates``: the
    game's :meth:`GameProtocol.report_sections` include its win rates, so the shared
    win-rate sections are left out. ``attached_before``: the title of the game's section
    that the section of ``bnb robustness --run`` goes before (empty: at the end).
    ``notes``: standing caveats shown with the key findings.
    """

    title: str = ""
    subtitle: str = ""
    own_win_rates: bool = False
    attached_before: str = ""
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class BenchPlan:
    """What ``bnb bench --game NAME`` measures of a game (its ``bench_plan`` hook): the games/s
    of each of ``policies`` at each of ``players`` (None: the game's default count), at 1 and
    at all threads. ``label``: the heading's name of what is timed (empty: the game's title
    and what is timed); ``readings``: the rule readings in effect (the ``--json`` output
    reports them)."""

    policies: tuple[str, ...]
    players: tuple[int | None, ...] = (None,)
    label: str = ""
    readings: Mapping[str, str] = field(default_factory=dict)


@runtime_checkable
class RunConfig(Protocol):
    """What a game's ``make_config`` returns: picklable (Dask sends it as is)."""

    game: str
    n_players: int
    seed: int

    @property
    def labels(self) -> list[str]:
        """The policy label of each seat."""
        ...

    def identity(self) -> dict[str, Any]:
        """Everything that decides the rows (run.json ``params`` and the identity hash)."""
        ...


@runtime_checkable
class GameProtocol(Protocol):
    """What a game implements (see the module docstring)."""

    name: str
    title: str
    aliases: tuple[str, ...]
    outcome: Outcome
    options: tuple[OptionSpec, ...]
    default_policy: str

    def load_components(self, paths: Sequence[str]) -> Any:
        """Its validated component data (``--components`` files over its defaults)."""
        ...

    def make_config(
        self,
        components: Any,
        *,
        players: int | None,
        policies: Sequence[str],
        seed: int,
        options: Mapping[str, Any],
    ) -> RunConfig:
        """A picklable run config (SpecError/BnbError with one line on bad input)."""
        ...

    def play_block(
        self, config: RunConfig, start: int, n: int, threads: int | None = None
    ) -> tuple[Any, Any]:
        """``(seats, games)`` DataFrames of games ``start .. start + n - 1``."""
        ...

    def columns(
        self, config: RunConfig | None = None
    ) -> tuple[Mapping[str, str], Mapping[str, str]]:
        """``(seat_columns, game_columns)``: name -> one of :data:`COLUMN_TYPES`."""
        ...

    def report_sections(
        self, seats: Any, games: Any, meta: Mapping[str, Any]
    ) -> Sequence[ReportSection]:
        """The game's own report sections (after the shared win-rate sections, or in their
        place where its :class:`ReportLayout` says ``own_win_rates``).

        ``meta`` is the run's ``run.json`` with ``run_dir`` (the run folder, for results
        that other commands attached to it) added when the report reads a folder."""
        ...


@dataclass(frozen=True)
class PolicyParam:
    """A numeric parameter of a policy spec that ``bnb tune policy`` may search (the
    ``policy_params`` hook): its start value, the range the game allows (``-inf``/``inf``
    for no bound) and whether it is a whole number (searched as an integer)."""

    name: str
    value: float
    lo: float = float("-inf")
    hi: float = float("inf")
    integer: bool = False


def describe(game: Any, config: Any) -> str:
    """The game's words for ``config``'s setting (its optional ``describe(config)``, e.g.
    "3 players, pets wolf,cat,fox, standard"), else its player count."""
    own = getattr(game, "describe", None)
    return str(own(config)) if callable(own) else f"{config.n_players} players"


@dataclass(frozen=True)
class CommandOutput:
    """What a game's command hook (:data:`HOOKS`) gives the command to print.

    ``text``: the whole of stdout; with ``--json`` the command prints ``payload`` (a JSON-ready
    object) instead, or ``text`` where ``payload`` is None (a game that lays out its JSON
    itself). ``notes``: lines for stderr, printed first (e.g. where a picture went).
    """

    text: str = ""
    payload: Any = None
    notes: tuple[str, ...] = ()


#: The optional hooks a game may offer, by name, with what the shared commands do with them.
#: A game that lacks one is told so by the command in one line (exit code 2). Each is a
#: method of the game object; none takes or returns click or pandas types.
#:
#: * ``readings(name=None) -> Sequence[reading]``: its rule readings (``bnb readings``), all
#:   of them or the one called ``name`` (BnbError naming the known ones). A reading has
#:   ``name``, ``rule``, ``summary``, ``values`` (value -> meaning), ``default``,
#:   ``why_default``, ``per_player`` and ``to_dict()``.
#: * ``parse_readings(assignments, aliases) -> dict[str, str]``: the readings a command was
#:   given: ``NAME=VALUE`` texts (``--reading``) and alias flags (``{"--variant": value or
#:   None}``); BnbError on a bad name or value, or a flag that contradicts a ``--reading``.
#: * ``policy_names() -> Sequence[str]``: policy names to offer in shell completion.
#: * ``policy_plugins() -> Sequence[str]``: installed policy plugins, which ``bnb warmup``
#:   compiles by playing one game of ``make_config(players=2, policies=[name,
#:   default_policy])`` in a child process.
#: * ``policy_labels(specs, *, distinct=None) -> list[str]``: the label of each policy spec,
#:   checked before anything plays (BnbError on a spec the game does not know; with
#:   ``distinct``, the command's name, also on one spec listed twice however written).
#: * ``component_tables(components) -> Sequence[str]``: the readable tables of ``bnb
#:   components show`` (lines; its estimates marked).
#: * ``odds(components, options) -> CommandOutput``: exact odds (``bnb odds``; ``options``
#:   holds the command's options by name, e.g. ``pile``, ``hearts``, ``mob``, ``simulate``,
#:   ``seed``, ``as_json``, and the game's own options of ``odds``).
#: * ``play_transcript(components, options) -> CommandOutput``: one game played and told turn
#:   by turn (``bnb play``; ``options``: ``seed``, ``players``, ``policies``,
#:   ``game_index``, ``readings`` (parsed by ``parse_readings``), ``picture``, ``as_json``,
#:   ``on_interrupt``, the game's own options of ``play`` by name, and ``defaults``: the
#:   names of the options left at their default).
#: * ``train(components, options) -> CommandOutput``: train a model of a policy (``bnb
#:   train``; ``options``: the command's budget and field, ``out``, ``checkpoint``,
#:   ``resume``, ``threads``, ``dask``, ``progress`` (called with a dict per step; a
#:   ``"stage": "check"`` step may name its opponent in ``against``), ``readings``,
#:   ``defaults`` and the game's own options of ``train``). Bad input is a one-line error
#:   before anything plays; Ctrl-C raises KeyboardInterrupt with the finished steps in the
#:   checkpoint.
#: * ``show_model(file) -> CommandOutput``: what a trained model values (``bnb train show``).
#: * ``bench_steps(quick=False, repeats=3) -> Sequence[(key, status, measure)]``: the game's
#:   own speed checks in ``bnb bench``: ``measure()`` returns a JSON-ready dict that the
#:   report keeps under ``key``; ``status`` is the progress line shown while it runs.
#: * ``bench_plan(components) -> BenchPlan``: what ``bnb bench --game NAME`` measures of a
#:   game without ``bench_steps`` (:class:`BenchPlan`: policies, player counts, the heading,
#:   the readings in effect); without it, its default policy at its default player count.
#: * ``play_arrays(config, start, n, threads)``: games ``start .. start + n - 1`` of ``config``
#:   played by its batch kernel alone, no rows built (``bnb bench`` times it; without it,
#:   ``play_block``, rows included).
#: * ``compile_jobs() -> Sequence[Job]``: its kernels as ``bnb_sim.precompile.Job`` objects
#:   (``bnb warmup`` compiles them in parallel processes). The first job is the kernel a run
#:   plays: the shared warm-up before a run (:func:`bnb_sim.feedback.warm_game`) compiles or
#:   loads it, and the jobs it comes after, in the process that plays.
#: * ``policy_params(spec) -> (family, Sequence[PolicyParam])``: the numeric parameters of a
#:   policy spec that ``bnb tune policy`` may search (their start values as the spec gives
#:   them, the range each may take, whether it is a whole number), and the family that
#:   ``policy_spec`` writes them back into; BnbError for a spec with none.
#: * ``policy_spec(family, values) -> str``: the spec of ``family`` with the parameters
#:   ``values`` (name -> number; every parameter of ``policy_params``): what ``bnb tune
#:   policy`` plays for a candidate and writes as its answer, so it must parse as the game's
#:   ``make_config`` reads it.
#: * ``ladder_rungs() -> Sequence[str]``: the policy specs of ``bnb ladder``'s default rungs,
#:   weakest first (without it the user names them with ``--rungs``).
#: * ``run_summary(summary, config) -> CommandOutput``: what ``bnb simulate`` prints for a
#:   finished run (``summary``: its :class:`~bnb_sim.runner.run_summary.RunSummary`, with the
#:   win rate of each policy label; ``payload`` is the ``--json`` object). Without it, the
#:   shared summary: the ``run_headline(config, games)`` (else the title, games, players and
#:   policies), a cooperative game's team win rate, time and speed, and the run folder; as
#:   JSON the RunSummary without the per-label rates, with ``rows_per_game`` and a cooperative
#:   game's ``win_rate``.
HOOKS: tuple[str, ...] = (
    "readings",
    "parse_readings",
    "policy_names",
    "policy_plugins",
    "policy_labels",
    "component_tables",
    "odds",
    "play_transcript",
    "train",
    "show_model",
    "bench_steps",
    "bench_plan",
    "play_arrays",
    "compile_jobs",
    "policy_params",
    "policy_spec",
    "ladder_rungs",
    "run_summary",
)


#: The run hooks: what the runner, the studies and the step API ask of a game that serves
#: them with code of its own (the built-in games). Shared code asks by the entry's name
#: (:meth:`bnb_sim.games.GameSpec.entry`, :func:`bnb_sim.games.entry_of_config`); this maps
#: it to the attribute of the game object (another name where the protocol's method of the
#: entry's name takes other arguments: ``play_block`` and ``new_game`` take the config of
#: ``make_config``). Every one is optional, and imported only when it is used:
#:
#: * ``load_components(paths=None, ...)``: its components (the protocol's method; a game may
#:   add keywords, e.g. ``expansion`` for ``--expansion``).
#: * ``columns(config=None)``: the protocol's ``(seat_columns, game_columns)``.
#: * ``run_block(config, start, n, threads=None) -> (seats, games)``: ``play_block`` of a
#:   *run config* (what ``create_config`` and ``dask_config`` return, the config the runner
#:   and its Dask workers hold); without it (a game served only by the protocol) the
#:   protocol's ``play_block``.
#: * ``new_game_from_values(seed=0, game_index=0, players=None, policies=(), **options)``: a
#:   step-by-step game from user values (``bnb_sim.new_game(game=NAME)``); without it, the
#:   protocol's ``new_game`` of ``make_config``'s config.
#: * ``create_config(players, policies, *, seed=, components=, readings=, ...)``: a run
#:   config from user values (``bnb simulate``, ``bnb bench``).
#: * ``play_arrays(config, start, n, threads=None)``: the batch kernel's raw output, without
#:   DataFrames (warm-ups, ``bnb bench``).
#: * ``games_per_thread(config) -> int``: games per thread in a default chunk of a run
#:   (about 0.5-1 s of work).
#: * ``dask_payload(config) -> dict`` and ``dask_config(payload) -> config``: a run config
#:   as plain data for a Dask worker, and rebuilt there.
#: * ``warm_engine(players, components=None, *, notice=True, config=None) -> float``: compile
#:   or load the kernels a run needs before it plays; the seconds it took.
#: * ``sensitivity_setup(components=None, *, players=, policies=, seed=, ...)``: a
#:   :class:`bnb_sim.runner.sensitivity.Setup` (``bnb sensitivity``).
#: * ``team_play(*, players=, seed=, components=, **options)``: a cooperative game's setting
#:   of ``bnb ladder`` (:mod:`bnb_sim.runner.team_ladder` says what it returns).
#: * ``value_study(options, *, players=, games=, seed=, components=, ...)``: the worth of the
#:   game's own options (``bnb value``, ``[[value]]`` items; a
#:   :class:`bnb_sim.analysis.value.ValueResult`); with ``plan_only=True`` it checks every
#:   argument and returns the number of games it would play, playing none.
#: * attributes (:data:`ENTRY_ATTRIBUTES`, imported when read): ``luck`` (a module: its
#:   chance sources and how a luck design plays, :mod:`bnb_sim.runner.luck_play`), ``tune``
#:   (a module: what ``bnb tune`` needs, listed in
#:   :mod:`bnb_sim.games.builders_biomes.tune_hooks`), ``studies`` (a module: what the
#:   runner's designed studies need, listed in
#:   :mod:`bnb_sim.games.builders_biomes.study_hooks`) and ``robustness`` (an object: its
#:   rungs, how a rung plays, its findings; :mod:`bnb_sim.runner.robustness_play`; it also
#:   gives the game ``[[robustness]]`` items, :mod:`bnb_sim.analysis.robustness_item_parse`).
ENTRIES: dict[str, str] = {
    "load_components": "load_components",
    "columns": "columns",
    "play_block": "run_block",
    "new_game": "new_game_from_values",
    "create_config": "create_config",
    "play_arrays": "play_arrays",
    "games_per_thread": "games_per_thread",
    "dask_payload": "dask_payload",
    "dask_config": "dask_config",
    "warm_engine": "warm_engine",
    "sensitivity_setup": "sensitivity_setup",
    "team_play": "team_play",
    "value_study": "value_study",
    "luck": "luck",
    "tune": "tune",
    "studies": "studies",
    "robustness": "robustness",
}
#: The run hooks that are attributes (a module or an object), not methods.
ENTRY_ATTRIBUTES: tuple[str, ...] = ("luck", "tune", "studies", "robustness")


def entry_hook(game: Any, what: str) -> Any:
    """The run hook of entry ``what`` (a key of :data:`ENTRIES`) on ``game``, or None."""
    if what not in ENTRIES:
        return None
    return getattr(game, ENTRIES[what], None)


def hook(game: Any, name: str) -> Callable[..., Any] | None:
    """The game's optional hook ``name`` (one of :data:`HOOKS`), or None if it lacks it."""
    if name not in HOOKS:
        raise ValueError(f"unknown hook {name!r} (hooks: {', '.join(HOOKS)})")
    found = getattr(game, name, None)
    return found if callable(found) else None


def has_step_api(game: Any) -> bool:
    """Whether ``game`` offers a step-by-step ``Game`` (``new_game(config, game_index)``)."""
    return callable(getattr(game, "new_game", None))


def odds_of(game: Any) -> Callable[..., Any] | None:
    """The game's exact-odds hook (``odds`` of :data:`HOOKS`), or None (optional)."""
    return hook(game, "odds")


def check_game(game: Any) -> None:
    """ValueError naming what ``game`` lacks or gets wrong (called on registration)."""
    missing = [
        name
        for name in ("name", "title", "aliases", "outcome", "options", "default_policy")
        if not hasattr(game, name)
    ]
    missing += [
        name
        for name in ("load_components", "make_config", "play_block", "columns", "report_sections")
        if not callable(getattr(game, name, None))
    ]
    if missing:
        raise ValueError(f"game {getattr(game, 'name', game)!r} lacks {', '.join(missing)}")
    wrong = [n for n in HOOKS if getattr(game, n, None) is not None and hook(game, n) is None]
    methods = [n for what, n in ENTRIES.items() if what not in ENTRY_ATTRIBUTES]
    wrong += [
        n for n in methods if getattr(game, n, None) is not None and not callable(getattr(game, n))
    ]
    if wrong:
        raise ValueError(f"game {game.name!r}: hooks that are not callable: {', '.join(wrong)}")
    if game.outcome not in OUTCOMES:
        raise ValueError(f"game {game.name!r}: outcome must be one of {OUTCOMES}")
    for option in game.options:
        if not isinstance(option, OptionSpec):
            raise ValueError(f"game {game.name!r}: options must be OptionSpec objects")
    _check_reading_flags(game)


def _check_reading_flags(game: Any) -> None:
    """A game's ``reading_flags``: OptionSpec data naming a reading, read by its
    ``parse_readings`` hook (a game that sets its readings on its components with
    ``with_readings`` reads ``--reading`` items only)."""
    flags = getattr(game, "reading_flags", ())
    if any(not isinstance(o, OptionSpec) or not o.reading for o in flags):
        raise ValueError(f"game {game.name!r}: reading_flags must be OptionSpec objects "
                         "with reading=NAME")  # fmt: skip
    if flags and (hook(game, "parse_readings") is None
                  or callable(getattr(game, "with_readings", None))):  # fmt: skip
        raise ValueError(f"game {game.name!r}: reading flags need the parse_readings hook "
                         "(and no with_readings)")  # fmt: skip
