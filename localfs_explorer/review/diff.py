"""Before/after: every verdict that changes between two configurations, new access first.

A reviewer changing a deployment's settings wants proof that the change grants no access
it doesn't mean to. :func:`compare_policies` asks both policies the same questions (the
paths and calls given, plus a generated set covering the interesting places of *both*
configurations) and sorts each answer that changed into:

- ``new_access``: refused (or absent) before, allowed after;
- ``removed_access``: allowed before, refused after;
- ``changed_message``: refused both times, but the model would read a different text
  (or a call's outcome or per-path details changed without access changing).

For a tool call, access means: the tool is visible, and each local path it touches is
allowed. A call that becomes visible, a path inside it that becomes allowed (including a
walked entry that now appears), an outcome that moves from refused/absent/error to
ok/partial, or an approval gate that is lifted, is new access.

The generated set, from each policy, is what its server names
(:meth:`~localfs_explorer.server.Server.places`). For mcp-gee-sweet: every root (as
configured and as resolved), a file inside it and a sibling sharing its prefix (``/data``
→ ``/data-sibling``); every deny-list entry with its ``-wal``/``-shm`` sidecars and an
upper-case variant of its name; each deny-listed directory and a file inside it; the home
directory and a file in it; the startup and package directories; ``/``. For the
filesystem server: each allowed directory (both spellings of one given through a
symlink), a file inside it, its prefix sibling and its quote and whitespace siblings
(the trimming escape), a Windows drive path, home, startup directory and ``/``. And one
call per catalog tool per place (each root or allowed directory, the home and the
startup directory) with every local-path argument filled in.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..catalog import locations
from ..paths import show_nul
from ..probe.calls_file import BadCall, Call, read_calls, unpack_call
from ..server import PROBE_FILE

if TYPE_CHECKING:
    import pandas as pd

    from ..catalog import Catalog, Tool
    from ..probe import CallVerdict
    from ..server import ServerPolicy as Policy
    from ..vocab import Op

__all__ = [
    "CHANGES",
    "DiffResult",
    "VerdictChange",
    "compare_policies",
    "diff_policies",
    "elide_common_start",
    "generate_calls",
    "generate_paths",
]

#: The change categories, in the order a report shows them.
CHANGES: tuple[str, ...] = ("new_access", "removed_access", "changed_message", "unchanged")

#: DataFrame columns of :func:`diff_policies`, in order.
COLUMNS: tuple[str, ...] = (
    "change", "kind", "probe", "tool", "path", "op", "source",
    "before_allowed", "after_allowed", "before_reason", "after_reason",
    "before_message", "after_message", "before_outcome", "after_outcome", "detail",
)

_OPEN_OUTCOMES = frozenset({"ok", "partial"})


@dataclass
class VerdictChange:
    """One probe asked of both configurations, and how its answer changed."""

    #: ``path`` or ``call``.
    kind: str
    #: A short label: ``read /data/x`` or ``upload_local_file {"local_path": ...}``.
    probe: str
    #: One of :data:`CHANGES`.
    change: str
    #: ``given`` or ``generated: why``.
    source: str
    path: str | None = None
    op: str | None = None
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    #: For calls: which inner paths changed, one clause each.
    detail: str = ""

    def row(self) -> dict[str, Any]:
        """The flat row of :func:`diff_policies` (see :data:`COLUMNS`)."""
        b, a = self.before, self.after
        return {
            "change": self.change, "kind": self.kind, "probe": self.probe, "tool": self.tool,
            "path": self.path, "op": self.op, "source": self.source,
            "before_allowed": b.get("allowed"), "after_allowed": a.get("allowed"),
            "before_reason": b.get("reason"), "after_reason": a.get("reason"),
            "before_message": b.get("message"), "after_message": a.get("message"),
            "before_outcome": b.get("outcome"), "after_outcome": a.get("outcome"),
            "detail": self.detail,
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "kind": self.kind, "probe": self.probe, "change": self.change,
            "source": self.source, "path": self.path, "op": self.op, "tool": self.tool,
            "arguments": self.arguments, "before": self.before, "after": self.after,
            "detail": self.detail,
        }


@dataclass
class DiffResult:
    """Every probe's change, and counts."""

    changes: list[VerdictChange] = field(default_factory=list)
    #: The given calls that couldn't be asked: ``FILE:LINE: what is wrong`` each.
    errors: list[str] = field(default_factory=list)

    def _repr_html_(self) -> str:
        """Rich display in a notebook (the dashboard's renderer)."""
        from ..render import diff_repr

        return diff_repr(self)

    def of(self, change: str) -> list[VerdictChange]:
        """The probes whose change is ``change``."""
        return [c for c in self.changes if c.change == change]

    @property
    def new_access(self) -> list[VerdictChange]:
        """Refused before, allowed after."""
        return self.of("new_access")

    @property
    def removed_access(self) -> list[VerdictChange]:
        """Allowed before, refused after."""
        return self.of("removed_access")

    @property
    def changed_message(self) -> list[VerdictChange]:
        """Same access, different answer text."""
        return self.of("changed_message")

    @property
    def changed(self) -> list[VerdictChange]:
        """Every probe whose answer changed, grouped in :data:`CHANGES` order."""
        return [c for kind in CHANGES[:-1] for c in self.of(kind)]

    def counts(self) -> dict[str, int]:
        """How many probes fell in each category."""
        return {kind: len(self.of(kind)) for kind in CHANGES}

    def to_dict(self, *, include_unchanged: bool = False) -> dict[str, Any]:
        """JSON-ready: counts and the changed probes (all probes with ``include_unchanged``)."""
        rows = self.changes if include_unchanged else self.changed
        out: dict[str, Any] = {"counts": self.counts(), "changes": [c.to_dict() for c in rows]}
        if self.errors:
            out["errors"] = list(self.errors)
        return out


