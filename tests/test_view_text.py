"""One view, two forms: the JSON text a room sends (engine.table.view.ViewText, the shared
fields encoded once) is, for every viewer at every step, exactly seat_view's view."""
from __future__ import annotations

import json

from engine.lang.compiler import compile_ruleset
from engine.table.bots import BOTS
from engine.table.match import Match
from engine.table.view import ViewText, seat_view, snapshot


class KongBot:
    """Random, but a concealed kong (暗杠) whenever one is offered: the views then hide them."""

    def __init__(self, seed: int):
        self.random = BOTS["random"](seed)

    def __call__(self, game, seat):
        kongs = [a for a in game.legal_actions(seat) if a.kind == "concealed_kong"]
        return kongs[0] if kongs else self.random(game, seat)


def test_view_text_is_seat_view_for_every_viewer_at_every_step():
    concealed = steps = 0
    for ruleset, options in [("nanchang", {}), ("nanchang-app", {"随精": "是"}), ("ganzhou-app", {})]:
        rs = compile_ruleset(ruleset, options)
        memo: dict = {}
        for seed in range(1, 5):
            m = Match(rs, seed)
            bots = {s: KongBot(seed + i) for i, s in enumerate(m.seats)}
            for _ in range(3):
                g = m.deal()
                while True:
                    snap = snapshot(g)
                    text = ViewText(snap, lambda o: json.dumps(o, ensure_ascii=False), memo)
                    for viewer in (None, *g.seats):
                        assert json.loads(text.text(viewer)) == seat_view(snap, viewer), (ruleset, viewer, steps)
                    concealed += any(m.concealed for ms in snap.melds.values() for m in ms) and not g.over
                    steps += 1
                    if g.over:
                        break
                    seat = g.to_act()[0]
                    g.apply(bots[seat](g, seat))
                m.finish(g)
    assert steps > 1000 and concealed > 0  # both ways of the melds: shared, and each viewer's own
