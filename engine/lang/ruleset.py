"""The compiled ruleset: a pydantic IR that mirrors the rule language one construct to one model.

Every other part of the engine reads only this (``rule file -> compiler -> Ruleset -> core``).
Each declaration keeps its :class:`Origin` (file, line, column) so that errors, ``export``
and ``diff`` can say where a value came from. Declarations live in ordered dicts keyed by
name; their path is ``KIND.NAME`` (``fan.德国``, ``meld.风顺``).

Nothing here holds a rule value: numbers come from the rule files in ``rulesets/``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal, TypeAlias, overload

from pydantic import BaseModel, ConfigDict, Field


class Model(BaseModel):
    """Base of the IR: frozen, and unknown fields are an error."""
    model_config = ConfigDict(frozen=True, extra="forbid")


class Origin(Model):
    """Where a declaration was written: file path, 1-based line and column."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


# the closed sets of words a field takes (the grammar's terminals of the same name)
CmpOp: TypeAlias = Literal[">=", "<=", "==", "!=", ">", "<"]
ArithOp: TypeAlias = Literal["+", "-", "*", "/"]
MeldKind: TypeAlias = Literal["chow", "pung", "kong", "pair"]
End: TypeAlias = Literal["head", "tail"]
Payer: TypeAlias = Literal["discarder", "robbed", "others", "each", "dealer"]
Scope: TypeAlias = Literal["win", "jing", "kongs", "exhaustive", "follow", "net"]


# ---- expressions ------------------------------------------------------------------------
# Conditions and arithmetic share one tree; the compiler checks each name against the facts
# of the context it is used in (a win, a transfer, a 精 settlement).


class Num(Model):
    """An integer literal."""
    node: Literal["num"] = "num"
    value: int


class Var(Model):
    """A fact, by name (engine/lang/facts.py lists them)."""
    node: Literal["var"] = "var"
    name: str


class PatternIs(Model):
    """``pattern NAME``: the reading being scored is that pattern."""
    node: Literal["pattern"] = "pattern"
    pattern: str


class Not(Model):
    """``not X``."""
    node: Literal["not"] = "not"
    arg: Expr


class BoolOp(Model):
    """``X and Y …`` / ``X or Y …``."""
    node: Literal["bool"] = "bool"
    op: Literal["and", "or"]
    args: list[Expr]


class Cmp(Model):
    """A comparison of two numbers: ``n >= 5``."""
    node: Literal["cmp"] = "cmp"
    op: CmpOp
    left: Expr
    right: Expr


class BinOp(Model):
    """Integer arithmetic: ``n * (n - 3)``; ``/`` divides down, by zero gives 0."""
    node: Literal["binop"] = "binop"
    op: ArithOp
    left: Expr
    right: Expr


class Neg(Model):
    """``-X``."""
    node: Literal["neg"] = "neg"
    arg: Expr


Expr = Annotated[
    Num | Var | PatternIs | Not | BoolOp | Cmp | BinOp | Neg, Field(discriminator="node")
]
for _m in (Not, BoolOp, Cmp, BinOp, Neg):
    _m.model_rebuild()


class Decl(Model):
    """Base of every named declaration."""

    name: str
    origin: Origin


# ---- tiles ------------------------------------------------------------------------------


class Suit(Decl):
    """``suit m "万" ranks 1..9 cyclic copies 4``: a ranked tile group (RULES.md §1 Tiles).

    Tile codes are ``<rank><name>`` (``3m``); ``cyclic`` makes the last rank's successor the
    first (9→1), which the 精 indicators use.
    """

    kind: Literal["suit"] = "suit"
    label: str | None = None
    low: int
    high: int
    cyclic: bool = False
    copies: int


class HonourTile(Model):
    """One honour tile: its name (``东``) and its digit code (``1z``)."""
    name: str
    code: str | None = None


class Honours(Decl):
    """``honours winds "风" = 东 "1z", 南 "2z" … cyclic``: named tiles in successor order."""

    kind: Literal["honours"] = "honours"
    label: str | None = None
    tiles: list[HonourTile]
    cyclic: bool = False
    copies: int


# ---- table ------------------------------------------------------------------------------


class TableParam(Decl):
    """``table seats = E S W N``: a table parameter (seats, hand size, wall, dice …)."""

    kind: Literal["table"] = "table"
    values: list[str | int]


