"""What a run directory's ``run.json`` records about where its rows came from: the row-deciding
parameters (:func:`run_params`), the game and its components (:func:`run_description`,
through the game protocol), the library versions and the machine, and the check that a
resumed run was made by the same game with the same parameters and components
(:func:`_check_resume`).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bnb_sim.errors import RunError
from bnb_sim.runner.run_plan import RunPlan

# Parameters that decide the rows; resume refuses a run.json that differs in any of them.
_IDENTITY_KEYS = (
    "games",
    "players",
    "policies",
    "policy_specs",
    "seed",
    "chunk_size",
    "variant",
    "seating",
    "pickaxe_optional",
    "readings",
    "max_turns",
)


def _version(dist: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def versions() -> dict[str, str | None]:
    """bnb_sim, Python and library versions (from package metadata: nothing is imported)."""
    from bnb_sim import __version__

    out: dict[str, str | None] = {"bnb_sim": __version__, "python": platform.python_version()}
    for name in ("numba", "llvmlite", "numpy", "pandas", "pyarrow", "dask", "distributed"):
        out[name] = _version(name)
    return out


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def machine_info() -> dict[str, Any]:
    """Platform, CPU model, cores (and the cores this process may use)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": usable,
        "hostname": platform.node(),
    }


def machine() -> dict[str, Any]:
    """Machine and versions (imports numba)."""
    import platform

    import numpy

    from bnb_sim._jit import numba

    return {
        **machine_info(),
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": numpy.__version__,
        "numba_threads": int(numba.config.NUMBA_NUM_THREADS),
        "threading_layer": _threading_layer(),
    }


def _threading_layer() -> str | None:
    from bnb_sim._jit import numba

    try:
        return numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet
        return None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def run_params(plan: RunPlan, chunk_size: int, threads: int, backend: str) -> dict[str, Any]:
    """run.json's ``params``: the run's shape, the config's ``identity()`` (everything that
    decides the rows, in the game's words; its keys win) and how the run was played."""
    config = plan.config
    return {
        "games": plan.games,
        "players": int(config.n_players),
        "chunk_size": int(chunk_size),
        "seed": int(config.seed),
        "policies": list(dict.fromkeys(config.labels)),
        **{k: v for k, v in config.identity().items() if k not in ("games", "chunk_size")},
        "threads": int(threads),
        "backend": backend,
        "dask": plan.dask,
    }


def _normal(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists, ...)."""
    return json.loads(json.dumps(value))


def _check_resume(path: Path, meta: dict, params: dict, content_hash: str) -> None:
    """RunError unless the stored run was made with the same row-deciding parameters: every
    parameter but the few of NON_IDENTITY_PARAMS (so a parameter added later is checked
    too), and the components."""
    from bnb_sim.runner.verify import identity_params

    if meta.get("kind", "simulate") != "simulate":
        raise RunError(f"{path}: cannot resume: it is a '{meta.get('kind')}' run, not simulate")
    stored = identity_params(meta.get("params") or {})
    now = identity_params(params)
    keys = [k for k in _IDENTITY_KEYS if k in stored or k in now]
    keys += sorted((set(stored) | set(now)) - set(keys))
    wrong = []
    for key in keys:
        old, new = _normal(stored.get(key)), _normal(now.get(key))
        if old != new:
            if key == "policy_specs":
                wrong.append("policy parameters differ")
            else:
                wrong.append(f"{key} {old!r} (now {new!r})")
    old_hash = (meta.get("components") or {}).get("content_hash")
    if old_hash != content_hash:
        wrong.append(f"components {str(old_hash)[:12]} (now {content_hash[:12]})")
    if wrong:
        raise RunError(
            f"{path}: cannot resume: the run was made with other parameters: "
            + "; ".join(wrong[:3])
            + ("; ..." if len(wrong) > 3 else "")
        )


def protocol_of(plan: RunPlan) -> Any:
    """The protocol object of the plan's game: its own, or the registry's for ``config.game``."""
    if plan.game is not None:
        return plan.game
    from bnb_sim.core.registry import get_game

    return get_game(plan.config.game)


def component_info(game: Any, components: Any) -> dict[str, Any]:
    """run.json ``components``: the game's data as JSON (``component_data`` if the game
    has one, else the components themselves) and its content hash."""
    describe = getattr(game, "component_data", None)
    data = describe(components) if callable(describe) else components
    from bnb_sim import jsonsafe

    text = jsonsafe.dumps(data, sort_keys=True)
    return {
        "source": "protocol",
        "content_hash": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "data": json.loads(text),
    }


def run_components(game: Any, components: Any) -> dict[str, Any]:
    """run.json ``components``: the game's own record (its optional ``run_components``
    method: source, content hash, provenance, ... and optionally the run's ``title``), else
    :func:`component_info`."""
    own = getattr(game, "run_components", None)
    return dict(own(components)) if callable(own) else component_info(game, components)


def run_description(plan: RunPlan) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(header, components)``: the keys of run.json that name the game (its optional
    ``run_header(config)``, else ``game``, ``outcome`` and ``title``) and its components
    record (:func:`run_components`)."""
    game = protocol_of(plan)
    record = run_components(game, plan.components)
    title = record.pop("title", game.title)
    own = getattr(game, "run_header", None)
    if callable(own):
        return dict(own(plan.config)), record
    return {"game": game.name, "outcome": game.outcome, "title": title}, record


def check_same_game(path: Path, meta: dict, header: dict, plan: RunPlan) -> None:
    """RunError unless the stored run is a run of the plan's game (a run.json without
    ``game`` is the default game's)."""
    if meta.get("game") != header.get("game"):
        from bnb_sim.games import game_of_run

        raise RunError(
            f"{path}: cannot resume: it is a run of another game ({game_of_run(meta).name}), "
            f"not {protocol_of(plan).name}"
        )
