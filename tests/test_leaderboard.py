"""The leaderboard command: its plan, its files, its arguments, and results that do not depend on --jobs."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("openskill")

from conftest import redeclare

from monster_zoo import envs
from monster_zoo.agents.az.shipped import network_ships, newest_version, shipped_network_path
from monster_zoo.agents.network import read_network
from monster_zoo.agents.ppo.champions import champion_games, champion_versions
from monster_zoo.envs.registry import declaration
from monster_zoo.evaluation import leaderboard

GAME = "marry_the_monster-v0"


def test_plan_covers_every_game_at_its_smallest_count_and_four():
    tables = leaderboard.plan(envs.available())
    seen = {(t.game_id, t.num_players) for t in tables}
    for game_id in envs.available():
        spec = envs.spec(game_id)
        assert (game_id, spec.min_players) in seen and (game_id, 4) in seen
    for t in tables:
        name = envs.spec(t.game_id).name
        greedy = envs.spec(t.game_id).baselines["greedy"].version
        assert t.field[:2] == (f"{name}-random-v1", f"{name}-greedy-v{greedy}")
        assert t.field[2:4] == (f"{name}-mcts-v2", f"{name}-mcts-fast-v1")
        has_champion = t.num_players in champion_games().get(name, [])
        newest = champion_versions(name, t.num_players)[-1] if has_champion else None
        assert [a for a in t.field if "-champion-" in a] == (
            [f"{name}-champion-v{newest}"] if has_champion else []
        )
        plays = (
            network_ships(t.game_id)
            and t.num_players in read_network(shipped_network_path(t.game_id)).player_counts
        )
        az = f"{name}-az-v{newest_version(t.game_id)}"
        assert [a for a in t.field if "-az-" in a] == ([az] if plays else [])
        asked = leaderboard.GAMES_FOUR if t.num_players == 4 else leaderboard.GAMES_SMALLEST
        assert t.games % t.num_players == 0 and asked <= t.games < asked + t.num_players
    scaled = leaderboard.plan([GAME], scale=0.01)
    assert [t.games for t in scaled] == [2, 4]  # never fewer games than seats


@pytest.fixture
def tiny_search(monkeypatch):
    """Marry the Monster's search and learned search (every version of its network) at 20
    simulations, so a whole table plays in seconds."""
    declared = declaration(GAME).agents
    flat = {
        key: value for key, value in declared["az"].items() if key != "versions"
    }  # no version's own count
    redeclare(
        monkeypatch,
        GAME,
        agents={
            **declared,
            "mcts": {**declared["mcts"], "simulations": 20},
            "az": {**flat, "simulations": 20},
        },
    )


def test_writes_markdown_pictures_and_json_and_jobs_do_not_change_results(tmp_path, tiny_search):
    one = leaderboard.run([GAME], tmp_path / "one" / "lb.md", seed=3, scale=0.05, jobs=1, progress=False)
    leaderboard.run([GAME], tmp_path / "two" / "lb.md", seed=3, scale=0.05, jobs=2, progress=False)
    text = one.read_text()
    assert text.startswith("# Leaderboard") and "Seed 3" in text
    for n in (2, 4):
        key = f"marry_the_monster-{n}p"
        assert f"## {GAME}: {n} players" in text and f"(lb/{key}.png)" in text
        assert (tmp_path / "one" / "lb" / f"{key}.png").stat().st_size > 1000
        first, second = (
            json.loads((tmp_path / d / "lb" / f"{key}.json").read_text()) for d in ("one", "two")
        )
        for data in (first, second):
            data.pop("elapsed_s")
            measured = data.pop("measured")  # when and where it was played, for the results pages
            assert set(measured) >= {"time", "cpu", "cores", "load_1min"} and measured["cores"] >= 1
        assert first == second
        assert {p["agent"] for p in first["ratings"]} == set(first["field"])


def test_resume_reads_back_finished_tables_and_plays_only_what_changed(
    tmp_path, tiny_search, monkeypatch, capsys
):
    out = tmp_path / "lb.md"
    leaderboard.run([GAME], out, seed=3, scale=0.05, progress=False)
    said = capsys.readouterr().err  # each tournament is announced before it plays
    assert "2 of 2 tournaments to play" in said
    assert f"[1/2] {GAME} at 2 players: " in said and f"[2/2] {GAME} at 4 players: " in said
    first = out.read_text()
    played = []
    real = leaderboard.play_table

    def counting(table, *args):
        played.append(table.key)
        return real(table, *args)

    monkeypatch.setattr(leaderboard, "play_table", counting)
    leaderboard.run([GAME], out, seed=3, scale=0.05, progress=False, resume=True)
    assert played == []
    assert "0 of 2 tournaments to play (2 read back from " in capsys.readouterr().err
    again = out.read_text()
    assert "2 of them taken from an earlier run" in again
    # the tables read back render exactly as when they were played (the records are not kept)
    assert first.split("## ", 1)[1] == again.split("## ", 1)[1]
    # a table whose JSON no longer matches (another seed here) is played again
    leaderboard.run([GAME], out, seed=4, scale=0.05, progress=False, resume=True)
    assert sorted(played) == ["marry_the_monster-2p", "marry_the_monster-4p"]
    # a damaged file or one with missing fields is played again, not a crash
    (tmp_path / "lb" / "marry_the_monster-2p.json").write_text("{not json")
    (tmp_path / "lb" / "marry_the_monster-4p.json").write_text(
        json.dumps(
            {
                "game": GAME,
                "field": list(leaderboard.leaderboard_field(GAME, 4)),
                "num_players": 4,
                "games_per_pairing": leaderboard.plan([GAME], 0.05)[1].games,
                "seed": 4,
            }
        )
    )
    played.clear()
    leaderboard.run([GAME], out, seed=4, scale=0.05, progress=False, resume=True)
    assert sorted(played) == ["marry_the_monster-2p", "marry_the_monster-4p"]


def test_resume_plays_again_a_table_whose_agents_settings_or_files_changed(
    tmp_path, tiny_search, monkeypatch
):
    """A shipped agent keeps its versioned name when its declared settings change (az-v1 after its
    rollout weight moved): --resume must not reuse a table it played with the old ones, nor one
    that recorded no settings, while an unchanged table is still read back."""
    out = tmp_path / "lb.md"
    leaderboard.run([GAME], out, seed=3, scale=0.05, progress=False)
    recorded = json.loads((tmp_path / "lb" / "marry_the_monster-2p.json").read_text())["settings"]
    assert recorded["agents"]["az"]["simulations"] == 20 and recorded["agents"]["mcts"]["simulations"] == 20
    # the field's champion is the newest at 2 players: version 2, the az network alone
    assert set(recorded["files"]) == {"marry_the_monster-2p-v2.npz", shipped_network_path(GAME).name}
    assert all(len(digest) == 64 for digest in recorded["files"].values())
    played = []
    real = leaderboard.play_table
    monkeypatch.setattr(
        leaderboard, "play_table", lambda table, *args: played.append(table.key) or real(table, *args)
    )
    declared = declaration(GAME).agents
    redeclare(monkeypatch, GAME, agents={**declared, "az": {**declared["az"], "rollout_weight": 0.5}})
    leaderboard.run([GAME], out, seed=3, scale=0.05, progress=False, resume=True)
    assert sorted(played) == ["marry_the_monster-2p", "marry_the_monster-4p"]  # az plays both counts
    played.clear()
    leaderboard.run([GAME], out, seed=3, scale=0.05, progress=False, resume=True)
    assert played == []
    path = tmp_path / "lb" / "marry_the_monster-4p.json"
    data = json.loads(path.read_text())
    data.pop("settings")
    path.write_text(json.dumps(data))
    data = json.loads((tmp_path / "lb" / "marry_the_monster-2p.json").read_text())
    leaderboard.run([GAME], out, seed=3, scale=0.05, progress=False, resume=True)
    assert played == ["marry_the_monster-4p"]
    data["settings"]["files"]["marry_the_monster-2p-v2.npz"] = "0" * 64  # another champion file
    (tmp_path / "lb" / "marry_the_monster-2p.json").write_text(json.dumps(data))
    played.clear()
    leaderboard.run([GAME], out, seed=3, scale=0.05, progress=False, resume=True)
    assert played == ["marry_the_monster-2p"]


def test_tables_play_seat_balanced_counts_and_older_json_is_read_back(tmp_path, tiny_search):
    """A table asks for the games the tournament plays (rounded up to a multiple of the player
    count), and a JSON written before ``rated_games`` was recorded still reads back: both once
    made ``--resume`` replay every table of the committed leaderboard."""
    tables = leaderboard.plan([GAME], 0.75)
    assert [(t.num_players, t.games) for t in tables] == [(2, 30), (4, 16)]
    out = tmp_path / "lb.md"
    leaderboard.run([GAME], out, seed=3, scale=0.05, progress=False)
    for key in ("marry_the_monster-2p", "marry_the_monster-4p"):
        path = tmp_path / "lb" / f"{key}.json"
        data = json.loads(path.read_text())
        data.pop("rated_games")
        path.write_text(json.dumps(data))
    summaries = [leaderboard.finished_table(t, 3, tmp_path / "lb") for t in leaderboard.plan([GAME], 0.05)]
    assert all(s is not None and s["reused"] for s in summaries)


def test_the_command_says_what_it_does_then_its_expected_duration_before_the_first_game(
    tmp_path, tiny_search, capsys, monkeypatch
):
    """The first line comes before anything slow (the plan loads every declaration and digest);
    every field is timed with a line of its own (its first moves compile); the estimate,
    compiling apart, comes before the first tournament."""
    from monster_zoo.cli import main as cli

    said_before_the_plan = []
    plan = leaderboard.plan

    def plan_after_the_first_line(*args, **kwargs):
        if not said_before_the_plan:
            said_before_the_plan.append(capsys.readouterr().err)
        return plan(*args, **kwargs)

    monkeypatch.setattr(leaderboard, "plan", plan_after_the_first_line)
    out = tmp_path / "lb.md"
    argv = ["leaderboard", "--games", GAME, "--scale", "0.05", "--out", str(out), "--no-progress"]
    assert cli.main(argv) == 0
    assert said_before_the_plan[0].startswith("monster-zoo leaderboard: planning the tournaments")
    err = (said_before_the_plan[0] + capsys.readouterr().err).splitlines()
    assert err[0].startswith("monster-zoo leaderboard: planning the tournaments and timing")
    assert err[1] == "2 of 2 tournaments to play"
    timing = [k for k, line in enumerate(err) if line.startswith("estimating [")]
    assert [err[k].split(":")[0] for k in timing] == [
        "estimating [1/2] marry_the_monster-2p",
        "estimating [2/2] marry_the_monster-4p",
    ]
    assert all(err[k + 1].startswith(f"  marry_the_monster-{n}p: about ") for k, n in zip(timing, (2, 4)))
    (estimate_line,) = [k for k, line in enumerate(err) if line.startswith("expected duration: about ")]
    first_game = next(k for k, line in enumerate(err) if line.startswith("[1/2] "))
    assert timing[-1] < estimate_line < first_game
    assert "for 2 tournament(s) with 1 parallel process(es)" in err[estimate_line]
    assert "s of compiling the kernels while estimating" in err[estimate_line]
    assert out.is_file()


def test_a_run_read_back_whole_estimates_nothing(tmp_path, tiny_search, capsys):
    leaderboard.run([GAME], tmp_path / "lb.md", seed=3, scale=0.05, progress=False)
    capsys.readouterr()
    leaderboard.run(
        [GAME], tmp_path / "lb.md", seed=3, scale=0.05, progress=False, resume=True, estimate=True
    )
    err = capsys.readouterr().err
    assert "0 of 2 tournaments to play" in err and "expected duration" not in err and "estimating" not in err


def test_bad_arguments_exit_2_with_the_reason(tmp_path):
    cases = [
        (["--games", "chess-v0"], "unknown game"),
        (["--scale", "0"], "--scale"),
        (["--jobs", "0"], "--jobs"),
        (["--seed", "-1"], "seed"),
        (["--out", str(tmp_path / "lb.txt")], "markdown"),
    ]
    for extra, message in cases:
        done = subprocess.run(
            [sys.executable, "-m", "monster_zoo", "leaderboard", "--no-progress", *extra],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 2 and message in done.stderr, (extra, done.stderr[-500:])
    assert not (tmp_path / "lb").exists()


def test_a_table_stopped_mid_way_resumes_its_finished_pairings_and_ends_as_if_played_at_once(
    tmp_path, tiny_search, monkeypatch
):
    from monster_zoo.evaluation import match, pairing_cache

    whole = leaderboard.run([GAME], tmp_path / "whole" / "lb.md", seed=3, scale=0.05, progress=False)
    real, started = match.iter_games, []

    def stopping(*args, **kwargs):  # the third pairing of the run is where it stops
        started.append(args[1])
        if len(started) == 3:
            raise KeyboardInterrupt
        yield from real(*args, **kwargs)

    monkeypatch.setattr(pairing_cache, "iter_games", stopping)
    out = tmp_path / "stopped" / "lb.md"
    with pytest.raises(KeyboardInterrupt):
        leaderboard.run([GAME], out, seed=3, scale=0.05, progress=False)
    kept = list((tmp_path / "stopped" / "lb" / ".marry_the_monster-2p.pairings").iterdir())
    assert len(kept) == 2  # the two pairings finished before the stop
    kept[0].write_text('[{"game": 0}]')  # a damaged pairing is played again, not a crash
    replayed = []
    monkeypatch.setattr(pairing_cache, "iter_games", lambda *a, **k: replayed.append(a[1]) or real(*a, **k))
    leaderboard.run([GAME], out, seed=3, scale=0.05, progress=False, resume=True)
    two_player_pairings = (
        len(leaderboard.leaderboard_field(GAME, 2)) * (len(leaderboard.leaderboard_field(GAME, 2)) - 1) // 2
    )
    assert len([s for s in replayed if len(s) == 2]) == two_player_pairings - 1  # only the damaged one again
    for n in (2, 4):
        key = f"marry_the_monster-{n}p"
        first, second = (
            json.loads((folder / "lb" / f"{key}.json").read_text()) for folder in (whole.parent, out.parent)
        )
        for data in (first, second):
            data.pop("elapsed_s"), data.pop("measured")  # the time and load differ between the runs
        assert first == second
        assert not (out.parent / "lb" / f".{key}.pairings").exists()  # removed once the table is written
