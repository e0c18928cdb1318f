"""The run report: numbers against the known truth of fake runs, files, warnings, CLI errors."""

from __future__ import annotations

import json
import math
import re
import struct
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from fake_runs import CHARACTERISTICS, FakeSpec, make_frames, make_meta, truth, write_fake_run

from bnb_sim.analysis import report as report_module
from bnb_sim.analysis import tables
from bnb_sim.analysis.report import ReportBuilder, Section, seat_policy_confound, write_report
from bnb_sim.cli import main
from bnb_sim.runner.storage import part_name

SPEC = FakeSpec(n_games=4000, chunk_size=1000, seed=0)
# a different run: 3 players, made-up species, no estimated values, interrupted
OTHER = FakeSpec(
    n_games=600,
    chunk_size=200,
    seed=5,
    policies=("greedy", "heuristic", "random"),
    seat_weight=(0.4, 0.35, 0.25),
    mobs=("ghast", "blaze"),
    building_types=("tower", "farm", "well"),
    estimated_values=0,
    status="partial",
)


def _strict_json(text):
    def reject(constant):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=reject)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    base = tmp_path_factory.mktemp("report")
    truth_ = write_fake_run(base / "run", SPEC)
    written = write_report(base / "run", base / "out")
    summary = _strict_json(written["summary"].read_text())
    return written, summary, truth_


@pytest.fixture(scope="module")
def other_report(tmp_path_factory):
    base = tmp_path_factory.mktemp("other")
    write_fake_run(base / "run", OTHER)
    written = write_report(base / "run", base / "out", title="Other <run> & co")
    return written, _strict_json(written["summary"].read_text())


def _inside(row, value):
    return row["lo"] <= value <= row["hi"]


def test_seat_and_policy_win_rates_cover_the_truth(report):
    _, summary, truth_ = report
    seats = {r["seat"]: r for r in summary["win_rate"]["by_seat"]}
    assert set(seats) == {0, 1, 2, 3}
    assert seats[0]["n"] == 4000
    assert _inside(seats[0], truth_.seat_win[0])  # the headline: seat 0 wins ~31%
    for seat, row in seats.items():
        assert _inside(row, truth_.seat_win[seat]), (seat, row, truth_.seat_win[seat])
        assert row["lo"] < row["rate"] < row["hi"] and row["rate"] == row["k"] / row["n"]
    policies = {r["policy"]: r for r in summary["win_rate"]["by_policy"]}
    assert list(policies) == ["heuristic", "greedy", "random"]  # player order
    assert policies["random"]["n"] == 8000  # two seats per game
    for policy, row in policies.items():
        assert _inside(row, truth_.policy_win[policy]), (policy, row)
    # the model makes heuristic clearly the strongest: the report must see it
    assert policies["heuristic"]["lo"] > policies["greedy"]["hi"]
    cells = summary["win_rate"]["by_policy_seat"]
    assert len(cells) == 12
    covered = sum(_inside(r, truth_.policy_seat_win[(r["policy"], r["seat"])]) for r in cells)
    assert covered >= 11  # 95% intervals: at most one miss expected among 12
    boards = summary["win_rate"]["by_board"]
    assert all(_inside(r, truth_.overall_seat_row_win) for r in boards)


def test_balance_first_player_advantage_and_ties(report):
    _, summary, truth_ = report
    assert _inside(summary["balance"], truth_.balance)
    fpa = summary["first_player_advantage"]
    others = np.mean([truth_.seat_win[s] for s in (1, 2, 3)])
    assert _inside(fpa, truth_.seat_win[0] - others) and fpa["lo"] > 0
    assert _inside(summary["tie_rate"], truth_.tie_rate)
    assert summary["tie_rate"]["n"] == 4000
    assert summary["n_games"] == 4000 and summary["n_seat_rows"] == 16000
    assert summary["fair_share"] == 0.25


