"""Load a server's ``.env`` the way the server does, plus the process environment over it.

The server calls python-dotenv's ``load_dotenv`` without ``override``: a variable already
present in the process environment wins over the file, and ``${VAR}`` references in the
file are expanded against the file's earlier keys and then the process environment.
This module reproduces that with python-dotenv's own parser, but against the *simulated*
process environment (what the user passes), never the explorer's own ``os.environ``:
an operator's shell must not leak into the verdicts.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dotenv.parser import parse_stream
from dotenv.variables import parse_variables
from pydantic import BaseModel, ConfigDict, Field

from ..errors import LocalfsError
from ..secrets import (
    MASK,
    is_secret_setting,
    mentions_secret_key,
    note_secrets,
    scrub,
    secret_values,
)
from ..textsafe import one_line
from ..userfiles import read_bytes

#: A .env larger than this is refused rather than parsed: no real one comes close, and a
#: huge upload should fail fast with a message instead of exhausting memory.
MAX_ENV_BYTES = 4 * 1024 * 1024
#: The most characters ``${VAR}`` expansion may produce over the whole file. A few
#: hundred bytes of doubling references (``A=${A}${A}``) would otherwise ask for more
#: memory than any machine has; real files expand to about their own size.
MAX_EXPANDED_CHARS = 16 * 1024 * 1024


class EnvFileError(LocalfsError):
    """A ``.env`` that can't be read or parsed; the message names the file and line."""


