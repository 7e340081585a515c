"""``mjrules diff``: what two resolved rulesets change, rule path by rule path.

Each declaration of a resolved ruleset is rendered back to rule-file text (the part after
``KIND NAME =``), keyed by its path (``fan.大七对``, ``table.dead_wall``), with the file and line
it came from — its own file or the parent it inherits from. Two rulesets are compared path by
path: ``+`` added, ``-`` removed, ``~`` changed (old → new). The ruleset's name, title and
sources are not rules and are not compared.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.lang.ruleset import (
    Base,
    BinOp,
    BoolOp,
    Cmp,
    Decl,
    Exhaustive,
    Expr,
    Factor,
    Fan,
    Flow,
    Honours,
    Indicator,
    JingAdder,
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
    Neg,
    Not,
    Num,
    Origin,
    Pattern,
    PatternIs,
    Payment,
    Ruleset,
    Shape,
    Suit,
    TableParam,
    Var,
)

# binding strength, loosest first: or, and, not, comparison, + -, * /, unary
_LEVEL = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "neg": 7, "atom": 8}


def expr_text(e: Expr, parent: int = 0) -> str:
    """An expression as the rule file would write it, with only the parentheses it needs."""
    if isinstance(e, Num):
        return str(e.value)
    if isinstance(e, Var):
        return e.name
    if isinstance(e, PatternIs):
        return f"pattern {e.pattern}"
    if isinstance(e, Not):
        text, level = f"not {expr_text(e.arg, _LEVEL['not'])}", _LEVEL["not"]
    elif isinstance(e, Neg):
        text, level = f"-{expr_text(e.arg, _LEVEL['neg'])}", _LEVEL["neg"]
    elif isinstance(e, BoolOp):
        level = _LEVEL[e.op]
        text = f" {e.op} ".join(expr_text(a, level) for a in e.args)
    elif isinstance(e, Cmp):
        level = _LEVEL["cmp"]
        text = f"{expr_text(e.left, level)} {e.op} {expr_text(e.right, level)}"
    else:
        assert isinstance(e, BinOp)
        level = _LEVEL[e.op]
        text = f"{expr_text(e.left, level)} {e.op} {expr_text(e.right, level + 1)}"
    return f"({text})" if level < parent or (level == parent and level == _LEVEL["cmp"]) else text


def _shape(sh: Shape) -> str:
    if sh.type == "same":
        return f"same {sh.size}" + (" declared" if sh.declared else "")
    return f"{sh.type} {sh.size} in {'+'.join(sh.groups)}"


def decl_text(d: Decl) -> str:
    """A declaration's body as rule-file text (what follows ``KIND NAME =``)."""
    if isinstance(d, Suit):
        return f"ranks {d.low}..{d.high}" + (" cyclic" if d.cyclic else "") + f" copies {d.copies}"
    if isinstance(d, Honours):
        tiles = ", ".join(t.name + (f' "{t.code}"' if t.code else "") for t in d.tiles)
        return tiles + (" cyclic" if d.cyclic else "") + f" copies {d.copies}"
    if isinstance(d, TableParam):
        return " ".join(str(v) for v in d.values)
    if isinstance(d, Meld):
        return f"{d.meld_kind} = " + " | ".join(_shape(s) for s in d.shapes)
    if isinstance(d, Pattern):
        parts = []
        for c in d.components:
            if c.type == "sets":
                parts.append(f"sets {c.count}" + (f" of {'/'.join(c.of)}" if c.of else ""))
            elif c.type == "pair":
                parts.append("pair")
            elif c.type == "pairs":
                parts.append(f"pairs {c.count}")
            else:
                parts.append(f"rotten gap {c.gap}")
        cons = (["concealed"] if d.concealed else []) + (["honours natural"] if d.honours_natural else []) \
            + ([f"honours >= {d.min_honours}"] if d.min_honours else []) + (["quads as pairs"] if d.quads_as_pairs else []) \
            + ([f"one of {'+'.join(d.one_of)}" + (f" plus {'+'.join(d.one_of_plus)}" if d.one_of_plus else "")]
               if d.one_of else []) + ([f"only {'+'.join(d.only)}"] if d.only else [])
        return ", ".join([" + ".join(parts)] + cons)
    if isinstance(d, Indicator):
        p = d.position
        where = expr_text(p.where) if p.where is not None else ""
        per_sum = f" at most {p.per_sum} per sum" if p.per_sum is not None else ""
        pos = {"stack_top": f"top of dice stack from {p.end}", "under": f"under {p.ref}", "left": f"left of {p.ref}",
               "right": f"right of {p.ref}", "previous": f"previous {p.ref}",
               "next_draw": f"next draw {p.count}", "each_tile": f"each tile where {where}",
               "flips": f"flips from {p.end} up to {p.count}{per_sum} stop when {where}"}[p.type]
        attrs = (["wild"] if d.wild else []) + (["hidden"] if d.hidden else []) + (["family"] if d.family else []) + (
            ["picked by each seat"] if d.picked else []) + (
            [("settle after deal" if d.settle == "after_deal" else "settle at end") + (" with kongs" if d.with_kongs else "")]
            if d.settle else [])
        return ", ".join([pos] + attrs)
    if isinstance(d, JingValue):
        return f"正 {d.main}, 副 {d.next}"
    if isinstance(d, JingKong):
        return f"concealed {d.concealed}, exposed {d.exposed}, added {d.added}"
    if isinstance(d, JingMultiplier):
        return f"x{d.factor} when {expr_text(d.when)}"
    if isinstance(d, JingFormula):
        return f"score {expr_text(d.score)} when {expr_text(d.when)}"
    if isinstance(d, JingKongBonus):
        return (f"{d.amount} each per jing kong" + (" of any indicator" if d.any_indicator else "")
                + (" of each indicator" if d.each_indicator else "")
                + (" exposed from discarder" if d.exposed_from_discarder else "")
                + (" instead of kong points" if d.replaces_kong_points else ""))
    if isinstance(d, JingLiability):
        return f"liability {d.rule} on claimed discard"
    if isinstance(d, JingLiabilityOver):
        at = d.rule if d.rule is not None else d.over
        return (f"liability over {at} on {'first ' if d.first else ''}claimed discard"
                + (f" of {d.indicator}" if d.indicator else ""))
    if isinstance(d, JingAdder):
        return f"+{d.amount} when {expr_text(d.when)}"
    if isinstance(d, JingDiscarded):
        return "count discarded"
    if isinstance(d, JingKongsHold):
        return "count kongs"
    if isinstance(d, JingDiscardBonus):
        return f"正 {d.main}, 副 {d.next} each per discarded"
    if isinstance(d, Fan):
        effects = []
        if d.fixed:
            payers = "by payment" if d.fixed.by_payment else "each"
            effects.append(f"fixed {d.fixed.amount} {payers}"
                           + (f" with {'/'.join(d.fixed.with_factors)}" if d.fixed.with_factors else ""))
        if d.multiplier != 1:
            effects.append(f"x{d.multiplier}")
        effects += [f"+{a.amount} from {a.payer}" + (f" else {a.fallback}" if a.fallback else "") for a in d.adders]
        if d.no_win:
            effects.append("no win")
        text = ", ".join(effects) + f" when {expr_text(d.when)}"
        if d.instead_of_all:
            text += " instead of all" + (f" except {', '.join(d.instead_except)}" if d.instead_except else "")
        elif d.instead_of:
            text += f" instead of {', '.join(d.instead_of)}"
        return text
    if isinstance(d, Payment):
        return ", ".join(f"{k} x{v}" for k, v in d.weights.items()) + (
            f" paid by {d.paid_by}" if d.paid_by else "") + f" when {expr_text(d.when)}"
    if isinstance(d, Base):
        return str(d.amount)
    if isinstance(d, Factor):
        value = f"at most {d.cap}" if d.cap is not None else expr_text(d.value)
        text = f"{value} on {', '.join(d.scopes)}" + (" after caps" if d.after_caps
                                                        else " after adders" if d.after_adders else "")
        return text + (f" when {expr_text(d.when)}" if d.when is not None else "")
    if isinstance(d, Exhaustive):
        return f"{d.payer} pays {d.amount} each"
    if isinstance(d, Flow):
        return f"{d.policy}(" + ", ".join(f"{k}: {'/'.join(str(v) for v in vs)}" for k, vs in d.params.items()) + ")"
    raise TypeError(f"no text for {type(d).__name__}")


