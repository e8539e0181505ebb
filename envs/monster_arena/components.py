"""Monster Arena's cards, loaded once from ``seeds/monster_arena/components.json``.

Every physical card gets an id: 0-11 the torso halves (U1-U6, L1-L6), 12-59 the
monster parts in the order of the data file, copies next to each other. The
kernels read the per-card tables below and never the JSON.
"""

import json

import numpy as np

from monster_zoo.seeds import game_dir

SEEDS_DIR = game_dir("monster_arena")
DATA = json.loads((SEEDS_DIR / "components.json").read_text(encoding="utf-8"))

MIN_PLAYERS = int(DATA["min_players"])
MAX_PLAYERS = int(DATA["max_players"])
DRAFT_TOKENS = int(DATA["draft_tokens"])
ROW_SIZE = int(DATA["row_size"])
DEALER_PRICE = int(DATA["dealer_pick_price"])
REFILL = int(DATA["refill_energy"])
ATTACH_COST = int(DATA["attach_cost"])
SPIKE_CAP = int(DATA["spiked_leg_cap"])
MAX_SLOTS = 3

# Ability codes (AR-30..AR-42 of rules.md); 0 is no ability.
AB_NONE = 0
ABILITY_NAMES = (
    "none",
    "insect_armor",
    "web_guard",
    "refill_six",
    "limb_claw",
    "pinch",
    "team_grip",
    "spikes",
    "venom",
    "wing_buffet",
    "roar",
    "aim",
    "saw",
    "grave_dig",
)
(
    _,
    AB_INSECT,
    AB_WEB,
    AB_REFILL6,
    AB_CLAW,
    AB_PINCH,
    AB_TEAM,
    AB_SPIKES,
    AB_VENOM,
    AB_WING,
    AB_ROAR,
    AB_AIM,
    AB_SAW,
    AB_GRAVE,
) = range(len(ABILITY_NAMES))

KIND_UPPER, KIND_LOWER, KIND_PART = 0, 1, 2
# Each ability in words (components.json), for help texts.
ABILITY_TEXT = dict(DATA["abilities"])


def _cards():
    """One row per physical card: (code, name, kind, slots, defense, cost, dice, mod, ability, ability_cost, limb)."""
    rows = []
    for t in DATA["torsos"]:
        kind = KIND_UPPER if t["half"] == "upper" else KIND_LOWER
        rows.append((t, kind))
    for p in DATA["parts"]:
        rows += [(p, KIND_PART)] * int(p["count"])
    return rows


_ROWS = _cards()
NUM_CARDS = len(_ROWS)
NUM_TORSOS = len(DATA["torsos"])
CARD_CODE = tuple(r["code"] for r, _ in _ROWS)
CARD_NAME = tuple(r["name"] for r, _ in _ROWS)
KIND = np.array([k for _, k in _ROWS], dtype=np.int32)
SLOTS = np.array([r["slots"] for r, _ in _ROWS], dtype=np.int32)
DEFENSE = np.array([r["defense"] for r, _ in _ROWS], dtype=np.int32)
# Attack cost; -1 for cards that cannot attack.
COST = np.array([-1 if r["cost"] is None else r["cost"] for r, _ in _ROWS], dtype=np.int32)
DICE = np.array([r["dice"] for r, _ in _ROWS], dtype=np.int32)
MOD = np.array([r["mod"] for r, _ in _ROWS], dtype=np.int32)
ABILITY = np.array([ABILITY_NAMES.index(r.get("ability", "none")) for r, _ in _ROWS], dtype=np.int32)
ABILITY_COST = np.array([r.get("ability_cost", 0) for r, _ in _ROWS], dtype=np.int32)
LIMB = np.array([1 if r.get("limb", False) else 0 for r, _ in _ROWS], dtype=np.int32)
MAX_DICE = int(DICE.sum())


def _labels():
    """Unique card names for text: torso codes as printed (U1), parts as code + copy (SA1, SA2...)."""
    seen = {}
    out = []
    for c in range(NUM_CARDS):
        code = CARD_CODE[c]
        if KIND[c] != KIND_PART:
            out.append(code)
            continue
        seen[code] = seen.get(code, 0) + 1
        out.append(f"{code}{seen[code]}")
    return tuple(out)


CARD_LABEL = _labels()
LABEL_TO_CARD = {label.lower(): c for c, label in enumerate(CARD_LABEL)}


def card(label: str) -> int:
    """The id of the card named ``label`` (``"U1"``, ``"SA3"``; case-insensitive)."""
    try:
        return LABEL_TO_CARD[label.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown card {label!r}; cards are {', '.join(CARD_LABEL)}") from None
