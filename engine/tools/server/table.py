"""The browser's table: one person against bots, through the game API only.

A :class:`Session` holds a :class:`~engine.table.game.Game`, the person's seat and a bot for
every other seat. The person's action (its text) goes to :meth:`Game.apply`, which refuses an
illegal one with :class:`~engine.errors.IllegalAction` and changes nothing; then the bots play
until the person has a choice to make (a lone ``draw`` is taken for them, as ``mjrules play``
does) or the hand is over. :meth:`Session.state` is the table as the seat may see it
(:meth:`Game.observation`), with tiles as data for the page (the page names them, in its
message catalogue ``static/i18n.js``, from the labels the rule file declares), the events the
seat may see (:func:`engine.tools.play.public_event`), and at the end the ledger as ``mjrules
play`` explains it (:func:`engine.tools.play.ledger_rows`).
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from engine.errors import IllegalAction, MjError
from engine.lang.compiler import compile_ruleset
from engine.table.bots import BOTS
from engine.table.game import Action, Game
from engine.table.match import Bot, Match
from engine.tools.play import Narrator, action_text, ledger_rows, public_event
from engine.tools.server.caps import CLIP, MAX_LOG, SEED_SPACE


def tile_json(game: Game, kind: int, jing: dict[int, str]) -> dict[str, Any]:
    """A tile for the page: its code (an honour's is its declared name), group (``m``/``p``/``s``
    or the honours' group) and the group's ``label`` as the rule file declares it (``万``, ``风``:
    the page names tiles from it, 六条, 南风), rank (suits) and ``jing`` (``正精``, ``副精`` or None)."""
    k = game.tiles.kinds[kind]
    return {"code": k.code, "group": k.group, "label": game.tiles.groups[k.group].label, "suit": k.is_suit,
            "rank": k.rank if k.is_suit else None, "jing": jing.get(kind)}


def jing_marks(game: Game, shown: set[str], viewer: str | None) -> dict[int, str]:
    """正精 / 副精 by tile kind of every wild indicator named in ``shown`` (of one picked by
    each seat, 随精: the viewer's own pick while the hand is played; a spectator's, None)."""
    marks: dict[int, str] = {}
    picked = game.picked if not game.over and viewer is not None else None
    for name, ind in game.rs.indicators.items():
        tile = picked.chosen.get(viewer) if picked is not None and viewer is not None and name == picked.name else \
            game.indicators.get(name) if name in shown else None
        if ind.wild and tile is not None:
            main, nxt = game.scorer.jing_kinds(tile)
            marks.setdefault(main, "正精")
            if nxt is not None:
                marks.setdefault(nxt, "副精")
    return marks


def table_json(game: Game, seat: str | None) -> dict[str, Any]:
    """The table as ``seat`` sees it (every hand when ``seat`` is None or the hand is over);
    ``jing`` lists the 正精 and 副精 of the face-up wild indicators (``{mark, tile}``, 正精 first)."""
    viewer = seat or game.seats[0]
    obs = game.observation(viewer)
    shown = set(obs["indicators"])
    marks = jing_marks(game, shown, viewer)

    def tj(k: int) -> dict[str, Any]:
        return tile_json(game, k, marks)

    drawn = None
    last = game.actions[-1] if game.actions else None
    hands: dict[str, dict[str, Any] | None] = {}
    for s in game.seats:
        if seat is not None and s != seat and not game.over:
            hands[s] = None
            continue
        tiles = sorted(game.hands[s].concealed)
        d = None
        if (not game.over and s == game.current and game.phase == "act" and game.last_drawn in tiles
                and ((last is not None and last.kind == "draw" and last.seat == s) or (last is None and s == game.dealer))):
            tiles.remove(game.last_drawn)
            d = tj(game.last_drawn)
        hands[s] = {"tiles": [tj(k) for k in tiles], "drawn": d}
        if s == seat:
            drawn = d
    melds = {s: [{"kind": m.meld_kind, "concealed": bool(m.concealed),
                  "tiles": [] if (m.concealed and s != viewer and not game.over and seat is not None)
                  else [tj(k) for k in m.tiles]} for m in game.hands[s].melds] for s in game.seats}
    inds = [{"name": n, "label": game.rs.indicators[n].label or n, "tile": tj(game.tiles.parse_one(c))}
            for n, c in obs["indicators"].items()]
    legal: list[dict[str, Any]] = []
    if seat is not None:
        for a in game.legal_actions(seat):
            claimed = (game.robbed or game.last_discard) if a.kind in ("pung", "kong", "win", "chow") and \
                game.phase in ("claim", "rob") else None
            legal.append({"text": a.text(game.scorer), "label": action_text(game, a), "kind": a.kind,
                          "tile": game.tiles.code(a.tile) if a.tile is not None else None,
                          "tile_json": tj(a.tile) if a.tile is not None else None,
                          "tiles": [tj(k) for k in a.tiles] if a.tiles else [],
                          "claims": {"seat": claimed[0], "tile": tj(claimed[1])} if claimed else None})
    return {
        "seats": game.seats, "seat": seat, "dealer": game.dealer, "floor": game.floor, "phase": game.phase,
        "current": game.current, "to_act": game.to_act(), "wall": obs["wall"], "live_wall": obs["live_wall"],
        "indicators": inds, "hands": hands, "hand_sizes": obs["hand_sizes"], "drawn": drawn, "melds": melds,
        "discards": {s: [tj(k) for k in d] for s, d in game.discards.items()},
        "last_discard": {"seat": game.last_discard[0], "tile": tj(game.last_discard[1])} if game.last_discard else None,
        "legal": legal, "over": game.over,
        "jing": [{"mark": m, "tile": tj(k)} for k, m in sorted(marks.items(), key=lambda x: (x[1] != "正精", x[0]))],
    }


def result_json(game: Game) -> dict[str, Any] | None:
    """How a finished hand ended and its ledger, a row per transfer (rule and factors); ``labels``
    names what the rule file names: an indicator's label by its name (``lower`` → 下精), a flow
    rule by its policy (``flow.follow_first_discard`` → its declaration's name)."""
    r = game.result
    if r is None:
        return None
    return {"winner": r.winner, "by": r.win.by if r.win else "exhaustive", "reading": r.reading,
            "fans": list(r.fans), "ledger": ledger_rows(r), "net": r.net(game.seats),
            "labels": {**{n: ind.label for n, ind in game.rs.indicators.items() if ind.label},
                       **{f"flow.{f.policy}": name for name, f in game.rs.flow.items()}}}


class Session:
    """A person at one seat of a game, the other seats bots (see the module docstring)."""

    def __init__(self, game: Game, seat: str, bots: dict[str, Bot], seed: int | None = None):
        self.game, self.seat, self.bots = game, seat, bots
        self.seed = game.seed if seed is None else seed  # the seed asked for (the match's), shown on the page
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.narrator = Narrator(None, seat)
        self.advance()

    @classmethod
    def start(cls, ref: str, options: dict[str, str], seat: object, bots: object, seed: int | None) -> Session:
        """Compile ``ref`` with ``options`` and deal a hand; ``bots`` is a :data:`BOTS` name.
        ``seat`` and ``bots`` come from the page as they are (None: the defaults). Raises
        :class:`MjError` for a bad seat, bot or option."""
        import random

        rs = compile_ruleset(ref, options)
        seats = [str(v) for v in rs.table["seats"].values]
        seat = seat or seats[min(1, len(seats) - 1)]
        if not isinstance(seat, str) or seat not in seats:
            raise MjError(f"no seat {str(seat)[:CLIP]!r}", hint=f"seats: {' '.join(seats)}")
        bots = bots or "greedy"
        if not isinstance(bots, str) or bots not in BOTS:  # a list or mapping is no bot, not a crash
            raise MjError(f"unknown bot {str(bots)[:CLIP]!r}", hint=f"one of: {', '.join(BOTS)}")
        seed = seed if seed is not None else random.SystemRandom().randrange(SEED_SPACE)
        game = Match(rs, seed).deal()  # the first hand `mjrules play --seed SEED` deals
        players = {s: BOTS[bots](seed + i) for i, s in enumerate(seats) if s != seat}
        return cls(game, seat, players, seed)

    def advance(self) -> None:
        """Let the bots play until the person has a choice or the hand ends (a lone draw is
        taken for the person). Bounded: a hand ends within its wall."""
        g = self.game
        while not g.over:
            waiting = g.to_act()
            bots = [s for s in waiting if s != self.seat]
            if bots:
                for s in bots:
                    if s in g.to_act():
                        g.apply(self.bots[s](g, s))
                continue
            if self.seat in waiting:
                acts = g.legal_actions(self.seat)
                if len(acts) == 1 and acts[0].kind == "draw":
                    g.apply(acts[0])
                    continue
            return

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
        return {"ruleset": g.rs.name, "label": g.rs.label or g.rs.name, "seed": self.seed,
                "table": table_json(g, None if g.over else self.seat), "you": self.seat,
                "log": lines, "events": events, "result": result_json(g),
                "tileset": [tile_json(g, k, {}) for k in range(len(g.tiles))]}  # every kind: the page names an event's tile code

    def record_yaml(self) -> str:
        """The hand's record (as ``mjrules play --record`` writes it), YAML."""
        from engine.table.records import game_record, to_yaml

        with self.lock:
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
    frames.append({"action": "deal", "table": table_json(step, None)})
    for a in g.actions:
        step.apply(a)
        frames.append({"action": a.text(g.scorer), "table": table_json(step, None)})
    return {"ruleset": g.rs.name, "label": g.rs.label or g.rs.name, "identical": not diffs, "differences": diffs,
            "frames": frames, "result": result_json(step)}
