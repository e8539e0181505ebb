"""One game played or watched in the browser: the AEC env, who sits where, the moves so far.

Moves reach the game only through the AEC env (``env.step``), after the rules' own check
(:func:`~monster_zoo.envs.core.illegal.refusal`: the legal mask, and the ``illegal_reason``
kernel for the reason); every move is named when it is made, once for the public and once
for each seat, as that viewer knew it (the game's ``describe_action``, with the game's words
for it where that viewer knew the move), and noted in the match record (:class:`~monster_zoo.envs.core.records.RecordWriter`).

An agent thinks in a worker thread (:meth:`GameSession.start_agent_move`), never on the
request path: it gets a copy of what it may read, and its move is applied under the session's
lock when it answers, if the game is still waiting for it. A move that takes longer than the
time limit stops the game: when someone looks after the limit, or when the move arrives late,
whichever comes first (a thread cannot be stopped, so the late answer is dropped).
"""

import secrets
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_CURRENT, H_STEPS
from monster_zoo.envs.core.illegal import refusal
from monster_zoo.envs.core.move_words import move_words
from monster_zoo.envs.core.records import RecordWriter, game_result, save_record
from monster_zoo.evaluation.match import seat_outcome

from .refusals import conflict, unprocessable

PLAY, WATCH = "play", "watch"


@dataclass
class Move:
    """One action applied: who took it, its index, its name as each viewer knew it
    (``names[None]`` the public's, ``names[s]`` seat ``s``'s) and the game's words for it where
    that viewer knew the move and its name uses codes (None otherwise; :mod:`move_words
    <monster_zoo.envs.core.move_words>`), the same the terminal ``play`` and the replay viewer say."""

    seat: int
    action: int
    names: dict[int | None, str]
    words: dict[int | None, str | None]


@dataclass
class Thinking:
    """An agent's move under way: its seat, when it started (monotonic seconds), its future."""

    seat: int
    started: float
    step: int
    future: Future = field(repr=False)


