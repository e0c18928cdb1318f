"""Signals and full disks, round 3 of the reliability review (../reviews: reliability-2): real
``bnb`` processes stopped inside a long decision, a stuck plugin, a Heroes of the Village run
and a tuning; Heroes of the Village on a full disk. The group id starts each test's name.
"""

from __future__ import annotations

import json
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest
from test_faults import ENV, _wait_for, small_disk  # noqa: F401 (fixture)
from test_hostile_input import CLI, _env, probes  # noqa: F401 (fixture)

from bnb_sim.runner.storage import read_meta

ROOT = Path(__file__).resolve().parents[1]
#: ``bnb`` whose Game.play first says so on stderr (the test signals inside the decision).
PLAY_DRIVER = """
import sys
from bnb_sim.games.builders_biomes.game import Game
original = Game.play
def play(self, *args, **kwargs):
    print("PLAYING", file=sys.stderr, flush=True)
    return original(self, *args, **kwargs)
Game.play = play
from bnb_sim.cli import main
main(sys.argv[1:])
"""


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def started():
    """``start(args, env=..., driver=...)``: a ``bnb`` process, killed at the end of the test
    whatever happens (a process stuck in a decision must not outlive a failed test)."""
    procs: list[subprocess.Popen] = []

    def start(args: list, env: dict | None = None, driver: list | None = None):
        proc = subprocess.Popen(
            [*(driver or CLI), *map(str, args)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env or ENV,
            cwd=ROOT,
            # as a terminal starts it: a suite run as a background job (`make test &`, a CI
            # runner's non-interactive shell) ignores SIGINT, the child would inherit that
            # and Python would install no KeyboardInterrupt handler (closing note 34)
            preexec_fn=_default_sigint,
        )
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _signals_of(proc: subprocess.Popen) -> str:
    """The child's and this process's ignored and caught signals (/proc), for a failure."""
    out = []
    for who, pid in (("child", proc.pid), ("test process", "self")):
        try:
            with open(f"/proc/{pid}/status") as status:
                keep = [ln.strip() for ln in status if ln.startswith(("SigIgn", "SigCgt"))]
        except OSError:
            keep = ["(no /proc)"]
        out.append(f"{who}: {' '.join(keep)}")
    return "; ".join(out)


def _wait_line(
    proc: subprocess.Popen, marker: str, timeout: float = 300, why: str = ""
) -> list[str]:
    """stderr lines up to the one holding ``marker``; the test fails if it does not come
    within ``timeout`` seconds (never blocks longer: select before each read)."""
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        ready, _, _ = select.select([proc.stderr], [], [], left)
        if not ready:
            break
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if marker in line:
            return lines
    pytest.fail(f"no '{marker}' on stderr within {timeout} s ({why}): {''.join(lines)}")


def _stopped(proc: subprocess.Popen, seconds: float) -> str:
    """The rest of stderr; the test fails if the process outlives ``seconds``."""
    try:
        _, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"still running {seconds} s after the signal")
    assert "Traceback" not in err, err
    return err


@pytest.mark.slow  # a real `bnb play` process (seconds after the kernels are compiled)
@pytest.mark.parametrize(
    "policy", ["mc:rollouts=1000000", "ismcts:iterations=1000000", "p_slow:n=1000000000000000"]
)
def test_h3_play_stops_inside_a_long_decision_at_the_second_ctrl_c(probes, started, policy):  # noqa: F811
    args = ["play", "--seed", "1", "--players", "2", "--policy", policy, "--policy", "random"]
    driver = [CLI[0], "-c", PLAY_DRIVER]
    proc = started(args, env=_env(probes), driver=driver)
    _wait_line(proc, "PLAYING")
    time.sleep(1.0)  # inside the first decision: minutes of search (or never, the plugin)
    proc.send_signal(signal.SIGINT)
    _wait_line(proc, "stopping after the decision in progress", timeout=10, why=_signals_of(proc))
    proc.send_signal(signal.SIGINT)
    err = _stopped(proc, 15)  # before: only SIGKILL stopped it
    assert proc.returncode == 130 and "Interrupted." in err


#: ``bnb`` that says on stderr when the run's engine starts playing (its first game).
SIMULATE_DRIVER = """
import sys
from bnb_sim.runner import simulate
original = simulate.LocalExecutor.prepare
def prepare(self):
    print("PREPARING", file=sys.stderr, flush=True)
    return original(self)
simulate.LocalExecutor.prepare = prepare
from bnb_sim.cli import main
main(sys.argv[1:])
"""