# ---------------------------------------------------------------------------- probe set


def generate_paths(*policies: Policy) -> list[tuple[str, str]]:
    """``(path, why)`` covering the interesting places of every policy, without repeats
    (each server names its own: :meth:`~localfs_explorer.server.Server.places`)."""
    from ..server import server_of

    seen: dict[str, str] = {}
    for policy in policies:
        for path, why in server_of(policy).places(policy):
            seen.setdefault(path, why)
    return list(seen.items())


def _call_for(tool: Tool, place: str, *, walk_only: bool = False) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    for param in tool.params:
        if walk_only and not param.walks:
            continue
        value = place if param.walks else posixpath.join(place, PROBE_FILE)
        if param.walks and not walk_only and len(tool.params) > 1:
            # Beside the other paths, not around them: a tool refuses to write its
            # result inside the folder it walks.
            value = posixpath.join(place, "probe-folder")
        locations.set_value(arguments, param.location, value)
    for image in tool.image_params:
        if image.in_file or None in locations.parse_location(image.location):
            continue  # the Markdown lives inside a file the probe doesn't read
        source = posixpath.join(place, "probe.png")
        locations.set_value(arguments, image.location, f"![probe]({source})")
        if any(a.name == "content_format" for a in tool.arguments or ()):
            arguments["content_format"] = "markdown"
    if tool.walks and any(a.name == "recursive" and "boolean" in a.types
                          for a in tool.arguments or ()):
        arguments["recursive"] = True  # the widest walk the tool makes
    return {"name": tool.name, "arguments": tool.complete_arguments(arguments)}


def generate_calls(*policies: Policy, catalog: Catalog | None = None) -> list[tuple[dict, str]]:
    """``(call, why)``: one call per catalog tool per place (each server's
    :meth:`~localfs_explorer.server.Server.call_places`: roots, home, startup dir)."""
    from ..server import get_server, server_of

    catalog = catalog or (server_of(policies[-1]) if policies else get_server()).catalog()
    places: dict[str, str] = {}
    for policy in policies:
        for place, why in server_of(policy).call_places(policy):
            places.setdefault(place, why)
    calls: list[tuple[dict, str]] = []
    seen: set[str] = set()
    for tool in catalog.tools:
        if not tool.params and not tool.image_params:
            targets: list[tuple[str, str]] = [("", "registration")]
        else:
            targets = list(places.items())
        for place, why in targets:
            variants: list[dict[str, Any]]
            if not place:
                variants = [{"name": tool.name, "arguments": tool.complete_arguments({})}]
            elif tool.walks and len(tool.params) > 1:
                variants = [_call_for(tool, place, walk_only=True), _call_for(tool, place)]
            else:
                variants = [_call_for(tool, place)]
            for call in variants:
                key = _call_label(call["name"], call["arguments"])
                if key not in seen:
                    seen.add(key)
                    calls.append((call, f"catalog tool {tool.name} at {why}"))
    return calls


