"""One tool call in, what the model would get back out.

:func:`probe_call` answers "if the model calls this tool with these arguments, over this
transport, what happens?": whether the tool is registered and visible, whether it is
held for approval, every local path the call touches with the server's
decision for it (:class:`~localfs_explorer.Decision` for the default server), and the
outcome the model sees.

The outcome follows the server's design:

- ``absent``: the tool isn't registered (off mode drops local-only tools; ENABLED_TOOLS
  narrows) or the tool access lists block it, so the model never sees it;
- ``refused``: a path the call needs is refused (a required path, an optional
  ``local_path`` checked at the tool's entry before any API call, an attachment, a walked
  folder's root); ``message`` is the exact refusal text;
- ``partial``: the call runs but some items fail (a refused Markdown/HTML image while the
  document is still written; a walked entry that becomes a ``failed`` or
  ``local_read_fail`` entry, dry runs included; server-filesystem's read_multiple_files
  with a refused path, whose error lines inside the result are the ``message``);
- ``ok``: it runs with nothing refused (server-filesystem's search_files included: the
  entries that fail its check are left out of the results without a word);
- ``error``: the call fails with an error of its own: the server's argument validation
  (an unknown argument, a missing required one, a wrong type; checked first, before any
  path), or the tool's own error before or after a check (an invalid ``direction``, a
  missing file, a wrong extension, a file where a folder must be); or the probe can't
  read the call (a malformed line, an expected path that isn't a string).

A server whose tools follow rules of their own answers the call through the seam
(:meth:`~localfs_explorer.server.Server.answer_call`): server-filesystem's move_file
refuses a destination that exists after both checks pass, its directory_tree checks
every directory it enters, and so on. The registration, the access gate and discovery
stay the shared probe's.

Paths the catalog describes have tier ``catalog`` (``guess`` for a catalog inferred from a
``tools/list`` schema). Other arguments go through path discovery; what it finds is
checked as a read. Discovery is advisory: a ``guess``-tier path never changes the outcome
(the server doesn't check an argument it doesn't treat as a path), while a path the
caller declared or expects the call to touch (``declared``/``expected`` tiers) does.
Discovery's caveats about a path (``~user`` left unexpanded, a host in a ``file:`` URI)
and any bound that cut its search short are in the call's notes.

Each tool's path work follows its code in the server
(the default server's tool-conformance tests compare the two): a directory
destination gets the tool's default file name, checked too; folder walks list what the
tool lists (top-level files for ``upload_local_folder``, the Drive folder's files for
``download_folder``, subfolders only with ``recursive`` for ``sync_folder``). Not
modelled: image sources inside the files
``create_doc_from_file``/``update_doc_from_file`` read (a note says so), Workspace files
on the Drive side, and ``export_revision`` of a Sheet (the probe takes the Doc case).

The package's modules follow its seams: :mod:`.records` (the verdict records and the one
verdict table), :mod:`.call` (one call), :mod:`.walk` (folder walks), :mod:`.images`
(image sources in Markdown/HTML) and :mod:`.batch` (many calls).
"""

from __future__ import annotations

from .batch import iter_call_verdicts, probe_calls
from .call import probe_call
from .images import extract_image_sources
from .records import (
    CALL_COLUMNS,
    COLUMNS,
    PATH_COLUMNS,
    CallVerdict,
    PathVerdict,
    ProbeError,
    VerdictCsv,
    decision_row,
    verdict_rows,
    verdicts_frame,
)

__all__ = [
    "CALL_COLUMNS",
    "COLUMNS",
    "PATH_COLUMNS",
    "CallVerdict",
    "PathVerdict",
    "ProbeError",
    "VerdictCsv",
    "decision_row",
    "extract_image_sources",
    "iter_call_verdicts",
    "probe_call",
    "probe_calls",
    "verdict_rows",
    "verdicts_frame",
]
