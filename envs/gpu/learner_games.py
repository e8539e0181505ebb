"""The learner-seat games on the GPU: :class:`~monster_zoo.envs.core.selfplay.LearnerGames` with every
array on the device and every slot stepped by its own CUDA thread.

The same games as on the CPU (the drivers of :mod:`~monster_zoo.envs.gpu.learner_drivers` follow
``LearnerGames`` slot by slot): for the same seed, opponents, weights and learner actions both give
the same states, learner seats, masks, observations, rewards and ends, bit for bit where the
opponents are random, and where they are frozen networks as far as both forward passes give the same
logits (``tests/test_gpu_learner_games.py`` checks both under numba-cuda's simulator).

Opponents, per game, drawn by weight from the pool as on the CPU:

* random play: an opponent whose ``policy_kernel`` is ``opponents.random_policy`` (the ``random``
  agent, :class:`~monster_zoo.envs.core.opponents.RandomOpponent`), played inside the thread;
* greedy: an opponent whose ``policy_kernel`` is the game's greedy kernel (the ``greedy`` agent),
  played inside the thread too (its one-ply search included: its work arrays are ``scratch``
  arrays, per-thread local memory on the GPU);
* a torch policy: an opponent with ``policy_logits``, a callable from a float32 tensor of
  observations ``[k, obs_size]`` on the policy's device to logits ``[k, num_actions]`` (a frozen
  snapshot of the learner). Each round, each such opponent's network runs on every slot's
  observation and its logits are kept where a slot waits for it (a mask on the device: no count
  read back, no regrouping), then a kernel draws and applies the actions. Whether any slot still
  waits travels to the host in the background while the next rounds are queued (a round with no
  slot waiting changes nothing), so the host waits for the GPU only when it is
  :data:`ROUNDS_AHEAD` rounds ahead.

Any other opponent (another numba policy kernel, an agent acting from Python) is refused by
:meth:`GpuLearnerGames.set_opponents` with the reason.

Learner actions are checked on the device: :meth:`GpuLearnerGames.step` reads the count of illegal ones
back and refuses them before anything moves, or, with ``check=False`` (the trainer's rollout, which
samples legal actions only), leaves a slot whose action is illegal as it was and counts it on the
device, and :meth:`GpuLearnerGames.check_actions` reads the count once (after a rollout) and refuses
then: a step crosses to the host only to launch. With ``illegal_action="penalize"`` (as the CPU's
learner games) the play kernel makes the learner lose such a slot's game instead (-1, the others 0,
``illegal`` set) and starts the slot's next game, nothing read back.

Arrays handed out (``observations``, ``masks``, ``rewards``, ``terminated``, ``truncated`` and the
``final_*`` ones) are numba-cuda device arrays, overwritten by the next call; :func:`tensor_view`
makes torch tensors of them without a copy, and :meth:`GpuLearnerGames.step` takes a torch tensor of
actions on the device. Under numba-cuda's simulator (``NUMBA_ENABLE_CUDASIM=1``) the arrays live in
host memory and torch runs on the CPU (:data:`TORCH_DEVICE`), still without copies.
"""

from collections.abc import Sequence

import numpy as np
from numba import config as numba_config
from numba import cuda

from ..core.illegal import IllegalActionError, batch_refusals, check_illegal_action_option
from ..core.inputs import check_num_envs, check_seed
from ..core.opponents import RandomOpponent, random_policy
from ..core.rng import consecutive_rngs
from ..core.selfplay import OPPONENT_SALT, SEAT_SALT, pool_cumulative
from . import require_gpu
from .drivers import driver_sources as engine_driver_sources
from .engine import THREADS_PER_BLOCK, _as_device_array, compiled_drivers
from .learner_drivers import (
    BEGIN,
    KIND_GREEDY,
    KIND_RANDOM,
    KIND_TORCH,
    LEARNER,
    OPPONENTS,
    READY,
    WAITING,
    driver_sources,
    greedy_kernel,
)

