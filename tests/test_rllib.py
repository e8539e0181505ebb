"""The RLlib path: the multi-agent env of every game, the masking module, the league and ``evaluate --ray``.

Needs the ``distributed`` extra (skipped without Ray, except the check that the core never imports
it). Ray runs locally here on the loopback address; the two-node cluster is in
``tests/test_ray_cluster.py`` (slow).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from monster_zoo import envs
from monster_zoo.envs.core.aec import IllegalActionError

# A local Ray binds to the loopback address instead of this machine's network address (read by
# Ray when it is imported, so set before the import below).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")


def test_core_imports_without_ray():
    """``monster_zoo``, its envs and a game run without importing Ray (it is an extra)."""
    code = (
        "import sys, monster_zoo, monster_zoo.envs as e; env = e.make('marry_the_monster-v0'); "
        "env.reset(seed=0); assert 'ray' not in sys.modules, 'ray was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


ray = pytest.importorskip("ray")
torch = pytest.importorskip("torch")

from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from monster_zoo.envs.rllib_env import CONFIG_HELPER, RLlibGameEnv  # noqa: E402
from monster_zoo.training.rllib.league import LEARNER, LeagueEnv  # noqa: E402
from monster_zoo.training.rllib.masking import MaskedPPOTorchRLModule, ModuleAgent, mask_logits  # noqa: E402
from monster_zoo.training.rllib.ppo import SELF_PLAY_MODULE, ppo_config  # noqa: E402
from tests.readme_blocks import doc_block  # noqa: E402

RLLIB_PAGE, RLLIB_MARKER = "docs/guides/rllib_league.md", "# snippet: rllib"


def is_over(terminateds, truncateds) -> bool:
    return terminateds["__all__"] or truncateds["__all__"]


def test_rllib_env_check_passes(case):
    """RLlib's own multi-agent env check, repeated (it steps with a random sample of the action space)."""
    env = RLlibGameEnv({"game": case.game_id, **case.options})
    for _ in range(5):
        check_multiagent_environments(env)


def test_turns_rewards_and_end_match_the_aec_env(case):
    """Random games in lockstep with the AEC env: the same observations, masks and final rewards;
    one observation (the agent on move's) until the end, then every seat's with the flags set."""
    options = {**case.options, "max_steps": 150}  # some games are truncated, most end by the rules
    env = RLlibGameEnv({"game": case.game_id, **options})
    aec = case.make(max_steps=150)
    rng = np.random.default_rng(0)
    space = env.observation_spaces[env.possible_agents[0]]
    for game in range(4):
        obs, infos = env.reset(seed=game)
        aec.reset(seed=game)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        aec_returns = dict.fromkeys(env.possible_agents, 0.0)
        while True:
            assert list(obs) == [aec.agent_selection] and list(infos) == list(obs)
            ((agent, view),) = obs.items()
            expected = aec.observe(agent)
            assert space.contains(view)
            np.testing.assert_array_equal(view["observations"], expected["observation"])
            np.testing.assert_array_equal(view["action_mask"], expected["action_mask"])
            action = int(rng.choice(np.flatnonzero(view["action_mask"])))
            obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
            aec.step(action)
            assert set(rewards) == set(env.possible_agents)
            for a, r in rewards.items():
                returns[a] += r
                aec_returns[a] += aec.rewards[a]
            if is_over(terminateds, truncateds):
                break
            assert terminateds == {"__all__": False} and truncateds == {"__all__": False}
        assert set(obs) == set(env.possible_agents)
        assert all(not view["action_mask"].any() for view in obs.values())
        ended_by_rules = any(aec.terminations.values())
        assert terminateds == {
            **dict.fromkeys(env.possible_agents, ended_by_rules),
            "__all__": ended_by_rules,
        }
        assert truncateds == {
            **dict.fromkeys(env.possible_agents, not ended_by_rules),
            "__all__": not ended_by_rules,
        }
        assert returns == pytest.approx(aec_returns)


