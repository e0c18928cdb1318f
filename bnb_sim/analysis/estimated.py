"""The estimated-values warning of reports that are not run reports (tournaments, sweeps,
tuning), for any game.

A run report warns when its games used estimated component values (numbers never published
for the game). Every other report that plays games rests on the same values, so it carries
the same warning. A sweep's or a tuning's own values are different: the user set them on
purpose (a house rule under test), so they are not called estimates; only the estimates they
leave in place are listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def _under(key: str, paths: Iterable[str]) -> bool:
    """Whether component key ``key`` is one of ``paths`` or inside one of them."""
    return any(key == p or key.startswith((f"{p}.", f"{p}[")) for p in paths)


def estimates_meta(components: Any, chosen: Iterable[str] = ()) -> dict:
    """``{"estimated_values", "estimated_keys", "chosen"}`` of ``components`` (either game's
    Components, or any game's data with an ``estimates()`` method; data without one marks
    no value as estimated), leaving out the values at the ``chosen`` paths (set on purpose)."""
    chosen = [str(p) for p in chosen]
    estimates = getattr(components, "estimates", None)
    rows = estimates() if callable(estimates) else ()
    keys = [str(r["key"]) for r in rows if not _under(str(r["key"]), chosen)]
    return {"estimated_values": len(keys), "estimated_keys": keys, "chosen": chosen}


def add_estimated_warning(section, info: Mapping | None, what: str = "These games") -> None:
    """The run report's estimated-values warning box in ``section`` (nothing when ``info``
    is empty or lists no estimate); ``info`` is :func:`estimates_meta`'s dict."""
    if not info or int(info.get("estimated_values") or 0) <= 0:
        return
    from bnb_sim.analysis.report_provenance import _estimated_warning

    _estimated_warning(section, {"components": info}, what)
    chosen = list(info.get("chosen") or [])
    if chosen:
        section.text(
            f"The values set on purpose ({', '.join(f'`{p}`' for p in chosen)}) are this "
            "study's settings, not estimates; the list above leaves them out."
        )
