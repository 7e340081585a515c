"""Which declared patterns and fans four bots actually produce, per bundled ruleset.

For each rule file in ``rulesets/`` (or those named), ``simulate`` plays N seeded hands with four
bots (``value`` by default) and this prints the share of hands each declared pattern and each
fan fired in, the 荒庄 (exhaustive draw) rate, the 精 rules' shares, and every declared pattern or
fan that never fired. The hands are ``simulate``'s: matches of 25 hands seeded from the seed
alone, so the figures do not depend on ``--workers``.

    python benchmarks/coverage.py [-n 10000] [--seed 1] [--bots value] [--workers 2] [--json] [RULES …]
    python benchmarks/coverage.py --options [-n 2000] [--bots greedy] [--retry value] [--workers 2] [--json] RULES …

``--options``: for each option of each named ruleset, each value that is not the default (and
then every option at its first other value together, when those combine), the paired hands of
``mjrules impact RULES RULES --option-b NAME=VALUE``: each rule the choice changes, and the
hands it fired in under the choice (a removed rule: in the default's hands, or in the choice's
re-scored by the default; a flow policy or a tile/table rule applies to every hand and no
ledger names it: listed as such). A ``no win`` fan stands in no ledger: its firings are the
hands it refused when the other side's hands were re-scored (an added one: the default's
hands; a removed one: the choice's). One the default refuses more than (胡法's
有精点炮不能平胡 against 精必钩) is measured against the option's other values instead
("against NAME=VALUE"). A choice that changes the seat count cannot be paired with the
default: alone, its own hands are played (``simulate``'s seeds) and the rules it changes
counted there ("unpaired"; its table rules hold every hand); with other choices (the
all-together row), they are paired with the default at that seat count ("paired with
人数=3"). A choice whose rules are the default's is not played again. ``--retry BOTS``
replays a row in which some rule never fired with those bots; a cap (``factor``) that
never bit shows the largest win payment by one payer and the largest |net| of a seat.
A choice whose hands cannot be played is an error row.

Measured (10,000 hands a file, seed 1, four value bots, ``--workers 2``): every declared pattern
and fan fires under all four bundled files (大七对 0.14 % in nanchang, where it pays ×2, against
0.26 % in nanchang-table and ganzhou and 0.20 % in chongguan, where it pays ×4; 精钓 0.03–0.07 %,
抢杠 0.03–0.07 %, 天胡 0.13–0.18 %). 荒庄 occurs in chongguan only (0.10 %: its 17-stack dead wall
leaves 49 live tiles, a median of 36 of them still there when the hand ends). Under nanchang,
nanchang-table and ganzhou (no dead wall, 83 live tiles after the deal) no hand came near it: a
median of 70 live tiles were left when the hand ended, the fewest 34–36, and 4–5 hands in
10,000 ended with 40 or fewer. Eight 精 wilds and 十三烂 make some seat ready within a few
turns, and a seat that is ready wins on a discard or its own draw; folding (the value bot's
FOLD_REACH) does not stop self-drawn wins. So the rarity of 荒庄 there is the rules' (played to
win, hands end long before the wall does), and the hands these bots play cannot show it.

Measured, ``--options`` (``python benchmarks/coverage.py --options -n 2000 --bots greedy --retry value
--workers 1 nanchang-app ganzhou-app jian``, seed 1, ~42 min on a shared 2-CPU machine): no error
row. Hands (of 2,000) each changed rule fired in; [g] greedy bots, [v] value bots (the greedy ones
left something unfired); "= default": the choice restates the default's rules.

    nanchang-app  明杠分=1 kong 137 [g] · 明杠分=2, 四归=yes, 下精=any: = default · 四归=no 小七对 99 [g]
                  底分=2 and =4: 天胡 1, 地胡 5, 底分 2000 [g] · 抓炮=三家付 点炮 1478 [g]
                  抄庄=不抄庄 抄庄 1 [v] (greedy 0: the four first discards must be one tile)
                  霸王=精+10 霸王 706 [g] · 精牌=打出精牌不算分 打出 1014 [g] · 回头一笑=否 回头 1920 [g]
                  玩法=上下翻 / 无下精 lower 2000; 同一首歌 lower, 歌 2000; 上下左左右右 lower, 下, 左,
                  左左, 右, 右右 2000 [g] · 爬楼=快下 爬楼 148, 慢下 253 (flow 爬楼 every hand) [g]
                  无平胡=是 无平胡 1563 [g] · 必飘一精=是 必飘一精 1826 [g] · 照镜子=是 镜 1830 [g]
                  晒月亮=是 月 1988 [g] · 发电=是 upper 2000 (flow 发电罚分 every hand) [g]
                  飘精=是 飘精无精 1765, 飘正精 16, 飘副精 48, 飘正精二–四 and 飘副精二–四 0 [v]
                  封顶=300 封顶 0 [v] (largest win payment by one payer 37)
                  随精=是 upper 2000 [g] and [v] (each seat's pick settled for the winner)
                  人数=3, =2 unpaired: table seats, stacks_per_seat every hand [g]
                  all together with 随精 (paired with 人数=3) [v]: upper 970, 封顶 5, 飘正精 408, 飘正精二 5,
                  飘副精 500, 飘副精二 9, 抄庄 10, 无平胡 1469, 飘精无精 1748, 必飘一精 1808, 底分 970, …; 飘正精三/四,
                  飘副精三/四, 天胡, 地胡 0 (largest win payment by one payer 552). Before 随精 was an option:
                  all together (paired with 人数=3) [v]: 封顶 4, 飘正精 162, 飘正精二 3, 飘副精 386,
                  飘副精二 4, 飘副精三 1, 抄庄 10, 底分 1372, …; 飘正精三/四, 飘副精四 0; 天胡, 地胡 0 (3 seats);
                  无平胡, 飘精无精, 必飘一精 0 (发电 turns other 精: the default's wins are no wins there
                  at all, so no `no win` fan is what refused them)
    ganzhou-app   明杠分=1 kong 495 [g] · 四归=no 小七对 394 [g] · 下精=after_deal / at_end lower 2000 [g]
                  翻精=上下左左右右 left, right, left_top, right_top 2000; 无下精 lower 2000 [g]
                  精钓点炮=yes, 吃=可吃: their flow every hand [g] · 仅自摸=yes 仅自摸 516 [g]
                  胡法=有精点炮不能平胡 精必钩 1235, 有精点炮不能平胡 1119 (against 可平胡) [g]
                  胡法=可平胡 精必钩 1536 [g] · 霸王=精+10 霸王 827 [g] · 庄家=分庄闲 庄家 1705 [g]
                  底分=2 and =4: 天胡 3, 地胡 10, 底分 1718 [g] · 杠精=全部精 杠精 18 [g]
                  出精奖励=no 出精奖励 138 [v] (no greedy winner had discarded a 精) · 人数=3, =2 unpaired [g]
                  all together (paired with 人数=3) [v]: every changed rule fired (有精点炮不能平胡 83)
    jian          明杠分=1 kong 223 [g] · 四归=no 小七对 162 [g] · 下精=at_end / hidden_at_end lower 2000
                  [g] · 基本分=2 and =4 基本分 2000 [g] · 玩法=翻上精 lower 2000 [g]
                  封顶=不封顶 封顶 1 [g] · 封顶=600 封顶 0 [v] (largest |net| of a seat 234)
                  all together [g]: 封顶 1 (600, with 基本分 2), 基本分 2000, kong 223, lower 2000

What fired in no row is said at its option in the rule file (飘精's third and fourth 精,
nanchang-app.rules), and so is 封顶, which bites only with every option together (300 per
payer, nanchang-app.rules; 600, jian.rules). The all-together rows' zeros (天胡, 地胡, the
`no win` fans) fire in their own rows.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import MjError
from engine.lang.compiler import compile_ruleset
from engine.lang.ruleset import Ruleset
from engine.table.bots import BOTS
from engine.table.game import Game
from engine.table.match import Match, hand_seed
from engine.tools.diff import diff
from engine.tools.impact import RESCORED_POLICY, Report, coverage_kind, impact, scored_as_played
from engine.tools.runner import run_blocks
from engine.tools.simulate import BLOCK, compiled, seat_bots, simulate

RULESETS = Path(__file__).resolve().parent.parent / "rulesets"


def coverage(rules: str, hands: int, seed: int, bots: str, workers: int) -> dict:
    """Shares of hands per declared pattern and fan (0 for those that never fired), the 荒庄
    rate, 精 rules, and the names that never fired."""
    rs = compile_ruleset(rules, {})
    start = time.process_time()
    summary = simulate(rules, {}, hands, seed, bots.split(","), workers)
    s = summary.to_json()
    left = sorted(summary.live_left.elements())  # live wall tiles left when each hand ended
    pats = {p: s["patterns"].get(p, 0.0) for p in rs.patterns}
    fans = {f: s["fans"].get(f, 0.0) for f in rs.fans}
    return {"rules": rules, "hands": hands, "seed": seed, "bots": bots,
            "exhaustive_rate": s["exhaustive_rate"], "patterns": pats, "fans": fans,
            "jing_rules": s["jing_rules"], "win_by": s["win_by"],
            "live_left": {"fewest": left[0], "median": left[len(left) // 2], "most": left[-1],
                          "hands_ending_with_at_most": {n: sum(1 for x in left if x <= n) for n in (0, 10, 20, 30, 40)}},
            "never_fired": [f"pattern {p}" for p, v in pats.items() if not v] + [f"fan {f}" for f, v in fans.items() if not v],
            "cpu_s_parent": round(time.process_time() - start, 1)}


@dataclass
class Played:
    """Hands played under one ruleset and option values, unpaired: the hands each rule path
    fired in (:func:`engine.tools.impact.fired_paths`), and the largest amounts a cap would
    meet: the most one payer paid for a win (part ``hand``, in 子) and the largest |net| of a
    seat in a hand."""

    hands: int = 0
    fired: Counter[str] = field(default_factory=Counter)
    largest_win_payment: int = 0
    largest_net: int = 0

    def merge(self, o: Played) -> None:
        """Add another block's counts."""
        self.hands += o.hands
        self.fired.update(o.fired)
        self.largest_win_payment = max(self.largest_win_payment, o.largest_win_payment)
        self.largest_net = max(self.largest_net, o.largest_net)


