"""One hand of play under a ruleset: wall, deal, 精 flip, turns, claims and settlements.

API::

    g = Game(ruleset, seed=7)
    while not g.over:
        seat = g.to_act()[0]
        g.apply(g.legal_actions(seat)[0])
    g.result.net()        # {seat: 子}

Every number and policy comes from the ruleset: the ``table`` parameters (seats, hand, deal,
stacks, dead wall, dice) and the ``flow`` policies of :mod:`engine.lang.flow` (RULES.md §1).

Phases: ``draw`` (the seat to play must draw: from the head, or from the tail after a kong),
``act`` (the seat holds a complete count: discard, declare a kong, or win), ``claim`` (after a
discard every seat that may claim answers: win, kong, pung, chow or pass; then the highest
claim, nearest the discarder, is taken), ``rob`` (after an added kong, seats that can win on it
answer), ``over``. An illegal action raises :class:`~engine.errors.IllegalAction` and changes
nothing. Randomness is only the wall's shuffle and the dice, both kept in the record.
"""
from __future__ import annotations

import random
from typing import Unpack

from engine.core.hands import MeldTiles
from engine.core.scoring import Ledger, Scorer, SeatHand, Snapshot, WinInfo
from engine.lang import flow as FLOW
from engine.lang.playable import DIE_FACES, same_size, seat_stacks
from engine.lang.ruleset import Ruleset
from engine.table.actions import (
    ACT,
    CLAIM,
    DRAW,
    FLIP,
    OVER,
    PICK,
    ROB,
    Action,
    Claim,
    Lock,
    check_shape,
    seat_actions,
    tile_actions,
)
from engine.table.actions import KINDS as KINDS  # re-exported: the game's public names
from engine.table.actions import HandResult as HandResult
from engine.table.ending import close_hand
from engine.table.events import Event, EventFields
from engine.table.flips import Flips
from engine.table.picks import Picks
from engine.table.placing import next_draw_positions, relative_positions
from engine.table.turn import Offer, claimed_meld, claims_on, own_turn, refusal, robbers, taken_at_once, taken_claim
from engine.table.wall import build_wall, roll
from engine.table.wins import Wins

__all__ = ["ACT", "CLAIM", "DRAW", "FLIP", "KINDS", "OVER", "PICK", "ROB", "Action", "Game", "HandResult", "Lock"]

