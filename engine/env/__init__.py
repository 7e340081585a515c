"""Can a learning agent play any rule file? The PettingZoo environments of a ruleset (the
``rl`` extra: ``pip install 'mjrules[rl]'`` installs pettingzoo, gymnasium and numpy).

    from engine.env import mjrules_env
    env = mjrules_env("myhouse.rules", seed=1)   # a path, or a bundled ruleset's name (mjrules list)
    env.reset()
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        ...

:func:`mjrules_env` gives the AEC environment (engine/env/aec.py: agents, turns and claims,
rewards), :func:`mjrules_parallel_env` its parallel form (engine/env/parallel.py); the action
space's layout is engine/env/actions.py, the observation's engine/env/observe.py; docs/env.md
shows a random loop and a small training run.
"""
from __future__ import annotations

from collections.abc import Mapping
from os import PathLike
from pathlib import Path

from engine.errors import MjError
from engine.lang.compiler import compile_ruleset

try:
    from engine.env.aec import MahjongEnv
    from engine.env.parallel import MahjongParallelEnv
except ImportError as e:  # pettingzoo, gymnasium or numpy is missing
    raise ImportError(f"engine.env needs the rl extra: pip install 'mjrules[rl]' (from a clone: pip install '.[rl]') ({e})") from e

__all__ = ["MahjongEnv", "MahjongParallelEnv", "mjrules_env", "mjrules_parallel_env"]


def mjrules_env(rules: str | PathLike[str], options: Mapping[str, str] | None = None, seed: int | None = None,
                render_mode: str | None = None) -> MahjongEnv:
    """The AEC environment of ``rules`` (a bundled ruleset's name, as ``mjrules list`` prints
    them, or a path to a ``.rules`` file) with its ``options`` chosen by name (as ``--option NAME=VALUE``), the first
    match seeded ``seed`` (None: a random seed) and ``render_mode`` None or ``"ansi"``.

    Raises :class:`~engine.errors.RuleError` for a ruleset that cannot be found or compiled,
    :class:`~engine.errors.OptionError` for an unknown option or value, and
    :class:`~engine.errors.MjError` for arguments of the wrong type, a bad seed or render mode."""
    if not isinstance(rules, str | PathLike):
        raise MjError(f"rules must be a ruleset name or a path, not {type(rules).__name__}")
    if options is not None and (not isinstance(options, Mapping) or
                                not all(isinstance(k, str) and isinstance(v, str) for k, v in options.items())):
        raise MjError(f"options must map option names to values, as text: {options!r:.80}",
                      hint='e.g. options={"飘精": "是"}')
    return MahjongEnv(compile_ruleset(rules if isinstance(rules, str) else Path(rules), dict(options or {})), seed=seed, render_mode=render_mode)


def mjrules_parallel_env(rules: str | PathLike[str], options: Mapping[str, str] | None = None,
                         seed: int | None = None, render_mode: str | None = None) -> MahjongParallelEnv:
    """The parallel form of :func:`mjrules_env` (the same arguments, the same errors)."""
    return MahjongParallelEnv(mjrules_env(rules, options, seed, render_mode))
