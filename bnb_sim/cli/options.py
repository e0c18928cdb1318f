"""Options shared by several commands.

``@out_option(default, help)`` adds ``--out/-o FOLDER`` (a ``Path``) and ``--force/-f`` for the
commands that write a report folder; :func:`refuse_overwrite` is the one rule for all of them: a
folder that exists and is not empty is replaced only with ``--force`` (the same rule as
``bnb simulate`` and ``bnb export``).

``@policy_options(...)`` adds a repeatable ``--policy SPEC`` with the comma form
``--policies A,B`` as an alias, so every command names policies the same way.

``@json_option`` adds ``--json``; :func:`echo_report` prints the written report's paths, or
with ``--json`` one JSON object (the paths and the report's ``summary.json``) as all of stdout.

``@components_option`` adds ``--components FILE`` (repeatable: files apply in order over the
defaults) and passes the game's loaded component data (its ``load_components`` entry) to the
command as ``components``. Nothing is imported until the command runs, so ``bnb --help`` stays
cheap; a bad file raises :class:`~bnb_sim.errors.ComponentError`, which ``bnb_sim.cli.main``
prints as one line with exit code 2.
"""

from __future__ import annotations

import functools
import inspect
import json
from pathlib import Path

import click

from bnb_sim import jsonsafe
from bnb_sim.cli.out_folder import _FORCE, refuse_overwrite  # noqa: F401 (re-exported)
from bnb_sim.errors import BnbError

_EXPANSION = "bnb.expansion"


def _load(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]):
    if ctx.resilient_parsing:  # shell completion: do not read files
        return None
    game = ctx.meta.get("bnb.game")  # set by an eager --game option
    expansion = ctx.meta.get(_EXPANSION)  # set by the eager --expansion option
    if game is None:
        from bnb_sim.games import get_game

        game = get_game(None)  # the default game
    load_components = game.entry("load_components")
    if expansion is None:
        return load_components(list(value))
    if "expansion" not in inspect.signature(load_components).parameters:
        raise BnbError(f"--expansion {expansion} is not an expansion of {game.title}")
    return load_components(list(value), expansion=expansion)


def _remember_expansion(ctx: click.Context, param: click.Parameter, value: str | None):
    ctx.meta[_EXPANSION] = value
    return value


def components_option(func):
    """Decorator: ``--components FILE`` -> a ``components`` argument (a Components object),
    with ``--expansion NAME`` (read first: the expansion's data goes under the files)."""
    func = click.option(
        "--components",
        "components",
        metavar="FILE",
        multiple=True,
        callback=_load,
        help="Component data (TOML): a complete file, or an override of the defaults "
        "(repeat to stack overrides). Default: the built-in data with its estimates.",
    )(func)
    return expansion_option(func)


def expansion_option(func):
    """Decorator: ``--expansion NAME``, read before ``--components`` (which loads the
    expansion's data under the given files); commands see it through the components. Its
    choices are the registered games' ``expansions`` (none: no option)."""
    from bnb_sim.cli.protocol_cmds import protocol_of
    from bnb_sim.games import all_specs

    offered: dict[str, str] = {}
    for spec in all_specs():
        offered.update(getattr(protocol_of(spec), "expansions", {}))
    if not offered:
        return func
    return click.option(
        "--expansion",
        type=click.Choice(list(offered)),
        default=None,
        is_eager=True,
        expose_value=False,
        callback=_remember_expansion,
        help="Play with an expansion: "
        + "; ".join(f"{name} ({text})" for name, text in offered.items())
        + ".",
    )(func)


