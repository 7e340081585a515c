"""Who pays for a seat's 精 when it was fed: a discarder whose discarded 精, claimed, made a
seat's formula fire (``liability RULE``), or fed a seat whose score is over a threshold
(``liability over N``) — RULES.md §2 Liability."""
from __future__ import annotations

from collections.abc import Callable

from engine.core.caps import Caps
from engine.core.hands import MeldTiles
from engine.core.jingscore import JingScores
from engine.core.ledger import JingScore, SeatHand, Snapshot
from engine.core.reader import RuleReader

Claim = tuple[str, MeldTiles]  # (the seat that claimed, its meld of a claimed 精)


class Liability:
    """The liability rules of one ruleset: when they fire, what a liable discarder pays, and
    which claims make a discarder liable."""

    def __init__(self, rules: RuleReader, jing: JingScores, caps: Caps):
        self.rules = rules
        self.rs = rules.rs
        self.jing = jing
        self.caps = caps

    def fires(self, rule_name: str, n: int, floor: int) -> bool:
        """Whether the formula a ``liability RULE`` names holds for a count ``n`` at ``floor``
        (not a sole holder: a liable claim is judged as if shared)."""
        r = self.rs.jing[rule_name]
        when = getattr(r, "when", None)  # a liability names a formula: a rule with a condition
        return n > 0 and when is not None and bool(self.rules.eval(when, {"n": n, "sole_holder": False,
                                                                          "floor": floor, "keeps": floor - 1}))

    def threshold(self, rule_name: str, floor: int, upto: int) -> int | None:
        """The least count ``n`` (1 ≤ n < ``upto``, a bound of the search) at which
        :meth:`fires`; None when none does (or ``rule_name`` names no 精 rule)."""
        if rule_name not in self.rs.jing:
            return None
        return next((n for n in range(1, upto) if self.fires(rule_name, n, floor)), None)

    def paid(self, n: int, *, sole: bool, floor: int, payer_is_dealer: bool, collector_is_dealer: bool) -> int:
        """子 a liable discarder pays a holder of count ``n`` (``sole``: the only holder) in an end
        settlement: the holder's score for every other seat, then :meth:`Caps.paid` with the
        transfer's facts, as the 精 settlement pays it."""
        score = self.jing.score(n, sole, floor).score * (len(self.rs.table["seats"].values) - 1)
        return self.caps.paid("jing", score, floor=floor, payer_is_dealer=payer_is_dealer,
                              collector_is_dealer=collector_is_dealer)

    def liable_claims(self, snap: Snapshot, jing: set[int], counts: dict[str, int],
                      counts_without: Callable[[list[Claim]], dict[str, int]]) -> tuple[dict[str, Claim], list[str]]:
        """Each seat whose ``liability RULE`` formula fires at its count (``counts``) only because
        it claimed a discarded 精 of the kinds ``jing``: seat → (the discarder, that claim; the
        last in meld order that makes the difference), and the rules that fired.
        ``counts_without(claims)``: every seat's count as if those claims had not happened."""
        liable: dict[str, Claim] = {}
        fired: list[str] = []
        for lia in self.rs.jing_rules("liability"):
            for s in snap.seats:
                if s in liable or not self.fires(lia.rule, counts[s], snap.floor):
                    continue
                for m in snap.hands.get(s, SeatHand()).melds:
                    if m.claimed not in jing or m.from_seat not in snap.seats or m.from_seat == s:
                        continue
                    if not self.fires(lia.rule, counts_without([(s, m)])[s], snap.floor):
                        liable[s] = (m.from_seat, m)
                if s in liable:
                    fired.append(lia.name)
        return liable, fired

    def over_claims(self, snap: Snapshot, name: str, jing: set[int], scores: dict[str, JingScore],
                    counts: dict[str, int], skip: set[str]) -> tuple[dict[str, str], list[str]]:
        """Each seat (not in ``skip``) over a ``liability over`` rule's threshold in indicator
        ``name``'s settlement — its score (``scores``) over N, or its count (``counts``) making
        the named formula fire (:meth:`fires`) — and that claimed a 精 of the kinds ``jing`` from
        another seat's discard: seat → the discarder of its last such claim in meld order (its
        first with ``first``), who pays its whole score; and the rules that fired. RULES.md §2
        Liability; docs/language.md, Liability (which rule files use which form)."""
        out: dict[str, str] = {}
        fired: list[str] = []
        for over in self.rs.jing_rules("liability_over"):
            if over.indicator not in (None, name):
                continue
            for s in snap.seats:
                if s in skip or s in out:
                    continue
                if over.rule is not None:
                    if not self.fires(over.rule, counts[s], snap.floor):
                        continue
                elif over.over is None or scores[s].score <= over.over:
                    continue
                fed = [m.from_seat for m in snap.hands.get(s, SeatHand()).melds
                       if m.claimed in jing and m.from_seat in snap.seats and m.from_seat != s]
                giver = fed[0] if over.first and fed else fed[-1] if fed else None
                if giver is not None:
                    out[s] = giver
                    fired.append(over.name)
        return out, fired
