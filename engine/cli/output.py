"""What every command prints and how it exits: the exit-code table, the two rich consoles
(made, and rich imported, at their first use), an error printed as text or JSON with exit 2,
standard output closed early (exit 141, silently), and the printers of the commands' tables
(``check``'s summary, ``score``'s ledger, ``simulate``'s summary, the impact report, a replayed
event).
"""
from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from engine.errors import MjError

if TYPE_CHECKING:
    from rich.console import Console

    from engine.core.scoring import Ledger, Scorer, Snapshot, WinScore
    from engine.lang.ruleset import Origin, Ruleset
    from engine.tools.impact import Report

EXIT_OK, EXIT_NO, EXIT_BAD_INPUT, EXIT_BUG, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 1, 2, 3, 130, 141
EXIT_CODES = {  # the exit-code table of docs/cli.md and of `mjrules --help`
    EXIT_OK: "success",
    EXIT_NO: "the answer is no: a test failed, a diff or replay differs, a hand does not win (score), "
             "play ran out of input, check --strict found warnings",
    EXIT_BAD_INPUT: "bad input: a rule or scenario file, a flag or its value (file:line:col where there is a file)",
    EXIT_BUG: "a bug in mjrules: an internal error, reported in one line (MJRULES_DEBUG=1 for the traceback)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
    EXIT_BROKEN_PIPE: "standard output was closed early (mjrules … | head): stops silently",
}

def _console(**kwargs: Any) -> Console:
    """A rich console that, when its reader goes away (``| head``), stops quietly with exit 141
    rather than rich's exit 1 (which means "the answer is no" here)."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            quiet_exit_on_broken_pipe()

    return _Console(**kwargs)


class _LazyConsole:
    """Stands for a rich console made (and rich imported) at its first use."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs: dict[str, Any] = kwargs
        self._console: Console | None = None

    def real(self) -> Console:
        """The rich console itself (for rich's own objects: a progress bar, a player)."""
        if self._console is None:
            self._console = _console(**self._kwargs)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real(), name)


# user text (rule names, source lines, hands) is printed literally: no markup, no :emoji: codes
out = _LazyConsole(highlight=False, soft_wrap=True, markup=False, emoji=False)
err = _LazyConsole(stderr=True, highlight=False, soft_wrap=True, markup=False, emoji=False)

IMPACT_NAME_WIDTH = 12     # impact tables: the rule/effect column never narrower (it folds)
IMPACT_PIPE_WIDTH = 200    # impact tables are measured at this width and printed as wide as they need
BUG_LINE = 300             # characters of an internal error's message shown (one line)


def fail(exc: MjError, as_json: bool, code: int = 2) -> NoReturn:
    """Print ``exc`` (as JSON on stdout with ``as_json``, else rendered on stderr) and exit
    ``code`` (2: bad input). Never returns: raises :class:`typer.Exit`."""
    if as_json:
        print(json.dumps(exc.to_json(), ensure_ascii=False, indent=2))
    else:
        err.print(exc.render(), markup=False)
    raise typer.Exit(code)


def quiet_exit_on_broken_pipe() -> None:
    """Standard output was closed early (``mjrules … | head -1``): point it at devnull, as the
    Python docs advise for SIGPIPE, so the interpreter's final flush is quiet, and exit 141."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        if sys.__stdout__ is None:
            raise ValueError("no standard output")
        os.dup2(devnull, sys.__stdout__.fileno())
    except (OSError, AttributeError, ValueError):
        pass
    raise SystemExit(EXIT_BROKEN_PIPE)


def flush_or_quiet() -> None:
    """Flush stdout now, so a reader that went away is noticed here (exit 141) and not by the
    interpreter at exit (a traceback-like 'Exception ignored' and status 120)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_exit_on_broken_pipe()
    except (OSError, ValueError):
        pass


# ---- printers ----------------------------------------------------------------------------------


def check_summary(rs: Ruleset) -> dict[str, Any]:
    """What ``check`` says of a ruleset that compiles: its name, chain, counts and options (JSON)."""
    counts = {
        "tile kinds": sum(len(range(s.low, s.high + 1)) for s in rs.suits.values()) + sum(len(h.tiles) for h in rs.honours.values()),
        "melds": len(rs.melds), "patterns": len(rs.patterns), "indicators": len(rs.indicators),
        "jing rules": len(rs.jing), "fans": len(rs.fans), "payments": len(rs.payments),
        "factors": len(rs.factors), "flow policies": len(rs.flow),
    }
    return {"ruleset": rs.name, "extends": rs.extends, "counts": counts,
            "options": {k: o.chosen for k, o in rs.options.items()}}


