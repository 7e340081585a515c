"""What ``check`` proves beyond names: the table a ruleset describes can be played.

The compiler calls :func:`check_playable` on every resolved ruleset, so the game core
(:mod:`engine.table.wall`, :mod:`engine.table.game`) can trust the geometry it reads from the
``table``, ``meld``, ``pattern``, ``indicator`` and ``payment`` declarations (RULES.md §1 Seats,
Wall, 精, Melds, Winning hands; §2 Win score). Each refusal is a
:class:`~engine.errors.RuleError` at the declaration at fault, with a hint saying what to
change. The checks, in order:

- the seats: declared, at least :data:`MIN_SEATS`, no seat twice;
- the numbers the table needs (``hand``, ``dealer_extra``, ``stack_height``, ``stacks_per_seat``,
  ``dead_wall``, ``dice``) are each one whole number in range; ``dealer_extra`` is 1, the one
  tile every other seat draws on its turn (a seat plays by drawing one tile and discarding one,
  so a complete hand is ``hand + 1``); ``deal`` adds up to ``hand``;
- the wall: ``seats × stacks_per_seat × stack_height`` is the number of tiles the ``suit`` and
  ``honours`` declarations make; the deal and the dead wall leave at least one tile to draw;
- the dice: a throw of ``dice`` dice (each 1 … :data:`DIE_FACES`) counts no further than a
  seat's wall (``break_wall``) and no further than the stacks left after the deal
  (indicators counted from the tail), and an indicator right of the tail stack is not the head;
- the indicators: one placed relative to another names an indicator on the wall declared
  before it, and ``under`` never goes below a stack's bottom tile;
- the melds: every chow and pung has as many tiles as a set (the smallest undeclared set
  shape), every kong one more; each meld's shapes give at most :data:`MAX_TEMPLATES` tile sets;
- the patterns: each fits a complete hand (``sets N`` of the set size plus the pair, ``pairs
  N``, ``rotten`` at most one tile of a kind), and a complete hand is not a whole number of
  sets (a seat that claims always keeps a tile to discard);
- the win tables: the count vectors the win check's tables visit, summed over the patterns
  and the distinct tile groups, are at most :data:`~engine.lang.limits.MAX_TABLE_VECTORS`
  (:func:`check_table_sizes`), so a file that passes builds its tables and plays in bounded time;
- the payments: for every way a hand can be won (discard, self-draw, kong replacement, robbed
  kong when ``rob_kong`` is declared) and every value of the facts the payment conditions test,
  some payment applies; a drawn hand's payer is not the discarder (there is none).
"""
from __future__ import annotations

import itertools
from math import comb
from typing import NamedTuple, cast

from engine.errors import Location, RuleError
from engine.lang import flow as FLOW
from engine.lang.expr import ExprCache
from engine.lang.facts import BY_FACTS
from engine.lang.limits import MAX_TABLE_VECTORS
from engine.lang.ruleset import (
    BinOp,
    BoolOp,
    Cmp,
    Decl,
    Expr,
    Neg,
    Not,
    Num,
    Pattern,
    PatternIs,
    Ruleset,
    Var,
)

DIE_FACES = 6  # a die, not a rule: how many dice a throw uses is the rule file's `table dice`
MIN_SEATS = 2  # a discard needs someone to claim it and a win someone to pay it
MAX_TEMPLATES = 20_000  # tile sets one meld may make (distinct N in a big group explodes)
MAX_PAYMENT_CASES = 50_000  # fact combinations tried when proving the payments cover every win

# the numbers a table needs: name → (smallest value, what it is)
TABLE_NUMBERS = {
    "hand": (1, "the tiles each seat holds after the deal"),
    "dealer_extra": (0, "the extra tile the dealer takes (a complete hand is hand + 1)"),
    "stack_height": (1, "tiles in a stack (墩)"),
    "stacks_per_seat": (1, "stacks in front of each seat: one number, or one per seat in seat order"),
    "dead_wall": (0, "stacks left undrawn when the hand is drawn (荒庄)"),
    "dice": (1, "dice in a throw"),
}


