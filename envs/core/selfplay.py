"""Games seen from one learning seat: the engine under the training adapters.

:class:`LearnerGames` runs ``num_envs`` games of one kind on the game's own
kernels. In every game one seat, drawn at random when the game starts, belongs
to the learner; every other seat is played by an *opponent* drawn (by weight)
from a pool. After each learner action the opponents move until the learner
must act again or the game is over, so the learner only ever sees its own
decisions. Finished games report the learner's final reward (also when an
opponent's move ended the game), keep the learner's last observation and are
reset in place.

Opponents are objects with ``act_batch(observations, masks, states) -> actions``
(the :class:`monster_zoo.agents.base.Agent` protocol). One that also carries a numba
``policy_kernel`` (``contract.POLICY_SIG``) or a frozen network as
``policy_mlp`` is stepped entirely inside numba, with a generator per slot
(:mod:`monster_zoo.envs.core.opponents`), which is what makes training against random,
heuristic and self-play snapshot opponents cheap. ``envs`` never imports ``agents``: the pool is
whatever the caller passes. An opponent that knows the game it was made for answers
``check_game(game_id, config)`` (agents built by ``monster_zoo.agents.make_agent`` do): it is
asked once, when it joins the pool, and raises ValueError naming both games if this is not
its game, player count or rule options, so a 4-player model never plays 2-player games.

Seeding, so a run can be replayed in the AEC env: game ``k`` of slot ``i`` is
seeded ``seed + i + k * num_envs`` (the first games match
``env.reset(seed=seed + i)``); the learner's seat and the opponent are drawn from
a generator of the slot's own, and kernel opponents draw from another, so
nothing depends on the thread count.
"""

from collections.abc import Sequence

import numpy as np
from numba import types

from .batch import FLOATS2, INTS, MASKS, RNGS, STATES, read_only
from .contract import APPLY_ACTION_T, H_CURRENT, H_TERMINAL, LEGAL_MASK_T, OBSERVE_T
from .header import running, running_rows, truncated_rows
from .illegal import IllegalActionError, batch_refusals, check_illegal_action_option
from .inputs import check_num_envs, check_seed
from .kernels import lazy_njit
from .learner_slots import draw_seat_and_opponent, game_seed, seed_rng
from .opponents import RandomOpponent, advance_with_mlps, advance_with_policy, opponent_on_move
from .rng import make_rngs

SEAT_SALT = 0x5EA7_5EA7_5EA7
OPPONENT_SALT = 0x0220_0220_0220


# The per-round helpers below touch one action per slot: serial, since a parallel
# launch costs more than that (much more when another process holds a core). Like the
# opponents' drivers they release the GIL, so that a trainer's torch pass can run on
# another core while they step one half of its games.
@lazy_njit(types.int64(STATES, INTS, INTS, INTS), nogil=True)
def opponents_on_move(states, slots, learner, out):
    """Write into ``out`` the slots of ``slots`` where an opponent must act; return how many."""
    n = 0
    for j in range(slots.shape[0]):
        i = slots[j]
        if opponent_on_move(states[i], learner[i]):
            out[n] = i
            n += 1
    return n


@lazy_njit(
    types.void(STATES, INTS, MASKS, FLOATS2, LEGAL_MASK_T, OBSERVE_T), first_class_args=True, nogil=True
)
def view_of_mover(states, slots, masks, obs, legal_mask, observe_into):
    """Mask and observation of the seat on move in each slot of ``slots`` (rows by position)."""
    for j in range(slots.shape[0]):
        s = states[slots[j]]
        legal_mask(s, masks[j])
        observe_into(s, s[H_CURRENT], obs[j])


@lazy_njit(types.void(STATES, INTS, INTS, RNGS, APPLY_ACTION_T), first_class_args=True, nogil=True)
def apply_in_slots(states, slots, actions, game_rngs, apply_action):
    """Apply ``actions[j]`` in slot ``slots[j]``."""
    for j in range(slots.shape[0]):
        i = slots[j]
        apply_action(states[i], actions[j], game_rngs[i])


@lazy_njit(
    types.void(STATES, INTS, MASKS, FLOATS2, LEGAL_MASK_T, OBSERVE_T), first_class_args=True, nogil=True
)
def learner_view(states, learner, masks, obs, legal_mask, observe_into):
    """The learner's observation in every slot, and its mask where it is on move (else zeros)."""
    for i in range(states.shape[0]):
        s = states[i]
        masks[i, :] = 0
        if running(s) and s[H_CURRENT] == learner[i]:
            legal_mask(s, masks[i])
        observe_into(s, learner[i], obs[i])


