"""Find the local paths a tool call would touch when the catalog doesn't say.

Three tiers, strongest first:

- ``declared``: the values of the arguments the caller names in ``checkpaths`` (the
  tool's own statement of which arguments are paths);
- ``expected``: paths the caller says the call will touch;
- ``guess``: everything else, found by looking. An argument whose *name* says it holds
  a path (``local_path``, ``output_file``, ``dest_dir`` ...), and in *every* argument's
  value the words that look like paths (``/x``, ``~/x``, ``./x``, ``a/b.txt``),
  including the words of shell command strings.

Discovery is advice about what to check, not a verdict. A tool can ignore its
arguments and open any file, and a word that looks like a path may not be one; the
engine decides what each path means for the server.

The modules: :mod:`.records` (what is found, the bounds, the error), :mod:`.words` (what
looks like a path, argument names, shell words), :mod:`.skip` (calls with nothing to
search) and :mod:`.search` (the walk, and the rules of the guess tier with their
reasons).
"""

from __future__ import annotations

from .records import DiscoveryError, DiscoveryLimits, FoundPath, FoundPaths, Tier
from .search import discover_paths
from .skip import nothing_to_find
from .words import argument_name_kind, is_path_argument_name, looks_like_path, shell_words

__all__ = [
    "DiscoveryError",
    "DiscoveryLimits",
    "FoundPath",
    "FoundPaths",
    "Tier",
    "argument_name_kind",
    "discover_paths",
    "is_path_argument_name",
    "looks_like_path",
    "nothing_to_find",
    "shell_words",
]