def test_bad_actions_are_refused_and_change_nothing():
    """An action for an agent not on move, or an illegal one, is refused with the agent named."""
    env = RLlibGameEnv({"game": "marry_the_monster-v0", "num_players": 3})
    obs, _ = env.reset(seed=3)
    ((agent, view),) = obs.items()
    other = next(a for a in env.possible_agents if a != agent)
    before = env.raw_env.state()
    with pytest.raises(ValueError, match=f"expected an action for {agent}"):
        env.step({other: 0})
    illegal = int(np.flatnonzero(view["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=agent):
        env.step({agent: illegal})
    np.testing.assert_array_equal(env.raw_env.state(), before)


def test_options_pass_through():
    """Every game option reaches the game; a bad one is refused with the valid values."""
    env = RLlibGameEnv({"game": "marry_the_monster-v0", "num_players": 5, "reward": "score"})
    assert env.possible_agents == [f"player_{i}" for i in range(5)]
    assert env.raw_env.options["reward"] == "score"
    with pytest.raises(ValueError, match="valid values"):
        RLlibGameEnv({"game": "marry_the_monster-v0", "num_players": 9})
    penalized = RLlibGameEnv({"game": "marry_the_monster-v0", "illegal_action": "penalize"})
    obs, _ = penalized.reset(seed=0)
    ((agent, view),) = obs.items()
    _, rewards, terminateds, _, _ = penalized.step({agent: int(np.flatnonzero(view["action_mask"] == 0)[0])})
    assert terminateds["__all__"] and rewards[agent] == -1.0


def test_action_space_samples_legal_actions_and_copies_plainly():
    """The action space's unmasked sample is legal (RLlib's checker steps with it); a copy is plain."""
    import copy
    import pickle

    import gymnasium as gym

    env = RLlibGameEnv({"game": "monstargh-v0"})
    obs, _ = env.reset(seed=1)
    ((agent, view),) = obs.items()
    space = env.action_spaces[agent]
    assert all(view["action_mask"][space.sample()] == 1 for _ in range(200))
    for clone in (copy.deepcopy(space), pickle.loads(pickle.dumps(space))):
        assert type(clone) is gym.spaces.Discrete and clone == space


def masked_module(env, hidden=(64, 64)) -> MaskedPPOTorchRLModule:
    agent = env.possible_agents[0]
    return RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config={"fcnet_hiddens": list(hidden)},
    ).build()


def test_masked_module_never_samples_an_illegal_action(game_id):
    """3000 sampled steps per game, the env refusing any illegal action (illegal_action='raise'), and
    the probability of every masked action exactly zero."""
    env = RLlibGameEnv({"game": game_id})
    module = masked_module(env)
    dist_cls = module.get_exploration_action_dist_cls()
    torch.manual_seed(0)
    obs, _ = env.reset(seed=0)
    for _ in range(3000):
        ((agent, view),) = obs.items()
        batch = {Columns.OBS: {k: torch.from_numpy(v)[None] for k, v in view.items()}}
        logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
        probs = torch.softmax(logits, dim=-1)[0].numpy()
        assert np.all(probs[view["action_mask"] == 0] == 0.0)
        action = int(dist_cls.from_logits(logits).sample()[0])
        assert view["action_mask"][action] == 1
        obs, _, terminateds, truncateds, _ = env.step({agent: action})
        if is_over(terminateds, truncateds):
            obs, _ = env.reset()


def test_masked_module_leaves_the_batch_alone_and_stays_finite():
    """The forward passes read the batch without changing it; an all-zero mask (a final
    observation) gives finite logits, entropy and values."""
    env = RLlibGameEnv({"game": "marry_the_monster-v0"})
    module = masked_module(env)
    obs, _ = env.reset(seed=0)
    view = next(iter(obs.values()))
    mask = torch.from_numpy(np.stack([view["action_mask"], np.zeros_like(view["action_mask"])]))
    batch = {
        Columns.OBS: {
            "observations": torch.from_numpy(np.stack([view["observations"]] * 2)),
            "action_mask": mask,
        }
    }
    out = module.forward_train(batch)
    assert set(batch[Columns.OBS]) == {"observations", "action_mask"}
    dist = module.get_train_action_dist_cls().from_logits(out[Columns.ACTION_DIST_INPUTS])
    assert torch.isfinite(dist.entropy()).all()
    assert torch.isfinite(module.compute_values(batch)).all()
    assert torch.isfinite(mask_logits(torch.tensor([[1e30, -1e30]]), torch.tensor([[0.0, 1.0]]))).all()


def test_building_a_module_logs_no_false_deprecation():
    """RLlib logs that ``RLModule(config=...)`` is deprecated whenever any module is built, though
    ours are built through its keyword API; that notice alone is dropped, others still show."""
    import logging

    from ray._common.deprecation import deprecation_warning
    from ray.util import debug

    debug._logged.discard("RLModule(config=[RLModuleConfig object])")  # RLlib says it once a process
    seen = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())
    logger = logging.getLogger("ray._common.deprecation")
    logger.addHandler(handler)
    try:
        masked_module(RLlibGameEnv({"game": "marry_the_monster-v0"}))
        deprecation_warning(old="some_old_call()", error=False)
    finally:
        logger.removeHandler(handler)
    assert len(seen) == 1 and "some_old_call()" in seen[0], seen


def test_module_agent_plays_only_legal_actions_in_the_evaluator():
    """The evaluation wrapper picks legal actions through the batched evaluator."""
    from monster_zoo.agents import make_agent
    from monster_zoo.training.learner_eval import evaluate_against

    env = RLlibGameEnv({"game": "mighty_monsters-v0"})
    result = evaluate_against(
        ModuleAgent(masked_module(env)),
        make_agent("random", "mighty_monsters-v0"),
        "mighty_monsters-v0",
        8,
        seed=0,
    )
    assert result.games == 8


@pytest.mark.parametrize("num_players", [2, 3, 6])
def test_league_env_deals_roles_to_random_seats(num_players):
    """The learner always plays, at a seat drawn per episode; baseline seats never appear as agents;
    the learner's final infos say whether it won, from every seat's returns."""
    game = "monstargh-v0" if num_players == 6 else "marry_the_monster-v0"
    env = LeagueEnv(
        {
            "game": game,
            "num_players": num_players,
            "league": {"greedy": 0.5, "snapshots": 0.5},
            "league_seed": 4,
        }
    )
    assert env.possible_agents == [LEARNER] + [f"opponent_{k}" for k in range(1, num_players)]
    rng = np.random.default_rng(1)
    learner_seats, exposed_counts = set(), set()
    for episode in range(12):
        obs, _ = env.reset(seed=episode)
        seen = set(obs)
        while True:
            ((agent, view),) = obs.items()
            obs, rewards, terminateds, truncateds, infos = env.step(
                {agent: int(rng.choice(np.flatnonzero(view["action_mask"])))}
            )
            seen |= set(obs)
            if is_over(terminateds, truncateds):
                break
        assert LEARNER in seen and seen == set(obs) == set(rewards)
        learner_seats.add(env._seat_agents.index(LEARNER))
        exposed_counts.add(len(seen))
        returns = infos[LEARNER]["returns"]
        best = max(returns)
        mine = returns[env._seat_agents.index(LEARNER)]
        assert infos[LEARNER]["won"] == float(mine == best and returns.count(best) == 1)
        assert rewards[LEARNER] == pytest.approx(mine)
    assert len(learner_seats) > 1
    assert len(exposed_counts) > 1  # some opponents are snapshots (agents), others greedy (embedded)


def test_league_env_deals_by_its_seeds():
    """The same reset seed deals the same seats and opponents; env runners (EnvContext) differ."""
    from ray.rllib.env.env_context import EnvContext

    config = {"game": "marry_the_monster-v0", "num_players": 4, "league": {"greedy": 0.5, "snapshots": 0.5}}

    def deals(env, seeds):
        return [(env.reset(seed=seed), tuple(env._seat_agents))[1] for seed in seeds]

    first, second = LeagueEnv(config), LeagueEnv(config)
    assert deals(first, [1, None, None]) == deals(second, [1, None, None])
    assert deals(first, range(10, 20)) != deals(second, range(30, 40))
    runners = [LeagueEnv(EnvContext(config, worker_index=w)) for w in (1, 2)]
    assert deals(runners[0], [None] * 10) != deals(runners[1], [None] * 10)


def test_league_env_passes_the_rllib_check():
    env = LeagueEnv(
        {
            "game": "marry_the_monster-v0",
            "num_players": 4,
            "league": {"greedy": 0.3, "mcts": 0.1, "random": 0.1, "snapshots": 0.5},
        }
    )
    for _ in range(5):
        check_multiagent_environments(env)


def test_tiny_league_run(tmp_path):
    """Two tiny training iterations on the driver (no env runner actors), a snapshot admitted each
    iteration (margin -1), evaluation, checkpoint and the SB3 trainer's metric names."""
    from monster_zoo.training.rllib import league as rllib_league

    code = rllib_league.main(
        [
            "--option",
            "num_players=2",
            "--total-timesteps",
            "200",
            "--train-batch-size",
            "128",
            "--minibatch-size",
            "64",
            "--num-epochs",
            "1",
            "--net-arch",
            "16",
            "--eval-every",
            "0",
            "--eval-games",
            "4",
            "--checkpoint-every",
            "0",
            "--snapshot-margin",
            "-1",
            "--snapshot-min-episodes",
            "1",
            "--league",
            "random:0.3,greedy:0.3,snapshots:0.4",
            "--out-dir",
            str(tmp_path),
            "--no-progress",
        ]
    )
    assert code == 0
    (run_dir,) = tmp_path.iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["timesteps"] >= 200 and summary["league_size"] >= 2
    assert summary["winrate_vs_random"]["games"] == 4 and summary["winrate_vs_greedy"]["games"] == 4
    assert (run_dir / "checkpoints" / "final").is_dir()
    metrics = (run_dir / "metrics.csv").read_text()
    for name in (
        "charts/SPS",
        "eval/winrate_vs_random",
        "eval/winrate_vs_greedy",
        "rollout/ep_rew_mean",
        "train/pool_size",
    ):
        assert name in metrics
    assert any(p.name.startswith("events.out.tfevents") for p in run_dir.iterdir())


def test_league_refuses_bad_arguments(capsys):
    from monster_zoo.training.rllib import league as rllib_league

    for argv, message in (
        (["--league", "nobody:1"], "unknown agent 'nobody'"),
        (["--option", "num_players=9"], "num_players=9"),
    ):
        with pytest.raises(SystemExit) as stop:  # argparse's exit for bad arguments
            rllib_league.main(argv)
        assert stop.value.code == 2 and message in capsys.readouterr().err


def test_evaluate_on_ray_gives_the_local_results(tmp_path):
    """``evaluate --ray`` writes the same tournament.json (timing aside) as the local run."""
    from monster_zoo.cli import main as cli

    common = [
        "evaluate",
        "--game",
        "marry_the_monster-v0",
        "--option",
        "num_players=3",
        "--agents",
        "greedy",
        "random",
        "--games",
        "9",
        "--seed",
        "5",
        "--no-progress",
    ]
    assert cli.main(common + ["--out", str(tmp_path / "local")]) == 0
    assert cli.main(common + ["--ray", "--out", str(tmp_path / "ray")]) == 0
    local, on_ray = (json.loads((tmp_path / d / "tournament.json").read_text()) for d in ("local", "ray"))
    local.pop("elapsed_s")
    on_ray.pop("elapsed_s")
    assert on_ray == local


def test_evaluate_address_needs_ray(capsys):
    from monster_zoo.cli import main as cli

    with pytest.raises(SystemExit):
        cli.main(["evaluate", "--agents", "greedy", "random", "--address", "127.0.0.2:6379"])
    assert "--address needs --ray" in capsys.readouterr().err


def test_stock_module_error_names_the_config_helper():
    """RLlib's default PPO module, built for the env's observation as a stock config builds it,
    fails with an error that quotes the space, whose text names the helper to use instead."""
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule

    env = RLlibGameEnv({"game": "monstargh-v0"})
    agent = env.possible_agents[0]
    stock = RLModuleSpec(
        module_class=DefaultPPOTorchRLModule,
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config={},
    )
    with pytest.raises(ValueError, match="No default encoder config") as error:
        stock.build()
    assert f"{CONFIG_HELPER}(game_id, options)" in str(error.value)
    assert CONFIG_HELPER == f"{ppo_config.__module__}.{ppo_config.__name__}"


def test_ppo_config_trains_one_masked_module_on_every_seat():
    """The helper's config: the game and options in the env config, every seat mapped to the one
    self-play module, that module the masking one, the model and training arguments passed on."""
    config = ppo_config(
        "mighty_monsters-v0", {"num_players": 5}, {"fcnet_hiddens": [32]}, lr=1e-3, num_epochs=2
    )
    config.validate()
    assert config.env is RLlibGameEnv and config.env_config == {
        "game": "mighty_monsters-v0",
        "num_players": 5,
    }
    assert config.is_multi_agent and set(config.policies) == {SELF_PLAY_MODULE}
    env = RLlibGameEnv(config.env_config)
    assert {config.policy_mapping_fn(agent, None) for agent in env.possible_agents} == {SELF_PLAY_MODULE}
    spec = config.rl_module_spec.rl_module_specs[SELF_PLAY_MODULE]
    assert spec.module_class is MaskedPPOTorchRLModule and spec.model_config == {"fcnet_hiddens": [32]}
    assert (config.lr, config.num_epochs) == (1e-3, 2)
    agent = env.possible_agents[0]
    spec.observation_space, spec.action_space = env.observation_spaces[agent], env.action_spaces[agent]
    assert isinstance(spec.build(), MaskedPPOTorchRLModule)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"game_id": "nope-v0"}, "unknown game 'nope-v0'; available: marry_the_monster-v0"),
        ({"options": {"num_players": 9}}, "num_players=9 is not valid; valid values: 2, 3, 4, 5"),
        ({"options": {"game": "monstargh-v0"}}, "the game is the argument game_id"),
        ({"learning_rate": 0.1}, "takes no argument learning_rate; it takes .*\\blr\\b"),
        ({"options": {"observation": "flat"}}, "leave out the option observation='flat'"),
    ],
)
def test_ppo_config_refuses_bad_input_before_ray_starts(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ppo_config(**kwargs)


def test_readme_rllib_snippet_runs(tmp_path):
    """The RLlib guide's example, exactly as printed, in a fresh interpreter (one training
    iteration on the driver, then the trained module evaluated against greedy)."""
    done = subprocess.run(
        [sys.executable, "-c", doc_block(RLLIB_PAGE, RLLIB_MARKER)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "vs greedy" in done.stdout


@pytest.mark.slow
def test_rllib_throughput_quick_run_writes_a_record(tmp_path):
    """The env-runner throughput benchmark runs end to end (figures from a smoke run mean nothing)."""
    from monster_zoo.benchmarks import rllib_throughput

    out = tmp_path / "rllib.jsonl"
    assert rllib_throughput.main(["--quick", "--env-runners", "0,1", "--json", str(out)]) == 0
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert [s["env_runners"] for s in record["setups"]] == [0, 1]
    assert all(
        s["sampling_steps_per_s"][0] > 0 and s["training_steps_per_s"][0] > 0 for s in record["setups"]
    )


def test_league_opponents_are_built_for_the_league_game():
    """A league of MONSTArgh! at 2 players seats the 2-player champion (not the 4-player one
    make_agent picks for the game's default count), which refuses a 4-player state."""
    from monster_zoo.agents.game_rules import WrongGameError

    league = LeagueEnv({"game": "monstargh-v0", "num_players": 2, "league": {"champion": 1.0}})
    champion = league._baselines["champion"]
    assert champion.made_for.num_players == 2
    four = envs.make("monstargh-v0", num_players=4, wrapped=False)
    four.reset(seed=0)
    state = four.unwrapped.engine_state
    with pytest.raises(WrongGameError, match="num_players=4"):
        champion.act(
            four.observe(four.agent_selection)["observation"],
            four.observe(four.agent_selection)["action_mask"],
            state,
        )
