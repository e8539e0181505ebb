"""A language model as an agent: each turn it is asked for a move with the game's rules summary and
its seat's JSON view, and answers with a move's id or name.

The policy for answers that name no legal move: the model is told why (the rules' reason where the
answer names a move, else that it names none) and asked again, at most ``retries`` times. A move
still not legal after them is settled by ``illegal_policy``: ``forfeit`` (the default, as the
field's harnesses do) raises :class:`Forfeit`, and the harness scores the game as the model's loss;
``fallback`` plays a uniformly random legal move from the agent's seeded generator
(``Usage.fallbacks``), so the game goes on and its result is no longer the model's alone.

The endpoint's failures are not the model's: a request that fails (HTTP 5xx, a body that is not a
chat completion, a timeout, a refused connection) is sent again after a backoff
(:mod:`monster_zoo.agents.llm.backoff`) and counted in ``Usage.endpoint_failures``, never in the
model's retries; after the backoff's tries in a row, or a failure that will not pass (a wrong key
or URL), :class:`~monster_zoo.agents.llm.chat.ChatError` stops the run rather than score it as
random play. Tokens (as the server counts them) and latency are recorded per request.

The agent reads the engine state (``needs_state``) only to build its seat's view from it, so the
model is told exactly what the seat may know. The view it builds has no ``last_moves``: an agent is
shown the state, not the game's history (the MCP server, which holds the game, shows them).
"""

import os
from dataclasses import dataclass, field

import numpy as np

from monster_zoo import envs
from monster_zoo.envs.core.contract import H_CURRENT, H_STEPS
from monster_zoo.envs.core.illegal import refusal
from monster_zoo.envs.core.json_view import seat_view
from monster_zoo.envs.core.rng import rng_pick_set

from ..base import Agent
from ..game_rules import GameRules
from .backoff import Backoff
from .chat import ChatEndpoint, ask
from .moves import read_answer
from .prompts import conversation, retry_prompt

PREFIX = "llm:"
BASE_URL_VARIABLE = "MONSTER_ZOO_LLM_BASE_URL"
DEFAULT_BASE_URL = (
    "http://127.0.0.1:8000/v1"  # vLLM's default; llama.cpp's server: :8080/v1, Ollama: :11434/v1
)
MAX_RETRIES = 10
FORFEIT, FALLBACK = "forfeit", "fallback"
ILLEGAL_POLICIES = (FORFEIT, FALLBACK)


class Forfeit(Exception):
    """The model named no legal move in its tries, under the ``forfeit`` policy: its game is lost."""


