"""A gymnasium ``VectorEnv`` over the batched learner games: ``num_envs`` games in one call.

:class:`LearnerVectorEnv` runs :class:`~monster_zoo.envs.core.selfplay.LearnerGames` (on the CPU)
or :class:`~monster_zoo.envs.gpu.learner_games.GpuLearnerGames` (``device="cuda"``) under
gymnasium's 1.x vector API: in every game one seat, drawn at random when the game starts, is the
learner's, and every other seat is played by an opponent drawn from the pool, exactly as in
:func:`monster_zoo.make_vec_env` and :func:`monster_zoo.make_learner_env`. It is what
``gymnasium.make_vec("monster_zoo/<game>-learner-v0", num_envs=N,
vectorization_mode="vector_entry_point")`` returns.

Spaces: ``single_observation_space`` is the learner's flat ``Box(0, 1, (obs_size,), float32)``, or
with ``observation="dict"`` a ``Dict`` of it (``"observation"``) and the legal actions
(``"action_mask"``, ``Box(0, 1, (num_actions,), int8)``), the AEC env's two forms;
``single_action_space`` is ``Discrete(num_actions)``; the batched spaces are gymnasium's
``batch_space`` of them.

Action masks: ``info["action_mask"]`` (``bool[num_envs, num_actions]``, the legal actions of the
observation returned beside it; a game that has just ended shows none) and :meth:`LearnerVectorEnv.action_masks`.

Autoreset (``metadata["autoreset_mode"]``, https://farama.org/Vector-Autoreset-Mode):

- ``"SameStep"`` (the default): the step that ends a game returns the first observation of the
  slot's next game (and its mask), its reward is the ended game's, and ``info["final_obs"]`` (the
  ended game's last observation) and ``info["final_info"]`` (its ``returns``, ``learner_seat`` and
  ``illegal_move``) hold what the ended game left, flagged by ``info["_final_obs"]``. Every step is
  a decision of the learner and every mask has a legal action, which masked distributions need.
- ``"NextStep"`` (CPU only): the step that ends a game returns its last observation (no legal
  action), its reward, and ``info["returns"]``; the next step ignores that slot's action and
  returns the next game's first observation with reward 0. This is what gymnasium's
  ``RecordEpisodeStatistics`` counts episodes by.

Seeds: ``reset(seed=s)`` plays game ``k`` of slot ``i`` from ``s + i + k * num_envs``, so the first
game of slot ``i`` is ``make_learner_env(...).reset(seed=s + i)``'s (gymnasium's ``SyncVectorEnv``
seeds its envs ``s + i`` too) and every game is the one ``make_vec_env(..., seed=s)`` plays;
``reset()`` without a seed abandons the games in progress and starts the next ones.
``options={"reset_mask": m}`` restarts only the slots where ``m`` is set. Seeds never enter
``info`` (they reveal the hidden deal): :meth:`LearnerVectorEnv.game_seeds` hands them to the user's own code.

``device="cuda"``: the games run on the GPU and every array handed out (observations, rewards,
terminations, truncations, masks, final observations and returns) is a ``torch`` tensor on the GPU
that shares the engine's memory (no copy; overwritten by the next step: ``.clone()`` what must
stay), and actions are a ``torch`` int64 tensor on the GPU. ``info["final_obs"]`` is then one
tensor ``[num_envs, obs_size]`` (meaningful where ``info["_final_obs"]``) rather than gymnasium's
object array, so that no array crosses to the host in a step: under ``illegal_action="raise"`` a step
reads back one number (how many actions were illegal, so that an illegal one is refused before
anything moves), under ``"penalize"`` nothing (torch-policy opponents add whether one still waits).
The same seed plays the same games as on the CPU.
gymnasium's vector wrappers compute in numpy and work on the CPU env.

Inputs, refused with a ValueError that names the fix and changes nothing: actions as
``num_envs`` integer action indices (:mod:`monster_zoo.envs.core.illegal`; a tensor on the wrong
device is refused too), legal unless ``illegal_action="penalize"`` (then the learner loses that
game, ``final_info["illegal_move"]``); ``num_envs`` an integer >= 1 whose games fit in memory;
seeds as :mod:`monster_zoo.envs.core.inputs`.
"""

import os
from collections.abc import Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .core.illegal import IllegalActionError
from .core.inputs import check_num_envs, check_reset_options, check_seed
from .core.rng import entropy_seed
from .core.selfplay import LearnerGames

DEVICES = ("cpu", "cuda")
OBSERVATION_FORMS = ("flat", "dict")
AUTORESET_MODES = (AutoresetMode.SAME_STEP.value, AutoresetMode.NEXT_STEP.value)
RENDER_MODES = ("ansi", "human")
# The share of the machine's memory (or the GPU's) one env may ask for: a larger batch is refused
# before anything is allocated, rather than swapping or dying mid-allocation.
MEMORY_SHARE = 0.5