# ---- melds and patterns -------------------------------------------------------------------


class Shape(Model):
    """One meld shape: ``run 3 in suits``, ``distinct 3 in winds``, ``same 4 declared``."""

    type: Literal["run", "distinct", "same"]
    size: int
    groups: list[str] = []
    declared: bool = False


class Meld(Decl):
    """``meld 风顺 chow = distinct 3 in winds``: a named meld with its claim kind.

    ``kind`` says how the meld is claimed and shown (chow 吃, pung 碰, kong 杠, pair 将).
    """

    kind: Literal["meld"] = "meld"
    meld_kind: MeldKind
    shapes: list[Shape]


class Component(Model):
    """A part of a hand pattern: ``sets N [of names]``, ``pair``, ``pairs N``, ``rotten gap G``."""

    type: Literal["sets", "pair", "pairs", "rotten"]
    count: int = 1
    of: list[str] = []
    gap: int = 0


class Pattern(Decl):
    """``pattern 大七对 = sets 4 of pung/kong + pair``: a winning hand shape with constraints."""

    kind: Literal["pattern"] = "pattern"
    components: list[Component]
    concealed: bool = False
    honours_natural: bool = False
    min_honours: int = 0
    quads_as_pairs: bool = False
    one_of: list[str] = []  # all tiles in a single one of these groups …
    one_of_plus: list[str] = []  # … or in these (混一色: one of suits plus honours)
    only: list[str] = []  # all tiles within these groups (字一色: only honours)


# ---- indicators ----------------------------------------------------------------------------


class Position(Model):
    """Where an indicator tile sits: the top of the dice-chosen stack, or relative to another."""

    type: Literal["stack_top", "under", "left", "right", "previous", "each_tile", "next_draw", "flips"]
    end: End | None = None
    ref: str | None = None
    where: Expr | None = None  # each_tile, flips: the 精-context condition a seat's n for the tile must meet
    count: int | None = None  # ``next draw N``: the N-th tile still to be drawn at the end; flips: the most turned
    per_sum: int | None = None  # flips: how many times one sum of the dice may be used (None: any)


class Indicator(Decl):
    """``indicator upper "上精" = top of dice stack from tail, wild, settle at end with kongs``.

    The indicator tile's kind is 正精 and its successor is 副精 (RULES.md §1 精).
    """

    kind: Literal["indicator"] = "indicator"
    label: str | None = None
    position: Position
    wild: bool = False
    hidden: bool = False
    family: bool = False  # the tile stands for its rank in every suit, or its whole honours group
    picked: bool = False  # each seat picks its own kind after the deal; the wall place only anchors others
    settle: Literal["after_deal", "at_end"] | None = None
    with_kongs: bool = False


# ---- 精 scoring ------------------------------------------------------------------------------


class JingDecl(Decl):
    """Base of the ``jing NAME = …`` declarations; ``type`` says which body form it is."""

    kind: Literal["jing"] = "jing"


class JingValue(JingDecl):
    """``jing value = 正 2, 副 1``: 子 per 正精 / 副精 tile held."""

    type: Literal["value"] = "value"
    main: int
    next: int


class JingKong(JingDecl):
    """``jing kong = concealed 2, exposed 1, added 1``: kong points in a settlement with kongs."""

    type: Literal["kong"] = "kong"
    concealed: int
    exposed: int
    added: int


class JingMultiplier(JingDecl):
    """``jing 霸王 = x2 when sole_holder``: multiplies a player's 精 score when the condition holds."""

    type: Literal["multiplier"] = "multiplier"
    factor: int
    when: Expr


class JingFormula(JingDecl):
    """``jing NAME = score n * (n - 3) when n >= 5``: replaces the raw count n by a formula."""

    type: Literal["formula"] = "formula"
    score: Expr
    when: Expr


class JingKongBonus(JingDecl):
    """``jing 杠精 = 10 each per jing kong [of any indicator | of each indicator] [exposed from
    discarder] [instead of kong points]``: a kong of four 精 (of this indicator, or with
    ``any_indicator`` of any indicator of the hand, booked in the settlement ``with kongs``; with
    ``each_indicator`` of any indicator too, each booked in the settlement of the indicator whose
    精 it is); with ``exposed_from_discarder`` a kong made on a discard is paid by that discarder
    alone, ``amount`` for each other seat."""

    type: Literal["kong_bonus"] = "kong_bonus"
    amount: int
    replaces_kong_points: bool = False
    any_indicator: bool = False
    each_indicator: bool = False
    exposed_from_discarder: bool = False


