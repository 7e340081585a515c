"""The seed space of dealing, in one place: a hand is dealt from a seed 0 … ``SEED_SPACE`` − 1
(``mjrules play --seed``, a room's own seed, the environment's), and a match's hand seeds are
taken in it (:func:`engine.table.match.hand_seed`). The bound every seed given as input is held
to; in the lowest layer, apart, so that light modules (the command line's flags, the rooms'
caps) read it without importing the game."""
from __future__ import annotations

SEED_SPACE = 2**31  # seeds are 0 … 2**31 - 1
MAX_SEED = SEED_SPACE - 1