def counted(n: int, many: str) -> str:
    """``n`` and the plural noun ``many`` as a person writes it: ``1 file``, ``2 files``, ``1 flow
    policy`` (every count the commands print goes through here)."""
    if n != 1:
        return f"{n} {many}"
    return f"{n} {many[:-3] + 'y' if many.endswith('ies') else many[:-1] if many.endswith('s') else many}"


def print_check_summary(rs: Ruleset) -> None:
    """:func:`check_summary` as the lines ``check`` prints (``ok: NAME …``)."""
    counts = check_summary(rs)["counts"]
    chain = f" (extends {' ← '.join(reversed(rs.extends))})" if rs.extends else ""
    out.print(f"ok: {rs.name}{chain} — {rs.label or ''}".rstrip(" —"), markup=False)
    out.print("  " + ", ".join(counted(v, k) for k, v in counts.items()), markup=False)
    for o in rs.options.values():
        set_at = f"; set at {where_origin(o.set_at)}" if o.set_at else ""
        out.print(f"  option {o.name} = {o.chosen} (default {o.default}; choices {', '.join(o.choices)}{set_at})",
                  markup=False)


def print_score(scorer: Scorer, snap: Snapshot, parts: dict[str, Ledger], nets: dict[str, dict[str, int]],
                winres: WinScore | None) -> None:
    """``score``'s tables: the indicators, the rules of the win, the ledger and net 子 per seat
    (``parts``: part name → ledger; ``nets``: part name → seat → 子; ``winres`` None for 荒庄)."""
    from rich.table import Table

    from engine.core.ledger import indicator_of

    rs = scorer.rs
    out.print(f"ruleset {rs.name}" + (f" — {rs.label}" if rs.label else ""), markup=False)
    for name, k in snap.indicators.items():
        main, nxt = scorer.rules.jing_kinds(k)
        label = rs.indicators[indicator_of(name)].label or name
        out.print(f"{label} ({name}): 正精 {scorer.tiles.code(main)}, 副精 {scorer.tiles.code(nxt) if nxt is not None else '-'}",
                  markup=False)
    if winres:
        w = snap.win
        assert w is not None, "a scored win comes from a snapshot with a win"
        r = winres.reading
        how = {"discard": f"on {w.from_seat}'s discard", "self_draw": "self-drawn (自摸)",
               "kong_draw": "on a kong replacement (杠开)", "rob_kong": f"robbing {w.from_seat}'s kong (抢杠)"}[w.by]
        out.print(f"win: {w.seat} on {scorer.tiles.code(w.tile)} {how}; reading {r.pattern}, "
                  f"{r.wilds} 精 as wild{', 精钓' if r.jing_wait else ''}", markup=False)
        fans = Table(title="rules of the win", title_justify="left")
        fans.add_column("rule")
        fans.add_column("effect")
        fans.add_row(f"pattern.{r.pattern}", "the reading scored (best for the winner)")
        pay = next((n for n in winres.ledger.fired if n in rs.payments), None)
        if pay:
            fans.add_row(f"payment.{pay}", ", ".join(f"{k} x{v}" for k, v in rs.payments[pay].weights.items()))
        for name in winres.fans:
            f = rs.fans[name]
            eff = []
            if f.fixed:
                eff.append(f"fixed {f.fixed.amount} each")
            if f.multiplier != 1:
                eff.append(f"x{f.multiplier}")
            eff += [f"+{a.amount} from {a.payer}" + (f" else {a.fallback}" if a.fallback else "") for a in f.adders]
            fans.add_row(f"fan.{name}", ", ".join(eff))
        out.print(fans)
    else:
        out.print("no win: 荒庄 (exhaustive draw)", markup=False)
    led = Table(title="ledger", title_justify="left")
    for c in ("part", "payer → payee", "子", "how"):
        led.add_column(c, justify="right" if c == "子" else "left")
    for part, lg in parts.items():
        for t in lg.transfers:
            led.add_row(part, f"{t.payer} → {t.payee}", str(t.amount), " · ".join(t.factors))
    out.print(led)
    net = Table(title="net 子 per seat", title_justify="left")
    net.add_column("seat")
    for part in nets:
        net.add_column(part, justify="right")
    for s in snap.seats:
        net.add_row(s, *[f"{nets[part][s]:+d}" for part in nets])
    out.print(net)
    at_end = [k for k, ind in rs.indicators.items() if ind.settle == "at_end"]
    out.print(f"total = hand + the settlements made at the end ({', '.join(at_end) or 'none'})", markup=False)


