"""Every monster-zoo game as an RLlib ``MultiAgentEnv`` (new API stack): turn-based and masked.

    from monster_zoo.envs.rllib_env import RLlibGameEnv
    env = RLlibGameEnv({"game": "marry_the_monster-v0", "num_players": 3})

To train on it, build the algorithm with :func:`monster_zoo.training.rllib.ppo.ppo_config`
(``ppo_config("marry_the_monster-v0", {"num_players": 2}).build_algo()``): a stock ``PPOConfig``
with the multi-agent mapping and the masking module it needs. RLlib's own defaults cannot run
this env: without ``.multi_agent(...)`` RLlib steps it as a single-agent env and stops with
"action space does not inherit from gymnasium.spaces.Space ... NoneType"; with it, its default
module has no encoder for the Dict observation ("No default encoder config for obs
space=Dict(...)"), and that message quotes the observation space, whose text names the helper
(:class:`MaskedObservationSpace`).

Needs the ``distributed`` extra (``pip install 'monster-zoo[distributed]'``); this module imports
Ray, so ``monster_zoo.envs`` never imports it. The env steps the game's raw PettingZoo AEC env
(:func:`monster_zoo.envs.make` with ``wrapped=False``), so its rules, options, seeding and error
messages are those of every other adapter.

- **Agents**: ``player_0`` .. ``player_{n-1}``, one per seat; ``agents`` always lists them all.
- **Turns**: ``reset`` and every non-final ``step`` return an observation for the agent on move
  only, and ``step`` takes an action for that agent only. A player whose turn has several
  decisions receives the next observation straight away.
- **Observations**: ``{"observations": Box(0, 1, (obs_size,), float32), "action_mask":
  Box(0, 1, (num_actions,), float32)}`` (a :class:`MaskedObservationSpace`), the keys RLlib's
  action-masking modules read (see :mod:`monster_zoo.training.rllib.masking`); the vector is the
  AEC env's ``observation`` and the mask its ``action_mask``, as floats.
- **Rewards**: every step rewards every seat (0.0 until the end), so the final rewards reach every
  seat, whoever made the last move.
- **End**: the last step gives every seat its final observation (mask all zero) and sets
  ``terminateds`` (the rules ended the game) or ``truncateds`` (``max_steps`` reached), per agent and
  under ``"__all__"``, as RLlib's ``MultiAgentEpisode`` expects.
- **Action space**: ``Discrete(num_actions)`` whose ``sample()`` without a mask draws a legal
  action of the agent on move, because RLlib's env checker (run by every env runner on a new env)
  steps the env with such a sample, and any other action would be refused as illegal. Copies and
  pickles of the space are plain ``Discrete`` spaces.
- **Config**: ``{"game": <registry id>, **options}``; every other key is a game option, passed
  through unchanged (``illegal_action="penalize"`` makes an illegal action end the game with -1 for
  the offender instead of raising), except ``observation``: this env sets the observation's form
  itself, so ``observation="flat"`` is refused.

Subclasses may leave some seats to embedded players (see :meth:`RLlibGameEnv._seat_agents_for_episode`
and :meth:`RLlibGameEnv._embedded_action`): the self-play league of
:mod:`monster_zoo.training.rllib.league` plays its fixed baselines that way.
"""

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from . import registry
from .core.inputs import check_reset_options

DEFAULT_GAME = "marry_the_monster-v0"
# What to build RLlib's algorithm with; named in the text of the observation space (below).
CONFIG_HELPER = "monster_zoo.training.rllib.ppo.ppo_config"


class MaskedObservationSpace(gym.spaces.Dict):
    """The ``{"observations", "action_mask"}`` Dict of every agent, whose text names :data:`CONFIG_HELPER`.

    RLlib's default modules have no encoder for a Dict and say so in an error that quotes the
    space ("No default encoder config for obs space=..."), raised inside RLlib where no code of
    ours runs; the quoted text is the one place that error can tell the user what to use instead.
    """

    def __repr__(self) -> str:
        return (
            f"{super().__repr__()} [a monster-zoo observation with its action mask, which RLlib's "
            f"default modules cannot read: build the algorithm with {CONFIG_HELPER}(game_id, options), "
            f"which adds the masking module]"
        )