SIMULATED = bool(getattr(numba_config, "ENABLE_CUDASIM", False))
ROUNDS_AHEAD = 4  # torch-opponent rounds queued before the host waits to learn whether one is still needed
TORCH_DEVICE = "cpu" if SIMULATED else "cuda"  # where torch reads the games' arrays without a copy


def tensor_view(array):
    """A torch tensor sharing ``array``'s memory (a numba-cuda device array; under the simulator its
    host memory, on :data:`TORCH_DEVICE`)."""
    import torch

    if SIMULATED:
        return torch.from_numpy(np.asarray(array))
    return torch.as_tensor(array, device="cuda")


def _torch_on_the_default_stream() -> bool:
    """Whether torch's current CUDA stream is the default (legacy) stream, which numba-cuda's launches
    use; torch's own streams are non-blocking, not ordered with it."""
    import torch

    return torch.cuda.current_stream().cuda_stream == 0


def numba_view(tensor):
    """What a kernel takes for a torch ``tensor`` on :data:`TORCH_DEVICE`, sharing its memory."""
    return tensor.numpy() if SIMULATED else cuda.as_cuda_array(tensor)


def opponent_kind(opponent, spec) -> int:
    """:data:`KIND_RANDOM`, :data:`KIND_GREEDY` or :data:`KIND_TORCH` of an opponent in ``spec``'s
    games; ValueError naming why any other opponent cannot play on the GPU."""
    if getattr(opponent, "policy_logits", None) is not None:
        return KIND_TORCH
    kernel = getattr(opponent, "policy_kernel", None)
    if kernel is random_policy:
        return KIND_RANDOM
    if kernel is not None and kernel is greedy_kernel(spec):
        return KIND_GREEDY
    name = getattr(opponent, "name", type(opponent).__name__)
    raise ValueError(
        f"opponent {name!r} cannot play on the GPU: the GPU learner-seat games take random play "
        f"(policy_kernel opponents.random_policy), the game's greedy kernel and torch policies "
        f"(policy_logits); another numba policy kernel has no GPU build here"
    )


