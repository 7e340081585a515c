"""What one end-settlement transfer comes to after the factors and caps declared on its scope
(爬楼, a dealer factor, ``at most N``), and what brings every seat's net over a hand within a
cap ``on net`` (docs/language.md `factor`; RULES.md §2 Caps)."""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Generic, TypeVar

from engine.core.ledger import Ledger, Snapshot, Transfer
from engine.core.reader import RuleReader
from engine.lang.expr import Env

V = TypeVar("V")
Scope = str | tuple[str, ...]


class Memo(Generic[V]):
    """A memo of a pure function of the rules, bounded: emptied when it holds ``limit`` entries."""

    def __init__(self, limit: int):
        self.limit = limit
        self.data: dict[Hashable, V] = {}

    def get(self, key: Hashable, make: Callable[..., V], *args: object) -> V:
        """``make(*args)`` for ``key``, kept for the next call with the same key."""
        got = self.data.get(key)
        if got is None:
            if len(self.data) >= self.limit:
                self.data.clear()
            got = self.data[key] = make(*args)
        return got

    def __len__(self) -> int:
        return len(self.data)


def proportional(total: int, weights: Mapping[str, int]) -> dict[str, int]:
    """``total`` 子 shared in proportion to ``weights`` (each > 0, their sum at least ``total``),
    in whole 子: the floor of each exact share, then the 子 left one each to the largest
    remainders, the earlier key on a tie. No share is over its weight."""
    whole = sum(weights.values())
    shares = {k: total * w // whole for k, w in weights.items()}
    left = total - sum(shares.values())
    by_remainder = sorted(weights, key=lambda k: -(total * weights[k] % whole))  # stable: earlier key first
    for k in by_remainder[:left]:
        shares[k] += 1
    return {k: v for k, v in shares.items() if v}


def matched(givers: list[tuple[str, int]], takers: list[tuple[str, int]]) -> list[tuple[str, str, int]]:
    """Pair two lists of (seat, 子) of one sum into (giver, taker, 子) transfers, in order."""
    out: list[tuple[str, str, int]] = []
    rest = [amount for _, amount in takers]
    j = 0
    for giver, amount in givers:
        while amount:
            take = min(amount, rest[j])
            out.append((giver, takers[j][0], take))
            amount -= take
            rest[j] -= take
            if not rest[j]:
                j += 1
    return out


class Caps:
    """The factors and caps of 精, kong, 荒庄 and 抄庄 transfers, and the net cap of a hand."""

    NET_CAP_PART = "net_cap"  # the part of the transfers that bring each seat's net within ``at most N on net``

    def __init__(self, rules: RuleReader, memo_limit: int):
        self.rules = rules
        self.rs = rules.rs
        self.memo: Memo[tuple[int, tuple[str, ...]]] = Memo(memo_limit)

    @staticmethod
    def env(floor: int, payer_is_dealer: bool, collector_is_dealer: bool, drawn: bool = False) -> dict[str, int]:
        """The facts of one settlement transfer (the ``settle`` context of engine/lang/facts.py);
        ``drawn``: the hand is a 荒庄."""
        return {"floor": floor, "keeps": floor - 1, "payer_is_dealer": payer_is_dealer,
                "collector_is_dealer": collector_is_dealer, "drawn": drawn}

    def settled(self, scope: Scope, amount: int, env: Env, parts: list[str]) -> tuple[int, list[str]]:
        """``amount`` 子 of one 精, kong, 荒庄 or 抄庄 transfer (``scope`` ``jing``, ``exhaustive``,
        ``follow``, or several: a kong's is ``("jing", "kongs")``) after the factors declared ``on``
        that scope (those before adders, then those after: 爬楼, a dealer factor), its caps (``at
        most``), then the factors ``after caps``, with the trail ``parts`` extended. Memoised:
        the result depends on the rules, the scope, the amount and the facts alone."""
        got = self.memo.get((scope, amount, *env.items()), self._settle, scope, amount, env)
        return got[0], [*parts, *got[1]]

    def _settle(self, scope: Scope, amount: int, env: Env) -> tuple[int, tuple[str, ...]]:
        parts: list[str] = []
        for after in (False, True):
            for fname, v in self.rules.factors(scope, env, after):
                if v != 1:
                    amount *= v
                    parts.append(f"factor.{fname} x{v}")
        amount = self.rules.cap(scope, env, amount, parts)
        for fname, v in self.rules.factors(scope, env, True, after_caps=True):
            if v != 1:
                amount *= v
                parts.append(f"factor.{fname} x{v}")
        return amount, tuple(parts)

    def paid(self, scope: Scope, amount: int, *, floor: int, payer_is_dealer: bool,
             collector_is_dealer: bool, drawn: bool = False) -> int:
        """子 one payer pays for one end-settlement transfer of ``amount`` on ``scope``: 0 for no
        amount (no transfer is made), else :meth:`settled` with the transfer's facts
        (:meth:`env`), as :meth:`book` moves it."""
        if not amount:
            return 0
        return self.settled(scope, amount, self.env(floor, payer_is_dealer, collector_is_dealer, drawn), [])[0]

    def book(self, ledger: Ledger, snap: Snapshot, payer: str, payee: str, amount: int,
             parts: list[str], part: str, rule: str, scope: tuple[str, ...] = ("jing",)) -> None:
        """Add to ``ledger`` the transfer of ``amount`` from ``payer`` to ``payee`` in the
        settlement ``part`` (rule path ``rule``), :meth:`settled` on ``scope`` with the facts of
        the snapshot's seating; nothing for no amount (before or after the factors)."""
        if not amount:
            return
        env = self.env(snap.floor, payer == snap.dealer, payee == snap.dealer, drawn=snap.win is None)
        amount, parts = self.settled(scope, amount, env, parts)
        if amount:
            ledger.transfers.append(Transfer(payer, payee, amount, part, rule, tuple(parts)))

    def net_cap(self, seats: list[str], ledgers: Iterable[Ledger]) -> Ledger | None:
        """The transfers that bring every seat's net over a hand (the sum of ``ledgers``) within
        the least ``factor … = at most N on net`` (docs/language.md `factor`): first each seat
        over +N gives back its excess, shared among the seats that lost, in proportion to their
        losses; then each seat still under −N is given back its excess by the seats that gained,
        in proportion to their gains. A share is whole 子 (:func:`proportional`). Zero sum;
        nobody changes side. None when the ruleset has no such cap or no seat is past it."""
        caps = [f for f in self.rs.factors.values() if f.cap is not None and "net" in f.scopes]
        if not caps:
            return None
        rule = min(caps, key=lambda f: f.cap or 0)
        assert rule.cap is not None
        cap = rule.cap
        net = Ledger.joined(ledgers).net(seats)
        out = Ledger(fired=[rule.name])
        for sign in (1, -1):  # gains over the cap, then losses past it
            over = {s: sign * net[s] - cap for s in seats if sign * net[s] > cap}
            if not over:
                continue
            weights = {s: -sign * net[s] for s in seats if -sign * net[s] > 0}
            shares = proportional(sum(over.values()), weights)
            givers = list(over.items()) if sign == 1 else list(shares.items())
            takers = list(shares.items()) if sign == 1 else list(over.items())
            for giver, taker, amount in matched(givers, takers):
                out.transfers.append(Transfer(giver, taker, amount, self.NET_CAP_PART, f"factor.{rule.name}",
                                              (f"factor.{rule.name} at most {cap} on net",)))
                net[giver] -= amount
                net[taker] += amount
        return out if out.transfers else None
