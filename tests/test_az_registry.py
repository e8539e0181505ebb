"""Learned search by name: ``az:<network.npz>``, ``az-net:<network.npz>`` and the shipped kinds
``az`` / ``az-net`` in the registry, the match runner and the command line; each az agent knows
the game, rule options and player count it was made for and refuses any other."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import redeclare
from test_agents_know_their_game import other_game, view

from monster_zoo import envs
from monster_zoo.agents import WrongGameError, available_agents, make_agent
from monster_zoo.agents.az import agent as az_agent
from monster_zoo.agents.az.agent import AZAgent, AZNetAgent
from monster_zoo.agents.az.shipped import shipped_network_path
from monster_zoo.agents.az.shipped_network import shipped_network
from monster_zoo.agents.game_rules import GameRules
from monster_zoo.agents.model_file import ModelFileError
from monster_zoo.agents.network import random_network, write_network
from monster_zoo.agents.registry import agent_labels, is_model, model_file
from monster_zoo.agents.shipped_files import write_manifest
from monster_zoo.evaluation.match import run_match

ROOT = Path(__file__).resolve().parents[1]
MTM = "marry_the_monster-v0"
TWO = {"num_players": 2}


@pytest.fixture(scope="module")
def network_file(tmp_path_factory):
    """A tiny random network for 2 and 3 players of Marry the Monster."""
    path = tmp_path_factory.mktemp("az") / "network.npz"
    return write_network(path, random_network(MTM, (16,), seed=0, player_counts=[2, 3], name="tiny-az"))


def test_az_names_build_the_search_and_the_network_alone(network_file):
    search = make_agent(f"az:{network_file}", MTM, 0, TWO)
    alone = make_agent(f"az-net:{network_file}", MTM, 0, TWO)
    assert type(search) is AZAgent and type(alone) is AZNetAgent
    assert (search.name, alone.name) == ("tiny-az", "tiny-az-net")  # tables show the file's own name
    for agent in (search, alone):
        assert agent.made_for == GameRules.from_options(MTM, TWO)
    three = make_agent(f"az:{network_file}", MTM, 0, {"num_players": 3})  # another count the network plays
    assert three.made_for.num_players == 3
    assert make_agent(f"mine=az:{network_file}", MTM, 0, TWO).name == "mine"


def test_a_player_count_the_network_was_not_trained_for_is_refused(network_file):
    for prefix in ("az:", "az-net:"):
        with pytest.raises(
            ModelFileError,
            match=r"plays marry_the_monster-v0 with 2, 3 players, not 4: ask for one "
            r"of them .*--option num_players=2",
        ):
            make_agent(f"{prefix}{network_file}", MTM, 0, {"num_players": 4})


def test_az_agents_refuse_another_game_and_another_count(network_file):
    for prefix in ("az:", "az-net:"):
        agent = make_agent(f"{prefix}{network_file}", MTM, 0, TWO)
        other = other_game(MTM)
        obs, mask, state = view(other, envs.spec(other).min_players)
        with pytest.raises(
            WrongGameError, match=rf"made for {MTM} with num_players=2; it was shown .*{other}'s size"
        ):
            agent.act(obs, mask, state)
        with pytest.raises(WrongGameError, match=rf"made for {MTM} with num_players=2; this game is {other}"):
            agent.check_game(other, envs.config(other, {}))
        with pytest.raises(WrongGameError, match=rf"this game is {MTM} with num_players=3"):
            agent.check_game(MTM, envs.config(MTM, {"num_players": 3}))
        obs, mask, state = view(MTM, 3)  # same sizes: only the state's header tells
        with pytest.raises(WrongGameError, match=rf"this state is of {MTM} with num_players=3"):
            agent.act(obs, mask, state)
        obs, mask, state = view(MTM, 2)
        assert mask[agent.act(obs, mask, state)] == 1


def test_a_network_file_for_another_game_is_refused_by_name(network_file):
    with pytest.raises(ModelFileError, match="trained for marry_the_monster-v0.*this game is monstargh-v0"):
        make_agent(f"az:{network_file}", "monstargh-v0", 0, TWO)
    with pytest.raises(ValueError, match=r"az: needs the path of a network file"):
        make_agent("az:", MTM, 0, TWO)
    with pytest.raises(ModelFileError, match="is a 'mlp' policy, not an az-mlp network"):
        make_agent(f"az:{ROOT / 'agents/champions/marry_the_monster-2p.npz'}", MTM, 0, TWO)


def test_the_match_runner_plays_az_against_greedy(network_file):
    result = run_match(MTM, [f"az:{network_file}", "greedy"], 2, seed=1, options=TWO, progress=False)
    assert [s.games for s in result.stats] == [2, 2] and result.stats[0].agent == "tiny-az"
    alone = run_match(MTM, [f"az-net:{network_file}", "greedy"], 2, seed=1, options=TWO, progress=False)
    assert [s.games for s in alone.stats] == [2, 2]
    with pytest.raises(
        WrongGameError, match="num_players=2.*this game is marry_the_monster-v0 with num_players=3"
    ):
        run_match(MTM, [make_agent(f"az:{network_file}", MTM, 0, TWO), "greedy", "greedy"], 3, progress=False)


def test_az_prefixes_name_model_files(network_file):
    assert is_model(f"az:{network_file}") and is_model(f"az-net:{network_file}") and not is_model("az")
    assert model_file(f"x=az-net:{network_file}") == str(network_file) and model_file("greedy") is None
    agents = [make_agent(f"az:{network_file}", MTM, 0, TWO), make_agent("greedy", MTM)]
    assert agent_labels([f"az:{network_file}", "greedy"], agents) == ["tiny-az", "greedy"]


# --- the shipped networks ---------------------------------------------------------------------------
@pytest.mark.parametrize("game_id", envs.available())
def test_no_network_ships_yet_so_az_is_listed_nowhere_and_asking_says_how_to_train_one(game_id):
    if shipped_network_path(game_id).exists():
        pytest.skip("a network ships for this game")
    game = envs.spec(game_id).name
    names = available_agents(game_id)
    assert not {"az", "az-net", f"{game}-az-v1", f"{game}-az-net-v1"} & set(names)
    for name in ("az", "az-net", f"{game}-az-v1", f"{game}-az-net-v1"):
        with pytest.raises(
            ValueError,
            match=rf"no az network ships for {game_id} yet.*monster-zoo az --game "
            rf"{game_id}.*az:<run folder>/network.npz",
        ):
            make_agent(name, game_id)


def test_the_unknown_name_message_lists_the_model_prefixes():
    with pytest.raises(ValueError) as refused:  # each kind's prefixes in its order, the kinds in theirs
        make_agent("nobody", MTM)
    assert "ppo:<model.npz>, ppo-trusted:<sb3.zip>" in str(refused.value)
    assert "az:<network.npz> (learned search), az-net:<network.npz> (its network alone)" in str(refused.value)


@pytest.fixture
def shipped_folder(tmp_path, monkeypatch):
    """A champions folder with a network shipped for Marry the Monster (2 and 3 players), listed in
    its manifest, standing in for the package's."""
    import monster_zoo.agents.az.shipped as shipped

    monkeypatch.setattr(shipped, "CHAMPION_DIR", tmp_path)
    path = shipped.shipped_network_path(MTM)
    write_network(path, random_network(MTM, (16,), seed=1, player_counts=[2, 3], name="shipped"))
    write_manifest(tmp_path)
    return path