# ---------------------------------------------------------------------------- comparing


def elide_common_start(before: str, after: str) -> tuple[str, str]:
    """Two refusal texts with their long common beginning replaced by an ellipsis.

    ``"/x is outside ... Allowed directories: /data"`` and ``"... /data, /srv"`` become
    ``"… directories: /data"`` and ``"… directories: /data, /srv"``.
    """
    n = 0
    for a, b in zip(before, after, strict=False):
        if a != b:
            break
        n += 1
    # Keep the word before the difference too, so the reader sees what the list is.
    cut = before.rfind(" ", 0, max(before.rfind(" ", 0, n), 0))
    if cut > 24:
        return "…" + before[cut:], "…" + after[cut:]
    return before, after




def _call_label(name: str, arguments: Mapping[str, Any]) -> str:
    args = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    return f"{name} {args}"


def _path_side(d: Any) -> dict[str, Any]:
    return {"allowed": d.allowed, "reason": d.reason, "message": d.message,
            "resolved": d.resolved}


def _classify_path(before: dict[str, Any], after: dict[str, Any]) -> str:
    if not before["allowed"] and after["allowed"]:
        return "new_access"
    if before["allowed"] and not after["allowed"]:
        return "removed_access"
    if before["message"] != after["message"] or before["reason"] != after["reason"]:
        return "changed_message"
    return "unchanged"


def _call_side(v: CallVerdict) -> dict[str, Any]:
    return {"outcome": v.outcome, "visible": v.visible, "gate": v.gate,
            "message": v.message, "allowed": v.visible and v.outcome in _OPEN_OUTCOMES,
            "reason": None}


def _path_key(p: Any) -> tuple[str, str, str]:
    return (p.argument, p.path, p.op)


def _classify_call(before: CallVerdict, after: CallVerdict) -> tuple[str, str]:
    """(change, detail) for one call asked of both configurations."""
    gained: list[str] = []
    lost: list[str] = []
    reworded: list[str] = []
    if after.visible and not before.visible:
        gained.append("the tool became visible")
    elif before.visible and not after.visible:
        lost.append("the tool is no longer visible")
    if before.gate == "approval" and after.gate == "execute":
        gained.append("the approval gate was lifted")
    elif before.gate == "execute" and after.gate == "approval":
        lost.append("calls now wait for approval")
    b_open = before.visible and before.outcome in _OPEN_OUTCOMES
    a_open = after.visible and after.outcome in _OPEN_OUTCOMES
    if a_open and not b_open:
        gained.append(f"outcome {before.outcome} -> {after.outcome}")
    elif b_open and not a_open:
        lost.append(f"outcome {before.outcome} -> {after.outcome}")
    elif before.outcome != after.outcome:
        reworded.append(f"outcome {before.outcome} -> {after.outcome}")
    b_paths = {_path_key(p): p for p in before.paths if not p.advisory}
    a_paths = {_path_key(p): p for p in after.paths if not p.advisory}
    for key, p in a_paths.items():
        old = b_paths.get(key)
        shown = f"{p.op} {p.path}"
        if p.allowed and (old is None or not old.allowed):
            gained.append(f"{shown} now allowed" + ("" if old else " (newly reached)"))
        elif old is not None and old.allowed and not p.allowed:
            lost.append(f"{shown} now refused [{p.reason}]")
        elif old is not None and not p.allowed and (
                old.message != p.message or old.reason != p.reason):
            how = f"[{old.reason}] -> [{p.reason}]" if old.reason != p.reason \
                else "refusal text changed"
            reworded.append(f"{shown}: {how}")
    for key, old in b_paths.items():
        if key not in a_paths and old.allowed:
            lost.append(f"{old.op} {old.path} no longer reached")
    if before.message != after.message and not gained and not lost and not reworded:
        reworded.append("the refusal text changed")
    if gained:
        return "new_access", "; ".join(gained + lost)
    if lost:
        return "removed_access", "; ".join(lost)
    if reworded:
        return "changed_message", "; ".join(reworded)
    return "unchanged", ""


