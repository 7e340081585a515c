"""What the game could produce and what the rules allow: melds a seat could have made, a win
state that could happen, a win the ruleset permits (``flow`` policies, ``no win`` fans), and the
readings of a winning hand that may be scored (RULES.md §1 Melds, Claims, Winning hands)."""
from __future__ import annotations

from engine.core.hands import MeldTiles, Reading, check_hand_size
from engine.core.ledger import CLAIM_KINDS, WIN_BY, SeatHand, Snapshot
from engine.core.reader import RuleReader
from engine.errors import IllegalAction, ImpossibleState
from engine.lang import flow as FLOW
from engine.lang.expr import Env
from engine.lang.ruleset import Fan


class Legality:
    """The checks a snapshot passes before it is scored; each raises naming what is wrong.
    ``rules``: the ruleset's :class:`RuleReader`."""

    def __init__(self, rules: RuleReader):
        self.rules = rules
        self.rs = rules.rs

    def flow_text(self, policy_name: str) -> str:
        """``flow 精钓点炮 = jing_wait_discard(win: forbid)``: the declaration that chose a policy."""
        for f in self.rs.flow.values():
            if f.policy == policy_name:
                args = ", ".join(f"{k}: {'/'.join(str(v) for v in vs)}" for k, vs in f.params.items())
                return f"flow {f.name} = {policy_name}({args})"
        return f"no `flow … = {policy_name}(…)`"

    def check_melds(self, snap: Snapshot) -> None:
        """Every seat's melds are ones the game could make (RULES.md §1 Melds, Claims), and no
        seat holds more tiles than a hand can.

        A meld is a claim kind (``CLAIM_KINDS``) whose tiles are a ``meld`` the ruleset declares of
        that kind; a chow or pung, or a kong that is neither ``concealed`` nor ``added``, names the
        seat it was claimed from, which is another seat; a chow comes from the seat the ruleset's
        ``chow`` flow policy allows (``from: previous``: the 上家); a concealed kong is claimed
        from nobody; a claimed tile is one of the meld's. With a win, a seat other than the winner
        holds at most ``table hand`` tiles (melds counted as one set each), without one the dealer
        may hold ``hand + dealer_extra`` (right after the deal). Raises :class:`ImpossibleState`
        naming the seat, the meld and what is wrong.
        """
        extra = self.rs.table.get("hand"), self.rs.table.get("dealer_extra")
        for seat, hand in snap.hands.items():
            if seat not in snap.seats:
                raise ImpossibleState(f"a hand is given for {seat!r}, which is not a seat",
                                    hint="seats: " + " ".join(snap.seats))
            for m in hand.melds:
                self._check_meld(snap, seat, m)
            if all(p is not None and p.values and isinstance(p.values[0], int) for p in extra) and self.rules.hands.set_size:
                limit = self.rules.table_int("hand")
                if snap.win is None and seat == snap.dealer:
                    limit = self.rules.complete_hand
                if snap.win is not None and seat == snap.win.seat:
                    continue  # the winner's hand is checked exactly (check_win_hand)
                n = len(hand.concealed) + self.rules.hands.set_size * len(hand.melds)
                if n > limit:
                    raise ImpossibleState(f"seat {seat} holds {n} tiles counting each meld as {self.rules.hands.set_size} "
                                        f"({self.rules.tiles.format(hand.concealed)} + {len(hand.melds)} meld(s)); "
                                        f"it can hold at most {limit}")

    def _check_meld(self, snap: Snapshot, seat: str, m: MeldTiles) -> None:
        fmt = self.rules.tiles.format
        what = f"seat {seat}'s {m.meld_kind} {fmt(list(m.tiles))}"
        if m.meld_kind not in CLAIM_KINDS:
            raise ImpossibleState(f"{what}: a declared meld is a {', '.join(CLAIM_KINDS)}")
        if self.rules.hands.meld_name(m) is None:
            raise ImpossibleState(f"{what} is not a meld of ruleset {self.rs.name}", hint="melds: " + ", ".join(
                f"{x.name} ({x.meld_kind})" for x in self.rs.melds.values() if x.meld_kind in CLAIM_KINDS))
        if m.concealed and (m.meld_kind != "kong" or m.added or m.from_seat is not None):
            raise ImpossibleState(f"{what} is concealed, so it was claimed from nobody",
                                hint="a concealed kong (暗杠) has no `from` and is not `added`")
        claimed_kong = m.meld_kind == "kong" and not (m.concealed or m.added)
        if m.from_seat is None and (m.meld_kind in ("chow", "pung") or claimed_kong):
            raise ImpossibleState(f"{what} names no seat it was claimed from",
                                hint=f"a {m.meld_kind} is made from a discard: give `from SEAT`")
        if m.from_seat is not None:
            if m.from_seat not in snap.seats:
                raise ImpossibleState(f"{what} is claimed from {m.from_seat!r}, which is not a seat")
            if m.from_seat == seat:
                raise ImpossibleState(f"{what} is claimed from {seat} itself: a seat cannot claim its own discard")
        if m.claimed is not None and m.claimed not in m.tiles:
            raise ImpossibleState(f"{what}: the claimed tile {self.rules.tiles.code(m.claimed)} is not in the meld")
        if m.meld_kind == "chow":
            chow = FLOW.policy(self.rs, "chow")
            if chow is None:
                raise ImpossibleState(f"{what}: this ruleset lets no one chow ({self.flow_text('chow')})")
            prev = snap.seats[(snap.seats.index(seat) - 1) % len(snap.seats)]
            if chow["from"][0] == "previous" and m.from_seat != prev:
                raise ImpossibleState(f"{what} is claimed from {m.from_seat}, but a chow takes only the discard of "
                                    f"the seat before, {prev} (上家) ({self.flow_text('chow')})")

    def check_win_state(self, snap: Snapshot) -> None:
        """The win is one the game could produce (SCENARIOS.md ``win``; RULES.md §2 天胡, 地胡).

        ``discard``/``rob_kong`` take a tile from another seat (``from``), ``self_draw``/
        ``kong_draw`` from nobody; a ``kong_draw`` winner holds a kong; the robbed seat shows
        the pung its kong was being added to; ``first_turn`` is the dealer's self-draw on the
        deal (天胡) or a win on the dealer's first discard (地胡), with no meld on the table (a
        claim or a kong ends the first go-around). Raises :class:`ImpossibleState` naming what
        is impossible.
        """
        w = snap.win
        if w is None:
            return
        if w.by not in WIN_BY:
            raise ImpossibleState(f"unknown win.by {w.by!r}", hint=f"one of: {', '.join(WIN_BY)}")
        if w.seat not in snap.seats:
            raise ImpossibleState(f"the winner {w.seat!r} is not a seat", hint="seats: " + " ".join(snap.seats))
        taken = w.by in ("discard", "rob_kong")
        if taken and w.from_seat not in snap.seats:
            raise ImpossibleState(f"a {w.by} win needs `from`: the seat whose tile was taken")
        if not taken and w.from_seat is not None:
            raise ImpossibleState(f"a {w.by} win takes no `from` ({w.from_seat}): the winning tile is the winner's own draw")
        if w.from_seat == w.seat:
            raise ImpossibleState(f"seat {w.seat} cannot win on its own discard" if w.by == "discard"
                                else f"seat {w.seat} cannot rob its own kong")
        tile = self.rules.tiles.code(w.tile)
        hands = snap.hands
        if w.by == "kong_draw" and not any(m.meld_kind == "kong" for m in hands.get(w.seat, SeatHand()).melds):
            raise ImpossibleState(f"seat {w.seat} wins on a kong replacement (kong_draw) but has declared no kong")
        if w.by == "rob_kong" and not any(m.meld_kind == "pung" and w.tile in m.tiles
                                          for m in hands.get(w.from_seat or "", SeatHand()).melds):
            raise ImpossibleState(f"seat {w.seat} robs {w.from_seat}'s kong of {tile}, but {w.from_seat} shows no pung of "
                                f"{tile} to add it to", hint=f"give {w.from_seat} the pung: `pung … from SEAT`")
        if not w.first_turn:
            return
        first = "first_turn marks 天胡 (the dealer self-draws on the deal) or 地胡 (a win on the dealer's first discard)"
        if w.by in ("kong_draw", "rob_kong"):
            raise ImpossibleState(f"{first}, not a {w.by} win: a kong ends the first go-around")
        if w.by == "self_draw" and w.seat != snap.dealer:
            raise ImpossibleState(f"{first}: a first-turn self-draw is the dealer's, and {w.seat} is not the dealer "
                                f"({snap.dealer})")
        if w.by == "discard" and w.from_seat != snap.dealer:
            raise ImpossibleState(f"{first}: a first-turn discard is the dealer's, and {w.from_seat} is not the dealer "
                                f"({snap.dealer})")
        for s, h in hands.items():
            if h.melds:
                raise ImpossibleState(f"{first}: seat {s} has declared a {h.melds[0].meld_kind}, and a claim or a kong "
                                    "ends the first go-around")

    def check_win_allowed(self, snap: Snapshot, readings: list[Reading] | None = None) -> None:
        """The ruleset's ``flow`` policies that decide from the final state alone whether the win
        may be taken — the one check the game (offering a win) and the scorer (``score``,
        ``test``) share. The policies that depend on what happened before (弃先胡后, pass_lock)
        stay in the game.

        - ``jing_wait_discard(win: forbid)``: a seat whose hand reads as 精钓 may not win on a
          discard (RULES.md §1 精钓; 004) — a first-turn discard (地胡) too, unless ``first_turn: allow``;
        - ``rob_kong``: without it no kong can be robbed.

        ``readings``: the hand's readings when known (computed here only if a policy needs
        them). Raises :class:`IllegalAction` naming the policy.
        """
        w = snap.win
        if w is None:
            return
        if w.by == "discard":
            jw = FLOW.policy(self.rs, "jing_wait_discard")
            if jw is not None and jw["win"][0] == "forbid" and not (w.first_turn and jw["first_turn"][0] == "allow"):
                if readings is None:
                    h = snap.hands.get(w.seat, SeatHand())
                    readings = self.rules.hands.readings(h.concealed + [w.tile], h.melds, self.rules.wild_kinds(snap), w.tile,
                                                   win_tile_natural=True)
                if any(r.jing_wait for r in readings):
                    raise IllegalAction(f"seat {w.seat}'s hand is in 精钓 (a lone 精 waits on any tile), and this "
                                        f"ruleset forbids a 精钓 hand to win on a discard "
                                        f"({self.flow_text('jing_wait_discard')})",
                                        hint="it may win on its own draw")
        if w.by == "rob_kong" and FLOW.policy(self.rs, "rob_kong") is None:
            raise IllegalAction(f"this ruleset lets no one rob a kong ({self.flow_text('rob_kong')})")
        if any(f.no_win for f in self.rs.fans.values()):
            if readings is None:
                h = snap.hands.get(w.seat, SeatHand())
                readings = self.rules.hands.readings(h.concealed + [w.tile], h.melds, self.rules.wild_kinds(snap), w.tile,
                                               win_tile_natural=w.by in ("discard", "rob_kong"))
            if readings and not self.allowed_readings(snap, readings):
                names = sorted({f.name for r in readings for f in self._no_win_fans(snap, r)})
                refused = IllegalAction(f"seat {w.seat}'s hand may not win this way: every reading of it is refused "
                                        "by " + ", ".join(f"fan.{n} (no win)" for n in names),
                                        hint="a reading none of these `no win` fans fires on may win")
                refused.refused_by = tuple(f"fan.{n}" for n in names)  # the rules that refused it (impact counts them)
                raise refused

    def _no_win_fans(self, snap: Snapshot, reading: Reading) -> list[Fan]:
        return self.refusals(self.rules.win_facts(snap, reading), reading)

    def refusals(self, env: Env, reading: Reading) -> list[Fan]:
        """The ``no win`` fans that fire on ``reading`` with the win facts ``env``: a reading
        with any may not win (RULES.md §1 Winning hands; house rules such as 无平胡)."""
        return [f for f in self.rs.fans.values() if f.no_win and self.rules.eval(f.when, env, reading)]

    def allowed_readings(self, snap: Snapshot, readings: list[Reading]) -> list[Reading]:
        """The readings on which no ``no win`` fan fires (all of them when the ruleset has none)."""
        if not any(f.no_win for f in self.rs.fans.values()):
            return readings
        return [r for r in readings if not self._no_win_fans(snap, r)]

    def check_win_hand(self, snap: Snapshot) -> list[Reading]:
        """Readings of the winner's hand; raises :class:`IllegalAction` when it is not a win: a
        snapshot the game could not produce (:meth:`check_win_state`, :meth:`check_melds`), a
        hand of the wrong size or matching no pattern, or a win the ruleset forbids
        (:meth:`check_win_allowed`)."""
        w = snap.win
        if w is None:
            raise IllegalAction("no win to score")
        self.check_win_state(snap)
        self.check_melds(snap)
        hand = snap.hands.get(w.seat, SeatHand())
        concealed = hand.concealed + [w.tile]
        check_hand_size(self.rules.tiles, concealed, hand.melds, self.rules.complete_hand, self.rules.hands.set_size,
                        f"winner {w.seat}")
        readings = self.rules.hands.readings(concealed, hand.melds, self.rules.wild_kinds(snap), w.tile,
                                       win_tile_natural=w.by in ("discard", "rob_kong"))
        if not readings:
            raise IllegalAction(f"seat {w.seat} has no winning hand: " + self.rules.hands.why_not(concealed, hand.melds))
        self.check_win_allowed(snap, readings)
        return self.allowed_readings(snap, readings)
