"""``bnb sweep --game hotv --set PATH=V1,V2``: the same game indices under each component
variant (:func:`sweep_variants`, :func:`play_sweep`), with win rates and paired differences
against the component file (:func:`sweep_table`).
"""

from __future__ import annotations

from pathlib import Path

import click

from bnb_sim.errors import SpecError
from bnb_sim.games.heroes_village.cli_common import _components


def _set_path(data: dict, path: str, value) -> None:
    """Set a component value by dotted path: a list item by index, a mob by its name
    (``mobs.zombie.count``, the keys of ``bnb components show --game hotv``)."""
    from bnb_sim.games.heroes_village.ranges import set_value

    try:
        set_value(data, path, value)
    except KeyError:
        raise SpecError(f"--set {path}: no such component value") from None


def sweep_variants(base, parsed, zip_mode=False, origin="--set"):
    """``[(label, components)]``: the component file first (label ``"components"``), then
    every combination (or, with ``zip_mode``, every position) of ``parsed``'s values, a list
    of ``(path, [values])``; the lists are checked as the first game's sweep checks them
    (a zip of unequal lengths, a path set twice, too many variants: one line).

    A combination equal to the component file's own values is the baseline, not a second
    variant: it is played once, first, labelled ``"PATH=V (components)"``."""
    import copy

    from bnb_sim.analysis.sweep_variants import variant_combinations
    from bnb_sim.games.heroes_village.components import components_from_dict

    combos = variant_combinations(parsed, "zip" if zip_mode else "grid", origin)
    raw = {k: v for k, v in base.data.items() if not k.startswith("_")}
    variants = [("components", base)]
    for combo in combos:
        data = copy.deepcopy(raw)
        for (path, _), value in zip(parsed, combo, strict=True):
            _set_path(data, path, value)
        label = ", ".join(f"{path}={value}" for (path, _), value in zip(parsed, combo, strict=True))
        if data == raw and variants[0][0] == "components":  # the file's values: the baseline
            variants[0] = (f"{label} (components)", base)
            continue
        variants.append((label, components_from_dict(data, f"{origin} {label}")))
    return variants


def play_sweep(variants, *, games, players, specs, pets=None, difficulty="standard",
               buildings=None, seed=0, threads=None, say=None) -> dict:  # fmt: skip
    """``{label: won (bool array)}``: the same game indices ``0..games-1`` under each
    variant (paired); ``say(label, rate)`` after each."""
    from bnb_sim.analysis.stats import Rate
    from bnb_sim.games.heroes_village.runner import make_config, play_block

    won = {}
    for label, comps in variants:
        cfg = make_config(comps, players, specs, pets, difficulty or "standard", buildings, seed)
        won[label] = play_block(cfg, 0, games, threads)[1]["won"].to_numpy()
        if say is not None:
            say(label, Rate.from_bools(won[label]))
    return won


def sweep_table(won: dict):
    """The sweep's table: each variant's win rate and its paired difference against the
    component file (the first variant)."""
    import pandas as pd

    from bnb_sim.analysis.stats import Rate, paired_difference
    from bnb_sim.analysis.tables import fmt_rate, fmt_signed_pp

    rows = []
    first = next(iter(won))  # the component file's values (sweep_variants puts them first)
    reference = won[first]
    for label, values in won.items():
        r = Rate.from_bools(values)
        d = paired_difference(values.astype(float), reference.astype(float))
        rows.append({"variant": label, "games": f"{r.n:,}",
                     "win rate [95% CI]": fmt_rate(r.rate, r.lo, r.hi),
                     "vs components, paired [95% CI]": "(reference)" if label == first
                     else fmt_signed_pp(d["mean_diff"], d["lo"], d["hi"])})  # fmt: skip
    return pd.DataFrame(rows)


def sweep(
    *, sets, zip_mode=False, games=2000, players=4, policies="team", components=None, seed=0,
    threads=None, quiet=False, out=None, pets=None, difficulty=None, buildings=None,
    yes=False, reading=(), defaults=frozenset(), **_ignored,
) -> None:  # fmt: skip
    """``bnb sweep --game hotv --set PATH=V1,V2``: the same game indices under each
    component variant; win rates and paired differences against the component file."""
    from bnb_sim.analysis.estimated import add_estimated_warning, estimates_meta
    from bnb_sim.analysis.report import ReportBuilder, Section
    from bnb_sim.analysis.stats import Rate
    from bnb_sim.analysis.sweep_variants import parse_set_option

    if pets == "all":
        raise SpecError("sweep --game hotv: give one pet team")
    base = _components(components, reading)
    if "policies" in defaults:
        policies = "team"
    if isinstance(policies, str):
        policies = policies.split(",")
    specs = [p.strip() for p in policies if p.strip()]
    parsed = [parse_set_option(x) for x in sets]
    variants = sweep_variants(base, parsed, zip_mode)
    from bnb_sim.cli.run_cmd import prepare_out
    from bnb_sim.runner.budget import confirm_games

    confirm_games(len(variants) * games, "sweep --game hotv", yes=yes)
    if out is not None:
        prepare_out(Path(out))  # a non-empty folder is refused before any game is played
    won = play_sweep(
        variants, games=games, players=players, specs=specs, pets=pets,
        difficulty=difficulty, buildings=buildings, seed=seed, threads=threads,
        say=None if quiet else lambda label, rate: click.echo(f"  {label}: {rate}", err=True),
    )  # fmt: skip
    table = sweep_table(won)
    click.echo(table.to_string(index=False))
    if out is not None:
        section = Section("Component sweep")
        section.text(
            f"Heroes of the Village, {players} players, policies {', '.join(specs)}, "
            f"{games:,} games per variant on the same game indices (paired)."
        )
        section.table(table)
        add_estimated_warning(section, estimates_meta(base, [path for path, _ in parsed]))
        section.summary["variants"] = {
            label: Rate.from_bools(values).to_dict() for label, values in won.items()
        }
        builder = ReportBuilder("Heroes of the Village: component sweep")
        builder.add(section)
        written = builder.write(out)
        click.echo(f"report: {written['html']}")
