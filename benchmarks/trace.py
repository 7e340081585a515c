"""A guard that a speed change did not change play: the hash of every action seeded bots play.

Plays ``--hands`` hands of four ``--bots`` bots (default: value) on each of the bundled rule
files in ``--rules``, the file at index ``i`` as one :class:`~engine.table.match.Match` seeded
``--seed + i`` (so the deal rotates and floors climb as in ``mjrules simulate``), and hashes the
text of every action a bot chose, in order, with the rule file it was played under. Same code
path as a real run (public ``Match``, ``BOTS``, ``Action.text``), nothing timed.

``--events`` hashes, besides, what the hands did with those actions: every event each hand
logged (``Game.events``, as JSON), and at each hand's end its result (winner, win, reading,
fans, 抄庄, every settlement's transfers and fired rules, the net), the seats' final hands and
discards and the indicators. A change that keeps the bots' choices but changes what an action
does to the hand (an event, a payment) changes this hash and not the actions' one.

Run it on the unchanged code, then after the change: the same hash and action count mean the
bots chose the same actions for the same seeds. A different hash means play changed (then a
paired run is needed to show it is not worse: benchmarks/paired_bots.py).

    python benchmarks/trace.py [--rules nanchang,nanchang-app,ganzhou-app,jian,chongguan]
                               [--hands 40] [--seed 11] [--bots value] [--events] [--json]
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's engine, not another installed one

from engine.cli.output import quiet_exit_on_broken_pipe  # noqa: E402
from engine.table.bots import BOTS  # noqa: E402
from engine.table.game import Action, Game  # noqa: E402
from engine.table.match import Bot, Match, hand_seed  # noqa: E402
from engine.tools.simulate import compiled  # noqa: E402

RULES = ("nanchang", "nanchang-app", "ganzhou-app", "jian", "chongguan")


class Digest:
    """The hash of the lines one match adds (and the overall hash's update, ``also``)."""

    def __init__(self, ref: str, match: Match, also: Callable[[bytes], None]):
        self.ref, self.match, self.also = ref, match, also
        self.digest = hashlib.sha256()
        self.count = 0

    def add(self, line: bytes) -> None:
        self.digest.update(line)
        self.also(line)
        self.count += 1


class Recorder(Digest):
    """Hashes the actions the bots of one match choose, each line with the rule file and hand."""

    def wrap(self, bot: Bot) -> Bot:
        """``bot``, with each action it chooses recorded."""
        def choose(game: Game, seat: str) -> Action:
            action = bot(game, seat)
            self.add(f"{self.ref} {self.match.played} {action.text(game.scorer)}\n".encode())
            return action
        return choose


def hand_lines(ref: str, index: int, game: Game) -> list[bytes]:
    """One line per event ``game`` (a hand over) logged, then one of its end: the result (every
    settlement's transfers and fired rules, the net), the final hands and discards and the
    indicators; each JSON with sorted keys, prefixed by the rule file and the hand's index."""
    assert game.result is not None, "hashed once over"
    r = game.result
    end = {"winner": r.winner, "win": dataclasses.asdict(r.win) if r.win else None, "reading": r.reading,
           "fans": r.fans, "follow_first": r.follow_first, "net": r.net(game.seats),
           "parts": [[when, part, [dataclasses.asdict(t) for t in lg.transfers], lg.fired] for when, part, lg in r.parts],
           "hands": {s: dataclasses.asdict(h) for s, h in game.hands.items()}, "discards": game.discards,
           "indicators": game.indicators}
    return [f"{ref} {index} {json.dumps(x, sort_keys=True, ensure_ascii=False)}\n".encode()
            for x in [*game.events, end]]


class EventRecorder(Digest):
    """Hashes what each hand of one match logged and how it ended (:func:`hand_lines`)."""

    def hand(self, game: Game) -> None:
        """Record ``game``, a hand the match just finished (``Match.play``'s ``on_hand``)."""
        for line in hand_lines(self.ref, self.match.played - 1, game):  # finish() counted it already
            self.add(line)


def trace(rules: list[str], hands: int, seed: int, kind: str, events: bool = False) -> dict[str, Any]:
    """The hash (first 16 hex digits of SHA-256) of every action chosen, overall and per rule
    file, with the counts of actions and hands; with ``events``, also the hash of every event
    logged and each hand's end (:func:`hand_lines`: ``events_hash``, ``events``, the lines)."""
    overall = hashlib.sha256()
    logged = hashlib.sha256()
    per_rules: dict[str, dict[str, Any]] = {}
    total = lines = 0
    for i, ref in enumerate(rules):
        rs, scorer = compiled(ref, {})
        match = Match(rs, seed + i, scorer=scorer, keep=False)
        recorder = Recorder(ref, match, overall.update)
        logger = EventRecorder(ref, match, logged.update)
        match.play({s: recorder.wrap(BOTS[kind](hand_seed(seed + i, n))) for n, s in enumerate(match.seats)}, hands,
                   on_hand=logger.hand if events else None)
        per_rules[ref] = {"hash": recorder.digest.hexdigest()[:16], "actions": recorder.count}
        if events:
            per_rules[ref] |= {"events_hash": logger.digest.hexdigest()[:16], "events": logger.count}
        total += recorder.count
        lines += logger.count
    out = {"bots": kind, "seed": seed, "hands_per_rules": hands, "hash": overall.hexdigest()[:16],
           "actions": total, "rules": per_rules}
    if events:
        out |= {"events_hash": logged.hexdigest()[:16], "events": lines}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default=",".join(RULES), help="bundled rule files (names or paths), comma-separated")
    ap.add_argument("--hands", type=int, default=40, help="hands played on each rule file")
    ap.add_argument("--seed", type=int, default=11, help="the first rule file's match seed (the next: seed + 1, …)")
    ap.add_argument("--bots", default="value", choices=sorted(BOTS), help="the bot kind at every seat")
    ap.add_argument("--events", action="store_true",
                    help="also hash every event logged and each hand's result, hands and indicators")
    ap.add_argument("--json", action="store_true", help="the report as JSON")
    args = ap.parse_args()
    if args.hands < 1:
        ap.error(f"--hands must be at least 1 (got {args.hands})")
    report = trace([r for r in args.rules.split(",") if r], args.hands, args.seed, args.bots, args.events)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    print(f"trace {report['hash']}  {report['actions']} actions  ({args.bots} bots, {args.hands} hands a file, seed {args.seed})")
    if args.events:
        print(f"events {report['events_hash']}  {report['events']} lines (every event logged, each hand's end)")
    for ref, r in report["rules"].items():
        print(f"  {ref:14s} {r['hash']}  {r['actions']} actions"
              + (f"   events {r['events_hash']}  {r['events']} lines" if args.events else ""))


if __name__ == "__main__":
    try:
        main()
        sys.stdout.flush()  # here, so that a reader gone is caught below and not at exit
    except BrokenPipeError:  # `trace.py | head -1`: exit 141 quietly, as mjrules does
        quiet_exit_on_broken_pipe()
