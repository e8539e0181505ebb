"""PPO on Ray RLlib for any monster-zoo game in one call, and the trained module as an agent.

    from monster_zoo.training.rllib.ppo import module_agent, ppo_config
    algo = ppo_config("marry_the_monster-v0", {"num_players": 2}).build_algo()
    algo.train()                     # one training iteration; repeat to train on
    agent = module_agent(algo)       # its likeliest legal action, for evaluate_against or a match

:func:`ppo_config` returns RLlib's own ``PPOConfig`` (new API stack) with the three things a
stock one lacks for :class:`~monster_zoo.envs.rllib_env.RLlibGameEnv`:

- the env and its config ``{"game": game_id, **options}``, checked at once, so an unknown game or
  a bad option is refused with the valid values before Ray starts;
- the multi-agent setup: every seat is played by one module, ``self_play`` (the policy plays
  against itself); a config without it steps the env as a single-agent env and fails;
- :class:`~monster_zoo.training.rllib.masking.MaskedPPOTorchRLModule` as that module: RLlib's
  default networks over the observation vector, with every illegal action's probability zero.
  RLlib's default module has no encoder for the env's Dict observation.

Everything else is RLlib's default, set on the returned config as usual
(``.env_runners(num_env_runners=8)``, ``.learners(...)``, ``.training(lr=...)``); keyword
arguments of :func:`ppo_config` other than its own go to ``.training``. The self-play league
(:mod:`monster_zoo.training.rllib.league`) plays a learner against snapshots and baselines
instead. Needs the ``distributed`` extra.
"""

import inspect
from typing import Any

from monster_zoo.envs.rllib_env import DEFAULT_GAME, RLlibGameEnv
from monster_zoo.training.rllib.masking import ModuleAgent, masked_module_spec

SELF_PLAY_MODULE = "self_play"


def every_seat_to_self_play(agent_id, episode=None, **kwargs) -> str:
    """RLlib's agent-to-module mapping of :func:`ppo_config`: every seat plays :data:`SELF_PLAY_MODULE`."""
    return SELF_PLAY_MODULE


def ppo_config(
    game_id: str = DEFAULT_GAME,
    options: dict[str, Any] | None = None,
    model_config: dict[str, Any] | None = None,
    **training,
):
    """A ``PPOConfig`` that trains one masked module on every seat of ``game_id`` (see the module doc).

    ``options``: the game's options (``{"num_players": 2}``); ``model_config``: RLlib's model keys
    (``{"fcnet_hiddens": [64, 64]}``; RLlib's defaults where left out); ``training``: arguments of
    ``PPOConfig.training`` (``lr``, ``train_batch_size_per_learner``, ...). Raises ValueError for an
    unknown game, a bad option or a ``training`` name that ``PPOConfig.training`` does not take.
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    options = dict(options or {})
    if "game" in options:
        raise ValueError(
            f"ppo_config: the game is the argument game_id ({game_id!r}), not the option "
            f"game={options['game']!r}"
        )
    unknown = sorted(set(training) - training_arguments())
    if unknown:
        raise ValueError(
            f"ppo_config: PPOConfig.training takes no argument {', '.join(unknown)}; it takes "
            f"{', '.join(sorted(training_arguments()))}"
        )
    env_config = {"game": game_id, **options}
    RLlibGameEnv(env_config)  # an unknown game or a bad option is refused here, with the valid values
    config = (
        PPOConfig()
        .environment(RLlibGameEnv, env_config=env_config)
        .multi_agent(policies={SELF_PLAY_MODULE}, policy_mapping_fn=every_seat_to_self_play)
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={SELF_PLAY_MODULE: masked_module_spec(model_config)}
            )
        )
    )
    return config.training(**training) if training else config


def training_arguments() -> set:
    """The keyword arguments ``PPOConfig.training`` takes (its own and those it passes on)."""
    from ray.rllib.algorithms.algorithm_config import AlgorithmConfig
    from ray.rllib.algorithms.ppo import PPOConfig

    return {
        name
        for method in (PPOConfig.training, AlgorithmConfig.training)
        for name, parameter in inspect.signature(method).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    }


def module_agent(algorithm, module_id: str = SELF_PLAY_MODULE, name: str = "rllib") -> ModuleAgent:
    """The current weights of ``algorithm``'s module ``module_id``, read from its learners, as a CPU
    :class:`~monster_zoo.training.rllib.masking.ModuleAgent` (its likeliest legal action)."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    path = f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/{module_id}"
    state = algorithm.learner_group.get_state(components=path)[COMPONENT_LEARNER][COMPONENT_RL_MODULE]
    module = RLModuleSpec.from_module(algorithm.get_module(module_id)).build()
    module.set_state(state[module_id])
    return ModuleAgent(module.eval(), name)
