"""What a clause of a statement is, as the transformer (:mod:`engine.lang.build`) hands it to
the statement it belongs to: a named type per clause (the header, ``extends``, an option's
choice, a pattern's flags, a fan's ``xN`` / ``no win`` / ``instead of``, a payment's weights and
``paid by``, a factor's cap), so that a statement reads its clauses by type, never by a tag in
the first place of a tuple. Plain data, made and read within the parse of one file.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.errors import Location
from engine.lang.statements import Stmt


@dataclass(frozen=True)
class Header:
    """``ruleset NAME "label"``."""

    name: str
    label: str | None


@dataclass(frozen=True)
class Extends:
    """``extends "parent"``: the parent's reference and where it is written."""

    parent: str
    loc: Location


@dataclass(frozen=True)
class Source:
    """``source "text"``: where the rules come from."""

    text: str


@dataclass(frozen=True)
class Choice:
    """One value of an ``option``: its statements and where the value is written."""

    value: str
    stmts: list[Stmt]
    loc: Location


@dataclass(frozen=True)
class Copies:
    """``xN`` copies of each tile of a suit or honours group."""

    n: int


PatternFlagName = Literal["concealed", "honours_natural", "min_honours", "quads_as_pairs", "only"]


@dataclass(frozen=True)
class PatternFlag:
    """A pattern's flag: the :class:`~engine.lang.ruleset.Pattern` field it sets and its value
    (``concealed``, ``honours natural``, ``honours >= N``, ``quads as pairs``, ``only …``)."""

    field: PatternFlagName
    value: bool | int | list[str]


@dataclass(frozen=True)
class OneOf:
    """A pattern's ``one of A B … (+ C …)``: the names, and those that may come on top."""

    names: list[str]
    plus: list[str]


@dataclass(frozen=True)
class Mult:
    """A fan's multiplier ``xN``."""

    value: int
    loc: Location


@dataclass(frozen=True)
class NoWin:
    """A fan's ``no win``: the win is refused."""

    loc: Location


@dataclass(frozen=True)
class Instead:
    """A fan's ``instead of A B`` (``names``) or ``instead of all except A B`` (``every`` True,
    ``except_`` the names kept)."""

    every: bool
    names: list[str]
    except_: list[str]


@dataclass(frozen=True)
class Weight:
    """A payment's ``payer xN``."""

    payer: str
    amount: int
    loc: Location


@dataclass(frozen=True)
class PaidBy:
    """A payment's ``paid by SEAT``: that seat pays every payer's amount."""

    scheme: str
    loc: Location


@dataclass(frozen=True)
class Cap:
    """A factor's ``cap N`` (the factor is 1, the total capped at N)."""

    amount: int
