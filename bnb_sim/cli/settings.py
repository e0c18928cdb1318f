"""Option defaults from environment variables and a config file, the same way for every command.

Where a value comes from, first match wins (click's own order): the command line, an
environment variable, the config file, the built-in default.

* Environment: every option of every command reads ``BNB_<COMMAND>_<OPTION>``, spelled like
  the option (``--chunk-size`` of ``bnb simulate`` is ``BNB_SIMULATE_CHUNK_SIZE``; a
  sub-command adds its name: ``BNB_COMPONENTS_SHOW_JSON``). The options many commands share
  also read one name for all of them: ``BNB_THREADS``, ``BNB_QUIET`` (and the group's
  ``BNB_PLUGIN_DEBUG``, ``BNB_CONFIG``). A flag takes 1/0, true/false, yes/no, on/off.
* Config file: ``--config FILE`` (or ``BNB_CONFIG``), else
  ``$XDG_CONFIG_HOME/bnb-sim/config.toml`` (``~/.config/bnb-sim/config.toml``) when it
  exists; ``--no-config`` (``BNB_NO_CONFIG=1``) ignores it. A ``[defaults]`` table applies to
  every command that has the option, a ``[COMMAND]`` table (``[components.show]`` for a
  sub-command) to that command; keys are option names (``chunk-size`` or ``chunk_size``).
  Every key is checked against the command it names: an unknown command or option, or a value
  of the wrong type, is one line naming the file, the table and the key.

Nothing here imports more than click and the standard library (``bnb --help`` stays cheap).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from bnb_sim.errors import BnbError

ENV_PREFIX = "BNB"
#: Options that read one environment variable for every command that has them.
SHARED_ENV = ("threads", "quiet")
#: The config table whose keys apply to every command that has the option.
DEFAULTS_TABLE = "defaults"


class ConfigError(BnbError):
    """A config file that cannot be read or names an unknown command, option or bad value."""


def default_config_path() -> Path:
    """``$XDG_CONFIG_HOME/bnb-sim/config.toml``, or ``~/.config/bnb-sim/config.toml``."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "bnb-sim" / "config.toml"


def option_name(param: click.Parameter) -> str:
    """The option as users spell it, without dashes: ``--chunk-size`` -> ``chunk-size``."""
    longs = [o for o in param.opts if o.startswith("--")]
    return (longs[0] if longs else param.opts[0]).lstrip("-")


def _env_name(*words: str) -> str:
    return "_".join([ENV_PREFIX, *(w.upper().replace("-", "_") for w in words)])


def attach_envvars(command: click.Command, path: tuple[str, ...]) -> None:
    """Give every option of ``command`` (and of its sub-commands) its ``BNB_...`` names.

    An option that already names its own variable keeps it."""
    for param in command.params:
        if not isinstance(param, click.Option) or param.envvar is not None:
            continue
        if param.hidden or "help" == param.name:
            continue
        name = option_name(param)
        names = [_env_name(*path, name)]
        if name in SHARED_ENV:
            names.append(_env_name(name))
        param.envvar = names
    if isinstance(command, click.Group):
        for sub_name, sub in getattr(command, "commands", {}).items():
            attach_envvars(sub, (*path, sub_name))


# --------------------------------------------------------------------------------------
# the config file


#: A larger config file is refused (a real one is a few hundred bytes).
MAX_CONFIG_BYTES = 1_000_000


def read_config(path: Path, explicit: bool) -> dict[str, Any]:
    """The parsed TOML file; ``{}`` when no file was named and the default one is absent.

    Only a regular file of at most 1 MB is read (a FIFO or ``/dev/zero`` would hang or fill
    memory), and absurd nesting is refused: each is one line naming the file."""
    from bnb_sim.safe_io import UnreadableFile, load_toml

    try:
        return load_toml(path, MAX_CONFIG_BYTES)
    except UnreadableFile as exc:
        if exc.reason == "file not found" and not explicit:
            return {}
        raise ConfigError(f"config: {path}: {exc.reason}") from None