_KIND_OF_FIELD = {"suits": "suit", "honours": "honours", "table": "table", "melds": "meld", "patterns": "pattern",
                  "indicators": "indicator", "jing": "jing", "payments": "payment", "fans": "fan",
                  "factors": "factor", "exhaustive": "exhaustive", "flow": "flow"}


@dataclass(frozen=True)
class Rule:
    """One rule of a resolved ruleset: its text and where it was written."""

    text: str
    origin: Origin | None


def rules_of(rs: Ruleset) -> dict[str, Rule]:
    """Path → rule for every declaration (and chosen option) of a resolved ruleset."""
    out: dict[str, Rule] = {}
    for field, kind in _KIND_OF_FIELD.items():
        for name, d in getattr(rs, field).items():
            label = getattr(d, "label", None)
            text = decl_text(d)
            if kind == "indicator" and label:
                text = f'{text} ("{label}")'
            out[f"{kind}.{name}"] = Rule(text, d.origin)
    if rs.base is not None:
        out["payment.base"] = Rule(decl_text(rs.base), rs.base.origin)
    for name, o in rs.options.items():
        out[f"option.{name}"] = Rule(f"{o.chosen} (choices {', '.join(o.choices)}; default {o.default})",
                                     o.set_at or o.origin)  # a `set` shows where the value was chosen
    return out


