"""Beliefs over hidden cards: a weighted set of possible deals per seat, built from what the seat
saw (its observations and every player's moves) and sampled by the searches in place of uniform
redeals. The kernels are in :mod:`monster_zoo.agents.belief.kernels`, the per-seat tracker in
:mod:`monster_zoo.agents.belief.tracker`."""