def test_a_shipped_network_is_listed_and_played_by_its_short_and_versioned_names(shipped_folder):
    names = available_agents(MTM)
    assert {"az", "az-net", "marry_the_monster-az-v1", "marry_the_monster-az-net-v1"} <= set(names)
    assert "az" not in available_agents("monstargh-v0")
    for name, kind, label in (
        ("az", AZAgent, "marry_the_monster-az-v1"),
        ("marry_the_monster-az-net-v1", AZNetAgent, "marry_the_monster-az-net-v1"),
    ):
        agent = make_agent(name, MTM, 0, TWO)
        assert isinstance(agent, kind) and agent.name == label and agent.made_for.num_players == 2
        obs, mask, state = view(MTM, 2)
        assert mask[agent.act(obs, mask, state)] == 1
    with pytest.raises(ModelFileError, match="with 2, 3 players, not 4"):
        make_agent("az", MTM, 0, {"num_players": 4})


def test_the_shipped_search_plays_its_games_budget(shipped_folder, monkeypatch):
    import monster_zoo.agents.az.shipped as shipped
    from monster_zoo.envs.registry import declaration as registry_declaration

    declared = registry_declaration(MTM).agents
    redeclare(
        monkeypatch, MTM, agents={key: value for key, value in declared.items() if key != "az"}
    )  # no budget
    default = make_agent("az", MTM, 0, TWO).settings
    assert (default.simulations, default.rollout_weight) == (shipped.DEFAULT_PLAY_SIMULATIONS, 0.0)
    redeclare(monkeypatch, MTM, agents={**declared, "az": {"simulations": 37, "rollout_weight": 0.5}})
    settings = make_agent("az", MTM, 0, TWO).settings
    assert (settings.simulations, settings.rollout_weight) == (37, 0.5)


