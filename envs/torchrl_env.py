"""TorchRL environments over the batched games: ``batch_size=[num_envs]``, action masks where TorchRL's
masked distributions read them. Needs the ``torchrl`` extra (torchrl and tensordict).

Two forms, from :func:`monster_zoo.make_torchrl_env`:

- ``form="learner"`` (:class:`LearnerTorchRLEnv`, CPU or ``device="cuda"``): one seat of every game
  learns, the others are played inside the env by opponents from a pool, as in
  :func:`monster_zoo.make_vector_env`, over which it runs. Keys: ``"observation"``
  (``float32[num_envs, obs_size]``), ``"action_mask"`` (``bool[num_envs, num_actions]``), ``"action"``
  (a ``Categorical`` spec whose mask follows the legal actions, so ``rand_action`` and
  ``MaskedCategorical`` pick legal ones), ``"reward"``, ``"done"``, ``"terminated"``,
  ``"truncated"`` (``[num_envs, 1]``). On cuda every tensor stays on the GPU; what a step reads
  back is the vector env's (below) and TorchRL's own check of whether any game ended.
- ``form="selfplay"`` (:class:`SelfPlayTorchRLEnv`, CPU): every seat learns. TorchRL's multi-agent
  conventions, as its ``PettingZooWrapper`` gives turn-based games: one group ``"agents"`` of
  ``num_players`` seats with ``("agents", "observation")`` (every seat's own view), ``("agents",
  "action_mask")`` (the legal actions of the seat on move; all True for the others, whose action
  is ignored), ``("agents", "mask")`` (True for the seat on move: the acting seat marked),
  ``("agents", "action")`` and ``("agents", "reward")`` (every seat's final return in the step that
  ends a game), and ``"done"``, ``"terminated"``, ``"truncated"`` at the root (a game ends for every
  seat at once).

The step that ends a game returns the game's last observation (no legal action); TorchRL's
partial reset (``"_reset"``, as its collectors and ``step_and_maybe_reset`` send it) then hands
out the slot's next game. A reset without ``"_reset"`` starts new games in every slot.
``set_seed(s)`` (or ``seed=`` at construction) makes the games those of
``make_vector_env(..., seed=s)``: game ``k`` of slot ``i`` plays seed ``s + i + k * num_envs``.
Actions are checked as everywhere (:mod:`monster_zoo.envs.core.illegal`): an illegal one raises
IllegalActionError naming the slot, seat, action and reason, changing nothing.
"""

import multiprocessing

import numpy as np

from .core.rng import entropy_seed
from .core.seat_games import SeatGames

# Importing torchrl sets the process-wide multiprocessing start method to its preferred one, which
# would silently change every process pool the rest of the program opens; it is put back.
_start_method = multiprocessing.get_start_method(allow_none=True)
try:
    import torch
    from tensordict import TensorDict
    from torchrl.data import Bounded, Categorical, Composite, Unbounded
    from torchrl.envs import EnvBase
finally:
    if multiprocessing.get_start_method(allow_none=True) != _start_method:
        multiprocessing.set_start_method(_start_method, force=True)

FORMS = ("learner", "selfplay")


def _done_spec(n: int, device) -> Composite:
    flag = {
        key: Categorical(2, shape=(n, 1), dtype=torch.bool, device=device)
        for key in ("done", "terminated", "truncated")
    }
    return Composite(flag, shape=(n,), device=device)


def _resets(tensordict, n: int, device):
    """The slots a reset asks for: ``tensordict["_reset"]`` (``[n, 1]``), or every slot."""
    asked = None if tensordict is None else tensordict.get("_reset", None)
    if asked is None:
        return torch.ones(n, dtype=torch.bool, device=device), True
    return asked.reshape(n).to(device), False