def played_block(job: tuple[str, dict[str, str], int, int, int, list[str]]) -> Played:
    """Play one block of ``simulate``'s hands (ref, options, seed, block, hands, bot per seat)
    and count it (module-level: workers import it by name)."""
    ref, options, seed, block, count, bots = job
    rs, scorer = compiled(ref, options)
    match = Match(rs, hand_seed(seed, block), scorer=scorer)
    players = {s: BOTS[kind](hand_seed(hand_seed(seed, block), i)) for i, (s, kind) in enumerate(zip(match.seats, bots))}
    out = Played()

    def on_hand(g: Game) -> None:
        r = g.result
        assert r is not None, "the match played the hand to its end"
        out.hands += 1
        out.fired.update(scored_as_played(g).fired)
        paid: Counter[str] = Counter()
        for _, part, lg in r.parts:
            for t in lg.transfers:
                if part == "hand" and t.part == "hand":
                    paid[t.payer] += t.amount
        out.largest_win_payment = max([out.largest_win_payment, *paid.values()])
        out.largest_net = max([out.largest_net, *(abs(v) for v in r.net(g.seats).values())])

    match.play(players, count, on_hand)
    return out


def played(ref: str, options: dict[str, str], hands: int, seed: int, bots: str, workers: int) -> Played:
    """``simulate``'s hands (the same seeds) under ``ref`` with ``options``, counted as :class:`Played`."""
    rs, _ = compiled(ref, options)
    kinds = seat_bots(bots.split(","), [str(v) for v in rs.table["seats"].values])
    jobs = [(ref, options, seed, b, min(BLOCK, hands - b * BLOCK), kinds) for b in range((hands + BLOCK - 1) // BLOCK)]
    total = Played()
    for p in run_blocks(played_block, jobs, workers):
        total.merge(p)
    return total


def _seats(rs: Ruleset) -> int:
    return len(rs.table["seats"].values)


def _settles(path: str, *rulesets: Ruleset) -> bool:
    """A rule a ledger records: a scoring kind, or a flow whose policy settles (抄庄)."""
    if coverage_kind(path) == "scoring":
        return True
    name = path.split(".", 1)[1]
    return path.startswith("flow.") and any(name in rs.flow and rs.flow[name].policy == RESCORED_POLICY for rs in rulesets)


def _from_report(rep: Report) -> tuple[dict[str, int], dict[str, str]]:
    """The hands each changed rule fired in (scoring rules), and the kind of the others."""
    fired: dict[str, int] = {}
    other: dict[str, str] = {}
    for c in rep.coverage():
        if c["path"].startswith("option."):
            continue
        if c["kind"] == "scoring":  # a removed rule: where the default's rule fired, in its own hands or the
            # choice's re-scored by it; else under the choice, likewise. A `no win` fan stands in no ledger:
            # its firings are the hands it refused when the other side's hands were re-scored
            if c["op"] == "-":
                fired[c["path"]] = max(c["a"], c["b_hands_by_a"] or 0)
            else:
                fired[c["path"]] = max(c["b"], c["a_hands_by_b"] or 0)
        else:
            other[c["path"]] = coverage_kind(c["path"])
    return fired, other


def option_row(rules: str, opts: dict[str, str], hands: int, seed: int, bots: str, workers: int) -> dict[str, Any]:
    """One option row (see the module doc): the rules ``opts`` change and the hands each fired in.

    A choice that keeps the seats: ``impact`` of the default against it. One that changes the
    seat count cannot be paired with the default: when it is all the row chose, its own hands
    are played (``simulate``'s) and the rules it changes counted there (a removed one in the
    default's hands); with other choices, they are paired with the default at that seat count
    (``paired_with``), and the seat choice's own rules are listed as in force every hand."""
    rs0, rs_b = compiled(rules, {})[0], compiled(rules, opts)[0]
    seat_opts = {k: v for k, v in opts.items() if _seats(compiled(rules, {k: v})[0]) != _seats(rs0)}
    row: dict[str, Any] = {"rules": rules, "options": opts, "hands": hands, "bots": bots, "paired_with": None, "unpaired": False}
    start = time.process_time()
    if not [c for c in diff(rs0, rs_b) if not c.path.startswith("option.")]:  # the same rules: the default's play
        row.update(fired={}, applies_every_hand={}, never_fired=[], same_as_default=True, cpu_s_parent=0.0)
        return row
    try:
        if seat_opts == opts:
            mine = played(rules, opts, hands, seed, bots, workers)
            fired, other = {}, {}
            default: Played | None = None
            for c in diff(rs0, rs_b):
                if c.path.startswith("option."):
                    continue
                if _settles(c.path, rs0, rs_b):
                    where = mine
                    if c.op == "-":  # a removed rule: in the default's hands
                        default = default or played(rules, {}, hands, seed, bots, workers)
                        where = default
                    fired[c.path] = where.fired[c.path]
                else:
                    other[c.path] = coverage_kind(c.path)
            row["unpaired"] = True
        else:
            rep = impact(rules, seat_opts, rules, opts, hands, seed, bots.split(","), workers)
            fired, other = _from_report(rep)
            if seat_opts:
                row["paired_with"] = seat_opts
                rs_seats = compiled(rules, seat_opts)[0]
                other.update({c.path: coverage_kind(c.path) for c in diff(rs0, rs_seats) if not c.path.startswith("option.")})
    except MjError as exc:
        row["error"] = str(exc)
        return row
    if len(opts) == 1:  # a `no win` fan the default already refuses more than: against the option's other values
        (name, value), = opts.items()
        for path in [p for p, k in fired.items() if not k and _no_win(p, rs0, rs_b)]:
            for alt in rs0.options[name].choices:
                if alt in (value, rs0.options[name].default):
                    continue
                got = _from_report(impact(rules, {name: alt}, rules, opts, hands, seed, bots.split(","), workers))[0]
                if got.get(path):
                    fired[path] = got[path]
                    row.setdefault("against", {})[path] = f"{name}={alt}"
                    break
    row.update(fired=fired, applies_every_hand=other, never_fired=[p for p, k in fired.items() if not k],
               same_as_default=not fired and not other)
    if any(p.startswith("factor.") for p in row["never_fired"]):  # a cap that never bit: the largest amounts
        big = played(rules, opts, hands, seed, bots, workers)
        row["largest"] = {"win_payment_by_one_payer": big.largest_win_payment, "net_of_a_seat": big.largest_net}
    row["cpu_s_parent"] = round(time.process_time() - start, 1)
    return row


def _no_win(path: str, *rulesets: Ruleset) -> bool:
    name = path.split(".", 1)[1]
    return path.startswith("fan.") and any(name in rs.fans and rs.fans[name].no_win for rs in rulesets)


def option_coverage(rules: str, hands: int, seed: int, bots: str, workers: int,
                    retry: str | None = None) -> Iterator[dict[str, Any]]:
    """One row per option value (and one for every option at its first other value together):
    the changed rules, the hands each fired in under the choice, and what never fired. With
    ``retry`` (bot kinds), a row in which some rule never fired is played again with those bots
    (``first_try`` keeps what the first bots left unfired)."""
    rs = compile_ruleset(rules, {})
    runs = [{o.name: v} for o in rs.options.values() for v in o.choices if v != o.default]
    together = {o.name: next(v for v in o.choices if v != o.default) for o in rs.options.values() if len(o.choices) > 1}
    if len(together) > 1:
        runs.append(together)
    for opts in runs:
        row = option_row(rules, opts, hands, seed, bots, workers)
        if retry and retry != bots and row.get("never_fired"):
            first = {"bots": bots, "never_fired": row["never_fired"]}
            row = option_row(rules, opts, hands, seed, retry, workers)
            row["first_try"] = first
        yield row


def option_line(r: dict[str, Any]) -> str:
    """One option row as a line of text."""
    opts = ", ".join(f"{k}={v}" for k, v in r["options"].items())
    if "error" in r:
        return f"{r['rules']} {opts}: ERROR {r['error']}"
    if r["same_as_default"]:
        return f"{r['rules']} {opts}: the same rules as the default (the choice restates them)"
    how = (" unpaired (its own hands; a removed rule: the default's)" if r["unpaired"] else
           f" paired with {', '.join(f'{k}={v}' for k, v in r['paired_with'].items())}" if r["paired_with"] else "")
    against = r.get("against", {})
    fired = ", ".join(f"{p} {k}" + (f" (against {against[p]})" if p in against else "") for p, k in r["fired"].items()) or "-"
    line = (f"{r['rules']} {opts}: {r['hands']} hands, bots {r['bots']}{how}; fired (hands): {fired}"
            + (f"; every hand: {', '.join(r['applies_every_hand'])}" if r["applies_every_hand"] else "")
            + (f"; NEVER FIRED: {', '.join(r['never_fired'])}" if r["never_fired"] else ""))
    if "largest" in r:
        line += (f"; largest win payment by one payer {r['largest']['win_payment_by_one_payer']}, "
                 f"largest |net| of a seat {r['largest']['net_of_a_seat']}")
    if "first_try" in r:
        line += f"; bots {r['first_try']['bots']} left unfired: {', '.join(r['first_try']['never_fired'])}"
    return line


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rules", nargs="*")
    ap.add_argument("-n", "--hands", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bots", default="value")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--options", action="store_true", help="the rules each option value changes, and whether they fire")
    ap.add_argument("--retry", metavar="BOTS", help="with --options: play a row again with these bots when a rule never fired")
    a = ap.parse_args()
    names = a.rules or sorted(p.stem for p in RULESETS.glob("*.rules"))
    if a.options:
        rows = []
        for name in names:
            for r in option_coverage(name, a.hands, a.seed, a.bots, a.workers, a.retry):
                rows.append(r)
                if not a.json:
                    print(option_line(r))
                    sys.stdout.flush()
        if a.json:
            print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    out = []
    for name in names:
        c = coverage(name, a.hands, a.seed, a.bots, a.workers)
        out.append(c)
        if not a.json:
            def pct(d):
                return ", ".join(f"{k} {100 * v:.2f}%" for k, v in d.items())
            print(f"{name}: {a.hands} hands, bots {a.bots}, 荒庄 {100 * c['exhaustive_rate']:.2f}%")
            print(f"  patterns: {pct(c['patterns'])}")
            print(f"  fans: {pct(c['fans'])}")
            print(f"  精 rules: {pct(c['jing_rules'])}")
            print(f"  never fired: {', '.join(c['never_fired']) or 'none'}")
            w = c["live_left"]
            print(f"  live wall left when the hand ended: median {w['median']}, fewest {w['fewest']}; hands ending with "
                  + ", ".join(f"≤ {n}: {k}" for n, k in w["hands_ending_with_at_most"].items()))
            sys.stdout.flush()
    if a.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
