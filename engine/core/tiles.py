"""Tile kinds, groups, successor cycles and the tile notation — all from a ruleset's
``suit`` and ``honours`` declarations.

Encoding, used everywhere in the engine: a tile kind is an ``int`` index into
:attr:`TileSet.kinds`, in declaration order (each suit's ranks low→high, then each honour
group in its listed order). A hand is a ``list[int]`` of kinds, or a count vector
``tuple[int, ...]`` of length ``len(kinds)``.

Notation (SCENARIOS.md): a rank followed by its suit letter, ranks may share a letter
(``123m 9s 55p``); an honour by its name (``东``) or its code (``1z``: the digit-and-letter
code the rule file gives it). Spaces are ignored.

Players' names are read too, from the same declarations: a suit's label after ranks (``5万``,
``55万``, the label ``suit m "万"`` gives), a Chinese numeral for a rank before it (``五万``, ``四五六万``), and
an honour's name followed by its group's label (``南风`` from ``honours winds "风" = 东 …``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from engine.errors import ScenarioError
from engine.lang.ruleset import Ruleset

# how a rank is written in Chinese before a suit's name (五万): the language's numerals, not a rule
NUMERALS = "一二三四五六七八九"  # 一 is rank 1, … 九 rank 9


@dataclass(frozen=True)
class TileKind:
    """One kind of tile: its index, canonical code (``3m`` / ``东``), group and rank."""

    index: int
    code: str
    group: str
    is_suit: bool
    rank: int | None  # suits only
    position: int  # position within its group
    copies: int
    alias: str | None = None  # honours: the digit code (``1z``)


@dataclass(frozen=True)
class Group:
    """A tile group (a suit or an honour group): its kinds in successor order."""

    name: str
    is_suit: bool
    kinds: tuple[int, ...]
    cyclic: bool
    label: str | None = None
    ranks: tuple[int, ...] = ()  # a suit's ranks, by kind in order (honours: none)


class TileSet:
    """The tiles a ruleset declares, with parsing, formatting and successors."""

    def __init__(self, rs: Ruleset):
        kinds: list[TileKind] = []
        groups: dict[str, Group] = {}
        for suit in rs.suits.values():
            idx = []
            for pos, r in enumerate(range(suit.low, suit.high + 1)):
                kinds.append(TileKind(len(kinds), f"{r}{suit.name}", suit.name, True, r, pos, suit.copies))
                idx.append(len(kinds) - 1)
            groups[suit.name] = Group(suit.name, True, tuple(idx), suit.cyclic, suit.label,
                                      tuple(range(suit.low, suit.high + 1)))
        for grp in rs.honours.values():
            idx = []
            for pos, t in enumerate(grp.tiles):
                kinds.append(TileKind(len(kinds), t.name, grp.name, False, None, pos, grp.copies, t.code))
                idx.append(len(kinds) - 1)
            groups[grp.name] = Group(grp.name, False, tuple(idx), grp.cyclic, grp.label)
        self.kinds: tuple[TileKind, ...] = tuple(kinds)
        self.groups: dict[str, Group] = groups
        self.by_name: dict[str, int] = {}
        for k in kinds:
            self.by_name[k.code] = k.index
            if k.alias:
                self.by_name[k.alias] = k.index
        for k in kinds:  # 南风: an honour's name and its group's label, when no tile is so named
            label = groups[k.group].label
            if not k.is_suit and label:
                self.by_name.setdefault(k.code + label, k.index)
        # what may follow a rank: a suit's letter or its label (万), longest first when read
        self.suit_words: dict[str, str] = {}
        for g in groups.values():
            if g.is_suit:
                self.suit_words.setdefault(g.name, g.name)
                if g.label:
                    self.suit_words.setdefault(g.label, g.name)
        self.suit_letters = {g.name for g in groups.values() if g.is_suit and len(g.name) == 1}
        self.code_letters = {a[-1] for a in (k.alias for k in kinds) if a and len(a) >= 2}

    def __len__(self) -> int:
        return len(self.kinds)

    def family(self, kind: int) -> tuple[int, ...]:
        """The kinds a ``family`` indicator's tile stands for (同一首歌): a suited tile's rank in
        every suit that has it, in declaration order; an honour, every tile of its group."""
        k = self.kinds[kind]
        if not k.is_suit:
            return self.groups[k.group].kinds
        return tuple(t.index for t in self.kinds if t.is_suit and t.rank == k.rank)

    @cached_property
    def total_tiles(self) -> int:
        """How many physical tiles the set has (136 for the family's set)."""
        return sum(k.copies for k in self.kinds)

    def group_of(self, kind: int) -> Group:
        """The group a tile kind belongs to."""
        return self.groups[self.kinds[kind].group]

    def groups_named(self, names: list[str]) -> list[Group]:
        """Resolve group references: a group name, ``suits`` or ``honours``."""
        out: list[Group] = []
        for n in names:
            if n == "suits":
                out += [g for g in self.groups.values() if g.is_suit]
            elif n == "honours":
                out += [g for g in self.groups.values() if not g.is_suit]
            else:
                out.append(self.groups[n])
        return out

    def successor(self, kind: int) -> int | None:
        """The next kind in the group's cycle (正精 → 副精); None at the end of an open group."""
        g = self.group_of(kind)
        pos = self.kinds[kind].position
        if pos + 1 < len(g.kinds):
            return g.kinds[pos + 1]
        return g.kinds[0] if g.cyclic else None

    def code(self, kind: int) -> str:
        """A kind's canonical code: ``3m``, ``东``."""
        return self.kinds[kind].code

    # ---- notation ------------------------------------------------------------------------
    def parse(self, text: str) -> list[int]:
        """``"123m东 5z"``, ``"5万 五万 南风"`` → kinds (see the module docstring). Raises
        :class:`ScenarioError` naming the bad part and saying what is accepted."""
        out: list[int] = []
        digits = ""
        i = 0
        s = "".join(text.split())
        while i < len(s):
            ch = s[i]
            if ch.isdigit() and ch.isascii():
                digits += ch
                i += 1
                continue
            if digits:
                word = self._suit_word_at(s, i)
                if word is None:  # an honour's digit code (5z), or a mistake
                    word = ch
                for d in digits:
                    out.append(self._suited(f"{d}{self.suit_words.get(word, word)}", text))
                digits = ""
                i += len(word)
                continue
            end = i
            while end < len(s) and s[end] in NUMERALS:
                end += 1
            if end > i and (word := self._suit_word_at(s, end)) is not None:  # 五万, 四五六万
                out += [self._suited(f"{NUMERALS.index(c) + 1}{self.suit_words[word]}", text) for c in s[i:end]]
                i = end + len(word)
                continue
            match = None
            for j in range(min(len(s), i + 4), i, -1):
                if s[i:j] in self.by_name and not s[i:j][0].isdigit():
                    match = s[i:j]
                    break
            if match is None:
                raise ScenarioError(f"cannot read tile at {s[i:]!r} in {text!r}", hint=self._notation_hint())
            out.append(self.by_name[match])
            i += len(match)
        if digits:
            raise ScenarioError(f"ranks {digits!r} have no suit letter in {text!r}", hint=self._notation_hint())
        return out

    def _suit_word_at(self, s: str, i: int) -> str | None:
        """The longest suit letter or label at ``s[i:]`` (``m``, ``万``), or None."""
        for word in sorted(self.suit_words, key=len, reverse=True):
            if s.startswith(word, i):
                return word
        return None

    def _suited(self, code: str, text: str) -> int:
        if code not in self.by_name:
            raise ScenarioError(f"no tile {code!r} in this ruleset (in {text!r})", hint=self._notation_hint())
        return self.by_name[code]

    def parse_one(self, text: str) -> int:
        """Exactly one tile kind; raises :class:`ScenarioError` otherwise."""
        kinds = self.parse(text)
        if len(kinds) != 1:
            raise ScenarioError(f"expected one tile, got {len(kinds)} in {text!r}")
        return kinds[0]

    def format(self, kinds: list[int] | tuple[int, ...]) -> str:
        """Kinds → compact notation, suits grouped (``123m5p东``), in kind order."""
        out: list[str] = []
        run_group, run_ranks = None, ""
        for k in sorted(kinds):
            t = self.kinds[k]
            if t.is_suit:
                if run_group not in (None, t.group):
                    out.append(run_ranks + run_group)
                    run_ranks = ""
                run_group = t.group
                run_ranks += str(t.rank)
            else:
                if run_group:
                    out.append(run_ranks + run_group)
                    run_group, run_ranks = None, ""
                out.append(t.code)
        if run_group:
            out.append(run_ranks + run_group)
        return "".join(out)

    def counts(self, kinds: list[int]) -> list[int]:
        """Kinds → count vector."""
        c = [0] * len(self.kinds)
        for k in kinds:
            c[k] += 1
        return c

    def _notation_hint(self) -> str:
        suits = [g for g in self.groups.values() if g.is_suit]
        letters = ", ".join(g.name for g in suits)
        labels = ", ".join(g.label for g in suits if g.label)
        example = next((g for g in suits if g.label), None)
        named = f" or its name ({labels}), e.g. 123m, 5{example.label}, 五{example.label}" if example else ", e.g. 123m"
        honours = [k for k in self.kinds if not k.is_suit]
        text = f"write ranks then a suit letter ({letters}){named}"
        if honours:
            first = honours[0]
            label = self.groups[first.group].label
            text += f"; honours by name ({''.join(k.code for k in honours)})"
            text += f", with their group's name ({first.code}{label})" if label else ""
            text += f", or by code ({first.alias}…)" if first.alias else ""
        return text
