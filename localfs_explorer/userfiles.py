"""Reading the files users hand the tool (access lists, sessions, host specs).

One place decides how an unreadable, non-UTF-8 or malformed JSON file is reported, so
every command says it the same way and names the file (and line) without a traceback.
Each caller passes its own error type, so callers can still catch what they expect.

These files often come from someone else (a session records arguments a model composed),
so reading them is bounded: only regular files are read (a FIFO, a device or a directory
is refused before a byte is read, so ``/dev/zero`` can't exhaust memory and a FIFO can't
hang the reader), a file larger than :data:`MAX_FILE_BYTES` is refused from its size
alone, and JSON or TOML nested deeper than :data:`MAX_NESTING` is refused before it is
parsed, so no parser recurses without bound.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_NESTING",
    "check_nesting",
    "nests_deeper_than",
    "parse_json",
    "parse_json_line",
    "parse_toml",
    "read_bytes",
    "read_stream",
    "read_text",
    "size_limit_text",
    "write_output",
]

#: The largest input file read (bytes). Real sessions, host specs and access lists are a
#: few megabytes at most; anything bigger is refused from its size without being read.
MAX_FILE_BYTES = 16 * 1024 * 1024
#: The deepest nesting of arrays/objects (JSON) or arrays/inline tables (TOML) accepted.
#: No file this tool reads needs more than a handful of levels.
MAX_NESTING = 64

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def size_limit_text(limit: int) -> str:
    """``limit`` bytes in words (``16 MiB``, ``512 KiB``)."""
    if limit >= 1024 * 1024 and limit % (1024 * 1024) == 0:
        return f"{limit // (1024 * 1024)} MiB"
    if limit >= 1024 and limit % 1024 == 0:
        return f"{limit // 1024} KiB"
    return f"{limit} bytes"


def read_bytes(path: str | os.PathLike[str], error: type[Exception],
               limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of regular file ``path`` (at most ``limit``), or ``error`` saying why not.

    The file is opened without blocking (a FIFO with no writer doesn't hang) and checked
    on the open descriptor, so what is measured is what is read.
    """
    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(name, flags)
    except FileNotFoundError:
        raise error(f"{name}: can't be read (no such file)") from None
    except PermissionError:
        raise error(f"{name}: can't be read (permission denied)") from None
    except OSError as exc:
        raise error(f"{name}: can't be read ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{name}: is {_kind(info.st_mode)}, not a regular file; refused")
        if info.st_size > limit:
            raise error(f"{name}: larger than the {size_limit_text(limit)} limit; refused")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1024 * 1024, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # grew while being read
                raise error(f"{name}: larger than the {size_limit_text(limit)} limit; refused")
    except OSError as exc:
        raise error(f"{name}: can't be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_stream(stream: Any, error: type[Exception], limit: int = MAX_FILE_BYTES,
                name: str = "<stdin>") -> bytes:
    """At most ``limit`` bytes of ``stream`` (a binary or text stream such as stdin), or
    ``error`` as soon as more arrive: a pipe has no size to check first, so it is read in
    chunks and given up on at ``limit`` + 1 bytes, never read to its end.

    A text stream is read through its binary ``buffer`` when it has one; otherwise its
    characters are counted by their UTF-8 bytes.
    """
    source = getattr(stream, "buffer", stream)
    chunks: list[bytes] = []
    total = 0
    while True:
        try:
            chunk = source.read(min(1024 * 1024, limit + 1 - total))
        except OSError as exc:
            raise error(f"{name}: can't be read ({exc.strerror or exc})") from None
        except UnicodeDecodeError:
            raise error(f"{name}: is not UTF-8 text") from None
        if not chunk:
            break
        data = chunk.encode("utf-8", "surrogatepass") if isinstance(chunk, str) else chunk
        chunks.append(data)
        total += len(data)
        if total > limit:
            raise error(f"{name}: larger than the {size_limit_text(limit)} limit; refused")
    return b"".join(chunks)


