"""The peer the rooms' benchmarks count a server's CPU in: one game step of four random bots
playing nanchang with the table layer alone (``Match.deal`` and ``play_until_person``, no server
around it), in CPU milliseconds (``time.process_time``). ``benchmarks/rooms.py`` and
``benchmarks/notes.py`` measure it in their own run, so that a busy hour and a quiet one compare
by ratio. Needs no extra."""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's engine, not another installed one

PEER_HANDS = 60  # hands the peer (random bots in this process) plays, before the run and after


def game_step_ms(hands: int, seed: int) -> float:
    """The peer, measured in this process: CPU milliseconds of one game step when four random
    bots play ``hands`` hands of nanchang with the table layer alone (``Match.deal`` and
    ``play_until_person``, no server around it): the issue's "one game step"."""
    from engine.lang.compiler import compile_ruleset
    from engine.table.bots import BOTS
    from engine.table.match import Match, play_until_person

    rs = compile_ruleset("nanchang")
    match = Match(rs, seed, keep=False)
    bots = {s: BOTS["random"](seed + i) for i, s in enumerate(match.seats)}
    steps = 0
    start = time.process_time()
    for _ in range(hands):
        game = match.deal()
        steps += len(play_until_person(game, bots.get, 100_000))
        match.finish(game)
    return (time.process_time() - start) / max(steps, 1) * 1e3
