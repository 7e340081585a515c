"""``mjrules impact A B``: what ruleset B changes from A, measured on paired hands (docs/impact.md).

The plan, block by block (a block is :data:`~engine.tools.simulate.BLOCK` consecutive hands of a
match, seeded from (seed, block) alone, as ``simulate`` plays them):

1. *Paired hands*: the block is played once under A and once under B with the same hand seeds
   (:func:`~engine.table.match.hand_seed`: the same walls and dice) and the same bots, seeded the
   same way.
2. *Re-scoring*: every hand played under one side is scored again by the other side's scorer:
   its indicators are flipped by that side's rules on the same wall, its after-deal settlements
   made on the same deal, its 抄庄 payment (if its first discards make one), and its final state
   (the same hands, melds and win) settled. A state that is no win there (no pattern reads it,
   a ``flow`` forbids it, a meld that side cannot make) is counted as *not scorable*, never
   guessed at.
3. *Effects* (B − A per hand, paired): ``total`` (B's play and scoring against A's), ``scoring``
   (the same hands, B's scoring against A's: no play noise), ``play`` (B's hands against A's
   hands, both scored by one side). ``total`` = scoring on A's hands + play scored by B =
   play scored by A + scoring on B's hands, hand by hand.
4. *Roles*: the dealer (Δ of the dealer's 子), the others (Δ of each other seat's 子, paired by
   place after the dealer: three values a hand) and ``zi_moved`` (Δ of the 子 that changed hands).
   Each is an exact histogram (:class:`~engine.tools.stats.Dist`): mean, 95 % interval,
   p5/p95, worst and best hand.
5. *Coverage*: for each rule B changes (:func:`engine.tools.diff.diff`), the hands in which it
   fired — appeared in the hand's scoring (its pattern, fans, payment, factors, 精 rules,
   indicator, 荒庄 or 抄庄 payment) — on each side; a warning for a changed rule that never fired.
   Scoring effects are attributed to the set of changed rules that fired in the hand.

Rules that act on play (other ``flow`` policies, ``table`` sizes, melds, tiles) leave no trace
in a ledger: their coverage is "in force every hand" and their effect is in ``play``.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.core.scoring import Ledger, Scorer, SeatHand, Snapshot, indicator_of
from engine.errors import IllegalAction, ImpossibleState, MjError
from engine.lang.ruleset import Ruleset
from engine.table.bots import make_bot
from engine.table.game import FLIP, Game
from engine.table.match import Match, hand_seed
from engine.tools.diff import Change, diff
from engine.tools.runner import run_blocks
from engine.tools.simulate import BLOCK, Summary, compiled, seat_bots
from engine.tools.stats import Dist

# a settlement of a hand: (when, part, ledger), as :attr:`HandResult.parts`
Part = tuple[str, str, Ledger]
SIDES = ("a", "b")
EFFECTS = ("total", "scoring_on_a_hands", "scoring_on_b_hands", "play_scored_by_a", "play_scored_by_b")
ROLES = ("dealer", "others", "zi_moved")
# kinds of rule path whose firing a ledger records; the others act on play or are in force always
SCORING_KINDS = ("pattern", "fan", "payment", "factor", "jing", "indicator", "exhaustive")
RESCORED_POLICY = "follow_first_discard"  # the one flow policy that settles (抄庄)
WARN_HINT = "raise N or use `--bots value`"
WARN_HINT_VALUE = "raise N"  # the hint when every seat already plays the value bot
EXAMPLE_CHARS = 200  # an unscorable hand's example message, cut to this


@dataclass(frozen=True)
class Scored:
    """One hand scored by one side: the dealer, net 子 per seat (seats' order) and the rule
    paths that fired (``fan.X``, ``jing.X`` …)."""

    dealer: int
    net: tuple[int, ...]
    fired: frozenset[str]

    @property
    def moved(self) -> int:
        """子 that changed hands: the sum of the gains."""
        return sum(v for v in self.net if v > 0)


class Rescored(NamedTuple):
    """A hand scored again by the other side (:func:`rescore`): its :class:`Scored` or None, and
    then the ``reason`` and the scorer's ``message``; ``indicators``: that side's indicators of
    the hand (for the next hand's ``previous …`` indicators)."""

    scored: Scored | None
    reason: str
    message: str
    indicators: dict[str, int]
    refused_by: frozenset[str] = frozenset()  # ``no win``: the rules that refused the win (fan.NAME)


@dataclass(frozen=True)
class PlayedHand:
    """One hand of a block as :func:`play_block` gives it: ``own`` (scored by its own side),
    ``other`` (re-scored by the other side, :class:`Rescored`, or None when the sides are not
    compared), the 精 子 it moved, whether the dealer won, and ``deal`` (hand seed, the wall's
    ring, the dice): what pairs it with the other side's hand."""

    own: Scored
    other: Rescored | None
    jing_moved: int
    dealer_won: bool
    deal: tuple[object, ...]


@dataclass
class Attribution:
    """Re-scored hands counted under one set of changed rules: how many, how many whose nets
    changed, Σ Δ of the dealer's 子 and Σ Δ 子 moved."""

    hands: int = 0
    changed: int = 0
    dealer: int = 0
    zi_moved: int = 0

    def merge(self, o: Attribution) -> None:
        """Add another block's counts."""
        self.hands += o.hands
        self.changed += o.changed
        self.dealer += o.dealer
        self.zi_moved += o.zi_moved


@dataclass(frozen=True)
class BlockJob:
    """One block of paired hands to play (picklable: it crosses to worker processes)."""

    ref_a: str
    opts_a: dict[str, str]
    ref_b: str
    opts_b: dict[str, str]
    seed: int
    block: int
    count: int
    bots: list[str]
    comparable: bool
    changed: tuple[str, ...]


@dataclass
class Effect:
    """Paired differences (y − x) of hands, by role: dealer, each other seat, 子 moved."""

    dealer: Dist = field(default_factory=Dist)
    others: Dist = field(default_factory=Dist)
    zi_moved: Dist = field(default_factory=Dist)

    def add(self, x: Scored, y: Scored) -> None:
        """One pair: ``x`` the hand as A has it, ``y`` as B has it."""
        n = len(x.net)
        self.dealer.add(y.net[y.dealer] - x.net[x.dealer])
        for k in range(1, n):
            self.others.add(y.net[(y.dealer + k) % n] - x.net[(x.dealer + k) % n])
        self.zi_moved.add(y.moved - x.moved)

    def merge(self, o: Effect) -> None:
        """Add another effect's pairs."""
        for r in ROLES:
            getattr(self, r).merge(getattr(o, r))

    def to_json(self) -> dict[str, Any]:
        """``hands`` and each role's :meth:`Dist.to_json`."""
        return {"hands": self.dealer.n, **{r: getattr(self, r).to_json() for r in ROLES}}


@dataclass
class Tally:
    """Everything counted over paired hands; blocks merge in order."""

    seats: list[str]
    seats_b: list[str] | None = None  # B's seat names, when they differ from A's
    sides: dict[str, Summary] = field(default_factory=dict)  # side -> Summary of the hands played under it
    dealer_wins: Counter[str] = field(default_factory=Counter)  # side -> hands the dealer won
    jing_moved: dict[str, Dist] = field(default_factory=dict)  # side -> Dist of 子 moved by 精 settlements a hand
    effects: dict[str, Effect] = field(default_factory=dict)  # EFFECTS name -> Effect
    fired: dict[str, Counter[str]] = field(default_factory=dict)  # "a" / "b" / "a_by_b" / "b_by_a" -> paths
    attribution: dict[tuple[str, ...], Attribution] = field(default_factory=dict)  # changed paths -> Attribution
    unscorable: dict[str, Counter[str]] = field(default_factory=dict)  # "a_hands_under_b" / … -> reasons
    examples: dict[tuple[str, str], str] = field(default_factory=dict)  # (which, reason) -> first message

    def __post_init__(self) -> None:
        for s in SIDES:
            self.sides.setdefault(s, Summary(list(self.seats_b or self.seats) if s == "b" else list(self.seats)))
            self.jing_moved.setdefault(s, Dist())
        for e in EFFECTS:
            self.effects.setdefault(e, Effect())
        for k in ("a", "b", "a_by_b", "b_by_a"):
            self.fired.setdefault(k, Counter())
        for k in ("a_hands_under_b", "b_hands_under_a"):
            self.unscorable.setdefault(k, Counter())

    def merge(self, o: Tally) -> None:
        """Add another tally (the next block)."""
        for s in SIDES:
            self.sides[s].merge(o.sides[s])
            self.jing_moved[s].merge(o.jing_moved[s])
        self.dealer_wins.update(o.dealer_wins)
        for e in EFFECTS:
            self.effects[e].merge(o.effects[e])
        for k, c in o.fired.items():
            self.fired[k].update(c)
        for key, v in o.attribution.items():
            self.attribution.setdefault(key, Attribution()).merge(v)
        for k, c in o.unscorable.items():
            self.unscorable[k].update(c)
        for which_why, m in o.examples.items():
            self.examples.setdefault(which_why, m)


def fired_paths(rs: Ruleset, parts: Sequence[Part], reading: str | None, fans: list[str]) -> frozenset[str]:
    """The rule paths (as :func:`engine.tools.diff.rules_of` names them) a hand's settlements
    record: its pattern and fans, the payment, ``payment.base``, the factors that changed an
    amount, the 精 rules (the value rule whenever a seat's n counted), each settled indicator,
    the 荒庄 payment and the 抄庄 flow. ``parts`` are (when, part, Ledger) as
    :attr:`HandResult.parts`."""
    out: set[str] = set()
    if reading:
        out.add(f"pattern.{reading}")
    out.update(f"fan.{f}" for f in fans)
    values = [r.name for r in rs.jing_rules("value")]
    for _, part, lg in parts:
        if indicator_of(part) in rs.indicators:
            out.add(f"indicator.{indicator_of(part)}")
            out.update(f"jing.{n}" for n in lg.fired if n in rs.jing)
        elif part == "hand":
            out.update(f"payment.{n}" for n in lg.fired if n in rs.payments)
            out.update(f"exhaustive.{n}" for n in lg.fired if n in rs.exhaustive)
        elif RESCORED_POLICY in lg.fired:
            out.update(f"flow.{n}" for n, f in rs.flow.items() if f.policy == RESCORED_POLICY)
        for t in lg.transfers:
            for fac in t.factors:
                head = fac.split(" ", 1)[0]
                if head.startswith(("factor.", "jing.")) or head == "payment.base":
                    out.add(head)
                elif head.startswith("n=") and indicator_of(part) in rs.indicators:
                    out.update(f"jing.{v}" for v in values)
    return frozenset(out)


def _net(seats: list[str], parts: Sequence[Part]) -> tuple[int, ...]:
    out = dict.fromkeys(seats, 0)
    for _, _, lg in parts:
        for s, v in lg.net(seats).items():
            out[s] += v
    return tuple(out[s] for s in seats)


def _jing_moved(rs: Ruleset, seats: list[str], parts: Sequence[Part]) -> int:
    """子 moved by the hand's 精 settlements (every indicator part)."""
    out = dict.fromkeys(seats, 0)
    for _, part, lg in parts:
        if indicator_of(part) in rs.indicators:
            for s, v in lg.net(seats).items():
                out[s] += v
    return sum(v for v in out.values() if v > 0)


def scored_as_played(g: Game) -> Scored:
    """A finished hand as its own ruleset scored it."""
    r = g.result
    assert r is not None, "the hand is finished"
    return Scored(g.seats.index(g.dealer), _net(g.seats, r.parts), fired_paths(g.rs, r.parts, r.reading, r.fans))


def _deal(g: Game) -> dict[str, Any] | None:
    return next((e["hands"] for e in g.events if e["event"] == "deal"), None)



def _picks(g: Game, y: Game) -> dict[str, int]:
    """Each seat's pick for side ``y``'s ``picked by each seat`` indicator (随精): ``g``'s own picks
    when it has them; else, when ``g`` turned a wild indicator of that name, every seat picks
    that tile (the same hands with the table's 精 as everyone's pick); else none."""
    if y.picked is None:
        return {}
    if g.picked is not None:
        return dict(g.picked.chosen)
    tile = g.indicators.get(y.picked.name)
    return dict.fromkeys(g.seats, tile) if tile is not None and g.rs.indicators[y.picked.name].wild else {}

def _replay_flips(g: Game, y: Game) -> bool:
    """Answer ``y``'s flips (发电) as the played hand ``g`` answered its own: the seat that stopped
    ``g``'s flips stops ``y``'s at the same flip, every other seat asked passes. True when ``y``
    is past its flips with its indicators set (none to answer, or stopped); False when its flips
    ran out unstopped (the hand drawn: not the played hand's)."""
    stop_at = (g.flips.stopper, g.flips.made) if g.flips is not None and g.flips.stopper is not None else None
    while y.phase == FLIP and y.flips is not None:
        seat = y.to_act()[0]
        answers = {a.kind: a for a in y.legal_actions(seat)}
        stops = stop_at is not None and seat == stop_at[0] and y.flips.made == stop_at[1]
        y.apply(answers["stop" if stops else "pass"])
    return not y.over


def rescore(g: Game, rs: Ruleset, scorer: Scorer, previous: dict[str, int]) -> Rescored:
    """Score finished hand ``g`` (played under another ruleset with the same tiles and seats) by
    ``rs``: ``rs``'s indicators flipped on the same wall (``previous``: ``rs``'s indicators of
    the hand before, for ``previous …`` indicators), its after-deal settlements on the same
    deal, its 抄庄 on the same first discards, its end settlements on the same final state.

    Returns a :class:`Rescored` (Scored or None, reason, message, ``rs``'s indicators of this hand); a hand ``rs``
    cannot score gives None with the reason (``no win``: not a win under ``rs``;
    ``impossible``: a state ``rs`` could not produce; ``deal differs``: ``rs`` deals another
    way) and the scorer's message. A scripted hand (:mod:`engine.tools.scripted`: no ring)
    is dealt again from its own wall and dice. Raises nothing for a hand it cannot score.
    """
    try:
        if g.ring is not None:
            y = Game(rs, g.seed, dealer=g.dealer, floor=g.floor, previous_indicators=previous, scorer=scorer)
        else:
            y = Game(rs, g.seed, dealer=g.dealer, floor=g.floor, previous_indicators=previous, scorer=scorer,
                     wall=list(g.wall.tiles), dice=list(g.dice_rolls))
    except MjError as exc:  # an after-deal settlement this side cannot make
        return Rescored(None, "not settled", exc.message, {})
    if _deal(y) != _deal(g):
        return Rescored(None, "deal differs", "this side deals other hands from the same wall", dict(y.indicators))
    if not _replay_flips(g, y):
        return Rescored(None, "deal differs", "this side's flips are not stopped where the played hand's were",
                        dict(y.indicators))
    indicators = dict(y.indicators)
    try:
        follow = scorer.flow.follow_first(g.first_discards, list(y.seats), y.dealer, y.floor)
        hands = {s: SeatHand(list(h.concealed), list(h.melds)) for s, h in g.hands.items()}
        assert g.result is not None, "the hand is finished"
        win = g.result.win
        if win is not None:  # the winning tile ends in the winner's hand; a snapshot holds it apart
            hands[win.seat].concealed.remove(win.tile)
        discards = {s: list(d) for s, d in g.discards.items()}  # unclaimed; the tile a discard win took is the winner's
        picks = _picks(g, y)
        if y.picked is not None and win is not None and win.seat in picks:  # the end settles the winner's
            indicators[y.picked.name] = picks[win.seat]
        snap = Snapshot(list(g.seats), g.dealer, g.floor, indicators, hands, win, discards, picks)
        end, ws = scorer.settle_end_parts(snap, y.flips.stopper if y.flips is not None else None)
        if not scorer.flow.follow_first_stands(win is not None):
            follow = None
    except ImpossibleState as exc:
        return Rescored(None, "impossible", exc.message, indicators)
    except IllegalAction as exc:
        return Rescored(None, "no win", exc.message, indicators, frozenset(exc.refused_by))
    except MjError as exc:
        return Rescored(None, "not settled", exc.message, indicators)
    parts = y.parts + ([("during", "follow_first", follow)] if follow else []) + [("end", name, lg) for name, lg in end]
    capped = scorer.caps.net_cap(list(g.seats), [lg for _, _, lg in parts])
    if capped is not None:
        parts.append(("end", scorer.NET_CAP_PART, capped))
    reading, fans = (ws.reading.pattern, ws.fans) if ws else (None, [])
    return Rescored(Scored(g.seats.index(g.dealer), _net(g.seats, parts), fired_paths(rs, parts, reading, fans)), "", "",
                    indicators)


def play_block(rs: Ruleset, scorer: Scorer, seed: int, block: int, count: int, bots: list[str],
               other: tuple[Ruleset, Scorer] | None, summary: Summary) -> list[PlayedHand]:
    """Play one block under ``rs``, each hand re-scored by ``other`` (when given) and counted in
    ``summary``; a :class:`PlayedHand` per hand."""
    match = Match(rs, hand_seed(seed, block), scorer=scorer)
    players = {s: make_bot(kind, hand_seed(hand_seed(seed, block), i)) for i, (s, kind) in enumerate(zip(match.seats, bots))}
    out: list[PlayedHand] = []
    previous: dict[str, int] = {}

    def on_hand(g: Game) -> None:
        nonlocal previous
        summary.add(g)
        theirs = None
        if other is not None:
            theirs = rescore(g, other[0], other[1], previous)
            previous = theirs.indicators
        assert g.result is not None, "the match played the hand to its end"
        out.append(PlayedHand(scored_as_played(g), theirs, _jing_moved(rs, g.seats, g.result.parts),
                              g.result.winner == g.dealer, (g.seed, tuple(g.ring or ()), tuple(g.dice_rolls))))

    match.play(players, count, on_hand)
    return out


def play_paired_block(job: BlockJob) -> Tally:
    """Play one block under both sides and count it (runs in a worker process)."""
    rs_a, sc_a = compiled(job.ref_a, job.opts_a)
    rs_b, sc_b = compiled(job.ref_b, job.opts_b)
    t = Tally([str(v) for v in rs_a.table["seats"].values], [str(v) for v in rs_b.table["seats"].values])
    compare = job.comparable
    hands_a = play_block(rs_a, sc_a, job.seed, job.block, job.count, job.bots, (rs_b, sc_b) if compare else None,
                         t.sides["a"])
    hands_b = play_block(rs_b, sc_b, job.seed, job.block, job.count, job.bots, (rs_a, sc_a) if compare else None,
                         t.sides["b"])
    changed = frozenset(job.changed)
    for ha, hb in zip(hands_a, hands_b):
        own_a, own_b = ha.own, hb.own
        t.effects["total"].add(own_a, own_b)
        t.fired["a"].update(own_a.fired & changed)
        t.fired["b"].update(own_b.fired & changed)
        t.jing_moved["a"].add(ha.jing_moved)
        t.jing_moved["b"].add(hb.jing_moved)
        t.dealer_wins["a"] += ha.dealer_won
        t.dealer_wins["b"] += hb.dealer_won
        if ha.other is None or hb.other is None:
            continue
        for which, re in (("a_hands_under_b", ha.other), ("b_hands_under_a", hb.other)):
            if re.scored is None:
                t.unscorable[which][re.reason] += 1
                t.examples.setdefault((which, re.reason), re.message[:EXAMPLE_CHARS])
                # a `no win` fan of the other side that refused the hand fired in it
                t.fired["a_by_b" if which == "a_hands_under_b" else "b_by_a"].update(re.refused_by & changed)
        b_of_a, a_of_b = ha.other.scored, hb.other.scored
        if b_of_a is not None:
            t.fired["a_by_b"].update(b_of_a.fired & changed)
            t.effects["scoring_on_a_hands"].add(own_a, b_of_a)
            t.effects["play_scored_by_b"].add(b_of_a, own_b)
            _attribute(t, own_a, b_of_a, changed)
        if a_of_b is not None:
            t.fired["b_by_a"].update(a_of_b.fired & changed)
            t.effects["scoring_on_b_hands"].add(a_of_b, own_b)
            t.effects["play_scored_by_a"].add(own_a, a_of_b)
            _attribute(t, a_of_b, own_b, changed)
    return t


def _attribute(t: Tally, x: Scored, y: Scored, changed: frozenset[str]) -> None:
    """Count one re-scored hand under the set of changed rules that fired in it (either side)."""
    key = tuple(sorted((x.fired | y.fired) & changed))
    row = t.attribution.setdefault(key, Attribution())
    row.hands += 1
    row.changed += y.net != x.net
    row.dealer += y.net[y.dealer] - x.net[x.dealer]
    row.zi_moved += y.moved - x.moved


def coverage_kind(path: str) -> str:
    """``scoring`` (a ledger records when it fires), ``flow`` (a flow policy; the ledgers record
    only 抄庄's, see :attr:`Report.flow_settles`), ``option`` (its rules are listed apart) or
    ``always`` (tiles, table, melds)."""
    kind = path.split(".", 1)[0]
    if kind in SCORING_KINDS:
        return "scoring"
    if kind == "flow":
        return "flow"
    return "option" if kind == "option" else "always"


@dataclass
class Report:
    """The impact of B over A: the run's parameters, the changes, and the tally."""

    a: str
    b: str
    hands: int
    seed: int
    bots: list[str]
    changes: list[Change]
    tally: Tally
    comparable: str  # "" when the scoring effect was measured, else why not
    flow_settles: set[str] = field(default_factory=set)  # changed flow paths a ledger records (抄庄)

    def coverage(self) -> list[dict[str, Any]]:
        """Per changed rule: its kind, the hands it fired in on each side, and a warning."""
        out = []
        f = self.tally.fired
        for c in self.changes:
            kind = coverage_kind(c.path)
            row: dict[str, Any] = {"path": c.path, "op": c.op, "kind": kind, "a": None, "b": None, "a_hands_by_b": None,
                   "b_hands_by_a": None, "warning": None}
            if kind == "scoring" or c.path in self.flow_settles:
                row.update(kind="scoring", a=f["a"][c.path], b=f["b"][c.path],
                           a_hands_by_b=f["a_by_b"][c.path], b_hands_by_a=f["b_by_a"][c.path])
                if not (row["a"] or row["b"] or row["a_hands_by_b"] or row["b_hands_by_a"]):
                    hint = WARN_HINT_VALUE if set(self.bots) == {"value"} else WARN_HINT
                    row["warning"] = f"{c.path} not exercised in {self.hands} hands: {hint}"
            out.append(row)
        return out

    def attribution(self) -> list[dict[str, Any]]:
        """The scoring effect by the set of changed rules that fired (re-scored hands of both
        sides): hands, hands whose nets changed, Σ Δ dealer 子 and Σ Δ 子 moved."""
        rows = sorted(self.tally.attribution.items(), key=lambda kv: (-kv[1].hands, kv[0]))
        return [{"rules": list(k), "hands": v.hands, "changed": v.changed, "dealer": v.dealer, "zi_moved": v.zi_moved}
                for k, v in rows]

    def by_rule(self) -> list[dict[str, Any]]:
        """Per changed rule: the re-scored hands it fired in, those with other changed rules
        too, hands whose nets changed, Σ Δ dealer 子 and Σ Δ 子 moved over them."""
        out = []
        for c in self.changes:
            rows = [(k, v) for k, v in self.tally.attribution.items() if c.path in k]
            if coverage_kind(c.path) != "scoring" and c.path not in self.flow_settles:
                continue
            out.append({"path": c.path, "hands": sum(v.hands for _, v in rows),
                        "shared": sum(v.hands for k, v in rows if len(k) > 1),
                        "changed": sum(v.changed for _, v in rows), "dealer": sum(v.dealer for _, v in rows),
                        "zi_moved": sum(v.zi_moved for _, v in rows)})
        return out

    def warnings(self) -> list[str]:
        """Changed rules never exercised, hands not scorable on the other side, no scoring effect."""
        out = [r["warning"] for r in self.coverage() if r["warning"]]
        if self.comparable:
            out.append(f"no scoring effect: {self.comparable}")
        for which, c in self.tally.unscorable.items():
            for why, n in sorted(c.items()):
                side = "A" if which.startswith("a") else "B"
                other = "B" if side == "A" else "A"
                ex = self.tally.examples.get((which, why), "")
                out.append(f"{n} of {side}'s hands not scorable under {other} ({why}), e.g.: {ex}")
        return out

    def side_json(self, s: str) -> dict[str, Any]:
        """One side's play: rates (share of hands), 子 moved and 精 子 moved per hand."""
        d = self.tally.sides[s].to_json()
        n = self.hands or 1
        return {"win_rate": round(1 - d["exhaustive_rate"], 4), "dealer_win_rate": round(self.tally.dealer_wins[s] / n, 4),
                "exhaustive_rate": d["exhaustive_rate"], "zi_moved_per_hand": d["avg_zi_moved_per_hand"],
                "jing_zi_moved_per_hand": self.tally.jing_moved[s].to_json()["mean"],
                "win_by": d["win_by"], "patterns": d["patterns"], "fans": d["fans"], "jing_rules": d["jing_rules"],
                "spread": d["spread"]}

    def rows(self) -> list[dict[str, Any]]:
        """The two sides' summaries side by side (what ``diff --impact`` printed before)."""
        sa, sb = self.tally.sides["a"].to_json(), self.tally.sides["b"].to_json()
        rows = [("子 moved per hand", sa["avg_zi_moved_per_hand"], sb["avg_zi_moved_per_hand"]),
                ("荒庄 (drawn hands)", sa["exhaustive_rate"], sb["exhaustive_rate"])]
        for key in ("win_by", "patterns", "fans", "jing_rules"):
            for name in dict.fromkeys([*sa[key], *sb[key]]):
                rows.append((f"{key.replace('_', ' ')}: {name}", sa[key].get(name, 0.0), sb[key].get(name, 0.0)))
        return [{"what": w, "a": x, "b": y} for w, x, y in rows]

    def to_json(self) -> dict[str, Any]:
        """The report as JSON (docs/impact.md lists the keys)."""
        return {
            "a": self.a, "b": self.b, "hands": self.hands, "seed": self.seed, "bots": self.bots,
            "scoring_effect": not self.comparable, "why_no_scoring_effect": self.comparable or None,
            "effects": {e: self.tally.effects[e].to_json() for e in EFFECTS},
            "coverage": self.coverage(),
            "by_rule": self.by_rule(),
            "attribution": self.attribution(),
            "not_scorable": {k: dict(sorted(c.items())) for k, c in self.tally.unscorable.items()},
            "sides": {s: self.side_json(s) for s in SIDES},
            "warnings": self.warnings(),
            "rows": self.rows(),
        }


def _comparable(a: Ruleset, b: Ruleset) -> str:
    """"" when a hand of one can be scored by the other (the same tiles and seats), else why not."""
    ta, tb = Scorer(a).tiles, Scorer(b).tiles
    if [(k.code, k.copies) for k in ta.kinds] != [(k.code, k.copies) for k in tb.kinds]:
        return "A and B have different tiles"
    if a.table["seats"].values != b.table["seats"].values:
        return "A and B seat different players"
    return ""


def impact(ref_a: str, opts_a: dict[str, str], ref_b: str, opts_b: dict[str, str], hands: int, seed: int,
           bots: list[str], workers: int = 1, progress: Callable[[int], None] | None = None,
           backend: str = "local", address: str | None = None) -> Report:
    """Play ``hands`` paired hands under A and B and measure B's impact (see the module doc).

    ``bots``: one kind for every seat or one per seat, from :data:`~engine.table.bots.BOTS` (``search:N``: a
    search bot of N playouts a decision, :func:`~engine.table.bots.make_bot`). Raises :class:`MjError`
    for an unknown bot, a ruleset that cannot be compiled, or two rulesets with different
    numbers of seats (hands cannot be paired).
    """
    rs_a, _ = compiled(ref_a, opts_a)
    rs_b, _ = compiled(ref_b, opts_b)
    seats = [str(v) for v in rs_a.table["seats"].values]
    if len(rs_b.table["seats"].values) != len(seats):
        raise MjError(f"A seats {len(seats)} players and B {len(rs_b.table['seats'].values)}: hands cannot be paired")
    bots = seat_bots(bots, seats)
    changes = diff(rs_a, rs_b)
    comparable = _comparable(rs_a, rs_b)
    flow_settles = {c.path for c in changes if c.path.startswith("flow.") and any(
        f.policy == RESCORED_POLICY for rs in (rs_a, rs_b) for n, f in rs.flow.items() if f"flow.{n}" == c.path)}
    changed = tuple(c.path for c in changes)
    blocks = [BlockJob(ref_a, opts_a, ref_b, opts_b, seed, b, min(BLOCK, hands - b * BLOCK), bots, comparable == "",
                       changed) for b in range((hands + BLOCK - 1) // BLOCK)]
    total = Tally(seats, [str(v) for v in rs_b.table["seats"].values])
    done = 0
    for t in run_blocks(play_paired_block, blocks, workers, backend, address):
        total.merge(t)
        done += t.sides["a"].hands
        if progress:
            progress(done)
    return Report(rs_a.name, rs_b.name, hands, seed, bots, changes, total, comparable, flow_settles)