def _hint(word: str, known: list[str]) -> str:
    close = difflib.get_close_matches(word, known, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _options(command: click.Command) -> dict[str, click.Option]:
    """Option spellings accepted as config keys -> the option (``chunk-size``, ``chunk_size``)."""
    found: dict[str, click.Option] = {}
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden and param.name != "help":
            name = option_name(param)
            found[name] = param
            found[name.replace("-", "_")] = param
    return found


def _cast(path: Path, table: str, key: str, param: click.Option, value: Any, cmd: click.Command):
    """The value checked by the option's own type, so a bad one names the file and key."""
    where = f"config: {path}: [{table}] {key}"
    if param.multiple and not isinstance(value, list):
        raise ConfigError(f"{where}: give a list, e.g. {key} = [...]")
    items = value if param.multiple else [value]
    for item in items:
        problem = _toml_type_problem(param, item)
        if problem is not None:
            raise ConfigError(f"{where}: {problem}")
    try:
        with click.Context(cmd) as ctx:
            param.type_cast_value(ctx, value)
    except click.BadParameter as exc:
        raise ConfigError(f"{where}: {exc.message}") from None
    except (TypeError, ValueError) as exc:  # a value click's type cannot take at all
        raise ConfigError(f"{where}: {exc}") from None
    return value


def _toml_type_problem(param: click.Option, value: Any) -> str | None:
    """What is wrong with the TOML type of one value of ``param``, or None. Click's own types
    would take ``true`` as 1 and ``2.5`` as 2 for an integer; a file gets the type it means."""
    kind = param.type
    if param.nargs != 1 and not param.multiple:  # a pair such as --sprt A B
        ok = isinstance(value, list) and len(value) == param.nargs
        return None if ok else f"give a list of {param.nargs} values, got {_toml_name(value)}"
    if isinstance(value, dict | list):
        return f"must be a single value, got {_toml_name(value)}"
    if param.is_flag or isinstance(kind, click.types.BoolParamType):
        ok = isinstance(value, bool | str)
        return None if ok else f"must be true or false, got {_toml_name(value)}"
    if isinstance(value, bool):
        return f"must be {_expected(kind)}, got a boolean"
    if isinstance(kind, click.types.IntParamType) and isinstance(value, float):
        return f"must be an integer, got {value!r}"
    return None


def _expected(kind: click.ParamType) -> str:
    if isinstance(kind, click.types.IntParamType):
        return "an integer"
    if isinstance(kind, click.types.FloatParamType):
        return "a number"
    return "text"


def _toml_name(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, bool):
        return "a boolean"
    return repr(value)


def defaults_for(
    command: click.Command,
    table: Mapping[str, Any],
    shared: Mapping[str, Any],
    path: Path,
    where: str,
) -> dict[str, Any]:
    """The ``default_map`` of ``command`` from its config ``table`` and the ``[defaults]``:
    checked, keyed by parameter name; for a group, one nested map per sub-command."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"config: {path}: [{where}] must be a table")
    options = _options(command)
    subs = getattr(command, "commands", {}) if isinstance(command, click.Group) else {}
    result: dict[str, Any] = {}
    for key, value in shared.items():
        if key in options:
            result[options[key].name] = _cast(
                path, DEFAULTS_TABLE, key, options[key], value, command
            )
    for key, value in table.items():
        if key in subs:
            result[key] = defaults_for(subs[key], value, shared, path, f"{where}.{key}")
        elif key in options:
            result[options[key].name] = _cast(path, where, key, options[key], value, command)
        else:
            known = sorted({option_name(p) for p in options.values()} | set(subs))
            raise ConfigError(
                f"config: {path}: [{where}] {key}: bnb {where.replace('.', ' ')} has no such "
                f"option{_hint(key, known)}"
            )
    for name, sub in subs.items():  # [defaults] reach the sub-commands too
        if name not in result and shared:
            result[name] = defaults_for(sub, {}, shared, path, f"{where}.{name}")
    return result


def check_shared(shared: Any, path: Path, every_option: set[str]) -> dict[str, Any]:
    """The ``[defaults]`` table: a table whose keys some command has."""
    if not isinstance(shared, Mapping):
        raise ConfigError(f"config: {path}: [{DEFAULTS_TABLE}] must be a table")
    for key in shared:
        if key not in every_option:
            raise ConfigError(
                f"config: {path}: [{DEFAULTS_TABLE}] {key}: no command has this option"
                f"{_hint(key, sorted(every_option))}"
            )
    return dict(shared)


def all_options(commands: Mapping[str, click.Command]) -> set[str]:
    names: set[str] = set()
    for command in commands.values():
        names |= set(_options(command))
        if isinstance(command, click.Group):
            names |= all_options(getattr(command, "commands", {}))
    return names


def load_defaults(ctx: click.Context, config_file: Path | None) -> dict[str, Any]:
    """The group's ``default_map`` from the config file (``{}`` without one), every table
    checked against its command (see the module docstring)."""
    group = ctx.command
    assert isinstance(group, click.Group)
    path = config_file if config_file is not None else default_config_path()
    data = read_config(path, explicit=config_file is not None)
    if not data:
        return {}
    names = group.list_commands(ctx)
    commands = {}
    for name in data:
        if name == DEFAULTS_TABLE:
            continue
        if name not in names:
            raise ConfigError(
                f"config: {path}: [{name}]: bnb has no such command{_hint(name, names)}"
            )
        commands[name] = group.get_command(ctx, name)
    shared: dict[str, Any] = {}
    if DEFAULTS_TABLE in data:
        every = {n: group.get_command(ctx, n) for n in names}
        shared = check_shared(data[DEFAULTS_TABLE], path, all_options(every))
        commands = every
    return {
        name: defaults_for(command, data.get(name, {}), shared, path, name)
        for name, command in commands.items()
    }