def pool_cumulative(weights: Sequence[float] | None, count: int) -> np.ndarray:
    """The normalised cumulative sampling weights of a pool of ``count`` opponents (``None``: uniform)
    that :func:`~monster_zoo.envs.core.learner_slots.draw_seat_and_opponent` draws from; ValueError
    unless they are ``count`` non-negative numbers with a positive sum."""
    w = np.ones(count) if weights is None else np.asarray(weights, np.float64)
    if w.shape != (count,) or (w < 0).any() or w.sum() <= 0:
        raise ValueError(f"weights must be {count} non-negative numbers with a positive sum, got {weights!r}")
    return np.cumsum(w / w.sum())


class LearnerGames:
    """``num_envs`` games played from one learner seat each, opponents embedded.

    ``opponents`` is a sequence of opponent objects (see the module docstring;
    ``None`` means random play), ``weights`` their sampling weights (uniform by
    default). ``seats`` fixes the learner's seat per slot (evaluation rotates
    seats this way); by default each game draws it at random. ``illegal_action``
    says what an action the learner may not take does: ``"raise"`` (ValueError,
    nothing changes) or ``"penalize"`` (the learner loses that game: reward -1, the
    others 0, ``illegal[i]`` set, and the slot starts its next game). The arrays
    ``observations``, ``masks``, ``rewards``, ``terminated`` and ``truncated`` are
    the learner's view after :meth:`reset` / :meth:`step` (which return them as read-only
    views), overwritten by the next call; actions are checked against a private copy of
    the masks, so writing into ``masks`` cannot make a kernel apply an illegal action.
    Actions and seeds follow the contract of :mod:`~monster_zoo.envs.core.illegal` and
    :mod:`~monster_zoo.envs.core.inputs`. :attr:`final_observations`, :attr:`final_returns`, :attr:`final_seats` and
    :attr:`final_game_seeds` describe the games that just ended (before their slots
    were reset).
    """

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
        *,
        first_slot: int = 0,
        all_slots: int | None = None,
    ):
        num_envs = check_num_envs(num_envs, spec.env_id)
        check_seed(seed, spec.env_id, allow_none=False)
        all_slots = num_envs if all_slots is None else all_slots
        if not (
            isinstance(first_slot, (int, np.integer))
            and isinstance(all_slots, (int, np.integer))
            and 0 <= first_slot
            and first_slot + num_envs <= all_slots
        ):
            raise ValueError(
                f"first_slot {first_slot!r} and all_slots {all_slots!r} must place the {num_envs} "
                f"slots inside 0..all_slots-1"
            )
        # Slots first_slot.. of a set of all_slots: seeds, generators and messages are that set's, so
        # that parts stepped apart (ThreadedLearnerGames) play the games of one LearnerGames.
        self.first_slot, self.all_slots = int(first_slot), int(all_slots)
        self.spec = spec
        self.config = np.ascontiguousarray(config, dtype=np.int64)
        self.num_envs = num_envs
        self.num_players = int(self.config[0])
        n, s = self.num_envs, spec
        self.states = np.zeros((n, s.state_size), np.int32)
        self._masks = np.zeros((n, s.num_actions), np.int8)  # legality is checked against this one
        self._shown_masks = np.zeros_like(self._masks)  # and this copy is what callers see
        self.masks = read_only(self._shown_masks)
        self.observations = np.zeros((n, s.obs_size), np.float32)
        self.final_observations = np.zeros((n, s.obs_size), np.float32)
        self.rewards = np.zeros(n, np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self.illegal = np.zeros(n, np.bool_)
        self.illegal_action = check_illegal_action_option(illegal_action, spec.env_id)
        self.final_returns = np.zeros((n, self.num_players), np.float32)
        self.final_seats = np.zeros(n, np.int64)  # the learner's seat in the game that ended
        self.final_game_seeds = np.zeros(n, np.int64)  # and that game's seed
        self.learner_seats = np.zeros(n, np.int64)
        self.game_seeds = np.zeros(n, np.int64)
        self.slot_opponents = [None] * n
        # Each opponent in the pool or at a table has a small integer code, so that a step groups
        # its slots by opponent with numpy rather than looking at every slot in Python.
        self._slot_codes = np.zeros(n, np.int64)
        self._code_of, self._by_code, self._codes_made = {}, {}, 0
        self._returns = np.zeros(self.num_players, np.float32)
        self._scratch_masks = np.zeros((n, s.num_actions), np.int8)
        self._scratch_obs = np.zeros((n, s.obs_size), np.float32)
        self._pending = np.zeros(n, np.int64)
        self._stacked = {}
        self.fixed_seats = None if seats is None else np.asarray(seats, np.int64)
        if self.fixed_seats is not None and (
            self.fixed_seats.shape != (self.num_envs,)
            or ((self.fixed_seats < 0) | (self.fixed_seats >= self.num_players)).any()
        ):
            raise ValueError(
                f"seats must be {self.num_envs} seats in 0..{self.num_players - 1}, got {seats!r}"
            )
        self._views = tuple(
            read_only(a)
            for a in (self.observations, self._shown_masks, self.rewards, self.terminated, self.truncated)
        )
        self.set_opponents(opponents, weights)
        self.seed(seed)

    # --- configuration -------------------------------------------------------------
    def set_opponents(self, opponents: Sequence | None, weights: Sequence[float] | None = None) -> None:
        """Replace the opponent pool; games in progress keep the opponent they started with.

        An opponent made for another game, player count or rule options is refused (its
        ``check_game``), and the pool is left as it was.
        """
        opponents = [RandomOpponent()] if opponents is None else list(opponents)
        if not opponents:
            raise ValueError("the opponent pool is empty: pass at least one opponent")
        for o in opponents:
            if not hasattr(o, "act_batch"):
                raise TypeError(f"opponent {o!r} has no act_batch(observations, masks, states) method")
            check = getattr(o, "check_game", None)
            if check is not None:
                check(self.spec.env_id, self.config)
        cumulative = pool_cumulative(weights, len(opponents))
        self.opponents = opponents
        self._cumulative = cumulative
        kept = {id(o) for o in opponents} | {id(o) for o in self.slot_opponents}
        self._code_of = {key: code for key, code in self._code_of.items() if key in kept}
        self._by_code = {code: self._by_code[code] for code in self._code_of.values()}

    def _code(self, opponent) -> int:
        """The code of ``opponent`` (a new one the first time it is seen; codes are never reused). The
        object is held while it has a code, so its ``id`` is not reused meanwhile."""
        code = self._code_of.get(id(opponent))
        if code is None:
            code = self._code_of[id(opponent)] = self._codes_made
            self._by_code[code] = opponent
            self._codes_made += 1
        return code

    def seed(self, seed: int) -> None:
        """Reseed every slot (takes effect at the next :meth:`reset`).

        ``seed``: a non-negative integer, reduced modulo 2**63 so game seeds fit ``int64``;
        ``game_seeds`` always holds the seed that replays a game in the AEC env.
        """
        self.base_seed = check_seed(seed, self.spec.env_id, allow_none=False)
        slots = range(self.first_slot, self.first_slot + self.num_envs)
        self._games_started = np.zeros(self.num_envs, np.int64)
        self.game_rngs = np.zeros((self.num_envs, 1), np.uint64)
        self.seat_rngs = make_rngs([(self.base_seed + i) ^ SEAT_SALT for i in slots])
        self.policy_rngs = make_rngs([(self.base_seed + i) ^ OPPONENT_SALT for i in slots])

    # --- stepping ---------------------------------------------------------------------
    def reset(self):
        """Start a game in every slot and play the opponents up to the learner's first turn."""
        self.restart(np.arange(self.num_envs, dtype=np.int64))
        return self._views[:2]

    def step(self, actions):
        """Apply the learner's action in every slot; opponents answer; finished games restart.

        An action the learner may not take raises ValueError naming the slot, the
        learner's seat, the action and the reason, changing nothing; with
        ``illegal_action="penalize"`` it loses that slot's game instead.
        """
        return self.apply_checked(*self.checked_actions(actions))

    def apply_checked(self, acts: np.ndarray, illegal: np.ndarray, skip: np.ndarray | None = None):
        """:meth:`step` for the answer of :meth:`checked_actions`, ``(actions, illegal)``: how a caller
        that steps several parts checks every part's actions before it changes any. ``skip`` (bools,
        one per slot) leaves those slots' games as they are: a vector env whose autoreset hands out a
        game's first observation one step after its end uses it for that step."""
        moving = np.flatnonzero(~illegal if skip is None else ~illegal & ~skip)
        apply_in_slots(self.states, moving, acts[moving], self.game_rngs, self.spec.apply_action)
        self._advance(moving)
        self._finish_games(illegal)
        self._refresh_view()
        return self._views

    def restart(self, slots: Sequence[int]) -> None:
        """Abandon the games in ``slots`` and start their next games (no reward is given)."""
        slots = np.asarray(slots, np.int64).reshape(-1)
        self._start_until_learner_acts(slots)
        self.rewards[slots] = 0.0
        self.terminated[slots] = False
        self.truncated[slots] = False
        self.illegal[slots] = False
        self._refresh_view()

    def checked_actions(self, actions, skip: np.ndarray | None = None):
        """``(actions as int64, which of them the learner may not take)`` (the refused ones
        become 0) under ``illegal_action="penalize"``; under ``"raise"`` an IllegalActionError
        for the first refused one. A batch of the wrong shape is always refused. The actions of
        slots where ``skip`` is set are not looked at (they become 0): those slots will not move."""

        def who(i):
            seat = f"player_{int(self.learner_seats[i])} (the learner)"
            return f"slot {self.first_slot + i}: {seat}" if self.all_slots > 1 else seat

        acts, refused = batch_refusals(self.spec, self.states, self._masks, actions, who)
        if skip is not None:
            acts[skip] = 0
            refused = {i: why for i, why in refused.items() if not skip[i]}
        if refused and self.illegal_action == "raise":
            raise IllegalActionError(next(iter(refused.values())))
        illegal = np.zeros(self.num_envs, np.bool_)
        illegal[list(refused)] = True
        return acts, illegal

    def _start_games(self, slots: np.ndarray) -> None:
        """Start the next game in ``slots``: seed, learner seat, opponent, opening moves."""
        for i in slots:
            self.game_seeds[i] = game_seed(
                self.base_seed, self.first_slot + i, self._games_started[i], self.all_slots
            )
            self._games_started[i] += 1
            seed_rng(self.game_rngs[i], self.game_seeds[i])
            self.learner_seats[i], pick = draw_seat_and_opponent(
                self.seat_rngs[i], self.num_players, self._cumulative
            )
            if self.fixed_seats is not None:
                self.learner_seats[i] = self.fixed_seats[i]
            self.slot_opponents[i] = self.opponents[pick]
            self._slot_codes[i] = self._code(self.opponents[pick])
            self.spec.init_state(self.states[i], self.config, self.game_rngs[i])
        self._advance(slots)

    def _advance(self, slots: np.ndarray) -> None:
        """Let each slot's opponent move until the learner must act or the game is over."""
        by_kernel, by_mlp, called = {}, {}, []
        codes = self._slot_codes[slots]
        for code in np.unique(codes):
            group = slots[codes == code]
            opponent = self._by_code[int(code)]
            kernel = getattr(opponent, "policy_kernel", None)
            mlp = getattr(opponent, "policy_mlp", None)
            if kernel is not None:
                by_kernel.setdefault(id(kernel), (kernel, []))[1].append(group)
            elif mlp is not None:
                shape_key = (mlp.shapes.tobytes(), mlp.activations.tobytes())
                by_mlp.setdefault(shape_key, []).append((mlp, group))
            else:
                called.append(group)
        s = self.spec
        for kernel, groups in by_kernel.values():
            advance_with_policy(
                self.states,
                np.sort(np.concatenate(groups)),
                self.learner_seats,
                self.game_rngs,
                self.policy_rngs,
                self._scratch_masks,
                kernel,
                s.legal_mask,
                s.apply_action,
            )
        for groups in by_mlp.values():
            self._advance_mlps(groups)
        if called:
            self._advance_by_calls(np.sort(np.concatenate(called)))

    def _advance_mlps(self, groups) -> None:
        """Play MLP opponents of one architecture inside numba, their weights stacked row-wise.
        ``groups``: ``(network, slots it plays in)`` pairs."""
        mlps = {}
        for mlp, _ in groups:
            mlps.setdefault(id(mlp), mlp)
        key = tuple(mlps)
        if key not in self._stacked:
            # The stack changes only when the pool does (or its last game of a retired
            # snapshot ends), so it is built once and reused for many steps. It holds the
            # networks it was made of, so that no later network takes one of their ids.
            if len(self._stacked) > 16:
                self._stacked.clear()
            self._stacked[key] = (tuple(mlps.values()), np.stack([m.params for m in mlps.values()]))
        row = {k: r for r, k in enumerate(key)}
        group = np.concatenate([slots for _, slots in groups])
        members = np.concatenate([np.full(len(slots), row[id(mlp)], np.int64) for mlp, slots in groups])
        order = np.argsort(group, kind="stable")
        group, members = group[order], members[order]
        first = next(iter(mlps.values()))
        s = self.spec
        advance_with_mlps(
            self.states,
            group,
            self.learner_seats,
            self.game_rngs,
            self.policy_rngs,
            members,
            self._stacked[key][1],
            first.shapes,
            first.activations,
            self._scratch_masks,
            self._scratch_obs,
            s.legal_mask,
            s.observe_into,
            s.apply_action,
        )

    def _advance_by_calls(self, slots: np.ndarray) -> None:
        """Step opponents without a kernel in rounds: every slot whose opponent is on move
        moves once per round, with one ``act_batch`` call per opponent."""
        s = self.spec
        while True:
            k = opponents_on_move(self.states, slots, self.learner_seats, self._pending)
            if k == 0:
                return
            pending = self._pending[:k].copy()
            masks, obs = self._scratch_masks[:k], self._scratch_obs[:k]
            view_of_mover(self.states, pending, masks, obs, s.legal_mask, s.observe_into)
            actions = np.zeros(k, np.int64)
            owners = [id(self.slot_opponents[i]) for i in pending]
            for key in dict.fromkeys(owners):
                rows = np.flatnonzero(np.array(owners) == key)
                opponent = self.slot_opponents[pending[rows[0]]]
                actions[rows] = opponent.act_batch(obs[rows], masks[rows], self.states[pending[rows]])
                self._check_opponent(opponent, actions[rows], masks[rows], pending[rows])
            apply_in_slots(self.states, pending, actions, self.game_rngs, s.apply_action)

    def _check_opponent(self, opponent, actions: np.ndarray, masks: np.ndarray, slots: np.ndarray) -> None:
        """ValueError if an embedded opponent answered with an action its mask forbids."""
        illegal = (actions < 0) | (actions >= self.spec.num_actions)
        illegal[~illegal] = masks[np.flatnonzero(~illegal), actions[~illegal]] == 0
        if illegal.any():
            j = int(np.flatnonzero(illegal)[0])
            raise ValueError(
                f"opponent {opponent!r} chose illegal action {int(actions[j])} in slot {int(slots[j])}"
            )

    def _finish_games(self, illegal: np.ndarray) -> None:
        """Rewards and final views of the games that ended (``illegal``: lost by an illegal
        learner action); restart their slots."""
        terminal = self.states[:, H_TERMINAL] != 0
        cut = truncated_rows(self.states) & ~illegal
        self.terminated[:] = terminal | illegal
        self.truncated[:] = cut
        self.illegal[:] = illegal
        self.rewards[:] = 0.0
        done = np.flatnonzero(terminal | cut | illegal)
        if done.size == 0:
            return
        s = self.spec
        for i in done:
            seat = int(self.learner_seats[i])
            self.final_seats[i], self.final_game_seeds[i] = seat, self.game_seeds[i]
            self.final_returns[i] = 0.0
            if illegal[i]:
                # as the AEC env's "penalize": -1 for the offender, 0 for the others
                self.final_returns[i, seat] = -1.0
            elif terminal[i]:
                s.returns(self.states[i], self._returns)
                self.final_returns[i] = self._returns
            self.rewards[i] = self.final_returns[i, seat]
            s.observe_into(self.states[i], seat, self.final_observations[i])
        self._start_until_learner_acts(done)

    def _start_until_learner_acts(self, slots: np.ndarray) -> None:
        """Start the next game in ``slots``. A fresh game may end before the learner's first
        turn; such games are played out and replaced, so every slot hands the learner a decision."""
        while slots.size:
            self._start_games(slots)
            slots = slots[~running_rows(self.states[slots])]

    def _refresh_view(self) -> None:
        s = self.spec
        learner_view(
            self.states, self.learner_seats, self._masks, self.observations, s.legal_mask, s.observe_into
        )
        self._shown_masks[:] = self._masks
