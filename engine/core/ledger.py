"""The shapes settlement speaks in: a table at one moment (:class:`Snapshot` of :class:`SeatHand`
and :class:`WinInfo`), who is who in a win (:class:`Roles`), and what moves (:class:`Transfer`
rows in a :class:`Ledger`, a :class:`WinScore`, a seat's :class:`JingScore`). No rule is applied
here; engine/core/scoring.py applies them."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.core.hands import MeldTiles, Reading
from engine.errors import RuleError

WIN_BY = ("discard", "self_draw", "kong_draw", "rob_kong")
CLAIM_KINDS = ("chow", "pung", "kong")  # the melds a seat declares (the pair is never declared)


@dataclass
class SeatHand:
    """A seat's tiles: concealed kinds (the winner's exclude the winning tile) and melds."""

    concealed: list[int] = field(default_factory=list)
    melds: list[MeldTiles] = field(default_factory=list)


@dataclass
class WinInfo:
    """Who won, on which tile, how (``discard``, ``self_draw``, ``kong_draw``, ``rob_kong``),
    from whom, and whether it is a first-turn win (天胡 / 地胡)."""

    seat: str
    tile: int
    by: str
    from_seat: str | None = None
    first_turn: bool = False


@dataclass
class Snapshot:
    """The table at one moment: seats in play order, dealer, 爬楼 floor, the indicator tiles
    (indicator name → kind) and every seat's hand; ``win`` None for a 荒庄. ``discards``: seat →
    the tiles it discarded that nobody claimed (not the tile a discard win takes). ``picks``: seat →
    the kind it picked for the ruleset's ``picked by each seat`` indicator (its own wilds); the
    indicator's entry in ``indicators`` is the winner's pick (none on a 荒庄)."""

    seats: list[str]
    dealer: str
    floor: int
    indicators: dict[str, int]
    hands: dict[str, SeatHand]
    win: WinInfo | None = None
    discards: dict[str, list[int]] = field(default_factory=dict)
    picks: dict[str, int] = field(default_factory=dict)


TILE_MARK = "@"  # an `each tile where …` indicator's settlements are named NAME@TILE (镜@3m)


def indicator_of(part: str) -> str:
    """The declared indicator a 精 settlement part is named after: ``镜@3m`` — the indicator an
    ``each tile where …`` declaration ``镜`` made of the hands' tile 3m — is ``镜``; any other
    part name is its own."""
    return part.split(TILE_MARK, 1)[0]


MAX_AMOUNT = 10**12  # 子 in one transfer: a bound on evaluation (no table's stakes come near it), not a rule


@dataclass(frozen=True)
class Transfer:
    """``amount`` 子 from ``payer`` to ``payee`` for ``part`` (``hand`` or an indicator name),
    by ``rule`` (a rule path), with the ``factors`` that made the amount.

    Raises :class:`RuleError` when ``amount`` is over :data:`MAX_AMOUNT`: a rule file whose
    multipliers, floors and formulas combine past it cannot be settled (nor averaged);
    :class:`ValueError` when ``payer`` is ``payee`` (a settlement that books one is wrong)."""

    payer: str
    payee: str
    amount: int
    part: str
    rule: str
    factors: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.payer == self.payee:
            raise ValueError(f"a transfer by {self.rule} from {self.payer} to itself: a transfer moves 子 "
                             "between two seats")
        if abs(self.amount) > MAX_AMOUNT:
            size = f"about 10^{len(str(abs(self.amount))) - 1}"
            raise RuleError(f"a transfer of {size} 子 by {self.rule} ({' · '.join(self.factors)[:300]}) is over the "
                            f"bound of {MAX_AMOUNT:,} 子 a transfer", None,
                            hint="the rule file's multipliers, floors or formulas combine past any table's stakes: "
                                 "lower them")


@dataclass
class Ledger:
    """Transfers of one settlement (or several), plus the rules that fired."""

    transfers: list[Transfer] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)

    def net(self, seats: list[str], part: str | None = None) -> dict[str, int]:
        """Net 子 per seat (positive = receives), over one part or all."""
        out = dict.fromkeys(seats, 0)
        for t in self.transfers:
            if part is None or t.part == part:
                out[t.payer] -= t.amount
                out[t.payee] += t.amount
        return out

    @staticmethod
    def joined(ledgers: Iterable[Ledger]) -> Ledger:
        """One ledger holding the transfers and fired rules of several, in order."""
        out = Ledger()
        for lg in ledgers:
            out.extend(lg)
        return out

    def extend(self, other: Ledger) -> None:
        """Add another ledger's transfers and fired rules to this one."""
        self.transfers += other.transfers
        self.fired += [f for f in other.fired if f not in self.fired]


@dataclass
class WinScore:
    """The scored win: the chosen reading, the fans that fired, and the ledger."""

    reading: Reading
    fans: list[str]
    ledger: Ledger
    alternatives: list[tuple[Reading, int]]  # every reading with the winner's gain


@dataclass(frozen=True)
class Roles:
    """Who is who in one win: ``seats`` in play order, the ``dealer``, the ``winner`` and the
    ``discarder`` (the seat whose discard is won; None for a self-draw, 杠开 or 抢杠) and the
    ``robbed`` seat (whose added kong a 抢杠 robs; None otherwise)."""

    seats: tuple[str, ...]
    dealer: str
    winner: str
    discarder: str | None = None
    robbed: str | None = None

    @staticmethod
    def of(snap: Snapshot) -> Roles:
        """The roles of a snapshot's win (:class:`ValueError` when it has none)."""
        w = snap.win
        if w is None:
            raise ValueError("a snapshot without a win has no winner")
        return Roles(tuple(snap.seats), snap.dealer, w.seat, w.from_seat if w.by == "discard" else None,
                     w.from_seat if w.by == "rob_kong" else None)


@dataclass(frozen=True)
class WinSituation:
    """The facts of a win that neither its reading nor its seating (:class:`Roles`) nor the floor
    give: how it was won (``by``: ``self_draw``, ``kong_draw`` 杠开, ``discard`` or ``rob_kong``
    抢杠), on the first turn, whether any seat holds a 精 outside its kongs, the 精 tiles the other
    seats hold concealed and in all, whether the winner's melds are all concealed kongs, the 精
    tiles the winner holds (the winning tile counted when self-drawn) and the 正/副精 it
    discarded. engine/lang/facts.py names the facts they become."""

    by: str
    first_turn: bool
    anyone_holds_wild: bool
    others_wilds_concealed: int
    others_wilds: int
    concealed_hand: bool
    wilds_held: int
    discarded_main: int
    discarded_next: int


@dataclass(frozen=True)
class KongItem:
    """One thing a kong earns in a settlement ``with kongs``: ``amount`` 子 from each other seat
    by ``rule`` (kong points or a 杠精 bonus) — or, when ``from_discarder``, from the seat whose
    discard made the kong, once for every other seat."""

    amount: int
    rule: str
    from_discarder: bool = False


@dataclass(frozen=True)
class JingScore:
    """A seat's 精 score for one indicator: ``score`` 子 from each payer before the settlement
    factors, the ``parts`` trail that explains it and the ``names`` of the 精 rules that applied."""

    score: int
    parts: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