def test_xp_fights_choices_cover_the_truth(report):
    _, summary, truth_ = report
    xp = {r["policy"]: r for r in summary["xp"]["by_policy"]}
    for policy, mean in truth_.xp_mean.items():
        assert _inside(xp[policy], mean), (policy, xp[policy], mean)
    sources = summary["xp"]["by_source"]["heuristic"]
    assert list(sources) == list(tables.XP_SOURCES)
    assert math.isclose(sum(sources.values()), xp["heuristic"]["mean"])
    fights = {r["mob"]: r for r in summary["fights"]}
    assert list(fights) == list(SPEC.mobs)
    for mob, rate in truth_.fight_win.items():
        assert _inside(fights[mob], rate), (mob, fights[mob])
    shares = [r for r in summary["choices"] if r["round"] == "A"]
    for row in shares:
        expected = truth_.choice_share[row["policy"]][row["value"]]
        assert abs(row["share"] - expected) < 4 * math.sqrt(expected / row["n"]), row
    owning = {r["name"]: r for r in summary["owning_mob"]}
    assert set(owning) == set(SPEC.mobs)
    hits = sum(_inside(r, truth_.overall_seat_row_win) for r in owning.values())
    assert hits >= len(owning) - 1
    assert summary["turns"]["n"] == 4000


def test_report_files_are_complete_and_self_contained(report):
    written, summary, _ = report
    out = written["dir"]
    names = sorted(p.name for p in out.iterdir())
    assert {"report.md", "report.html", "summary.json"} <= set(names)
    pngs = [p for p in written["figures"]]
    assert len(pngs) >= 8 and all(p.exists() for p in pngs)
    for png in pngs:
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", data[16:24])
        assert 700 <= width <= 1000 and 200 <= height <= 1600, (png.name, width, height)
    page = written["html"].read_text()
    sources = re.findall(r'src="([^"]*)"', page)
    assert len(sources) == len(pngs) and all(
        s.startswith("data:image/png;base64,") for s in sources
    )
    assert not re.search(r'href="(?!#)', page)  # no external links or stylesheets
    md = written["markdown"].read_text()
    for png in pngs:
        assert f"]({png.name})" in md
    # rates are printed with interval and n; mob names come from the columns
    assert re.search(r"\| 0 \| \d+\.\d% \[\d+\.\d, \d+\.\d\] \| [\d,]+ \| 4,000 \|", md)
    for mob in SPEC.mobs:
        assert f"| {mob} |" in md
    for value in CHARACTERISTICS["a"]:
        assert tables.label(value) in md
    for section in ("Win rates", "Experience points", "Game length", "Scoring-round choices"):
        assert f"## {section}" in md and section.split()[0] in page


def test_estimated_values_warning_only_when_used(report, other_report):
    written, summary, _ = report
    page, md = written["html"].read_text(), written["markdown"].read_text()
    assert summary["components"]["estimated_values"] == 120
    assert page.count('class="warning"') >= 1 and "Estimated component values" in page
    assert "`mobs.enderman.hearts`" in md and "<code>mobs.enderman.hearts</code>" in page
    assert "> **⚠ Estimated component values.**" in md
    other, other_summary = other_report
    page2, md2 = other["html"].read_text(), other["markdown"].read_text()
    assert other_summary["components"]["estimated_values"] == 0
    assert "Estimated component values" not in page2 + md2
    assert "none estimated" in md2


def test_other_run_species_players_partial_and_escaping(other_report):
    written, summary = other_report
    md, page = written["markdown"].read_text(), written["html"].read_text()
    assert summary["status"] == "partial" and summary["n_games"] == 400  # 2 of 3 parts
    assert "Partial run." in md and 'class="warning"' in page
    assert {r["seat"] for r in summary["win_rate"]["by_seat"]} == {0, 1, 2}
    assert abs(summary["fair_share"] - 1 / 3) < 1e-12
    assert [r["mob"] for r in summary["fights"]] == ["ghast", "blaze"]
    assert [r["name"] for r in summary["owning_building"]] == ["tower", "farm", "well"]
    for name in ("spider", "enderman", "bridge"):
        assert name not in md
    assert "<title>Other &lt;run&gt; &amp; co</title>" in page and "<run>" not in page