class JingLiability(JingDecl):
    """``jing NAME = liability FORMULA on claimed discard``: the discarder of a claimed 精 pays."""

    type: Literal["liability"] = "liability"
    rule: str


class JingLiabilityOver(JingDecl):
    """``jing NAME = liability over N|FORMULA on [first] claimed discard [of IND]``: a seat whose
    精 score (after formula, multipliers and bonuses) is over ``over`` — or, with ``rule``, whose
    count makes that formula fire — and that claimed a 精 from another seat's discard is paid by
    that discarder alone, its score for every payer (the others pay it nothing). The discarder of
    its last such claim in meld order, or of its first with ``first``; only in the settlement of
    ``indicator`` when one is named. Exactly one of ``over`` and ``rule`` is set."""

    type: Literal["liability_over"] = "liability_over"
    over: int | None = None
    rule: str | None = None
    first: bool = False
    indicator: str | None = None


class JingAdder(JingDecl):
    """``jing 霸王 = +10 when sole_holder``: adds N 子 to a player's 精 score (after the
    formula and the multipliers) when the condition holds — a bonus in place of a multiplier."""

    type: Literal["adder"] = "adder"
    amount: int
    when: Expr


class JingDiscarded(JingDecl):
    """``jing NAME = count discarded``: the 精 tiles a seat discarded (and nobody claimed) still
    count in its n, and make it a holder for ``sole_holder``."""

    type: Literal["discarded"] = "discarded"


class JingKongsHold(JingDecl):
    """``jing NAME = count kongs``: a kong of 精 makes its owner a holder for ``sole_holder`` (霸王),
    as the 精 it holds in hand or in other melds do (its tiles count in n either way)."""

    type: Literal["kongs_hold"] = "kongs_hold"
class JingDiscardBonus(JingDecl):
    """``jing 出精 = 正 10, 副 5 each per discarded``: on a won hand, each other seat pays the
    winner ``main`` 子 for every 正精 and ``next`` for every 副精 of the wild indicators that the
    winner discarded in the hand, claimed or not — its own settlement part, named after the rule."""

    type: Literal["discard_bonus"] = "discard_bonus"
    main: int
    next: int


JingRule = Annotated[
    JingValue | JingKong | JingMultiplier | JingFormula | JingKongBonus | JingLiability | JingLiabilityOver | JingAdder
    | JingDiscarded | JingKongsHold | JingDiscardBonus,
    Field(discriminator="type"),
]


# ---- win score -------------------------------------------------------------------------------


class Adder(Model):
    """``+5 from discarder else each``: added after multipliers and the dealer factor."""

    amount: int
    payer: Payer
    fallback: Payer | None = None


class Fixed(Model):
    """``fixed 20 each [with F/G]``: a fixed amount from each payer in place of the base, the
    payment weights and the factors applied before adders — except the factors named after
    ``with`` (RULES.md §2: 天胡/地胡 ignore self-draw and dealer factors)."""

    amount: int
    with_factors: list[str] = []
    by_payment: bool = False  # ``fixed N by payment``: only the seats the win's payment weights cover pay N


class Fan(Decl):
    """``fan 德国 = x2, +5 from discarder else each when not wilds_used [instead of …]``.

    ``instead of A, B`` drops those fans when this one fires; ``instead of all [except A]``
    drops every other fan (but A)."""

    kind: Literal["fan"] = "fan"
    multiplier: int = 1
    adders: list[Adder] = []
    fixed: Fixed | None = None
    when: Expr
    instead_of: list[str] = []
    instead_of_all: bool = False
    instead_except: list[str] = []  # with instead_of_all: the fans that still apply
    no_win: bool = False  # ``no win``: a reading where this fan's condition holds is not a win


class Payment(Decl):
    """``payment discard = discarder x2, others x1 when discard``: who pays, by weight."""

    kind: Literal["payment"] = "payment"
    weights: dict[Payer, int]
    when: Expr
    paid_by: Literal["discarder", "robbed"] | None = None  # ``paid by discarder``/``robbed``: that seat pays every payer's amount


