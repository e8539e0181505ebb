"""benchmarks/command_times.py times commands as typed and appends one record per run, which the
results pages render; here with commands that take a moment, never the real `make` targets."""

import json
import shlex
import sys
from pathlib import Path

import pytest

from monster_zoo.benchmarks import command_times

REPOSITORY = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPOSITORY / "docs"))

from render_results import render_headline  # noqa: E402
from results_engines import speed_page  # noqa: E402

QUICK = f"{shlex.quote(sys.executable)} -c 'import time; time.sleep(0.05)'"
ESTIMATING = f"{shlex.quote(sys.executable)} -c 'print(\"10 games, about 2 min; compiling\")'"
FAILING = f"{shlex.quote(sys.executable)} -c 'raise SystemExit(3)'"


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_each_run_appends_its_time_host_and_commit(tmp_path):
    out = tmp_path / "commands_test.jsonl"
    assert command_times.main(["--command", QUICK, "--repeats", "2", "--out", str(out)]) == 0
    assert command_times.main(["--command", QUICK, "--out", str(out)]) == 0
    runs = records(out)
    assert [r["repeat"] for r in runs] == [0, 1, 0]
    for run in runs:
        assert run["command"] == QUICK and run["exit_status"] == 0
        assert 0.05 <= run["wall_s"] < 60 and run["cpu_s"] >= 0
        assert run["cpu"] and run["cores"] >= 1 and run["time"].startswith("20")
        assert run["git"] is None or len(run["git"]) == 40
        assert run["numba_cache"] == "as found"


def test_the_estimate_a_command_prints_is_recorded_beside_its_time(tmp_path, capfd):
    out = tmp_path / "commands_test.jsonl"
    assert command_times.main(["--command", ESTIMATING, "--command", QUICK, "--out", str(out)]) == 0
    assert "10 games, about 2 min; compiling" in capfd.readouterr().out  # passed through as printed
    assert [r["stated_estimate"] for r in records(out)] == ["about 2 min", None]
    page = speed_page(_root_with(out)).markdown()
    assert "| about 2 min |" in page and "| none |" in page


def _root_with(out: Path) -> Path:
    """A repository-shaped folder whose measurements are ``out``'s records."""
    root = out.parent / "repo"
    (root / "docs" / "measurements").mkdir(parents=True)
    (root / "docs" / "measurements" / out.name).write_bytes(out.read_bytes())
    return root


def test_a_failing_command_is_recorded_and_reported(tmp_path):
    out = tmp_path / "commands_test.jsonl"
    assert command_times.main(["--command", FAILING, "--out", str(out)]) == 1
    assert records(out)[0]["exit_status"] == 3


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--command", " "], "needs a command line"),
        (["--command", "echo 'unclosed"], "cannot be split"),
        (["--repeats", "0"], "at least 1"),
        (["--out", "{tmp}"], "not a regular file"),
        (["--out", "{tmp}/times.txt"], "must end in .jsonl"),
    ],
)
def test_bad_arguments_are_refused_before_any_run(argv, message, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    with pytest.raises(SystemExit) as refused:
        command_times.main([*argv, "--out", str(tmp_path / "x.jsonl")] if "--out" not in argv else argv)
    assert refused.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.jsonl").exists()


def test_cold_cache_empties_numba_cache_beside_the_sources(tmp_path):
    cache = tmp_path / "envs" / "game" / "__pycache__"
    cache.mkdir(parents=True)
    for name in ("rules.step-1.py310.nbi", "rules.step-1.py310.1.nbc", "rules.cpython-310.pyc"):
        (cache / name).write_bytes(b"x")
    assert command_times.clear_numba_cache(tmp_path) == 2
    assert [p.name for p in cache.iterdir()] == ["rules.cpython-310.pyc"]


def test_the_records_render_on_the_speed_page_and_in_the_headline(tmp_path):
    out = tmp_path / "docs" / "measurements" / "commands_test.jsonl"
    out.parent.mkdir(parents=True)
    assert command_times.main(["--command", QUICK, "--out", str(out)]) == 0
    page = speed_page(tmp_path).markdown()
    assert "docs/measurements/commands_test.jsonl" in page
    row = next(line for line in page.splitlines() if "time.sleep" in line)
    assert f"| {records(out)[0]['wall_s']:.1f} s |" in row
    # the headline quotes `make test` and `make demo` when a record names them
    record = {**records(out)[0], "command": "make demo", "wall_s": 164.0}
    out.write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert "| `make demo` wall time | 2 min 44 s |" in render_headline(tmp_path)
