"""The terminal player (HumanAgent) and the ``monster-zoo`` / ``python -m monster_zoo.training`` command line."""

import importlib.util
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents.human.agent import HumanAgent, QuitGame
from monster_zoo.cli import main as cli
from monster_zoo.cli import trainers
from monster_zoo.cli.play import champion_seats
from monster_zoo.envs.core.contract import H_CURRENT
from monster_zoo.envs.core.rng import make_rng

GAME = "marry_the_monster-v0"
ROOT = Path(__file__).resolve().parents[1]


def first_decision(seed: int = 0, num_players: int = 3):
    """The env at its first decision: (env, observation, mask, live state)."""
    env = envs.make(GAME, num_players=num_players)
    env.reset(seed=seed)
    obs = env.observe(env.agent_selection)
    return env, obs["observation"], obs["action_mask"], env.unwrapped.engine_state


def scripted(lines):
    """A HumanAgent reading ``lines`` and writing into a StringIO (returned too)."""
    out = io.StringIO()
    return HumanAgent(
        GAME, input_stream=io.StringIO("".join(f"{x}\n" for x in lines)), output_stream=out
    ), out


def run_cli(*args, stdin="", timeout=120):
    """``python -m monster_zoo.training ARGS`` in a subprocess, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "monster_zoo.training", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# --- HumanAgent ---------------------------------------------------------------------
def test_bad_input_reprompts_until_a_legal_move():
    env, obs, mask, state = first_decision()
    spec = envs.spec(GAME)
    legal = np.flatnonzero(mask).tolist()
    illegal = spec.action_to_str(next(a for a in range(spec.num_actions) if not mask[a]), state)
    before = state.copy()
    agent, out = scripted(["garbage", illegal, str(len(legal) + 1), "0", "", "2"])
    assert agent.act(obs, mask, state) == legal[1]
    assert np.array_equal(state, before)
    text = out.getvalue()
    assert "cannot read action 'garbage'" in text
    assert f"'{illegal}' is not legal now: " in text
    assert f"there is no move {len(legal) + 1}: choose a number from 1 to {len(legal)}" in text
    assert "there is no move 0" in text and "type a move" in text
    assert text.count("your move") == 6
    assert f"  1. {spec.action_to_str(legal[0], state)}" in text


def test_moves_are_read_by_name_and_the_board_on_request():
    env, obs, mask, state = first_decision()
    name = env.unwrapped.action_to_str(np.flatnonzero(mask)[-1])
    agent, out = scripted(["board", f"  {name.upper()} "])
    assert agent.act(obs, mask, state) == np.flatnonzero(mask)[-1]
    assert out.getvalue().count("=== your turn: player_") == 2


def test_quit_and_end_of_input_stop_cleanly():
    _, obs, mask, state = first_decision()
    for lines in (["nonsense", "quit"], ["exit"], []):
        agent, _ = scripted(lines)
        with pytest.raises(QuitGame):
            agent.act(obs, mask, state)


def test_the_view_shows_only_what_the_seat_may_see():
    """Own hand shown; redealing everything the seat cannot see leaves the view unchanged."""
    spec = envs.spec(GAME)
    _, obs, mask, state = first_decision(seed=4, num_players=4)
    seat = int(state[H_CURRENT])
    names = [spec.action_to_str(a, state) for a in np.flatnonzero(mask)]
    agent, out = scripted([])
    agent.show(state, names)
    view = out.getvalue()
    assert f"your turn: player_{seat}" in view and "your hand: " in view
    for k in range(5):
        other = state.copy()
        spec.determinize(other, seat, make_rng(k))
        agent.output = io.StringIO()
        agent.show(other, names)
        assert agent.output.getvalue() == view


def test_human_agent_needs_the_state_and_a_turn():
    _, obs, mask, state = first_decision()
    agent, _ = scripted(["1"])
    with pytest.raises(ValueError, match="needs the engine state"):
        agent.act(obs, mask)
    with pytest.raises(ValueError, match="not on move"):
        agent.act(obs, np.zeros_like(mask), state)


# --- command line, in process ---------------------------------------------------------
def test_train_without_the_extra_says_how_to_install_it(monkeypatch, capsys):
    for blocked in trainers.TRAIN_EXTRA:
        monkeypatch.setitem(sys.modules, blocked, None)  # makes `import torch` fail
    monkeypatch.delitem(sys.modules, trainers.TRAIN_SCRIPT, raising=False)
    parent, _, child = trainers.TRAIN_SCRIPT.rpartition(".")
    monkeypatch.delattr(importlib.import_module(parent), child, raising=False)
    assert cli.main(["train", "--total-timesteps", "10"]) == 1
    assert "pip install -e '.[train]'" in capsys.readouterr().err


def test_az_without_the_extra_says_how_to_install_it(monkeypatch, capsys):
    for blocked in trainers.TRAIN_EXTRA:
        monkeypatch.setitem(sys.modules, blocked, None)  # makes `import torch` fail
    for module in (
        trainers.AZ_SCRIPT,
        trainers.TRAIN_SCRIPT,
    ):  # the az trainer imports the trainers' shared start (run_start)
        monkeypatch.delitem(sys.modules, module, raising=False)
        parent, _, child = module.rpartition(".")
        monkeypatch.delattr(importlib.import_module(parent), child, raising=False)
    assert cli.main(["az", "--rounds", "1"]) == 1
    err = capsys.readouterr().err
    # a first line says the arguments passed and the packages load; the refusal is the last word
    refusal = err.strip().splitlines()[-2]
    assert (
        refusal.startswith("monster-zoo az: ")
        and "is not installed; training needs the train extra" in refusal
    )
    assert "pip install -e '.[train]'" in err


def test_evaluate_without_the_extra_says_how_to_install_it(monkeypatch, capsys):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *rest: None if name == "openskill" else real_find_spec(name, *rest),
    )
    assert cli.main(["evaluate", "--agents", "random", "greedy"]) == 1
    assert "openskill not installed" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "--seat", "3", "--agents", "random"], "--seat must be between 0 and 1"),
        (["play", "--agents", "nobody"], "valid names"),
        (["play", "--agents", "random", "--option", "num_players=3"], "num_players=3 but 2 agents"),
        (["evaluate"], "give --agents"),
        (["evaluate", "--agents", "random", "greedy", "--curves", "somewhere"], "--curves needs --out"),
        (["evaluate", "--agents", "random"], "two distinct"),
    ],
)
def test_bad_command_lines_are_refused_with_a_reason(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


# --- command line, as a user runs it ---------------------------------------------------
def test_help_lists_the_commands():
    proc = run_cli("--help")
    assert proc.returncode == 0, proc.stderr
    for command in ("play", "train", "evaluate", "bench"):
        assert f"    {command}" in proc.stdout


def test_play_a_whole_game_always_choosing_the_first_move():
    proc = run_cli("play", "--agents", "random", "--seat", "1", "--seed", "3", stdin="1\n" * 500)
    assert proc.returncode == 0, proc.stderr
    assert "you are player_1" in proc.stdout and "=== game over ===" in proc.stdout
    assert "player_0 (random): " in proc.stdout and "player_1 (you): " in proc.stdout
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith(("you won", "you lost", "you shared")), last


def test_play_quits_on_request():
    proc = run_cli("play", "--option", "num_players=4", stdin="what\nquit\n")
    assert proc.returncode == 0, proc.stderr
    assert "4 players" in proc.stdout and "cannot read action 'what'" in proc.stdout
    assert proc.stdout.strip().endswith("game abandoned")


def test_evaluate_writes_tables_pictures_and_curves(tmp_path):
    pytest.importorskip("openskill")
    run = tmp_path / f"{GAME}__ppo__1__1700000000"
    run.mkdir()
    (run / "metrics.csv").write_text(
        "step,wall_time,metric,value\n0,0.0,eval/winrate_vs_random,0.3\n100,1.0,eval/winrate_vs_random,0.5\n"
    )
    out = tmp_path / "eval"
    proc = run_cli(
        "evaluate",
        "--agents",
        "greedy",
        "random",
        "--games",
        "2",
        "--option",
        "num_players=2",
        "--seed",
        "1",
        "--out",
        str(out),
        "--curves",
        str(run),
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    assert "| row vs column | greedy | random |" in proc.stdout
    for name in ("tournament.md", "tournament.json", "win_rates.png", "learning_curves.png"):
        assert (out / name).stat().st_size > 0, name


def test_az_help_is_forwarded_and_listed():
    proc = run_cli("az", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "usage: python -m monster_zoo.training.az" in proc.stdout and "--resume" in proc.stdout
    listing = run_cli("--help")
    assert "    az " in listing.stdout and "az:<network.npz>" in listing.stdout
    assert "monster-zoo az --help" in cli.__doc__


def test_az_arguments_reach_the_trainer_unchanged(monkeypatch):
    from monster_zoo.training.az import trainer as az

    seen = []
    monkeypatch.setattr(az, "main", lambda argv: seen.append(argv) or 0)
    assert cli.main(["az", "--game", "monstargh-v0", "--help"]) == 0
    assert seen == [["--game", "monstargh-v0", "--help"]]


def test_the_match_command_shows_labels_escaped_and_writes_its_json_whole(tmp_path, capsys):
    """Labels come from the command line and from model files: a terminal escape in one is shown,
    never run."""
    import json

    from monster_zoo.evaluation import match

    out = tmp_path / "match.json"
    assert (
        match.main(
            [
                "--agents",
                "evil\x1b[2J=random",
                "greedy",
                "--games",
                "2",
                "--option",
                "max_steps=40",
                "--no-progress",
                "--json",
                str(out),
            ]
        )
        == 0
    )
    shown = capsys.readouterr().out
    assert "\x1b" not in shown and "| evil\\x1b[2J |" in shown
    assert json.loads(out.read_text())["games"] == 2 and [p.name for p in tmp_path.iterdir()] == [
        "match.json"
    ]


def test_bench_help_is_forwarded():
    proc = run_cli("bench", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "--quick" in proc.stdout and "--batch-sizes" in proc.stdout


# --- every registered game through the user-facing commands (checklist point 11) ----------------
def test_every_game_plays_in_the_terminal_and_in_a_tournament(game_id, tmp_path):
    """``play`` (a human seat always taking the first listed move) and ``evaluate`` (greedy vs
    random) run to the end for each registered game."""
    others = ["greedy"] * (envs.spec(game_id).min_players - 1)
    proc = run_cli(
        "play",
        "--game",
        game_id,
        "--agents",
        *others,
        "--seat",
        "1",
        "--seed",
        "2",
        stdin="1\n" * 5000,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "=== game over ===" in proc.stdout, proc.stdout[-2000:]
    pytest.importorskip("openskill")
    proc = run_cli(
        "evaluate",
        "--game",
        game_id,
        "--agents",
        "greedy",
        "random",
        "--games",
        "2",
        "--seed",
        "1",
        "--out",
        str(tmp_path),
        "--no-progress",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "| row vs column | greedy | random |" in proc.stdout


@pytest.mark.parametrize("module", ["monster_zoo", "monster_zoo.training", "monster_zoo.cli"])
def test_every_module_a_user_may_run_prints_the_help(module):
    """``python -m`` on the package, the training package or the command line module itself
    answers ``--help`` with the usage (the cli module once ran as a script and did nothing)."""
    done = subprocess.run(
        [sys.executable, "-m", module, "--help"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and "usage:" in done.stdout and "leaderboard" in done.stdout, done.stderr


# --- --version, replay --gif without Pillow, play with a champion ---------------------------------------------------------------
def test_version_prints_the_package_version(capsys):
    import monster_zoo

    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert (
        stop.value.code == 0 and capsys.readouterr().out.strip() == f"monster-zoo {monster_zoo.__version__}"
    )


def test_replay_gif_without_pillow_names_the_render_extra_before_replaying(tmp_path, monkeypatch, capsys):
    from monster_zoo.envs import replay
    from monster_zoo.envs.core.picture import RENDER_EXTRA

    monkeypatch.setitem(sys.modules, "PIL", None)  # makes `import PIL` fail, as without Pillow
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    monkeypatch.setattr(replay, "load", lambda *a, **k: pytest.fail("the record was replayed first"))
    assert cli.main(["replay", str(tmp_path / "game.json"), "--gif", str(tmp_path / "game.gif")]) == 1
    assert f"rendering pictures needs the render extra: {RENDER_EXTRA}" in capsys.readouterr().err
    with pytest.raises(ImportError, match="needs the render extra"):
        replay.require_gif_support()


def test_play_against_a_champion_picks_a_player_count_it_ships_for(monkeypatch, capsys):
    """``play --game mighty_monsters-v0 --agents champion`` once failed with "num_players=2 is not valid"."""
    import io

    from monster_zoo.agents.ppo.champions import champion_player_counts

    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert cli.main(["play", "--game", "mighty_monsters-v0", "--agents", "champion"]) == 0
    out = capsys.readouterr().out
    smallest = champion_player_counts("mighty_monsters")[0]
    assert (
        f"champion ships for {', '.join(map(str, champion_player_counts('mighty_monsters')))} players, not 2; "
        f"playing {smallest} players" in out
    )
    assert f"mighty_monsters-v0: {smallest} players, you are player_0" in out
    others, note = champion_seats("marry_the_monster-v0", ["champion"], {})
    assert others == ["champion"] and note is None  # a count it ships for: nothing changes
    assert champion_seats("mighty_monsters-v0", ["champion"], {"num_players": 3}) == (["champion"], None)