class LearnerTorchRLEnv(EnvBase):
    """The learner form over a :class:`~monster_zoo.envs.gym_vector_env.LearnerVectorEnv` (see the
    module docstring); ``vector_env`` must use the ``"SameStep"`` autoreset."""

    def __init__(self, vector_env):
        self.vector_env = vector_env
        n, spec = vector_env.num_envs, vector_env.game_spec
        device = torch.device(vector_env.torch_device)
        super().__init__(device=device, batch_size=torch.Size([n]))
        self.observation_spec = Composite(
            observation=Bounded(0.0, 1.0, shape=(n, spec.obs_size), dtype=torch.float32, device=device),
            action_mask=Categorical(2, shape=(n, spec.num_actions), dtype=torch.bool, device=device),
            shape=(n,),
            device=device,
        )
        self.action_spec = Categorical(spec.num_actions, shape=(n,), dtype=torch.int64, device=device)
        self.reward_spec = Unbounded(shape=(n, 1), dtype=torch.float32, device=device)
        self.done_spec = _done_spec(n, device)
        self._ended = torch.zeros(n, dtype=torch.bool, device=device)  # slots showing an ended game
        self._seed = None  # the seed the next reset starts from (set_seed)

    def _tensor(self, array, dtype=None):
        """A tensor of its own on this env's device (the vector env's arrays are overwritten later)."""
        return torch.as_tensor(array, device=self.device, dtype=dtype).clone()

    def _view(self, obs, mask, ended) -> TensorDict:
        self.action_spec.update_mask(self._tensor(self.vector_env.action_masks(), torch.bool))
        n = self.vector_env.num_envs
        flags = torch.zeros((n, 1), dtype=torch.bool, device=self.device)
        return TensorDict(
            {
                "observation": obs,
                "action_mask": mask,
                "done": ended.reshape(n, 1).clone(),
                "terminated": flags.clone(),
                "truncated": flags.clone(),
            },
            batch_size=self.batch_size,
            device=self.device,
        )

    def _reset(self, tensordict=None, **kwargs):
        env, n = self.vector_env, self.vector_env.num_envs
        asked, everything = _resets(tensordict, n, self.device)
        if everything or self._seed is not None:
            env.reset(seed=self._seed)
            self._seed = None
        else:
            fresh = (asked & ~self._ended).cpu().numpy()  # slots whose game is still running
            if fresh.any():
                env.reset(options={"reset_mask": fresh})
        self._ended &= ~asked
        obs, info = env.view()
        return self._view(
            self._tensor(obs, torch.float32), self._tensor(info["action_mask"], torch.bool), self._ended
        )

    def _step(self, tensordict):
        env = self.vector_env
        actions = tensordict.get("action")
        obs, reward, terminated, truncated, info = env.step(
            actions if env.device == "cuda" else actions.cpu().numpy()
        )
        ended = self._tensor(terminated | truncated, torch.bool)
        obs, mask = self._tensor(obs, torch.float32), self._tensor(info["action_mask"], torch.bool)
        if (
            "final_obs" in info
        ):  # on cuda always (one tensor: nothing read back), on the CPU where a game ended
            final = info["final_obs"]
            if env.device == "cpu":
                final = np.stack([o if o is not None else np.zeros(obs.shape[1], np.float32) for o in final])
            obs = torch.where(ended[:, None], self._tensor(final, torch.float32), obs)
        mask = mask & ~ended[:, None]
        self._ended = ended
        n = env.num_envs
        out = self._view(obs, mask, ended)
        out.set("terminated", self._tensor(terminated, torch.bool).reshape(n, 1))
        out.set("truncated", self._tensor(truncated, torch.bool).reshape(n, 1))
        out.set("reward", self._tensor(reward, torch.float32).reshape(n, 1))
        return out

    def _set_seed(self, seed: int | None) -> None:
        self._seed = entropy_seed() if seed is None else seed


class SelfPlayTorchRLEnv(EnvBase):
    """The self-play form over :class:`~monster_zoo.envs.core.seat_games.SeatGames` (see the module
    docstring)."""

    def __init__(self, spec, config: np.ndarray, num_envs: int, seed: int):
        self.games = SeatGames(spec, config, num_envs, seed)
        n, p, device = self.games.num_envs, self.games.num_players, torch.device("cpu")
        super().__init__(device=device, batch_size=torch.Size([n]))
        self.game_spec, self.num_players = spec, p
        self.observation_spec = Composite(
            agents=Composite(
                observation=Bounded(0.0, 1.0, shape=(n, p, spec.obs_size), dtype=torch.float32),
                action_mask=Categorical(2, shape=(n, p, spec.num_actions), dtype=torch.bool),
                mask=Categorical(2, shape=(n, p), dtype=torch.bool),
                shape=(n, p),
            ),
            shape=(n,),
        )
        self.action_spec = Composite(
            agents=Composite(
                action=Categorical(spec.num_actions, shape=(n, p), dtype=torch.int64), shape=(n, p)
            ),
            shape=(n,),
        )
        self.reward_spec = Composite(
            agents=Composite(reward=Unbounded(shape=(n, p, 1), dtype=torch.float32), shape=(n, p)), shape=(n,)
        )
        self.done_spec = _done_spec(n, device)
        self._started = False

    def _view(self) -> TensorDict:
        g, n, p = self.games, self.games.num_envs, self.num_players
        running = ~(g.terminated | g.truncated)
        acting = torch.zeros((n, p), dtype=torch.bool)
        rows = np.flatnonzero(running)
        acting[rows, g.current_players[rows]] = True
        action_mask = torch.ones((n, p, self.game_spec.num_actions), dtype=torch.bool)
        legal = torch.as_tensor(g.masks.astype(bool))
        action_mask[acting] = legal[torch.as_tensor(rows)] if rows.size else action_mask[acting]
        self.action_spec["agents", "action"].update_mask(action_mask.clone())
        flags = {
            key: torch.as_tensor(getattr(g, key)).reshape(n, 1).clone() for key in ("terminated", "truncated")
        }
        return TensorDict(
            {
                "agents": TensorDict(
                    {
                        "observation": torch.as_tensor(g.observations).clone(),
                        "action_mask": action_mask,
                        "mask": acting,
                        "reward": torch.as_tensor(g.rewards).reshape(n, p, 1).clone(),
                    },
                    batch_size=(n, p),
                    device=self.device,
                ),
                "done": flags["terminated"] | flags["truncated"],
                **flags,
            },
            batch_size=self.batch_size,
            device=self.device,
        )

    def _reset(self, tensordict=None, **kwargs):
        asked, everything = _resets(tensordict, self.games.num_envs, self.device)
        if everything or not self._started:
            self.games.reset()
            self._started = True
        elif asked.any():
            self.games.restart(np.flatnonzero(asked.numpy()))
        out = self._view()
        out["agents"].exclude("reward", inplace=True)
        return out

    def _step(self, tensordict):
        g = self.games
        actions = tensordict.get(("agents", "action"))
        g.step(actions.cpu().numpy()[np.arange(g.num_envs), g.current_players])
        return self._view()

    def _set_seed(self, seed: int | None) -> None:
        self.games.seed(entropy_seed() if seed is None else seed)
        self._started = False
