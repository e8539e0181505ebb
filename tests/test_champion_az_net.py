"""A champion version that is a learned-search network played alone: Marry the Monster's
2-player ``marry_the_monster-champion-v2`` is ``marry_the_monster-az-v2.npz`` alone, while
``marry_the_monster-champion-v1`` keeps the PPO policy and 4 players keep version 1."""

import json
import shutil

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.agents import make_agent, shipped_files
from monster_zoo.agents.az.agent import AZNetAgent
from monster_zoo.agents.az.shipped import shipped_versions
from monster_zoo.agents.model_file import ModelFileError
from monster_zoo.agents.network import random_network, write_network
from monster_zoo.agents.ppo import champions
from monster_zoo.agents.ppo.agent import PPOAgent
from monster_zoo.agents.registry import available_agents
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT, H_TERMINAL

GAME = "marry_the_monster-v0"
TWO, FOUR = {"num_players": 2}, {"num_players": 4}
DIR = shipped_files.CHAMPION_DIR
NETWORK = DIR / "marry_the_monster-az-v2.npz"
CHAMPION_V2 = DIR / "marry_the_monster-2p-v2.npz"


@pytest.fixture
def copied(tmp_path, monkeypatch):
    """A copy of the champions' folder, manifest included, that the loader reads instead."""
    folder = tmp_path / "champions"
    shutil.copytree(DIR, folder)
    monkeypatch.setattr(champions, "CHAMPION_DIR", folder)
    monkeypatch.setattr(shipped_files, "CHAMPION_DIR", folder)
    return folder


def views(num_players: int, count: int = 40):
    """``(observations, masks)`` of the mover in ``count`` running positions of Marry the Monster
    at ``num_players``, reached by random moves."""
    spec = envs.spec(GAME)
    config = envs.config(GAME, {"num_players": num_players})
    observations, masks = [], []
    for seed in range(10 * count):
        state, _, _ = random_playout(spec, config, 2 + 7 * seed % 60, seed=seed)
        if state[H_TERMINAL] != 0:
            continue
        observation = np.zeros(spec.obs_size, np.float32)
        mask = np.zeros(spec.num_actions, np.int8)
        spec.observe_into(state, state[H_CURRENT], observation)
        spec.legal_mask(state, mask)
        observations.append(observation)
        masks.append(mask)
        if len(masks) == count:
            return np.array(observations), np.array(masks)
    raise AssertionError("too few running positions")


def test_the_two_player_champion_is_the_shipped_network_alone():
    champion = make_agent("champion", GAME, seed=3, options=TWO)
    assert isinstance(champion, AZNetAgent) and champion.name == "marry_the_monster-champion-v2"
    versioned = make_agent("marry_the_monster-champion-v2", GAME, options=TWO)
    alone = AZNetAgent(0, NETWORK, GAME, TWO)
    observations, masks = views(2)
    moves = alone.act_batch(observations, masks)
    assert len(np.unique(moves)) > 1  # positions that tell networks apart
    assert np.array_equal(champion.act_batch(observations, masks), moves)
    assert np.array_equal(versioned.act_batch(observations, masks), moves)


def test_version_1_at_two_players_and_the_four_player_champion_stay_the_ppo_policies():
    observations, masks = views(2)
    v1 = make_agent("marry_the_monster-champion-v1", GAME, options=TWO)
    policy = PPOAgent.load(str(DIR / "marry_the_monster-2p.npz"), GAME, options=TWO)
    assert isinstance(v1, PPOAgent) and v1.name == "marry_the_monster-champion-v1"
    assert np.array_equal(v1.act_batch(observations, masks), policy.act_batch(observations, masks))
    four = make_agent("champion", GAME, options=FOUR)
    assert isinstance(four, PPOAgent) and four.name == "marry_the_monster-champion-v1"
    observations, masks = views(4)
    policy = PPOAgent.load(str(DIR / "marry_the_monster-4p.npz"), GAME, options=FOUR)
    assert np.array_equal(four.act_batch(observations, masks), policy.act_batch(observations, masks))
    with pytest.raises(
        ValueError,
        match=r"champion-v2 has no champion for 4 players \(shipped for 4 players: "
        r"marry_the_monster-champion-v1\)",
    ):
        make_agent("marry_the_monster-champion-v2", GAME, options=FOUR)