class Game:
    """One hand. ``seed`` shuffles the wall and throws the dice; ``ring`` and ``dice`` (a record)
    or ``wall`` (a linear wall, head first, as scripted scenarios give) fix them instead.

    Raises :class:`~engine.errors.MjError` for a scripted or recorded wall that is not the
    ruleset's tiles; the table itself was proved playable when the ruleset was compiled.

    The state changes only through :meth:`apply`: the actions :meth:`legal_actions` offers are
    kept until the next applied action, and :meth:`apply` takes one of them without checking it
    again (any other action is checked in full, as ever).
    """

    def __init__(self, ruleset: Ruleset, seed: int | None = None, *, dealer: str | None = None, floor: int = 1,
                 ring: list[int] | None = None, wall: list[int] | None = None,
                 dice: list[tuple[int, ...]] | None = None, previous_indicators: dict[str, int] | None = None,
                 scorer: Scorer | None = None) -> None:
        self.rs = ruleset
        self.scorer = scorer or Scorer(ruleset)
        self.tiles = self.scorer.tiles
        s = self.scorer
        # the table's geometry (seats, deal, wall) was proved playable by the compiler
        # (engine.lang.playable), so it is read here without checking again
        self.seats: list[str] = [str(v) for v in self.rs.table["seats"].values]
        self.dealer = dealer or self.seats[0]
        self.floor = floor
        self.seed = seed
        self.rng = random.Random(seed)
        self.hand_size = s.rules.table_int("hand")
        self.dealer_extra = s.rules.table_int("dealer_extra")
        self.height = s.rules.table_int("stack_height")
        self.dead_tiles = s.rules.table_int("dead_wall") * self.height
        self.n_dice = s.rules.table_int("dice")
        deal = self.rs.table.get("deal")
        self.deal_chunks = [int(v) for v in deal.values] if deal else [self.hand_size]
        self.policies = {name: FLOW.policy(self.rs, name) for name in FLOW.POLICIES}
        self.meld_size = {kind: same_size(self.rs, kind) for kind in ("pung", "kong")}
        self.previous_indicators = dict(previous_indicators or {})
        self.dice_rolls: list[tuple[int, ...]] = list(dice or [])
        self._dice_next = 0
        self.ring: list[int] | None = None
        self.events: list[Event] = []  # what happened, in order (events.py)
        self._build_wall(ring, wall)
        self.hands: dict[str, SeatHand] = {x: SeatHand() for x in self.seats}
        self.discards: dict[str, list[int]] = {x: [] for x in self.seats}
        self.actions: list[Action] = []
        self.locks: dict[str, Lock] = {}
        self.phase = DRAW
        self.current = self.dealer
        self.last_drawn: int | None = None
        self.from_tail = False
        self.must_discard = False
        self.pending: dict[str, Claim] = {}
        self.last_discard: tuple[str, int] | None = None
        self.robbed: tuple[str, int] | None = None
        self.discard_count = 0
        self.interrupted = False  # a claim or kong has happened (no more 天胡/地胡/抄庄)
        self.first_discards: list[tuple[str, int]] = []  # (seat, tile) of the first go-around, until a claim
        self.follow_first = False
        self.result: HandResult | None = None
        self.parts: list[tuple[str, str, Ledger]] = []
        self.indicators: dict[str, int] = {}
        self.indicator_positions: dict[str, int] = {}
        self.picked = None if s.rules.picked is None else Picks(s.rules.picked, self.seats, len(self.tiles))
        flipped = next(((n, i.position) for n, i in self.rs.indicators.items() if i.position.type == "flips"), None)
        self.flips = None if flipped is None else Flips(flipped[0], int(flipped[1].count or 0), str(flipped[1].end),
                                                        tuple(range(self.n_dice, self.n_dice * DIE_FACES + 1)),
                                                        flipped[1].per_sum)
        # the loop's caches: count vectors kept with the hands, the actions last offered (trusted
        # by apply until the state changes) and each tile's chow partners
        self.counts: dict[str, list[int]] = {x: [0] * len(self.tiles) for x in self.seats}
        self._version = 0  # bumped by every applied action
        self._offered: Offer | None = None  # what legal_actions last offered the seat to act
        self._seat_index = {x: i for i, x in enumerate(self.seats)}
        # immutable actions built once and offered again and again (apply knows them by identity)
        self.plain_actions = {x: seat_actions(x) for x in self.seats}  # (shared by every game: actions.py)
        self.draw_actions = {x: self.plain_actions[x].draw for x in self.seats}  # (a dict read: the draw is asked every turn)
        self.discard_actions = {x: tile_actions(x, "discard", len(self.tiles)) for x in self.seats}
        self.after = {x: [self.seats[(i + k) % len(self.seats)] for k in range(len(self.seats))]
                       for i, x in enumerate(self.seats)}
        self._hand_version = dict.fromkeys(self.seats, 0)  # bumped when a seat's tiles change
        self.wins = Wins(self)  # may a seat win now, and on what (wins.py)
        self._deal()

    # ---- setup ---------------------------------------------------------------------------------
    def _roll(self) -> tuple[int, ...]:
        if self._dice_next < len(self.dice_rolls):
            r = self.dice_rolls[self._dice_next]
        else:
            r = roll(self.rng, self.n_dice)
            self.dice_rolls.append(r)
        self._dice_next += 1
        return r

    def _build_wall(self, ring: list[int] | None, linear: list[int] | None) -> None:
        method = str((self.policies["break_wall"] or {"method": ("two_rolls",)})["method"][0])
        built = build_wall([k.index for k in self.tiles.kinds for _ in range(k.copies)], self.height, ring=ring,
                           linear=linear, shuffle=self.rng.shuffle, throw=self._roll, method=method,
                           dealer_index=self.seats.index(self.dealer), seat_stacks=seat_stacks(self.rs))
        self.wall, self.ring = built.wall, built.ring
        if built.ring is not None:
            self._log("break", rolls=[list(r) for r in built.rolls], stack=built.stack)

    def _deal(self) -> None:
        order = self.seats[self.seats.index(self.dealer):] + self.seats[: self.seats.index(self.dealer)]
        for chunk in self.deal_chunks:
            for seat in order:
                for _ in range(chunk):
                    self._add(seat, self.wall.draw_head()[0])
        for _ in range(self.dealer_extra):
            t, _ = self.wall.draw_head()
            self._add(self.dealer, t)
            self.last_drawn = t
        self._log("deal", hands={s: self.tiles.format(h.concealed) for s, h in self.hands.items()})
        self._flip_indicators()
        self._set_wilds()
        for part, kind, lg in self.scorer.after_deal_parts(self.score_snapshot()):  # on the dealt hands
            if kind is not None:  # one the hands make (照镜子), a family's member
                self._log("indicator", name=part, tile=self.tiles.code(kind))
            self.parts.append(("after_deal", part, lg))
            self._log("settle", part=part, net=lg.net(self.seats))
        self.phase, self.current = ACT, self.dealer
        if self.picked is not None:  # each seat picks its own 精 first, in play order (picks.py)
            self.picked.asking, self.phase = list(self.after[self.dealer]), PICK
        elif self.flips is not None:
            self._flip()

    def _do_pick(self, a: Action) -> None:
        assert a.tile is not None and self.picked is not None, "a pick names its tile (checked before)"
        self._log("pick", seat=a.seat)  # the kind stays the seat's own until the end
        self.current = self.picked.take(a.seat, a.tile) or self.dealer
        if not self.picked.asking:
            self._set_wilds()
            self.phase = ACT
            if self.flips is not None:
                self._flip()

    def _set_wilds(self) -> None:
        """The wild kinds every seat shares (``wild``) and each seat's own (``wilds``; picks.py)."""
        self.wild, self.wilds = Picks.wilds(self.scorer, self.score_snapshot(), self.seats)

    def _flip(self) -> None:
        """Turn and settle flips until a seat may stop one (phase ``flip``), else draw the hand (flips.py)."""
        fl = self.flips
        assert fl is not None, "only a ruleset with flips flips"
        while not fl.done:
            tile, position, dice = fl.turn(self.wall, self._roll)
            part, dealt = f"{fl.name}@{fl.made}", self.score_snapshot()
            self._log("flip", name=part, tile=self.tiles.code(tile), position=position, dice=list(dice))
            lg = self.scorer.settle_indicator(dealt, part, tile)
            self.parts.append(("after_deal", part, lg))
            self._log("settle", part=part, net=lg.net(self.seats))
            fl.asking = self.scorer.settlement.flip_stoppers(dealt, fl.name, tile)
            if fl.asking:
                self.phase, self.current = FLIP, fl.asking[0]
                return
        self._end(None)

    def _do_stop(self, a: Action) -> None:
        assert self.flips is not None, "a stop answers a flip"
        tile, position = self.flips.stop(a.seat)
        self.indicators[self.flips.name], self.indicator_positions[self.flips.name] = tile, position
        self._log("indicator", name=self.flips.name, tile=self.tiles.code(tile), position=position, stopped_by=a.seat)
        placed = relative_positions(self.rs, self.wall, self.indicator_positions)  # beside the stopped tile
        self._place(placed)
        for name in (n for n in placed if self.rs.indicators[n].settle == "after_deal"):
            self.parts.append(("after_deal", name, self.scorer.settle_indicator(self.score_snapshot(), name)))
        self._set_wilds()
        self.phase, self.current = ACT, self.dealer

    def _flip_indicators(self) -> None:
        for name, ind in self.rs.indicators.items():
            pos = ind.position
            if pos.type in ("each_tile", "flips"):  # not on the wall at the deal: made of the hands, or flipped
                continue
            if pos.type == "previous":
                if pos.ref in self.previous_indicators:
                    self.indicators[name] = self.previous_indicators[pos.ref]
                    self._log("indicator", name=name, tile=self.tiles.code(self.indicators[name]), previous=True)
                continue
            if pos.type == "next_draw":  # turned when the hand ends (placing.next_draw_positions)
                continue
            ref = self.indicator_positions.get(pos.ref) if pos.ref is not None else None
            p = self.wall.locate(pos.type, pos.end, ref, self._roll)
            if p is not None:
                self._place({name: p})

    # ---- views ------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """Whether the hand has ended (a win or 荒庄)."""
        return self.phase == OVER

    @property
    def live_remaining(self) -> int:
        """Tiles that can still be drawn from the head before the hand is drawn (荒庄)."""
        dead = self.dead_tiles
        grow = self.policies["dead_wall"]
        if grow is not None and grow["per_kong"][0]:
            kongs = sum(1 for h in self.hands.values() for m in h.melds if m.meld_kind == "kong")
            dead += int(grow["per_kong"][0]) * kongs * self.height
        return max(self.wall.remaining - dead, 0)

    def to_act(self) -> list[str]:
        """Seats that have an action to take now (several during a claim)."""
        if self.phase in (CLAIM, ROB):
            return [s for s, c in self.pending.items() if c.answer is None]
        if self.phase == OVER:
            return []
        return [self.current]

    def next_seat(self, seat: str, k: int = 1) -> str:
        """The seat ``k`` places after ``seat`` in play order."""
        i = self._seat_index.get(seat)
        if i is None:
            i = self.seats.index(seat)  # ValueError for a seat not at this table, as before
        return self.seats[(i + k) % len(self.seats)]

    def score_snapshot(self, win: WinInfo | None = None, hands: dict[str, SeatHand] | None = None) -> Snapshot:
        """The table as the scorer reads it (:class:`~engine.core.hands.Snapshot`): seats, dealer,
        floor, the indicators as ``win`` sees them (a 随精 pick), ``hands`` (default: the
        game's), the discards without a discard win's tile."""
        discards = self.discards
        if win is not None and win.by == "discard":  # the tile won on is the winner's, not a discard
            assert win.from_seat is not None, "a discard win names the discarder"
            discards = dict(discards)
            discards[win.from_seat] = discards[win.from_seat][:-1]
        indicators = self.picked.indicators(self.indicators, win) if self.picked else dict(self.indicators)
        return Snapshot(self.seats, self.dealer, self.floor, indicators, hands or self.hands, win, discards,
                        self.picked.chosen if self.picked else {})

    def hand_version(self, seat: str) -> int:
        """A number that changes whenever ``seat``'s tiles do (the win checks' caches key on it)."""
        return self._hand_version[seat]

    def set_concealed(self, seat: str, tiles: list[int]) -> None:
        """Give ``seat`` the concealed ``tiles`` (a position set up by hand: a test, a puzzle);
        the actions offered before are stale."""
        self.hands[seat].concealed = list(tiles)
        self.counts[seat] = self.tiles.counts(tiles)
        self._hand_version[seat] += 1
        self._version += 1

    def set_indicators(self, indicators: dict[str, int]) -> None:
        """Set the indicators (a position set up by hand); the 精 follow, and the actions
        offered before are stale."""
        self.indicators = dict(indicators)
        self._set_wilds()
        self._version += 1

    def _log(self, kind: str, **data: Unpack[EventFields]) -> None:
        self.events.append(Event(n=len(self.events), event=kind, **data))

    def _add(self, seat: str, tile: int) -> None:
        """Put ``tile`` in ``seat``'s concealed tiles (the count vector follows)."""
        self.hands[seat].concealed.append(tile)
        self.counts[seat][tile] += 1
        self._hand_version[seat] += 1

    def _take(self, seat: str, tile: int, n: int = 1) -> None:
        """Take ``n`` copies of ``tile`` from ``seat``'s concealed tiles (the count vector follows)."""
        concealed = self.hands[seat].concealed
        for _ in range(n):
            concealed.remove(tile)
        self.counts[seat][tile] -= n
        self._hand_version[seat] += 1

    # ---- legal actions ---------------------------------------------------------------------------
    def legal_actions(self, seat: str) -> list[Action]:
        """Every action ``seat`` may take now ([] when it has none)."""
        if self.phase == OVER or not isinstance(seat, str) or seat not in self.seats:
            return []
        if self.phase in (CLAIM, ROB):
            c = self.pending.get(seat)
            return [] if c is None or c.answer is not None else list(c.legal)
        if seat != self.current:
            return []
        if self.phase == DRAW:
            return [self.draw_actions[seat]]
        if self.phase == FLIP:
            return [self.plain_actions[seat].stop, self.plain_actions[seat].pass_]
        if self.phase == PICK:
            return list(self.picked.offers[seat]) if self.picked else []
        offered = self._offered
        if offered is not None and offered.version == self._version and offered.seat == seat:
            return list(offered.actions)
        out, win = own_turn(self, seat)
        self._offered = tuple.__new__(Offer, (self._version, seat, out, win))  # NamedTuple.__new__ is slower
        return list(out)

    def actions_by_kind(self, seat: str) -> dict[str, list[Action]]:
        """:meth:`legal_actions` grouped by kind, in their order (what a bot chooses from)."""
        out: dict[str, list[Action]] = {}
        for a in self.legal_actions(seat):
            out.setdefault(a.kind, []).append(a)
        return out

    taken_at_once = staticmethod(taken_at_once)

    # ---- applying actions --------------------------------------------------------------------------
    def apply(self, action: Action | str) -> None:
        """Apply one legal action. Raises :class:`IllegalAction` (state unchanged) otherwise."""
        if isinstance(action, str):
            action = Action.parse(action, self.scorer)
        if self._just_offered(action):
            self.actions.append(action)  # an object legal_actions just gave, nothing changed since
            try:
                getattr(self, f"_do_{action.kind}")(action)
            finally:
                self._version += 1
            return
        check_shape(action, self.seats, len(self.tiles))
        legal = self.legal_actions(action.seat)
        if action not in legal:
            raise refusal(self, action, legal)
        self.actions.append(action)
        try:
            getattr(self, f"_do_{action.kind}")(action)
        finally:
            self._version += 1

    def _just_offered(self, action: object) -> bool:
        """Whether ``action`` is one of the very objects :meth:`legal_actions` offered and
        nothing has changed since (then it is legal without checking again)."""
        if self.phase in (CLAIM, ROB):
            c = self.pending.get(action.seat) if type(action) is Action else None
            legal = c.legal if c is not None and c.answer is None else ()
        elif self.phase == DRAW:
            return action is self.draw_actions.get(self.current)
        else:
            offered = self._offered
            legal = offered.actions if offered is not None and offered.version == self._version else ()
        for a in legal:  # noqa: SIM110 (a loop: no generator on the path of every action)
            if a is action:
                return True
        return False

    def _do_draw(self, a: Action) -> None:
        if self.from_tail:
            tile, pos = self.wall.draw_tail()
        else:
            tile, pos = self.wall.draw_head()
        hopeless = self.wins.hopeless(a.seat)  # no tile could complete the hand before the draw?
        self._add(a.seat, tile)
        self.wins.drew(a.seat, hopeless)
        self.last_drawn = tile
        self.locks.pop(a.seat, None)  # 弃先胡后 lifts on the seat's own draw
        self._log("draw", seat=a.seat, tile=self.tiles.code(tile), tail=self.from_tail, position=pos)
        self.phase = ACT

    def _do_discard(self, a: Action) -> None:
        assert a.tile is not None, "a discard names its tile (checked before)"
        self._take(a.seat, a.tile)
        self.discards[a.seat].append(a.tile)
        self.discard_count += 1
        self.must_discard = self.from_tail = False
        self.last_drawn = None
        self._log("discard", seat=a.seat, tile=self.tiles.code(a.tile))
        self._track_follow_first(a.seat, a.tile)
        pl = self.policies["pass_lock"]
        if pl and "jing_discard" in pl["resets"] and a.tile in self.wilds[a.seat]:
            self.locks.clear()
        self.last_discard = (a.seat, a.tile)
        self.pending = claims_on(self, a.seat, a.tile)
        if self.pending:
            self.phase = CLAIM
        else:
            self._next_turn(self.next_seat(a.seat))

    def _next_turn(self, seat: str) -> None:
        self.current = seat
        self.from_tail = False
        if self.live_remaining <= 0:
            self._end(None)
            return
        self.phase = DRAW

    def _answer(self, a: Action) -> None:
        if self.phase == FLIP:  # a seat that could stop the flips passes: the next one asked, or the next flip
            assert self.flips is not None, "a flip phase has its flips"
            self.current = self.flips.passed() or self.current
            if not self.flips.asking:
                self._flip()
            return
        self.pending[a.seat].answer = a
        if all(c.answer is not None for c in self.pending.values()):
            if self.phase == CLAIM:
                self._resolve_claims()
            else:
                self._resolve_rob()

    _do_pass = _do_pung = _do_kong = _do_chow = _answer  # claims: answers, resolved once all are in

    def _do_win(self, a: Action) -> None:
        if self.phase in (CLAIM, ROB):
            self._answer(a)
            return
        offered = self._offered
        if offered is not None and offered.version == self._version and offered.seat == a.seat:
            info = offered.win  # computed when the win was offered
        else:
            info = self.wins.on_own_draw(a.seat)
        self._end(info)

    def _resolve_claims(self) -> None:
        assert self.last_discard is not None, "claims are on the last discard"
        discarder, tile = self.last_discard
        for seat, c in self.pending.items():  # 弃先胡后: a seat that could win and did not
            passed = c.answer is not None and c.answer.kind != "win"
            if passed and self.policies["pass_lock"] and any(o.kind == "win" for o in c.options):
                info = self.wins.info(seat, tile, "discard", discarder)
                self.locks[seat] = Lock(tile, self.wins.value(info))
                self._log("pass_lock", seat=seat, tile=self.tiles.code(tile))
        taken = taken_claim(self, self.pending)
        self.pending = {}
        if taken is None:
            self._next_turn(self.next_seat(discarder))
            return
        seat = taken.seat
        if taken.kind == "win":
            self._end(self.wins.info(seat, tile, "discard", discarder))
            return
        self.discards[discarder].pop()
        self._skip_to(discarder, seat)
        self.interrupted = True
        self.locks.pop(seat, None)  # its own claim lifts its lock
        meld, used = claimed_meld(self, taken, tile, discarder)
        for t in used:
            self._take(seat, t)
        self.hands[seat].melds.append(meld)
        self._log(taken.kind, seat=seat, tile=self.tiles.code(tile), source=discarder)
        self.current = seat
        if taken.kind == "kong":
            self._after_kong()
        else:
            self.phase, self.must_discard = ACT, True

    def _skip_to(self, discarder: str, claimer: str) -> None:
        """Seats between the discarder and the claimer lose their turn (skipped_turn reset)."""
        pl = self.policies["pass_lock"]
        if pl and "skipped_turn" in pl["resets"]:
            for seat in self.after[discarder][1:self.after[discarder].index(claimer)]:
                self.locks.pop(seat, None)

    def _after_kong(self) -> None:
        pl = self.policies["pass_lock"]
        if pl and "kong" in pl["resets"]:
            self.locks.clear()
        self.from_tail = True
        self.must_discard = False
        self.phase = DRAW

    def _do_concealed_kong(self, a: Action) -> None:
        hand = self.hands[a.seat]
        size = self.meld_size["kong"]
        assert a.tile is not None and size is not None, "a kong names its tile; offered only when sized"
        self._take(a.seat, a.tile, size)
        hand.melds.append(MeldTiles("kong", (a.tile,) * size, concealed=True))
        self.interrupted = True
        self._log("concealed_kong", seat=a.seat, tile=self.tiles.code(a.tile))
        self._after_kong()

    def _do_added_kong(self, a: Action) -> None:
        assert a.tile is not None, "an added kong names its tile (checked before)"
        self.pending = robbers(self, a.seat, a.tile)
        self.robbed = (a.seat, a.tile)
        self._log("added_kong", seat=a.seat, tile=self.tiles.code(a.tile))
        if self.pending:
            self.phase = ROB
        else:
            self._complete_added_kong()

    def _complete_added_kong(self) -> None:
        assert self.robbed is not None, "an added kong is pending"
        seat, tile = self.robbed
        hand = self.hands[seat]
        self._take(seat, tile)
        i = next(i for i, m in enumerate(hand.melds) if m.meld_kind == "pung" and m.tiles[0] == tile)
        old = hand.melds[i]
        hand.melds[i] = MeldTiles("kong", old.tiles + (tile,), added=True, from_seat=old.from_seat, claimed=old.claimed)
        self.robbed = None
        self.interrupted = True
        self.current = seat
        self._after_kong()

    def _resolve_rob(self) -> None:
        assert self.robbed is not None, "a kong is being robbed"
        seat, tile = self.robbed
        winners = [s for s, c in self.pending.items() if c.answer is not None and c.answer.kind == "win"]
        self.pending = {}
        if winners:
            self._take(seat, tile)
            self._end(self.wins.info(winners[0], tile, "rob_kong", seat))
        else:
            self._complete_added_kong()

    # ---- 抄庄 ----------------------------------------------------------------------------------------
    def _track_follow_first(self, seat: str, tile: int) -> None:
        """Note a discard of the first go-around; the scorer says whether they make a 抄庄."""
        if self.interrupted or self.discard_count > len(self.seats):
            return
        self.first_discards.append((seat, tile))
        if len(self.first_discards) == len(self.seats):
            lg = self.scorer.flow.follow_first(self.first_discards, self.seats, self.dealer, self.floor)
            if lg is not None:
                self.follow_first = True
                self.parts.append(("during", "follow_first", lg))
                self._log("follow_first", tile=self.tiles.code(tile), net=lg.net(self.seats))

    # ---- the end ---------------------------------------------------------------------------------------
    def _place(self, positions: dict[str, int]) -> None:
        """Put indicators at these wall positions (engine/table/placing.py), shown unless hidden."""
        for name, p in positions.items():
            self.indicator_positions[name] = p
            if self.rs.indicators[name].picked:  # its place anchors others; its tile is never turned
                continue
            self.indicators[name] = self.wall.tiles[p]
            if not self.rs.indicators[name].hidden:
                self._log("indicator", name=name, tile=self.tiles.code(self.wall.tiles[p]), position=p)

    def _end(self, win: WinInfo | None) -> None:
        self._place(next_draw_positions(self.rs, self.wall, set(self.indicator_positions.values())))
        snap = self.score_snapshot(win)
        if win is not None and win.by in ("self_draw", "kong_draw"):
            self._take(win.seat, win.tile)
        self.result = close_hand(self.scorer, snap, self.flips.stopper if self.flips else None, self.follow_first,
                                 self.parts)
        self.parts, self.follow_first = self.result.parts, self.result.follow_first
        if self.picked is not None and self.picked.name in snap.indicators:  # the winner's pick, from now on
            self.indicators[self.picked.name] = tile = snap.indicators[self.picked.name]
            self._log("indicator", name=self.picked.name, tile=self.tiles.code(tile))
        if win is not None:  # the winning tile ends in the winner's hand
            if win.by == "discard":
                assert win.from_seat is not None, "a discard win names the discarder"
                self.discards[win.from_seat].pop()
            self._add(win.seat, win.tile)
        self.phase = OVER
        self._log("end", winner=win.seat if win else None, by=win.by if win else "exhaustive",
                  fans=self.result.fans, net=self.result.net(self.seats))
