"""What a hand's result pays: for a win, what each payer pays the winner on a reading and the
reading best for the winner (RULES.md §2 Win score); for a drawn hand, the 荒庄 payment."""
from __future__ import annotations

from collections.abc import Mapping

from engine.core.caps import Caps
from engine.core.hands import Reading
from engine.core.ledger import Ledger, Roles, Snapshot, Transfer, WinScore
from engine.core.legality import Legality
from engine.core.reader import RuleReader
from engine.errors import MjError
from engine.lang.expr import Env
from engine.lang.ruleset import Fan, Payer, Payment

PAYER_ORDER: tuple[Payer, ...] = ("discarder", "robbed", "dealer", "others", "each")  # the weight a payer takes: first match


class WinPayment:
    """The ``payment``, ``fan`` and win-scope ``factor`` rules of one ruleset, and its 荒庄 rules."""

    def __init__(self, rules: RuleReader, legal: Legality, caps: Caps):
        self.rules = rules
        self.rs = rules.rs
        self.legal = legal
        self.caps = caps

    def _payment(self, env: Env, reading: Reading) -> Payment:
        for p in self.rs.payments.values():
            if self.rules.eval(p.when, env, reading):
                return p
        raise MjError(f"no payment of ruleset {self.rs.name} applies to this win "
                      f"(declared: {', '.join(self.rs.payments) or 'none'})",
                      hint="add a `payment NAME = … when …` whose condition covers it")

    def _weight(self, weights: Mapping[Payer, int], payer: str, roles: Roles) -> tuple[str, int] | None:
        for spec in PAYER_ORDER:
            if spec in weights and self.rules.payer_matches(spec, payer, roles.discarder, roles.dealer, roles.robbed):
                return spec, weights[spec]
        return None

    def transfers(self, env: Env, reading: Reading, roles: Roles) -> tuple[list[Transfer], list[Fan], str]:
        """What each payer pays the winner for one reading of a win (RULES.md §2 Win score).

        ``env``: the win facts (:meth:`RuleReader.win_facts`; engine/lang/facts.py names them), ``roles``:
        who won, who dealt, who discarded. Per payer: ``payment base`` × the payment weight of
        its role (or a ``fixed`` fan's amount and the factors it keeps) × the fans' multipliers ×
        the win-score factors, then the fans' adders, then the factors declared ``after
        adders``, then the caps (``at most``), then the factors ``after caps``; a ``paid by discarder`` payment moves the others'
        shares onto the discarder. Returns (the transfers, in play order of the payers; the
        fans that fired, after ``instead of``; the payment's name). Raises :class:`MjError`
        when no payment applies, :class:`RuleError` for an amount past :data:`MAX_AMOUNT`."""
        fans = self.rules.fired_fans(env, reading)
        payment = self._payment(env, reading)
        discarder, dealer, winner = roles.discarder, roles.dealer, roles.winner
        assert self.rs.base is not None, "a compiled ruleset has a payment base"
        base = self.rs.base.amount
        fixed = [(f, f.fixed) for f in fans if f.fixed is not None]
        out: list[Transfer] = []
        for payer in roles.seats:
            if payer == winner:
                continue
            tenv = dict(env, payer_is_dealer=payer == dealer, collector_is_dealer=winner == dealer)
            parts: list[str] = []
            if fixed:
                ff, fx = max(fixed, key=lambda pair: pair[1].amount)
                if fx.by_payment and self._weight(payment.weights, payer, roles) is None:
                    continue  # `fixed N by payment`: a seat the payment's weights do not cover pays nothing
                amount = fx.amount
                parts.append(f"fan.{ff.name} fixed {amount}")
                keep = set(fx.with_factors)
                factors = self.rules.factors("win", tenv, after=False, only=keep, reading=reading)
            else:
                wt = self._weight(payment.weights, payer, roles)
                if wt is None:
                    continue
                amount = base * wt[1]
                parts.append(f"payment.base {base}")
                parts.append(f"payment.{payment.name} {wt[0]} x{wt[1]}")
                factors = self.rules.factors("win", tenv, after=False, reading=reading)
            for f in fans:
                if f.multiplier != 1:
                    amount *= f.multiplier
                    parts.append(f"fan.{f.name} x{f.multiplier}")
            for name, v in factors:
                if v != 1:
                    amount *= v
                    parts.append(f"factor.{name} x{v}")
            for f in fans:
                for a in f.adders:
                    absent = (a.payer == "discarder" and not discarder) or (a.payer == "robbed" and not roles.robbed)
                    spec = a.fallback if absent else a.payer
                    if spec and self.rules.payer_matches(spec, payer, discarder, dealer, roles.robbed):
                        amount += a.amount
                        parts.append(f"fan.{f.name} +{a.amount}")
            for name, v in self.rules.factors("win", tenv, after=True, reading=reading):
                if v != 1:
                    amount *= v
                    parts.append(f"factor.{name} x{v}")
            amount = self.rules.cap("win", tenv, amount, parts, reading)
            for name, v in self.rules.factors("win", tenv, after=True, reading=reading, after_caps=True):
                if v != 1:
                    amount *= v
                    parts.append(f"factor.{name} x{v}")
            source = payer
            liable = discarder if payment.paid_by == "discarder" else roles.robbed if payment.paid_by == "robbed" else None
            if liable is not None and payer != liable:
                source = liable
                parts.append(f"payment.{payment.name} paid by {payment.paid_by} {liable} for {payer}")
            if amount:
                out.append(Transfer(source, winner, amount, "hand", "win", tuple(parts)))
        return out, fans, payment.name

    def _score_reading(self, snap: Snapshot, reading: Reading) -> tuple[Ledger, list[str]]:
        transfers, fans, payment = self.transfers(self.rules.win_facts(snap, reading), reading, Roles.of(snap))
        fired = list(dict.fromkeys([reading.pattern] + [f.name for f in fans] + [payment]))
        return Ledger(transfers, fired), [f.name for f in fans]

    def score(self, snap: Snapshot) -> WinScore:
        """Score the win on the reading best for the winner (RULES.md §2 Win score).

        Raises :class:`IllegalAction` when the hand is not a winning hand, with the reason.
        """
        readings = self.legal.check_win_hand(snap)
        assert snap.win is not None, "check_win_hand refuses a snapshot without a win"
        best: tuple[int, Reading, Ledger, list[str]] | None = None
        alts = []
        for r in readings:
            ledger, fans = self._score_reading(snap, r)
            gain = ledger.net(snap.seats)[snap.win.seat]
            alts.append((r, gain))
            if best is None or gain > best[0]:
                best = (gain, r, ledger, fans)
        assert best is not None, "check_win_hand returns a reading or raises"
        _, r, ledger, fans = best
        return WinScore(r, fans, ledger, alts)

    def exhaustive(self, snap: Snapshot) -> Ledger:
        """The 荒庄 payment of a drawn hand (RULES.md §2: the dealer pays each other player).

        Raises :class:`IllegalAction` if a meld is one the game could not make."""
        self.legal.check_melds(snap)
        ledger = Ledger()
        for ex in self.rs.exhaustive.values():
            ledger.fired.append(ex.name)
            for payee in snap.seats:
                for payer in snap.seats:
                    if payer == payee or not self.rules.payer_matches(ex.payer, payer, None, snap.dealer):
                        continue
                    env = self.caps.env(snap.floor, payer == snap.dealer, payee == snap.dealer, drawn=True)
                    amount, parts = self.caps.settled("exhaustive", ex.amount, env, [f"exhaustive.{ex.name} {ex.amount}"])
                    ledger.transfers.append(Transfer(payer, payee, amount, "hand", f"exhaustive.{ex.name}",
                                                     tuple(parts)))
        return ledger