@dataclass(frozen=True)
class LlmSettings:
    """How the harness asks: the endpoint, whether the legal moves are listed in the prompt, how
    many times a refused answer is asked again and what settles a move still refused after them
    (``illegal_policy``), how long a request may take, and how many endpoint failures in a row a
    request survives (``endpoint_tries``, waiting ``backoff_base_s`` doubling up to ``backoff_cap_s``)."""

    base_url: str = DEFAULT_BASE_URL
    legal_moves: bool = True
    retries: int = 2
    temperature: float = 0.0
    max_tokens: int = 256
    timeout_s: float = 120.0
    illegal_policy: str = FORFEIT
    endpoint_tries: int = 5
    backoff_base_s: float = 1.0
    backoff_cap_s: float = 60.0

    def __post_init__(self):
        if not isinstance(self.retries, int) or not 0 <= self.retries <= MAX_RETRIES:
            raise ValueError(f"retries must be an integer from 0 to {MAX_RETRIES}, got {self.retries!r}")
        if self.illegal_policy not in ILLEGAL_POLICIES:
            raise ValueError(
                f"illegal-move policy must be one of {', '.join(ILLEGAL_POLICIES)}, got {self.illegal_policy!r}"
            )
        if isinstance(self.timeout_s, bool) or not (
            isinstance(self.timeout_s, (int, float)) and 0 < self.timeout_s <= 3600
        ):
            raise ValueError(
                f"timeout must be a number of seconds above 0, at most 3600, got {self.timeout_s!r}"
            )
        self.backoff()  # checks the endpoint's tries and waits

    def backoff(self, seed: int = 0, sleep=None) -> Backoff:
        """The :class:`~monster_zoo.agents.llm.backoff.Backoff` these settings describe (``sleep``: the
        clock, for tests)."""
        extra = {} if sleep is None else {"sleep": sleep}
        return Backoff(self.endpoint_tries, self.backoff_base_s, self.backoff_cap_s, seed, **extra)

    def described(self) -> dict:
        """The settings a result depends on, as JSON (the endpoint's address and waits are left out:
        a run may be resumed against another server of the same model)."""
        return {
            "legal_moves_listed": self.legal_moves,
            "retries": self.retries,
            "illegal_policy": self.illegal_policy,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    @classmethod
    def from_environment(cls) -> "LlmSettings":
        """The settings with the base URL of ``MONSTER_ZOO_LLM_BASE_URL`` (what ``--base-url`` sets)."""
        return cls(base_url=os.environ.get(BASE_URL_VARIABLE) or DEFAULT_BASE_URL)


@dataclass
class Usage:
    """What a model's moves cost and how often it missed: totals over every move since it was made."""

    moves: int = 0
    requests: int = 0
    retries: int = 0  # answers asked again (each refused answer short of the last try)
    illegal_answers: int = 0  # answers that named no legal move, retried or not
    own_moves: int = 0  # moves the model named legally itself (at the first try or a retry)
    fallbacks: int = 0  # moves still not legal after the retries: a random legal move was played
    forfeits: int = 0  # moves still not legal after the retries under the forfeit policy
    endpoint_failures: int = 0  # requests that failed at the endpoint (sent again after a wait)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latencies_s: list[float] = field(default_factory=list)  # per request
    per_move: list[dict] = field(default_factory=list)  # per move: tries, tokens, latency, fallback

    def summary(self) -> dict[str, float]:
        """Rates per move and per-move means (zeros before any move)."""
        moves = max(self.moves, 1)
        return {
            "moves": self.moves,
            "legal_move_rate": self.own_moves / moves,
            "retry_rate": self.retries / moves,
            "illegal_rate": (self.fallbacks + self.forfeits) / moves,
            "fallbacks": self.fallbacks,
            "forfeits": self.forfeits,
            "endpoint_failures": self.endpoint_failures,
            "illegal_answer_rate": self.illegal_answers / max(self.requests, 1),
            "prompt_tokens_per_move": self.prompt_tokens / moves,
            "completion_tokens_per_move": self.completion_tokens / moves,
            "latency_s_median": float(np.median(self.latencies_s)) if self.latencies_s else 0.0,
        }


class LlmAgent(Agent):
    """``model`` behind ``settings.base_url`` playing ``game_id`` (see the module doc)."""

    needs_state = True

    def __init__(
        self,
        game_id: str,
        model: str,
        settings: LlmSettings = LlmSettings(),
        seed: int = 0,
        backoff: Backoff | None = None,
    ):
        super().__init__(seed)
        self.name = f"{PREFIX}{model}"
        self.spec = envs.spec(game_id)
        self.settings = settings
        self.endpoint = ChatEndpoint(
            settings.base_url, model, settings.temperature, settings.max_tokens, settings.timeout_s
        )
        self.backoff = backoff if backoff is not None else settings.backoff(seed)
        self.made_for = GameRules.any_rules(game_id)
        self.usage = Usage()
        self.on_move = None  # hears each move's cost (the harness's progress line)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None) -> int:
        """The model's move in ``state`` (needed); after ``retries`` refusals, :class:`Forfeit` or a
        random legal move (``illegal_policy``)."""
        if state is None:
            raise ValueError(
                f"{self.name} reads the engine state to build its seat's view: pass "
                "env.unwrapped.engine_state"
            )
        self.check_view(observation, action_mask, state)
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError("the action mask allows no action: this agent is not on move")
        seat = int(state[H_CURRENT])
        view = seat_view(self.spec, state, seat, legal.tolist())
        messages = conversation(self.spec, view, self.settings.legal_moves)
        self.usage.moves += 1
        cost = {
            "step": int(state[H_STEPS]),
            "tries": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "latency_s": 0.0,
            "endpoint_failures": 0,
            "fallback": False,
            "forfeit": False,
        }
        self.usage.per_move.append(cost)
        try:
            return self._ask_for_move(messages, view, state, action_mask, seat, cost)
        finally:
            if self.on_move is not None:
                self.on_move(cost)

    def _ask_for_move(self, messages, view, state, action_mask, seat, cost) -> int:
        """Ask until a legal move is named or the retries are spent, then apply the policy."""

        def failed(_error):
            self.usage.endpoint_failures += 1
            cost["endpoint_failures"] += 1

        for attempt in range(self.settings.retries + 1):
            if attempt:
                self.usage.retries += 1
            cost["tries"] += 1
            reply = ask(self.endpoint, messages, self.backoff, failed)
            self._count(reply, cost)
            move = read_answer(reply.text, view["legal_moves"])
            if move is not None:
                self.usage.own_moves += 1
                return move
            self.usage.illegal_answers += 1
            messages += [
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": retry_prompt(self._why(reply.text, state, action_mask, seat))},
            ]
        if self.settings.illegal_policy == FORFEIT:
            self.usage.forfeits += 1
            cost["forfeit"] = True
            raise Forfeit(
                f"{self.name} named no legal move in {self.settings.retries + 1} tries at step {cost['step']}"
            )
        self.usage.fallbacks += 1
        cost["fallback"] = True
        return int(rng_pick_set(np.ascontiguousarray(action_mask, dtype=np.int8), self.rng))

    def _count(self, reply, cost: dict) -> None:
        """Note one answer's tokens and latency in the totals and in this move's ``cost``."""
        self.usage.requests += 1
        self.usage.prompt_tokens += reply.prompt_tokens or 0
        self.usage.completion_tokens += reply.completion_tokens or 0
        self.usage.latencies_s.append(reply.latency_s)
        cost["prompt_tokens"] += reply.prompt_tokens or 0
        cost["completion_tokens"] += reply.completion_tokens or 0
        cost["latency_s"] += reply.latency_s

    def _why(self, answer: str, state: np.ndarray, mask: np.ndarray, seat: int) -> str:
        """Why ``answer`` was refused: the rules' reason where its last line names a move, else that
        it names none."""
        lines = [line for line in answer.strip().splitlines() if line.strip()]
        text = (lines[-1].rpartition(":")[2] if lines else "").strip()
        try:
            action = int(self.spec.str_to_action(text))
        except (ValueError, KeyError, IndexError):
            return "it does not end with a line 'move: <id or name>' naming a move"
        return (
            refusal(self.spec, state, mask, f"player_{seat}", action) or "it is not one of your legal moves"
        )


def make(
    game_id: str, model: str, seed: int = 0, options: dict | None = None, settings: LlmSettings | None = None
) -> LlmAgent:
    """An :class:`LlmAgent` for ``game_id`` (its settings from the environment unless given); the
    model reads the rules from its view, so it plays any ``options`` (taken for the registry's call)."""
    return LlmAgent(game_id, model, settings or LlmSettings.from_environment(), seed)
