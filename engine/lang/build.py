"""Parse tree → statements: what each grammar rule of ``grammar/mjrules.lark`` builds.

:class:`Build` is a Lark ``Transformer`` with one method per grammar rule, named as the rule.
Each declaration becomes a :class:`~engine.lang.statements.Stmt` holding its IR object
(:mod:`engine.lang.ruleset`) and the names it refers to; a number out of its range, a
parameter given twice or a clause that contradicts another is a :class:`RuleError` here, at
its token. Names are checked later, once ``extends`` is resolved (:mod:`engine.lang.checks`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias, cast

from engine.errors import Location, RuleError, did_you_mean
from engine.lang import facts as F
from engine.lang import flow as FLOW
from engine.lang import limits as L
from engine.lang.build_base import BuildBase, Children, text_of, value_of
from engine.lang.pieces import (
    Cap,
    Choice,
    Copies,
    Extends,
    Header,
    Instead,
    Mult,
    NoWin,
    OneOf,
    PaidBy,
    PatternFlag,
    Source,
    Weight,
)
from engine.lang.ruleset import (
    Adder,
    Base,
    Component,
    End,
    Exhaustive,
    Factor,
    Fan,
    Fixed,
    Flow,
    Honours,
    HonourTile,
    Indicator,
    JingAdder,
    JingDecl,
    JingDiscardBonus,
    JingDiscarded,
    JingFormula,
    JingKong,
    JingKongBonus,
    JingKongsHold,
    JingLiability,
    JingLiabilityOver,
    JingMultiplier,
    JingValue,
    Meld,
    MeldKind,
    Num,
    Pattern,
    Payer,
    Payment,
    Position,
    Scope,
    Shape,
    Suit,
    TableParam,
)
from engine.lang.statements import (
    REF_FACTOR,
    REF_FAN,
    REF_GROUP,
    REF_INDICATOR,
    REF_JING_FORMULA,
    REF_MELD_OR_KIND,
    OptionStmt,
    SetStmt,
    Stmt,
)
from engine.lang.syntax import Meta, Token, v_args

JingBody: TypeAlias = tuple[type[JingDecl], dict[str, Any]]  # a 精 body form: its model and fields
# cast(Payer, …) and the like below: the grammar's terminal admits only those words (pydantic checks again)


@v_args(meta=True)
class Build(BuildBase):
    """Lark tree → statements. Methods are named after the grammar rules."""

    # -- file structure
    def start(self, meta: Meta, items: Children) -> list[Any]:
        return items

    def header(self, meta: Meta, c: Children) -> Header:
        return Header(str(c[0]), text_of(c[1]) if len(c) > 1 else None)

    def extends(self, meta: Meta, c: Children) -> Extends:
        return Extends(text_of(c[0]), self.loc(c[0]))

    def source(self, meta: Meta, c: Children) -> Source:
        return Source(text_of(c[0]))

    def override(self, meta: Meta, c: Children) -> Stmt:
        st: Stmt = c[0]
        st.op = "override"
        st.location = self.loc(meta)
        assert st.decl is not None  # the grammar overrides a declaration, never a `remove`
        st.decl = st.decl.model_copy(update={"origin": self.origin(meta)})
        return st

    def remove(self, meta: Meta, c: Children) -> Stmt:
        kind, name = str(c[0]), str(c[1])
        return Stmt("remove", kind, name, None, self.loc(meta))

    def option(self, meta: Meta, c: Children) -> OptionStmt:
        name = str(c[0])
        rest = list(c[1:])
        toks = [x for x in rest if isinstance(x, Token)]
        label = text_of(toks[0]) if len(toks) == 2 else None
        default = str(value_of(toks[-1]))
        choices: dict[str, list[Stmt]] = {}
        where: dict[str, Location] = {}
        for ch in (x for x in rest if isinstance(x, Choice)):
            if ch.value in choices:
                raise RuleError(f"option {name}: choice {ch.value!r} is given twice", ch.loc,
                                related=[("first given here", where[ch.value])])
            choices[ch.value], where[ch.value] = ch.stmts, ch.loc
        return OptionStmt(name, label, default, choices, self.loc(meta), self.loc(toks[-1]))

    def set(self, meta: Meta, c: Children) -> SetStmt:
        return SetStmt(str(c[0]), str(value_of(c[1])), self.loc(meta), self.loc(c[1]))

    def choice(self, meta: Meta, c: Children) -> Choice:
        return Choice(str(value_of(c[0])), list(c[1:]), self.loc(c[0]))

    # -- tiles
    def suit(self, meta: Meta, c: Children) -> Stmt:
        name = c[0]
        rest = list(c[1:])
        label = text_of(rest.pop(0)) if rest[0].type == "STRING" else None
        low, high = (self.int_in(f"suit {name}: rank", t, 0, L.MAX_RANK) for t in rest[:2])
        cyclic = any(x == "cyclic" for x in rest[2:])
        copies = next(x.n for x in rest[2:] if isinstance(x, Copies))
        if low > high:
            raise RuleError(f"suit {name}: ranks {low}..{high} is empty", self.loc(rest[0]),
                            hint=f"write ranks {high}..{low}")
        if high - low + 1 > L.MAX_RANKS:
            raise RuleError(f"suit {name}: {high - low + 1} ranks; a suit has at most {L.MAX_RANKS}",
                            self.loc(rest[1]))
        decl = Suit(name=str(name), label=label, low=low, high=high, cyclic=cyclic, copies=copies,
                    origin=self.origin(meta))
        return self.stmt(meta, "suit", name, decl)

    def honours(self, meta: Meta, c: Children) -> Stmt:
        name = c[0]
        rest = list(c[1:])
        label = text_of(rest.pop(0)) if isinstance(rest[0], Token) and rest[0].type == "STRING" else None
        tiles = [x for x in rest if isinstance(x, HonourTile)]
        if len(tiles) > L.MAX_RANKS:
            raise RuleError(f"honours {name}: {len(tiles)} tiles; a group has at most {L.MAX_RANKS}", self.loc(meta))
        cyclic = any(x == "cyclic" for x in rest)
        copies = next(x.n for x in rest if isinstance(x, Copies))
        decl = Honours(name=str(name), label=label, tiles=tiles, cyclic=cyclic, copies=copies,
                       origin=self.origin(meta))
        return self.stmt(meta, "honours", name, decl)

    def honour_tile(self, meta: Meta, c: Children) -> HonourTile:
        return HonourTile(name=str(c[0]), code=text_of(c[1]) if len(c) > 1 else None)

    def cyclic(self, meta: Meta, c: Children) -> str:
        return "cyclic"

    def copies(self, meta: Meta, c: Children) -> Copies:
        return Copies(self.int_in("copies", c[0], 1, L.MAX_COPIES))

    def table(self, meta: Meta, c: Children) -> Stmt:
        values = [self.int_in(f"table {c[0]}: number", v, 0, L.MAX_TABLE_NUMBER) if v.type == "INT" else value_of(v)
                  for v in c[1:]]
        decl = TableParam(name=str(c[0]), values=values, origin=self.origin(meta))
        return self.stmt(meta, "table", c[0], decl)

    # -- melds, patterns
    def meld(self, meta: Meta, c: Children) -> Stmt:
        decl = Meld(name=str(c[0]), meld_kind=cast(MeldKind, str(c[1])), shapes=list(c[2:]), origin=self.origin(meta))
        return self.stmt(meta, "meld", c[0], decl)

    def groups(self, meta: Meta, c: Children) -> list[str]:
        for tok in c:
            self.ref(REF_GROUP, tok)
        return [str(t) for t in c]

    def run(self, meta: Meta, c: Children) -> Shape:
        return Shape(type="run", size=self.int_in("run", c[0], 1, L.MAX_SET_TILES), groups=c[1])

    def distinct(self, meta: Meta, c: Children) -> Shape:
        return Shape(type="distinct", size=self.int_in("distinct", c[0], 1, L.MAX_SET_TILES), groups=c[1])

    def same(self, meta: Meta, c: Children) -> Shape:
        return Shape(type="same", size=self.int_in("same", c[0], 1, L.MAX_SET_TILES), declared=len(c) > 1)

    def pattern(self, meta: Meta, c: Children) -> Stmt:
        comps = [x for x in c[1:] if isinstance(x, Component)]
        flags: dict[str, Any] = {}
        for x in c[1:]:
            if isinstance(x, OneOf):
                flags["one_of"], flags["one_of_plus"] = x.names, x.plus
            elif isinstance(x, PatternFlag):
                flags[x.field] = x.value
        decl = Pattern(name=str(c[0]), components=comps, origin=self.origin(meta), **flags)
        return self.stmt(meta, "pattern", c[0], decl)

    def sets(self, meta: Meta, c: Children) -> Component:
        for tok in c[1:]:
            self.ref(REF_MELD_OR_KIND, tok)
        return Component(type="sets", count=self.int_in("sets", c[0], 0, L.MAX_HAND_TILES), of=[str(t) for t in c[1:]])

    def pair(self, meta: Meta, c: Children) -> Component:
        return Component(type="pair", count=1)

    def pairs(self, meta: Meta, c: Children) -> Component:
        return Component(type="pairs", count=self.int_in("pairs", c[0], 1, L.MAX_HAND_TILES))

    def rotten(self, meta: Meta, c: Children) -> Component:
        return Component(type="rotten", count=1, gap=self.int_in("rotten gap", c[0], 1, L.MAX_RANKS))

    def concealed(self, meta: Meta, c: Children) -> PatternFlag:
        return PatternFlag("concealed", True)

    def honours_natural(self, meta: Meta, c: Children) -> PatternFlag:
        return PatternFlag("honours_natural", True)

    def min_honours(self, meta: Meta, c: Children) -> PatternFlag:
        return PatternFlag("min_honours", self.int_in("honours >=", c[0], 0, L.MAX_HAND_TILES))

    def quads_as_pairs(self, meta: Meta, c: Children) -> PatternFlag:
        return PatternFlag("quads_as_pairs", True)

    def one_of(self, meta: Meta, c: Children) -> OneOf:
        return OneOf(c[0], c[1] if len(c) > 1 else [])

    def only(self, meta: Meta, c: Children) -> PatternFlag:
        return PatternFlag("only", c[0])

    # -- indicators
    def indicator(self, meta: Meta, c: Children) -> Stmt:
        name = c[0]
        rest = list(c[1:])
        label = text_of(rest.pop(0)) if isinstance(rest[0], Token) else None
        pos: Position = rest.pop(0)
        attrs: dict[str, Any] = {}
        for a in rest:
            attrs.update(a)
        if pos.type == "flips" and attrs.get("family"):
            raise RuleError(f"indicator {name}: the flips choose one tile; it cannot be a `family`", self.loc(meta))
        if pos.type == "each_tile" and (attrs.get("wild") or not attrs.get("settle")):
            raise RuleError(f"indicator {name}: `each tile where …` makes indicators of the hands' tiles; they are "
                            "never wild, and must say when they are settled", self.loc(meta),
                            hint="write `…, settle after deal` (the dealt hands) or `…, settle at end` (every tile held)")
        if attrs.get("family") and (attrs.get("wild") or not attrs.get("settle") or pos.type == "each_tile"):
            raise RuleError(f"indicator {name}: a `family` indicator settles one indicator for each tile of its "
                            "family; it is never wild, is placed on the wall, and must say when it is settled",
                            self.loc(meta), hint="e.g. `indicator 歌 = under upper, family, settle at end`")
        if attrs.get("picked") and (pos.type not in ("stack_top", "under", "left", "right") or attrs.get("family")
                                    or attrs.get("hidden") or attrs.get("settle") != "at_end"):
            raise RuleError(f"indicator {name}: `picked by each seat` takes a place on the wall (the dice stack, or "
                            "beside another indicator) whose tile is never turned, is one tile kind (not a `family`), "
                            "is never shown before the end, and settles the winner's pick at the end", self.loc(meta),
                            hint=f"e.g. `indicator {name} = top of dice stack from tail, picked by each seat, wild, "
                                 "settle at end`")
        decl = Indicator(name=str(name), label=label, position=pos, origin=self.origin(meta), **attrs)
        if pos.type == "next_draw" and (decl.wild or decl.settle != "at_end"):
            raise RuleError(f"indicator {name} = next draw {pos.count} is turned only when the hand ends: it is "
                            "not wild and it settles at the end", self.loc(meta),
                            hint=f"write `indicator {name} = next draw {pos.count}, settle at end`")
        return self.stmt(meta, "indicator", name, decl)

    def pos_stack_top(self, meta: Meta, c: Children) -> Position:
        return Position(type="stack_top", end=cast(End, str(c[0])))

    def _pos(self, type_: Literal["under", "left", "right", "previous"], c: Children) -> Position:
        self.ref(REF_INDICATOR, c[0])
        return Position(type=type_, ref=str(c[0]))

    def pos_under(self, meta: Meta, c: Children) -> Position:
        return self._pos("under", c)

    def pos_left(self, meta: Meta, c: Children) -> Position:
        return self._pos("left", c)

    def pos_right(self, meta: Meta, c: Children) -> Position:
        return self._pos("right", c)

    def pos_previous(self, meta: Meta, c: Children) -> Position:
        return self._pos("previous", c)

    def pos_flips(self, meta: Meta, c: Children) -> Position:
        where = c[-1]
        self.check_expr(where, F.JING)
        ints = [t for t in c if isinstance(t, Token) and t.type == "INT"]  # up to N [at most M per sum]
        per_sum = self.int_in("flips: at most … per sum", ints[1], 1, L.MAX_TABLE_NUMBER) if len(ints) > 1 else None
        return Position(type="flips", end=cast(End, str(c[0])), count=self.int_in("flips: up to", ints[0], 1,
                                                                                L.MAX_TABLE_NUMBER),
                        per_sum=per_sum, where=where)

    def pos_each_tile(self, meta: Meta, c: Children) -> Position:
        self.check_expr(c[0], F.JING)
        return Position(type="each_tile", where=c[0])
    def pos_next_draw(self, meta: Meta, c: Children) -> Position:
        return Position(type="next_draw", count=self.int_in("next draw", c[0], 1, L.MAX_TABLE_NUMBER))

    def wild(self, meta: Meta, c: Children) -> dict[str, bool]:
        return {"wild": True}

    def hidden(self, meta: Meta, c: Children) -> dict[str, bool]:
        return {"hidden": True}

    def family(self, meta: Meta, c: Children) -> dict[str, bool]:
        return {"family": True}

    def picked(self, meta: Meta, c: Children) -> dict[str, bool]:
        return {"picked": True}

    def settle(self, meta: Meta, c: Children) -> dict[str, str | bool]:
        return {"settle": c[0], "with_kongs": len(c) > 1}

    def after_deal(self, meta: Meta, c: Children) -> str:
        return "after_deal"

    def at_end(self, meta: Meta, c: Children) -> str:
        return "at_end"

    # -- 精
    def jing(self, meta: Meta, c: Children) -> Stmt:
        name, body = c
        kind_cls, fields = body
        decl = kind_cls(name=str(name), origin=self.origin(meta), **fields)
        return self.stmt(meta, "jing", name, decl)

    def jing_value(self, meta: Meta, c: Children) -> JingBody:
        ints = [self.int_in("精 value", t, 0, L.MAX_AMOUNT) for t in c if isinstance(t, Token) and t.type == "INT"]
        return JingValue, {"main": ints[0], "next": ints[1]}

    def jing_kong(self, meta: Meta, c: Children) -> JingBody:
        ints = [self.int_in("kong points", t, 0, L.MAX_AMOUNT) for t in c]
        return JingKong, {"concealed": ints[0], "exposed": ints[1], "added": ints[2] if len(ints) > 2 else ints[1]}

    def jing_mult(self, meta: Meta, c: Children) -> JingBody:
        self.check_expr(c[1], F.JING)
        return JingMultiplier, {"factor": self.int_in("multiplier", c[0], 0, L.MAX_MULTIPLIER), "when": c[1]}

    def jing_formula(self, meta: Meta, c: Children) -> JingBody:
        self.check_expr(c[0], F.JING)
        self.check_expr(c[1], F.JING)
        return JingFormula, {"score": c[0], "when": c[1]}

    def jing_kong_bonus(self, meta: Meta, c: Children) -> JingBody:
        kinds = {t.type for t in c[1:] if isinstance(t, Token)}
        return JingKongBonus, {"amount": self.int_in("amount", c[0], 0, L.MAX_AMOUNT),
                               "replaces_kong_points": "INSTEAD_KONG" in kinds,
                               "any_indicator": "ANY_INDICATOR" in kinds,
                               "each_indicator": "EACH_INDICATOR" in kinds,
                               "exposed_from_discarder": "EXPOSED_FROM_DISCARDER" in kinds}

    def jing_liability(self, meta: Meta, c: Children) -> JingBody:
        self.ref(REF_JING_FORMULA, c[0])
        return JingLiability, {"rule": str(c[0])}

    def jing_liability_over(self, meta: Meta, c: Children) -> JingBody:
        at, rest = c[0], c[1:]
        first = bool(rest) and getattr(rest[0], "type", None) == "FIRST_CLAIMED"
        if first:
            rest = rest[1:]
        if rest:
            self.ref(REF_INDICATOR, rest[0])
        body: dict[str, object] = {"first": first, "indicator": str(rest[0]) if rest else None}
        if getattr(at, "type", None) == "NAME":  # a formula's name: the threshold is where it fires
            self.ref(REF_JING_FORMULA, at)
            body["rule"] = str(at)
        else:
            body["over"] = self.int_in("liability threshold", at, 0, L.MAX_AMOUNT)
        return JingLiabilityOver, body

    def jing_add(self, meta: Meta, c: Children) -> JingBody:
        self.check_expr(c[1], F.JING)
        return JingAdder, {"amount": self.int_in("amount", c[0], 0, L.MAX_AMOUNT), "when": c[1]}

    def jing_discarded(self, meta: Meta, c: Children) -> JingBody:
        return JingDiscarded, {}

    def jing_kongs_hold(self, meta: Meta, c: Children) -> JingBody:
        return JingKongsHold, {}
    def jing_discard_bonus(self, meta: Meta, c: Children) -> JingBody:
        ints = [self.int_in("amount", t, 0, L.MAX_AMOUNT) for t in c if isinstance(t, Token) and t.type == "INT"]
        return JingDiscardBonus, {"main": ints[0], "next": ints[1]}

    # -- win score
    def fan(self, meta: Meta, c: Children) -> Stmt:
        name = c[0]
        fields: dict[str, Any] = {"multiplier": 1, "adders": [], "fixed": None}
        mults = 0
        for x in c[1:]:
            if isinstance(x, Mult):
                if mults:
                    raise RuleError(f"fan {name} has two multipliers", x.loc, hint="write one, e.g. x4")
                mults += 1
                fields["multiplier"] = x.value
            elif isinstance(x, Adder):
                fields["adders"].append(x)
            elif isinstance(x, Fixed):
                fields["fixed"] = x
            elif isinstance(x, NoWin):
                fields["no_win"] = True
            elif isinstance(x, Instead):
                fields["instead_of_all"] = x.every
                fields["instead_of"] = x.names
                fields["instead_except"] = x.except_
            else:
                self.check_expr(x, F.WIN)
                fields["when"] = x
        if fields.get("no_win") and (mults or fields["adders"] or fields["fixed"]):
            raise RuleError(f"fan {name}: `no win` refuses the win, so it takes no other effect", self.loc(meta),
                            hint=f"write `fan {name} = no win when …` alone, and the scoring in another fan")
        decl = Fan(name=str(name), origin=self.origin(meta), **fields)
        return self.stmt(meta, "fan", name, decl)

    def no_win(self, meta: Meta, c: Children) -> NoWin:
        return NoWin(self.loc(meta))

    def mult(self, meta: Meta, c: Children) -> Mult:
        return Mult(self.int_in("multiplier", c[0], 0, L.MAX_MULTIPLIER), self.loc(c[0]))

    def add(self, meta: Meta, c: Children) -> Adder:
        return Adder(amount=self.int_in("amount", c[0], 0, L.MAX_AMOUNT), payer=cast(Payer, str(c[1])),
                     fallback=cast(Payer, str(c[2])) if len(c) > 2 else None)

    def fixed(self, meta: Meta, c: Children) -> Fixed:
        by_payment = any(isinstance(t, Token) and t.type == "BY_PAYMENT" for t in c[1:])
        names = [t for t in c[1:] if not (isinstance(t, Token) and t.type == "BY_PAYMENT")]
        for tok in names:
            self.ref(REF_FACTOR, tok)
        return Fixed(amount=self.int_in("amount", c[0], 0, L.MAX_AMOUNT), with_factors=[str(t) for t in names],
                     by_payment=by_payment)

    def instead(self, meta: Meta, c: Children) -> Instead:
        names = [t for t in c if t.type != "ALL"]
        for tok in names:
            self.ref(REF_FAN, tok)
        if c[0].type == "ALL":
            return Instead(every=True, names=[], except_=[str(t) for t in names])
        return Instead(every=False, names=[str(t) for t in names], except_=[])

    def payment(self, meta: Meta, c: Children) -> Stmt:
        name = c[0]
        weights: dict[Payer, int] = {}
        paid_by: Literal["discarder", "robbed"] | None = None
        for w in c[1:-1]:
            if isinstance(w, PaidBy):
                if w.scheme not in ("discarder", "robbed"):
                    raise RuleError(f"payment {name} is paid by {w.scheme}: only `paid by discarder` and `paid by robbed` "
                                    "are payment schemes (that seat pays every payer's amount)", w.loc,
                                    hint="write `paid by discarder` or `paid by robbed`")
                paid_by = cast(Literal["discarder", "robbed"], w.scheme)
                continue
            assert isinstance(w, Weight), "a payment's clauses are weights and `paid by`"
            payer = cast(Payer, w.payer)
            if payer in weights:
                raise RuleError(f"payment {name} names {w.payer} twice", w.loc)
            weights[payer] = w.amount
        self.check_expr(c[-1], F.WIN)
        decl = Payment(name=str(name), weights=weights, when=c[-1], paid_by=paid_by, origin=self.origin(meta))
        return self.stmt(meta, "payment", name, decl)

    def paid_by(self, meta: Meta, c: Children) -> PaidBy:
        return PaidBy(str(c[0]), self.loc(c[0]))

    def weight(self, meta: Meta, c: Children) -> Weight:
        return Weight(str(c[0]), self.int_in("multiplier", c[1], 0, L.MAX_MULTIPLIER), self.loc(c[0]))

    def payment_base(self, meta: Meta, c: Children) -> Stmt:
        if str(c[0]) != "base":
            raise RuleError(f"`payment {c[0]} = {c[1]}` is not a payment", self.loc(c[0]),
                            hint="a number alone is only allowed for `payment base`; a payment "
                                 "names its payers: `payment discard = discarder x2, others x1 when discard`")
        decl = Base(name="base", amount=self.int_in("payment base", c[1], 0, L.MAX_AMOUNT), origin=self.origin(meta))
        return self.stmt(meta, "payment", c[0], decl)

    def factor(self, meta: Meta, c: Children) -> Stmt:
        name, value = c[0], c[1]
        cap = None
        if isinstance(value, Cap):
            cap, value = value.amount, Num(value=1)
        scopes = [cast(Scope, str(t)) for t in c[2:] if isinstance(t, Token) and t.type == "SCOPE"]
        after = any(isinstance(t, Token) and t.type == "AFTER_ADDERS" for t in c[2:])
        after_caps = any(isinstance(t, Token) and t.type == "AFTER_CAPS" for t in c[2:])
        when = c[-1] if len(c) > 2 and not isinstance(c[-1], Token) else None
        if "net" in scopes and (cap is None or scopes != ["net"] or after or len(c) > 2 and not isinstance(c[-1], Token)):
            at = next(t for t in c[2:] if isinstance(t, Token) and t.type == "SCOPE" and str(t) == "net")
            raise RuleError(f"factor {name}: `on net` is a cap alone: each seat's net over the hand", self.loc(at),
                            hint="write `factor NAME = at most N on net` (no other scope, no `after adders`, no `when`)")
        context = F.TRANSFER if set(scopes) == {"win"} else F.SETTLE
        self.check_expr(value, context)
        if when is not None:
            self.check_expr(when, context)
        decl = Factor(name=str(name), value=value, scopes=scopes, after_adders=after or after_caps,
                      after_caps=after_caps, when=when, cap=cap,
                      origin=self.origin(meta))
        return self.stmt(meta, "factor", name, decl)

    def cap(self, meta: Meta, c: Children) -> Cap:
        return Cap(self.int_in("cap", c[0], 0, L.MAX_AMOUNT))

    def exhaustive(self, meta: Meta, c: Children) -> Stmt:
        decl = Exhaustive(name=str(c[0]), payer=cast(Payer, str(c[1])),
                          amount=self.int_in("amount", c[2], 0, L.MAX_AMOUNT), origin=self.origin(meta))
        return self.stmt(meta, "exhaustive", c[0], decl)

    def flow(self, meta: Meta, c: Children) -> Stmt:
        name, policy = c[0], c[1]
        params: dict[str, list[str | int]] = {}
        where: dict[str, Location] = {}
        for a in c[2:]:
            if a.key is None:
                raise RuleError(f"flow {name}: name each parameter, e.g. {policy}(key: value)", a.location,
                                hint=_flow_hint(str(policy)))
            key, values, loc = a.key, a.values, a.location
            if key in params:
                raise RuleError(f"flow {name}: parameter {key!r} given twice", loc)
            params[key], where[key] = values, loc
        problem = FLOW.check(str(policy), params)
        if problem:
            message, key = problem
            raise RuleError(f"flow {name}: {message}", where[key] if key else self.loc(policy),
                            hint=did_you_mean(str(policy), FLOW.POLICIES) if str(policy) not in FLOW.POLICIES
                            else _flow_hint(str(policy)))
        decl = Flow(name=str(name), policy=str(policy), params=params, origin=self.origin(meta))
        return self.stmt(meta, "flow", name, decl)

    def flow_kv(self, meta: Meta, c: Children) -> _FlowArg:
        return _FlowArg(str(c[0]), c[1].values, self.loc(c[0]))

    def flow_value(self, meta: Meta, c: Children) -> _FlowArg:
        return _FlowArg(None, [value_of(t) for t in c], self.loc(c[0]))


@dataclass
class _FlowArg:
    key: str | None  # None: a value given without its parameter name
    values: list[str | int]
    location: Location


def _flow_hint(policy: str) -> str:
    spec = FLOW.POLICIES[policy]
    return f"{policy}(" + ", ".join(
        f"{k}: {'/'.join(p.words) if p.words else 'N'}" for k, p in spec.params.items()) + ")"