def compare_policies(
    before: Policy,
    after: Policy,
    paths: Iterable[str] = (),
    calls: Iterable[Any] | str | Path = (),
    *,
    ops: Sequence[Op] = ("read", "write"),
    generated: bool = True,
    over_http: bool | None = None,
    catalog: Catalog | None = None,
    before_access: Any = None,
    after_access: Any = None,
    walk_limit: int = 200,
) -> DiffResult:
    """Ask both policies the same questions and classify each change.

    Args:
        paths: paths to check, each for every operation in ``ops``.
        calls: ``tools/call`` params (``{"name", "arguments"}``) or a JSONL file of them.
        generated: also ask the generated set (see the module docstring).
        over_http: whether requests arrive over HTTP; None: each policy's transport decides,
            so a change of transport shows up as the tripwire would see it.
        before_access, after_access: tool access lists for each side (gates).
        walk_limit: the most folder entries one call's walks check.
    """
    from ..probe import probe_call
    from ..server import server_of

    server = server_of(after)
    catalog = catalog or server.catalog()
    path_probes: dict[str, str] = {p: "given" for p in paths}
    from ..probe import ProbeError

    result = DiffResult()
    call_probes: list[tuple[Call, str]] = []
    for call in read_calls(calls, error=ProbeError):
        if isinstance(call, BadCall):
            result.errors.append(call.message)  # the one rule: noted, the rest still run
        else:
            call_probes.append((call, "given"))
    if generated:
        for path, why in generate_paths(before, after):
            path_probes.setdefault(path, f"generated: {why}")
        for raw, why in generate_calls(before, after, catalog=catalog):
            generated_call = unpack_call(raw)
            assert isinstance(generated_call, Call)  # built here, always well-formed
            call_probes.append((generated_call, f"generated: {why}"))
    with before.many_checks() as b_batch, after.many_checks() as a_batch:
        for path, source in path_probes.items():
            for op in ops:
                b = _path_side(b_batch.check(path, op, over_http=over_http))
                a = _path_side(a_batch.check(path, op, over_http=over_http))
                result.changes.append(VerdictChange(
                    kind="path", probe=show_nul(f"{op} {path}"),
                    change=_classify_path(b, a), source=source, path=path, op=op,
                    before=b, after=a,
                ))
    b_reg = server_of(before).register_tools(before, catalog)
    a_reg = server.register_tools(after, catalog)
    seen_calls: set[str] = set()
    for call, source in call_probes:
        label = _call_label(call.name, call.arguments)
        if label in seen_calls:
            continue
        seen_calls.add(label)
        options: dict[str, Any] = {"over_http": over_http, "catalog": catalog,
                                   "walk_limit": walk_limit,
                   "drive_names": call.drive_names,
                   "expected_paths": call.expected_paths}
        arguments = call.arguments
        vb = probe_call(before, call.name, arguments, access=before_access,
                        registration=b_reg, **options)
        va = probe_call(after, call.name, arguments, access=after_access,
                        registration=a_reg, **options)
        change, detail = _classify_call(vb, va)
        result.changes.append(VerdictChange(
            kind="call", probe=label, change=change, source=source, tool=call.name,
            arguments=dict(arguments), before=_call_side(vb), after=_call_side(va),
            detail=detail,
        ))
    return result


def diff_policies(
    before: Policy,
    after: Policy,
    paths: Iterable[str] = (),
    calls: Iterable[Any] | str | Path = (),
    **options: Any,
) -> pd.DataFrame:
    """:func:`compare_policies` as a DataFrame, one row per probe (unchanged ones too).

    Columns are :data:`COLUMNS`; filter on ``change`` (``new_access``,
    ``removed_access``, ``changed_message``, ``unchanged``).
    """
    from ..optional import pandas  # only this view needs pandas

    pd = pandas("the diff DataFrame")

    result = compare_policies(before, after, paths, calls, **options)
    return pd.DataFrame([c.row() for c in result.changes], columns=list(COLUMNS))