def read_text(path: str | os.PathLike[str], error: type[Exception],
              limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of ``path``, or ``error`` saying why it can't be had."""
    data = read_bytes(path, error, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{os.fspath(path)}: is not UTF-8 text (byte {exc.start})") from None


# What can hold a bracket that doesn't nest: strings, and in TOML comments too.
_JSON_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?')
_TOML_SKIPPED = re.compile(
    r"'''.*?(?:'''|\Z)|\"\"\".*?(?:\"\"\"|\Z)|'[^'\n]*'?"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|#[^\n]*',
    re.S,
)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def nests_deeper_than(text: str, limit: int, *, toml: bool = False) -> bool:
    """Whether brackets in ``text`` nest deeper than ``limit`` (strings, comments skipped).

    Works on the text's bracket skeleton, peeling the innermost pairs off once per level
    (at most ``limit`` times), so a 100,000-deep document costs no more than a shallow
    one and nothing recurses. Exact for valid JSON; close for TOML and malformed text.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    skeleton = (_TOML_SKIPPED if toml else _JSON_STRINGS).sub("", text)
    skeleton = _NOT_BRACKETS.sub("", skeleton).replace("{", "[").replace("}", "]")
    if "[" * (limit + 1) in skeleton:  # the usual shape of a deep document: one search
        return True
    for _ in range(limit):
        peeled = skeleton.replace("[]", "")
        if len(peeled) == len(skeleton):
            break
        skeleton = peeled
    else:
        if "[]" in skeleton:
            return True
    # What is left never closes: a long enough run of openers is as deep.
    return "[" * (limit + 1) in skeleton


def check_nesting(text: str, origin: object, error: type[Exception], *,
                  toml: bool = False, limit: int = MAX_NESTING) -> None:
    """``error`` naming ``origin`` when ``text`` nests deeper than ``limit`` levels."""
    if nests_deeper_than(text, limit, toml=toml):
        raise error(f"{origin}: nested deeper than {limit} levels; refused")


def parse_json(text: str, origin: object, error: type[Exception], **options: Any) -> Any:
    """``json.loads(text)``, or ``error`` naming ``origin`` and the line and column."""
    check_nesting(text, origin, error)
    try:
        return json.loads(text, **options)
    except json.JSONDecodeError as exc:
        raise error(
            f"{origin}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise error(f"{origin}: nested too deeply; refused") from None
    except error:  # raised by a hook in ``options``: already worded by the caller
        raise
    except ValueError as exc:  # e.g. an integer literal past Python's digit limit
        raise error(f"{origin}: not valid JSON ({exc})") from None


def parse_json_line(text: str) -> tuple[Any, str | None]:
    """One JSONL line parsed: ``(value, None)``, or ``(None, why it isn't JSON)``."""
    if nests_deeper_than(text, MAX_NESTING):
        return None, f"nested deeper than {MAX_NESTING} levels"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, exc.msg
    except (RecursionError, ValueError) as exc:
        return None, str(exc) or type(exc).__name__


def parse_toml(text: str, origin: object, error: type[Exception]) -> Any:
    """``tomllib.loads(text)``, or ``error`` naming ``origin`` and, when the parser says
    where, the line (``FILE:LINE: not valid TOML: what (column N)``)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            raise error(
                f"{origin}: reading TOML needs Python 3.11+ or the 'tomli' package"
            ) from None
    check_nesting(text, origin, error, toml=True)
    _check_dotted_keys(text, origin, error)
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise error(f"{origin}: nested too deeply; refused") from None
    except ValueError as exc:  # tomllib.TOMLDecodeError among them
        message = str(exc)
        at = _TOML_AT.search(message)
        if at:
            what = message[: at.start()].strip()
            raise error(f"{origin}:{at.group(1)}: not valid TOML: {what} "
                        f"(column {at.group(2)})") from None
        raise error(f"{origin}: not valid TOML: {message}") from None


_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")
# A run of more than MAX_NESTING dot-separated key parts (bare, or a string already
# replaced by a placeholder), anchored where a part starts so a long word is tried once.
_DOTTED_KEY = re.compile(
    rf"(?<![A-Za-z0-9_-])(?:[A-Za-z0-9_-]+[ \t]*\.[ \t]*){{{MAX_NESTING}}}[A-Za-z0-9_-]"
)


def _string_placeholder(match: re.Match[str]) -> str:
    """A string or comment as one key character (strings) or nothing (comments), keeping
    its line breaks so positions still tell the line."""
    text = match.group()
    newlines = "\n" * text.count("\n")
    return newlines if text.startswith("#") else "s" + newlines


def _check_dotted_keys(text: str, origin: object, error: type[Exception]) -> None:
    """``error`` naming the line of a key (``a.b.c = 1``, ``[a.b.c]``) with more parts
    than :data:`MAX_NESTING`.

    Each part is a table level the parser builds, and it builds them in time growing
    with the square of their number (40,000 parts: seconds) into a table nested deeper
    than anything reading it expects; the bracket count of :func:`check_nesting` doesn't
    see them. Checked on the text with strings and comments set aside, in linear time.
    """
    if text.count(".") < MAX_NESTING:  # MAX_NESTING + 1 parts take MAX_NESTING dots
        return
    skeleton = _TOML_SKIPPED.sub(_string_placeholder, text)
    found = _DOTTED_KEY.search(skeleton)
    if found:
        line = skeleton.count("\n", 0, found.start()) + 1
        raise error(f"{origin}:{line}: a dotted key of more than {MAX_NESTING} parts; refused")


def write_output(path: str | os.PathLike[str], text: str, error: type[Exception], *,
                 force: bool = False) -> Path | None:
    """Write ``text`` (UTF-8) to ``path`` without ever losing or following what is there.

    Every report file goes through here, so every one is masked as the command line's
    own output is: the secrets noted while loading environments (see
    :func:`~localfs_explorer.secrets.collecting`), in every spelling, become the mask.

    A symlink at ``path`` is refused (writing through it would change a file elsewhere),
    as is anything but a regular file. An existing file is replaced only with ``force``,
    and then kept first as ``PATH.bak`` (``PATH.bak.1``... if taken); the new text is
    written to a temporary file beside it and moved into place, so a reader never sees
    half a file. Returns the backup's path (None when nothing was replaced).
    """
    from .secrets import scrub_noted

    text = scrub_noted(text)
    name = os.fspath(path)
    try:
        info: os.stat_result | None = os.lstat(name)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise error(f"{name}: can't be inspected ({exc.strerror or exc})") from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise error(f"{name} is a symlink; refusing to write through it (remove it or "
                        "pick another name)")
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{name} is {_kind(info.st_mode)}; refusing to replace it")
        if not force:
            raise error(f"{name} exists; pass --force to replace it (the old file is kept "
                        "as a .bak)")
    directory = os.path.dirname(os.path.abspath(name))
    backup: Path | None = None
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(name)}.",
                                   suffix=".tmp")
    except OSError as exc:
        raise error(f"{name}: can't be written ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            # A lone surrogate (a non-UTF-8 file name) is written as its \\uXXXX escape.
            fh.write(text.encode("utf-8", "backslashreplace"))
        os.chmod(tmp, stat.S_IMODE(info.st_mode) if info is not None else 0o644)
        if info is None:
            os.link(tmp, name)  # fails if something appeared meanwhile: never clobbered
        else:
            backup = _free_name(Path(name + ".bak"))
            os.link(name, backup)
            os.replace(tmp, name)
    except FileExistsError:
        raise error(f"{name} appeared while writing; not replaced") from None
    except OSError as exc:
        raise error(f"{name}: can't be written ({exc.strerror or exc})") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return backup


def _free_name(candidate: Path) -> Path:
    number = 0
    path = candidate
    while os.path.lexists(path):
        number += 1
        path = candidate.with_name(f"{candidate.name}.{number}")
    return path
