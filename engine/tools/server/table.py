"""The browser's table: one person against bots, through the game API only.

A :class:`Session` holds a :class:`~engine.table.game.Game`, the person's seat and a bot for
every other seat. The person's action (its text) goes to :meth:`Game.apply`, which refuses an
illegal one with :class:`~engine.errors.IllegalAction` and changes nothing; then the bots play
until the person has a choice to make (a lone ``draw`` is taken for them, as ``mjrules play``
does) or the hand is over. :meth:`Session.state` is the table as the seat may see it
(:func:`engine.table.view.seat_view`: tiles as codes; the page names them from
:func:`engine.table.view.tile_set` in its message catalogue ``static/i18n.js``), the events the
seat may see (:func:`engine.table.view.public_event`), and at the end the ledger as ``mjrules
play`` explains it (:func:`engine.tools.play.result_json`).
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from engine.errors import IllegalAction, MjError
from engine.lang.compiler import compile_ruleset
from engine.table.bots import LIVE_BOTS
from engine.table.game import Action, Game
from engine.table.match import Bot, Match, play_until_person
from engine.table.view import public_event, tile_set, view_of
from engine.tools.play import Narrator, result_json
from engine.tools.rooms.caps import MAX_STEPS
from engine.tools.server.caps import CLIP, MAX_LOG, SEED_SPACE


def page_names(game: Game) -> dict[str, Any]:
    """What a page names tiles and indicators from: ``tiles`` (:func:`tile_set`) and
    ``indicator_labels`` (name -> the rule file's label, 上精)."""
    return {"tiles": tile_set(game), "indicator_labels": {n: ind.label or n for n, ind in game.rs.indicators.items()}}


class Session:
    """A person at one seat of a game, the other seats bots (see the module docstring)."""

    def __init__(self, game: Game, seat: str, bots: dict[str, Bot], seed: int | None = None, given: bool = True):
        self.game, self.seat, self.bots = game, seat, bots
        self.seed = game.seed if seed is None else seed  # the seed asked for (the match's), shown on the page
        # a seed the server drew deals every hand and the bots: shown (and the record served) once the hand is over
        self.given = given
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.narrator = Narrator(None, seat)
        self.advance()

    @classmethod
    def start(cls, ref: str, options: dict[str, str], seat: object, bots: object, seed: int | None) -> Session:
        """Compile ``ref`` with ``options`` and deal a hand; ``bots`` is a :data:`LIVE_BOTS` name.
        ``seat`` and ``bots`` come from the page as they are (None: the defaults). Raises
        :class:`MjError` for a bad seat, bot or option."""
        import random

        rs = compile_ruleset(ref, options)
        seats = [str(v) for v in rs.table["seats"].values]
        seat = seat or seats[min(1, len(seats) - 1)]
        if not isinstance(seat, str) or seat not in seats:
            raise MjError(f"no seat {str(seat)[:CLIP]!r}", hint=f"seats: {' '.join(seats)}")
        bots = bots or "greedy"
        if not isinstance(bots, str) or bots not in LIVE_BOTS:  # a list or mapping is no bot, not a crash
            raise MjError(f"unknown bot {str(bots)[:CLIP]!r}", hint=f"one of: {', '.join(LIVE_BOTS)}")
        given = seed is not None
        seed = seed if seed is not None else random.SystemRandom().randrange(SEED_SPACE)
        game = Match(rs, seed).deal()  # the first hand `mjrules play --seed SEED` deals
        players = {s: LIVE_BOTS[bots](seed + i) for i, s in enumerate(seats) if s != seat}
        return cls(game, seat, players, seed, given)

    def advance(self) -> None:
        """Let the bots play until the person has a choice or the hand ends (a lone draw is
        taken for the person). Bounded: a hand ends within its wall."""
        play_until_person(self.game, self.bots.get, MAX_STEPS)

    def act(self, text: str) -> dict[str, Any]:
        """Apply the person's action (its text) through :meth:`Game.apply`, then the bots'.
        Raises :class:`~engine.errors.IllegalAction` (nothing changed) for an illegal one."""
        with self.lock:
            g = self.game
            offered = {a.text(g.scorer): a for a in g.legal_actions(self.seat)}
            action = offered.get(text)
            if action is None:
                action = Action.parse(text, g.scorer)  # IllegalAction when it cannot be read
                if action.seat != self.seat:
                    raise IllegalAction(f"you sit at {self.seat}: {text[:CLIP]!r} is not yours to play")
            g.apply(action)
            self.advance()
            return self._state()

    def state(self) -> dict[str, Any]:
        """The table as the person sees it, what happened (narrated), and the result when over."""
        with self.lock:
            return self._state()

    def _state(self) -> dict[str, Any]:
        g = self.game
        recent = g.events[-MAX_LOG - MAX_LOG:]
        lines = [x for x in (self.narrator.line(g, e) for e in recent) if x][-MAX_LOG:]
        events = [x for x in (public_event(e, self.seat) for e in recent) if x][-MAX_LOG:]
        return {"ruleset": g.rs.name, "label": g.rs.label or g.rs.name,
                "seed": self.seed if self.given or g.over else None,
                "table": view_of(g, self.seat), "you": self.seat,
                "log": lines, "events": events, "result": result_json(g), **page_names(g)}

    def record_yaml(self) -> str:
        """The hand's record (as ``mjrules play --record`` writes it), YAML. Raises
        :class:`MjError` while the hand is played: a record holds the whole wall."""
        from engine.table.records import game_record, to_yaml

        with self.lock:
            if not self.game.over:
                raise MjError("the hand is still being played: its record (the whole wall) comes when it is over")
            return to_yaml(game_record(self.game))

    def record_name(self) -> str:
        return f"{self.game.rs.name}-{self.seed}.yaml"


def replay_frames(text: str, rules_dir: Path) -> dict[str, Any]:
    """Every step of a record: the whole table after the deal and after each action. The
    record's rule files must be bundled or uploaded (in ``rules_dir``); it is played again with
    :func:`engine.table.records.replay` first (its errors raised as :class:`MjError`)."""
    from engine.lang.yamlio import load_text, validate
    from engine.table.records import FORMAT, RecordSpec, replay

    rec = load_text(text, "record.yaml")
    if not isinstance(rec, dict) or rec.get("format") != FORMAT:
        raise MjError(f"not an mjrules record (format {FORMAT})")
    validate(RecordSpec, rec, "record.yaml", text)
    root = rules_dir.resolve()
    named = [rec.get("ruleset_file")] + list((rec.get("ruleset_sha256") or {}).keys())
    for f in named:
        if f is None or (Path(f).name == f and not f.startswith(".")):
            continue  # a bundled rule file, by its name
        p = Path(f)
        if not p.is_absolute() or ".." in p.parts or p.parent != root:
            raise MjError(f"the record names the rule file {str(f)[:CLIP]!r}, outside the server's data folder",
                          hint="replay records of bundled rulesets or of rule files uploaded here")
    g, diffs = replay(rec)
    frames: list[dict[str, Any]] = []
    step = Game(g.rs, g.seed, dealer=g.dealer, floor=g.floor, ring=g.ring,
                wall=[g.tiles.parse_one(c) for c in rec["wall"]] if rec.get("wall") else None,
                dice=list(g.dice_rolls), previous_indicators=dict(g.previous_indicators), scorer=g.scorer)
    frames.append({"action": "deal", "table": view_of(step, None, reveal=True)})
    for a in g.actions:
        step.apply(a)
        frames.append({"action": a.text(g.scorer), "table": view_of(step, None, reveal=True)})
    return {"ruleset": g.rs.name, "label": g.rs.label or g.rs.name, "identical": not diffs, "differences": diffs,
            "frames": frames, "result": result_json(step), **page_names(step)}
