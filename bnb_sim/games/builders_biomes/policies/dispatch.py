"""Route a decision to the policy of the seat: built-ins by kind id, plugins by first-class
function (docs/design.md, "Policies"). One compiled driver serves every parameter setting and every
plugin with the plugin signature, so nothing recompiles when a weight changes."""

from __future__ import annotations

from bnb_sim._jit import kernel
from bnb_sim.games.builders_biomes.engine.layout import RNG_POLICY
from bnb_sim.games.builders_biomes.engine.legal import expand_mask
from bnb_sim.games.builders_biomes.engine.observation import flat_observation
from bnb_sim.games.builders_biomes.policies.kinds import (
    BOT,
    GREEDY,
    HEURISTIC,
    PLUGIN,
    RANDOM,
    STRONG,
)
from bnb_sim.games.builders_biomes.policies.onestep import choose_onestep
from bnb_sim.games.builders_biomes.policies.priority import choose_priority
from bnb_sim.games.builders_biomes.policies.random_policy import choose_random
from bnb_sim.games.builders_biomes.policies.strong import choose_strong


@kernel
def _plugin_decision(plugin_fn, pub, seat, params, mem, k, mask, pass_ok, rng, obs_buf, legal_buf):
    flat_observation(pub, obs_buf)
    expand_mask(mask, pass_ok, legal_buf)
    return plugin_fn(obs_buf, legal_buf, k, rng[RNG_POLICY + seat], params, mem)


@kernel(inline="always")
def decide(kind, params, plugin_fn, pub, rng, seat, mem, k, ft, mask, pass_ok, obs_buf, legal_buf):
    """The decision of ``seat`` (policy kind ``kind``) given the legal ``(mask, pass_ok)``.

    Policies see ``pub`` (with the seat's own pile filled in) and their own random stream,
    never the hidden state. Inlined: a pass-through call of a dozen arrays cost more than
    some decisions.
    """
    if kind == RANDOM:
        return choose_random(mask, pass_ok, rng, RNG_POLICY + seat)
    if kind == GREEDY or kind == HEURISTIC:
        return choose_onestep(params, pub, seat, mem, k, ft, mask, pass_ok, rng, RNG_POLICY + seat)
    if kind == STRONG:
        return choose_strong(params, pub, seat, mem, k, ft, mask, pass_ok, rng, RNG_POLICY + seat)
    if kind == BOT:
        return choose_priority(params, pub, seat, mem, k, ft, mask, pass_ok, rng, RNG_POLICY + seat)
    if kind == PLUGIN:
        return _plugin_decision(
            plugin_fn, pub, seat, params, mem, k, mask, pass_ok, rng, obs_buf, legal_buf
        )
    return -1
