"""``suggest`` for DesktopCommanderMCP: the narrowest ``allowedDirectories`` for the work.

Each required path is resolved as the server resolves it; the list proposed holds, for
each, the directory it is in (the path itself when it is an existing directory), with
entries below another entry dropped. The proposal is then re-checked with the server's
own check, so a required path it still refuses (a file used as a directory, a symlink
loop) is reported rather than hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import LocalfsError
from .policy import DcPolicy, matches
from .settings import DcSettings

__all__ = ["DcSuggestion", "parse_requirement", "suggest"]

OPS = ("read", "write")


def parse_requirement(text: str) -> tuple[str, str]:
    """``OP:PATH`` (``read:/data/in.csv``); a bare path means ``read``."""
    op, sep, path = text.partition(":")
    if not sep or op not in OPS:
        if text.startswith(tuple(f"{o}:" for o in ("read_write",))):
            op, path = "write", text.partition(":")[2]
        else:
            op, path = "read", text
    if not path:
        raise LocalfsError(f"--require {text!r}: no path (give OP:PATH, OP read or write)")
    return op, path


@dataclass
class DcSuggestion:
    """The proposal: ``allowed`` (the new ``allowedDirectories``), ``before`` (the list in
    force), the required checks under the proposal, and what it leaves unmet."""

    allowed: list[str]
    before: list[str]
    checks: list[dict[str, Any]] = field(default_factory=list)
    unmet: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.unmet

    def to_dict(self) -> dict[str, Any]:
        return {"server": "desktop-commander", "ok": self.ok,
                "allowedDirectories": self.allowed, "before": self.before,
                "settings": {"allowedDirectories": self.allowed}, "checks": self.checks,
                "unmet": self.unmet, "notes": self.notes}

    def lines(self) -> list[str]:
        out = [f"allowedDirectories now: {self.before or '[] (every path)'}",
               f"suggested allowedDirectories: {self.allowed}"]
        out += [f"  {'ok     ' if c['allowed'] else 'REFUSED'} {c['op']:<5} {c['path']}"
                for c in self.checks]
        out += [f"unmet: {u}" for u in self.unmet]
        out += [f"note: {n}" for n in self.notes]
        return out


def suggest(policy: DcPolicy, required: list[tuple[str, str]]) -> DcSuggestion:
    """The narrowest list under which every required path passes (see the module)."""
    if not required:
        raise LocalfsError("suggest needs the work that must succeed: --require OP:PATH")
    wanted: list[str] = []
    for _op, path in required:
        v = DcPolicy(DcSettings((), (), ""), home=policy.home, cwd=policy.cwd,
                     fs=policy.fs).validate(path)
        if v.resolved is None:
            continue  # refused whatever the list: reported by the re-check below
        target = v.resolved if policy.fs.is_dir(v.resolved) else v.resolved.rsplit("/", 1)[0]
        wanted.append(target or "/")
    ordered = sorted(dict.fromkeys(wanted), key=lambda d: (d.count("/"), d))
    narrow: list[str] = []
    for d in ordered:
        if not any(matches(d.lower(), n.lower().rstrip("/")) for n in narrow):
            narrow.append(d)
    proposal = DcPolicy(DcSettings(tuple(narrow), tuple(narrow), "suggested"),
                        home=policy.home, cwd=policy.cwd, fs=policy.fs)
    result = DcSuggestion(narrow, list(policy.allowed))
    for op, path in required:
        v = proposal.validate(path)
        result.checks.append({"op": op, "path": path, "allowed": v.allowed,
                              "message": v.message, "resolved": v.resolved})
        if not v.allowed:
            result.unmet.append(f"{op} {path}: {v.message}")
    for d in narrow:
        parent, _, name = d.rpartition("/")
        try:
            twins = [f"{parent}/{n}" for n in policy.fs.listdir(parent or "/")
                     if n != name and n.lower() == name.lower()]
        except (OSError, ValueError):
            twins = []
        if twins:
            result.notes.append(f"{', '.join(twins)} differ from {d} only by case: the "
                                "check lower-cases both sides, so they are allowed too")
    result.notes.append("start_process and interact_with_process ignore allowedDirectories: "
                        "block them in the client if the work doesn't need a terminal")
    result.notes.append("block set_config_value too, or the model can widen the list again")
    return result