def test_az_timed_sizes_the_declared_cpu_budget_on_the_host_and_its_count_replays_it(
    shipped_folder, monkeypatch
):
    """``az-timed`` is the shipped search at the game's declared CPU ms per move: listed only where a
    budget is declared, pending in its repr until its first move sizes the simulations on this host,
    and that count then replays the same move as a plain count would (seeded, host-independent)."""
    from monster_zoo.envs.registry import declaration as registry_declaration

    declared = registry_declaration(MTM).agents
    redeclare(monkeypatch, MTM, agents={**declared, "az": {"simulations": 37, "budget_ms": 4.0}})
    assert {"az-timed", "marry_the_monster-az-timed-v1"} <= set(available_agents(MTM))
    timed = make_agent("az-timed", MTM, 5, TWO)
    assert timed.name == "marry_the_monster-az-timed-v1" and "budget_ms=4 (sized at its first move)" in repr(
        timed
    )
    obs, mask, state = view(MTM, 2)
    move = timed.act(obs, mask, state)
    assert mask[move] == 1 and timed.budget_ms is None and "budget_ms" not in repr(timed)
    sized = timed.settings.simulations
    assert sized >= 1 and f"simulations={sized}," in repr(timed)
    replay = AZAgent(5, shipped_network(MTM), MTM, TWO, simulations=sized)
    assert replay.act(obs, mask, state) == move
    redeclare(monkeypatch, MTM, agents={**declared, "az": {"simulations": 37}})  # no CPU budget declared
    assert "az-timed" not in available_agents(MTM)
    with pytest.raises(ValueError, match="declares no CPU-time budget for its az"):
        az_agent.ShippedAZ(0, MTM, TWO, timed=True)


@pytest.mark.parametrize("budget", [0, -1, 100.5, True, "50"])
def test_a_declared_cpu_budget_outside_0_to_100_ms_is_refused(budget):
    from monster_zoo.agents.az.shipped import read_play_settings

    with pytest.raises(
        ValueError, match="budget_ms must be CPU milliseconds per move above 0 and at most 100"
    ):
        read_play_settings({"simulations": 10, "budget_ms": budget})


def test_a_shipped_network_that_changed_is_refused_by_its_digest(shipped_folder):
    data = bytearray(shipped_folder.read_bytes())
    data[-30] ^= 0xFF  # a flipped byte in the zip's directory: the file still opens
    shipped_folder.write_bytes(bytes(data))
    for name in ("az", "az-net"):
        with pytest.raises(ModelFileError, match=r"has SHA-256 [0-9a-f]{64}, but manifest.json lists"):
            make_agent(name, MTM, 0, TWO)


def test_a_shipped_network_missing_from_the_manifest_is_refused(shipped_folder):
    (shipped_folder.parent / "manifest.json").write_text('{"format": "monster-zoo-champions", "files": {}}')
    with pytest.raises(ModelFileError, match="is not in .*manifest.json"):
        make_agent("az", MTM, 0, TWO)


# --- the command line ---------------------------------------------------------------------------------
def run_cli(*args, stdin="", timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "monster_zoo.training", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_evaluate_and_play_take_az_names(network_file, tmp_path):
    pytest.importorskip("openskill")
    proc = run_cli(
        "evaluate",
        "--agents",
        f"az:{network_file}",
        "greedy",
        "--games",
        "2",
        "--option",
        "num_players=2",
        "--no-progress",
        "--out",
        str(tmp_path / "eval"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "| row vs column | tiny-az | greedy |" in proc.stdout
    proc = run_cli("play", "--agents", f"az-net:{network_file}", "--seed", "1", stdin="quit\n")
    assert proc.returncode == 0, proc.stderr
    assert "you are player_0" in proc.stdout and "game abandoned" in proc.stdout
    proc = run_cli("play", "--agents", f"az:{network_file}", "greedy", "greedy", stdin="quit\n")
    assert proc.returncode == 2 and "with 2, 3 players, not 4" in proc.stderr


def test_an_output_may_never_overwrite_the_network_it_reads(network_file):
    before = network_file.read_bytes()
    proc = run_cli(
        "play", "--agents", f"az:{network_file}", "--record", str(network_file), "--overwrite", stdin="quit\n"
    )
    assert proc.returncode == 2 and "is the input" in proc.stderr
    assert network_file.read_bytes() == before
