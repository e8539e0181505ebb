"""The teachers of expert iteration (``--teacher``, ``--warm-start-games``, ``--teacher-share``):
games of the greedy kernel or the shipped champions whose decisions teach the network before and
beside its own search's games (:mod:`monster_zoo.training.az.warmstart`)."""

import csv
import json

import numba
import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from monster_zoo import envs
from monster_zoo.agents.network import evaluate, masked_argmax, read_network
from monster_zoo.agents.ppo.agent import PPOAgent
from monster_zoo.agents.search.tuned import rollout_kernel
from monster_zoo.envs.core import threads
from monster_zoo.envs.core.batch import random_playout
from monster_zoo.envs.core.contract import H_CURRENT, H_MAX_STEPS, H_STEPS, H_TERMINAL
from monster_zoo.envs.core.opponents import MLPWeights
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.training.az.selfplay import game_seed
from monster_zoo.training.az.trainer import main
from monster_zoo.training.az.warmstart import (
    PROBABILITY_SCALE,
    champion_teacher_versions,
    champion_teachers,
    mlp_teacher_and_play,
    play_teacher_games,
    teacher_and_play,
    teacher_names,
)

MTM = "marry_the_monster-v0"
MIGHTY = "mighty_monsters-v0"
FACTORY = "monster_factory-v0"
TINY = [
    "--rounds",
    "2",
    "--games-per-round",
    "4",
    "--parallel-games",
    "3",
    "--simulations",
    "8",
    "--hidden-sizes",
    "16",
    "--batch-size",
    "32",
    "--buffer-size",
    "4000",
    "--eval-every",
    "0",
    "--eval-games",
    "2",
    "--eval-simulations",
    "8",
    "--eval-opponents",
    "greedy",
    "--no-progress",
    "--no-plot",
    "--seed",
    "5",
    "--warm-start-games",
    "10",
]


def _mid_game_states(game_id: str, count: int):
    """``count`` running states of ``game_id`` (its smallest player count) after random moves."""
    spec = envs.spec(game_id)
    config = envs.config(game_id, {"num_players": spec.min_players})
    states = []
    for seed in range(10 * count):
        state, _, _ = random_playout(spec, config, 5 + 7 * seed % 40, seed=seed)
        if state[H_TERMINAL] == 0:
            states.append(state)
        if len(states) == count:
            return np.array(states, np.int32)
    raise AssertionError("too few running states")


@pytest.mark.parametrize("game_id", envs.available())
def test_the_target_is_the_greedy_kernels_choice_and_the_move_plays_it(game_id):
    """Without exploration each game plays the greedy kernel's action, and its target is that action
    alone; the kernel is called on the same state with the same generator as here."""
    spec = envs.spec(game_id)
    states = _mid_game_states(game_id, 4)
    before = states.copy()
    k = len(states)
    slots = np.arange(k, dtype=np.int64)
    game_rngs = np.array([make_rng(100 + i) for i in range(k)])
    teacher_rngs = np.array([make_rng(200 + i) for i in range(k)])
    policies = np.zeros((k, spec.num_actions), np.float32)
    actions = np.zeros(k, np.int64)
    observations = np.zeros((k, spec.obs_size), np.float32)
    masks = np.zeros((k, spec.num_actions), np.int8)
    greedy = rollout_kernel(game_id, "greedy")
    expected_rngs = teacher_rngs.copy()
    teacher_and_play(
        states,
        slots,
        slots,
        game_rngs,
        teacher_rngs,
        0,
        policies,
        actions,
        observations,
        masks,
        spec.legal_mask,
        spec.apply_action,
        spec.observe_into,
        greedy,
    )
    for i in range(k):
        mask = np.zeros(spec.num_actions, np.int8)
        spec.legal_mask(before[i], mask)
        assert np.array_equal(masks[i], mask)
        choice = greedy(before[i].copy(), mask, expected_rngs[i])
        assert actions[i] == choice and mask[choice] == 1
        assert policies[i, choice] == 1.0 and policies[i].sum() == 1.0
        seen = np.zeros(spec.obs_size, np.float32)
        spec.observe_into(before[i], before[i][H_CURRENT], seen)
        assert np.array_equal(observations[i], seen)
        replayed = before[i].copy()
        spec.apply_action(replayed, choice, make_rng(100 + i))
        assert np.array_equal(states[i], replayed)


