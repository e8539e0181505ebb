"""The agent protocol shared by every baseline, heuristic and learned agent.

An agent sees what a PettingZoo player sees: its observation vector and the
action mask of the agent on move. Heuristics that need the rules' own
bookkeeping may also read the engine state, under a contract:

**The state contract.** An agent with ``needs_state = True`` receives the live
engine state vector of the game (``env.unwrapped.engine_state``). It must

* never modify it (copy it first for any simulation), and
* read only what the seat on move may know: the public information plus that
  seat's own private information, as the game's ``seeds/<game>/rules.md`` defines
  them. Whatever the game hides from that seat (other players' hands, the order
  of a deck) is off limits, so its choices must not change when only that
  changes (``tests/test_agents.py`` checks this by redealing the hidden
  information with the game's ``determinize``).

Randomness: every agent owns a generator seeded explicitly at construction and
by ``reset(seed)``; no agent touches global random state, so a match is
reproducible from its seed alone.

**Its game.** An agent built for a game (``make_agent(name, env)`` or ``make_agent(name,
game_id, seed, options)``) carries it as ``made_for`` (a
:class:`~monster_zoo.agents.game_rules.GameRules`) and refuses, with a
:class:`~monster_zoo.agents.game_rules.WrongGameError` naming both games, to play any other:

* where it acts, :meth:`Agent.check_view` compares what it is shown - the mask's and the
  observation's sizes, the player count the observation was written for (read from its seat
  entries, :mod:`~monster_zoo.envs.core.seated_view`), and the state's size and player count
  when a state is handed to it - once per call (per batch for ``act_batch``), never per legal
  action;
* :meth:`Agent.check_game` compares a whole game (id, player count, rule options) and is
  called once where a game or a pool starts: by the match runner for every game and by the
  training vec env when an opponent joins its pool.

A trained policy plays one player count and one set of rule options; random, greedy and the
searches read them from the state and play any of their game's. An agent made for no game
(``made_for`` None: built by its constructor, a self-play snapshot) plays whatever it is given.
"""

import numpy as np

from monster_zoo.agents.game_rules import GameRules, WrongGameError, game_with_sizes
from monster_zoo.envs.core.contract import H_NUM_PLAYERS
from monster_zoo.envs.core.rng import make_rng
from monster_zoo.envs.core.seated_view import other_player_count


def state_needed(who: str, why: str = "needs the engine state") -> ValueError:
    """The error of an agent ``who`` that was given no state: ``"the greedy agent needs the engine
    state ..."``, saying how to pass it from a loop of one's own (the match runner passes it)."""
    return ValueError(
        f"{who} {why} (needs_state = True): in your own AEC loop pass it as the third "
        f"argument, agent.act(observation, action_mask, env.unwrapped.engine_state)"
    )


