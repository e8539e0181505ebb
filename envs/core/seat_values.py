"""Turning per-seat position values into one number for the seat on move (numba)."""

from .kernels import on_demand


@on_demand
def against_the_field(values, p, n, leader_weight, others_share):
    """Seat ``p``'s value minus ``leader_weight`` times its strongest opponent's and
    ``others_share`` times the mean of the remaining opponents (``values`` per seat, ``n`` seats).

    Heuristics for n-player games weigh the leader most: beating the others matters only
    while the leader can still be caught.
    """
    leader = -1
    for q in range(n):
        if q != p and (leader < 0 or values[q] > values[leader]):
            leader = q
    others = 0.0
    for q in range(n):
        if q != p and q != leader:
            others += values[q]
    if n > 2:
        others /= n - 2
    return values[p] - leader_weight * values[leader] - others_share * others
