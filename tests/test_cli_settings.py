"""Option defaults from the environment and a config file, the same way for every command
(bnb_sim/cli/settings.py), and ``--quiet`` on every command that prints progress."""

from __future__ import annotations

import json

import click
import pytest
from fake_runs import FakeSpec, write_fake_run
from test_cli_simulate import run_cli

from bnb_sim.cli import COMMANDS, cli


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch, tmp_path):
    """No user config or BNB_* variable of the machine running the tests leaks in."""
    import os

    for name in list(os.environ):
        if name.startswith("BNB_") and name != "BNB_PROGRESS_INTERVAL":
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


@pytest.fixture(scope="module")
def fake_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("settings") / "run"
    write_fake_run(path, FakeSpec(n_games=120, chunk_size=50))
    return path


def _all_commands():
    """(path, command) for every command and sub-command, loaded like ``bnb`` loads them."""
    ctx = click.Context(cli)
    found = []

    def walk(path, command):
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk((*path, name), sub)
        else:
            found.append((path, command))

    for name in COMMANDS:
        walk((name,), cli.get_command(ctx, name))
    return found


# -- environment variables ---------------------------------------------------------------


def test_every_option_of_every_command_has_its_environment_variable():
    for path, command in _all_commands():
        for param in command.params:
            if not isinstance(param, click.Option) or param.name == "help":
                continue
            long = next(o for o in param.opts if o.startswith("--")).lstrip("-")
            expected = "BNB_" + "_".join(w.upper().replace("-", "_") for w in (*path, long))
            assert expected in param.envvar, (path, param.opts, param.envvar)
            if long in ("threads", "quiet"):
                assert "BNB_" + long.upper() in param.envvar


def test_every_command_that_prints_progress_has_quiet():
    silent_by_nature = {("readings",), ("components", "show"), ("components", "validate")}
    silent_by_nature |= {("components", "template"), ("components", "sources"), ("cache",)}
    silent_by_nature |= {("train", "show")}
    for path, command in _all_commands():
        names = {o for p in command.params for o in getattr(p, "opts", [])}
        if path in silent_by_nature:
            continue
        assert "--quiet" in names and "-q" in names, path


def test_a_command_option_from_its_environment_variable(capsys, monkeypatch):
    code, out, _ = run_cli(capsys, ["readings"])
    assert code == 0 and not out.lstrip().startswith("{")
    monkeypatch.setenv("BNB_READINGS_JSON", "1")
    code, out, err = run_cli(capsys, ["readings"])
    assert code == 0, err
    assert "readings" in json.loads(out)


def _fake_write_report(monkeypatch):
    """bnb report without its (slow) tables and figures: the status lines and the paths."""
    import bnb_sim.analysis.protocol_report as report  # what bnb report calls, every game
    from bnb_sim.feedback import status

    calls = []

    def write_report(game, run, out, title=None):
        status("tables and figures: win rates")
        calls.append(title)
        return {"dir": out, "html": out / "report.html", "markdown": out / "report.md",
                "summary": out / "summary.json", "figures": []}  # fmt: skip

    monkeypatch.setattr(report, "write_report", write_report)
    return calls


def test_shared_quiet_variable_silences_progress(tmp_path, capsys, monkeypatch, fake_run):
    _fake_write_report(monkeypatch)
    code, _, err = run_cli(capsys, ["report", fake_run, "--out", tmp_path / "a"])
    assert code == 0, err
    assert "bnb report:" in err and "tables and figures: win rates" in err
    code, _, err = run_cli(capsys, ["export", fake_run, "--csv", tmp_path / "c"])
    assert code == 0 and "bnb export:" in err and "seats.csv" in err
    monkeypatch.setenv("BNB_QUIET", "true")
    code, _, err = run_cli(capsys, ["report", fake_run, "--out", tmp_path / "b"])
    assert code == 0 and err == ""
    code, _, err = run_cli(capsys, ["export", fake_run, "--csv", tmp_path / "d"])
    assert code == 0 and err == ""
    monkeypatch.setenv("BNB_QUIET", "0")
    monkeypatch.setenv("BNB_EXPORT_QUIET", "1")  # the command's own name wins
    code, _, err = run_cli(capsys, ["export", fake_run, "--csv", tmp_path / "e"])
    assert code == 0 and err == ""


def test_report_status_lines_from_the_real_report(tmp_path, capsys, fake_run):
    code, _, err = run_cli(capsys, ["report", fake_run, "--out", tmp_path / "r"])
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("bnb report:")]
    steps = [line.split(" s  ", 1)[1] for line in lines]
    assert steps[0].startswith("reading ") and steps[-1].startswith("writing ")
    assert "tables and figures: win rates" in steps and "tables and figures: fights" in steps


