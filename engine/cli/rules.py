"""The commands about rule files themselves: ``check`` (every error and warning), ``fmt`` (the
canonical layout), ``export`` (the resolved ruleset as YAML or JSON), ``sheet`` (a Markdown rule
sheet) and ``list`` (the bundled rulesets).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

import engine.cli.inputs as inputs
from engine.cli.inputs import FileArg, JsonOpt, OptionOpt, compile_or_fail, option_error, parse_options
from engine.cli.output import EXIT_BAD_INPUT, EXIT_NO, check_summary, counted, err, fail, out, print_check_summary
from engine.errors import MjError, OptionError, RuleError
from engine.lang.resources import bundled_ruleset_names as list_bundled
from engine.lang.resources import is_bundled_file

CodesOpt = Optional[list[str]]  # noqa: UP045 (a run-time alias typer reads)


def check(files: Annotated[list[str], typer.Argument(metavar="FILE", help="Rule files or bundled ruleset names.")],
          option: OptionOpt = None, as_json: JsonOpt = False,
          select: Annotated[CodesOpt, typer.Option("--select", metavar="CODES",
                                                   help="Report only these warnings: codes or prefixes, comma-separated (default: W, all).")] = None,
          extend_select: Annotated[CodesOpt, typer.Option("--extend-select", metavar="CODES",
                                                          help="Report these warnings as well as the selected ones.")] = None,
          ignore: Annotated[CodesOpt, typer.Option("--ignore", metavar="CODES",
                                                   help="Do not report these warnings.")] = None,
          strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when there are warnings (and no error).")] = False,
          ) -> None:
    """Compile rule files: every error (exit 2) and warning of each, with its code (docs/cli.md).

    A file with no error also gets its summary (what it declares, its options). Warnings alone
    exit 0 (1 with --strict). `# noqa` or `# noqa: W201` on a line drops its warnings."""
    from engine.lang.choices import option_choice_errors
    from engine.lang.compiler import check_text, read_rule_file
    from engine.lang.lint import Selection, diagnose, from_error
    from engine.lang.resources import resolve_ruleset_path

    def codes(flag: str, values: list[str] | None) -> list[str] | None:
        if values is None:
            return None
        out = [c.strip() for v in values for c in v.split(",") if c.strip()]
        for c in out:
            if not Selection(select=[c]).valid():
                fail(MjError(f"{flag} {c!r}: no code starts with {c!r}",
                              hint="the codes are listed in docs/cli.md (E… errors, W… warnings)"), as_json)
        return out

    selection = Selection(select=codes("--select", select), extend_select=codes("--extend-select", extend_select) or [],
                          ignore=codes("--ignore", ignore) or [])
    options = None
    try:
        options = parse_options(option)
    except MjError as exc:
        fail(exc, as_json)
    reports, diagnostics, bad = [], [], 0
    for ref in files:
        try:
            path = resolve_ruleset_path(ref)
        except MjError as exc:  # not a rule file at all: said as any command says it
            if as_json:
                reports.append({**exc.to_json(), "file": ref, "ok": False})
            else:
                err.print(exc.render(), markup=False)
            bad += 1
            continue
        rs = None
        try:
            text = read_rule_file(path)
        except RuleError as exc:  # not readable as a rule file: one error at its place
            found = [from_error(exc, str(path))]
        else:
            try:  # one compile, every error and warning (engine/lang/lint.py)
                checked = check_text(text, str(path), options, path.parent)
            except OptionError as exc:
                fail(option_error(exc), as_json)
            found = diagnose(checked, str(path), selection)
            if not checked.errors:
                rs = checked.ruleset
                if rs is not None and not is_bundled_file(path):  # the bundled files' choices: the tests compile each
                    found += option_choice_errors(checked, str(path), path.parent, options or {})
                    if any(d.severity != "warning" for d in found):
                        rs = None
        diagnostics += found
        report = {"file": str(path), "ok": rs is not None}
        if rs is not None:
            report.update(check_summary(rs))
        reports.append(report)
        if not as_json:
            if rs is not None:
                print_check_summary(rs)
            for d in found:
                err.print(d.error.render() if d.error is not None else d.concise(), markup=False)
    n_warn = sum(d.severity == "warning" for d in diagnostics)
    n_err = len(diagnostics) - n_warn + bad  # a name that is no rule file is an error too
    if as_json:
        data = {"ok": not bad and n_err == 0, "errors": n_err, "warnings": n_warn,
                "diagnostics": [d.to_json() for d in diagnostics], "files": reports}
        if len(reports) == 1:  # one file: its summary, or its first error, where they were before
            first = next((d.error for d in diagnostics if d.error is not None), None)
            data.update({k: v for k, v in {**reports[0], **(first.to_json() if first else {})}.items()
                         if k not in data})
        print(json.dumps(data, ensure_ascii=False, indent=2))
    elif diagnostics or (bad and len(files) > 1):
        err.print(f"Found {counted(n_err, 'errors')}, {counted(n_warn, 'warnings')}.", markup=False)
    if bad or n_err:
        raise typer.Exit(EXIT_BAD_INPUT)
    if n_warn and strict:
        raise typer.Exit(EXIT_NO)


def export(file: FileArg, option: OptionOpt = None, as_json: JsonOpt = False) -> None:
    """Print the resolved ruleset (after extends, overrides and options) as YAML, in a stable order."""
    from engine.table.records import to_yaml

    rs = compile_or_fail(file, option, as_json)
    data = rs.model_dump(mode="json")
    if as_json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return
    sys.stdout.write(to_yaml(data, compact=False))


def sheet(
    file: FileArg,
    output: Annotated[Path | None, typer.Option("--output", "-O", metavar="FILE", help="Write the sheet to FILE instead of printing it.")] = None,
    option: OptionOpt = None,
) -> None:
    """Print a ruleset as a Markdown rule sheet: every rule after extends, overrides and options,
    what it says, the file and line it comes from, and the source comment written there."""
    from engine.tools.sheet import rule_sheet

    if output is not None and not output.parent.is_dir():
        fail(MjError(f"--output {output}: no folder {output.parent}", hint="give a file in a folder that exists"), False)
    text = rule_sheet(compile_or_fail(file, option, False)) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(MjError(f"--output {output}: cannot write the sheet there: {exc.strerror or exc}",
                      hint="give a file in a folder that exists"), False)


def fmt_(
    files: Annotated[list[str], typer.Argument(metavar="FILE", help="Rule files, or folders (their *.rules files); - reads standard input and writes standard output.")],
    check: Annotated[bool, typer.Option("--check", help="Write nothing; list the files that would change and exit 1 if any.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Write nothing; print the changes as a unified diff and exit 1 if any.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Rewrite rule files in place in the one canonical layout (docs/language.md, "Layout"):
    normalised spacing and clause order, aligned comments, comments kept where they stand; the
    meaning does not change. A file that does not parse is reported (file:line:col, exit 2) and
    nothing is written."""
    from engine.lang.compiler import decode_rule_bytes
    from engine.lang.fmt import Formatted, format_file, format_text, rule_files, write_formatted
    from engine.lang.limits import MAX_FILE_BYTES

    if "-" in files and len(files) > 1:
        fail(MjError("- (standard input) cannot be formatted together with files", hint="format them in two runs"),
              as_json)
    try:
        if files == ["-"]:
            text = decode_rule_bytes(sys.stdin.buffer.read(MAX_FILE_BYTES + 1), "<stdin>")
            done = [Formatted("-", text, format_text(text, "<stdin>"))]
        else:
            paths = rule_files(files)
            done, errors = [], []
            for p in paths:
                try:
                    done.append(format_file(p))
                except MjError as exc:
                    errors.append(exc)
            if errors:  # nothing is written while any file is bad
                if check and not as_json:  # the other files' verdicts too, as ruff format --check gives them
                    for f in done:
                        if f.changed:
                            out.print(f"would reformat: {f.file}", markup=False)
                for bad_file in errors[:-1] if not as_json else []:
                    err.print(bad_file.render(), markup=False)
                fail(errors[0] if as_json else errors[-1], as_json)
    except MjError as exc:
        fail(exc, as_json)
    changed = [f for f in done if f.changed]
    stdin = files == ["-"]
    if not check and not diff and not stdin:
        for f in changed:
            try:
                write_formatted(Path(f.file), f.after)
            except MjError as exc:
                fail(exc, as_json)
    if as_json:
        print(json.dumps({"files": [{"file": f.file, "changed": f.changed, **({"diff": f.diff()} if diff else {}),
                                     **({"text": f.after} if stdin and not (check or diff) else {})} for f in done],
                          "reformatted": len(changed), "unchanged": len(done) - len(changed),
                          "written": len(changed) if not (check or diff or stdin) else 0},  # files rewritten
                         ensure_ascii=False, indent=2))
    elif stdin and not (check or diff):
        sys.stdout.write(done[0].after)
    else:
        if diff:
            sys.stdout.write("".join(f.diff() for f in changed))
        elif check:
            for f in changed:
                out.print(f"would reformat: {f.file}", markup=False)
        if not done:
            err.print("warning: no .rules files found", markup=False)
        elif check or diff:
            (err if diff else out).print(f"{counted(len(changed), 'files')} would be reformatted, "
                                         f"{counted(len(done) - len(changed), 'files')} already formatted", markup=False)
        else:
            out.print(f"{counted(len(changed), 'files')} reformatted, {counted(len(done) - len(changed), 'files')} left unchanged",
                      markup=False)
    if (check or diff) and changed:
        raise typer.Exit(EXIT_NO)


def list_(as_json: JsonOpt = False) -> None:
    """List the bundled rulesets with their titles, parents and options."""
    rows: list[dict[str, Any]] = []
    for name in list_bundled():
        try:
            rs = inputs.compile_ruleset(name)
        except MjError as exc:  # a broken bundled file is reported, not hidden
            rows.append({"name": name, "error": str(exc)})
            continue
        rows.append({"name": name, "label": rs.label, "extends": rs.extends,
                     "options": {k: o.choices for k, o in rs.options.items()}})
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for r in rows:
        parent = f" (extends {r['extends'][-1]})" if r.get("extends") else ""
        opts = f"; options: {', '.join(r['options'])}" if r.get("options") else ""
        out.print(f"{r['name']}{parent} — {r.get('label') or r.get('error', '')}{opts}", markup=False)
