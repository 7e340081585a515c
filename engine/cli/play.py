"""The commands that play one table: ``play`` (in the terminal, against bots or watching
four) and ``replay`` (a recorded hand played again and compared with its record).
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from engine.cli.inputs import MAX_PLAY_HANDS, MAX_SEED, JsonOpt, OptionOpt, check_count, compile_or_fail, writable_dir
from engine.cli.output import event_text, fail, out
from engine.errors import MjError

if TYPE_CHECKING:
    from engine.table.game import Game
    from engine.table.match import Bot


def replay(
    file: Annotated[Path, typer.Argument(metavar="RECORD", help="A hand record (YAML or JSON) from simulate --records or play --record.")],
    as_json: JsonOpt = False,
) -> None:
    """Play a recorded hand again and check it ends exactly as recorded: exit 0 when it does, 1 when
    it ends differently, 2 when the record cannot be played (malformed, or an action now illegal)."""
    from engine.table.records import load
    from engine.table.records import replay as run

    try:
        rec = load(file)
        g, diffs = run(rec)
    except MjError as exc:
        fail(exc, as_json)
    if as_json:
        print(json.dumps({"identical": not diffs, "differences": diffs, "actions": len(g.actions),
                          "total": g.result.net(g.seats) if g.result else None}, ensure_ascii=False, indent=2))
    else:
        for e in g.events:
            out.print(event_text(e), markup=False)
        out.print("identical to the record" if not diffs else "DIFFERS from the record:\n  " + "\n  ".join(diffs),
                  markup=False)
    raise typer.Exit(0 if not diffs else 1)


def play(
    rules: Annotated[str, typer.Argument(metavar="RULES", help="Bundled ruleset name or path to a .rules file.")],
    seat: Annotated[str, typer.Option(metavar="SEAT", help="Your seat.")] = "S",
    bots: Annotated[str, typer.Option(metavar="KIND", help="The other players' kind: greedy, random, value or search (search:N: N playouts a decision, a second or more each; docs/game.md).")] = "greedy",
    auto: Annotated[bool, typer.Option("--auto", help="Watch four bots play instead of playing.")] = False,
    hands: Annotated[int, typer.Option(min=1, help="Hands to play.")] = 1,
    seed: Annotated[int | None, typer.Option(min=0, max=MAX_SEED, help="Seed for the wall and dice (random if left out).")] = None,
    record: Annotated[Path | None, typer.Option(metavar="DIR", help="Save each hand's record in DIR.")] = None,
    option: OptionOpt = None,
) -> None:
    """Play in the terminal against three bots (or watch four with --auto): your tiles, the table,
    and the legal actions as a numbered menu; the ledger after each hand."""
    from engine.table.bots import BOTS, kind_error, make_bot
    from engine.table.match import Match
    from engine.tools.play import Narrator, TerminalPlayer, show_hand_end

    try:
        check_count("--hands", hands, MAX_PLAY_HANDS, "hands in one match")
    except MjError as exc:
        fail(exc, False)
    rs = compile_or_fail(rules, option, False)
    try:
        writable_dir(record, "--record")
    except MjError as exc:
        fail(exc, False)
    import random as _random

    seed = seed if seed is not None else _random.SystemRandom().randrange(MAX_SEED + 1)
    problem = kind_error(bots)
    if problem is not None:
        fail(MjError(f"--bots {bots!r}: {problem.removeprefix(f'{bots!r}: ')}",
                     hint=f"one of: {', '.join(BOTS)} (search:N: N playouts a decision)"), False)
    m = Match(rs, seed)
    if seat not in m.seats:
        fail(MjError(f"--seat {seat!r}: no seat {seat!r}", hint=f"seats: {' '.join(m.seats)}"), False)
    players: dict[str, Bot] = {s: make_bot(bots, seed + i) for i, s in enumerate(m.seats)}
    if not auto:
        players[seat] = TerminalPlayer(out.real())
    out.print(f"{rs.label or rs.name} — seed {seed}" + ("" if auto else f"; you are {seat}"), markup=False)

    def after(g: Game) -> None:
        show_hand_end(out.real(), g, None if auto else seat)
        if record is not None:
            from engine.table.records import dump, game_record

            dump(game_record(g), record / f"hand-{len(m.games):06d}.yaml")

    try:
        m.play(players, hands, after, Narrator(out.real(), None if auto else seat))
    except EOFError:
        out.print("\nleft the table (no more input)", markup=False)
        raise typer.Exit(1) from None
    total: Counter[str] = Counter()
    for g in m.games:
        assert g.result is not None, "a game the match played is over"
        total.update(g.result.net(g.seats))
    out.print("match total: " + ", ".join(f"{s} {total[s]:+d}" for s in m.seats), markup=False)
