#!/usr/bin/env python3
"""Where the time of the jitted engine goes, per compiled function, sampled by ``perf``.

    perf record -e cpu-clock -F 4000 -o perf.data -- \\
        python scripts/profile_functions.py play [--policy heuristic] [--players 4] [--games 20000]
    python scripts/profile_functions.py report perf.data [--top 30] [--annotate NAME]

``play`` loads the compiled kernels from numba's cache, writes ``/tmp/perf-PID.map`` (the
symbol map ``perf`` reads for JIT code: name, address and size of every function of the
loaded object code) and plays ``--games`` games in one ``play_batch`` call on one thread.
``report`` prints the share of the samples of each jitted function, with numba's mangled
names shortened to ``module.function[literal arguments]``; ``--annotate NAME`` adds the
samples per instruction of the first function whose name contains ``NAME`` (disassembled from
the object code that ``play`` saved beside the map).

Unlike ``scripts/profile_phases.py`` (cycle counters around each step, on the wall clock), the
samples count only this process's time on the CPU, so they stay usable on a busy machine, and
they show the cost of calls themselves: the argument pushes and return-slot stores of a call
that passes many arrays (each array travels as its seven fields). Needs the ``perf`` tool and
a warm cache (run any ``bnb simulate`` first); counts include the callee's inlined code.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OBJECTS = Path(tempfile.gettempdir()) / "bnb-sim-perf-objects"


def _capture_object_code() -> list[bytes]:
    """Keep the object code of every library numba loads from its cache."""
    from numba.core import codegen

    captured: list[bytes] = []
    original = codegen.JITCodeLibrary._unserialize.__func__

    def unserialize(cls, cg, state):
        _name, kind, data = state
        if kind == "object":
            captured.append(data[0])
        return original(cls, cg, state)

    codegen.JITCodeLibrary._unserialize = classmethod(unserialize)
    return captured


def _write_map(captured: list[bytes]) -> int:
    from numba.core.registry import cpu_target

    engine = cpu_target.target_context.codegen()._engine._ee
    OBJECTS.mkdir(exist_ok=True)
    lines, seen = [], set()
    for i, code in enumerate(captured):
        path = OBJECTS / f"{i}.o"
        path.write_bytes(code)
        listing = subprocess.run(
            ["nm", "-S", "--defined-only", str(path)], capture_output=True, text=True
        ).stdout
        for line in listing.splitlines():
            parts = line.split()
            if len(parts) != 4 or parts[2] not in "TtWw" or parts[3] in seen:
                continue
            address = engine.get_function_address(parts[3])
            if address:
                seen.add(parts[3])
                lines.append(f"{address:x} {int(parts[1], 16):x} {parts[3]}\n")
    Path(f"/tmp/perf-{os.getpid()}.map").write_text("".join(lines))
    return len(lines)


def play(policy: str, players: int, games: int) -> None:
    captured = _capture_object_code()
    import numpy as np

    from bnb_sim._jit import numba
    from bnb_sim.games.builders_biomes.engine.layout import K_N_SPECIES
    from bnb_sim.games.builders_biomes.engine.play import N_GAME_COLUMNS, n_seat_columns, play_batch
    from bnb_sim.games.builders_biomes.run_config import GameConfig

    config = GameConfig.create(players, [policy], seed=1)
    k, ft, kinds, params, plugins = config.kernel_inputs
    stop = np.zeros(1, np.int64)
    master = np.uint64(config.master)
    numba.set_num_threads(1)
    width = n_seat_columns(int(k[K_N_SPECIES])) + 64  # room for a bot's rule-hit columns
    seat_out = np.zeros((games * players, width), np.int64)
    game_out = np.zeros((games, N_GAME_COLUMNS), np.int64)
    play_batch(k, ft, kinds, params, plugins, master, 0, players, seat_out, game_out[:1], stop)
    print(f"{_write_map(captured)} functions mapped", file=sys.stderr)
    t0 = time.perf_counter()
    play_batch(k, ft, kinds, params, plugins, master, 0, players, seat_out, game_out, stop)
    print(f"{games / (time.perf_counter() - t0):,.0f} games/s", file=sys.stderr)


def short_name(symbol: str) -> str:
    """``_ZN7bnb_sim8policies7onestep9pick_bestB4v...Literal_5bint_5d_28736_29...`` ->
    ``onestep.pick_best[736]``."""
    match = re.match(r"_ZN7bnb_sim((?:\d+\w+?)+?)B\d", symbol)
    if not match:
        return symbol[:60]
    parts, rest = [], match.group(1)
    while rest:
        size = re.match(r"\d+", rest).group(0)
        rest = rest[len(size) :]
        parts.append(rest[: int(size)])
        rest = rest[int(size) :]
    literals = re.findall(r"Literal_5b\w+?_5d_28(\w+?)_29", symbol)
    return ".".join(parts[1:]) + (f"[{','.join(literals)}]" if literals else "")


def report(data: str, top: int, annotate: str | None) -> None:
    listing = subprocess.run(
        ["perf", "report", "-i", data, "--stdio", "--sort", "sym", "-n"],
        capture_output=True,
        text=True,
    ).stdout
    rows = []
    for line in listing.splitlines():
        match = re.match(r"\s+[\d.]+%\s+(\d+)\s+\[\.\]\s+(\S+)", line)
        if match and match.group(2).startswith("_ZN7bnb_sim"):
            rows.append((int(match.group(1)), match.group(2)))
    total = sum(n for n, _ in rows) or 1
    print(f"{total} samples in jitted code")
    for n, symbol in rows[:top]:
        print(f"{100 * n / total:6.2f}%  {n:7d}  {short_name(symbol)}")
    if annotate:
        _annotate(data, annotate)


def _annotate(data: str, name: str) -> None:
    samples = subprocess.run(
        ["perf", "script", "-i", data, "-F", "pid,ip"], capture_output=True, text=True
    ).stdout.split()
    pids, ips = samples[0::2], [int(ip, 16) for ip in samples[1::2]]
    pid = collections.Counter(pids).most_common(1)[0][0]
    symbols = [line.split() for line in Path(f"/tmp/perf-{pid}.map").read_text().splitlines()]
    matches = sorted((s for s in symbols if name in s[2]), key=lambda s: len(s[2]))
    if not matches:
        sys.exit(f"no mapped function contains {name!r}")
    start, size, symbol = int(matches[0][0], 16), int(matches[0][1], 16), matches[0][2]
    counts = collections.Counter(ip - start for ip in ips if start <= ip < start + size)
    for path in OBJECTS.glob("*.o"):
        names = subprocess.run(["nm", "--defined-only", str(path)], capture_output=True, text=True)
        if " " + symbol in names.stdout:
            break
    else:
        sys.exit("the object code of that function was not saved; run 'play' again")
    disassembly = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", f"--disassemble={symbol}", str(path)],
        capture_output=True,
        text=True,
    ).stdout
    print(f"\n{short_name(symbol)}: {sum(counts.values())} samples")
    base = None
    for line in disassembly.splitlines():
        head = re.match(r"^([0-9a-f]+) <", line)
        if head:
            base = int(head.group(1), 16)
            continue
        insn = re.match(r"^\s+([0-9a-f]+):\s+(.*)", line)
        if insn and base is not None:
            offset = int(insn.group(1), 16) - base
            print(f"{counts.get(offset, 0):6d} {offset:6x}  {insn.group(2)[:100]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("play", help="play games to be sampled by perf record")
    run.add_argument("--policy", default="heuristic")
    run.add_argument("--players", type=int, default=4)
    run.add_argument("--games", type=int, default=20000)
    show = sub.add_parser("report", help="samples per jitted function")
    show.add_argument("data")
    show.add_argument("--top", type=int, default=30)
    show.add_argument("--annotate", help="also list the samples per instruction of this function")
    args = parser.parse_args()
    if args.command == "play":
        play(args.policy, args.players, args.games)
    else:
        report(args.data, args.top, args.annotate)


if __name__ == "__main__":
    main()
