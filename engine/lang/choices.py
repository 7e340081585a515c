"""Which choices of a file's options no longer compile? :func:`option_choice_errors` compiles the
file once per other choice of every option (a bound on the work: :data:`MAX_CHOICES_CHECKED`):
a house file may remove or override what a parent's option choice changes, or declare an
option with a broken choice, and the chosen options alone would not show it. ``mjrules check``
runs it, and the editor's server on save.
"""
from __future__ import annotations

from pathlib import Path

from engine.errors import RuleError
from engine.lang.compiler import Checked, compile_text
from engine.lang.lint import Diagnostic, from_error

MAX_CHOICES_CHECKED = 200  # option choices compiled besides the chosen ones (a bound on a check's work)


def option_choice_errors(checked: Checked, file: str, base_dir: Path, given: dict[str, str],
                         limit: int = MAX_CHOICES_CHECKED) -> list[Diagnostic]:
    """An error for each choice of an option (one at a time, the others as chosen) that does not
    compile with the file ``checked`` (which compiled as chosen): a file may remove or override
    what a parent's option choice changes, or declare an option with a broken choice, and the
    chosen ones alone would not show it. Options in ``given`` stay as given; at most ``limit``
    compiles. Each error notes this file's statements about what it is about (the ``remove`` a
    choice needed undone). ``mjrules check`` runs it, and the editor's server on save."""
    rs = checked.ruleset
    if rs is None:
        return []
    own = {o.name for o in checked.parsed.options}
    out: list[Diagnostic] = []
    for o in rs.options.values():
        for choice in (c for c in o.choices if o.name not in given and c != o.chosen):
            if limit <= 0:
                return out
            limit -= 1
            try:
                compile_text(checked.parsed.text, file, {**given, o.name: choice}, base_dir)
            except RuleError as exc:
                paths = set(getattr(exc, "paths", ()))
                exc.message = f"option {o.name} = {choice} does not compile: {exc.message}"
                exc.hint = (f"fix that choice's statements; check it alone: mjrules check {file} -o {o.name}={choice}"
                            if o.name in own else
                            f"this file removes or changes what that choice of a parent's option needs: keep it, or "
                            f"play the option's other choices (check one alone: mjrules check {file} -o {o.name}={choice})")
                exc.related = [*exc.related, *((f"{st.path}: {st.op} here", st.location)
                                               for st in checked.parsed.stmts if st.path in paths)]
                out.append(from_error(exc, file, checked.parsed.text))
    return out