def test_teacher_games_do_not_depend_on_parallel_games_or_threads():
    """Games are seeded by their index alone, as in self-play."""
    one, stats = play_teacher_games(MTM, 5, [2, 3], seed=4, parallel=1)
    many, _ = play_teacher_games(MTM, 5, [2, 3], seed=4, parallel=5)
    with threads.using(min(2, numba.config.NUMBA_NUM_THREADS), min_batch=2):
        threaded, _ = play_teacher_games(MTM, 5, [2, 3], seed=4, parallel=5)
    for key in ("observations", "counts", "masks", "policies", "values"):
        assert np.array_equal(getattr(one, key), getattr(many, key)), key
        assert np.array_equal(getattr(one, key), getattr(threaded, key)), key
    assert stats.games == 5 and stats.decisions == len(one)


def test_exploration_changes_the_games_but_every_target_stays_one_legal_action():
    """With ``epsilon`` some moves are random, so the games differ from the greedy ones; targets stay
    one-hot on a legal action (the teacher's), values the games' returns; a probability outside
    [0, 1] is refused."""
    plain, _ = play_teacher_games(MTM, 6, [2], seed=8, epsilon=0.0)
    explored, _ = play_teacher_games(MTM, 6, [2], seed=8, epsilon=0.5)
    assert len(plain) != len(explored) or not np.array_equal(plain.observations, explored.observations)
    for batch in (plain, explored):
        policies = batch.policies.astype(np.float32)
        assert np.array_equal(policies.sum(axis=1), np.ones(len(batch))) and set(np.unique(policies)) == {
            0.0,
            1.0,
        }
        assert not policies[batch.masks == 0].any()
        assert np.isin(batch.values[:, :2], [1.0, -1.0, 0.0]).all()
    assert PROBABILITY_SCALE >= 1000
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match=r"epsilon must lie in \[0, 1\]"):
            play_teacher_games(MTM, 1, [2], seed=0, epsilon=bad)


def test_a_warm_started_network_imitates_the_teacher():
    """After learning from 200 greedy games the network alone picks the greedy kernel's move far
    more often than an untrained one, on decisions of other games (about 0.43 against 0.11; the
    kernel breaks ties between equally good moves at random, so no network can match it always)."""
    import torch

    from monster_zoo.training.az.learner import PolicyValueNet, ReplayBuffer, export, train

    spec = envs.spec(MTM)
    torch.manual_seed(0)
    net = PolicyValueNet(MTM, (32,), spec.num_actions)
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
    fresh = export(net, MTM, {}, [2], "fresh")
    buffer = ReplayBuffer(30_000, spec.obs_size, spec.num_actions)
    batch, _ = play_teacher_games(MTM, 200, [2], seed=1)
    buffer.add(batch)
    saved_threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the trainer does: small matrices, a shared machine
    try:
        train(net, optimizer, buffer, 300, 256, np.random.default_rng(0), torch.device("cpu"))
    finally:
        torch.set_num_threads(saved_threads)
    taught = export(net, MTM, {}, [2], "taught")
    test, _ = play_teacher_games(MTM, 40, [2], seed=99, epsilon=0.0)
    targets = test.policies.astype(np.float32).argmax(axis=1)

    def agreement(network):
        logits, _ = evaluate(network, test.observations.astype(np.float32), 2)
        return np.mean([masked_argmax(logits[r], test.masks[r]) == targets[r] for r in range(len(targets))])

    assert agreement(taught) > 0.35 and agreement(taught) > agreement(fresh) + 0.2