class OutPath(click.Path):
    """A folder path that must not be empty: ``--out ''`` would silently mean "."."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("must not be empty", param, ctx)
        return super().convert(value, param, ctx)


def _remember_force(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    ctx.meta[_FORCE] = value
    return value


def out_option(default: str | None, help: str):
    """Decorator: ``--out/-o FOLDER`` -> an ``out`` argument (a ``Path``, or None), and
    ``--force/-f`` (read by :func:`refuse_overwrite`)."""

    def decorate(func):
        func = click.option(
            "--force",
            "-f",
            is_flag=True,
            expose_value=False,
            callback=_remember_force,
            help="Replace the report folder if it exists and is not empty.",
        )(func)
        return click.option(
            "--out",
            "-o",
            type=OutPath(path_type=Path),
            default=None if default is None else Path(default),
            show_default=default is not None,
            help=help,
        )(func)

    return decorate


def policy_options(
    default: tuple[str, ...] | None = None,
    help: str = "A player's policy; repeat per player.",
    flag: str = "--policy",
    alias: str = "--policies",
    dest: str = "policies",
    metavar: str = "SPEC",
):
    """Decorator: a repeatable ``flag`` and a comma-separated ``alias`` -> one ``dest``
    argument, a list of policy specs (``default`` when neither is given). Giving both is an
    error: their order would be ambiguous."""

    def decorate(func):
        one, many = f"_{dest}_one", f"_{dest}_many"

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            repeated, listed = kwargs.pop(one), kwargs.pop(many)
            if repeated and listed:
                raise BnbError(f"give {flag} (repeatable) or {alias}, not both")
            from bnb_sim.analysis.tournament_schedule import split_policy_list

            if listed:
                kwargs[dest] = split_policy_list(listed)
            elif repeated:
                kwargs[dest] = list(repeated)
            else:
                kwargs[dest] = None if default is None else list(default)
            return func(*args, **kwargs)

        wrapper = click.option(
            alias,
            many,
            default=None,
            metavar="A,B,...",
            help=f"The same as {flag}, comma-separated.",
            shell_complete=complete_policy,
        )(wrapper)
        shown = f" Default: {' '.join(f'{flag} {p}' for p in default)}." if default else ""
        return click.option(
            flag,
            one,
            multiple=True,
            metavar=metavar,
            help=help + shown,
            shell_complete=complete_policy,
        )(wrapper)

    return decorate


def complete_policy(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """Shell completion of a policy spec: the game's policy names (its ``policy_names``
    hook: for the first game the built-in policies and installed plugins)."""
    from bnb_sim.cli.game_hooks import protocol_game
    from bnb_sim.core.protocol import hook

    policy_names = hook(protocol_game(ctx.meta.get("bnb.game")), "policy_names")
    names = policy_names() if policy_names is not None else []
    return [name for name in names if name.startswith(incomplete)]


def json_option(func):
    """Decorator: ``--json`` -> an ``as_json`` argument."""
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        help="Print one JSON object on stdout (progress still goes to stderr).",
    )(func)


def echo_report(written: dict, as_json: bool = False, **extra) -> None:
    """Say where a report was written; with ``as_json``, print
    ``{"report": {paths}, **extra, "summary": <summary.json>}`` as the whole of stdout."""
    if not as_json:
        click.echo(f"report: {written['html']}")
        click.echo(
            f"also:   {written['markdown']}, {written['summary']}, "
            f"{len(written['figures'])} PNG figures in {written['dir']}"
        )
        return
    paths = {k: str(written[k]) for k in ("dir", "html", "markdown", "summary")}
    paths["figures"] = [str(p) for p in written["figures"]]
    summary = json.loads(Path(written["summary"]).read_text(encoding="utf-8"))
    click.echo(jsonsafe.dumps({"report": paths, **extra, "summary": summary}, indent=2))


def write_template(name: str, out: Path | None) -> None:
    """Print the bundled template ``bnb_sim/data/templates/NAME`` on stdout, or write it to
    ``out`` (an existing file is replaced only with ``--force``)."""
    from importlib import resources

    text = resources.files("bnb_sim").joinpath(f"data/templates/{name}").read_text("utf-8")
    if out is None:
        click.echo(text, nl=False)
        return
    ctx = click.get_current_context(silent=True)
    if out.exists() and not (ctx and ctx.meta.get(_FORCE)):
        raise BnbError(f"{out}: exists (use --force to replace it)")
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise BnbError(f"{out}: cannot write the file ({exc.strerror or exc})") from None
    click.echo(f"wrote {out}", err=True)


def readings_option(func):
    """Decorator: ``--reading NAME=VALUE`` (repeatable) -> a ``reading`` tuple of strings."""
    return click.option(
        "--reading",
        "reading",
        metavar="NAME=VALUE",
        multiple=True,
        help="A rule reading, e.g. --reading hunger=one-by-one (repeatable; `bnb readings` "
        "lists every reading, its values and its default).",
    )(func)


def cli_readings(reading: tuple[str, ...], game=None, **aliases) -> dict[str, str]:
    """The readings a command was given: ``--reading`` assignments plus the alias flags
    (``aliases``: flag label such as ``--variant`` -> value or None), read by the
    ``parse_readings`` hook of ``game`` (a protocol object; None: the default game). A flag
    that contradicts a ``--reading`` of the same name is a one-line error."""
    from bnb_sim.cli.game_hooks import need_hook, protocol_game

    if not reading and all(v is None for v in aliases.values()) and game is not None:
        from bnb_sim.core.protocol import hook

        if hook(game, "parse_readings") is None:  # a game without readings, none given
            return {}
    parse = need_hook(game or protocol_game(None), "parse_readings", "--reading")
    return parse(tuple(reading), aliases)


def _remember_game(ctx: click.Context, param: click.Parameter, value: str | None):
    """Resolve ``--game`` early (it is eager), so ``--components`` loads that game's data."""
    if ctx.resilient_parsing:
        return value
    from bnb_sim.games import get_game

    spec = get_game(value)
    ctx.meta["bnb.game"] = spec
    return spec


