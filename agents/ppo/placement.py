"""The placement policy: one small network, shared by every open cell, scores each placement.

A placement action names an open cell by its place in the list of open cells (Monster
Factory's ``28 + 4*c + r``), so what action ``28 + 4*c + r`` does depends on the observation's
block for cell ``c``. A plain MLP maps its hidden layer to each of the 172 placement logits
with separate weights and must learn that relation once per cell number, from the few states
in which that number exists: PPO from it reached 0.33-0.39 against greedy after 1M timesteps.
This network instead scores placement ``(c, r)`` from the features of cell ``c`` itself (its
block of the observation and its derived slots), the tile in hand turned by ``r``, and a
context vector computed once from the whole observation, with the same weights for every
cell, the way a player judges a placement by the cell, the tile and the position.

Shapes, with ``H`` the trunk's hidden sizes and ``K`` the item network's:

* trunk: the observation through ``H`` (an MLP, like the plain policy's actor);
* ``start``: the last trunk layer to the logits of the actions before the placements;
* ``context``: the last trunk layer to ``K[0]`` (added to every placement's first layer);
* ``item``: per placement, its features through ``K`` to one logit.

:func:`placement_logits` is the numpy forward pass that plays a policy file of this kind
(``architecture.type == "placement"``); the trainer's torch module computes the same.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from functools import cached_property

import numpy as np

from monster_zoo.envs.registry import declaration

SETTINGS_KEY = "ppo"  # the PPO policy's settings in a game declaration's agents mapping: {"placement": {...}}


@dataclass(frozen=True)
class PlacementLayout:
    """Where a game's observation holds what the placement network reads.

    ``cell_block``: offset of the per-cell blocks, ``cell_features`` values each;
    ``cell_extras``: offsets of further per-cell slots (one value per cell);
    ``hand_edges``: offset of the tile in hand's edges, ``edge_values`` values per side;
    ``hand_extras``: offsets of single hand values every placement also sees.
    Placement ``first_action + rotations * c + r`` puts the tile turned by ``r`` on cell ``c``.
    """

    first_action: int
    cells: int
    rotations: int
    cell_block: int
    cell_features: int
    cell_extras: tuple
    hand_edges: int
    edge_values: int
    hand_extras: tuple

    @property
    def item_size(self) -> int:
        """Inputs of the item network per placement."""
        return (
            self.cell_features
            + len(self.cell_extras)
            + self.rotations * self.edge_values
            + len(self.hand_extras)
        )

    @cached_property  # read on every forward pass of a snapshot opponent: built once
    def turned_edges(self) -> np.ndarray:
        """``[rotation, slot]``: the hand-edge slot that shows on slot's side after the turn
        (a quarter turn clockwise moves side s to side s + 1)."""
        sides = self.rotations
        index = np.empty((sides, sides * self.edge_values), np.int64)
        for r in range(sides):
            for s in range(sides):
                for v in range(self.edge_values):
                    index[r, s * self.edge_values + v] = ((s - r) % sides) * self.edge_values + v
        return index


def read_ppo_settings(settings: Mapping) -> PlacementLayout | None:
    """A game's declared ``"ppo"`` settings: the placement layout of its observation (None without
    one); ValueError naming an unknown or missing field."""
    unknown = sorted(set(settings) - {"placement"})
    if unknown:
        raise ValueError(f"the {SETTINGS_KEY!r} settings take placement; unknown: {', '.join(unknown)}")
    layout = settings.get("placement")
    if layout is None:
        return None
    valid = [f.name for f in fields(PlacementLayout)]
    wrong = sorted(set(layout) ^ set(valid))
    if wrong:
        raise ValueError(
            f"a placement layout has the fields {', '.join(valid)}; unknown or missing: {', '.join(wrong)}"
        )
    return PlacementLayout(**layout)


def placement_layout(game_id: str) -> PlacementLayout | None:
    """The placement layout of ``game_id``'s observation, as its declaration gives it
    (``agents={"ppo": {"placement": {...}}}``), or None for games without one."""
    game = declaration(game_id)
    return read_ppo_settings(game.agents.get(SETTINGS_KEY, {})) if game is not None else None


def split_inputs(layout: PlacementLayout, observations: np.ndarray):
    """``(per_cell [batch, cells, n], per_turn [batch, rotations, m])``: a placement's inputs to the
    item network are its cell's ``n`` values followed by its turn's ``m`` (the hand turned by r)."""
    b = observations.shape[0]
    c, rot = layout.cells, layout.rotations
    cells = observations[:, layout.cell_block : layout.cell_block + c * layout.cell_features]
    per_cell = np.concatenate(
        [cells.reshape(b, c, layout.cell_features)]
        + [observations[:, o : o + c][:, :, None] for o in layout.cell_extras],
        axis=2,
    )
    edges = observations[:, layout.hand_edges : layout.hand_edges + rot * layout.edge_values]
    extras = observations[:, list(layout.hand_extras)]
    per_turn = np.concatenate(
        [edges[:, layout.turned_edges], np.repeat(extras[:, None, :], rot, axis=1)], axis=2
    )
    return per_cell, per_turn


def layer_sizes(layout: PlacementLayout, obs_size: int, hidden: Sequence[int], item: Sequence[int]):
    """``[(inputs, outputs)]`` of every layer in the policy file's order: the trunk's layers,
    ``start``, ``context``, then the item network's layers."""
    trunk = list(zip([obs_size, *hidden], hidden))
    return (
        trunk
        + [(hidden[-1], layout.first_action), (hidden[-1], item[0])]
        + list(zip([layout.item_size, *item], [*item, 1]))
    )


def placement_logits(
    layout: PlacementLayout, layers, trunk_depth: int, observations: np.ndarray, activation
) -> np.ndarray:
    """Action logits ``[batch, actions]`` of a placement policy: ``layers`` in the policy file's order
    (see :func:`layer_sizes`; ``(weight [in, out], bias, ...)``), ``trunk_depth`` trunk layers,
    ``activation`` the hidden layers' function."""
    x = np.asarray(observations, np.float64)
    h = x
    for weight, bias, *_ in layers[:trunk_depth]:
        h = activation(h @ weight + bias)
    start = h @ layers[trunk_depth][0] + layers[trunk_depth][1]
    context = h @ layers[trunk_depth + 1][0] + layers[trunk_depth + 1][1]
    item = layers[trunk_depth + 2 :]
    per_cell, per_turn = split_inputs(layout, x)
    first, bias = item[0][0], item[0][1]
    split = per_cell.shape[2]
    # The first item layer on [cell, turn] is the sum of its two halves applied apart.
    z = (per_cell @ first[:split])[:, :, None, :] + (per_turn @ first[split:])[:, None, :, :]
    z = z + (bias + context)[:, None, None, :]
    for weight, bias, *_ in item[1:]:
        z = activation(z) @ weight + bias
    return np.concatenate([start, z.reshape(len(x), -1)], axis=1)
