"""Versions of the shipped learned-search networks: a game's versions are its ``<game>-az-v<K>.npz``
files, ``az`` / ``az-net`` / ``az-timed`` play the newest, ``<game>-az-vK`` (and ``-az-net-vK``,
``-az-timed-vK``) version K at that version's own settings (``agents={"az": {..., "versions": {K:
{...}}}}``), and a version that does not ship is refused naming those that do.

The champions' folder is a temporary one holding the shipped version 1 of Marry the Monster and a
stand-in version 2 (a random network of the same architecture), both listed in its own manifest."""

import shutil

import numpy as np
import pytest
from conftest import redeclare

from monster_zoo import envs
from monster_zoo.agents import available_agents, make_agent, shipped_files
from monster_zoo.agents.az import agent as az_agent
from monster_zoo.agents.az import shipped
from monster_zoo.agents.az.agent import AZAgent, ShippedAZ, ShippedAZNet
from monster_zoo.agents.az.shipped import PlaySettings, play_settings, read_play_settings
from monster_zoo.agents.model_file import ModelFileError
from monster_zoo.agents.network import random_network, read_network, write_network
from monster_zoo.envs.registry import declaration

MTM = "marry_the_monster-v0"
GAME = "marry_the_monster"
TWO = {"num_players": 2}
SHIPPED_V1 = shipped_files.CHAMPION_DIR / f"{GAME}-az-v1.npz"  # the package's own file
V2_SIMULATIONS = 97  # small, so that the stand-in version 2 searches in a blink
# Moves of the shipped marry_the_monster-az-v1 (agent seed 5) in the game of moves_of, recorded
# before versions per game existed: version 1 must keep making them.
V1_MOVES = [11, 24, 25, 37, 74, 18, 12, 73]

pytestmark = pytest.mark.skipif(not SHIPPED_V1.is_file(), reason="Marry the Monster's az-v1 does not ship")


@pytest.fixture
def two_versions(tmp_path, monkeypatch):
    """A champions folder with versions 1 (the shipped file) and 2 (other weights) of Marry the
    Monster's network, listed in its manifest, and the game declaring version 2's own simulations
    over version 1's flat settings. Returns the folder."""
    monkeypatch.setattr(shipped, "CHAMPION_DIR", tmp_path)
    shutil.copyfile(SHIPPED_V1, tmp_path / SHIPPED_V1.name)
    write_network(
        tmp_path / f"{GAME}-az-v2.npz",
        random_network(MTM, (256, 256), seed=2, player_counts=[2, 3, 4], name="stand-in-v2"),
    )
    shipped_files.write_manifest(tmp_path)
    flat = {key: value for key, value in declaration(MTM).agents["az"].items() if key != "versions"}
    redeclare(
        monkeypatch,
        MTM,
        agents={**declaration(MTM).agents, "az": {**flat, "versions": {2: {"simulations": V2_SIMULATIONS}}}},
    )
    return tmp_path


def moves_of(agent, game_seed: int = 11, count: int = 8):
    """The first ``count`` moves ``agent`` makes as player_0 of a 2-player game dealt with
    ``game_seed``, its opponent moving at random (seeded)."""
    env = envs.make(MTM, num_players=2)
    env.reset(seed=game_seed)
    rng = np.random.default_rng(game_seed)
    moves = []
    while len(moves) < count:
        observation = env.observe(env.agent_selection)
        mask = observation["action_mask"]
        if env.agent_selection == "player_0":
            action = agent.act(observation["observation"], mask, env.unwrapped.engine_state)
            moves.append(int(action))
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
    return moves


