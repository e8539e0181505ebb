"""One PettingZoo AEC adapter over any game that implements the kernel contract.

Each game's ``raw_env`` is a subclass of :class:`KernelAECEnv` made from its declaration
(:class:`monster_zoo.envs.core.game.Game`), which sets ``spec`` and ``metadata``; everything
else (validation, illegal actions, rewards, rendering, pickling) lives here once.
"""

from typing import ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .action_trail import ActionTrail
from .contract import H_CURRENT, H_TERMINAL, GameSpec
from .header import running, truncated
from .illegal import IllegalActionError, checked_action
from .inputs import PETTINGZOO_PROBE, check_reset_options, check_seed
from .options import resolve_options
from .rng import entropy_seed, make_rng

# "rgb_array" pictures are the game's SVG drawing rasterised (envs/core/picture.py); a replay
# shows RENDER_FPS actions a second.
RENDER_MODES = ["ansi", "human", "rgb_array"]
RENDER_FPS = 2


class KernelAECEnv(AECEnv, EzPickle):
    """PettingZoo AEC env whose rules are the numba kernels of ``spec``.

    Subclasses set ``spec`` (a :class:`~monster_zoo.envs.core.contract.GameSpec`) and
    ``metadata``. Constructor keywords are the game's options (see its docs).
    """

    spec: ClassVar[GameSpec]  # set by each game's subclass
    metadata = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS, "is_parallelizable": False}

    def __init__(self, **options):
        EzPickle.__init__(self, **options)
        super().__init__()
        spec = self.spec
        self.options = resolve_options(spec.env_id, spec.options, options)
        self.render_mode = self.options["render_mode"]
        self._config = spec.make_config(self.options)
        n = int(self._config[0])
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        # observation="flat": the Box alone, the mask in infos (PettingZoo allows either place)
        self._flat = self.options["observation"] == "flat"
        box = spaces.Box(0.0, 1.0, (spec.obs_size,), np.float32)
        self._obs_space = (
            box
            if self._flat
            else spaces.Dict(
                {"observation": box, "action_mask": spaces.Box(0, 1, (spec.num_actions,), np.int8)}
            )
        )
        self._act_space: spaces.Discrete = spaces.Discrete(spec.num_actions)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self._state = np.zeros(spec.state_size, np.int32)
        self._mask = np.zeros(spec.num_actions, np.int8)
        self._returns = np.zeros(n, np.float32)
        self._rng = None
        self._trail: ActionTrail | None = (
            None  # the game's actions, to name and highlight the last one in a picture
        )

    # --- PettingZoo API ------------------------------------------------------
    def observation_space(self, agent):
        """The same cached space for every agent (a Dict, or the Box with ``observation="flat"``)."""
        return self._obs_space

    def action_space(self, agent):
        """The same cached Discrete space for every agent."""
        return self._act_space

    def reset(self, seed=None, options=None):
        """Start a new game; ``seed`` makes it reproducible (ruling C2).

        ``seed``: None or a non-negative integer, reduced modulo 2**63, else ValueError before
        anything changes. No reset ``options`` exist: ``options`` is None or ``{}``, else ValueError,
        except PettingZoo's probe ``{"options": ...}`` of its ``api_test``, which is taken and means
        nothing; see :mod:`monster_zoo.envs.core.inputs`.
        """
        seed = check_seed(seed, f"{self.spec.env_id} reset()")
        check_reset_options(options, f"{self.spec.env_id} reset()", taken=(PETTINGZOO_PROBE,))
        if seed is not None:
            self._rng = make_rng(seed)
        elif self._rng is None:
            self._rng = make_rng(entropy_seed())
        self.spec.init_state(self._state, self._config, self._rng)
        self._trail = ActionTrail(self._state, self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._sync_selection()
        self._publish_masks()

    def observe(self, agent):
        """``{"observation", "action_mask"}`` from ``agent``'s seat; the mask is zero off-turn.
        With ``observation="flat"`` the observation array alone (the mask is in ``infos``)."""
        self._require_reset("observe")
        if agent not in self._seat:
            raise KeyError(f"unknown agent {agent!r}; possible agents: {', '.join(self.possible_agents)}")
        obs = np.empty(self.spec.obs_size, np.float32)  # observe_into writes every entry (the contract)
        self.spec.observe_into(self._state, self._seat[agent], obs)
        return obs if self._flat else {"observation": obs, "action_mask": self._agent_mask(agent)}

    def step(self, action):
        """Apply ``action`` for the selected agent, or retire a finished agent with None."""
        self._require_reset("step")
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(
                    f"{agent} has finished; the only valid action is None, got {action!r}"
                )
            self._was_dead_step(action)
            return
        index, reason = self._check_action(agent, action)
        if reason is not None:
            if self.options["illegal_action"] == "penalize":
                self._penalize(agent)
                return
            raise IllegalActionError(reason)
        self._cumulative_rewards[agent] = 0.0
        # recorded, not copied: the picture rebuilds the state this action met to name it as each
        # seat saw it (naming it now, in words, would cost every step for the few that are drawn)
        assert self._trail is not None  # reset() made it, and an agent is selected only after reset()
        self._trail.record(self._seat[agent], index)
        self.spec.apply_action(self._state, index, self._rng)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if self._state[H_TERMINAL]:
            self.spec.returns(self._state, self._returns)
            self.rewards = {a: float(self._returns[self._seat[a]]) for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
        elif truncated.py_func(self._state):
            self.truncations = dict.fromkeys(self.agents, True)
        self._sync_selection()
        self._publish_masks()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        """Text of the public state ('ansi' returns it, 'human' prints it), or the public
        picture as an ``H x W x 3`` ``uint8`` array ('rgb_array', needs the render extra)."""
        self._require_reset("render")
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'."
            )
            return None
        if self.render_mode == "rgb_array":
            from .picture import rasterize

            return rasterize(self.draw())
        text = self.spec.to_text(self._state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def last_action(self):
        """``(seat, action, public name, the actor's name)`` of the last action applied, or None."""
        last = self._trail.last(self.spec.apply_action) if self._trail is not None else None
        if last is None:
            return None
        actor, action, before = last
        return (actor, action, *(self.spec.describe_action(before, action, v) for v in (None, actor)))

    def observe_json(self, agent) -> dict:
        """``agent``'s seat view as JSON-ready data (:mod:`monster_zoo.envs.core.json_view`): the table
        and its own secrets in the game's words, its legal moves by id and name when on move, the
        others' moves since its last one as it knew them, the result once the game is over."""
        from .json_view import seat_view  # the JSON view is for language models, not for every env user
        from .records import game_result

        self._require_reset("observe")  # PettingZoo's own message: observe before reset
        if agent not in self._seat:
            raise KeyError(f"unknown agent {agent!r}; possible agents: {', '.join(self.possible_agents)}")
        seat = self._seat[agent]
        assert self._trail is not None  # _require_reset above
        named = self._trail.named(self.spec.apply_action, self.spec.describe_action, seat)
        result = game_result(self)
        over = result["terminated"] or result["truncated"]
        legal = self.legal_actions() if not over else []
        return seat_view(self.spec, self._state, seat, legal, named, result if over else None)

    def draw(self, seat=None) -> str:
        """SVG picture of the game as ``seat`` (an index or agent name) sees it, or the public
        view for None; the last action is named as that seat may know it and highlighted."""
        if self._rng is None:
            raise RuntimeError("there is no game to draw yet: call reset() first")
        viewer = self._seat[seat] if isinstance(seat, str) else seat
        if viewer is not None and not 0 <= viewer < len(self.possible_agents):
            raise ValueError(
                f"seat {seat!r} is not at this table; seats are 0..{len(self.possible_agents) - 1} "
                f"or the names {self.possible_agents}"
            )
        last, named = None, self.last_action()
        if named is not None:
            from .picture import LastAction

            actor, action, public, full = named
            # Seats other than the actor know of its action what the public knows: where the
            # public name hides something, the action itself (and what it touched) is unknown.
            if viewer == actor or public == full:
                last = LastAction(actor, action, full)
            else:
                last = LastAction(actor, -1, public)
        return self.spec.draw(self._state, viewer, last)

    def close(self):
        """Nothing to release."""

    def state(self):
        """A copy of the full engine state (hidden information included; for debugging)."""
        self._require_reset("state")
        return self._state.copy()

    # --- helpers -----------------------------------------------------------------
    @property
    def engine_state(self) -> np.ndarray:
        """The live engine state vector (do not modify; copy for search)."""
        return self._state

    def action_to_str(self, action) -> str:
        """Name ``action`` in the current state."""
        return self.spec.action_to_str(int(action), self._state)

    def legal_actions(self):
        """Indices of the legal actions of the selected agent."""
        return np.flatnonzero(self._mask).tolist()

    def _agent_mask(self, agent) -> np.ndarray:
        """``agent``'s legal actions: the mask of the seat on move, zeros for everyone else."""
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            return self._mask.copy()
        return np.zeros(self.spec.num_actions, np.int8)

    def _publish_masks(self):
        """With ``observation="flat"``, put every agent's mask into its ``infos`` entry."""
        if self._flat:
            for agent in self.agents:
                self.infos[agent]["action_mask"] = self._agent_mask(agent)

    def _require_reset(self, call: str):
        """Refuse ``call`` before the first reset with the error PettingZoo's order-enforcing
        wrapper gives, so the raw env and the wrapped env fail alike."""
        if not hasattr(self, "agents"):
            getattr(EnvLogger, f"error_{call}_before_reset")()

    def _sync_selection(self):
        """Point ``agent_selection`` at the seat on move and refresh its mask."""
        cur = int(self._state[H_CURRENT])
        if cur < 0 or not running.py_func(self._state):
            self._mask[:] = 0
            if self.agents:
                self.agent_selection = self.agents[0] if cur < 0 else self.possible_agents[cur]
            return
        self.agent_selection = self.possible_agents[cur]
        self.spec.legal_mask(self._state, self._mask)

    def _check_action(self, agent, action):
        """``(index, None)`` if ``action`` is legal for ``agent``, else ``(None, the error message)``."""
        if action is None:
            return None, f"{agent} is on move and must act; None is only for finished agents"
        return checked_action(self.spec, self._state, self._mask, agent, action)

    def _penalize(self, agent):
        """End the game: -1 to ``agent``, 0 to the others (PettingZoo's TerminateIllegalWrapper)."""
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: (-1.0 if a == agent else 0.0) for a in self.agents}
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos[agent]["illegal_move"] = True
        self._mask[:] = 0
        self._publish_masks()
        self._accumulate_rewards()

    # --- pickling: constructor options plus the live game ---------------------------
    def __getstate__(self):
        live = None
        if self._rng is not None and hasattr(self, "agents"):
            live = {
                k: getattr(self, k)
                for k in (
                    "_state",
                    "_rng",
                    "agents",
                    "rewards",
                    "_cumulative_rewards",
                    "terminations",
                    "truncations",
                    "infos",
                    "agent_selection",
                    "_mask",
                    "_trail",
                )
            }
            live = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in live.items()}
        return {"ezpickle": EzPickle.__getstate__(self), "live": live}

    def __setstate__(self, data):
        EzPickle.__setstate__(self, data["ezpickle"])
        if data["live"] is not None:
            for k, v in data["live"].items():
                setattr(self, k, v)


def _forwarded(name: str) -> property:
    """The wrapped env's attribute ``name``, refused before reset as PettingZoo's wrapper refuses it."""

    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"The wrapped env's ``{name}`` (after reset).")


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcement, with the attributes every step of an agent loop reads
    (``agent_selection``, ``agents``, the reward, termination, truncation and info dicts, and
    ``last()``) forwarded directly instead of through the wrapper's generic ``__getattr__``, which
    cost about a fifth of an AEC step. The same checks and errors before reset."""

    agents = _forwarded("agents")
    agent_selection = _forwarded("agent_selection")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")

    @property
    def _cumulative_rewards(self):
        return self.env._cumulative_rewards

    def last(self, observe: bool = True):
        """``(observation, cumulative reward, terminated, truncated, info)`` of the agent on move."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def __str__(self) -> str:
        return str(self.env)


def wrap(raw):
    """Standard wrappers of ``env()``: order enforcement only, since the adapter itself
    validates actions (bounds and legality) with clearer messages than the generic wrappers."""
    return OrderEnforcing(raw)
