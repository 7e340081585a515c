"""``mjrules play``: a person at the terminal against bots, or four bots watched (--auto).

The person sees only what their seat may see (:func:`engine.table.view.view_of`): their tiles grouped
by suit with the 精 marked, every meld and discard, the face-up indicators, and the legal
actions as a numbered menu. After each hand the ledger is shown.
"""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from engine.core.ledger import indicator_of
from engine.errors import MjError
from engine.table.actions import CLAIM, ROB, TAKES_OFFERED
from engine.table.events import Event
from engine.table.game import Action, Game, HandResult
from engine.table.view import public_event, view_of


def tiles_text(game: Game, kinds: list[int], wild: frozenset[int] = frozenset()) -> str:
    """Tiles grouped by suit, 精 marked with a *: ``123m 5p* 东南``."""
    groups: dict[str, list[int]] = {}
    for k in sorted(kinds):
        groups.setdefault(game.tiles.kinds[k].group, []).append(k)
    parts = []
    for ks in groups.values():
        plain = [k for k in ks if k not in wild]
        jing = [k for k in ks if k in wild]
        text = game.tiles.format(plain) if plain else ""
        text += "".join(f" {game.tiles.code(k)}*" for k in jing)
        parts.append(text.strip())
    return "  ".join(parts)


def show_table(out: Console, game: Game, seat: str | None) -> None:
    """The table as ``seat`` sees it (all of it when ``seat`` is None, after the hand)."""
    obs = view_of(game, seat, reveal=seat is None)
    inds = ", ".join(f"{game.rs.indicators[n].label or n} {t}" for n, t in obs["indicators"].items())
    out.print(f"dealer {obs['dealer']} (floor {obs['floor']})   wall {obs['live_wall']}   {inds}", markup=False)
    t = Table(show_header=True, box=None, pad_edge=False)
    for c in ("seat", "tiles", "melds", "discards"):
        t.add_column(c)
    for s in game.seats:
        mine = seat is None or s == seat
        hand = tiles_text(game, game.hands[s].concealed, game.wilds[s]) if mine else f"{obs['hand_sizes'][s]} tiles"
        melds = [f"{m['kind']} {''.join(m['tiles'])}" if m["tiles"] is not None else "kong ????" for m in obs["melds"][s]]
        t.add_row(s + (" ←" if s in game.to_act() else ""), hand, "  ".join(melds),
                  " ".join(obs["discards"][s]))
    out.print(t)


def action_text(game: Game, a: Action) -> str:
    """A menu line: ``discard 5p``, ``pung 7p (from W)``, ``chow 46m + 5m``."""
    if a.kind == "chow" and game.last_discard:
        return f"chow {game.tiles.format(list(a.tiles))} + {game.tiles.code(game.last_discard[1])}"
    if a.kind in TAKES_OFFERED and game.phase in (CLAIM, ROB) and game.last_discard:  # a pung, kong or win of it
        src = game.robbed or game.last_discard
        return f"{a.kind} {game.tiles.code(src[1])} (from {src[0]})"
    return a.text(game.scorer).split(" ", 1)[1]


class TerminalPlayer:
    """Asks the person for each decision; takes a lone forced action (a draw) without asking."""

    def __init__(self, out: Console):
        self.out = out

    def __call__(self, game: Game, seat: str) -> Action:
        acts = game.legal_actions(seat)
        if len(acts) == 1:
            return acts[0]
        self.out.rule()
        show_table(self.out, game, seat)
        if game.last_discard and game.phase == "claim":
            self.out.print(f"{game.last_discard[0]} discarded {game.tiles.code(game.last_discard[1])}", markup=False)
        picking = all(a.kind == "pick" for a in acts)  # 随精: one line, not a menu of every kind
        if picking:
            self.out.print("pick your own 精: type a tile (e.g. 3m); its successor is your 副精", markup=False)
        for i, a in enumerate([] if picking else acts, 1):
            self.out.print(f"  {i:2d}. {action_text(game, a)}", markup=False)
        import sys

        while True:
            answer = self.out.input("your choice: ").strip()
            if not sys.stdin.isatty():
                self.out.print(answer, markup=False)  # piped input: show it, and end the line
            if answer.isdigit() and 1 <= int(answer) <= len(acts):
                return acts[int(answer) - 1]
            match = [a for a in acts if action_text(game, a) == answer or a.text(game.scorer) == f"{seat} {answer}"
                     or (picking and a.text(game.scorer) == f"{seat} pick {answer}")]
            reason = ""
            if not match and answer:
                try:  # an action as a player writes it: `discard 5万`, `discard 南风` (`5万` alone: a pick)
                    wanted = Action.parse(f"{seat} {'pick ' if picking else ''}{answer}", game.scorer).text(game.scorer)
                    match = [a for a in acts if a.text(game.scorer) == wanted]
                except MjError as exc:
                    reason = f" ({exc.message})"
            if match:
                return match[0]
            self.out.print(("type a tile, e.g. 3m or 3万" if picking else
                            f"type a number from 1 to {len(acts)}, or an action as listed (tiles as 5p, 5万 or 南)")
                           + reason, markup=False)