class _Fail:
    """Builds positioned errors for one ruleset."""

    def __init__(self, rs: Ruleset, texts: dict[str, str]):
        self.rs, self.texts = rs, texts

    def at(self, decl: Decl | None, path: str | None, message: str, hint: str | None = None,
           related: list[tuple[str, Location]] | None = None) -> RuleError:
        if decl is None:
            return RuleError(message, Location(self.rs.file, 1, 1), hint=hint, related=related or [])
        o = decl.origin
        return RuleError(message, Location(o.file, o.line, o.column), hint=hint, related=related or [],
                         source_text=self.texts.get(path or ""))


def seat_stacks(rs: Ruleset) -> list[int]:
    """Stacks (墩) in front of each seat, in seat order: ``table stacks_per_seat = N`` gives every
    seat N; ``= N1 N2 …`` (one per seat) a wall that seats do not share equally (3 seats on 136
    tiles: ``23 23 22``). Assumes :func:`check_playable` has passed."""
    seats = len(rs.table["seats"].values)
    values = [int(v) for v in rs.table["stacks_per_seat"].values]
    return values * seats if len(values) == 1 else values


def same_size(rs: Ruleset, kind: str) -> int | None:
    """Tiles in a pung / kong: the ``same N`` shape of the ruleset's meld of that kind (None
    when it declares none)."""
    for m in rs.melds.values():
        if m.meld_kind == kind:
            for sh in m.shapes:
                if sh.type == "same":
                    return sh.size
    return None


def _loc(decl: Decl) -> Location:
    return Location(decl.origin.file, decl.origin.line, decl.origin.column)


def _stacks_hint(total: int, height: int, seats: int) -> str:
    """How to write ``table stacks_per_seat`` for ``total`` tiles: one number when the stacks
    share equally, else one per seat (the first seats one more)."""
    if total % height:
        return f"the tiles ({total}) must make whole stacks of {height}: change table stack_height"
    stacks = total // height
    if stacks % seats == 0:
        return f"write `table stacks_per_seat = {stacks // seats}`"
    q, r = divmod(stacks, seats)
    return f"write `table stacks_per_seat = {' '.join(str(q + (i < r)) for i in range(seats))}` (one per seat)"


