"""The search report (search vs greedy with CPU time per move): a tiny run and its refusals."""

import json
import subprocess
import sys

from monster_zoo.evaluation import search_report


def test_a_tiny_run_reports_the_protocol_and_appends_json(tmp_path, capsys):
    out = tmp_path / "search.jsonl"
    assert (
        search_report.main(
            [
                "--game",
                "monstargh-v0",
                "--players",
                "2",
                "--games",
                "4",
                "--simulations",
                "30",
                "--rollout",
                "greedy",
                "--json",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    (line,) = out.read_text().splitlines()
    result = json.loads(line)
    assert result["games"] == 4 and result["simulations"] == 30 and result["rollout"] == "greedy"
    assert 0 <= result["low"] <= result["win_rate"] <= result["high"] <= 1 and result["even_share"] == 0.5
    assert result["moves"] > 0 and result["cpu_s_per_move"] <= result["cpu_s_longest_move"]
    assert result["time"][:2] == "20" and result["cpu"] and result["cores"] >= 1 and "git" in result
    assert "| monstargh-v0 | 2 | 30 sims, c=1, greedy rollouts |" in capsys.readouterr().out


def test_bad_arguments_exit_2_naming_the_problem(tmp_path):
    cases = [
        (["--game", "chess-v0", "--players", "2"], "invalid choice"),
        (["--game", "mighty_monsters-v0", "--players", "2"], "--players must be from 3"),
        (["--game", "monstargh-v0", "--players", "2", "--games", "0"], "at least 1"),
        (["--game", "monstargh-v0", "--players", "2", "--rollout", "smart"], "invalid choice"),
        (["--game", "monstargh-v0", "--players", "2", "--exploration", "-1"], "--exploration"),
    ]
    for extra, message in cases:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "monster_zoo.evaluation.search_report",
                *extra,
                "--json",
                str(tmp_path / "x.jsonl"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 2 and message in done.stderr, (extra, done.stderr[-400:])
    assert not (tmp_path / "x.jsonl").exists()