def test_the_trainer_warm_starts_once_and_a_resume_does_not_repeat_it(tmp_path):
    """``--warm-start-games`` logs its losses at step 0, checkpoints after it, and a run cut after
    one round and resumed ends with the same network as one run straight through."""
    assert main(["--out-dir", str(tmp_path / "a"), *TINY]) == 0
    assert main(["--out-dir", str(tmp_path / "b"), *TINY, "--rounds", "1"]) == 0
    (straight,), (split,) = (tmp_path / "a").iterdir(), (tmp_path / "b").iterdir()
    assert main(["--resume", str(split), "--rounds", "2"]) == 0
    assert np.array_equal(
        read_network(straight / "network.npz").params, read_network(split / "network.npz").params
    )
    with open(straight / "metrics.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    warm = [r for r in rows if r["metric"].startswith("train/warm_start_")]
    assert {r["metric"] for r in warm} == {"train/warm_start_policy_loss", "train/warm_start_value_loss"}
    assert {r["step"] for r in warm} == {"0"}
    assert json.loads((straight / "args.json").read_text())["warm_start_games"] == 10


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--warm-start-games", "-1"], "--warm-start-games must be at least 0"),
        (["--warm-start-epsilon", "1.5"], "--warm-start-epsilon must be a probability from 0 to 1"),
        (["--warm-start-reuse", "0"], "--warm-start-reuse must be a number > 0"),
        (["--teacher", "ppo"], "--teacher must be one of greedy, champion, mcts, got 'ppo'"),
        (["--teacher-share", "-1"], "--teacher-share must be a number from 0 to 10"),
    ],
)
def test_bad_warm_start_arguments_are_refused_before_anything_is_written(tmp_path, capsys, extra, message):
    out = tmp_path / "runs"
    with pytest.raises(SystemExit) as exit_info:
        main(["--out-dir", str(out), *extra])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err
    assert not out.exists()


def _decision_arrays(spec, k: int):
    """Empty per-row arrays of ``k`` decisions: policies, actions, observations, masks."""
    return (
        np.zeros((k, spec.num_actions), np.float32),
        np.zeros(k, np.int64),
        np.zeros((k, spec.obs_size), np.float32),
        np.zeros((k, spec.num_actions), np.int8),
    )


def _mlp_champion(game_id: str):
    """The smallest player count with a plain-MLP champion and that champion (or None, None)."""
    from monster_zoo.agents.ppo.champions import champion_player_counts, load_champion

    for n in champion_player_counts(envs.spec(game_id).name):
        agent = load_champion(0, game_id, {"num_players": n})
        if isinstance(agent, PPOAgent) and agent.placement is None:
            return n, agent
    return None, None


@pytest.mark.parametrize("game_id", envs.available())
def test_the_champion_teacher_targets_its_distribution_and_plays_its_choice(game_id):
    """Without exploration, the rows given (and only those) get the champion's probabilities over
    the legal actions as target (what the numpy champion computes), and their games play its most
    probable action."""
    n, champion = _mlp_champion(game_id)
    if champion is None:
        assert not any(isinstance(t, MLPWeights) for t in champion_teachers(game_id, range(2, 7)).values())
        pytest.skip(f"{game_id} ships no plain-MLP champion (tested below through its placement network)")
    spec = envs.spec(game_id)
    config = envs.config(game_id, {"num_players": n})
    states = []
    for seed in range(400):
        state, _, _ = random_playout(spec, config, 3 + 5 * seed % 30, seed=seed)
        if state[H_TERMINAL] == 0:
            states.append(state)
        if len(states) == 6:
            break
    states = np.array(states, np.int32)
    before = states.copy()
    k = len(states)
    slots = np.arange(k, dtype=np.int64)
    rows = np.array([0, 2, 3, 5], np.int64)
    game_rngs = np.array([make_rng(10 + i) for i in range(k)])
    teacher_rngs = np.array([make_rng(20 + i) for i in range(k)])
    policies, actions, observations, masks = _decision_arrays(spec, k)
    mlp = champion_teachers(game_id, [n])[n]
    mlp_teacher_and_play(
        states,
        slots,
        rows,
        game_rngs,
        teacher_rngs,
        0,
        policies,
        actions,
        observations,
        masks,
        mlp.params,
        mlp.shapes,
        mlp.activations,
        spec.legal_mask,
        spec.apply_action,
        spec.observe_into,
    )
    expected = champion.probabilities(observations[rows], masks[rows])
    assert np.allclose(policies[rows], expected, atol=1e-4)
    assert not policies[masks == 0].any() and np.allclose(policies[rows].sum(axis=1), 1.0, atol=1e-5)
    for j in range(k):
        if j not in rows:
            assert np.array_equal(states[j], before[j]) and not policies[j].any() and not masks[j].any()
            continue
        assert actions[j] == expected[list(rows).index(j)].argmax()
        replayed = before[j].copy()
        spec.apply_action(replayed, actions[j], make_rng(10 + j))
        assert np.array_equal(states[j], replayed)