def test_the_command_line_wins_over_the_environment(tmp_path, capsys, monkeypatch, fake_run):
    calls = _fake_write_report(monkeypatch)
    monkeypatch.setenv("BNB_REPORT_TITLE", "from the environment")
    run_cli(capsys, ["report", fake_run, "--out", tmp_path / "a", "-q"])
    run_cli(capsys, ["report", fake_run, "--out", tmp_path / "b", "-q", "--title", "given"])
    assert calls == ["from the environment", "given"]


def test_a_bad_environment_value_is_one_line(capsys, monkeypatch):
    monkeypatch.setenv("BNB_THREADS", "many")
    code, out, err = run_cli(capsys, ["tournament", "--policy", "random", "--games", "2"])
    assert code == 2 and out == ""
    assert err.startswith("bnb: error: ") and "'many'" in err and len(err.splitlines()) == 1


# -- the config file -----------------------------------------------------------------------


def _config(tmp_path, text: str):
    path = tmp_path / "bnb.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_config_file_tables_and_defaults(tmp_path, capsys, monkeypatch, fake_run):
    calls = _fake_write_report(monkeypatch)
    config = _config(tmp_path, '[defaults]\nquiet = true\n\n[report]\ntitle = "from the file"\n')
    code, _, err = run_cli(capsys, ["--config", config, "report", fake_run, "-o", tmp_path / "r"])
    assert code == 0 and err == ""  # [defaults] quiet reached bnb report
    assert calls == ["from the file"]
    code, _, err = run_cli(capsys, ["--config", config, "export", fake_run, "--csv", tmp_path])
    assert code == 2 and "not empty" in err  # [defaults] reach every command with the option


def test_the_default_config_file_and_no_config(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "xdg" / "bnb-sim"
    folder.mkdir(parents=True)
    (folder / "config.toml").write_text("[readings]\njson = true\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, ["readings"])
    assert code == 0 and json.loads(out)
    code, out, _ = run_cli(capsys, ["--no-config", "readings"])
    assert code == 0 and not out.lstrip().startswith("{")
    monkeypatch.setenv("BNB_READINGS_JSON", "0")  # the environment wins over the file
    code, out, _ = run_cli(capsys, ["readings"])
    assert not out.lstrip().startswith("{")


def test_config_for_a_sub_command(tmp_path, capsys):
    config = _config(tmp_path, "[components.show]\njson = true\n")
    code, out, err = run_cli(capsys, ["--config", config, "components", "show"])
    assert code == 0, err
    assert isinstance(json.loads(out), dict)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[simulat]\n", "[simulat]: bnb has no such command (did you mean 'simulate'?)"),
        ("[report]\ntitel = 'x'\n", "[report] titel: bnb report has no such option (did you "
         "mean 'title'?)"),
        ("[defaults]\nthreds = 2\n", "[defaults] threds: no command has this option (did you "
         "mean 'threads'?)"),
        ("[tournament]\nthreads = 'x'\n", "[tournament] threads: 'x' is not a valid integer"),
        ("[tournament]\npolicy = 'random'\n", "[tournament] policy: give a list"),
        ("[components.show]\njsn = true\n", "[components.show] jsn: bnb components show has "
         "no such option (did you mean 'json'?)"),
        ("report = 3\n", "[report] must be a table"),
        ("[report\n", "not valid TOML"),
    ],
)  # fmt: skip
def test_config_errors_are_one_line_naming_file_table_and_key(tmp_path, capsys, text, message):
    config = _config(tmp_path, text)
    code, out, err = run_cli(capsys, ["--config", config, "readings"])
    assert code == 2 and out == ""
    assert err.startswith(f"bnb: error: config: {config}: ")
    assert message in err, err
    assert len(err.strip().splitlines()) == 1


def test_a_named_config_file_must_exist(tmp_path, capsys, monkeypatch):
    missing = tmp_path / "nope.toml"
    code, _, err = run_cli(capsys, ["--config", missing, "readings"])
    assert code == 2 and f"config: {missing}: file not found" in err
    monkeypatch.setenv("BNB_CONFIG", str(missing))
    code, _, err = run_cli(capsys, ["readings"])
    assert code == 2 and "file not found" in err


def test_config_list_option_reaches_the_command(tmp_path, capsys):
    config = _config(tmp_path, "[tournament]\npolicy = ['random', 'greedy']\ngames = 2\n")
    out_dir = tmp_path / "t"
    code, out, err = run_cli(
        capsys,
        ["--config", config, "tournament", "--players", "2", "-q", "--threads", "1",
         "--out", out_dir, "--json"],
    )  # fmt: skip
    assert code == 0, err
    payload = json.loads(out)
    assert sorted(payload["summary"]["params"]["policies"]) == ["greedy", "random"]
