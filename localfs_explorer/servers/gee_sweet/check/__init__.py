"""The check: a path and an operation in, the server's verdict out.

The verdict machinery mcp-gee-sweet's policy runs on, split by concern:

- :mod:`.verdict`: the single check (:func:`check_path`) and its record,
  :class:`Decision`; the order of the steps is in its docstring;
- :mod:`.batch`: the batch check a folder walk makes (:class:`BatchChecker`,
  :class:`DirVerdicts`);
- :mod:`.explain`: a verdict's trace and hint, worked out only when read;
- :mod:`.tables`: the policy flattened for the hot path (:class:`CompiledPolicy`), and
  :class:`PolicyLike`, what the check reads of a policy (the check imports no policy).

The refusal texts are the server's own, in
:mod:`localfs_explorer.servers.gee_sweet.messages`.
"""

from .batch import BatchChecker, DirVerdicts, ParentFacts
from .tables import CompiledPolicy, EntryTables, PolicyLike
from .verdict import Decision, DenyHit, TraceStep, UnsupportedPathError, check_path

__all__ = [
    "BatchChecker",
    "CompiledPolicy",
    "Decision",
    "DenyHit",
    "DirVerdicts",
    "EntryTables",
    "ParentFacts",
    "PolicyLike",
    "TraceStep",
    "UnsupportedPathError",
    "check_path",
]