def test_champion_teacher_games_mix_champions_and_greedy_by_player_count():
    """Marry the Monster ships champions for 2 and 4 players, none for 3: the 3-player games are
    taught by the greedy kernel (one-hot targets), the others by the champions (distributions);
    the games do not depend on how many are played side by side or on the thread count."""
    assert sorted(champion_teachers(MTM, [2, 3, 4])) == [2, 4]
    one, stats = play_teacher_games(MTM, 6, [2, 3, 4], seed=3, parallel=1, teacher="champion")
    with threads.using(min(2, numba.config.NUMBA_NUM_THREADS), min_batch=2):
        threaded, _ = play_teacher_games(MTM, 6, [2, 3, 4], seed=3, parallel=6, teacher="champion")
    for key in ("observations", "counts", "masks", "policies", "values"):
        assert np.array_equal(getattr(one, key), getattr(threaded, key)), key
    assert stats.games == 6 and set(np.unique(one.counts)) == {2, 3, 4}
    policies = one.policies.astype(np.float32)
    one_hot = (policies == 1.0).any(axis=1) & (np.count_nonzero(policies, axis=1) == 1)
    assert one_hot[one.counts == 3].all()
    assert not one_hot[one.counts != 3].all()  # a distribution somewhere, not a copied argmax
    greedy, _ = play_teacher_games(MTM, 6, [2, 3, 4], seed=3, parallel=1)
    assert np.array_equal(greedy.observations[greedy.counts == 3], one.observations[one.counts == 3])


def test_a_pinned_teacher_version_keeps_the_champions_a_recorded_command_met():
    """Marry the Monster's 2-player champion-v2 is a learned-search network; pinned to version 1
    the teachers are the version-1 policies, so an older network's command meets its own teacher.
    A pin above a count's newest version takes that newest one; version 0 is refused."""
    newest = champion_teachers(MTM, [2, 4])
    pinned = champion_teachers(MTM, [2, 4], version=1)
    assert not isinstance(newest[2], MLPWeights) and isinstance(pinned[2], MLPWeights)
    assert all(isinstance(t, MLPWeights) for t in champion_teachers(MTM, [4], version=2).values())
    with pytest.raises(ValueError, match="at least 1"):
        champion_teachers(MTM, [2], version=0)
    by_v1, _ = play_teacher_games(
        MTM, 3, [2], seed=4, epsilon=0.0, parallel=1, teacher="champion", teacher_version=1
    )
    by_v2, _ = play_teacher_games(MTM, 3, [2], seed=4, epsilon=0.0, parallel=1, teacher="champion")
    assert not np.array_equal(by_v1.policies, by_v2.policies)


def test_teacher_names_say_which_champion_version_taught_each_count():
    """Mighty Monsters' 3-player champion-v2 shipped before its az-v1 was trained, so the newest
    teachers (and a pin at 2) are v2 at 3 players and v1 at 4, greedy at 5; a pin at 1 names v1.
    (A reproduction command pinned to version 1 did not reproduce az-v1: this names the truth.)"""
    assert champion_teacher_versions(MIGHTY, [3, 4, 5]) == {3: 2, 4: 1}
    assert champion_teacher_versions(MIGHTY, [3, 4, 5], version=2) == {3: 2, 4: 1}
    assert champion_teacher_versions(MIGHTY, [3, 4, 5], version=1) == {3: 1, 4: 1}
    assert teacher_names(MIGHTY, [3, 4, 5], "champion") == {
        "3": "mighty_monsters-champion-v2",
        "4": "mighty_monsters-champion-v1",
        "5": "mighty_monsters-greedy-v1",
    }
    assert set(teacher_names(MIGHTY, [3, 4], "greedy").values()) == {"mighty_monsters-greedy-v1"}
    with pytest.raises(ValueError, match="at least 1"):
        champion_teacher_versions(MIGHTY, [3], version=0)