# --- the versions are the files present ---------------------------------------------------------
def test_a_games_versions_are_its_network_files_and_the_newest_is_the_default(two_versions):
    for stray in (
        f"{GAME}-az-v02.npz",
        f"{GAME}-az-vx.npz",
        f"{GAME}-az-v0.npz",
        f"{GAME}-az-v5.npz.bak",
        f"{GAME}-az-net-v4.npz",
        f"other_{GAME}-az-v6.npz",
    ):
        (two_versions / stray).write_bytes(b"not a network")
    (two_versions / f"{GAME}-az-v7.npz").mkdir()  # a folder is no file
    assert shipped.shipped_versions(MTM) == (1, 2) and shipped.newest_version(MTM) == 2
    assert shipped.shipped_network_path(MTM) == two_versions / f"{GAME}-az-v2.npz"
    assert shipped.shipped_network_path(MTM, 1) == two_versions / f"{GAME}-az-v1.npz"
    assert shipped.network_ships(MTM) and az_agent.shipped_player_counts(MTM) == [2, 3, 4]
    assert shipped.shipped_versions("monstargh-v0") == () and not shipped.network_ships("monstargh-v0")
    assert shipped.newest_version("monstargh-v0") == 1  # the version its first network would ship as
    for bad in (0, -1, "2", True, 1.0):
        with pytest.raises(ValueError, match="a network version is an integer >= 1"):
            shipped.shipped_network_path(MTM, bad)


def test_available_agents_lists_every_shipped_version(two_versions):
    names = available_agents(MTM)
    for short in ("az", "az-net", "az-timed"):
        assert short in names and {f"{GAME}-{short}-v1", f"{GAME}-{short}-v2"} <= set(names)
    assert f"{GAME}-az-v4" not in names and f"{GAME}-az-net-v3" not in names  # az-v3: v2 with beliefs
    assert not any("az" in name for name in available_agents("monstargh-v0"))  # none ships there here


# --- each version plays its own weights at its own settings -------------------------------------
def test_az_plays_the_newest_version_at_its_own_settings(two_versions):
    v2 = read_network(two_versions / f"{GAME}-az-v2.npz")
    for name in ("az", f"{GAME}-az-v2"):
        agent = make_agent(name, MTM, 5, TWO)
        assert type(agent) is ShippedAZ and agent.version == 2 and agent.name == f"{GAME}-az-v2"
        assert np.array_equal(agent.network.params, v2.params)
        assert (agent.settings.simulations, agent.settings.rollout_weight) == (V2_SIMULATIONS, 0.0)
        assert repr(agent).startswith("ShippedAZ(seed=5, version=2, network='stand-in-v2', ")
        assert moves_of(agent) == moves_of(AZAgent(5, v2, MTM, TWO, simulations=V2_SIMULATIONS))
    assert play_settings(MTM) == play_settings(MTM, 2) == PlaySettings(V2_SIMULATIONS, 0.0, 100.0)


def test_version_1_keeps_its_weights_settings_and_moves(two_versions):
    agent = make_agent(f"{GAME}-az-v1", MTM, 5, TWO)
    assert type(agent) is ShippedAZ and agent.version == 1 and agent.name == f"{GAME}-az-v1"
    assert agent.settings.simulations == play_settings(MTM, 1).simulations == 5763
    assert np.array_equal(agent.network.params, read_network(SHIPPED_V1).params)
    assert moves_of(agent) == V1_MOVES


def test_the_search_policy_depends_on_the_versions_simulations(two_versions):
    """Version 1 at version 2's simulations would not search as version 1: the count matters."""
    network = read_network(SHIPPED_V1)
    played = make_agent(f"{GAME}-az-v1", MTM, 5, TWO)
    explicit = AZAgent(5, network, MTM, TWO, simulations=5763)
    other = AZAgent(5, network, MTM, TWO, simulations=V2_SIMULATIONS)
    for agent in (played, explicit, other):
        moves_of(agent, count=1)
    assert np.array_equal(played.policy, explicit.policy) and not np.array_equal(played.policy, other.policy)


def test_the_network_alone_plays_each_version(two_versions):
    for name, version in (("az-net", 2), (f"{GAME}-az-net-v2", 2), (f"{GAME}-az-net-v1", 1)):
        agent = make_agent(name, MTM, 0, TWO)
        assert (
            type(agent) is ShippedAZNet
            and agent.version == version
            and agent.name == f"{GAME}-az-net-v{version}"
        )
        expected = read_network(two_versions / f"{GAME}-az-v{version}.npz")
        assert np.array_equal(agent.network.params, expected.params)
        assert repr(agent) == f"ShippedAZNet(seed=0, version={version}, network={expected.name!r})"
    assert (
        moves_of(make_agent(f"{GAME}-az-net-v1", MTM, 0, TWO)) == V1_MOVES
    )  # the search agrees with it here