@dataclass(frozen=True)
class Change:
    """One difference: ``op`` is ``+``, ``-`` or ``~``."""

    op: str
    path: str
    old: Rule | None
    new: Rule | None

    def to_json(self) -> dict[str, Any]:
        """The change as JSON: op, path, and each side's text and file:line."""
        def side(r: Rule | None) -> dict[str, str] | None:
            return None if r is None else {"text": r.text, "at": where(r.origin)}

        return {"op": self.op, "path": self.path, "old": side(self.old), "new": side(self.new)}


def diff(a: Ruleset, b: Ruleset) -> list[Change]:
    """The changes from ``a`` to ``b``, in ``a``'s order then ``b``'s additions."""
    ra, rb = rules_of(a), rules_of(b)
    out = []
    for path, old in ra.items():
        new = rb.get(path)
        if new is None:
            out.append(Change("-", path, old, None))
        elif new.text != old.text:
            out.append(Change("~", path, old, new))
    out += [Change("+", path, None, new) for path, new in rb.items() if path not in ra]
    return out


def short_path(file: str) -> str:
    """A file as a person wants to read it: ``<bundled>/NAME.rules`` for a rule file of the
    installed package (even when a virtualenv sits below the working directory), else relative
    to the working directory when below it, else its full path — so a local copy of a bundled
    file never reads the same as the bundled one. In a source checkout the bundled files are
    ``rulesets/NAME.rules``, relative as any other file."""
    from engine.lang.resources import BUNDLED_SHOWN, rulesets_dir

    p, bundled = Path(file).resolve(), rulesets_dir().resolve()
    if p.parent == bundled and bundled.parent.name == "engine":  # inside the installed package
        return BUNDLED_SHOWN + p.name
    try:
        return str(p.relative_to(Path.cwd().resolve()))
    except ValueError:
        return BUNDLED_SHOWN + p.name if p.parent == bundled else str(p)


def where(origin: Origin | None) -> str:
    """``rulesets/FILE.rules:77``: where a rule was written."""
    return "?" if origin is None else f"{short_path(origin.file)}:{origin.line}"
