"""Advice about paths that commonly hold credentials (``~/.ssh``, ``.env``, ``*.pem`` ...).

A match here is shown *beside* the server's verdict and never changes it: the server
being modelled refuses only its own credential, config, cache and log files, so a
``~/.ssh/id_ed25519`` inside a configured root is allowed, and a reviewer should see
that it is allowed and that it is a private key.

The patterns live in ``data/sensitive_patterns.json``:

- *home entries* (``.ssh``, ``.config/gh`` ...) are paths under the home directory. A
  path matches when its leading components equal the entry's, so ``~/.sshx/config`` is
  not inside ``~/.ssh``. A string-prefix test would get that wrong.
- *name globs* (``id_*``, ``.env*``, ``*.pem`` ...) are matched against the last
  component only, so a virtualenv folder called ``.env`` does not flag every file in it.

Both compare case-insensitively: ``~/.SSH`` is ``~/.ssh`` on a case-insensitive
filesystem, and for advice a false alarm is cheaper than a miss. Paths are normalised
lexically (``~/x/../.ssh`` is inside ``~/.ssh``); symlinks are not followed, because
resolving them is the engine's job and may concern another host.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Sequence
from fnmatch import translate
from functools import lru_cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = [
    "SensitiveMatch",
    "SensitivePattern",
    "SensitivePatternsError",
    "sensitive_match",
    "sensitive_patterns",
    "sensitive_reason",
]


class SensitivePatternsError(ValueError):
    """The sensitive-pattern data file can't be read or has the wrong shape."""


class SensitivePattern(BaseModel):
    """One sensitive-file pattern and why it is on the list."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["home", "name"]
    #: For ``home``: a relative path under the home directory (``.config/gh``).
    #: For ``name``: an fnmatch glob for the last component (``*.pem``).
    pattern: str
    why: str

    @property
    def label(self) -> str:
        """How the pattern is written for people: ``~/.ssh`` or ``*.pem``."""
        return f"~/{self.pattern}" if self.kind == "home" else self.pattern


class SensitiveMatch(BaseModel):
    """The pattern a path matched, with a one-line reason to show."""

    model_config = ConfigDict(frozen=True)

    pattern: SensitivePattern
    #: ``"inside ~/.ssh"``, ``"is ~/.netrc"`` or ``"matches *.pem"``.
    reason: str


@lru_cache(maxsize=1)
def sensitive_patterns() -> tuple[SensitivePattern, ...]:
    """The shipped patterns, home entries first (they are the more specific advice)."""
    source = resources.files("localfs_explorer").joinpath("data/sensitive_patterns.json")
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
        home = [
            SensitivePattern(kind="home", pattern=e["path"], why=e["why"]) for e in data["home"]
        ]
        names = [
            SensitivePattern(kind="name", pattern=e["glob"], why=e["why"]) for e in data["names"]
        ]
    except (OSError, ValueError, KeyError, TypeError, ValidationError) as exc:
        raise SensitivePatternsError(
            f"data/sensitive_patterns.json can't be used: {exc}"
        ) from None
    return (*home, *names)


def _components(path: str) -> list[str]:
    """The lexically normalised, case-folded components of a POSIX path."""
    return [part.casefold() for part in posixpath.normpath(path).split("/") if part]


@lru_cache(maxsize=256)
def _home_components(home: str) -> tuple[str, ...]:
    return tuple(_components(home))


_Prepared = tuple[
    tuple[tuple[tuple[str, ...], SensitivePattern], ...],
    re.Pattern[str],
    tuple[tuple[re.Pattern[str], SensitivePattern], ...],
]


@lru_cache(maxsize=1)
def _prepare_shipped() -> _Prepared:
    return _prepare(sensitive_patterns())


@lru_cache(maxsize=32)
def _prepare(patterns: tuple[SensitivePattern, ...]) -> _Prepared:
    """Home entries as component tuples and name globs as regexes, computed once.

    Discovery asks about every word of a command, so the per-call cost matters.
    """
    home = tuple(
        (tuple(_components(p.pattern)), p) for p in patterns if p.kind == "home"
    )
    names = tuple(
        (re.compile(translate(p.pattern.casefold())), p) for p in patterns if p.kind == "name"
    )
    # One combined test first: most names match no glob at all.
    combined = re.compile("|".join(f"(?:{rx.pattern})" for rx, _ in names) or r"(?!)")
    return home, combined, names


def _absolute(path: str, home: str, cwd: str | None) -> str | None:
    """``path`` as an absolute path, or None when home containment can't be judged.

    ``~user/...`` names another account whose home we don't know (and must not look
    up on this machine), and a relative path without a ``cwd`` has no anchor.
    """
    if path == "~" or path.startswith("~/"):
        return home.rstrip("/") + path[1:] if home else None
    if path.startswith("~"):
        return None
    if path.startswith("/"):
        return path
    if cwd:
        return posixpath.join(cwd, path)
    return None


def sensitive_match(
    path: str,
    *,
    home: str,
    cwd: str | None = None,
    patterns: Sequence[SensitivePattern] | None = None,
) -> SensitiveMatch | None:
    """The first sensitive pattern ``path`` matches, or None.

    ``home`` is the home directory of the account the tools run as (``~`` expands to
    it); ``cwd`` anchors relative paths for the home-entry test. ``patterns`` defaults
    to the shipped list.
    """
    if not path:
        return None
    # The shipped list is prepared once; hashing thirty models per call would cost
    # more than the matching itself.
    home_entries, any_name, names = (
        _prepare_shipped() if patterns is None else _prepare(tuple(patterns))
    )
    absolute = _absolute(path, home, cwd)
    parts = _components(absolute) if absolute is not None else None
    if parts is not None and home:
        home_parts = _home_components(home)
        depth = len(home_parts)
        if tuple(parts[:depth]) == home_parts:
            below = tuple(parts[depth:])
            for entry, pattern in home_entries:
                if below[: len(entry)] == entry:
                    verb = "is" if len(below) == len(entry) else "inside"
                    return SensitiveMatch(pattern=pattern, reason=f"{verb} {pattern.label}")
    # The last component as written (after lexical normalisation), so a relative
    # ``.env`` with no cwd is still recognised.
    name_parts = parts if parts is not None else _components(path)
    if not name_parts or not any_name.match(name_parts[-1]):
        return None
    name = name_parts[-1]
    for regex, pattern in names:
        if regex.match(name):
            return SensitiveMatch(pattern=pattern, reason=f"matches {pattern.label}")
    return None


def sensitive_reason(path: str, *, home: str, cwd: str | None = None) -> str | None:
    """Why ``path`` looks like a credential file (``"inside ~/.ssh"``), or None.

    Advice only: it never changes the server's verdict on the path.
    """
    found = sensitive_match(path, home=home, cwd=cwd)
    return found.reason if found is not None else None