def test_az_timed_sizes_each_versions_own_budget(two_versions, monkeypatch):
    flat = declaration(MTM).agents["az"]
    redeclare(
        monkeypatch,
        MTM,
        agents={
            **declaration(MTM).agents,
            "az": {**flat, "versions": {2: {"simulations": 40, "budget_ms": 50.0}}},
        },
    )
    newest, first = make_agent("az-timed", MTM, 0, TWO), make_agent(f"{GAME}-az-timed-v1", MTM, 0, TWO)
    assert (newest.name, newest.version, newest.budget_ms) == (f"{GAME}-az-timed-v2", 2, 50.0)
    assert (first.name, first.version, first.budget_ms) == (f"{GAME}-az-timed-v1", 1, 100.0)
    # version 2 without a budget: az-timed plays the newest version that has one
    redeclare(
        monkeypatch,
        MTM,
        agents={**declaration(MTM).agents, "az": {**flat, "versions": {2: {"budget_ms": None}}}},
    )
    assert f"{GAME}-az-timed-v2" not in available_agents(MTM) and f"{GAME}-az-timed-v1" in available_agents(
        MTM
    )
    assert make_agent("az-timed", MTM, 0, TWO).name == f"{GAME}-az-timed-v1"
    with pytest.raises(ValueError, match=f"unknown agent '{GAME}-az-timed-v2'"):
        make_agent(f"{GAME}-az-timed-v2", MTM, 0, TWO)
    with pytest.raises(ValueError, match="declares no CPU-time budget for its az version 2 "):
        ShippedAZ(0, MTM, TWO, timed=True)


def test_a_version_that_does_not_ship_is_refused_naming_those_that_do(two_versions):
    """Version 3 is version 2 searched with beliefs (az, az-timed): no network of its own, so
    az-net has none; version 4 is nothing."""
    for short, version in (("az", 4), ("az-net", 3), ("az-net", 4), ("az-timed", 4)):
        with pytest.raises(ValueError, match=f"unknown agent '{GAME}-{short}-v{version}'") as refused:
            make_agent(f"{GAME}-{short}-v{version}", MTM, 0, TWO)
        assert f"{GAME}-{short}-v1, {GAME}-{short}-v2" in str(refused.value)
    for make, version in (
        (lambda: ShippedAZ(0, MTM, TWO, version=4), 4),
        (lambda: ShippedAZNet(0, MTM, TWO, version=3), 3),
    ):
        with pytest.raises(
            ValueError,
            match=rf"version {version} of the az network does not ship for {MTM}; the versions "
            rf"that ship are 1, 2 \({GAME}-az-v1, {GAME}-az-v2; az plays the newest, 2; "
            rf"{GAME}-az-v3 searches version 2 with beliefs\)",
        ):
            make()


def test_each_version_is_checked_against_the_manifest(two_versions):
    """A changed version 2 is refused while version 1 still plays."""
    path = two_versions / f"{GAME}-az-v2.npz"
    data = bytearray(path.read_bytes())
    data[-30] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=rf"{GAME}-az-v2.npz has SHA-256"):
        make_agent("az", MTM, 0, TWO)
    assert make_agent(f"{GAME}-az-net-v1", MTM, 0, TWO).version == 1


# --- settings per version --------------------------------------------------------------------------
DECLARED = {
    "simulations": 5763,
    "budget_ms": 100.0,
    "versions": {2: {"simulations": 9775}, 3: {"rollout_weight": 0.5, "budget_ms": None}},
}


def test_each_version_reads_its_own_fields_over_the_flat_ones():
    assert read_play_settings(DECLARED) == read_play_settings(DECLARED, 1) == PlaySettings(5763, 0.0, 100.0)
    assert read_play_settings(DECLARED, 2) == PlaySettings(9775, 0.0, 100.0)
    assert read_play_settings(DECLARED, 3) == PlaySettings(5763, 0.5, None)
    assert read_play_settings(DECLARED, 4) == PlaySettings(5763, 0.0, 100.0)  # no entry: the flat fields
    assert read_play_settings({"simulations": 12}, 2) == PlaySettings(12)  # the flat form: every version's