class ServerEnv(BaseModel):
    """The environment a simulated server process starts with (file + process, merged).

    ``values`` holds every key. Its ``repr`` lists keys only, so that printing the
    object can never reveal a secret such as ``CREDENTIALS_CONFIG``.
    """

    model_config = ConfigDict(frozen=True)

    values: dict[str, str] = Field(default_factory=dict)
    source: str | None = None
    #: Keys that came from the process environment (``--set`` or inherited), not the file.
    from_process: frozenset[str] = frozenset()
    #: Non-fatal notes from loading, e.g. a malformed line skipped in lenient mode.
    warnings: tuple[str, ...] = ()
    #: The file's line setting each key the server takes from the file (the last one,
    #: which wins); keys set by the process or an edit have none.
    lines: dict[str, int] = Field(default_factory=dict)

    def line_of(self, key: str) -> int | None:
        """The ``.env`` line that set ``key``'s value, or None when the file didn't."""
        return None if key in self.from_process else self.lines.get(key)

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value of ``key``, or ``default`` when the server would not see it."""
        return self.values.get(key, default)

    def is_set(self, key: str) -> bool:
        """Whether ``key`` is present at all (an empty value counts as present)."""
        return key in self.values

    def with_changes(
        self, set: Mapping[str, str] | None = None, unset: Iterable[str] = ()
    ) -> ServerEnv:
        """A copy with keys set (process-level) and keys removed."""
        values = dict(self.values)
        values.update(set or {})
        for key in unset:
            values.pop(key, None)
        changed = set_keys(set) | frozenset(unset)
        return self.model_copy(
            update={"values": values, "from_process": self.from_process | set_keys(set),
                    "lines": {k: n for k, n in self.lines.items() if k not in changed}}
        )

    def __repr__(self) -> str:
        return f"ServerEnv(source={self.source!r}, keys={sorted(self.values)!r})"

    __str__ = __repr__


def set_keys(mapping: Mapping[str, str] | None) -> frozenset[str]:
    """The keys of an optional mapping, as a frozenset."""
    return frozenset(mapping or ())


def read_env_text(path: Path) -> str:
    """The text of a .env file, or an :class:`EnvFileError` saying why it can't be had."""
    data = read_bytes(path, EnvFileError, MAX_ENV_BYTES)
    try:
        # python-dotenv's load_dotenv reads with encoding="utf-8"; so do we.
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise EnvFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def parse_env_text(
    text: str, *, name: str = "<text>", strict: bool = True
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """Parse ``.env`` text with python-dotenv's parser into raw ``(key, value)`` pairs.

    A line python-dotenv can't parse is an :class:`EnvFileError` naming ``name`` and the
    line when ``strict``; otherwise it is skipped (as the server skips it) and reported
    in the returned warnings. When ``strict`` every bad line is named at once, with its
    text: a secret setting's value masked (see :func:`shown_bad_line`).
    """
    pairs, _lines, warnings = _parse_with_lines(text, name=name, strict=strict)
    return pairs, warnings


#: How much of a bad line an error message shows.
SHOWN_LINE_CHARS = 60
_KEY_PREFIX = re.compile(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=")


def shown_bad_line(line: str, secrets: Iterable[str] = ()) -> str:
    """A line python-dotenv couldn't parse, as an error message may show it.

    The value of a secret setting is masked (``CREDENTIALS_CONFIG=••••••``), a line that
    names a secret setting anywhere else is masked whole, known ``secrets`` are masked
    wherever they appear, control characters are escaped and a long line is cut.
    """
    text = line.strip().splitlines()[0] if line.strip() else ""
    key = _KEY_PREFIX.match(text)
    if key and is_secret_setting(key.group(1), text[key.end():].strip()):
        text = text[:key.end()] + MASK
    elif mentions_secret_key(text if not key else text[key.end():]):
        text = MASK
    text = one_line(scrub(text, secrets))
    if len(text) > SHOWN_LINE_CHARS:
        text = text[:SHOWN_LINE_CHARS] + "…"
    return text


def _first_line(original: Any) -> tuple[int, str]:
    """The number and text of the line a python-dotenv binding really starts on.

    python-dotenv counts a binding from the blank lines before it (they are read as part
    of it), so its own line number can point at an empty line above the setting.
    """
    string = original.string
    body = string.lstrip()
    return original.line + string[:len(string) - len(body)].count("\n"), body


def _parse_with_lines(
    text: str, *, name: str, strict: bool
) -> tuple[list[tuple[str, str | None]], list[int], list[str]]:
    """:func:`parse_env_text`, plus the line each pair starts on.

    When ``strict``, every line that can't be parsed is named in the one error, each with
    its number and its text (masked as :func:`shown_bad_line` does), not only the first.
    """
    pairs: list[tuple[str, str | None]] = []
    lines: list[int] = []
    warnings: list[str] = []
    bad: list[tuple[int, str]] = []
    for binding in parse_stream(io.StringIO(text)):
        line, body = _first_line(binding.original)
        if binding.error:
            if strict:
                bad.append((line, body))
                continue
            warnings.append(f"{name}:{line}: can't be parsed as KEY=VALUE "
                            "(skipped, as the server would)")
            continue
        if binding.key is not None:
            pairs.append((binding.key, binding.value))
            lines.append(line)
    if bad:
        secrets = secret_values(dict(pairs))
        shown = [(line, shown_bad_line(string, secrets)) for line, string in bad]
        if len(shown) == 1:
            line, string = shown[0]
            raise EnvFileError(f"{name}:{line}: can't be parsed as KEY=VALUE: {string}")
        raise EnvFileError(
            f"{name}: {len(shown)} lines can't be parsed as KEY=VALUE: "
            + "; ".join(f"line {line}: {string}" for line, string in shown))
    return pairs, lines, warnings


def resolve_env(
    pairs: Iterable[tuple[str, str | None]], process_env: Mapping[str, str], *,
    name: str = "<text>", lines: Sequence[int] | None = None,
) -> dict[str, str]:
    """Apply ``load_dotenv(override=False)`` semantics against a simulated process env.

    ``${VAR}`` in a file value expands against the file's earlier keys with the process
    environment winning, and a key already in the process environment keeps its value.
    A key with no ``=`` (value None) is not set, as in python-dotenv.

    One scope is kept up to date as keys arrive (not rebuilt per line), so the cost is
    linear in the file; and the expanded values together may hold at most
    :data:`MAX_EXPANDED_CHARS` characters, measured before a value is built, or an
    :class:`EnvFileError` names the key (and, with ``lines``, the line) that went over.
    """
    scope: dict[str, str | None] = dict(process_env)
    file_values: dict[str, str] = {}
    expanded = 0
    for index, (key, value) in enumerate(pairs):
        if value is None:
            continue
        parts = [atom.resolve(scope) for atom in parse_variables(value)]
        expanded += sum(len(part) for part in parts)
        if expanded > MAX_EXPANDED_CHARS:
            where = f"{name}:{lines[index]}" if lines is not None else name
            raise EnvFileError(
                f"{where}: expanding ${{...}} in {key} makes the values longer than "
                f"{MAX_EXPANDED_CHARS // (1024 * 1024)} Mi characters; refused"
            )
        resolved = "".join(parts)
        file_values[key] = resolved
        if key not in process_env:  # the process environment wins over the file
            scope[key] = resolved
    return {**file_values, **process_env}


def _refuse_nul_values(values: Mapping[str, str], process: Mapping[str, str],
                       name: str) -> None:
    """The server's start-up fails on a file value holding a NUL byte: say so.

    python-dotenv's ``load_dotenv`` puts each file value the process doesn't already
    have into ``os.environ``, which raises ``ValueError`` for a NUL byte; the server
    calls it when its package is imported, so it never starts. Only key names are
    quoted: the value may be a secret.
    """
    bad = sorted(key for key, value in values.items() if "\0" in value and key not in process)
    if bad:
        raise EnvFileError(
            f"{name}: the value of {', '.join(bad)} contains a NUL byte; python-dotenv's "
            "load_dotenv raises ValueError on it, so the server would not start"
        )


def load_env(
    path: str | os.PathLike[str] | None = None,
    *,
    overrides: Mapping[str, str] | None = None,
    unset: Iterable[str] = (),
    inherit_environ: bool = False,
    strict: bool = True,
    text: str | None = None,
) -> ServerEnv:
    """Load the environment a server started with ``path`` as its ``.env`` would see.

    Args:
        path: the server's ``.env`` file, or None for no file.
        overrides: the server process's own environment (``--set``); wins over the file.
        unset: keys removed from the result whatever set them (``--unset``).
        inherit_environ: also take this process's ``os.environ`` as the server's
            environment (explicit opt-in; ``overrides`` still win over it).
        strict: a malformed line is an error (True) or skipped with a warning (False).
        text: the file's contents, when they came from somewhere other than disk (an
            upload); ``path`` then only names it in messages.

    Raises:
        EnvFileError: the file is missing, unreadable, too large, not UTF-8, (strict)
            has a line python-dotenv can't parse, or (either mode) sets a value holding
            a NUL byte, on which the server fails to start.
    """
    name = os.fspath(path) if path is not None else "<text>"
    if text is None and path is not None:
        text = read_env_text(Path(path))
    pairs, lines, warnings = _parse_with_lines(text or "", name=name, strict=strict)
    process: dict[str, str] = dict(os.environ) if inherit_environ else {}
    process.update(overrides or {})
    for key in list(process):
        if "\0" in key or "=" in key or not key:
            raise EnvFileError(f"invalid variable name in the process environment: {key!r}")
    values = resolve_env(pairs, process, name=name, lines=lines)
    _refuse_nul_values(values, process, name)
    for key in unset:
        values.pop(key, None)
    note_secrets(values)
    return ServerEnv(
        values=values,
        source=name if path is not None else None,
        from_process=frozenset(process) - frozenset(unset),
        warnings=tuple(warnings),
        lines={key: line for (key, value), line in zip(pairs, lines, strict=True)
               if value is not None and key in values and key not in process},
    )
