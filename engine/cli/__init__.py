"""The ``mjrules`` command: check, score, test, export, diff, impact, sheet, simulate, replay, play, fmt, list, serve and lsp.

Exit status (docs/cli.md has the table; ``EXIT_CODES`` of :mod:`engine.cli.output` is it, and ``--help`` prints it):
0 success; 1 the answer is "no": a test failed, a diff or replay differs, ``score`` was given a
hand that does not win, ``play`` ran out of input, ``check --strict`` found warnings; 2 bad input (a rule or scenario file, a flag
or its value), with ``file:line:col`` where there is a file, never a traceback; 3 a bug in
mjrules (an internal error, reported in one line); 130 interrupted (Ctrl-C); 141 standard
output closed early (``mjrules … | head``), silently. Every command but ``play``, ``sheet`` and ``lsp``
takes ``--json`` for a program to read.

This package is one module per group of commands (:mod:`~engine.cli.rules`, :mod:`~engine.cli.score`,
:mod:`~engine.cli.sim`, :mod:`~engine.cli.play`, :mod:`~engine.cli.serve`), the flags they share
(:mod:`~engine.cli.inputs`) and what they print (:mod:`~engine.cli.output`); this module makes the
typer app of them and :func:`main`, the console script.
"""
from __future__ import annotations

import json
import sys

import typer

from engine.cli import play as _play
from engine.cli import rules as _rules
from engine.cli import score as _score
from engine.cli import serve as _serve
from engine.cli import sim as _sim
from engine.cli.inputs import MAX_FLOOR, MAX_HANDS, MAX_PLAY_HANDS, MAX_SEED
from engine.cli.output import (
    BUG_LINE,
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_BUG,
    EXIT_CODES,
    EXIT_INTERRUPTED,
    EXIT_NO,
    EXIT_OK,
    err,
    flush_or_quiet,
    out,
    quiet_exit_on_broken_pipe,
)
from engine.lang.resources import bundled_ruleset_names as list_bundled

__all__ = ["EXIT_BAD_INPUT", "EXIT_BROKEN_PIPE", "EXIT_BUG", "EXIT_CODES", "EXIT_INTERRUPTED", "EXIT_NO", "EXIT_OK",
           "MAX_FLOOR", "MAX_HANDS", "MAX_PLAY_HANDS", "MAX_SEED", "app", "main"]

# Start-up: `mjrules --help` imports only typer, engine.errors, engine.lang.resources and the
# modules of this package; the compiler (pydantic, the parser), the scoring core and rich are
# imported by the commands that use them (benchmarks/startup.py measures it).

_FIRST = (list_bundled() or ["RULES"])[0]

app = typer.Typer(
    name="mjrules",
    help=(
        "Jiangxi mahjong rule variants as rule files.\n\n"
        "A ruleset is a bundled name (" + ", ".join(list_bundled()) + ") or a path to a .rules file "
        "(a bare name is always bundled: give a file as ./NAME.rules); "
        "`--option name=value` picks the options a file declares.\n\n"
        "Examples:\n\n"
        "\b\n"  # click keeps this paragraph's lines as they are: an example pasted whole still runs
        f"  mjrules check {_FIRST}\n"
        f"  mjrules score --rules {_FIRST} --jing 3p --hand S=456m789m123s东西7p3p --win S --tile 南 --by discard --from W\n"
        "  mjrules test tests/cases/*.yaml"
    ),
    epilog="Exit status: " + "; ".join(f"{k} {v}" for k, v in EXIT_CODES.items()) + ".",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

# the commands, in the order `mjrules --help` lists them
for _command in (_rules.check, _serve.lsp, _serve.serve, _rules.export, _score.score, _score.test, _sim.diff,
                 _sim.impact, _sim.simulate, _play.replay, _play.play, _rules.sheet):
    app.command()(_command)
app.command(name="fmt")(_rules.fmt_)
app.command(name="list")(_rules.list_)
del _command


def main() -> None:
    """Console-script entry point: the exit codes of :data:`EXIT_CODES`. An unexpected internal
    error is reported in one line (set MJRULES_DEBUG=1 for the traceback) rather than as a wall
    of Python; Ctrl-C exits 130 with one line; a closed pipe on stdout exits 141 silently."""
    import os

    for stream in (sys.stdout, sys.stderr):  # a non-UTF-8 argument echoed back must not crash
        try:
            stream.reconfigure(errors="backslashreplace")  # type: ignore[union-attr]  # not every TextIO has it
        except (AttributeError, ValueError):
            pass
    try:
        try:
            rv = _run_app()  # an int: a typer.Exit's code (non-standalone click returns it)
            raise SystemExit(rv if isinstance(rv, int) else 0)
        finally:
            if type(sys.stdout).__name__ == "PacifyFlushWrapper":  # typer (click) saw EPIPE on stdout
                quiet_exit_on_broken_pipe()
    except SystemExit as exc:
        if exc.code == EXIT_INTERRUPTED:
            err.print("\ninterrupted (Ctrl-C): stopped, nothing more done", markup=False)
        flush_or_quiet()
        raise
    except KeyboardInterrupt:
        err.print("\ninterrupted (Ctrl-C): stopped, nothing more done", markup=False)
        raise SystemExit(EXIT_INTERRUPTED) from None
    except BrokenPipeError:
        quiet_exit_on_broken_pipe()
    except Exception as exc:  # a bug of ours, not bad input: say so plainly
        if os.environ.get("MJRULES_DEBUG"):
            raise
        said = " ".join(str(exc).split())
        said = said if len(said) <= BUG_LINE else said[:BUG_LINE] + " …"
        err.print(f"internal error: {type(exc).__name__}: {said}\n"
                  "this is a bug in mjrules; rerun with MJRULES_DEBUG=1 for details and report it", markup=False)
        raise SystemExit(EXIT_BUG) from None


def _run_app() -> object:
    """Run the typer app; a usage error that click finds before a command runs (a bad flag value,
    a missing argument) exits 2 as the command's own errors do — as JSON on stdout with --json."""
    from typer.exceptions import Abort, TyperException  # public: the base of the usage errors typer raises

    try:
        return app(standalone_mode=False)
    except TyperException as exc:
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError":  # a bare `mjrules` (or group): its help, as --help gives it
            if ctx is not None:
                out.print(ctx.get_help(), markup=False, highlight=False)
            return 0
        hint = f"{ctx.command_path if ctx is not None else 'mjrules'} --help"
        if "--json" in sys.argv[1:]:
            print(json.dumps({"error": exc.format_message(), "file": None, "line": None, "column": None,
                              "hint": hint, "notes": []}, ensure_ascii=False, indent=2))
        else:  # the shape of every other error of the command line (MjError.render)
            usage = ctx.get_usage() if ctx is not None else None
            err.print(f"error: {exc.format_message()}" + (f"\n{usage[0].lower()}{usage[1:]}" if usage else "")
                      + f"\nhint: {hint}", markup=False)
        return exc.exit_code
    except Abort:
        err.print("aborted", markup=False)
        return 1

