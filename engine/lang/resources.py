"""Where the grammar and the bundled rulesets are: inside the installed package
(``engine/grammar``, ``engine/rulesets``, put there by the wheel build) or, in a source
checkout, the top-level ``grammar/`` and ``rulesets/`` folders.
"""
from __future__ import annotations

from pathlib import Path

from engine.errors import RuleError, did_you_mean

_PKG = Path(__file__).resolve().parent.parent  # engine/


def _data_dir(name: str) -> Path:
    for cand in (_PKG / name, _PKG.parent / name):
        if cand.is_dir():
            return cand
    raise RuntimeError(f"mjrules is installed without its {name}/ folder")  # a packaging bug


def grammar_text() -> str:
    """The Lark grammar of the rule language."""
    return (_data_dir("grammar") / "mjrules.lark").read_text(encoding="utf-8")


def rulesets_dir() -> Path:
    """The folder of bundled ``*.rules`` files."""
    return _data_dir("rulesets")


def bundled_ruleset_names() -> list[str]:
    """Names of the bundled rulesets , sorted."""
    return sorted(p.stem for p in rulesets_dir().glob("*.rules"))


def resolve_ruleset_path(ref: str, base_dir: Path | None = None) -> Path:
    """A bundled name or a path (relative to ``base_dir``, else the working directory).

    Raises :class:`RuleError` naming the bundled rulesets when ``ref`` is neither.
    """
    p = Path(ref)
    cands = [p] if p.is_absolute() else [(base_dir or Path.cwd()) / p, Path.cwd() / p]
    if not p.suffix and p.name:
        cands += [c.with_suffix(".rules") for c in cands]
    for c in cands:
        if c.is_file():
            return c
    if "/" not in ref and not p.suffix:
        bundled = rulesets_dir() / f"{ref}.rules"
        if bundled.is_file():
            return bundled
    names = bundled_ruleset_names()
    hint = did_you_mean(ref, names) or f"bundled rulesets: {', '.join(names)}; or give a path to a .rules file"
    raise RuleError(f"no ruleset {ref!r}: not a bundled name nor a file", None, hint=hint)