def test_a_trained_network_file_names_its_teachers_and_its_start(tmp_path):
    """The network file's training record names each count's teacher (the pinned champion
    version) and the network it started from, so a rerun can meet the same teachers."""
    assert (
        main(
            [
                "--out-dir",
                str(tmp_path / "a"),
                *TINY,
                "--teacher",
                "champion",
                "--players",
                "2,3",
                "--teacher-version",
                "1",
            ]
        )
        == 0
    )
    (run,) = (tmp_path / "a").iterdir()
    record = read_network(run / "network.npz").training
    assert record["teachers"] == {"2": "marry_the_monster-champion-v1", "3": "marry_the_monster-greedy-v1"}
    assert (
        main(
            [
                "--out-dir",
                str(tmp_path / "b"),
                *TINY,
                "--warm-start-games",
                "0",
                "--players",
                "2,3",
                "--init-network",
                str(run / "network.npz"),
            ]
        )
        == 0
    )
    (follow,) = (tmp_path / "b").iterdir()
    record = read_network(follow / "network.npz").training
    assert record["init_network"] == str(run / "network.npz") and "teachers" not in record


def test_a_placement_champion_teaches_through_its_numpy_forward_pass():
    """Monster Factory's 2-player champion is a placement network: it teaches through the numpy
    forward pass that plays it (targets: its probabilities; moves: its most probable action), the
    same games however many are played side by side; the counts without a champion are greedy's."""
    teachers = champion_teachers(FACTORY, [2, 3, 4])
    assert sorted(teachers) == [2] and isinstance(teachers[2], PPOAgent) and teachers[2].placement is not None
    batch, _ = play_teacher_games(FACTORY, 3, [2], seed=4, epsilon=0.0, parallel=1, teacher="champion")
    side_by_side, _ = play_teacher_games(FACTORY, 3, [2], seed=4, epsilon=0.0, parallel=3, teacher="champion")
    for key in ("observations", "masks", "policies", "values"):
        assert np.array_equal(getattr(batch, key), getattr(side_by_side, key)), key
    observations = batch.observations.astype(np.float32)
    expected = teachers[2].probabilities(observations, batch.masks)
    assert np.allclose(batch.policies.astype(np.float32), expected, atol=2e-3)
    assert (
        len(np.unique(batch.policies.argmax(axis=1))) > 1
        and (np.count_nonzero(batch.policies, axis=1) > 1).any()
    )
    # the first game, replayed with the champion's most probable move at every decision, is the one recorded
    spec = envs.spec(FACTORY)
    state = np.zeros(spec.state_size, np.int32)
    rng = make_rng(game_seed(4, 0))
    spec.init_state(state, envs.config(FACTORY, {"num_players": 2, "reward": "win"}), rng)
    seen = np.zeros(spec.obs_size, np.float32)
    k = 0
    while state[H_TERMINAL] == 0 and state[H_STEPS] < state[H_MAX_STEPS]:
        spec.observe_into(state, state[H_CURRENT], seen)
        assert np.array_equal(seen.astype(np.float16), batch.observations[k])
        spec.apply_action(state, int(np.argmax(np.where(batch.masks[k] != 0, expected[k], -1.0))), rng)
        k += 1
    mixed, _ = play_teacher_games(FACTORY, 2, [2, 3], seed=4, epsilon=0.0, parallel=2, teacher="champion")
    one_hot = np.count_nonzero(mixed.policies, axis=1) == 1
    assert one_hot[mixed.counts == 3].all() and not one_hot[mixed.counts == 2].all()


