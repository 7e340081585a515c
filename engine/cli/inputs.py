"""What a command does with its command line before any work: the shared flag types, the
bounds on the work one run may ask for, ``NAME=VALUE`` flags, and the ruleset compiled (the
compiler imported at its first use) or its error printed, exit 2. A bad value is refused naming
the flag that gave it.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from engine.cli.output import fail
from engine.errors import MjError, OptionError
from engine.lang.seeds import MAX_SEED as MAX_SEED  # the flags' bound: hand seeds are taken in the seed space

if TYPE_CHECKING:
    from engine.lang.ruleset import Ruleset

# Bounds on the work one command line may ask for (not rules): checked before any work starts.
MAX_HANDS = 1_000_000      # simulate -n and diff --impact (about 2 hours of one core with greedy bots)
MAX_PLAY_HANDS = 1_000     # play --hands: a match keeps every hand it has played (~150 KB each)
MAX_FLOOR = 10_000         # score --floor: the 爬楼 floor multiplies payments
SeedOpt = Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Seed: the same seed gives the same hands and output.")]


def max_workers() -> int:
    """The most ``--workers`` allowed: twice this machine's CPUs (at least 2)."""
    import os

    return max(2, 2 * (os.cpu_count() or 1))


def check_count(flag: str, value: int, most: int, what: str) -> None:
    """:class:`MjError` naming ``flag`` when ``value`` is over ``most`` (exit 2 before any work)."""
    if value > most:
        raise MjError(f"{flag} {value}: at most {most:,} {what}",
                      hint="split the work into several runs with different --seed" if "hands" in what else None)


RulesOpt = Annotated[str, typer.Option("--rules", "-r", metavar="RULES",
                                       help="Bundled ruleset name or path to a .rules file.")]
OptionOpt = Annotated[list[str] | None, typer.Option("--option", "-o", metavar="NAME=VALUE",
                                                        help="Choose an option the rule file declares (repeatable).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
FileArg = Annotated[str, typer.Argument(metavar="FILE", help="A .rules file or a bundled ruleset name.")]
BackendOpt = Annotated[str, typer.Option(metavar="local|ray", help="Where blocks of hands run: local processes, or Ray tasks (pip install 'mjrules[ray]'); the output does not depend on it.")]
PlayoutsOpt = Annotated[int | None, typer.Option(metavar="N", help="The budget of each search bot of --bots: N playouts a decision, 1 to 10,000 (each a hand played out to its end by value bots; default 48; docs/game.md says what it does and costs); search:N in --bots sets one seat's.")]
AddressOpt = Annotated[str | None, typer.Option(metavar="HOST:PORT", help="With --backend ray: the Ray cluster to use (its head's address, or auto); else a local Ray of --workers CPUs.")]


def name_values(specs: list[str] | None, flag: str, example: str) -> dict[str, str]:
    """``NAME=VALUE`` flags as a dict; :class:`MjError` naming the flag for a malformed one."""
    out = {}
    for spec in specs or []:
        if "=" not in spec:
            raise MjError(f"{flag} {spec!r} is not NAME=VALUE", hint=f"e.g. {flag} {example}")
        k, v = spec.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def parse_options(pairs: list[str] | None) -> dict[str, str]:
    """``--option NAME=VALUE`` flags as a dict; :class:`MjError` for a malformed one."""
    return name_values(pairs, "--option", "NAME=VALUE, with a name the rule file declares")


def option_error(exc: OptionError, flag: str = "--option") -> MjError:
    """An unknown option or choice given on the command line, reported about the flag that gave
    it (``--option NAME=VALUE: …``, the hint listing the choices), not at the rule file."""
    spec = f"{flag} {exc.option}" + (f"={exc.value}" if exc.value is not None else "")
    return MjError(f"{spec}: {exc.message}", hint=exc.hint)


def compile_ruleset(ref: str, options: dict[str, str] | None = None) -> Ruleset:
    """:func:`engine.lang.compiler.compile_ruleset`, the compiler imported at its first use."""
    from engine.lang.compiler import compile_ruleset as compile_

    return compile_(ref, options)


def compile_or_fail(ref: str, option: list[str] | None, as_json: bool) -> Ruleset:
    """The ruleset, or the compile error printed and exit 2."""
    try:
        return compile_ruleset(ref, parse_options(option))
    except OptionError as exc:
        fail(option_error(exc), as_json)
    except MjError as exc:
        fail(exc, as_json)


def check_bots(spec: str) -> None:
    """:class:`MjError` naming ``--bots`` when a kind in ``spec`` (comma-separated) is no bot."""
    from engine.table.bots import BOTS, kind_error

    problems = [p for b in spec.split(",") if (p := kind_error(b)) is not None]
    if problems:
        problem = problems[0].removeprefix(f"{spec!r}: ")  # one kind: named once
        raise MjError(f"--bots {spec!r}: {problem} (give one kind, or one per seat in seat order, from: "
                      f"{', '.join(BOTS)}; search:N gives a search bot N playouts a decision)",
                      hint="e.g. --bots greedy or --bots greedy,greedy,random,random or --bots search,value,value,value")


def budgeted_bots(spec: str, playouts: int | None) -> str:
    """``--bots`` with ``--search-playouts`` applied (each plain ``search`` becomes ``search:N``),
    checked (:func:`check_bots`). :class:`MjError` for a budget without a search bot."""
    from engine.table.bots import BUDGETED, with_budget
    from engine.table.searchbot import MAX_PLAYOUTS

    kinds = [k.strip() for k in spec.split(",")]  # "greedy, value" as "greedy,value"
    spec = ",".join(kinds)
    if playouts is not None and not 1 <= playouts <= MAX_PLAYOUTS:
        raise MjError(f"--search-playouts {playouts}: a search bot's budget is 1 … {MAX_PLAYOUTS:,} playouts per decision",
                      hint="e.g. --search-playouts 48 (the default); docs/game.md says what a playout costs")
    if playouts is not None and not any(k.partition(":")[0] in BUDGETED for k in kinds):
        raise MjError(f"--search-playouts is the budget of a search bot, and --bots {spec!r} names none",
                      hint="add search to --bots (e.g. --bots search,value,value,value), or leave out --search-playouts")
    out = ",".join(with_budget(kinds, playouts))
    check_bots(out)
    return out


def writable_dir(path: Path | None, flag: str = "--records") -> None:
    """Create ``path`` for records now, or say why it cannot be (before any hand is played)."""
    if path is None:
        return
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".mjrules-write-test"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise MjError(f"{flag}: cannot write records in {path}: {exc.strerror or exc}",
                      hint="give a folder that exists or can be created") from None
