"""What a run directory's ``run.json`` records about where its rows came from: the row-deciding
parameters (:func:`run_params`), the library versions and the machine, and the check that a
resumed run was made with the same parameters and components (:func:`_check_resume`).
"""

from __future__ import annotations

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
    config = plan.config
    extra = (
        {} if config.components.expansion is None else {"expansion": config.components.expansion}
    )
    return {
        **extra,
        "games": plan.games,
        "players": config.n_players,
        "policies": config.labels,
        "policy_specs": [p.to_dict() for p in config.policies],
        "seed": int(config.seed),
        "chunk_size": int(chunk_size),
        "threads": int(threads),
        "backend": backend,
        "variant": config.variant,
        "seating": config.seating,
        "pickaxe_optional": config.pickaxe_optional,
        "readings": config.readings.to_dict(),
        "check": config.check,
        "max_turns": int(config.max_turns),
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