class RLlibGameEnv(MultiAgentEnv):
    """A monster-zoo game for RLlib; ``config`` is ``{"game": id, **game options}`` (see the module doc)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        options = dict(config or {})
        self.game_id = options.pop("game", DEFAULT_GAME)
        if options.get("observation", "dict") != "dict":
            raise ValueError(
                f"{self.game_id}: RLlibGameEnv gives every agent the Dict of its observation and "
                f"action mask itself; leave out the option observation={options['observation']!r} "
                f"(the only value it takes is 'dict')"
            )
        self._raw = registry.make(self.game_id, wrapped=False, **options)
        self._seat_names: list[str] = list(self._raw.possible_agents)
        spec = self._raw.spec
        self._space = MaskedObservationSpace(
            {
                "observations": gym.spaces.Box(0.0, 1.0, (spec.obs_size,), np.float32),
                "action_mask": gym.spaces.Box(0.0, 1.0, (spec.num_actions,), np.float32),
            }
        )
        self._action_space = LegalActionSpace(spec.num_actions, self._legal_mask)
        self.possible_agents = self._agent_ids_for_env()
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self._space for a in self.possible_agents}
        self.action_spaces = {a: self._action_space for a in self.possible_agents}
        self._seat_agents: list[str | None] = list(self.possible_agents)

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return len(self._seat_names)

    @property
    def raw_env(self):
        """The raw AEC env being stepped (read only: for renders and tests)."""
        return self._raw

    # --- RLlib MultiAgentEnv API -------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """Start a game (``seed`` as the AEC env's; no reset options exist, so any are refused);
        observation of the first agent on move."""
        check_reset_options(options, self.game_id)
        self._raw.reset(seed=seed)
        self._seat_agents = self._seat_agents_for_episode()
        rewards = dict.fromkeys(self._exposed_agents(), 0.0)
        self._play_embedded_seats(rewards)
        obs, _, _, _, infos = self._outcome(rewards)
        return obs, infos

    def step(self, action_dict):
        """Apply the action of the agent on move; see the module doc for what comes back."""
        agent = self._agent_on_move()
        if agent is None or set(action_dict) != {agent}:
            raise ValueError(
                f"{self.game_id}: expected an action for {agent} (the agent on move) only, "
                f"got actions for {sorted(map(str, action_dict))}"
            )
        rewards = dict.fromkeys(self._exposed_agents(), 0.0)
        self._apply(action_dict[agent], rewards)
        self._play_embedded_seats(rewards)
        return self._outcome(rewards)

    def render(self):
        """The public state as text."""
        return self._raw.spec.to_text(self._raw.engine_state)

    # --- seats ---------------------------------------------------------------------------------
    def _agent_ids_for_env(self) -> list[str]:
        """The env's agent ids (here the seat names)."""
        return list(self._seat_names)

    def _seat_agents_for_episode(self) -> list[str | None]:
        """The agent id playing each seat this episode; None for a seat played inside the env."""
        return list(self._seat_names)

    def _embedded_action(self, seat: int, observation: np.ndarray, mask: np.ndarray) -> int:
        """The action of the embedded player of ``seat`` (subclasses that embed players define it)."""
        raise NotImplementedError

    # --- internals -----------------------------------------------------------------------------
    def _legal_mask(self) -> np.ndarray:
        """The legal actions of the agent on move (all zero when the game is over or not started)."""
        if not hasattr(self._raw, "agents") or self._game_over():
            return np.zeros(self._action_space.n, np.int8)
        return self._raw.observe(self._raw.agent_selection)["action_mask"]

    def _exposed_agents(self) -> list[str]:
        return [a for a in self._seat_agents if a is not None]

    def _game_over(self) -> bool:
        raw = self._raw
        return any(raw.terminations.values()) or any(raw.truncations.values())

    def _seat_on_move(self) -> int | None:
        return None if self._game_over() else self._seat_names.index(self._raw.agent_selection)

    def _agent_on_move(self) -> str | None:
        seat = self._seat_on_move()
        return None if seat is None else self._seat_agents[seat]

    def _apply(self, action, rewards: dict[str, float]) -> None:
        """Step the raw env and add every exposed seat's reward to ``rewards``."""
        self._raw.step(action)
        for seat, agent in enumerate(self._seat_agents):
            if agent is not None:
                rewards[agent] += self._raw.rewards[self._seat_names[seat]]

    def _play_embedded_seats(self, rewards: dict[str, float]) -> None:
        """Let embedded players move until an exposed agent is on move or the game is over."""
        while True:
            seat = self._seat_on_move()
            if seat is None or self._seat_agents[seat] is not None:
                return
            view = self._raw.observe(self._seat_names[seat])
            self._apply(self._embedded_action(seat, view["observation"], view["action_mask"]), rewards)

    def _observation(self, seat: int) -> dict[str, np.ndarray]:
        view = self._raw.observe(self._seat_names[seat])
        return {"observations": view["observation"], "action_mask": view["action_mask"].astype(np.float32)}

    def _outcome(self, rewards: dict[str, float]):
        """(obs, rewards, terminateds, truncateds, infos) after a move, in RLlib's conventions."""
        if not self._game_over():
            seat = self._seat_on_move()
            agent = self._seat_agents[seat]
            return (
                {agent: self._observation(seat)},
                rewards,
                {"__all__": False},
                {"__all__": False},
                {agent: {}},
            )
        terminated = any(self._raw.terminations.values())
        obs = {agent: self._observation(seat) for seat, agent in enumerate(self._seat_agents) if agent}
        terminateds = {**dict.fromkeys(obs, terminated), "__all__": terminated}
        truncateds = {**dict.fromkeys(obs, not terminated), "__all__": not terminated}
        return obs, rewards, terminateds, truncateds, {agent: {} for agent in obs}


class LegalActionSpace(gym.spaces.Discrete):
    """``Discrete(n)`` whose unmasked ``sample()`` draws from ``legal_mask()``; copies are plain ``Discrete``."""

    def __init__(self, n: int, legal_mask, seed=None):
        super().__init__(n, seed=seed)
        self._legal_mask = legal_mask

    def sample(self, mask=None, probability=None):
        """A legal action of the agent on move, unless ``mask`` or ``probability`` say otherwise."""
        if mask is None and probability is None:
            mask = self._legal_mask()
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self):
        return gym.spaces.Discrete, (int(self.n),)