def check_playable(rs: Ruleset, texts: dict[str, str] | None = None) -> None:
    """Raise :class:`RuleError` unless a hand of ``rs`` can be dealt, played and paid.

    ``texts`` maps a declaration's path (``table.hand``) to the text of the file it is written
    in, for the error's source line. See the module docstring for what is checked.
    """
    fail = _Fail(rs, texts or {})
    t = rs.table
    # ---- seats
    seats_decl = t.get("seats")
    if seats_decl is None:
        raise fail.at(None, None, "the ruleset declares no `table seats`", "add `table seats = E S W N`")
    seats = [str(v) for v in seats_decl.values]
    if len(seats) < MIN_SEATS:
        raise fail.at(seats_decl, "table.seats", f"table seats names {len(seats)} seat(s); a table needs at least "
                      f"{MIN_SEATS}", "name each seat in play order, e.g. `table seats = E S W N`")
    dup = next((s for i, s in enumerate(seats) if s in seats[:i]), None)
    if dup is not None:
        raise fail.at(seats_decl, "table.seats", f"table seats names seat {dup} twice",
                      "give every seat its own name")
    # ---- numbers
    n: dict[str, int] = {}
    for name, (low, what) in TABLE_NUMBERS.items():
        d = t.get(name)
        if d is None:
            raise fail.at(None, None, f"the ruleset declares no `table {name}` ({what})",
                          f"add `table {name} = N`")
        v = d.values
        if name == "stacks_per_seat" and len(v) == len(seats) > 1 and all(isinstance(x, int) for x in v):
            if min(cast(list[int], v)) < low:
                raise fail.at(d, f"table.{name}", f"table {name}: every seat needs at least {low} stack")
            n[name] = min(cast(list[int], v))  # the dice count along the shortest wall
            continue
        if len(v) != 1 or not isinstance(v[0], int):
            raise fail.at(d, f"table.{name}", f"table {name} must be one whole number ({what})",
                          f"write `table {name} = N`")
        if v[0] < low:
            raise fail.at(d, f"table.{name}", f"table {name} = {v[0]}: it must be at least {low} ({what})")
        n[name] = v[0]
    hand, height, spp = n["hand"], n["stack_height"], n["stacks_per_seat"]
    if n["dealer_extra"] != 1:
        raise fail.at(t["dealer_extra"], "table.dealer_extra",
                      f"table dealer_extra = {n['dealer_extra']}: the dealer must start with one tile more than "
                      "the others, the tile each other seat draws on its turn",
                      "write `table dealer_extra = 1` (a complete hand is hand + 1: change `table hand` instead)")
    deal = t.get("deal")
    if deal is not None:
        chunks = deal.values
        if not chunks or any(not isinstance(c, int) for c in chunks):
            raise fail.at(deal, "table.deal", "table deal must be whole numbers (tiles per seat per round)",
                          f"e.g. `table deal = {hand}`")
        deal_total = sum(cast(list[int], chunks))  # whole numbers: checked just above
        if deal_total != hand:
            raise fail.at(deal, "table.deal",
                          f"table deal {' '.join(map(str, chunks))} adds up to {deal_total}, not table hand = {hand}",
                          "make the rounds add up to the hand, e.g. `table deal = "
                          + " ".join(map(str, _deal_example(chunks, hand))) + "`",
                          related=[("table hand is declared here", _loc(t["hand"]))])
    # ---- wall
    total = sum((s.high - s.low + 1) * s.copies for s in rs.suits.values()) + \
        sum(len(h.tiles) * h.copies for h in rs.honours.values())
    per_seat = seat_stacks(rs)
    if sum(per_seat) * height != total:
        shown = (f"{len(seats)} seats × {spp} stacks" if len(set(per_seat)) == 1
                 else f"{' + '.join(map(str, per_seat))} stacks")
        raise fail.at(t["stacks_per_seat"], "table.stacks_per_seat",
                      f"the wall is {shown} × {height} tiles = {sum(per_seat) * height} "
                      f"tiles, but the suits and honours make {total}", _stacks_hint(total, height, len(seats)))
    stacks = total // height
    dealt = len(seats) * hand + n["dealer_extra"]
    dead = n["dead_wall"] * height
    if dealt >= total:
        raise fail.at(t["hand"], "table.hand", f"the deal takes {dealt} tiles ({len(seats)} seats × {hand} + "
                      f"{n['dealer_extra']}), but the wall has {total}", "deal a smaller hand or declare more tiles")
    if dealt + dead >= total:
        raise fail.at(t["dead_wall"], "table.dead_wall",
                      f"the deal ({dealt} tiles) and the dead wall ({n['dead_wall']} stacks = {dead} tiles) leave no "
                      f"tile to draw from a wall of {total}", f"keep the dead wall below {(total - dealt) // height} stacks")
    undealt = stacks - -(-dealt // height)  # stacks no seat's hand was dealt from
    # ---- dice
    dice = n["dice"]
    top = dice * DIE_FACES
    method = (FLOW.policy(rs, "break_wall") or {"method": ("two_rolls",)})["method"][0]
    reach = top if method == "two_rolls" else DIE_FACES
    if reach > spp:
        raise fail.at(t["dice"], "table.dice",
                      f"the {method} break counts up to {reach} stacks along a seat's wall, but a seat has "
                      f"{spp} (table stacks_per_seat)", "throw fewer dice or build longer walls",
                      related=[("table stacks_per_seat is declared here", _loc(t["stacks_per_seat"]))])
    # ---- indicators: (fewest, most) stacks from the tail, level in the stack
    placed: dict[str, tuple[int, int, int] | None] = {}
    after_flips: set[str] = set()
    picked = [ind for ind in rs.indicators.values() if ind.picked]
    if len(picked) > 1:
        raise fail.at(picked[1], f"indicator.{picked[1].name}", f"indicator {picked[1].name}: only one indicator "
                      f"is picked by each seat (indicator {picked[0].name} is already)", "keep one")
    for name, ind in rs.indicators.items():
        pos, path = ind.position, f"indicator.{name}"
        if pos.type == "stack_top":
            placed[name] = (dice, top, 0) if pos.end == "tail" else None
            if pos.end == "tail" and top > undealt:
                raise fail.at(ind, path, f"indicator {name}: the dice count up to {top} stacks from the tail, but "
                              f"only {undealt} stacks are left after the deal",
                              "throw fewer dice, or deal fewer tiles from a bigger wall")
            continue
        if pos.type in ("each_tile", "next_draw"):  # of the hands, or turned at the end: not on the wall at the deal
            placed[name] = None
            continue
        if pos.type == "flips":
            sums = dice * (DIE_FACES - 1) + 1  # the sums a throw can make
            if pos.per_sum is not None and (pos.count or 0) > pos.per_sum * sums:
                raise fail.at(ind, path, f"indicator {name}: {pos.count} flips, but {dice} dice make {sums} sums and "
                              f"each turns at most {pos.per_sum}", f"flip at most {pos.per_sum * sums} tiles")
            uses = pos.per_sum if pos.per_sum is not None else pos.count or 0
            if uses * top > total - dealt:
                raise fail.at(ind, path, f"indicator {name}: throw {uses} of a sum of {top} counts {uses * top} "
                              f"tiles from the {pos.end}, past the {total - dealt} left after the deal",
                              "throw fewer dice, allow fewer uses of a sum, or deal fewer tiles from a bigger wall")
            placed[name] = None
            continue
        if pos.type == "previous":
            if pos.ref not in rs.indicators:
                raise fail.at(ind, path, f"indicator {name} follows {pos.ref!r}, which is not an indicator")
            placed[name] = None
            continue
        if pos.ref not in placed or pos.ref == name:
            raise fail.at(ind, path, f"indicator {name} is placed {pos.type} {pos.ref}, which is not placed before it",
                          f"declare indicator {pos.ref} on the wall before {name}")
        ref = placed[pos.ref]
        if ref is None and (rs.indicators[pos.ref].position.type == "flips" or pos.ref in after_flips):
            placed[name] = None  # placed beside the flipped tile once a seat stops the flips
            after_flips.add(name)
            continue
        if ref is None and rs.indicators[pos.ref].position.type == "each_tile":
            raise fail.at(ind, path, f"indicator {name} is placed {pos.type} {pos.ref}, whose tile is not on the "
                          "wall at the deal (made of the hands, or chosen by flips)",
                          "place it relative to an indicator on the wall")
        if rs.indicators[pos.ref].position.type == "next_draw":
            raise fail.at(ind, path, f"indicator {name} is placed {pos.type} {pos.ref}, which is turned only when "
                          "the hand ends", "place it relative to an indicator placed at the deal")
        if ref is None and rs.indicators[pos.ref].position.type == "previous":
            raise fail.at(ind, path, f"indicator {name} is placed {pos.type} {pos.ref}, which is not on this hand's "
                          "wall (it is the previous hand's)", "place it relative to an indicator on the wall")
        if ref is None:  # counted from the head: inside the deal, relative places are as good
            placed[name] = None
            lv = 0
        else:
            lo, hi, lv = ref
        if pos.type == "under":
            lv += 1
            if lv >= height:
                raise fail.at(ind, path, f"indicator {name} is under {pos.ref}, below the bottom of a stack of "
                              f"{height} tile(s)", "place it left of or right of instead, or build taller stacks")
        if ref is None:
            continue
        if pos.type == "left":
            lo, hi = lo + 1, hi + 1
        elif pos.type == "right":
            lo, hi = lo - 1, hi - 1
        if lo < 1:
            raise fail.at(ind, path, f"indicator {name} is right of {pos.ref}, which can be the tail stack: right "
                          "of it is the head of the wall, dealt already", "throw more dice, or place it left of")
        if hi > undealt:
            raise fail.at(ind, path, f"indicator {name} can be {hi} stacks from the tail, but only {undealt} stacks "
                          "are left after the deal", "deal fewer tiles from a bigger wall")
        placed[name] = (lo, hi, lv)
    # ---- melds
    set_shapes = [(m, sh) for m in rs.melds.values() if m.meld_kind != "pair" for sh in m.shapes]
    undeclared = [sh.size for _, sh in set_shapes if not sh.declared]
    set_size = min(undeclared) if undeclared else 0
    kinds = sum(s.high - s.low + 1 for s in rs.suits.values()) + sum(len(h.tiles) for h in rs.honours.values())
    for m in rs.melds.values():
        count = 0
        for sh in m.shapes:
            if sh.type == "same":
                count += kinds  # one per tile kind
            else:
                for k in (size for g in sh.groups for size in _group_sizes(rs, g)):
                    count += comb(k, sh.size) if sh.type == "distinct" else max(k - sh.size + 1, 0)
            if m.meld_kind in ("chow", "pung") and set_size and sh.size != set_size:
                raise fail.at(m, f"meld.{m.name}", f"meld {m.name}: a {m.meld_kind} of {sh.size} tiles, but a set "
                              f"has {set_size}", f"make every chow and pung {set_size} tiles (a kong {set_size + 1})")
            if m.meld_kind == "kong" and set_size and sh.size != set_size + 1:
                raise fail.at(m, f"meld.{m.name}", f"meld {m.name}: a kong of {sh.size} tiles, but a set has "
                              f"{set_size}: a kong is a set plus the tile its replacement draw makes up for",
                              f"write `same {set_size + 1} declared`")
        if count > MAX_TEMPLATES:
            raise fail.at(m, f"meld.{m.name}", f"meld {m.name} makes {count} tile sets; at most {MAX_TEMPLATES}",
                          "use smaller shapes or smaller groups")
    # ---- patterns
    pair_sizes = [sh.size for m in rs.melds.values() if m.meld_kind == "pair" for sh in m.shapes]
    pair_size = pair_sizes[0] if pair_sizes else 0
    complete = hand + n["dealer_extra"]
    misfits = []
    for p in rs.patterns.values():
        size = _pattern_size(p, set_size, pair_size, complete, kinds)
        if size != complete:
            misfits.append((p, size))
    if rs.patterns and len(misfits) == len(rs.patterns):
        raise fail.at(t["hand"], "table.hand", f"no pattern makes a complete hand of {complete} tiles (table hand "
                      f"{hand} + dealer_extra {n['dealer_extra']})",
                      _misfit_hint(misfits[0]),
                      related=[(f"pattern {p.name} is declared here", _loc(p)) for p, _ in misfits[:3]])
    if misfits:
        p, size = misfits[0]
        raise fail.at(p, f"pattern.{p.name}", f"pattern {p.name} never fits a complete hand of {complete} tiles",
                      _misfit_hint(misfits[0]))
    if set_size and complete % set_size == 0:
        raise fail.at(t["hand"], "table.hand", f"a complete hand of {complete} tiles is {complete // set_size} whole "
                      f"sets of {set_size}: a seat that claims its last set has no tile left to discard",
                      "a hand of sets needs its pair (e.g. 4 sets + a pair: table hand = 13)")
    # ---- win tables
    check_table_sizes(rs, fail, complete)
    # ---- payments
    _check_payments(rs, fail)
    for ex in rs.exhaustive.values():
        if ex.payer in ("discarder", "robbed"):
            raise fail.at(ex, f"exhaustive.{ex.name}", f"exhaustive {ex.name}: a drawn hand has no {ex.payer} to pay",
                          "write `dealer pays N each`, `each pays N each` or `others pays N each`")


def _deal_example(chunks: list[str | int], hand: int) -> list[int]:
    out = [c for c in chunks if isinstance(c, int) and c > 0]
    while out and sum(out) > hand:
        out.pop()
    if sum(out) < hand:
        out.append(hand - sum(out))
    return out or [hand]


def _group_sizes(rs: Ruleset, name: str) -> list[int]:
    """The number of kinds of each group a shape's group name stands for."""
    if name == "suits":
        return [s.high - s.low + 1 for s in rs.suits.values()]
    if name == "honours":
        return [len(h.tiles) for h in rs.honours.values()]
    if name in rs.suits:
        return [rs.suits[name].high - rs.suits[name].low + 1]
    return [len(rs.honours[name].tiles)] if name in rs.honours else []


def _pattern_size(p: Pattern, set_size: int, pair_size: int, complete: int, kinds: int) -> int | str:
    """The tiles a pattern's complete hand holds, or why it cannot be the complete hand."""
    size = 0
    for c in p.components:
        if c.type == "sets":
            size += c.count * set_size
        elif c.type == "pair":
            size += pair_size
        elif c.type == "pairs":
            size += c.count * pair_size
        else:  # rotten: one tile of a kind each
            return complete if complete <= kinds else f"a rotten hand holds one tile of each kind; there are {kinds}"
    return size


def _misfit_hint(misfit: tuple[Pattern, int | str]) -> str:
    p, size = misfit
    if isinstance(size, str):
        return size
    return f"pattern {p.name} makes {size} tiles (sets × set size + pairs × pair size)"


# ---- win tables ------------------------------------------------------------------------------------


def table_vectors(pattern: Pattern, kinds: int, complete: int) -> int:
    """The count vectors the win check visits for one pattern on one tile group of ``kinds``
    kinds, in a complete hand of ``complete`` tiles (engine/core/wintables/): a ``sets`` pattern
    every vector of at most ``complete`` tiles, C(kinds + complete, kinds); a ``pairs N``
    pattern the vectors of at most N pairs, C(kinds + N, kinds); a ``rotten`` pattern every
    subset of the kinds, 2**kinds. An upper bound, counted without building anything."""
    kinds_of = {c.type for c in pattern.components}
    if "rotten" in kinds_of:
        return int(2 ** kinds)
    if "sets" in kinds_of:
        return comb(kinds + complete, kinds)
    pairs = sum(c.count for c in pattern.components if c.type == "pairs")
    return comb(kinds + pairs, kinds)


class GroupTables(NamedTuple):
    """One tile group's share of the win tables: the declaration, its path (``suit.m``), its
    kinds, and the count vectors its tables visit over all the patterns."""

    decl: Decl
    path: str
    kinds: int
    vectors: int


def group_tables(rs: Ruleset, complete: int) -> list[GroupTables]:
    """Each distinct tile group of ``rs`` (groups of one shape — same ranks and copies — share
    their tables: the first stands for them) with the count vectors :func:`table_vectors`
    gives it over every pattern, for a complete hand of ``complete`` tiles."""
    groups: list[tuple[Decl, str, tuple[object, ...], int]] = [
        (s, f"suit.{s.name}", ("suit", s.low, s.high, s.copies), s.high - s.low + 1) for s in rs.suits.values()]
    groups += [(h, f"honours.{h.name}", ("honours", h.name), len(h.tiles)) for h in rs.honours.values()]
    shapes: dict[tuple[object, ...], GroupTables] = {}
    for decl, path, shape, kinds in groups:
        if shape not in shapes:
            shapes[shape] = GroupTables(decl, path, kinds, sum(table_vectors(p, kinds, complete)
                                                               for p in rs.patterns.values()))
    return list(shapes.values())


def check_table_sizes(rs: Ruleset, fail: _Fail, complete: int) -> None:
    """Raise :class:`RuleError` when the win tables of ``rs`` would visit more than
    :data:`MAX_TABLE_VECTORS` count vectors in all (:func:`group_tables`). The error is at the
    group that counts most, with the most kinds it could have (RULES.md §1 Winning hands;
    docs/language.md, Limits)."""
    groups = group_tables(rs, complete)
    total = sum(g.vectors for g in groups)
    if total <= MAX_TABLE_VECTORS:
        return
    worst = max(groups, key=lambda g: g.vectors)
    rest = total - worst.vectors
    fits = worst.kinds
    while fits > 0 and rest + sum(table_vectors(p, fits, complete) for p in rs.patterns.values()) > MAX_TABLE_VECTORS:
        fits -= 1
    suit = worst.path.startswith("suit.")
    what, unit = (f"suit {worst.decl.name}", "ranks") if suit else (f"honours {worst.decl.name}", "tiles")
    raise fail.at(worst.decl, worst.path, f"the win tables would visit {total:,} count vectors; at most "
                  f"{MAX_TABLE_VECTORS:,} ({what}: {worst.kinds} {unit}, {worst.vectors:,} of them, for "
                  f"{len(rs.patterns)} pattern(s) and a complete hand of {complete} tiles)",
                  (f"give {what} at most {fits} {unit}" if fits else f"split {what} into smaller groups")
                  + ", or deal a smaller hand (a win table grows with the kinds of a group and the tiles of a hand)")


# ---- payments ---------------------------------------------------------------------------------------

def _walk(expr: Expr, names: set[str], nums: set[int], patterns: list[str]) -> None:
    if isinstance(expr, Num):
        nums.add(expr.value)
    elif isinstance(expr, Var):
        names.add(expr.name)
    elif isinstance(expr, PatternIs):
        patterns.append(expr.pattern)
    elif isinstance(expr, (Not, Neg)):
        _walk(expr.arg, names, nums, patterns)
    elif isinstance(expr, BoolOp):
        for a in expr.args:
            _walk(a, names, nums, patterns)
    elif isinstance(expr, (Cmp, BinOp)):
        _walk(expr.left, names, nums, patterns)
        _walk(expr.right, names, nums, patterns)


def _check_payments(rs: Ruleset, fail: _Fail) -> None:
    """Some payment applies to every win the game can make (the scorer's _payment never fails)."""
    names: set[str] = set()
    nums: set[int] = set()
    pats: list[str] = []
    for p in rs.payments.values():
        _walk(p.when, names, nums, pats)
    near = {v + d for v in nums for d in (-1, 0, 1)}
    values = {"wilds": sorted({0, 1} | {v for v in near if v >= 0}), "floor": sorted({1} | {v for v in near if v >= 1})}
    free = sorted(names - set(BY_FACTS["discard"]) - ({"wilds_used"} if "wilds" in names else set()))
    domains = [values.get(f, (False, True)) for f in free]
    patterns = list(rs.patterns) if pats else [None]
    evaluate = ExprCache()  # the scorer's evaluator: a payment applies here iff it applies there
    cases = len(patterns)
    for d in domains:
        cases *= len(d)
    if cases * len(BY_FACTS) > MAX_PAYMENT_CASES:
        return  # too many to try: the scorer still says which win no payment covers
    has_kong = any(m.meld_kind == "kong" for m in rs.melds.values())
    ways = ["discard", "self_draw"] + (["kong_draw"] if has_kong else []) + \
        (["rob_kong"] if has_kong and FLOW.policy(rs, "rob_kong") else [])
    for by in ways:
        for combo in itertools.product(*domains):
            env = dict(BY_FACTS[by], **dict(zip(free, combo)))
            if not _possible(env, by):
                continue
            if "wilds" in env:
                env["wilds_used"] = env["wilds"] > 0
            for pat in patterns:
                if any(evaluate(p.when)(env, pat) for p in rs.payments.values()):
                    continue
                shown = ", ".join(f"{k} = {v}" for k, v in zip(free, combo))
                last = list(rs.payments.values())[-1] if rs.payments else rs.base
                assert last is not None  # the checks before this one refuse a ruleset with no payment base
                path = f"payment.{last.name}"
                raise fail.at(last, path, f"no payment applies to a {by.replace('_', '-')} win"
                              + (f" when {shown}" if shown else "") + (f" read as pattern {pat}" if pat else ""),
                              f"add a payment for it, e.g. `payment NAME = each x1 when {_BY_FACT[by]}`")


_BY_FACT = {"discard": "discard", "self_draw": "self_drawn", "kong_draw": "after_kong", "rob_kong": "robbed_kong"}


def _possible(env: dict[str, int], by: str) -> bool:
    """Whether the facts can hold together in a win made ``by`` (as the game sets them)."""
    if env.get("discarder_is_dealer") and (by != "discard" or env.get("dealer_wins")):
        return False
    if env.get("first_turn"):
        dealer_self = by == "self_draw" and env.get("dealer_wins", True)
        dealer_discard = by == "discard" and env.get("discarder_is_dealer", True) and not env.get("dealer_wins")
        if not (dealer_self or dealer_discard):
            return False
    return True