def show_hand_end(out: Console, game: Game, seat: str | None) -> None:
    """The end of a hand: the final table, how it ended, and the ledger with a row per transfer."""
    out.rule()
    show_table(out, game, None)
    r = game.result
    assert r is not None, "the hand is over"
    if r.winner and r.win:
        out.print(f"{r.winner} wins ({r.win.by}) — {r.reading}; fans: {', '.join(r.fans) or 'none'}", markup=False)
    else:
        out.print("荒庄: the wall is empty, no winner", markup=False)
    t = Table(title="ledger", title_justify="left")
    for c in ("when", "part", "payer → payee", "子", "how"):
        t.add_column(c, justify="right" if c == "子" else "left")
    for row in ledger_rows(r):
        t.add_row(row["when"], row["part"], f"{row['payer']} → {row['payee']}", str(row["amount"]), row["how"])
    out.print(t)
    net = r.net(game.seats)
    out.print("net: " + ", ".join(f"{s} {net[s]:+d}" + (" (you)" if s == seat else "") for s in game.seats),
              markup=False)


def result_json(game: Game) -> dict[str, Any] | None:
    """How a finished hand ended, JSON-ready (None while it is played): ``winner``, ``by``
    (``self_draw``, ``discard`` … or ``exhaustive``), ``reading``, ``fans``, ``ledger``
    (:func:`ledger_rows`), ``net`` (seat -> 子), every seat's last concealed tiles (``hands``,
    shown to all once the hand is over) and ``labels``: what the rule file names, an indicator's
    label by its name (``lower`` -> 下精), a flow rule by its policy (``flow.follow_first_discard``
    -> its declaration's name)."""
    r = game.result
    if r is None:
        return None
    return {"winner": r.winner, "by": r.win.by if r.win else "exhaustive", "reading": r.reading,
            "fans": list(r.fans), "ledger": ledger_rows(r), "net": r.net(game.seats),
            "hands": {s: game.tiles.format(sorted(game.hands[s].concealed)) for s in game.seats},
            "labels": {**{n: ind.label for n, ind in game.rs.indicators.items() if ind.label},
                       **{f"flow.{f.policy}": name for name, f in game.rs.flow.items()}}}


def ledger_rows(result: HandResult) -> list[dict[str, Any]]:
    """The ledger of a finished hand (a :class:`~engine.table.game.HandResult`), a row per
    transfer in the order settled: when, part, payer, payee, amount (子), the rule that made
    it, its factors and ``how`` (the factors joined, as the terminal shows them)."""
    return [{"when": when, "part": part, "payer": tr.payer, "payee": tr.payee, "amount": tr.amount,
             "rule": tr.rule, "factors": list(tr.factors), "how": " · ".join(tr.factors)}
            for when, part, lg in result.parts for tr in lg.transfers]


class Narrator:
    """Prints each new event of a game as it happens, hiding what ``viewer`` may not see
    (another seat's drawn tile, its dealt hand, a hidden indicator). ``out`` None: a narrator
    that only reads events (:meth:`line`) and prints nothing itself."""

    def __init__(self, out: Console | None, viewer: str | None):
        self.out, self.viewer = out, viewer
        self.seen: dict[int, int] = {}  # id of a game → its events printed

    def __call__(self, game: Game) -> None:
        start = self.seen.get(id(game), 0)
        for e in game.events[start:]:
            line = self.line(game, e)
            if line:
                assert self.out is not None, "a narrator called to print has a console"
                self.out.print(line, markup=False)
        self.seen[id(game)] = len(game.events)

    def line(self, game: Game, e: Event) -> str | None:
        """One event as the viewer may read it, or None to say nothing."""
        seen = public_event(e, self.viewer)
        if seen is None:
            return None
        kind, seat = seen["event"], seen.get("seat")
        if kind == "break":
            return f"dice {seen['rolls']}: the wall breaks at stack {seen['stack']}"
        if kind == "deal":
            if self.viewer is None:
                return "deal: " + "  ".join(f"{s} {h}" for s, h in seen["hands"].items())
            return f"deal: you hold {seen['hands'][self.viewer]}"
        if kind == "indicator":
            label = game.rs.indicators[indicator_of(seen["name"])].label
            return f"{label or seen['name']}{seen['name'][len(indicator_of(seen['name'])):]}: {seen['tile']}"
        if kind == "flip":  # 发电: a tile turned before play, settled at once; a seat may stop it
            return f"{seen['name']} turned: {seen['tile']} (dice {'+'.join(map(str, seen['dice']))})"
        if kind == "pick":  # 随精: the kind stays the seat's own until the end
            hide = self.viewer is not None and seat is not None and seat != self.viewer
            mine = game.picked.chosen.get(seat) if game.picked and seat and not hide else None
            return f"{seat} picks its 精" + (f": {game.tiles.code(mine)}" if mine is not None else "")
        if kind == "settle":
            return f"{seen['part']} settled: " + ", ".join(f"{s} {v:+d}" for s, v in seen["net"].items())
        tile = seen.get("tile")
        if kind == "draw":
            return f"{seat} draws" + (f" {tile}" if tile else "") + (" (replacement)" if seen.get("tail") else "")
        extra = f" from {seen['source']}" if seen.get("source") else ""
        if kind == "concealed_kong" and tile is None:
            tile = "????"
        return f"{seat} {kind} {tile or ''}{extra}".rstrip()
