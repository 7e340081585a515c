"""mjrules: Jiangxi mahjong rule variants as rule files, compiled onto a generic core.

Public entry points: :func:`engine.compiler.compile_ruleset` (rule file → IR) and
:class:`engine.scoring.Scorer` (IR → settlements).
"""
from .compiler import compile_ruleset, compile_text
from .scoring import Scorer

__all__ = ["compile_ruleset", "compile_text", "Scorer"]
__version__ = "0.1.0"
