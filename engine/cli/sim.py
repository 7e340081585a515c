"""The commands that play many hands: ``simulate`` (one ruleset, bots, a summary) and the two
that compare rulesets, ``diff`` (rule path by rule path, optionally with paired hands) and
``impact`` (the same seeded hands under both, each re-scored by the other side).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

import engine.cli.inputs as inputs
from engine.cli.inputs import (
    MAX_HANDS,
    MAX_SEED,
    AddressOpt,
    BackendOpt,
    JsonOpt,
    OptionOpt,
    PlayoutsOpt,
    SeedOpt,
    budgeted_bots,
    check_bots,
    check_count,
    compile_or_fail,
    max_workers,
    name_values,
    option_error,
    parse_options,
    writable_dir,
)
from engine.cli.output import counted, err, fail, out, print_impact, print_summary, where_file
from engine.errors import MjError, OptionError

if TYPE_CHECKING:
    from engine.lang.ruleset import Ruleset
    from engine.tools.impact import Report


def diff(
    a: Annotated[str, typer.Argument(metavar="A", help="The ruleset before: a bundled name or a .rules file.")],
    b: Annotated[str, typer.Argument(metavar="B", help="The ruleset after.")],
    impact: Annotated[int, typer.Option(metavar="N", min=0, help="Also play N paired hands (the same seeds) and print the `mjrules impact` report.")] = 0,
    seed: Annotated[int | None, typer.Option(min=0, max=MAX_SEED, help="Seed of the --impact hands (default 1).")] = None,
    bots: Annotated[str | None, typer.Option(metavar="KIND[,KIND…]", help="With --impact: bot per seat, greedy (default), random or value; one kind for all, or one per seat.")] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="With --impact: processes to play in (default 1); the output does not depend on it.")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", metavar="NAME=VALUE", help="An option for each side that declares it (repeatable).")] = None,
    option_b: Annotated[list[str] | None, typer.Option("--option-b", metavar="NAME=VALUE", help="An option for B only: diff a ruleset against one of its options.")] = None,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="table (default) or markdown: with --impact, the report as a pull-request comment after the rule diff.")] = "table",
    as_json: JsonOpt = False,
) -> None:
    """What B changes from A, rule path by rule path: + added, - removed, ~ changed (old → new),
    each with the file and line it comes from. Exit 0 when they are the same, 1 when they differ.

    With --impact N, the same N hands (same seeds, same bots) are played under A and under B and
    each is re-scored by the other side: the `mjrules impact` report follows the rule diff
    (docs/impact.md), played by --bots in --workers processes; --format markdown prints it as a
    pull-request comment."""
    from engine.tools.diff import diff as compare
    from engine.tools.diff import where

    try:
        check_count("--impact", impact, MAX_HANDS, "hands under each ruleset")
        if seed is not None and not impact:
            raise MjError("--seed is the seed of the --impact hands, and no --impact is given",
                          hint="add --impact N, or leave out --seed")
        for flag, given in (("--bots", bots), ("--workers", workers)):
            if given is not None and not impact:
                raise MjError(f"{flag} plays the --impact hands, and no --impact is given",
                              hint=f"add --impact N, or leave out {flag}")
        if fmt not in ("table", "markdown"):
            raise MjError(f"--format {fmt!r}: give table or markdown")
        seed = 1 if seed is None else seed
        bots = bots or "greedy"
        check_bots(bots)
        workers = workers or 1
        check_count("--workers", workers, max_workers(), "(twice this machine's CPUs)")
    except MjError as exc:
        fail(exc, as_json)
    opts_a, opts_b, ra, rb = _two_sides(a, b, option, option_b, as_json)
    changes = compare(ra, rb)
    effect = _impact(a, b, opts_a, opts_b, impact, seed, bots, workers, show=not as_json and err.is_terminal,
                     as_json=as_json) if impact else None
    counts = {op: sum(c.op == op for c in changes) for op in "+-~"}
    summary = (f"{counted(len(changes), 'differences')}: {counts['+']} added, "
               f"{counts['-']} removed, {counts['~']} changed") if changes else "no differences"
    if as_json:
        print(json.dumps({"a": ra.name, "b": rb.name, "changes": [c.to_json() for c in changes],
                          "added": counts["+"], "removed": counts["-"], "changed": counts["~"],
                          **({"impact": effect.to_json()} if effect else {})}, ensure_ascii=False, indent=2))
    else:
        out.print(f"--- {ra.name}  ({where_file(ra)})", markup=False)
        out.print(f"+++ {rb.name}  ({where_file(rb)})", markup=False)
        for c in changes:
            if c.op == "~":
                assert c.old is not None and c.new is not None, "a changed rule has both sides"
                out.print(f"~ {c.path}", markup=False)
                out.print(f"    - {c.old.text}    [{where(c.old.origin)}]", markup=False)
                out.print(f"    + {c.new.text}    [{where(c.new.origin)}]", markup=False)
            else:
                r = c.new or c.old
                assert r is not None, "an added or removed rule has one side"
                out.print(f"{c.op} {c.path} = {r.text}    [{where(r.origin)}]", markup=False)
        out.print(summary, markup=False)
        if effect and fmt == "markdown":
            from engine.tools.impact_view import markdown

            print("\n" + markdown(effect, _impact_command(a, b, impact, seed, bots, option, option_b)), end="")
        elif effect:
            print_impact(effect)
    raise typer.Exit(1 if changes else 0)


def _two_sides(a: str, b: str, option: list[str] | None, option_b: list[str] | None,
               as_json: bool) -> tuple[dict[str, str], dict[str, str], Ruleset, Ruleset]:
    """(options of A, options of B, ruleset A, ruleset B): ``--option`` goes to each side that
    declares it, ``--option-b`` to B only; a bad option or ruleset prints its error, exit 2."""
    only_b: dict[str, str] = {}
    try:
        both, only_b = parse_options(option), name_values(option_b, "--option-b", "NAME=VALUE")
        opts_a, opts_b = _declared_options(a, both), {**_declared_options(b, both), **only_b}
        unknown = set(both) - set(opts_a) - set(opts_b)
        if unknown:
            raise MjError(f"unknown option {sorted(unknown)[0]!r}: neither {a} nor {b} declares it")
        return opts_a, opts_b, inputs.compile_ruleset(a, opts_a), inputs.compile_ruleset(b, opts_b)
    except OptionError as exc:
        fail(option_error(exc, "--option-b" if exc.option in only_b else "--option"), as_json)
    except MjError as exc:
        fail(exc, as_json)


def impact(
    a: Annotated[str, typer.Argument(metavar="A", help="The ruleset before: a bundled name or a .rules file.")],
    b: Annotated[str, typer.Argument(metavar="B", help="The ruleset after.")],
    n: Annotated[int, typer.Option("-n", "--hands", min=1,
                                   help=f"Paired hands: each is played under A and under B (at most {MAX_HANDS:,}).")] = 1000,
    seed: SeedOpt = 1,
    bots: Annotated[str, typer.Option(metavar="KIND[,KIND…]", help="Bot per seat: greedy, random, value (value chases what this rule file pays) or search (plays each choice out over redeals of what it cannot see: slow, see --search-playouts); one kind for all, or one per seat in the rule file's seat order (the first deals the first hand).")] = "greedy",
    search_playouts: PlayoutsOpt = None,
    workers: Annotated[int, typer.Option(min=1, help="Processes to play in (at most twice the CPUs); the output does not depend on it.")] = 1,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", metavar="NAME=VALUE", help="An option for each side that declares it (repeatable).")] = None,
    option_b: Annotated[list[str] | None, typer.Option("--option-b", metavar="NAME=VALUE", help="An option for B only: measure one of a ruleset's options.")] = None,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="table (default) or markdown (a pull-request comment).")] = "table",
    backend: BackendOpt = "local",
    address: AddressOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """What B changes from A, played: the same seeded hands under both (paired), each re-scored by
    the other side. Effects per hand (B − A, mean with 95% CI) by role: total, scoring (the
    same hands, no play noise), play; each changed rule's firing count and scoring effect, with
    a warning for a changed rule never exercised. docs/impact.md explains the plan."""
    import time

    try:
        check_count("-n/--hands", n, MAX_HANDS, "paired hands in one run")
        check_count("--workers", workers, max_workers(), "(twice this machine's CPUs)")
        bots = budgeted_bots(bots, search_playouts)
        if fmt not in ("table", "markdown"):
            raise MjError(f"--format {fmt!r}: give table or markdown")
        from engine.tools.runner import check_backend

        check_backend(backend, address)
    except MjError as exc:
        fail(exc, as_json)
    opts_a, opts_b, _, _ = _two_sides(a, b, option, option_b, as_json)
    started = time.perf_counter()
    report = _impact(a, b, opts_a, opts_b, n, seed, bots, workers, show=not as_json and err.is_terminal,
                     as_json=as_json, backend=backend, address=address)
    elapsed = time.perf_counter() - started
    if as_json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    elif fmt == "markdown":
        from engine.tools.impact_view import markdown

        print(markdown(report, _impact_command(a, b, n, seed, bots, option, option_b)), end="")
    else:
        print_impact(report)
    err.print(f"{n} paired hands in {elapsed:.1f}s ({n / max(elapsed, 1e-9):.1f} paired hands/s)",
              markup=False, style="dim")


def _impact_command(a: str, b: str, n: int, seed: int, bots: str, option: list[str] | None,
                    option_b: list[str] | None) -> str:
    """The command line that makes a report (shown in its Markdown)."""
    words = ["mjrules", "impact", a, b, "-n", str(n), "--seed", str(seed), "--bots", bots]
    words += [w for o in option or [] for w in ("--option", o)] + [w for o in option_b or [] for w in ("--option-b", o)]
    return " ".join(words)


def _declared_options(ref: str, opts: dict[str, str]) -> dict[str, str]:
    """The options of ``opts`` that ruleset ``ref`` declares."""
    declared = inputs.compile_ruleset(ref).options
    return {k: v for k, v in opts.items() if k in declared}


def _impact(a: str, b: str, opts_a: dict[str, str], opts_b: dict[str, str], hands: int, seed: int,
            bots: str = "greedy", workers: int = 1, show: bool = False, as_json: bool = False,
            backend: str = "local", address: str | None = None) -> Report:
    """Paired hands under A and B (engine/tools/impact.py): the :class:`Report`; a progress bar
    on stderr when ``show``. Exit 2 on bad input."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from engine.tools.impact import impact as run

    try:
        with Progress(TextColumn("impact"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err.real(), disable=not show, transient=True) as prog:
            task = prog.add_task("hands", total=hands)
            return run(a, opts_a, b, opts_b, hands, seed, bots.split(","), workers,
                       progress=lambda done: prog.update(task, completed=done), backend=backend, address=address)
    except MjError as exc:
        fail(exc, as_json)


def simulate(
    rules: Annotated[str, typer.Argument(metavar="RULES", help="Bundled ruleset name or path to a .rules file.")],
    n: Annotated[int, typer.Option("-n", "--hands", min=1, help=f"How many hands (at most {MAX_HANDS:,}).")] = 100,
    seed: SeedOpt = 1,
    bots: Annotated[str, typer.Option(metavar="KIND[,KIND…]", help="Bot per seat: greedy, random, value or search (plays each choice out over redeals of what it cannot see: slow, see --search-playouts); one kind for all, or one per seat in the rule file's seat order (the first deals the first hand), e.g. value,greedy,greedy,greedy.")] = "greedy",
    search_playouts: PlayoutsOpt = None,
    workers: Annotated[int, typer.Option(min=1, help="Processes to play in (at most twice the CPUs); the output does not depend on it.")] = 1,
    records: Annotated[Path | None, typer.Option(metavar="DIR", help="Save every hand's record (YAML) in DIR; `mjrules replay` plays one again.")] = None,
    option: OptionOpt = None,
    as_json: JsonOpt = False,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Play many hands with bots and summarise them: wins by seat, patterns, fans, 精 rules, 子 per hand.

    Hands run as matches (the deal rotates, floors climb) in blocks seeded from --seed alone.
    """
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from engine.tools.runner import check_backend
    from engine.tools.simulate import simulate as run

    try:
        check_count("-n/--hands", n, MAX_HANDS, "hands in one run")
        check_count("--workers", workers, max_workers(), "(twice this machine's CPUs)")
        bots = budgeted_bots(bots, search_playouts)
        check_backend(backend, address)
        opts = parse_options(option)
        writable_dir(records, "--records")
    except MjError as exc:
        fail(exc, as_json)
    compile_or_fail(rules, option, as_json)
    started = time.perf_counter()
    show = not as_json and err.is_terminal
    try:
        with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err.real(), disable=not show, transient=True) as prog:
            task = prog.add_task("hands", total=n)
            summary = run(rules, opts, n, seed, bots.split(","), workers, records,
                          progress=lambda done: prog.update(task, completed=done), backend=backend, address=address)
    except MjError as exc:
        fail(exc, as_json)
    elapsed = time.perf_counter() - started
    data = summary.to_json()
    if as_json:
        print(json.dumps({"ruleset": rules, "seed": seed, "bots": bots, **data}, ensure_ascii=False, indent=2))
    else:
        print_summary(rules, seed, bots, data, opts)
    err.print(f"{summary.hands} hands in {elapsed:.1f}s ({summary.hands / max(elapsed, 1e-9):.1f} hands/s)",
              markup=False, style="dim")
