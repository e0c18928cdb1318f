"""Component variants of Heroes of the Village: the component file with values set by
dotted path (``mobs.zombie.count``), as ``bnb sweep --game hotv --set PATH=V1,V2`` (through
the protocol's ``sweep_variants``) and ``[[sweep]]`` items (the shared protocol items) play
them.
"""

from __future__ import annotations

from bnb_sim.errors import SpecError


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
