"""Each game's tuned search baseline: ``"mcts"`` (``<game>-mcts-v2``) and ``"mcts-fast"``.

The search is the generic information-set MCTS of :mod:`monster_zoo.agents.search.agent`; what is
tuned per game is in its declaration (``agents={"mcts": {...}}``): simulations per move (sized so a move
takes at most 0.2 s of one core on the 2-core development machine), the UCB
exploration constant for the game's returns, and the rollout policy - uniform random,
or the game's greedy kernel, which costs more per simulation but judges the end of a
rollout far better in games where random play wanders. ``mcts-fast`` is the same
search with a tenth of the simulations: the leaderboard's second budget.

``<game>-mcts-v3`` is version 2 with its simulations dealt from the seat's belief instead of
uniform redeals (:mod:`monster_zoo.agents.belief`); ``mcts`` keeps playing version 2 until
version 3 measures stronger.

``<game>-mcts-v1`` still names the untuned search of version 1 (10,000 simulations,
exploration 1.0, random rollouts in every game). How each configuration was chosen,
and what it scores against greedy, is in ``agents/README.md``.
"""

from monster_zoo.agents.greedy.agent import greedy_kernel
from monster_zoo.agents.search.agent import MCTSAgent
from monster_zoo.agents.search.evaluator import uniform_policy
from monster_zoo.agents.search.settings import PLAYED, ROLLOUTS, SETTINGS_KEY, SearchConfig, declared_search
from monster_zoo.envs import spec

FAST_FRACTION = 10


def search_config(game_id: str) -> SearchConfig:
    """The tuned configuration of ``game_id``'s search baseline, as its declaration gives it
    (``agents={"mcts": {...}}``); ValueError for a game without one."""
    config = declared_search(game_id)
    if config is None:
        raise ValueError(
            f"{game_id} declares no tuned search (agents={{{SETTINGS_KEY!r}: {{...}}}} in its "
            f"Game declaration)"
        )
    return config


def search_names(game_id: str) -> list[str]:
    """The versioned names of ``game_id``'s search baseline at its two budgets, full budget first."""
    return [f"{spec(game_id).name}-{name}-v{PLAYED[name]}" for name in ("mcts", "mcts-fast")]


def rollout_kernel(game_id: str, rollout: str):
    """The numba policy that plays every seat in rollouts: uniform, or the game's greedy kernel."""
    if rollout == "random":
        return uniform_policy
    if rollout == "greedy":
        return greedy_kernel(game_id)
    raise ValueError(f"unknown rollout policy {rollout!r}; valid: {', '.join(ROLLOUTS)}")


def tuned_rollout(game_id: str):
    """The rollout policy of ``game_id``'s tuned search (its declaration's ``"mcts"`` settings), which the learned
    search also mixes into its leaf values."""
    return rollout_kernel(game_id, search_config(game_id).rollout)


class TunedMCTS(MCTSAgent):
    """The search baseline of one game, configured from its declaration's ``"mcts"`` settings."""

    fraction = 1

    believes = False  # uniform redeals

    def __init__(self, seed: int = 0, game_id: str | None = None):
        if game_id is None:
            raise ValueError("a tuned search plays one game: pass game_id")
        config = search_config(game_id)
        super().__init__(
            seed,
            simulations=max(1, config.simulations // self.fraction),
            exploration=config.exploration,
            game_id=game_id,
            rollout_policy=rollout_kernel(game_id, config.rollout),
            belief=config.belief if self.believes else None,
        )
        self.rollout = config.rollout


class BeliefTunedMCTS(TunedMCTS):
    """The search baseline with its simulations dealt from the seat's belief (``<game>-mcts-v3``): the
    same simulations, exploration and rollouts as version 2, and the belief settings the game
    declares with them (:class:`~monster_zoo.agents.belief.settings.BeliefSettings`, the defaults
    where it declares none). In a game that hides nothing it plays as version 2."""

    believes = True


class FastTunedMCTS(TunedMCTS):
    """The search baseline with a tenth of its simulations (the leaderboard's second budget)."""

    fraction = FAST_FRACTION