def bytes_per_game(spec, num_players: int) -> int:
    """What one slot of the learner games holds, roughly: its state, four observation rows (the
    learner's, the final one and two scratch rows), three mask rows and the per-slot bookkeeping."""
    return 4 * spec.state_size + 16 * spec.obs_size + 3 * spec.num_actions + 4 * num_players + 256


def available_memory(device: str) -> int:
    """Bytes of free memory on ``device`` (the host's physical memory for the CPU)."""
    host = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if device == "cuda":
        from numba import cuda

        free = cuda.current_context().get_memory_info()[0]
        return int(free) if np.isfinite(free) else host  # numba-cuda's simulator: host memory, "infinite"
    return host


def check_fits(num_envs: int, spec, num_players: int, device: str, where: str) -> None:
    """ValueError naming the largest ``num_envs`` that fits when ``num_envs`` games would take more
    than :data:`MEMORY_SHARE` of ``device``'s memory."""
    each = bytes_per_game(spec, num_players)
    most = int(available_memory(device) * MEMORY_SHARE) // each
    if num_envs > most:
        raise ValueError(
            f"{where}: num_envs={num_envs} games need about {num_envs * each / 2**30:.1f} GiB, more than "
            f"{MEMORY_SHARE:.0%} of this {device} memory; pass num_envs of at most {most}"
        )


def _choice(value, valid: Sequence, name: str, where: str):
    if value not in valid:
        raise ValueError(
            f"{where}: {name}={value!r} is not valid; valid values: {', '.join(map(repr, valid))}"
        )
    return value


class LearnerVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` learner-seat games as one gymnasium ``VectorEnv`` (see the module docstring)."""

    metadata = {"render_modes": list(RENDER_MODES), "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        spec,
        config: np.ndarray,
        num_envs: int,
        opponents: Sequence | None = None,
        weights: Sequence[float] | None = None,
        seed: int | None = None,
        device: str = "cpu",
        illegal_action: str = "raise",
        observation: str = "flat",
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        render_mode: str | None = None,
        render_slot: int = 0,
    ):
        where = f"{spec.env_id} vector env"
        self.num_envs = check_num_envs(num_envs, where)
        seed = entropy_seed() if seed is None else check_seed(seed, where, allow_none=False)
        _choice(device, DEVICES, "device", where)
        _choice(observation, OBSERVATION_FORMS, "observation", where)
        mode = autoreset_mode.value if isinstance(autoreset_mode, AutoresetMode) else autoreset_mode
        _choice(mode, AUTORESET_MODES, "autoreset_mode", where)
        if device == "cuda" and mode != AutoresetMode.SAME_STEP.value:
            raise ValueError(
                f"{where}: autoreset_mode={mode!r} is not available on device='cuda' (the GPU games "
                f"restart a finished game in the step that ends it); pass autoreset_mode='SameStep'"
            )
        _choice(render_mode, (None, *RENDER_MODES), "render_mode", where)
        if not (isinstance(render_slot, (int, np.integer)) and 0 <= render_slot < self.num_envs):
            raise ValueError(
                f"{where}: render_slot={render_slot!r} is not valid; pass a slot in 0..{num_envs - 1}"
            )
        num_players = int(np.asarray(config)[0])
        if device == "cuda":
            from .gpu import require_gpu

            require_gpu()  # before any allocation: says what to install or check
            check_fits(self.num_envs, spec, num_players, device, where)
            from .gpu.learner_games import GpuLearnerGames

            self.games = GpuLearnerGames(
                spec, config, self.num_envs, opponents, weights, seed, None, illegal_action
            )
        else:
            check_fits(self.num_envs, spec, num_players, device, where)
            self.games = LearnerGames(
                spec, config, self.num_envs, opponents, weights, seed, illegal_action=illegal_action
            )
        self.game_spec, self.device, self.observation = spec, device, observation
        self.render_mode, self.render_slot = render_mode, int(render_slot)
        self.autoreset_mode = AutoresetMode(mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        box = spaces.Box(0.0, 1.0, (spec.obs_size,), np.float32)
        self.single_observation_space = (
            box
            if observation == "flat"
            else spaces.Dict(
                {"observation": box, "action_mask": spaces.Box(0, 1, (spec.num_actions,), np.int8)}
            )
        )
        self.single_action_space = spaces.Discrete(spec.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._view = _TorchView(self.games) if device == "cuda" else None
        # where torch finds what this env hands out (the CPU under numba-cuda's simulator)
        self.torch_device = self._view.torch_device if device == "cuda" else "cpu"
        self._started = False
        self._ended = np.zeros(self.num_envs, np.bool_)  # NextStep: slots whose last step ended a game
        self._seeds_shown = np.zeros(self.num_envs, np.int64)

    # --- the VectorEnv protocol -----------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a game in every slot (or in the slots of ``options["reset_mask"]``); with ``seed``
        the games and learner seats are reproducible (see the module docstring)."""
        where = f"{self.game_spec.env_id} vector env reset()"
        if isinstance(seed, (list, tuple)):
            raise ValueError(
                f"{where}: seed {seed!r} is not valid: one seed seeds every slot (slot i plays seed + i); "
                f"pass None or a non-negative integer"
            )
        seed = check_seed(seed, where)
        mask = self._reset_mask(check_reset_options(options, where, valid=("reset_mask",)), where)
        if mask is not None and not self._started:
            raise ValueError(f"{where}: options['reset_mask'] restarts some games; call reset() first")
        super().reset(seed=seed)
        if seed is not None:
            self.games.seed(seed)
            self._started = False
        if not self._started:
            self.games.reset()
            self._started = True
            self._ended[:] = False
            if self.device == "cpu":
                self._seeds_shown = self.games.game_seeds.copy()
        else:
            slots = np.arange(self.num_envs) if mask is None else np.flatnonzero(mask)
            self._restart(slots)
        return self._observation(), self._info()

    def step(self, actions):
        """Apply the learner's actions; opponents answer; finished games restart (see the module
        docstring for when their first observation is handed out)."""
        if not self._started:
            raise RuntimeError(f"{self.game_spec.env_id} vector env: call reset() before step()")
        if self.device == "cuda":
            return self._view.step(self, actions)
        g = self.games
        actions = self._host_actions(actions)
        skip = self._ended.copy() if self.autoreset_mode == AutoresetMode.NEXT_STEP else None
        g.apply_checked(*g.checked_actions(actions, skip), skip)
        ended = g.terminated | g.truncated
        info = self._info()
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            obs = np.where(ended[:, None], g.final_observations, g.observations)
            info["action_mask"][ended] = False
            info["learner_seat"] = np.where(ended, g.final_seats, g.learner_seats)
            self._add_final(info, ended)
            self._ended = ended
            self._seeds_shown = np.where(ended, g.final_game_seeds, g.game_seeds)
            return (
                self._observation(obs, info["action_mask"]),
                g.rewards.copy(),
                g.terminated.copy(),
                g.truncated.copy(),
                info,
            )
        self._seeds_shown = g.game_seeds.copy()
        if ended.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(ended):
                final_obs[i] = self._single_final_observation(i)
            final_info = {}
            self._add_final(final_info, ended)
            info.update(
                final_obs=final_obs, _final_obs=ended.copy(), final_info=final_info, _final_info=ended.copy()
            )
        return self._observation(), g.rewards.copy(), g.terminated.copy(), g.truncated.copy(), info

    def render(self):
        """The public table of game ``render_slot`` as text ('ansi' returns it, 'human' prints it)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'.")
            return None
        text = self.game_spec.to_text(self.games.states[self.render_slot])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close_extras(self, **kwargs) -> None:
        """Nothing to release: the games are arrays."""

    # --- beyond the protocol --------------------------------------------------------------------
    def view(self):
        """``(observations, info)`` of the games now in the slots, read without stepping (a slot whose
        game just ended holds its next game)."""
        if not self._started:
            raise RuntimeError(f"{self.game_spec.env_id} vector env: call reset() before view()")
        return self._observation(), self._info()

    def action_masks(self):
        """The learner's legal actions in every slot now, ``bool[num_envs, num_actions]``."""
        return self._info()["action_mask"]

    def game_seeds(self) -> np.ndarray:
        """The seed of the game each slot's last observation belongs to: ``aec_env.reset(seed=...)``
        replays it. Kept out of ``info`` because a seed reveals the whole hidden deal."""
        if self.device == "cuda":
            return self._view.seeds_shown()
        return self._seeds_shown.copy()

    def set_opponents(self, opponents: Sequence, weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool (games in progress finish with their opponent); an opponent
        made for another game, player count or rule options is refused, changing nothing."""
        self.games.set_opponents(opponents, weights)

    # --- parts ------------------------------------------------------------------------------------
    def _reset_mask(self, options: dict, where: str):
        mask = options.get("reset_mask")
        if mask is None:
            return None
        if not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_ and mask.shape == (self.num_envs,)):
            raise ValueError(
                f"{where}: options['reset_mask'] must be a numpy bool array of shape ({self.num_envs},), "
                f"got {type(mask).__name__} {getattr(mask, 'dtype', '')} {getattr(mask, 'shape', '')}"
            )
        return mask

    def _restart(self, slots: np.ndarray) -> None:
        if self.device == "cuda":
            if slots.size < self.num_envs:
                raise ValueError(
                    f"{self.game_spec.env_id} vector env reset(): options['reset_mask'] is not available on "
                    f"device='cuda' (the GPU games restart every slot at once); reset every slot"
                )
            self.games.seed(entropy_seed())  # the GPU games restart only from a seed
            self.games.reset()
            return
        self.games.restart(slots)
        self._ended[slots] = False
        self._seeds_shown[slots] = self.games.game_seeds[slots]

    def _host_actions(self, actions):
        """``actions`` if they are a host batch; a torch tensor is refused naming where it lives."""
        if hasattr(actions, "__dlpack__") and not isinstance(actions, np.ndarray):
            device = getattr(actions, "device", "another device")
            raise IllegalActionError(
                f"{self.game_spec.env_id} vector env: actions are a {type(actions).__name__} on {device}; "
                f"this env runs on the CPU and takes a numpy array: pass actions.cpu().numpy() "
                f"(or make the env with device='cuda')"
            )
        return actions

    def _info(self) -> dict:
        g = self.games
        if self.device == "cuda":
            return self._view.info()
        every = np.ones(self.num_envs, np.bool_)
        return {
            "action_mask": g.masks.astype(np.bool_),
            "_action_mask": every,
            "learner_seat": g.learner_seats.copy(),
            "_learner_seat": every.copy(),
        }

    def _add_final(self, info: dict, ended: np.ndarray) -> None:
        """What the games that ended leave, gymnasium-style: arrays over all slots, masks ``_key``."""
        g = self.games
        info["returns"] = np.where(ended[:, None], g.final_returns, 0.0).astype(np.float32)
        info["_returns"] = ended.copy()
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            info["learner_seat"] = np.where(ended, g.final_seats, 0)
            info["_learner_seat"] = ended.copy()
        info["illegal_move"] = g.illegal & ended
        info["_illegal_move"] = ended.copy()

    def _single_final_observation(self, i: int):
        obs = self.games.final_observations[i].copy()
        if self.observation == "dict":
            return {"observation": obs, "action_mask": np.zeros(self.game_spec.num_actions, np.int8)}
        return obs

    def _observation(self, obs=None, masks=None):
        if self.device == "cuda":
            return self._view.observation(self)
        g = self.games
        obs = g.observations.copy() if obs is None else obs
        if self.observation == "flat":
            return obs
        masks = g.masks if masks is None else masks
        return {"observation": obs, "action_mask": masks.astype(np.int8)}


class _TorchView:
    """The cuda env's side: the GPU games' arrays as torch tensors sharing their memory."""

    def __init__(self, games):
        import torch

        from .gpu.learner_games import TORCH_DEVICE, tensor_view

        self.torch, self.games, self.torch_device = torch, games, TORCH_DEVICE
        self.tensors = {
            name: tensor_view(getattr(games, name))
            for name in (
                "observations",
                "masks",
                "rewards",
                "terminated",
                "truncated",
                "illegal",
                "final_observations",
                "final_returns",
                "final_seats",
                "learner_seats",
                "game_seeds",
                "final_game_seeds",
            )
        }
        self.masks = self.tensors["masks"].view(torch.bool)  # 0/1 bytes read as bools, no copy
        self.every = torch.ones(games.num_envs, dtype=torch.bool, device=TORCH_DEVICE)

    def info(self) -> dict:
        t = self.tensors
        return {
            "action_mask": self.masks,
            "_action_mask": self.every,
            "learner_seat": t["learner_seats"],
            "_learner_seat": self.every,
        }

    def step(self, env, actions):
        t = self.tensors
        if (
            not isinstance(actions, self.torch.Tensor)
            or actions.device.type != self.torch.device(self.torch_device).type
        ):
            where = getattr(actions, "device", type(actions).__name__)
            raise IllegalActionError(
                f"{env.game_spec.env_id} vector env: actions are on {where}; this env runs on "
                f"device='cuda' and takes a torch int64 tensor there: pass "
                f"torch.as_tensor(actions, device='{self.torch_device}')"
            )
        self.games.step(actions)
        ended = t["terminated"] | t["truncated"]
        info = self.info()
        info.update(
            final_obs=t["final_observations"],
            _final_obs=ended,
            final_info={
                "returns": t["final_returns"],
                "_returns": ended,
                "learner_seat": t["final_seats"],
                "_learner_seat": ended,
                "illegal_move": t["illegal"] & ended,
                "_illegal_move": ended,
            },
            _final_info=ended,
        )
        obs = t["observations"]
        if env.observation == "dict":
            obs = {"observation": obs, "action_mask": t["masks"]}
        return obs, t["rewards"], t["terminated"], t["truncated"], info

    def observation(self, env):
        obs = self.tensors["observations"]
        return (
            obs if env.observation == "flat" else {"observation": obs, "action_mask": self.tensors["masks"]}
        )

    def seeds_shown(self) -> np.ndarray:
        return self.games.game_seeds.copy_to_host()