def test_write_report_from_frames_and_builder_pieces(tmp_path):
    spec = FakeSpec(n_games=200, chunk_size=200, estimated_values=0)
    seats, games = make_frames(spec)
    meta = make_meta(spec) | {"status": "complete"}
    written = write_report((seats, games, meta), tmp_path / "out")
    summary = json.loads(written["summary"].read_text())
    assert summary["n_games"] == 200 and summary["title"] == "bnb-sim run report"

    builder = ReportBuilder("T")
    a = builder.add(Section("Part <A>"))
    a.text("use `code` and **bold** <script>x</script>").table(seats.head(2)[["game", "policy"]])
    a.summary["answer"] = float("nan")
    from bnb_sim.analysis import plots

    hist = tables.xp_histogram(seats)
    for _ in range(2):  # the same figure name twice gets a distinct file
        a.figure("same", plots.xp_distribution(hist, {}, "t"), "caption")
    out = builder.write(tmp_path / "b")
    assert [p.name for p in out["figures"]] == ["same.png", "same-2.png"]
    page = out["html"].read_text()
    assert "<code>code</code>" in page and "<strong>bold</strong>" in page
    assert "&lt;script&gt;x&lt;/script&gt;" in page and 'id="part-a"' in page
    assert json.loads(out["summary"].read_text())["answer"] is None


