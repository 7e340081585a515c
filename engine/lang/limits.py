"""Limits of the rule language: every rule file is untrusted input, so the compiler bounds the
work and memory of each construct *before* doing work proportional to it. None of these is a
rule of any variant; they keep a hostile or broken file from hanging, crashing or filling memory
(docs/language.md, "Limits", lists them for rule authors).

==========================  ===========  ====================================================
constant                    value        what it bounds
==========================  ===========  ====================================================
MAX_FILE_BYTES              100_000      size of one rule file, in bytes (UTF-8)
MAX_LINE_CHARS              1_000        length of one line, in characters
MAX_NAME_CHARS              64           length of a name (identifier, ruleset name)
MAX_STRING_CHARS            500          length of a quoted string (label, source, path)
MAX_DECLARATIONS            1_000        statements in one file (declarations, overrides,
                                         removes, options and their choices)
MAX_EXTENDS_DEPTH           16           files in one ``extends`` chain
MAX_EXPR_DEPTH              32           nesting of one condition or formula: each ``( )``,
                                         ``not``, ``-`` and arithmetic operator is a level
MAX_EXPR_NODES              256          names, numbers and operators in one expression
MAX_NUMBER                  1_000_000    any number written in a rule file (and in a formula)
MAX_AMOUNT                  100_000      amounts in 子: ``+N``, ``fixed N``, ``payment base``,
                                         ``exhaustive … pays N``, 精 values and kong points
MAX_MULTIPLIER              1_000        a multiplier ``xN`` (fans, payments, ``jing … xN``)
MAX_RANK                    99           a rank in ``ranks LOW..HIGH``
MAX_RANKS                   36           ranks of one suit, or tiles of one honours group
MAX_COPIES                  16           ``copies N`` of each tile
MAX_SET_TILES               8            tiles in one meld shape (``run N``, ``same N`` …)
MAX_HAND_TILES              64           counts about one hand: ``sets N``, ``pairs N``,
                                         ``honours >= N``, ``rotten gap N``
MAX_TABLE_NUMBER            1_000        a number of ``table NAME = …`` (hand size, stacks,
                                         deal counts, dead wall)
MAX_ERRORS                  100          syntax errors ``mjrules check`` collects in one file
                                         (it recovers at the next statement)
MAX_TABLE_VECTORS           6_000_000    count vectors the win tables visit, summed over the
                                         patterns and the tile groups (engine/lang/playable.py
                                         counts them from the declarations before any table
                                         is built; the bundled rulesets make about
                                         1.66 million)
==========================  ===========  ====================================================
"""
from __future__ import annotations

MAX_FILE_BYTES = 100_000
MAX_LINE_CHARS = 1_000
MAX_NAME_CHARS = 64
MAX_STRING_CHARS = 500
MAX_DECLARATIONS = 1_000
MAX_EXTENDS_DEPTH = 16
MAX_EXPR_DEPTH = 32
MAX_EXPR_NODES = 256
MAX_NUMBER = 1_000_000
MAX_AMOUNT = 100_000
MAX_MULTIPLIER = 1_000
MAX_RANK = 99
MAX_RANKS = 36
MAX_COPIES = 16
MAX_SET_TILES = 8
MAX_HAND_TILES = 64
MAX_TABLE_NUMBER = 1_000
MAX_ERRORS = 100
MAX_TABLE_VECTORS = 6_000_000