class Agent:
    """Base class of agents: ``act`` picks a legal action, ``reset`` reseeds.

    Subclasses implement :meth:`act` and set ``name``; ``needs_state = True``
    asks the match runner for the engine state (see the module's contract).
    """

    name = "agent"
    needs_state = False
    # A numba policy with ``monster_zoo.envs.core.contract.POLICY_SIG`` (state, mask, rng) ->
    # action, when the agent has one: the training vec env then plays this agent
    # inside numba, with ``self.rng`` as its generator, instead of calling ``act``.
    policy_kernel = None
    # The game this agent was made for (see the module doc); None plays any game.
    made_for: GameRules | None = None

    def __init__(self, seed: int = 0):
        self.reset(seed)

    def reset(self, seed: int) -> None:
        """Reseed the agent's own generator (``self.rng``, a ``uint64[1]`` usable in numba)."""
        self.seed = int(seed)
        self.rng = make_rng(self.seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None) -> int:
        """Return one action index whose entry in ``action_mask`` is 1."""
        raise NotImplementedError

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, states: np.ndarray | None = None
    ) -> np.ndarray:
        """One action per row; agents that batch (neural policies) override this."""
        self.check_view(observations, masks, states)
        rows = range(len(masks))
        return np.array(
            [self.act(observations[i], masks[i], None if states is None else states[i]) for i in rows],
            dtype=np.int64,
        )

    def check_game(self, game_id: str, config, options=None) -> None:
        """WrongGameError unless this agent may play ``game_id`` with the kernel ``config``
        (``envs.config(game_id, options)``; ``options``, when known, name the game in the message)."""
        made = self.made_for
        if made is None:
            return
        game = GameRules.from_config(game_id, config, options)
        if not made.admits(game):
            raise WrongGameError(
                f"{self._who()} was made for {made.describe()}; this game is "
                f"{game.describe()}. {self._remedy()}"
            )

    def check_view(self, observation, action_mask, state=None) -> None:
        """WrongGameError unless the observation, mask and (when given) state are of a game this
        agent was made for; one row or a batch of rows (a few comparisons per call)."""
        made = self.made_for
        if made is None:
            return
        for what, shown, size in (
            ("an action mask", action_mask, made.num_actions),
            ("an observation", observation, made.obs_size),
            ("a state", state, made.state_size),
        ):
            if shown is not None and np.shape(shown)[-1:] != (size,):
                found = np.shape(shown)[-1] if np.ndim(shown) else 0
                whose = f" ({game_with_sizes(what, found)})" if found else ""
                raise WrongGameError(
                    f"{self._who()} was made for {made.describe()}; it was shown {what} of "
                    f"{found} values, where {made.game_id} has {size}{whose}. {self._remedy()}"
                )
        if made.rules is None:
            return
        if state is not None:
            seated = np.asarray(state)[..., H_NUM_PLAYERS]
            if (seated != made.num_players).any():
                found = int(np.ravel(seated)[np.flatnonzero(np.ravel(seated) != made.num_players)[0]])
                raise WrongGameError(
                    f"{self._who()} was made for {made.describe()}; this state is of "
                    f"{made.game_id} with num_players={found}. {self._remedy()}"
                )
        if observation is not None and made.seated_index is not None:
            # No view holds its player count as a number; its seat entries tell it (seated_view).
            found = other_player_count(made.seated_index, observation, made.num_players)
            if found is not None:
                raise WrongGameError(
                    f"{self._who()} was made for {made.describe()}; this observation is of a {made.game_id} "
                    f"table of {found} players, not {made.num_players} (as its seat entries say). Build the "
                    f"agent for {found} players: make_agent(name, env) with the env it plays, or "
                    f"make_agent(name, {made.game_id!r}, options={{'num_players': {found}}}) (for a champion, "
                    f"the one shipped for {found} players)"
                )

    def _who(self) -> str:
        return f"agent {self.name!r}"

    def _remedy(self) -> str:
        return (
            "Build the agent for the game it plays: make_agent(name, env), or "
            "make_agent(name, game_id, options=...) with that game's options"
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class StateKernelAgent(Agent):
    """An agent whose whole policy is a numba ``policy_kernel`` over the engine state.

    Subclasses set ``name`` and ``policy_kernel`` (a ``POLICY_SIG`` kernel: a class attribute
    wrapped in ``staticmethod``, or an instance attribute); ``act`` runs it on the live state under the state contract above, and
    the training vec env runs the same kernel inside numba.
    """

    needs_state = True

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: np.ndarray | None = None) -> int:
        """The kernel's choice among the legal actions of the seat on move."""
        if state is None:
            raise state_needed(f"the {self.name} agent")
        self.check_view(observation, action_mask, state)
        mask = np.ascontiguousarray(action_mask, dtype=np.int8)
        if not mask.any():
            raise ValueError("the action mask allows no action: this agent is not on move")
        return int(self.policy_kernel(np.ascontiguousarray(state, dtype=np.int32), mask, self.rng))
