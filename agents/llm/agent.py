"""A language model as an agent: each turn it is asked for a move with the game's rules summary and
its seat's JSON view, and answers with a move's id or name.

The policy for answers that name no legal move: the model is told why (the rules' reason where the
answer names a move, else that it names none) and asked again, at most ``retries`` times; a move
still not legal after them is counted (``Usage.fallbacks``) and replaced by a uniformly random legal
move from the agent's seeded generator. An endpoint that cannot be reached, or answers no chat
completion, on every try raises :class:`~monster_zoo.agents.llm.chat.ChatError`: a run against a dead server
is stopped rather than scored as random play. Tokens (as the server counts them) and latency are
recorded per request.

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
from .chat import ChatEndpoint, ChatError
from .moves import read_answer
from .prompts import conversation, retry_prompt

PREFIX = "llm:"
BASE_URL_VARIABLE = "MONSTER_ZOO_LLM_BASE_URL"
DEFAULT_BASE_URL = (
    "http://127.0.0.1:8000/v1"  # vLLM's default; llama.cpp's server: :8080/v1, Ollama: :11434/v1
)
MAX_RETRIES = 10


@dataclass(frozen=True)
class LlmSettings:
    """How the harness asks: the endpoint, whether the legal moves are listed in the prompt, and how
    many times a refused answer is asked again."""

    base_url: str = DEFAULT_BASE_URL
    legal_moves: bool = True
    retries: int = 2
    temperature: float = 0.0
    max_tokens: int = 256
    timeout_s: float = 120.0

    def __post_init__(self):
        if not isinstance(self.retries, int) or not 0 <= self.retries <= MAX_RETRIES:
            raise ValueError(f"retries must be an integer from 0 to {MAX_RETRIES}, got {self.retries!r}")

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
    fallbacks: int = 0  # moves still not legal after the retries: a random legal move was played
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latencies_s: list[float] = field(default_factory=list)  # per request
    per_move: list[dict] = field(default_factory=list)  # per move: tries, tokens, latency, fallback

    def summary(self) -> dict[str, float]:
        """Rates per move and per-move means (zeros before any move)."""
        moves = max(self.moves, 1)
        return {
            "moves": self.moves,
            "retry_rate": self.retries / moves,
            "illegal_rate": self.fallbacks / moves,
            "illegal_answer_rate": self.illegal_answers / max(self.requests, 1),
            "prompt_tokens_per_move": self.prompt_tokens / moves,
            "completion_tokens_per_move": self.completion_tokens / moves,
            "latency_s_median": float(np.median(self.latencies_s)) if self.latencies_s else 0.0,
        }


class LlmAgent(Agent):
    """``model`` behind ``settings.base_url`` playing ``game_id`` (see the module doc)."""

    needs_state = True

    def __init__(self, game_id: str, model: str, settings: LlmSettings = LlmSettings(), seed: int = 0):
        super().__init__(seed)
        self.name = f"{PREFIX}{model}"
        self.spec = envs.spec(game_id)
        self.settings = settings
        self.endpoint = ChatEndpoint(
            settings.base_url, model, settings.temperature, settings.max_tokens, settings.timeout_s
        )
        self.made_for = GameRules.any_rules(game_id)
        self.usage = Usage()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None) -> int:
        """The model's move in ``state`` (needed), or a random legal one after ``retries`` refusals."""
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
            "fallback": False,
        }
        self.usage.per_move.append(cost)
        failure, answered = None, False
        for attempt in range(self.settings.retries + 1):
            if attempt:
                self.usage.retries += 1
            cost["tries"] += 1
            try:
                reply = self.endpoint.complete(messages)
            except ChatError as err:
                failure = err
                continue
            answered = True
            self._count(reply, cost)
            move = read_answer(reply.text, view["legal_moves"])
            if move is not None:
                return move
            self.usage.illegal_answers += 1
            messages += [
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": retry_prompt(self._why(reply.text, state, action_mask, seat))},
            ]
        if not answered:
            raise ChatError(
                f"{self.name}: no answer after {self.settings.retries + 1} tries; the last: {failure}"
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