def print_impact(report: Report) -> None:
    """The impact report as rich tables (the sections of docs/impact.md)."""
    from rich.table import Table

    from engine.tools.impact_view import heading, sections

    title, sub = heading(report)
    out.print(title, markup=False)
    out.print(sub, markup=False, style="dim")
    for s in sections(report):
        if s.columns:
            t = Table(title=s.title, title_justify="left")
            for i, c in enumerate(s.columns):  # numbers are never cut; the first column folds
                t.add_column(c, justify="left" if i == 0 else "right", no_wrap=i > 0, overflow="fold",
                             min_width=IMPACT_NAME_WIDTH if i == 0 else None)
            for row in s.rows:
                t.add_row(*row)
            console = out.real()  # as wide as the table needs: a cut number is worse than a long line
            width = console.width
            console.width = IMPACT_PIPE_WIDTH
            console.width = max(width, console.measure(t).maximum)
            try:
                console.print(t)
            finally:
                console.width = width
            for line in s.lines:
                out.print(line, markup=False, style="dim")
        else:
            out.print(s.title, markup=False)
            for line in s.lines:
                out.print(f"  - {line}", markup=False)


def where_origin(origin: Origin) -> str:
    """``file:line`` of a rule's origin, the file as diff shows it."""
    from engine.tools.diff import short_path

    return f"{short_path(origin.file)}:{origin.line}"


def where_file(rs: Ruleset) -> str:
    """A ruleset's file as shown in diff headers, with its extends chain."""
    from engine.tools.diff import short_path

    return short_path(rs.file) + (f", extends {' ← '.join(reversed(rs.extends))}" if rs.extends else "")


def print_summary(rules: str, seed: int, bots: str, d: dict[str, Any], options: dict[str, str] | None = None) -> None:
    """``simulate``'s tables from its JSON summary ``d``: by seat, 子 moved, rates, shares; the
    header names the ``--option`` choices in effect."""
    from rich.table import Table

    chosen = f" ({', '.join(f'{k}={v}' for k, v in options.items())})" if options else ""
    out.print(f"simulate {rules}{chosen}: {d['hands']} hands, seed {seed}, bots {bots}", markup=False)
    t = Table(title="by seat", title_justify="left")
    per_seat = bots.split(",") if "," in bots else []  # one kind per seat, in seat order: a column
    for c in ("seat", *(["bot"] if per_seat else []), "wins", "win rate", "hands as dealer", "子 per hand", "± 95%",
              "p5…p95", "worst"):
        t.add_column(c, justify="left" if c in ("seat", "bot") else "right")
    for i, (s, v) in enumerate(d["seats"].items()):
        sp = d["spread"]["seats"][s]
        t.add_row(s, *([per_seat[i]] if per_seat else []), str(v["wins"]), f"{v['win_rate']:.1%}",
                  str(v["dealer_hands"]), f"{v['avg_zi_per_hand']:+.2f}",
                  f"±{(sp['ci95'][1] - sp['ci95'][0]) / 2:.2f}" if sp["ci95"] else "—", f"{sp['p5']:+d}…{sp['p95']:+d}", f"{sp['min']:+d}")
    out.print(t)
    mv = d["spread"]["zi_moved"]
    ci = f"95% CI {mv['ci95'][0]:.2f} … {mv['ci95'][1]:.2f}; " if mv["ci95"] else ""
    out.print(f"子 moved per hand: {d['avg_zi_moved_per_hand']:.2f} ({ci}p5 {mv['p5']}, p95 {mv['p95']}, "
              f"most {mv['max']})", markup=False)
    out.print(f"荒庄 (drawn hands): {d['exhaustive_rate']:.1%}   抄庄 (follow_first): {d['follow_first_rate']:.1%}   "
              f"highest floor: {d['max_floor']}", markup=False)
    for title, key in (("win by", "win_by"), ("patterns (share of hands)", "patterns"),
                       ("fans (share of hands)", "fans"), ("精 rules (share of hands)", "jing_rules")):
        items = d[key]
        if items:
            out.print(f"{title}: " + ", ".join(f"{k} {v:.1%}" for k, v in items.items()), markup=False)


def event_text(e: Mapping[str, object]) -> str:
    """One game event (a record's dict) as one line of ``replay``'s listing."""
    kind = e["event"]
    rest = " ".join(f"{k}={v}" for k, v in e.items() if k not in ("n", "event", "seat"))
    return f"{e['n']:4d} {e.get('seat', '-'):>2} {kind:15s} {rest}"
