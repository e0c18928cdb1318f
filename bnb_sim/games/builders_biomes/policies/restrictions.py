"""Restricted play, the Python side: ``never`` and ``always`` lists of a policy.

A restriction names actions a player never takes (``never``) or takes whenever they are legal
(``always``). Words (docs/bots.md, "never and always")::

    collect  explore  build  fight  weapon  buy      an action type (buy: Farmer's Market)
    buy:ITEM                                          buying that Farmer's Market item
    fight:MOB                                         fighting that mob species
    build:TYPE                                        building a building of that type

They come from a bot file's ``never = [...]``/``always = [...]`` keys or from a policy spec's
suffix (``heuristic+never=fight``, ``greedy+never=buy:crafting_table,fight:enderman``), and
are written into the static array ``k`` for the kernels (engine/restrict.py), which apply them
to the legal set so that no rule or fallback can break them. The syntax is checked when the
policy is parsed; the item, mob and type names when the components are known (one line naming
the file or policy, the key and the word, with a did-you-mean). Pure Python (no numba).
"""

from __future__ import annotations

import difflib
import re

import numpy as np

from bnb_sim.errors import PolicyError

#: Action types by name, as the engine numbers them (engine/state.py ACT_*).
ACTION_TYPES = {"collect": 0, "explore": 1, "build": 2, "fight": 3, "weapon": 4, "buy": 5}
#: Action types whose targets can be named: what a target is.
TARGETS = {"buy": "item", "fight": "mob", "build": "building type"}
KEYS = ("never", "always")
_SUFFIX = re.compile(r"\+(never|always)=([^+]*)")


def _did_you_mean(word: str, known) -> str:
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(known)})"


def check_words(value, key: str, where: str) -> tuple[str, ...]:
    """A ``never``/``always`` list as written (syntax only: names of targets are checked with
    the components, :func:`restriction_rows`)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(isinstance(w, str) for w in value):
        raise PolicyError(f"{where}: '{key}' must be a list of strings such as [\"fight\"]")
    out: list[str] = []
    for raw in value:
        word = raw.strip()
        action, colon, target = (s.strip() for s in word.partition(":"))
        if action not in ACTION_TYPES:
            raise PolicyError(
                f"{where}: '{key}': '{raw}' is not an action type"
                f"{_did_you_mean(action, ACTION_TYPES)}"
            )
        if colon and action not in TARGETS:
            raise PolicyError(
                f"{where}: '{key}': '{raw}': only {', '.join(TARGETS)} take a target "
                f"(write '{action}')"
            )
        if colon and not target:
            raise PolicyError(f"{where}: '{key}': '{raw}' names no {TARGETS[action]}")
        word = f"{action}:{target}" if colon else action
        if word in out:
            raise PolicyError(f"{where}: '{key}': '{word}' is listed twice")
        out.append(word)
    return tuple(out)


def check_pair(never: tuple[str, ...], always: tuple[str, ...], where: str) -> None:
    """A word may not be both forbidden and forced, nor forced inside a forbidden type."""
    for word in always:
        action = word.partition(":")[0]
        if word in never or action in never:
            raise PolicyError(f"{where}: '{word}' is in 'always' but forbidden by 'never'")


def split_spec(spec: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """``BASE+never=W,W+always=W`` -> ``(BASE, never, always)``; a spec without a suffix is
    returned as it is."""
    match = _SUFFIX.search(spec)
    if not match:
        return spec, (), ()
    base, tail = spec[: match.start()], spec[match.start() :]
    where = f"policy '{spec}'"
    words: dict[str, list[str]] = {"never": [], "always": []}
    pos = 0
    for part in _SUFFIX.finditer(tail):
        if part.start() != pos:
            raise PolicyError(
                f"{where}: '{tail[pos : part.start()]}' is not +never=... or +always=..."
            )
        words[part.group(1)] += [w for w in part.group(2).split(",")]
        pos = part.end()
    if pos != len(tail):
        raise PolicyError(f"{where}: '{tail[pos:]}' is not +never=... or +always=...")
    never = check_words(words["never"], "never", where) if words["never"] else ()
    always = check_words(words["always"], "always", where) if words["always"] else ()
    check_pair(never, always, where)
    return base, never, always


def spec_suffix(never, always) -> str:
    """The policy-spec suffix that gives these lists (``""`` for none)."""
    out = f"+never={','.join(never)}" if never else ""
    return out + (f"+always={','.join(always)}" if always else "")


def _target_names(components, action: str) -> list[str]:
    if action == "buy":
        return components.item_names
    if action == "fight":
        return components.mob_names
    return components.values["type"]


def _row(never, always, components, where: str) -> np.ndarray:
    from bnb_sim.games.builders_biomes.engine import layout as L

    row = np.zeros(L.RESTRICT_SIZE, np.int64)
    slots = {
        "types": (L.RX_NEVER_TYPES, L.RX_ALWAYS_TYPES),
        "buy": (L.RX_NEVER_ITEMS, L.RX_ALWAYS_ITEMS),
        "fight": (L.RX_NEVER_MOBS, L.RX_ALWAYS_MOBS),
        "build": (L.RX_NEVER_BUILD, L.RX_ALWAYS_BUILD),
    }
    for key, words in (("never", never), ("always", always)):
        which = 0 if key == "never" else 1
        for word in words:
            action, _, target = word.partition(":")
            if action == "buy" and components.expansion is None:
                raise PolicyError(
                    f"{where}: '{key}': '{word}' needs the Farmer's Market expansion "
                    "(--expansion farmers-market)"
                )
            if not target:
                row[slots["types"][which]] |= 1 << ACTION_TYPES[action]
                continue
            names = _target_names(components, action)
            if target not in names:
                raise PolicyError(
                    f"{where}: '{key}': '{word}': no {TARGETS[action]} '{target}'"
                    f"{_did_you_mean(target, names)}"
                )
            row[slots[action][which]] |= 1 << names.index(target)
    return row


def restriction_rows(policies, components) -> np.ndarray | None:
    """``int64[players, RESTRICT_SIZE]`` of the policies' restrictions, or None when no
    policy has one (raises PolicyError naming the policy, key and word)."""
    from bnb_sim.games.builders_biomes.engine import layout as L

    if not any(p.never or p.always for p in policies):
        return None
    rows = np.zeros((len(policies), L.RESTRICT_SIZE), np.int64)
    for i, spec in enumerate(policies):
        if spec.never or spec.always:
            where = spec.origin or f"policy '{spec.label}'"
            rows[i] = _row(spec.never, spec.always, components, where)
    return rows


def fill_restrictions(k: np.ndarray, policies, components) -> None:
    """Write the policies' restrictions into ``k`` (nothing when none has one)."""
    from bnb_sim.games.builders_biomes.engine import layout as L

    rows = restriction_rows(policies, components)
    if rows is None:
        return
    k[L.K_RESTRICT_ON] = 1
    for i, row in enumerate(rows):
        at = L.K_RESTRICT_PLAYERS + i * L.RESTRICT_SIZE
        k[at : at + L.RESTRICT_SIZE] = row