def game_option(func):
    """Decorator: ``--game NAME`` -> a ``game`` argument (a ``bnb_sim.games.GameSpec``)."""
    return click.option(
        "--game",
        "game",
        metavar="NAME",
        default=None,
        is_eager=True,
        callback=_remember_game,
        help="The game: builders-biomes (default), heroes-of-the-village (alias hotv), or "
        "another registered game.",
    )(func)


def game_options(command: str):
    """Decorator: the options that registered games add to ``command``, from their
    :class:`~bnb_sim.core.protocol.OptionSpec` data: every option of a protocol-only game
    that applies to it, a built-in game's options that name it, and every game's flags that
    set one of its rule readings (``reading_flags``: ``--variant``) and name it."""

    def decorate(func):
        from bnb_sim.cli.game_hooks import protocol_game
        from bnb_sim.cli.protocol_cmds import add_named_options, add_options
        from bnb_sim.games import all_specs

        for spec in all_specs():
            if spec.protocol is not None:  # options as data (bnb_sim.core.protocol.OptionSpec)
                func = add_options(spec.protocol, command, func)
            else:
                func = add_named_options(protocol_game(spec), command, func)
        return reading_flags(command)(func)

    return decorate


def reading_flags(command: str):
    """Decorator: every registered game's flags that set one of its rule readings and name
    ``command`` (its ``reading_flags``, e.g. ``--variant``), shown under the game's name."""

    def decorate(func):
        from bnb_sim.cli.protocol_cmds import add_reading_flags, protocol_of
        from bnb_sim.games import all_specs

        for spec in all_specs():
            func = add_reading_flags(protocol_of(spec), command, func)
        return func

    return decorate


def other_game_handler(ctx: click.Context, command: str, game, **resolved) -> bool:
    """Run ``command`` with the handler of ``game`` if it declares one; True if it did.

    Options that belong only to another game are refused when they are given. The handler
    gets the command's options, and in ``defaults`` the names of those left at their default
    (:func:`command_params`).
    """
    from bnb_sim.errors import BnbError

    refuse_foreign_options(ctx, game)
    if game.protocol is not None or command in game.protocol_commands:  # the shared handlers
        from bnb_sim.cli.protocol_cmds import HANDLERS, HOOKED

        if command in HOOKED:  # the command's own code asks the game's hook (one line if none)
            return False
        handler = HANDLERS.get(command)
        if handler is None:
            raise BnbError(f"{ctx.command_path} does not serve {game.title} yet")
    else:
        handler = game.entry(command)
    if handler is None:
        return False
    params, defaults = command_params(ctx, **resolved)
    handler(**params, defaults=defaults)
    return True


def refuse_foreign_options(ctx: click.Context, game) -> None:
    """BnbError for a given option that belongs only to another game than ``game``."""
    from bnb_sim.errors import BnbError
    from bnb_sim.games import all_specs

    owners: dict[str, list[str]] = {}  # an option only other games have -> their titles
    for spec in all_specs():
        for name in spec.options:
            if spec is not game and name not in game.options:
                owners.setdefault(name, []).append(spec.title)
    for name, titles in owners.items():
        source = ctx.get_parameter_source(name) if name in ctx.params else None
        if source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
            raise BnbError(f"{_flag(ctx, name)} is an option of {' and '.join(titles)}, "
                           f"not of {game.title}")  # fmt: skip


def _flag(ctx: click.Context, name: str) -> str:
    """The flag a user typed for parameter ``name`` (``--svg`` for ``picture``)."""
    for param in ctx.command.params:
        if param.name == name and param.opts:
            return max(param.opts, key=len)
    return "--" + name.replace("_", "-")


def command_params(ctx: click.Context, **resolved) -> tuple[dict, frozenset[str]]:
    """The command's options as parsed, and the names of those left at their default.
    ``resolved`` holds options that a decorator turns into another form (``--policy`` and
    ``--policies`` into ``policies``): they replace the raw click parameters, whose names
    start with an underscore."""
    defaults = defaults_of(ctx)
    params = {name: value for name, value in ctx.params.items() if not name.startswith("_")}
    params.update(resolved)
    raw_defaults = {
        name
        for name in resolved
        if all(raw in defaults for raw in ctx.params if raw.startswith(f"_{name}_"))
    }
    return params, defaults | raw_defaults


def defaults_of(ctx: click.Context) -> frozenset[str]:
    """The names of the command's options left at their default (not given)."""
    return frozenset(
        name
        for name in ctx.params
        if (src := ctx.get_parameter_source(name)) is None or src.name in ("DEFAULT", "DEFAULT_MAP")
    )


def yes_option(func):
    """Decorator: ``--yes`` -> a ``yes`` argument (play more games than the threshold)."""
    return click.option(
        "--yes",
        is_flag=True,
        help="Play even if the command's games in all are more than 100,000,000 "
        "(counted before anything plays).",
    )(func)