class GameSession:
    """A game of ``game_id`` with ``options`` and ``seed``: ``agents[s]`` plays seat ``s``, or a
    person where it is None; ``labels[s]`` names the seat (its record entry)."""

    def __init__(
        self,
        game_id: str,
        options: dict,
        seed: int,
        agents: Sequence,
        labels: Sequence[str],
        time_limit_s: float,
        records_dir: Path | None = None,
    ):
        self.env = envs.make(game_id, **options)
        self.raw = self.env.unwrapped
        self.spec = self.raw.spec
        self.seed = seed
        self.agents = list(agents)
        self.labels = list(labels)
        self.humans = [s for s, agent in enumerate(self.agents) if agent is None]
        self.mode = PLAY if self.humans else WATCH
        self.time_limit_s = time_limit_s
        self.records_dir = records_dir
        self.writer = RecordWriter(self.env, seed, self.labels)
        self.env.reset(seed=seed)
        self.moves: list[Move] = []
        self.thinking: Thinking | None = None
        self.stopped: str | None = None  # why the game stopped before its end
        self.record_note: str | None = None  # where --records-dir got its record, or why not
        self.closed = False
        self.owner: str | None = None  # the token of the browser that started it, for its list of games
        self.lock = threading.RLock()

    # --- what the game is at -------------------------------------------------------------
    @property
    def step(self) -> int:
        """Actions applied so far."""
        return int(self.raw.engine_state[H_STEPS])

    @property
    def over(self) -> bool:
        """Whether the rules ended the game or its step limit truncated it."""
        result = game_result(self.raw)
        return result["terminated"] or result["truncated"]

    @property
    def finished(self) -> bool:
        """Over, or stopped: nothing more will be played."""
        return self.over or self.stopped is not None

    @property
    def on_move(self) -> int | None:
        """The seat on move, or None once the game is finished."""
        seat = int(self.raw.engine_state[H_CURRENT])
        return None if self.finished or seat < 0 else seat

    def legal_actions(self) -> list[int]:
        """The legal actions of the seat on move (none once finished)."""
        return [] if self.on_move is None else self.raw.legal_actions()

    def result(self) -> dict | None:
        """Returns, each seat's outcome (win, draw, loss) and how it ended, once finished."""
        if not self.finished:
            return None
        result = game_result(self.raw)
        returns = result["returns"]
        return {
            **result,
            "outcomes": [seat_outcome(returns, s) for s in range(len(returns))],
            "stopped": self.stopped,
        }

    def record(self) -> dict:
        """The match record of the game so far (ask only once it is finished: it tells every secret)."""
        return self.writer.finish()

    # --- moves ---------------------------------------------------------------------------------
    def human_move(self, seat: int, action: int, step: int) -> None:
        """Apply ``action`` for the person in ``seat`` who saw the game at ``step``; a refusal
        (409 not now, 422 illegal with the rules' reason) changes nothing."""
        with self.lock:
            self._check_time_limit()
            if self.finished:
                raise conflict(
                    "the game is over" if self.stopped is None else f"the game stopped: {self.stopped}"
                )
            if seat not in self.humans:
                raise conflict(f"player_{seat} is played by {self.labels[seat]}, not from this page")
            if self.on_move != seat:
                raise conflict(f"it is player_{self.on_move}'s turn, not player_{seat}'s")
            if step != self.step:
                raise conflict(f"the game has moved on to step {self.step} since step {step}; look again")
            reason = refusal(self.spec, self.raw.engine_state, self._mask(), f"player_{seat}", action)
            if reason is not None:
                raise unprocessable(reason)
            self._apply(action)

    def start_agent_move(self, executor: Executor) -> Future | None:
        """The future of the move of the agent on move, started in ``executor`` unless it is under
        way already; None when nobody or a person is on move."""
        with self.lock:
            self._check_time_limit()
            seat = self.on_move
            if seat is None or seat in self.humans:
                return None
            if self.thinking is None:
                agent = self.agents[seat]
                observation = self.raw.observe(self.raw.possible_agents[seat])
                state = self.raw.engine_state.copy() if getattr(agent, "needs_state", False) else None
                future = executor.submit(
                    self._think,
                    seat,
                    observation["observation"],
                    observation["action_mask"],
                    state,
                    self.step,
                )
                self.thinking = Thinking(seat, time.monotonic(), self.step, future)
            return self.thinking.future

    def thinking_seconds(self) -> float | None:
        """How long the agent on move has been thinking, or None."""
        with self.lock:
            self._check_time_limit()
            return None if self.thinking is None else time.monotonic() - self.thinking.started

    def close(self) -> None:
        """Forget the game: an agent still thinking will find nobody waiting for its move."""
        with self.lock:
            self.closed = True
            self.thinking = None

    def _think(
        self, seat: int, observation: np.ndarray, mask: np.ndarray, state: np.ndarray | None, step: int
    ) -> None:
        """Ask the agent of ``seat`` for its move (in a worker thread, without the lock) and apply it
        if the game still waits for it; an agent that fails or answers an illegal move stops the game."""
        agent = self.agents[seat]
        try:
            action = (
                agent.act(observation, mask, state) if state is not None else agent.act(observation, mask)
            )
            failure = None
        except Exception as err:
            action, failure = None, f"{type(err).__name__}: {err}"
        arrived = time.monotonic()  # before the lock: a wait for it is not the agent's thinking
        with self.lock:
            if self.closed or self.thinking is None or self.thinking.step != step:
                return  # stopped for its time limit, or the game was closed
            if arrived - self.thinking.started > self.time_limit_s:
                self._check_time_limit()  # the move came too late: the game stops, as if looked at then
                return
            self.thinking = None
            if failure is None:
                failure = refusal(self.spec, self.raw.engine_state, self._mask(), f"player_{seat}", action)
            if failure is not None:
                self._stop(f"player_{seat} ({self.labels[seat]}) failed: {failure}")
                return
            self._apply(int(action))

    def _check_time_limit(self) -> None:
        """Stop the game if the agent on move has thought longer than the time limit (lock held)."""
        if self.thinking is not None and time.monotonic() - self.thinking.started > self.time_limit_s:
            seat = self.thinking.seat
            self.thinking = None
            self._stop(
                f"player_{seat} ({self.labels[seat]}) did not move within the time limit of "
                f"{self.time_limit_s:g} s"
            )

    def _mask(self) -> np.ndarray:
        """The private legal mask of the seat on move."""
        mask = np.zeros(self.spec.num_actions, np.int8)
        mask[self.raw.legal_actions()] = 1
        return mask

    def _apply(self, action: int) -> None:
        """Name ``action`` for every viewer, note it in the record and step the env (lock held)."""
        state = self.raw.engine_state
        seat = int(state[H_CURRENT])
        viewers = [None, *range(len(self.agents))]
        names = {v: self.spec.describe_action(state, action, v) for v in viewers}
        words = {v: move_words(self.spec, state, action, v) for v in viewers}
        self.writer.note(action)
        self.env.step(action)
        self.moves.append(Move(seat, action, names, words))
        if self.over:
            self._keep_record()

    def _stop(self, why: str) -> None:
        """End the game before its end, saying ``why`` (lock held)."""
        self.stopped = why
        self._keep_record()

    def _keep_record(self) -> None:
        """Write the finished game's record into the records folder, when the server has one."""
        if self.records_dir is None:
            return
        name = (
            f"{self.spec.name}_{time.strftime('%Y%m%d-%H%M%S')}_seed{self.seed}_{secrets.token_hex(3)}.json"
        )
        try:
            path = save_record(self.record(), self.records_dir / name)
            self.record_note = f"the match record was saved on the server as {path.name}"
        except OSError as err:
            self.record_note = f"the match record could not be saved on the server: {err.strerror or err}"