def test_the_versions_are_listed_and_the_file_is_not_taken_for_another_az_version():
    assert champions.champion_versions("marry_the_monster", 2) == [1, 2]
    assert champions.champion_versions("marry_the_monster", 4) == [1]
    assert {"marry_the_monster-champion-v1", "marry_the_monster-champion-v2"} <= set(available_agents(GAME))
    assert shipped_versions(GAME) == (1, 2)  # the champion's copy is no third az network
    assert CHAMPION_V2.read_bytes() == NETWORK.read_bytes()  # a byte copy: one digest for both names
    listed = shipped_files.read_manifest()["files"]
    assert listed[CHAMPION_V2.name] == {
        "game": GAME,
        "num_players": 2,
        "version": 2,
        "sha256": listed[NETWORK.name]["sha256"],
    }


def test_a_damaged_network_champion_is_refused_and_version_1_still_plays(copied):
    path = copied / CHAMPION_V2.name
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match=r"marry_the_monster-2p-v2.npz has SHA-256 .* tampered"):
        make_agent("champion", GAME, options=TWO)
    assert isinstance(make_agent("marry_the_monster-champion-v1", GAME, options=TWO), PPOAgent)


def test_a_network_champion_for_a_count_its_network_does_not_play_is_refused(copied):
    """A network that plays 2 players filed as a 4-player champion: the manifest writer refuses it,
    and were it listed anyway, loading it refuses the count."""
    path = write_network(
        copied / "marry_the_monster-4p-v2.npz",
        random_network(GAME, (16,), player_counts=[2], name="two-only"),
    )
    with pytest.raises(
        ModelFileError,
        match=r"marry_the_monster-4p-v2.npz holds a learned-search network for "
        r"marry_the_monster-v0 with 2 players, but its name says "
        r"marry_the_monster-v0 with num_players=4",
    ):
        shipped_files.build_manifest(copied)
    manifest = json.loads((copied / shipped_files.MANIFEST).read_text(encoding="utf-8"))
    manifest["files"][path.name] = {
        "game": GAME,
        "num_players": 4,
        "version": 2,
        "sha256": shipped_files.file_digest(path),
    }
    (copied / shipped_files.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(ModelFileError, match="plays marry_the_monster-v0 with 2 players, not 4"):
        make_agent("champion", GAME, options=FOUR)


def test_the_network_champions_probabilities_are_its_policy_heads_softmax_over_legal_actions():
    champion = make_agent("champion", GAME, options=TWO)
    observations, masks = views(2)
    probabilities = champion.probabilities(observations, masks)
    assert not probabilities[masks == 0].any() and np.allclose(probabilities.sum(axis=1), 1.0)
    assert np.array_equal(probabilities.argmax(axis=1), champion.act_batch(observations, masks))
    with pytest.raises(ValueError, match="every row needs a mask of 99 entries with a legal action"):
        champion.probabilities(observations[:1], np.zeros((1, 99), np.int8))


def test_the_web_app_seats_both_versions_and_plays_a_whole_game():
    """The page offers the versioned names and plays the network champion against version 1."""
    pytest.importorskip("starlette", reason="the web extra is not installed: pip install '.[web]'")
    from starlette.testclient import TestClient

    from monster_zoo.web.app import Settings, create_app

    with TestClient(create_app(Settings(allowed_hosts=["testserver"]))) as client:
        offered = next(g for g in client.get("/api/games").json()["games"] if g["id"] == GAME)["agents"]
        assert {"marry_the_monster-champion-v1", "marry_the_monster-champion-v2"} <= set(offered)
        seats = ["champion", "marry_the_monster-champion-v1"]
        answer = client.post("/api/sessions", json={"game": GAME, "seats": seats, "seed": 1, "options": TWO})
        assert answer.status_code == 201, answer.text
        session = answer.json()["session"]
        view = client.get(f"/api/sessions/{session}?viewer=public").json()
        while view["on_move"] is not None:
            view = client.post(
                f"/api/sessions/{session}/advance?viewer=public", json={"step": view["step"]}
            ).json()
        assert view["step"] > 0