def test_a_network_champion_teaches_its_policy_heads_distribution_and_plays_its_argmax():
    """Marry the Monster's 2-player champion is version 2, a learned-search network played alone: it
    teaches its policy head's softmax over the legal actions and plays its most probable action,
    the same games however many are played side by side; 4 players keep the PPO policy of
    version 1, the only version shipped there, inside numba."""
    from monster_zoo.agents.az.agent import AZNetAgent
    from monster_zoo.agents.ppo.champions import champion_path

    teachers = champion_teachers(MTM, [2, 3, 4])
    assert (
        sorted(teachers) == [2, 4]
        and isinstance(teachers[2], AZNetAgent)
        and isinstance(teachers[4], MLPWeights)
    )
    four = PPOAgent.load(str(champion_path("marry_the_monster", 4)), MTM, options={"num_players": 4})
    # the weights of version 1's policy file (params hold weights and biases, not activations)
    assert np.array_equal(teachers[4].params, MLPWeights([(w, b, 0) for w, b, _ in four.layers]).params)
    batch, _ = play_teacher_games(MTM, 3, [2], seed=4, epsilon=0.0, parallel=1, teacher="champion")
    side_by_side, _ = play_teacher_games(MTM, 3, [2], seed=4, epsilon=0.0, parallel=3, teacher="champion")
    for key in ("observations", "masks", "policies", "values"):
        assert np.array_equal(getattr(batch, key), getattr(side_by_side, key)), key
    expected = teachers[2].probabilities(batch.observations.astype(np.float32), batch.masks)
    assert np.allclose(batch.policies.astype(np.float32), expected, atol=2e-3)
    assert (np.count_nonzero(batch.policies, axis=1) > 1).any()  # distributions, not one-hot choices
    # the first game, replayed with the network's own choice at every decision, is the one recorded
    spec = envs.spec(MTM)
    state = np.zeros(spec.state_size, np.int32)
    rng = make_rng(game_seed(4, 0))
    spec.init_state(state, envs.config(MTM, {"num_players": 2}), rng)
    seen = np.zeros(spec.obs_size, np.float32)
    k = 0
    while state[H_TERMINAL] == 0 and state[H_STEPS] < state[H_MAX_STEPS]:
        spec.observe_into(state, state[H_CURRENT], seen)
        assert np.array_equal(seen.astype(np.float16), batch.observations[k])
        spec.apply_action(state, int(teachers[2].act_batch(seen[None], batch.masks[k][None])[0]), rng)
        k += 1


def test_an_unknown_teacher_is_refused_with_the_valid_ones():
    with pytest.raises(ValueError, match="unknown teacher 'ppo'; valid: greedy, champion"):
        play_teacher_games(MTM, 1, [2], seed=0, teacher="ppo")


def test_the_trainer_adds_teacher_games_to_every_round(tmp_path):
    """``--teacher champion --teacher-share 1`` puts as many teacher games as self-play games into
    each round's buffer; the run's args.json records both, and a run from before the flags
    resumes without teacher games."""
    from monster_zoo.training.az.trainer import build_parser, resumed_args

    extra = ["--teacher", "champion", "--players", "2", "--buffer-size", "100000"]
    assert main(["--out-dir", str(tmp_path / "plain"), *TINY, *extra]) == 0
    assert main(["--out-dir", str(tmp_path / "mixed"), *TINY, *extra, "--teacher-share", "1"]) == 0

    def buffer_sizes(run_dir):
        with open(run_dir / "metrics.csv", newline="") as f:
            return [float(r["value"]) for r in csv.DictReader(f) if r["metric"] == "train/buffer_size"]

    (plain,), (mixed,) = (tmp_path / "plain").iterdir(), (tmp_path / "mixed").iterdir()
    grown_plain = np.diff([0.0, *buffer_sizes(plain)])
    grown_mixed = np.diff([0.0, *buffer_sizes(mixed)])
    assert (grown_mixed[1:] > grown_plain[1:]).all()
    saved = json.loads((mixed / "args.json").read_text())
    assert (saved["teacher"], saved["teacher_share"]) == ("champion", 1.0)
    for key in ("teacher", "teacher_share"):
        del saved[key]
    (mixed / "args.json").write_text(json.dumps(saved))
    resumed = resumed_args(["--resume", str(mixed)], build_parser())
    assert (resumed.teacher, resumed.teacher_share) == ("greedy", 0.0)
