"""Play the chunks of a run on Dask workers (docs/design.md, "Dask").

* ``dask="local"``: an embedded ``LocalCluster`` of worker *processes* with one thread each
  (``n_workers`` = ``threads``, default: the usable cores), ``NUMBA_NUM_THREADS=1`` pinned in
  the workers through ``distributed.nanny.pre-spawn-environ`` and again with
  ``numba.set_num_threads(1)`` in each task.
* ``dask="tcp://host:8786"``: an existing scheduler; the connection gives up after
  :data:`CONNECT_TIMEOUT_S` seconds with one line that names the address. Workers must have
  bnb-sim installed (the tasks are top-level functions of this module) and should be started
  with ``--nthreads 1`` and ``NUMBA_NUM_THREADS=1`` (``docs/simulate.md``). A worker that runs
  several threads anyway plays each task with one numba thread (a ``parallel=True`` kernel in
  a multi-threaded worker can hang, numba/numba#8563).

The config travels as plain data (:func:`config_payload`: the game's ``dask_payload`` entry
point, e.g. the component dict, the policy specs and the options), scattered once to every
worker and rebuilt there once per process by its ``dask_config`` entry point; the rebuilt
components must have the same content hash (:func:`check_rebuilt_hash`). A run plan that
carries the game's protocol object (``RunPlan.game``: Heroes of the Village, a protocol game;
:mod:`bnb_sim.runner.protocol_run`) sends it and its picklable config instead
(``payload={"protocol": game, "config": config}``). Before any chunk
runs, the numba cache is warmed by **one** worker per host, then by the others (concurrent cache
writers can crash, numba/numba#4807). Workers return ``(seats, games)`` frames and the client
writes the Parquet parts, so part names stay deterministic and no shared file system is
needed. At most :data:`IN_FLIGHT_PER_THREAD` chunks per worker thread are in flight, which
keeps the client's memory flat.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import socket
import threading
import uuid
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from bnb_sim.errors import BnbError, RunError

LOCAL = "local"
CONNECT_TIMEOUT_S = 5
WORKER_WAIT_S = 120  # a LocalCluster's workers import numba and load the cache
IN_FLIGHT_PER_THREAD = 2

_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ws|wss|ucx)://)?[A-Za-z0-9_.\-\[\]:]+:\d{1,5}$")
_NUMBA_WARNING = "First-class function type feature is experimental"


#: What every ``--dask`` / ``dask=`` says when Dask is not installed (it is an extra).
DASK_MISSING = "dask is not installed: pip install 'bnb-sim[dask]'"


def require_dask() -> None:
    """BnbError (one line: how to install it) unless ``dask`` and ``distributed`` import."""
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise BnbError(DASK_MISSING) from None


def check_address(address: Any) -> str:
    """``"local"`` or a scheduler address (``tcp://host:port`` or ``host:port``); BnbError if
    it is neither, or if Dask is not installed (:func:`require_dask`). Every path that plays
    on Dask calls this before it does anything else."""
    if not isinstance(address, str) or not address.strip():
        raise BnbError(f"dask must be 'local' or a scheduler address, got {address!r}")
    text = address.strip()
    if text != LOCAL and not _ADDRESS.match(text):
        raise BnbError(
            f"dask: '{text}' is not a scheduler address (expected 'local', "
            "'tcp://host:port' or 'host:port')"
        )
    require_dask()
    if text == LOCAL:
        return text
    return text if "://" in text else f"tcp://{text}"


def quiet_numba_warnings() -> None:
    """Hide numba's one-per-process notice about first-class functions (plugins use them)."""
    warnings.filterwarnings("ignore", message=_NUMBA_WARNING)


# --------------------------------------------------------------------------------------
# worker side: top-level functions of an installed module, small picklable arguments


def _game_entry(game: str | None, what: str):
    """The entry point ``what`` of the registered game ``game`` (None: the default game);
    a one-line SpecError if the game does not declare it."""
    from bnb_sim.games import get_game

    return get_game(game).need(what)


def config_payload(config: Any) -> dict[str, Any]:
    """The config as plain data that any worker with bnb-sim installed can rebuild: the
    game's ``dask_payload`` entry point makes it (``config.game`` names the game in the
    registry), its ``dask_config`` rebuilds it (:func:`config_from_payload`)."""
    from bnb_sim.games import entry_of_config

    game = getattr(config, "game", None)
    return {"game": game, **entry_of_config(config, "dask_payload")(config)}


_CONFIGS: dict[tuple, Any] = {}


def config_from_payload(payload: dict[str, Any]) -> Any:
    """Rebuild (once per process) the config of :func:`config_payload`."""
    key = (
        payload.get("game"),
        payload["content_hash"],
        repr(payload["policies"]),
        repr(sorted(payload["options"].items())),
    )
    config = _CONFIGS.get(key)
    if config is None:
        config = _game_entry(payload.get("game"), "dask_config")(payload)
        _remember(key, config)
    return config


def _remember(key: tuple, config: Any) -> None:
    if len(_CONFIGS) > 8:
        _CONFIGS.clear()
    _CONFIGS[key] = config


def check_rebuilt_hash(content_hash: str, expected: str) -> None:
    """BnbError unless a worker rebuilt the client's component data."""
    if content_hash != expected:
        raise BnbError(
            "a Dask worker rebuilt other component data (content hash "
            f"{content_hash[:12]}, expected {expected[:12]}); "
            "install the same bnb-sim version on the workers"
        )


def _task_threads(threads: int | None) -> int | None:
    """Numba threads for a task: as asked; else 1 in a multi-threaded worker; else numba's."""
    if threads is not None:
        return threads
    try:
        from distributed import get_worker

        if get_worker().state.nthreads > 1:
            return 1
    except (ImportError, ValueError, AttributeError):
        pass
    return None


def play_chunk(payload: dict[str, Any], start: int, n: int, threads: int | None = None):
    """Dask task: games ``start .. start + n - 1`` -> ``(seats, games)`` DataFrames."""
    quiet_numba_warnings()
    game = payload.get("protocol")
    if game is not None:  # a protocol game: its object and its picklable config travel
        return game.play_block(payload["config"], start, n, _task_threads(threads))
    play_block = _game_entry(payload.get("game"), "play_block")
    return play_block(config_from_payload(payload), start, n, _task_threads(threads))


def warm_worker(payload: dict[str, Any], threads: int | None = None) -> dict[str, Any]:
    """Dask task: load (or compile) the kernels of this run by playing one game."""
    import platform

    from bnb_sim import __version__

    play_chunk(payload, 0, 1, threads)
    from bnb_sim._jit import CACHE_DIR, numba

    return {
        "host": platform.node(),
        "bnb_sim": __version__,
        "numba_threads": int(numba.get_num_threads()),
        "cache_dir": CACHE_DIR,
        "pid": os.getpid(),
    }


# --------------------------------------------------------------------------------------
# client side


@contextlib.contextmanager
def _sigint_ignored():
    """Spawn worker processes with SIGINT ignored (they inherit it), so a Ctrl-C in the
    terminal reaches only the client, which stops between chunks."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def restore_environ(saved: dict[str, str]) -> None:
    """Make ``os.environ`` equal to ``saved`` again. The nanny applies ``pre-spawn-environ``
    (``NUMBA_NUM_THREADS=1``, ``OMP_NUM_THREADS=1``, ...) to *this* process's environment before
    it spawns a worker, and numba refuses a changed ``NUMBA_NUM_THREADS`` on its next config
    reload here."""
    for key in set(os.environ) - set(saved):
        del os.environ[key]
    for key, value in saved.items():
        if os.environ.get(key) != value:
            os.environ[key] = value


def _usable_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


class DaskExecutor:
    """Runs chunks as Dask tasks; same interface as ``executor.LocalExecutor``."""

    backend = "dask"

    def __init__(self, config: Any, address: str, threads: int | None, payload=None):
        self.config = config
        self.payload = payload  # what the workers get (default: config_payload(config))
        self.address = check_address(address)
        self.cluster = None
        self.client = None
        self._futures: dict[str, Any] = {}
        self._token = uuid.uuid4().hex[:12]
        self._payload = None
        self._environ = dict(os.environ)
        if self.address == LOCAL:
            self._start_local(threads)
            self.task_threads: int | None = 1
            self.backend = "dask-local"
        else:
            self._connect(self.address)
            self.task_threads = None
            self.backend = "dask"
        self.threads = self._worker_threads()

    # -- connecting ----------------------------------------------------------------------
    def _start_local(self, threads: int | None) -> None:
        import dask
        from distributed import Client, LocalCluster

        n_workers = threads or _usable_cores()
        settings = {
            "distributed.nanny.pre-spawn-environ.NUMBA_NUM_THREADS": "1",
            "distributed.worker.daemon": False,
        }
        try:
            with dask.config.set(settings), _sigint_ignored():
                self.cluster = LocalCluster(
                    n_workers=n_workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    host="127.0.0.1",
                    silence_logs=logging.ERROR,
                )
                self.client = Client(self.cluster, set_as_default=False)
                self.client.wait_for_workers(n_workers, timeout=WORKER_WAIT_S)
            restore_environ(self._environ)
        except BnbError:
            self.close()
            raise
        except Exception as exc:
            self.close()
            raise BnbError(f"dask: could not start a local cluster ({_first_line(exc)})") from None

    def _connect(self, address: str) -> None:
        _probe(address)
        from distributed import Client

        try:
            self.client = Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except Exception as exc:
            self.close()
            raise BnbError(
                f"dask: cannot connect to the scheduler at {address} ({_first_line(exc)})"
            ) from None
        try:
            self.client.wait_for_workers(1, timeout=30)
        except Exception:
            self.close()
            raise BnbError(f"dask: the scheduler at {address} has no workers") from None

    def _workers(self) -> dict[str, dict]:
        return dict(self.client.scheduler_info(n_workers=-1)["workers"])

    def _worker_threads(self) -> int:
        return sum(int(w.get("nthreads", 1)) for w in self._workers().values()) or 1

    # -- executor interface --------------------------------------------------------------
    def prepare(self) -> None:
        """Scatter the config and warm the numba cache: one worker per host, then the rest."""
        from bnb_sim import __version__

        self._payload = self.client.scatter(
            [self.payload or config_payload(self.config)], broadcast=True, hash=False
        )[0]
        by_host: dict[str, list[str]] = {}
        for address, info in sorted(self._workers().items()):
            by_host.setdefault(str(info.get("host", address)), []).append(address)
        first = [addresses[0] for addresses in by_host.values()]
        rest = [a for addresses in by_host.values() for a in addresses[1:]]
        for group in (first, rest):
            futures = [
                self.client.submit(
                    warm_worker,
                    self._payload,
                    self.task_threads,
                    workers=[address],
                    allow_other_workers=False,
                    pure=False,
                    key=f"bnb-warm-{self._token}-{address}",
                )  # fmt: skip
                for address in group
            ]
            for info in self.client.gather(futures):
                if info["bnb_sim"] != __version__:
                    raise BnbError(
                        f"dask: a worker on {info['host']} runs bnb-sim {info['bnb_sim']}, "
                        f"this client {__version__}; install the same version everywhere"
                    )

    def run(self, tasks: Sequence[tuple[int, int, int]]) -> Iterator[tuple[int, Any, Any]]:
        from distributed import as_completed

        pending = iter(tasks)
        done = as_completed(loop=self.client.loop)
        limit = max(1, IN_FLIGHT_PER_THREAD * self.threads)

        def submit_next() -> bool:
            task = next(pending, None)
            if task is None:
                return False
            k, start, n = task
            future = self.client.submit(
                play_chunk, self._payload, start, n, self.task_threads,
                key=f"bnb-chunk-{self._token}-{k}", pure=False, retries=1,
            )  # fmt: skip
            self._futures[future.key] = (k, future)
            done.add(future)
            return True

        for _ in range(limit):
            if not submit_next():
                break
        for future in done:
            k, _ = self._futures.pop(future.key)
            try:
                seats, games = future.result()
            except BnbError:
                raise
            except Exception as exc:
                raise RunError(
                    f"dask: chunk {k} failed on a worker ({type(exc).__name__}: {_first_line(exc)})"
                ) from None
            finally:
                future.release()
            submit_next()
            yield k, seats, games

    def stop(self) -> None:
        """Cancel the chunks still queued or running (after Ctrl-C or an error)."""
        futures = [future for _, future in self._futures.values()]
        self._futures.clear()
        if futures and self.client is not None:
            with contextlib.suppress(Exception):
                self.client.cancel(futures)

    def close(self) -> None:
        self.stop()
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close(timeout=10)
            self.client = None
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.close(timeout=10)
            self.cluster = None
            restore_environ(self._environ)


def _probe(address: str) -> None:
    """Ask the scheduler at ``address`` who it is, in a throw-away event loop, before a Client
    is made: fails at once (refused) or within the timeout (no answer), with one line."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor
    from concurrent.futures import TimeoutError as FutureTimeout

    _probe_tcp(address)

    async def identity() -> dict:
        from distributed.core import rpc

        async with rpc(address, timeout=CONNECT_TIMEOUT_S) as scheduler:
            return await asyncio.wait_for(scheduler.identity(), CONNECT_TIMEOUT_S)

    pool = ThreadPoolExecutor(1, thread_name_prefix="bnb-dask-probe")
    try:
        info = pool.submit(asyncio.run, identity()).result(timeout=2 * CONNECT_TIMEOUT_S + 1)
    except (FutureTimeout, asyncio.TimeoutError, TimeoutError):
        raise BnbError(
            f"dask: no scheduler answers at {address} (no answer within {CONNECT_TIMEOUT_S} s)"
        ) from None
    except OSError as exc:
        raise BnbError(f"dask: no scheduler answers at {address} ({_first_line(exc)})") from None
    except Exception as exc:  # e.g. MemoryError: what answered sent bytes Dask cannot read
        raise BnbError(
            f"dask: {address}: the connection was made, but what answers is not a Dask "
            f"scheduler (its reply could not be read: {type(exc).__name__})"
        ) from None
    finally:
        pool.shutdown(wait=False)
    if not isinstance(info, dict) or info.get("type") != "Scheduler":
        kind = info.get("type") if isinstance(info, dict) else type(info).__name__
        raise BnbError(f"dask: {address} is not a Dask scheduler (it says it is a {kind})")


def _probe_tcp(address: str) -> None:
    """For ``tcp://`` addresses: a plain TCP connect, so that a refused port or an unknown
    host fails at once instead of after Dask's connection retries."""
    if not address.startswith("tcp://"):
        return
    host, _, port = address[len("tcp://") :].rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except socket.gaierror:
        raise BnbError(f"dask: no scheduler answers at {address} (unknown host)") from None
    except TimeoutError:
        raise BnbError(
            f"dask: no scheduler answers at {address} (no answer within {CONNECT_TIMEOUT_S} s)"
        ) from None
    except OSError as exc:
        reason = (exc.strerror or type(exc).__name__).lower()
        raise BnbError(f"dask: no scheduler answers at {address} ({reason})") from None


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
