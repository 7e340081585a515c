"""How an impact review reads: the :class:`~engine.tools.impact.Report` as a list of sections,
printed as rich tables (``mjrules impact``, ``diff --impact``) or as Markdown (``--markdown``,
the server's review page). What the numbers are is :mod:`engine.tools.impact`'s question; this
module only lays them out (docs/impact.md).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.tools.impact import EFFECTS, ROLES, Report, coverage_kind

EFFECT_TEXT = {
    "total": "total",
    "scoring_on_a_hands": "scoring, A's hands",
    "scoring_on_b_hands": "scoring, B's hands",
    "play_scored_by_a": "play, scored by A",
    "play_scored_by_b": "play, scored by B",
}
ROLE_TEXT = {"dealer": "dealer", "others": "others (each)", "zi_moved": "子 moved"}


@dataclass
class Section:
    """A titled table (``columns``, ``rows`` of text) and/or bullet lines."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    lines: list[str] = field(default_factory=list)


SECTION_TITLES = ("Effects (Δ 子 per hand, B − A)", "Changed rules: coverage and scoring effect",
                  "The two sides", "Warnings")


def _share(v: float) -> str:
    return f"{v:.1%}"


def sections(rep: Report) -> list[Section]:
    """The report as sections (titles: :data:`SECTION_TITLES`)."""
    j = rep.to_json()
    eff = Section(SECTION_TITLES[0], ["effect", "role", "mean", "95% CI", "p5…p95", "worst…best"], [])
    for name in EFFECTS:
        e = j["effects"][name]
        if not e["hands"]:
            continue
        for role in ROLES:
            d = e[role]
            eff.rows.append([EFFECT_TEXT[name] if role == ROLES[0] else "", ROLE_TEXT[role], f"{d['mean']:+.2f}",
                             (f"{d['ci95'][0]:+.2f}…{d['ci95'][1]:+.2f}" if d["ci95"] else "—"), f"{d['p5']:+d}…{d['p95']:+d}",
                             f"{d['min']:+d}…{d['max']:+d}"])
    eff.lines += ["total: B's hands scored by B − A's hands scored by A; scoring: the same hands scored by B − by A; "
                  "play: B's hands − A's hands, both scored by one side",
                  "per hand; 95% CI = mean ± 1.96·sd/√n over the paired hands; others: each non-dealer seat, paired "
                  "by place after the dealer (three a hand)"]
    cov = Section(SECTION_TITLES[1], ["rule", "op", "fired A", "fired B", "re-scored", "shared", "changed",
                                      "Σ Δ dealer", "Σ Δ 子 moved"], [])
    by_rule = {r["path"]: r for r in j["by_rule"]}
    unrecorded = []
    for c in j["coverage"]:
        r = by_rule.get(c["path"])
        if c["kind"] == "scoring":
            assert r is not None, "by_rule has a row for every scoring rule"
            cov.rows.append([c["path"], c["op"], str(c["a"]), str(c["b"]), str(r["hands"]), str(r["shared"]),
                             str(r["changed"]), f"{r['dealer']:+d}", f"{r['zi_moved']:+d}"])
        else:
            cov.rows.append([c["path"], c["op"]] + ["—"] * 7)
            unrecorded.append(c["path"])
    cov.lines.append("fired A / B: hands of that side in which the rule appears in its own scoring; re-scored: hands of "
                     "both sides, each scored by both, in which it fired on either side; shared: with another changed "
                     "rule; changed: hands whose nets changed; Σ Δ: B's scoring − A's over those hands")
    for c in j["coverage"]:  # a `no win` fan never stands in a ledger: the hands it refused
        r = by_rule.get(c["path"])
        if c["kind"] == "scoring" and r is not None and not r["hands"] and (c["a_hands_by_b"] or c["b_hands_by_a"]):
            cov.lines.append(f"{c['path']}: refused {c['a_hands_by_b']} of A's hands re-scored by B and "
                             f"{c['b_hands_by_a']} of B's re-scored by A (a refusal leaves no ledger row)")
    options = [p for p in unrecorded if coverage_kind(p) == "option"]
    played = [p for p in unrecorded if p not in options]
    if played:
        cov.lines.append(f"—: {', '.join(played)}: in force every hand or acting on play; no ledger records them, "
                         "their effect is in the play rows")
    if options:
        cov.lines.append(f"—: {', '.join(options)}: the rules an option sets are listed on their own rows")
    for r in j["attribution"]:
        if not r["rules"] and r["changed"]:
            cov.lines.append(f"{r['changed']} re-scored hands changed with no changed rule recorded in them "
                             f"(Σ Δ dealer {r['dealer']:+d}, Σ Δ 子 moved {r['zi_moved']:+d})")
    sa, sb = j["sides"]["a"], j["sides"]["b"]
    sides = Section(SECTION_TITLES[2], ["", rep.a, rep.b, "Δ"], [])
    for label, key, fmt in (("win rate", "win_rate", _share), ("dealer win rate", "dealer_win_rate", _share),
                            ("荒庄 (drawn hands)", "exhaustive_rate", _share),
                            ("子 moved per hand", "zi_moved_per_hand", lambda v: f"{v:.2f}"),
                            ("精 子 moved per hand", "jing_zi_moved_per_hand", lambda v: f"{v:.2f}")):
        d = sb[key] - sa[key]
        sides.rows.append([label, fmt(sa[key]), fmt(sb[key]), (f"{d:+.1%}" if fmt is _share else f"{d:+.2f}")])
    for label, key in (("win by", "win_by"), ("pattern", "patterns"), ("fan", "fans"), ("精 rule", "jing_rules")):
        for name in dict.fromkeys([*sa[key], *sb[key]]):
            x, y = sa[key].get(name, 0.0), sb[key].get(name, 0.0)
            sides.rows.append([f"{label}: {name}", _share(x), _share(y), f"{y - x:+.1%}"])
    warn = Section(SECTION_TITLES[3], [], [], j["warnings"] or ["none"])
    return [eff, cov, sides, warn]


def heading(rep: Report) -> list[str]:
    """The report's title and the command that makes it."""
    return [f"Impact of {rep.b} over {rep.a}: {rep.hands} paired hands",
            f"seed {rep.seed}, bots {rep.bots[0] if len(set(rep.bots)) == 1 else ','.join(rep.bots)}; each hand is played under both with the same "
            "wall and dice, and scored by both"]


def markdown(rep: Report, command: str | None = None) -> str:
    """The report as Markdown (for a pull-request comment): ``##`` title, ``###`` sections."""
    title, sub = heading(rep)
    out = [f"## {title}", "", sub + "."]
    if command:
        out += ["", f"`{command}`"]
    for s in sections(rep):
        out += ["", f"### {s.title}", ""]
        if s.columns:
            out.append("| " + " | ".join(s.columns) + " |")
            out.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(s.columns))) + "|")
            out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in s.rows]
            for line in s.lines:
                out += ["", f"*{line}*"]
        else:
            out += [f"- {line}" for line in s.lines]
    return "\n".join(out) + "\n"
