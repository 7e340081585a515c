"""An optional extra a test needs: skipped where it is not installed, except in CI, where
``MJRULES_REQUIRE_EXTRAS=1`` (set by ``.ci/run``, which installs every extra) makes a missing
one a failure, so a broken install never passes as a skip."""
from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

REQUIRED = os.environ.get("MJRULES_REQUIRE_EXTRAS") == "1"


def need_extra(module: str, extra: str) -> ModuleType:
    """Import ``module`` (dotted) or skip the test's module; fails instead when
    MJRULES_REQUIRE_EXTRAS=1. ``extra`` names the pyproject extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if REQUIRED:
            pytest.fail(f"{module} is not installed, and MJRULES_REQUIRE_EXTRAS=1 (pip install '.[{extra}]')",
                        pytrace=False)
        pytest.skip(f"{module} is not installed (pip install '.[{extra}]')", allow_module_level=True)
