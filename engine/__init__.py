"""mjrules: Jiangxi mahjong rule variants as rule files, compiled onto a generic core.

Public entry points: :func:`engine.lang.compiler.compile_ruleset` (rule file → IR) and
:class:`engine.core.scoring.Scorer` (IR → settlements). They are imported on first use
(``from engine import Scorer`` works as before), so that ``import engine.cli`` or
``engine.lang`` alone does not pay for the scoring core at start-up.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["compile_ruleset", "compile_text", "Scorer"]
__version__ = "0.1.0"

if TYPE_CHECKING:
    from engine.core.scoring import Scorer
    from engine.lang.compiler import compile_ruleset, compile_text


def __getattr__(name: str) -> object:
    """The public entry points, imported when first asked for (PEP 562)."""
    if name in ("compile_ruleset", "compile_text"):
        from engine.lang import compiler

        return getattr(compiler, name)
    if name == "Scorer":
        from engine.core.scoring import Scorer

        return Scorer
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