def _run_cli(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    captured = capsys.readouterr()
    return info.value.code, captured.out, captured.err


@pytest.mark.parametrize("case", ["missing", "not-a-run", "bad-json", "corrupt", "unwritable"])
def test_cli_bad_input_is_one_line_exit_2(tmp_path, capsys, case):
    run = tmp_path / "run"
    out = tmp_path / "out"
    if case != "missing":
        run.mkdir()
    if case == "bad-json":
        (run / "run.json").write_text('{"format": 1,')
    if case in ("corrupt", "unwritable"):
        run.rmdir()
        write_fake_run(run, FakeSpec(n_games=100, chunk_size=50))
    if case == "corrupt":
        part = run / "games" / part_name(1)
        part.write_bytes(part.read_bytes()[:-40])
    if case == "unwritable":
        (tmp_path / "blocker").write_text("a file where a folder should be")
        out = tmp_path / "blocker" / "report"
    code, stdout, stderr = _run_cli(["report", str(run), "--out", str(out)], capsys)
    assert code == 2, (stdout, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bnb: error: ") and "Traceback" not in stderr
    expected = {
        "missing": "no such run directory",
        "not-a-run": "not a run directory (no run.json)",
        "bad-json": "not valid JSON",
        "corrupt": f"{part_name(1)}: corrupt Parquet part",
        "unwritable": "cannot write the report there",
    }[case]
    assert expected in lines[0]
    assert not out.exists() or case == "unwritable"


def test_cli_report_in_a_fresh_interpreter_never_imports_numba(tmp_path):
    """`bnb report RUN` end to end: default --out is reports/<run name>; numba stays out."""
    write_fake_run(tmp_path / "my-run", FakeSpec(n_games=100, chunk_size=100))
    code = (
        "import sys\n"
        "from bnb_sim.cli import main\n"
        "try:\n"
        "    main(['report', 'my-run'])\n"
        "except SystemExit as e:\n"
        "    assert e.code in (0, None), e.code\n"
        "bad = sorted(m for m in sys.modules if m == 'numba' or m.startswith('numba.'))\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "reports/my-run/report.html" in result.stdout
    assert (tmp_path / "reports" / "my-run" / "report.html").exists()


def test_truth_model_is_what_the_docstring_says():
    """fake_runs itself: with equal strengths seat 0 wins 0.30 + 0.04 * 0.20."""
    t = truth(FakeSpec(strength={}, n_games=4000))
    assert math.isclose(t.seat_win[0], 0.308)
    assert math.isclose(sum(t.seat_win.values()), 1.04)


# --------------------------------------------------------------------------------------
# issue 10: confounding, warnings, n and intervals, rounding


def _fixed_seat_frames(n_games=800):
    """A fake run with fixed seats: seat s is always played by the same player."""
    spec = FakeSpec(n_games=n_games, chunk_size=n_games, estimated_values=0)
    seats, games = make_frames(spec)
    policy = seats["policy"].astype(str).to_numpy().copy()
    by_seat = np.array(spec.policies)[seats["seat"].to_numpy()]
    seats = seats.assign(policy=pd.Categorical(by_seat))
    assert (policy != by_seat).any()  # the fake run rotates; the copy does not
    meta = make_meta(spec) | {"status": "complete"}
    meta["params"] = dict(meta.get("params", {}), seating="fixed")
    return seats, games, meta


def test_fixed_seats_with_different_policies_withhold_fpa_and_balance(tmp_path):
    """D3: with --fixed-seats the report presented policy strength as first-player advantage
    (+99.4 pp) and balance (0.006). Now it says so and summary.json carries a warning."""
    seats, games, meta = _fixed_seat_frames()
    written = write_report((seats, games, meta), tmp_path / "out")
    summary = _strict_json(written["summary"].read_text())
    codes = [w["code"] for w in summary["warnings"]]
    assert codes == ["seat_policy_confounded"]
    assert all(set(w) == {"code", "message"} and w["message"] for w in summary["warnings"])
    assert summary["first_player_advantage"]["value"] is None
    assert summary["first_player_advantage"]["withheld"] == "seat_policy_confounded"
    assert summary["balance"]["value"] is None
    md = written["markdown"].read_text()
    assert "Seat and policy confounded." in md
    row = next(line for line in md.splitlines() if line.startswith("| first-player advantage"))
    assert "not shown" in row and " pp [" not in row
    # without the seating in the meta the data alone gives it away (one policy per seat)
    meta["params"].pop("seating")
    assert seat_policy_confound(seats, meta)["code"] == "seat_policy_confounded"
    # a mix that differs between seats without one policy per seat
    policy = seats["policy"].astype(str).to_numpy().copy()
    swap = (seats["game"] % 4 == 0).to_numpy()
    policy[swap & (seats["seat"] == 0).to_numpy()] = "greedy"
    policy[swap & (seats["seat"] == 1).to_numpy()] = "heuristic"
    mixed = seats.assign(policy=pd.Categorical(policy))
    assert seat_policy_confound(mixed, meta)["code"] == "seat_policy_unbalanced"
    rotated, _ = make_frames(FakeSpec(n_games=800, chunk_size=800, estimated_values=0))
    assert seat_policy_confound(rotated, meta) is None
    assert seat_policy_confound(seats, {"params": {"seating": "random"}}) is None


def test_rotating_seats_have_no_confound_warning_but_list_the_others(report, other_report):
    _, summary, _ = report
    assert [w["code"] for w in summary["warnings"]] == ["estimated_components"]
    assert summary["first_player_advantage"]["value"] is not None
    _, other = other_report
    assert [w["code"] for w in other["warnings"]] == ["partial_run"]


def test_estimates_have_n_and_intervals(report):
    """D8: XP by source, play style, choice shares and the policy x seat table had no n or
    no interval; FPA and balance rows had no n."""
    written, summary, truth_ = report
    md = written["markdown"].read_text()
    lines = md.splitlines()

    def table_after(marker):
        start = next(i for i, line in enumerate(lines) if marker in line)
        rows = []
        for line in lines[start + 1 :]:
            if line.startswith("|"):
                rows.append(line)
            elif rows:
                break
        return rows

    for marker in ("Mean XP per player and game from each source", "Mean per player and game"):
        rows = table_after(marker)
        assert rows[0].rstrip(" |").endswith("n")  # an n column
        assert all("[" in row for row in rows[2:]), marker
    choice = table_after("Round A: share of each value chosen")
    assert all(row.count("[") == 4 for row in choice[2:])
    fights = table_after("fights of one player in one game are not independent")
    assert "attempts per player-game [95% CI]" in fights[0]
    assert all(row.split(" | ")[1].count("[") == 1 for row in fights[2:])
    policy_seat = table_after("of each policy in each seat.")
    assert all("n=" in row for row in policy_seat[2:])
    assert "| n |" in next(line for line in lines if line.startswith("| measure |"))
    head = table_after("| measure |")
    assert all("| 4,000 |" in r for r in head[1:4])
    # the source means cover the truth and come with their n
    by_source = {(r["policy"], r["column"]): r for r in summary["xp"]["by_source_ci"]}
    row = by_source[("heuristic", "xp_mobs")]
    assert row["n"] == 4000 and row["lo"] < row["mean"] < row["hi"]
    assert summary["balance"]["p_value"] is not None


def test_one_game_shows_n_a_not_nan_or_full_range(tmp_path):
    """D6/D8: a 1-game run printed "+100.0 pp [-100.0, +100.0]", "0.000 [0.000, 0.000]"
    and an XP sd of "nan"."""
    spec = FakeSpec(n_games=1, chunk_size=1, estimated_values=0)
    seats, games = make_frames(spec)
    meta = make_meta(spec) | {"status": "complete"}
    md = write_report((seats, games, meta), tmp_path / "one")["markdown"].read_text()
    assert not re.search(r"\bnan\b", md, re.IGNORECASE)
    assert "-100.0" not in md and "[0.000, 0.000]" not in md
    row = next(line for line in md.splitlines() if line.startswith("| first-player advantage"))
    assert "n/a" in row
    row = next(line for line in md.splitlines() if line.startswith("| balance"))
    assert "n/a" in row


def test_rates_use_one_precision_per_column_and_never_minus_zero(report):
    """D7: the fights table mixed "90.49%" and "61.8%" in one column; "-0.00" appeared."""
    written, _, _ = report
    md = written["markdown"].read_text()
    assert "-0.00" not in md and "−0.00" not in md
    for block in md.split("\n\n"):
        rows = [r for r in block.splitlines() if r.startswith("| ") and "%" in r]
        if len(rows) < 2:
            continue
        cells = [r.strip("|").split(" | ") for r in rows]
        for col in range(len(cells[0])):
            decimals = {
                len(m.group(1))
                for c in cells
                if col < len(c)
                for m in [re.match(r"\s*\d+\.(\d+)% \[", c[col])]
                if m
            }
            assert len(decimals) <= 1, (block[:80], col, decimals)


def test_tables_formatting_helpers():
    assert tables.fmt_signed_pp(-0.00001, -0.01, 0.01) == "0.0 pp [-1.0, +1.0]"
    assert tables.fmt_signed_pp(0.5, float("nan"), float("nan"), note="n < 2") == (
        "+50.0 pp (no interval: n < 2)"
    )
    assert tables.fmt_mean(2.0, float("nan"), float("nan"), note="all values equal") == (
        "2.00 (no interval: all values equal)"
    )
    assert tables.fmt_sd(float("nan")) == "n/a"
    frame = pd.DataFrame({"rate": [0.9049, 0.618], "lo": [0.90, 0.60], "hi": [0.909, 0.63]})
    # each cell its own decimals (issue 25, item 8): one narrow row no longer sets the column
    assert tables.rate_cells(frame) == ["90.49% [90.00, 90.90]", "61.8% [60.0, 63.0]"]


def test_summary_json_has_a_schema_version(report):
    _, summary, _ = report
    assert summary["schema_version"] == report_module.SUMMARY_SCHEMA_VERSION == 1
    assert next(iter(summary)) == "schema_version"  # the first key, for readers that peek
