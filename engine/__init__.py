"""mjrules: Jiangxi mahjong rule variants as rule files, compiled onto a generic core.

Public entry points: :func:`engine.lang.compiler.compile_ruleset` (rule file → IR) and
:class:`engine.core.scoring.Scorer` (IR → settlements).
"""
from engine.lang.compiler import compile_ruleset, compile_text
from engine.core.scoring import Scorer

__all__ = ["compile_ruleset", "compile_text", "Scorer"]
__version__ = "0.1.0"