@pytest.mark.slow  # a real `bnb simulate` process
def test_h4_sigterm_stops_a_run_whose_plugin_is_stuck_in_one_decision(tmp_path, probes, started):  # noqa: F811
    out = tmp_path / "r"
    args = ["simulate", "--games", "10", "-p", "2", "--policy", "p_slow:n=1000000000000000"]
    driver = [CLI[0], "-c", SIMULATE_DRIVER]
    proc = started([*args, "--policy", "random", "--out", out], env=_env(probes), driver=driver)
    _wait_line(proc, "PREPARING")
    # the plugin compiles (seconds; a signal then is seen before the first decision), then
    # the kernel enters its first decision, for days
    time.sleep(15.0)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    err = _stopped(proc, 20)  # before: still running 20 s later
    assert time.monotonic() - t0 < 15
    assert proc.returncode == 143, err
    lines = err.strip().splitlines()
    assert lines[-2].startswith("Stopped by SIGTERM") and lines[-1].strip().endswith("--resume")
    assert not out.exists()  # nothing was stored: the new folder is removed again


# 4,000 games: the signal comes after two parts (1,000), with seconds of play left; the resume
# then plays the rest (20,000 games cost the suite half a minute per signal here)
HOTV_RUN = ["simulate", "--game", "hotv", "-n", "4000", "--players", "3", "--pets", "all"]
HOTV_RUN += ["--chunk-size", "500", "--threads", "1"]


@pytest.mark.slow  # a real `bnb simulate --game hotv` process
@pytest.mark.parametrize(
    ("signum", "code", "headline"),
    [(signal.SIGINT, 130, "Interrupted: "), (signal.SIGTERM, 143, "Stopped by SIGTERM: ")],
    ids=["sigint", "sigterm"],
)
def test_u3_hotv_simulate_stops_with_what_is_stored_and_the_resume_command(
    tmp_path, started, signum, code, headline
):
    out = tmp_path / "r"
    proc = started([*HOTV_RUN, "--out", out])
    parts = out / "games"
    assert _wait_for(lambda: parts.is_dir() and len(list(parts.glob("part-*"))) >= 2, proc)
    proc.send_signal(signum)
    err = _stopped(proc, 120)
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal arrived")
    assert proc.returncode == code, err  # before: "Interrupted." only, or killed by SIGTERM
    lines = err.strip().splitlines()
    assert lines[-2].startswith(headline) and "games are stored in" in lines[-2], err
    assert lines[-2].endswith("Resume with:") and lines[-1].strip().endswith("--resume")
    assert read_meta(out)["status"] == "partial"
    resumed = subprocess.run(
        [*CLI, *lines[-1].split()[1:]], capture_output=True, text=True, env=ENV, cwd=ROOT
    )
    assert resumed.returncode == 0, resumed.stderr
    assert read_meta(out)["status"] == "complete"


@pytest.mark.slow  # a real `bnb tune` process
def test_u4_sigterm_stops_a_tuning_with_the_resume_command(tmp_path, started):
    out = tmp_path / "t"
    args = ["tune", "policy", "heuristic", "--against", "greedy", "--players", "2", "--budget"]
    args += ["20000", "--seed", "4", "--param", "board=0..3", "--param", "weapon=0..3"]
    proc = started([*args, "-q", "-o", out])

    def evaluated() -> bool:
        try:
            return bool(json.loads((out / "tune.json").read_text())["evaluations"])
        except (OSError, ValueError, KeyError):
            return False

    assert _wait_for(evaluated, proc, timeout=300)
    proc.send_signal(signal.SIGTERM)
    err = _stopped(proc, 60)
    if proc.returncode == 0:
        pytest.skip("the tuning finished before the signal arrived")
    assert proc.returncode == 143, err  # before: killed silently
    lines = err.strip().splitlines()
    assert lines[-2].startswith("Stopped by SIGTERM: the finished evaluations are kept in")
    assert lines[-1].strip().endswith("--resume")


def test_u6_hotv_on_a_full_disk_says_what_is_stored_and_how_to_resume(small_disk, capsys):  # noqa: F811
    from test_cli_simulate import run_cli

    disk, resize = small_disk
    resize(1024)  # room for a few parts of 500 games
    out = disk / "r"
    args = ["simulate", "--game", "hotv", "-n", "200000", "--players", "2", "--pets", "all"]
    code, _, err = run_cli(capsys, [*args, "--chunk-size", "500", "-q", "-o", out])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith("bnb: error: disk full: ")
    assert "games are stored in" in lines[0] and "--resume" in lines[0]
    assert read_meta(out)["status"] == "partial"
