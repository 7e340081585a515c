"""One 精 settlement of an indicator on a table's hands (RULES.md §2 精 settlement): each seat
collects its score from each other seat, fed claims paid by their discarder (Liability), kongs
booked where their indicator settles; the indicators a declaration makes of the hands (照镜子,
a family), who may stop a flip (发电), and the winner's discarded-精 bonus."""
from __future__ import annotations

from engine.core.caps import Caps
from engine.core.jingscore import JingScores
from engine.core.kongs import Kongs
from engine.core.ledger import TILE_MARK, JingScore, Ledger, SeatHand, Snapshot, indicator_of
from engine.core.legality import Legality
from engine.core.liability import Claim, Liability
from engine.core.reader import RuleReader
from engine.errors import MjError


class JingSettlement:
    """The 精 settlements of one ruleset, made of its :class:`JingScores`, :class:`Liability`,
    :class:`Kongs` and :class:`Caps` parts."""

    def __init__(self, rules: RuleReader, legal: Legality, jing: JingScores, liability: Liability,
                 kongs: Kongs, caps: Caps):
        self.rules = rules
        self.rs = rules.rs
        self.legal = legal
        self.jing = jing
        self.liability = liability
        self.kongs = kongs
        self.caps = caps

    def settle(self, snap: Snapshot, name: str, tile: int | None = None) -> Ledger:
        """One 精 settlement with indicator ``name`` on the snapshot's hands (RULES.md §2);
        ``tile``: the indicator's tile, when the snapshot does not give it (an indicator
        ``NAME@TILE`` of :meth:`tile_indicators`).

        Each seat collects its score from each other seat. Liability (RULES.md §2 Liability,
        applied to *each* such player): when a seat reaches the liability rule's formula only by
        claiming a 精 someone discarded, that discarder pays the seat's real score once for
        every payer; every other transfer is made as if the liable claims had not happened
        (000's example). A ``liability over N`` rule: a seat whose score is over N (or whose
        count makes ``over FORMULA`` fire) and that claimed a 精 of this indicator from a
        discard is paid by that discarder alone (its score for every payer; the last such claim
        in meld order, or the first with ``first``: :meth:`Liability.over_claims`). Raises
        :class:`MjError` if the snapshot has no tile for the indicator, :class:`IllegalAction`
        if a meld is one the game could not make (:meth:`Legality.check_melds`)."""
        self.legal.check_melds(snap)
        return self.settle_checked(snap, name, tile)

    def settle_checked(self, snap: Snapshot, name: str, tile: int | None) -> Ledger:
        """:meth:`settle` on a snapshot whose melds were checked (:meth:`Legality.check_melds`)."""
        r = self.rules
        ind = self.rs.indicators[indicator_of(name)]
        if tile is None and name not in snap.indicators:
            raise MjError(f"no tile for indicator {name}")
        main, nxt = r.jing_kinds(snap.indicators[name] if tile is None else tile)
        jing = {k for k in (main, nxt) if k is not None}
        seats = snap.seats
        ledger = Ledger()
        kongs_hold = bool(self.rs.jing_rules("kongs_hold"))

        def scores(all_tiles: dict[str, list[int]],
                   outside_kongs: dict[str, list[int]]) -> tuple[dict[str, JingScore], dict[str, int]]:
            counts = {s: self.jing.count(all_tiles[s], main, nxt) for s in seats}
            held = all_tiles if kongs_hold else outside_kongs  # kongs make 霸王 only with `count kongs`
            holders = {s for s in seats if any(t in jing for t in held[s])}
            return {s: self.jing.score(counts[s], holders == {s}, snap.floor) for s in seats}, counts

        def undo(claims: list[Claim]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
            """Tiles as if these claims had not happened: each claimed 精 back with its discarder."""
            t2 = {k: list(v) for k, v in tiles.items()}
            o2 = {k: list(v) for k, v in outside.items()}
            for s, m in claims:
                assert m.claimed is not None and m.from_seat is not None, "only claimed melds are undone"
                for d in (t2, o2) if m.meld_kind != "kong" else (t2,):
                    d[s].remove(m.claimed)
                    d[m.from_seat].append(m.claimed)
                if m.meld_kind == "kong":
                    o2[m.from_seat].append(m.claimed)
            return t2, o2

        tiles = {s: r.all_tiles(snap, s) for s in seats}
        outside = {s: r.all_tiles(snap, s, with_kongs=False) for s in seats}
        if self.rs.jing_rules("discarded"):  # discarded 精 still count (and make a holder)
            for s in seats:
                thrown = [t for t in r.discarded(snap, s) if t in jing]
                tiles[s] += thrown
                outside[s] += thrown
                if thrown:
                    ledger.fired += [x.name for x in self.rs.jing_rules("discarded")]
        actual, counts = scores(tiles, outside)
        if kongs_hold and any(m.meld_kind == "kong" and m.tiles[0] in jing
                              for s in seats for m in snap.hands.get(s, SeatHand()).melds):
            ledger.fired += [x.name for x in self.rs.jing_rules("kongs_hold")]  # a 精 kong made a holder
        liable, fired = self.liability.liable_claims(snap, jing, counts, lambda claims: scores(*undo(claims))[1])
        ledger.fired += fired
        over_liable, fired = self.liability.over_claims(snap, name, jing, actual, counts, set(liable))
        ledger.fired += fired
        as_if = scores(*undo([(s, m) for s, (_, m) in liable.items()]))[0] if liable else actual
        for js in actual.values():
            ledger.fired += js.names
        payers = len(seats) - 1
        for payee in seats:
            for payer in seats:
                if payer == payee:
                    continue
                rule = name
                if payee in over_liable:
                    if over_liable[payee] != payer:
                        continue
                    amount = actual[payee].score * payers
                    parts = [*actual[payee].parts, f"liable over the threshold for all {payers} payers x{payers}"]
                    rule = f"{name}.liability"
                elif not liable:
                    amount, parts = actual[payee].score, list(actual[payee].parts)
                elif payee in liable and liable[payee][0] == payer:
                    amount = actual[payee].score * payers
                    parts = [*actual[payee].parts, f"liable for all {payers} payers x{payers}"]
                    rule = f"{name}.liability"
                else:
                    amount, parts = as_if[payee].score, [*as_if[payee].parts, "as if the 精 was not claimed"]
                self.caps.book(ledger, snap, payer, payee, amount, parts, name, rule)
        if ind.with_kongs:
            self.kongs.book(snap, ledger, jing, name)
        elif any(b.each_indicator for b in self.rs.jing_rules("kong_bonus")):
            self.kongs.book(snap, ledger, jing, name, with_kongs=False)
        ledger.fired = list(dict.fromkeys(ledger.fired))
        return ledger

    def made_indicators(self, snap: Snapshot, name: str) -> dict[str, int]:
        """The indicators declaration ``name`` makes, ``NAME@TILE`` → kind, when it makes several
        (docs/language.md `indicator`): a ``family`` indicator one for each kind of its tile's
        family (:meth:`TileSet.family`; none without a tile), an ``each tile where`` one
        :meth:`tile_indicators`; any other none (it is settled under its own name)."""
        ind = self.rs.indicators[name]
        tiles = self.rules.tiles
        if ind.position.type == "each_tile":
            return self.tile_indicators(snap, name)
        if ind.family and name in snap.indicators:
            return {f"{name}{TILE_MARK}{tiles.code(k)}": k for k in tiles.family(snap.indicators[name])}
        return {}

    def tile_indicators(self, snap: Snapshot, name: str) -> dict[str, int]:
        """The indicators an ``each tile where COND`` declaration ``name`` makes of the snapshot's
        hands (docs/language.md `indicator`): ``NAME@TILE`` → kind, in kind order, for each tile
        kind where some seat's n — that kind counted as the 正精 and its successor as the 副精,
        over the tiles a settlement counts (concealed, melds and kongs; with ``count discarded``
        its unclaimed discards too) — meets COND (facts ``n``, ``sole_holder``, ``floor``). At the
        deal the snapshot holds the dealt hands; at the end, every tile held (照镜子 / 晒月亮)."""
        r = self.rules
        where = self.rs.indicators[name].position.where
        assert where is not None, "an each_tile indicator has its condition"
        held = {s: r.all_tiles(snap, s) for s in snap.seats}
        outside = {s: r.all_tiles(snap, s, with_kongs=False) for s in snap.seats}
        if self.rs.jing_rules("discarded"):
            for s in snap.seats:
                held[s] += r.discarded(snap, s)
                outside[s] += r.discarded(snap, s)
        out: dict[str, int] = {}
        for kind in range(len(r.tiles.kinds)):
            main, nxt = r.jing_kinds(kind)
            holders = {s for s in snap.seats if any(t in (main, nxt) for t in outside[s])}
            for s in snap.seats:
                n = self.jing.count(held[s], main, nxt)
                if n and r.eval(where, {"n": n, "sole_holder": holders == {s}, "floor": snap.floor}):
                    out[f"{name}{TILE_MARK}{r.tiles.code(kind)}"] = kind
                    break
        return out

    def flip_stoppers(self, snap: Snapshot, name: str, tile: int) -> list[str]:
        """The seats that may stop indicator ``name``'s flips at ``tile`` (docs/language.md
        `indicator … = flips from …`), in play order from the dealer: those whose n for ``tile``
        as the 正精 (its successor the 副精) on the snapshot's hands meets the stop condition
        (facts ``n``, ``sole_holder``, ``floor``)."""
        r = self.rules
        where = self.rs.indicators[name].position.where
        assert where is not None, "a flips indicator has its stop condition"
        main, nxt = r.jing_kinds(tile)
        seats = snap.seats[snap.seats.index(snap.dealer):] + snap.seats[:snap.seats.index(snap.dealer)]
        held = {s: r.all_tiles(snap, s) for s in seats}
        holders = {s for s in seats if any(t in (main, nxt) for t in r.all_tiles(snap, s, with_kongs=False))}
        out = []
        for s in seats:
            n = self.jing.count(held[s], main, nxt)
            if n and r.eval(where, {"n": n, "sole_holder": holders == {s}, "floor": snap.floor}):
                out.append(s)
        return out

    def discard_bonus(self, snap: Snapshot, name: str) -> Ledger:
        """The winner's discarded 精 (rule ``jing NAME = 正 N, 副 M each per discarded``,
        docs/language.md): every 正精 and 副精 of the wild indicators the winner discarded —
        nobody claimed it (the snapshot's ``discards``) or another seat's meld took it ``from``
        the winner — earns N or M 子 from each other seat, × the ``jing`` factors; a ledger of
        part ``name``. Raises :class:`ValueError` on a snapshot without a win."""
        rule = next(x for x in self.rs.jing_rules("discard_bonus") if x.name == name)
        w = snap.win
        if w is None:
            raise ValueError("a discard bonus is settled on a won hand")
        mains = {snap.indicators[n] for n, i in self.rs.indicators.items() if i.wild and n in snap.indicators}
        nexts = self.rules.wild_kinds(snap) - mains
        thrown = self.rules.discarded(snap, w.seat) + [
            m.claimed for s in snap.seats if s != w.seat for m in snap.hands.get(s, SeatHand()).melds
            if m.from_seat == w.seat and m.claimed is not None]
        main_n, next_n = sum(t in mains for t in thrown), sum(t in nexts for t in thrown)
        amount = rule.main * main_n + rule.next * next_n
        ledger = Ledger(fired=[name] if amount else [])
        for payer in snap.seats:
            if payer != w.seat:
                self.caps.book(ledger, snap, payer, w.seat, amount,
                               [f"jing.{name} 正 {main_n} x {rule.main} + 副 {next_n} x {rule.next}"], name,
                               f"jing.{name}")
        return ledger
