"""Win tables compiled from the meld shapes, and the table-driven win check.

One module per question: :mod:`.packing` (how a count vector is an int), :mod:`.build` (what
a group's table holds), :mod:`.cachefile` (how a table is stored on disk, read as untrusted
input), :mod:`.forms` (the lazy and dense forms a table is read through), :mod:`.store`
(where a table comes from in this process: kept, read, or built), :mod:`.codegen` (the
per-ruleset Python source of the innermost loops), :mod:`.plans` (a ruleset's patterns as the
check reads them), :mod:`.wildfree` (the wild-free fast path) and :mod:`.checker` (the checker
itself, :class:`~.checker.TableChecker`).
"""
