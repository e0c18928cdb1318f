"""What ``bnb simulate --game hotv`` needs of the game beyond the protocol's basics.

The one ``bnb simulate`` of every game (``bnb_sim.cli.simulate_cmd``; in Python
``bnb_sim.runner.protocol_run.simulate_to_dir``) plays the run; the game says here what only
it knows: a run config may hold every pet team (``--pets all``: each team plays the same game
indices, ``rows_per_game`` in its identity), run.json's component record (source, content
hash, estimates, provenance), and the summary's first line (pet teams and difficulty).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bnb_sim.games.adapter import WrappedConfig


def make_run_config(components, *, players, policies, seed, options: Mapping[str, Any]):
    """``bnb simulate``'s config: ``--pets all`` plays every pet team on each game index;
    without ``--players``, the pets' count or 3 (the policies are cycled over the seats)."""
    from bnb_sim.games.heroes_village.runner import make_config, protocol_config

    config = make_config(
        components, players, list(policies) or ["team"], options.get("pets"),
        options.get("difficulty") or "standard", options.get("buildings"), seed,
        bool(options.get("check", False)),
    )  # fmt: skip
    return protocol_config(config)


def run_components(components) -> dict[str, Any]:
    """run.json's ``components`` (and the run's ``title``): the source, the content hash (the
    resume check compares it), the estimates, the provenance and the data."""
    return {
        "title": components.data.get("title"),
        "source": components.source,
        "content_hash": components.content_hash,
        "estimates": components.n_estimates,
        "provenance": components.provenance_rows(),
        "data": components.to_json_dict()["data"],
    }


def run_headline(config: WrappedConfig, games: int) -> str:
    """The summary's first line: games, pet teams, players, difficulty, policies."""
    inner = config.inner
    return (
        f"Heroes of the Village: {games:,} games x {len(inner.teams)} pet team(s), "
        f"{inner.n_players} players, {inner.difficulty}, "
        f"policy {', '.join(dict.fromkeys(inner.labels))}"
    )
