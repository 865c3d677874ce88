"""SARIF 2.1.0 logs, for code-scanning views in CI: findings point at the ``.env`` line.

Two producers: ``validate --sarif`` (configuration errors the server would exit on, and
warnings) and ``diff --sarif`` (verdicts that grant new access). A finding is placed on
the line of the ``.env`` that sets the setting it is about, when that setting came from
the file; otherwise on the file itself, or nowhere when there is no file.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from dotenv.parser import parse_stream

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_KEY = re.compile(r"\b[A-Z][A-Z0-9_]{2,}\b")

RULES: dict[str, str] = {
    "config-error": "The server would refuse to start with this configuration.",
    "config-warning": "The configuration works but probably not as intended.",
    "new-access": "A change to the configuration lets a tool reach a path it couldn't before.",
}


def key_lines(env_file: str | os.PathLike[str]) -> dict[str, int]:
    """Line of the assignment that wins for each key of ``env_file`` (the last one)."""
    try:
        text = Path(env_file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    lines: dict[str, int] = {}
    for binding in parse_stream(io.StringIO(text)):
        if binding.key is not None and not binding.error:
            # A binding's text starts with the blank lines before it; skip them.
            text = binding.original.string
            blank = text[: len(text) - len(text.lstrip())].count("\n")
            lines[binding.key] = binding.original.line + blank
    return lines


def _uri(path: str | os.PathLike[str]) -> str:
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return resolved.as_uri()


def locate(env: Any, keys: Iterable[str]) -> list[dict[str, Any]]:
    """SARIF locations for the first of ``keys`` the env's file sets (file only if none)."""
    source = getattr(env, "source", None)
    if not source or not os.path.isfile(source):
        return []
    lines = key_lines(source)
    from_process: frozenset[str] = getattr(env, "from_process", frozenset())
    physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(source)}}
    for key in keys:
        if key in lines and key not in from_process:
            physical["region"] = {"startLine": lines[key]}
            break
    return [{"physicalLocation": physical}]


def keys_in(message: str) -> list[str]:
    """Setting names a message mentions, in order."""
    return list(dict.fromkeys(_KEY.findall(message)))


def result(rule: str, level: str, message: str, locations: list[dict[str, Any]]) -> dict:
    """One SARIF result."""
    found: dict[str, Any] = {"ruleId": rule, "level": level, "message": {"text": message}}
    if locations:
        found["locations"] = locations
    return found


def log(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A SARIF log with one run of localfs-explorer."""
    from .. import __version__

    used = sorted({r["ruleId"] for r in results})
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "localfs-explorer",
                "version": __version__,
                "rules": [{"id": rule, "shortDescription": {"text": RULES[rule]}}
                          for rule in used],
            }},
            "results": list(results),
        }],
    }


def validate_results(policy: Any) -> list[dict[str, Any]]:
    """Errors (the server would exit) and warnings of a resolved configuration."""
    found = [result("config-error", "error", e, locate(policy.env, keys_in(e)))
             for e in policy.errors]
    found += [result("config-warning", "warning", w, locate(policy.env, keys_in(w)))
              for w in (*policy.env.warnings, *policy.warnings)]
    return found


def changed_keys(before: Any, after: Any) -> list[str]:
    """Settings whose value differs between two environments, access settings first."""
    b, a = before.values, after.values
    keys = sorted(k for k in set(b) | set(a) if b.get(k) != a.get(k))
    return sorted(keys, key=lambda k: (not k.startswith("LOCAL_FILE"), k))


def diff_results(result_: Any, before: Any, after: Any) -> list[dict[str, Any]]:
    """One error per new-access verdict, placed on the after side's changed setting."""
    where = locate(after.env, changed_keys(before.env, after.env))
    found = []
    for change in result_.new_access:
        text = f"new access: {change.probe} ({change.source})"
        if change.detail:
            text += f": {change.detail}"
        found.append(result("new-access", "error", text, where))
    return found


def write(results: Sequence[dict[str, Any]], path: str | os.PathLike[str], *,
          error: type[Exception] = ValueError, force: bool = False) -> None:
    """Write the SARIF log to ``path`` as every report is written (masked; an existing
    file replaced only with ``force`` and kept as a ``.bak``; never through a symlink);
    ``error`` says why not."""
    from ..userfiles import write_output

    text = json.dumps(log(results), indent=2, ensure_ascii=False) + "\n"
    write_output(path, text, error, force=force)