class Base(Decl):
    """``payment base = 1``: the base of the win score in 子."""

    kind: Literal["base"] = "base"
    amount: int


class Factor(Decl):
    """``factor 庄家 = 2 on win when …``: multiplies each transfer of the named scopes.

    Factors apply in declaration order, before the fans' adders unless ``after adders`` (or
    ``after caps``: after the adders and the caps).
    """

    kind: Literal["factor"] = "factor"
    value: Expr
    scopes: list[Scope]
    after_adders: bool = False
    after_caps: bool = False  # ``after caps``: applied after the adders and after the caps (at most N)
    when: Expr | None = None
    cap: int | None = None  # ``at most N``: each transfer of the scopes is at most N 子 (value unused);
    # on ``net``: each seat's net over the hand is at most N either way


class Exhaustive(Decl):
    """``exhaustive 荒庄 = dealer pays 5 each``: the payment of a drawn hand."""

    kind: Literal["exhaustive"] = "exhaustive"
    payer: Payer
    amount: int


class Flow(Decl):
    """``flow NAME = policy(key: value, key: a/b)``: a flow policy the game core follows.

    ``policy`` is a kind from :data:`engine.lang.flow.POLICIES`; ``params`` maps each given parameter
    to its values (a list, for ``a/b/c``)."""

    kind: Literal["flow"] = "flow"
    policy: str
    params: dict[str, list[str | int]] = {}


class OptionInfo(Model):
    """A declared ``option``: its choices, its default and the value this compile chose."""

    name: str
    label: str | None = None
    default: str
    chosen: str
    choices: list[str]
    origin: Origin
    set_at: Origin | None = None  # the `set` of a file below that chose it (None: the default or the caller's)


class Ruleset(Model):
    """A resolved ruleset: what every other module reads.

    Dict fields are keyed by declaration name, in declaration order (a parent's first).
    """

    name: str
    label: str | None = None
    file: str
    sources: list[str] = []
    extends: list[str] = []
    # every rule file read, this one first, then its parent …; not exported (paths are the machine's)
    files: list[str] = Field(default=[], exclude=True)
    suits: dict[str, Suit] = {}
    honours: dict[str, Honours] = {}
    table: dict[str, TableParam] = {}
    melds: dict[str, Meld] = {}
    patterns: dict[str, Pattern] = {}
    indicators: dict[str, Indicator] = {}
    jing: dict[str, JingRule] = {}
    base: Base | None = None
    payments: dict[str, Payment] = {}
    fans: dict[str, Fan] = {}
    factors: dict[str, Factor] = {}
    exhaustive: dict[str, Exhaustive] = {}
    flow: dict[str, Flow] = {}
    options: dict[str, OptionInfo] = {}

    # one overload per 精 body form: a caller gets that form's model (``jing_rules("value")[0].main``)
    @overload
    def jing_rules(self, type_: Literal["value"]) -> list[JingValue]: ...
    @overload
    def jing_rules(self, type_: Literal["kong"]) -> list[JingKong]: ...
    @overload
    def jing_rules(self, type_: Literal["multiplier"]) -> list[JingMultiplier]: ...
    @overload
    def jing_rules(self, type_: Literal["formula"]) -> list[JingFormula]: ...
    @overload
    def jing_rules(self, type_: Literal["kong_bonus"]) -> list[JingKongBonus]: ...
    @overload
    def jing_rules(self, type_: Literal["liability"]) -> list[JingLiability]: ...
    @overload
    def jing_rules(self, type_: Literal["liability_over"]) -> list[JingLiabilityOver]: ...
    @overload
    def jing_rules(self, type_: Literal["adder"]) -> list[JingAdder]: ...
    @overload
    def jing_rules(self, type_: Literal["discarded"]) -> list[JingDiscarded]: ...
    @overload
    def jing_rules(self, type_: Literal["kongs_hold"]) -> list[JingKongsHold]: ...
    @overload
    def jing_rules(self, type_: Literal["discard_bonus"]) -> list[JingDiscardBonus]: ...
    @overload
    def jing_rules(self, type_: str) -> list[JingRule]: ...

    def jing_rules(self, type_: str) -> Sequence[JingRule]:
        """The 精 rules of one type (``value``, ``kong``, ``multiplier`` …) in order."""
        return [r for r in self.jing.values() if r.type == type_]
