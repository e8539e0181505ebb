"""What a seat of Monster Noughts sees (``observe_into``), and the hidden information
(``determinize``): nothing is hidden (NC-8)."""

from monster_zoo.envs.core.contract import OBSERVE_SIG
from monster_zoo.envs.core.kernels import kernel, on_demand

from .state_layout import BOARD, MONSTER, NUM_CELLS, NUM_ROUNDS, ROUND, WINS

# --- observation ----------------------------------------------------------------------------------
# Per cell: my mark, the other's mark, the monster; then the rounds played and the round wins of
# the observer and of the other player, each as a share of the match's rounds.
CELL_FEATURES = 3
OBS_ROUND = NUM_CELLS * CELL_FEATURES
OBS_WINS = OBS_ROUND + 1
OBS_SIZE = OBS_WINS + 2


@kernel(OBSERVE_SIG)
def observe_into(state, player, out):
    """Seat ``player``'s view into ``out``: all of the state, since nothing is hidden (NC-8)."""
    out[:] = 0.0
    for c in range(NUM_CELLS):
        mark = state[BOARD + c]
        out[c * CELL_FEATURES] = mark == player + 1
        out[c * CELL_FEATURES + 1] = mark != 0 and mark != player + 1
        out[c * CELL_FEATURES + 2] = state[MONSTER] == c
    out[OBS_ROUND] = state[ROUND] / NUM_ROUNDS
    out[OBS_WINS] = state[WINS + player] / NUM_ROUNDS
    out[OBS_WINS + 1] = state[WINS + 1 - player] / NUM_ROUNDS


# --- hidden information --------------------------------------------------------------------------
@on_demand
def determinize(state, player, rng):
    """Nothing to resample: every field of the state is public (NC-8)."""
    return
