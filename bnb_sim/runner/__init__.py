"""Running simulations and storing their results.

:mod:`bnb_sim.runner.storage` reads and writes run directories (``docs/run-format.md``):
``run.json`` plus one Parquet part per chunk under ``seats/`` and ``games/``. It imports
pandas and pyarrow only, never numba, so reports can load runs without the engine.
"""