class GpuLearnerGames:
    """``num_envs`` games played from one learner seat each on the GPU (see the module docstring); the
    arguments are :class:`~monster_zoo.envs.core.selfplay.LearnerGames`', ``illegal_action`` included:
    ``"raise"`` refuses an illegal learner action, ``"penalize"`` makes the learner lose that game
    (reward -1, the others 0, :attr:`illegal` set on the device, the slot starts its next game)."""

    def __init__(
        self,
        spec,
        config: np.ndarray,
        num_envs: int,
        opponents: Sequence = None,
        weights: Sequence[float] | None = None,
        seed: int = 0,
        seats: Sequence[int] | None = None,
        illegal_action: str = "raise",
    ):
        num_envs = check_num_envs(num_envs, spec.env_id)
        check_seed(seed, spec.env_id, allow_none=False)
        self.illegal_action = check_illegal_action_option(illegal_action, spec.env_id)
        self._penalize = int(self.illegal_action == "penalize")
        require_gpu()
        self.spec, self.num_envs = spec, num_envs
        self.config_host = np.ascontiguousarray(config, dtype=np.int64)
        self.num_players = int(self.config_host[0])
        fixed = np.full(num_envs, -1, np.int64)
        if seats is not None:
            fixed = np.asarray(seats, np.int64)
            if fixed.shape != (num_envs,) or ((fixed < 0) | (fixed >= self.num_players)).any():
                raise ValueError(
                    f"seats must be {num_envs} seats in 0..{self.num_players - 1}, got {seats!r}"
                )
        n, s = num_envs, spec
        self._kernels = compiled_drivers(spec, driver_sources)
        self._count_illegal = compiled_drivers(spec, engine_driver_sources)["count_illegal"]
        threads = min(THREADS_PER_BLOCK, n)  # a small batch starts no idle threads (the simulator runs each)
        self._grid = ((n + threads - 1) // threads, threads)
        self._config = cuda.to_device(self.config_host)
        self._fixed_seats = cuda.to_device(fixed)
        self._states = cuda.to_device(np.zeros((n, s.state_size), np.int32))
        self._masks = cuda.to_device(
            np.zeros((n, s.num_actions), np.int8)
        )  # legality is checked against these
        self.masks = cuda.to_device(
            np.zeros((n, s.num_actions), np.int8)
        )  # and this copy is what callers see
        self.observations = cuda.to_device(np.zeros((n, s.obs_size), np.float32))
        self.final_observations = cuda.to_device(np.zeros((n, s.obs_size), np.float32))
        self.rewards = cuda.to_device(np.zeros(n, np.float32))
        self.terminated = cuda.to_device(np.zeros(n, np.bool_))
        self.truncated = cuda.to_device(np.zeros(n, np.bool_))
        self.illegal = cuda.to_device(
            np.zeros(n, np.bool_)
        )  # the game just lost by an illegal learner action
        self.final_returns = cuda.to_device(np.zeros((n, self.num_players), np.float32))
        self.final_seats = cuda.to_device(np.zeros(n, np.int64))
        self.final_game_seeds = cuda.to_device(np.zeros(n, np.int64))
        self.learner_seats = cuda.to_device(np.zeros(n, np.int64))
        self.game_seeds = cuda.to_device(np.zeros(n, np.int64))
        self._members = cuda.to_device(np.zeros(n, np.int64))  # each slot's opponent, by table entry
        self._phase = cuda.to_device(np.zeros(n, np.int8))
        self._reported = cuda.to_device(np.zeros(n, np.int8))
        self._opp_masks = cuda.to_device(np.zeros((n, s.num_actions), np.int8))
        self._opp_obs = cuda.to_device(np.zeros((n, s.obs_size), np.float32))
        self._tally = cuda.to_device(np.zeros(1, np.int64))
        self._refused = cuda.to_device(np.zeros(1, np.int64))  # illegal learner actions left unapplied
        self._no_actions = cuda.to_device(np.zeros(1, np.int64))  # what a launch does not read
        self._no_logits = cuda.to_device(np.zeros((1, 1), np.float32))
        self._table: list = []  # every opponent a game may still be playing with; slots name entries
        self._torch = None  # torch views and buffers, made when a torch opponent first joins
        # torch-opponent rounds queued, and the times the host waited for the GPU to learn whether
        # another was needed: what snapshot opponents cost a rollout besides their forward passes
        self.opponent_rounds = self.opponent_round_waits = 0
        self.set_opponents(opponents, weights)
        self.seed(seed)

    # --- configuration -------------------------------------------------------------
    def set_opponents(self, opponents: Sequence | None, weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool; games in progress keep the opponent they started with. An
        opponent that cannot play on the GPU or was made for another game is refused (ValueError,
        naming why) and the pool is left as it was."""
        opponents = [RandomOpponent()] if opponents is None else list(opponents)
        if not opponents:
            raise ValueError("the opponent pool is empty: pass at least one opponent")
        kinds = [opponent_kind(o, self.spec) for o in opponents]
        for o in opponents:
            check = getattr(o, "check_game", None)
            if check is not None:
                check(self.spec.env_id, self.config_host)
        cumulative = pool_cumulative(weights, len(opponents))
        if any(k == KIND_TORCH for k in kinds):
            self._make_torch_buffers()
        in_play = set(np.unique(self._members.copy_to_host()).tolist()) if self._table else set()
        self._table = [entry if k in in_play else None for k, entry in enumerate(self._table)]
        free = [k for k, entry in enumerate(self._table) if entry is None]  # reused, so the table stays small
        ids = []
        for opponent, kind in zip(opponents, kinds):
            ids.append(free.pop(0) if free else len(self._table))
            if ids[-1] == len(self._table):
                self._table.append(None)
            self._table[ids[-1]] = (opponent, kind)
        self.opponents = opponents
        self._pool_ids = cuda.to_device(np.array(ids, np.int64))
        self._cumulative = cuda.to_device(cumulative)
        self._kinds = cuda.to_device(
            np.array([KIND_RANDOM if e is None else e[1] for e in self._table], np.int8)
        )

    def seed(self, seed: int) -> None:
        """Reseed every slot (takes effect at the next :meth:`reset`), as ``LearnerGames.seed``."""
        self.base_seed = check_seed(seed, self.spec.env_id, allow_none=False)
        n = self.num_envs
        self._started = cuda.to_device(np.zeros(n, np.int64))
        self._game_rngs = cuda.to_device(np.zeros((n, 1), np.uint64))
        self._seat_rngs = cuda.to_device(consecutive_rngs(self.base_seed, n, salt=SEAT_SALT))
        self._policy_rngs = cuda.to_device(consecutive_rngs(self.base_seed, n, salt=OPPONENT_SALT))

    # --- stepping ---------------------------------------------------------------------
    def _launch(self, name: str, *args) -> None:
        blocks, threads = self._grid
        self._kernels[name][blocks, threads](*args)

    def _slot_arrays(self) -> tuple:
        return (
            self._states,
            self._config,
            self._game_rngs,
            self._seat_rngs,
            self._policy_rngs,
            self.learner_seats,
            self._fixed_seats,
            self._members,
            self._pool_ids,
            self._cumulative,
            self._kinds,
            self._started,
            self.game_seeds,
            self.base_seed,
            self._phase,
            self._reported,
            self.rewards,
            self.terminated,
            self.truncated,
            self.final_observations,
            self.final_returns,
            self.final_seats,
            self.final_game_seeds,
            self._opp_masks,
            self._opp_obs,
        )

    def reset(self):
        """Start a game in every slot and play the opponents up to the learner's first turn;
        ``(observations, masks)``."""
        self._launch(
            "play",
            BEGIN,
            self._no_actions,
            self._no_logits,
            self._masks,
            self._refused,
            self._penalize,
            self.illegal,
            *self._slot_arrays(),
        )
        self._play_torch_opponents()
        self._refresh_view()
        return self.observations, self.masks

    def step(self, actions, check: bool = True):
        """Apply the learner's action in every slot; opponents answer; finished games restart;
        ``(observations, masks, rewards, terminated, truncated)``. An action the learner may not take
        raises IllegalActionError naming the slot, the learner's seat, the action and the reason,
        changing nothing; with ``check=False`` nothing is read back: such a slot is left as it was
        and :meth:`check_actions` refuses it later. Under ``illegal_action="penalize"`` the learner
        loses that slot's game instead, nothing read back either way."""
        column = self._device_actions(actions)
        if check and not self._penalize:
            self._tally.copy_to_device(np.zeros(1, np.int64))
            self._count_illegal[self._grid](column, self._masks, self._tally)
            if int(self._tally.copy_to_host()[0]):
                self._refuse(column.copy_to_host())
        self._launch(
            "play",
            LEARNER,
            column,
            self._no_logits,
            self._masks,
            self._refused,
            self._penalize,
            self.illegal,
            *self._slot_arrays(),
        )
        self._play_torch_opponents()
        self._refresh_view()
        return self.observations, self.masks, self.rewards, self.terminated, self.truncated

    @property
    def refused(self):
        """The count of learner actions that steps with ``check=False`` left unapplied since the last
        :meth:`check_actions`, on the device (``int64[1]``): a caller that reads other figures back
        reads it with them, and calls :meth:`check_actions` only when it is not 0."""
        return self._refused

    def check_actions(self) -> None:
        """Refuse the learner actions that steps with ``check=False`` left unapplied since the last
        call (IllegalActionError with their count; their slots were left as they were); one read
        back."""
        refused = int(self._refused.copy_to_host()[0])
        if refused:
            self._refused.copy_to_device(np.zeros(1, np.int64))
            raise IllegalActionError(
                f"{refused} learner action(s) the learner may not take were refused "
                f"since the last check (their slots were left as they were)"
            )

    @property
    def states(self) -> np.ndarray:
        """A host copy of every slot's state (hidden information included)."""
        return self._states.copy_to_host()

    def _device_actions(self, actions):
        if not SIMULATED and getattr(actions, "is_cuda", False) and _torch_on_the_default_stream():
            # torch queued the actions on the CUDA default stream, where the launches below go too, so
            # they are ordered after it: importing them needs no wait (numba-cuda's default sync would
            # make every step wait for the GPU)
            column = cuda.as_cuda_array(actions, sync=False)
        else:
            column = _as_device_array(actions)
        if column is None and SIMULATED and hasattr(actions, "numpy"):
            column = cuda.to_device(actions.numpy())  # a CPU tensor standing for a device one
        if column is not None and column.shape == (self.num_envs,) and column.dtype == np.int64:
            return column
        host = column.copy_to_host() if column is not None else actions
        clean, refused = self._checked(host)
        if refused and not self._penalize:
            raise IllegalActionError(next(iter(refused.values())))
        clean[list(refused)] = -1  # an action no mask allows: the play kernel penalizes it
        return cuda.to_device(clean)

    def _refusals(self, actions) -> dict:
        return self._checked(actions)[1]

    def _checked(self, actions):
        """``(actions as int64, refusals by slot)`` (:func:`~monster_zoo.envs.core.illegal.batch_refusals`)."""
        learner = self.learner_seats.copy_to_host()

        def who(i):
            seat = f"player_{int(learner[i])} (the learner)"
            return f"slot {i}: {seat}" if self.num_envs > 1 else seat

        return batch_refusals(self.spec, self.states, self._masks.copy_to_host(), actions, who)

    def _refuse(self, actions) -> None:
        refused = self._refusals(actions)
        raise IllegalActionError(next(iter(refused.values())))

    def _make_torch_buffers(self) -> None:
        if self._torch is None:
            import torch

            logits = torch.zeros(
                (self.num_envs, self.spec.num_actions), dtype=torch.float32, device=TORCH_DEVICE
            )
            self._torch = {
                "logits": logits,
                "logits_numba": numba_view(logits),
                "obs": tensor_view(self._opp_obs),
                "phase": tensor_view(self._phase),
                "members": tensor_view(self._members),
            }

    def _play_torch_opponents(self) -> None:
        """Rounds of torch opponents' moves until no slot waits for one: each opponent's network on
        every slot's observation, kept where the slot waits for it, then one launch that draws,
        applies and plays on. The rounds are queued without waiting for the GPU: whether a slot
        still waits after a round is copied to the host behind it, and read when it has arrived (or
        when :data:`ROUNDS_AHEAD` rounds are queued); the rounds queued after the last one needed
        change nothing."""
        if self._torch is None:
            return
        import torch

        t = self._torch
        players = [
            (entry, e[0]) for entry, e in enumerate(self._table) if e is not None and e[1] == KIND_TORCH
        ]
        answers = []  # (event, pinned flag) of the rounds queued whose answer the host has not read
        while True:
            self.opponent_rounds += 1
            waiting = t["phase"] == WAITING
            with torch.no_grad():
                for entry, opponent in players:
                    theirs = (waiting & (t["members"] == entry)).unsqueeze(1)
                    torch.where(
                        theirs, opponent.policy_logits(t["obs"]).float(), t["logits"], out=t["logits"]
                    )
            self._launch(
                "play",
                OPPONENTS,
                self._no_actions,
                t["logits_numba"],
                self._masks,
                self._refused,
                self._penalize,
                self.illegal,
                *self._slot_arrays(),
            )
            still = (t["phase"] == WAITING).any()
            if SIMULATED:  # torch on the CPU: the answer is there at once
                if not bool(still):
                    return
                continue
            flag = torch.empty(1, dtype=torch.bool, pin_memory=True)
            flag.copy_(still.view(1), non_blocking=True)
            event = torch.cuda.Event()
            event.record()
            answers.append((event, flag))
            while answers and (len(answers) >= ROUNDS_AHEAD or answers[0][0].query()):
                event, flag = answers.pop(0)
                if not event.query():  # the host waits for the GPU: counted, as what rounds cost
                    self.opponent_round_waits += 1
                    event.synchronize()
                if not bool(flag[0]):
                    return

    def _refresh_view(self) -> None:
        self._launch("learner_view", self._states, self.learner_seats, self._masks, self.observations)
        self.masks.copy_to_device(self._masks)


__all__ = [
    "GpuLearnerGames",
    "tensor_view",
    "numba_view",
    "opponent_kind",
    "READY",
    "WAITING",
    "TORCH_DEVICE",
]
