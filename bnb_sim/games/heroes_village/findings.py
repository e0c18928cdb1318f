"""The key findings of a Heroes of the Village run report: the answer first.

A designer opens the report to learn how often the team wins and which pets to take, so the
key findings lead with the team win rate (n and its clustered 95% interval), then the best and
the worst pet team with the paired gap to the next team (named "best" or "worst" only when
that gap, and the gap to every other team, excludes 0: :mod:`bnb_sim.analysis.leaders`),
then each pet's paired effect. Everything is read from the sections' ``summary`` (built by
:mod:`bnb_sim.games.heroes_village.report`); nothing is computed twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bnb_sim.analysis.leaders import Leader
from bnb_sim.analysis.report_builder import Finding
from bnb_sim.analysis.table_format import fmt_rate, fmt_signed_pp


def _rate(row: Mapping[str, Any]) -> str:
    return fmt_rate(row["rate"], row["lo"], row["hi"])


def team_win_rate_finding(summary: Mapping[str, Any]) -> Finding | None:
    overall = summary.get("win_rate") or {}
    if overall.get("rate") is None:
        return None
    n, indices = int(overall.get("n") or 0), int(overall.get("game_indices") or 0)
    unit = (
        f"n = {n:,} games on {indices:,} game indices, interval clustered by game index"
        if indices and indices < n
        else f"n = {n:,} games"
    )
    return Finding(
        f"Team win rate: **{_rate(overall)}** ({unit}).",
        {"kind": "team_win_rate", "rate": overall["rate"], "lo": overall["lo"],
         "hi": overall["hi"], "n": n, "game_indices": indices},
    )  # fmt: skip


def _team_finding(side: Mapping[str, Any], rates: Mapping[str, Any]) -> Finding:
    """Best (or worst) pet team with its paired gap to the next team."""
    lead = Leader.from_dict(side)
    first = lead.first
    shown = f"`{first}` {_rate(rates[first])} (n = {int(rates[first]['n']):,})"
    gap = lead.gap
    gap_text = gap.text() if gap is not None else "no interval"
    nxt = lead.runner_up
    word = "Best" if lead.side == "best" else "Worst"
    where = "top" if lead.side == "best" else "bottom"
    if lead.separated:
        text = (
            f"{word} pet team: **{first}** wins {_rate(rates[first])} "
            f"(n = {int(rates[first]['n']):,}); paired gap to the next team `{nxt}`: "
            f"**{gap_text}** (same game indices)."
        )
    else:
        tied = ", ".join(f"`{t}`" for t in lead.tied[:4])
        more = f" and {len(lead.tied) - 4} more" if len(lead.tied) > 4 else ""
        text = (
            f"Pet teams at the {where} are not separated: {shown} is tied with {tied}{more} "
            f"(paired gap to `{nxt}`: {gap_text}; the interval includes 0), so no {word.lower()} "
            "team is named."
        )
    numbers = {"kind": f"{lead.side}_pet_team", lead.side: first if lead.separated else None,
               "ranked_first": first, "separated": lead.separated, "next": nxt,
               "rate": rates[first]["rate"], "lo": rates[first]["lo"],
               "hi": rates[first]["hi"], "n": rates[first]["n"],
               "gap": gap.to_dict() if gap is not None else None}  # fmt: skip
    return Finding(text, numbers)


def pet_effects_finding(effects: Mapping[str, Mapping[str, Any]]) -> Finding:
    ordered = sorted(effects.items(), key=lambda kv: -kv[1]["mean_diff"])
    parts = [f"{pet} {fmt_signed_pp(d['mean_diff'], d['lo'], d['hi'])}" for pet, d in ordered]
    n = max(int(d["n"]) for _, d in ordered)
    return Finding(
        "Each pet's effect (teams with it minus teams without, paired on the same game "
        f"indices, n = {n:,}): " + "; ".join(parts) + ".",
        {"kind": "pet_effects",
         "effects": {p: {k: d[k] for k in ("mean_diff", "lo", "hi", "n")} for p, d in ordered}},
    )  # fmt: skip


def hotv_findings(summary: Mapping[str, Any], prefix: str = "") -> list[Finding]:
    """The key findings of a Heroes of the Village run, from its report's summary; ``prefix``
    names the item (``"pets: "``) in an experiment."""
    found: list[Finding] = []
    overall = team_win_rate_finding(summary)
    if overall is not None:
        found.append(overall)
    rates = summary.get("win_rate_by_pets") or {}
    ranking = summary.get("pet_ranking") or {}
    if len(rates) == 1:
        team = next(iter(rates))
        found.append(
            Finding(
                f"One pet team played (`{team}`): run with `--pets all` to compare the teams.",
                {"kind": "pet_teams", "teams": 1},
            )
        )
    elif ranking.get("best") and ranking.get("worst"):
        found.append(_team_finding(ranking["best"], rates))
        found.append(_team_finding(ranking["worst"], rates))
    effects = summary.get("pet_effects") or {}
    if effects:
        found.append(pet_effects_finding(effects))
    for finding in found:
        finding.text = prefix + finding.text
    return found