@pytest.mark.parametrize(
    "declared,message",
    [
        (
            {**DECLARED, "version": {}},
            r"the 'az' settings take simulations, rollout_weight, budget_ms, versions; "
            r"unknown: version",
        ),
        ({"versions": [2]}, r"'versions' map a network version \(an integer >= 2\) to the fields it changes"),
        (
            {"versions": {"2": {}}},
            r"keyed by network versions 2, 3, \.\.\. \(integers; version 1 plays the flat "
            r"fields\), not '2'",
        ),
        ({"versions": {1: {}}}, r"keyed by network versions 2, 3, .*not 1$"),
        ({"versions": {0: {}}}, r"keyed by network versions 2, 3, .*not 0$"),
        ({"versions": {True: {}}}, r"keyed by network versions 2, 3, .*not True$"),
        ({"versions": {2.0: {}}}, r"keyed by network versions 2, 3, .*not 2\.0$"),
        (
            {"versions": {2: 9775}},
            r"version 2's 'az' settings must be a mapping of simulations, rollout_weight, "
            r"budget_ms; not 9775",
        ),
        (
            {"versions": {2: {"simulation": 9775}}},
            r"version 2's 'az' settings take simulations, rollout_weight, "
            r"budget_ms; unknown: simulation",
        ),
        ({"versions": {2: {"versions": {}}}}, r"version 2's 'az' settings take .*; unknown: versions"),
        (
            {"versions": {2: {"simulations": 0}}},
            r"version 2's 'az' settings: simulations must be an integer >= 1",
        ),
        (
            {"versions": {2: {"rollout_weight": 2}}},
            r"version 2's 'az' settings: rollout_weight must lie in \[0, 1\]",
        ),
        ({"versions": {2: {"rollout_weight": "0.5"}}}, r"rollout_weight must lie in \[0, 1\], not '0.5'"),
        (
            {"versions": {2: {"budget_ms": 500}}},
            r"version 2's 'az' settings: budget_ms must be CPU milliseconds per "
            r"move above 0 and at most 100",
        ),
    ],
)
def test_a_bad_version_entry_is_refused_whichever_version_is_read(declared, message):
    for version in (1, 2):
        with pytest.raises(ValueError, match=message):
            read_play_settings(declared, version)


@pytest.mark.parametrize("version", [0, -2, "2", True, None])
def test_the_version_read_must_be_a_positive_integer(version):
    with pytest.raises(ValueError, match="a network version is an integer >= 1"):
        read_play_settings(DECLARED, version)


def test_a_bad_declared_version_entry_is_refused_when_az_is_made(two_versions, monkeypatch):
    flat = declaration(MTM).agents["az"]
    redeclare(
        monkeypatch,
        MTM,
        agents={**declaration(MTM).agents, "az": {**flat, "versions": {2: {"simulation": 1}}}},
    )
    for name in ("az", f"{GAME}-az-v1"):
        with pytest.raises(ValueError, match="unknown: simulation"):
            make_agent(name, MTM, 0, TWO)


# --- the leaderboard notices a new version ------------------------------------------------------------
def test_the_leaderboard_plays_the_newest_version_and_records_its_file(two_versions, monkeypatch):
    """A new version changes the leaderboard's field and recorded files, so ``--resume`` plays the
    tables with az again instead of reusing those of the old version."""
    pytest.importorskip("openskill")
    from monster_zoo.evaluation import leaderboard

    monkeypatch.setattr(shipped_files, "CHAMPION_DIR", two_versions)  # the manifest the leaderboard reads
    field = leaderboard.leaderboard_field(MTM, 2)
    assert [name for name in field if "-az-" in name] == [f"{GAME}-az-v2"]
    files = leaderboard.field_settings(MTM, 2, field)["files"]
    assert files[f"{GAME}-az-v2.npz"] == shipped_files.file_digest(two_versions / f"{GAME}-az-v2.npz")
    with_v2 = leaderboard.plan([MTM])
    (two_versions / f"{GAME}-az-v2.npz").unlink()
    only_v1 = leaderboard.plan([MTM])
    for before, after in zip(only_v1, with_v2):
        assert f"{GAME}-az-v1" in before.field and f"{GAME}-az-v2" in after.field
        assert before.settings != after.settings
