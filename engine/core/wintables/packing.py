"""How a count vector is one int, and how a table value holds two counts of wilds.

For one tile group (a suit, the winds, the dragons — whatever the ruleset declares) and one set
of allowed set templates, a table maps a group's count vector to the fewest wilds that complete
it into sets (``a``) and into sets plus the pair (``b``).

Packed keys: a count vector is an int with :data:`FIELD_BITS` bits per kind (kind ``i`` of the
group at bits ``FIELD_BITS*i``); the value is ``a | b << VALUE_BITS`` with :data:`NONE` for
"cannot". A whole hand packs the same way over all kinds (groups are contiguous kind ranges),
so a group's key is a shift and a mask of the hand's key.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

FIELD_BITS = 5  # bits per kind in a packed count vector: counts up to 15, plus a carry bit
FIELD_MASK = (1 << (FIELD_BITS - 1)) - 1  # the count part of a field (≤ 15)
MAX_PACKED_TILES = FIELD_MASK  # a hand of more concealed tiles goes to the recursive evaluator
VALUE_BITS = 5
ZERO_VALUE_BITS = 32  # a wild-free table's value: one field per pattern and an honour count
NONE = (1 << VALUE_BITS) - 1  # "cannot complete" in a table value
TABLE_VALUE_BITS = VALUE_BITS + VALUE_BITS  # a table value: the two fields a and b
MISSING = NONE | NONE << VALUE_BITS  # the value of a key with no entry: neither completes


def over_copies_masks(copies: Iterable[int]) -> tuple[int, int]:
    """(add, carry): ``(key + add) & carry`` is nonzero iff some count exceeds its copies."""
    add = carry = 0
    for p, c in enumerate(copies):
        add |= (FIELD_MASK - min(c, FIELD_MASK)) << (FIELD_BITS * p)
        carry |= (FIELD_MASK + 1) << (FIELD_BITS * p)
    return add, carry


def vectors(copies: Iterable[int]) -> int:
    """How many count vectors a group with these copies has: no table of it holds more entries."""
    return math.prod(min(c, FIELD_MASK) + 1 for c in copies)
