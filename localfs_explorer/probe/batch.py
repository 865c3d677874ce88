"""Many calls: a calls file or a list of calls, probed one after another."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..catalog import Catalog, Registration
from ..server import server_of
from .call import _probe, _resolve_access, extra_sensitive_patterns
from .calls_file import BadCall, read_calls
from .records import CallVerdict, ProbeError, verdicts_frame

if TYPE_CHECKING:
    import pandas as pd

    from ..server import ServerPolicy as Policy


def iter_call_verdicts(
    policy: Policy,
    calls: Iterable[Any] | str | Path,
    *,
    over_http: bool | None = None,
    access: Any = None,
    catalog: Catalog | None = None,
    registration: Registration | None = None,
    expected_paths: Sequence[str] = (),
    walk_limit: int = 10000,
    discover: bool = True,
    extra_sensitive: Sequence[str] = (),
) -> Iterator[CallVerdict]:
    """Probe each call in turn, yielding one :class:`CallVerdict` per call.

    ``calls`` is a list of MCP ``tools/call`` params (``{"name": ..., "arguments":
    {...}}``, optionally with ``drive_names``/``expected_paths``) or the path of a JSONL
    file of them, read by :func:`localfs_explorer.probe.calls_file.read_calls`. A malformed call
    yields a verdict with outcome ``error`` whose message names the file and line
    (``FILE:LINE: ...``); the rest still run. An unreadable file raises :class:`ProbeError`,
    and so does a bad ``extra_sensitive`` glob (name globs added to the sensitive-file
    advice, as in :func:`~localfs_explorer.probe.probe_call`).
    """
    server = server_of(policy)
    catalog = catalog or server.catalog()
    registration = registration or server.register_tools(policy, catalog)
    access = _resolve_access(access)
    expected_paths = tuple(expected_paths)
    extra = extra_sensitive_patterns(extra_sensitive)
    for index, call in enumerate(read_calls(calls, error=ProbeError)):
        if isinstance(call, BadCall):
            yield CallVerdict(
                name=call.name, registered=False, visible=False, gate="execute",
                outcome="error", message=call.message, index=index, line=call.line,
                malformed=True,
            )
            continue
        yield _probe(
            policy, call.name, call.arguments, over_http, access, catalog, registration,
            expected_paths + call.expected_paths, walk_limit, call.drive_names, discover,
            index, call.line, extra,
        )


def probe_calls(
    policy: Policy, calls: Iterable[Any] | str | Path, **options: Any
) -> pd.DataFrame:
    """Probe many calls; a DataFrame with one row per (call, path).

    Takes the same ``calls`` and keyword options as :func:`iter_call_verdicts`. Columns
    are :data:`COLUMNS`: the call's index (and JSONL line), name, registration,
    visibility, gate, outcome and message, then each path's argument, path, resolved
    path, operation, tier, verdict, reason and refusal text (``path_message``).
    """
    return verdicts_frame(iter_call_verdicts(policy, calls, **options),
                          wanted_by="probe_calls' DataFrame")
