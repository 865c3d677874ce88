"""Recorded MCP sessions in, one :class:`RecordedCall` per answered tool call out.

Each reader streams its log in one pass, line by line (or element by element for an
Inspector export), and keeps only the calls still waiting for their answer, so a log of
hundreds of megabytes is read in bounded memory. The formats:

- ``claude-code``: a Claude Code transcript (JSON Lines). An assistant line's
  ``tool_use`` block (``id``, ``name`` ``mcp__<entry>__<tool>``, ``input``) is the call; a
  user line's ``tool_result`` block (``tool_use_id``, ``content`` as a string or as
  blocks, ``is_error``) its answer. Tools that aren't an MCP server's are passed over.
- ``jsonrpc``: raw JSON-RPC lines behind a marker saying the direction: VS Code's MCP
  output (``[editor -> server]`` / ``[server -> editor]``, older ``[Client Says]`` /
  ``[Server Says]``) and Claude Desktop's per-server log (``Message from client:`` /
  ``Message from server:``). A ``tools/call`` request is the call, the message with its
  id the answer (a ``result`` with ``isError``, or a JSON-RPC ``error``).
- ``inspector``: MCP Inspector's History export, a JSON array of ``{direction,
  timestamp, message, response}``.

A line cut in the middle by a log viewer (``…[N chars truncated]…``) is read for what
remains: the fields still there are taken, and the answer's text keeps the marker, which
the comparison matches piece by piece (:func:`truncation_pieces`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, Literal

from ..errors import LocalfsError

__all__ = [
    "LOG_FORMATS",
    "TRUNCATED",
    "LogError",
    "LogStats",
    "RecordedCall",
    "detect_format",
    "read_log",
    "split_tool_name",
    "truncation_pieces",
]

LogFormat = Literal["claude-code", "jsonrpc", "inspector"]
#: The formats :func:`read_log` reads (``--log-format``'s choices).
LOG_FORMATS: tuple[str, ...] = ("claude-code", "jsonrpc", "inspector")

#: What a log viewer leaves where it cut a long line: ``…[1234 chars truncated]…``.
TRUNCATED = re.compile(r"…\[(\d+) chars truncated\]…")
_TRUNCATED_BYTES = b"chars truncated]"

#: The most calls kept waiting for an answer; beyond it the oldest is let go (a log
#: with that many unanswered calls is not one session's traffic).
MAX_PENDING = 10_000
#: The most of an answer's text kept (a read of a large file is not a refusal).
MAX_TEXT = 4_000
#: The most of one log line read; the rest of a longer line is counted and let go, and
#: the line read as one a viewer cut (``…[N chars truncated]…``).
MAX_LINE = 16 << 20

_CHUNK = 1 << 20
_PEEK = 1 << 16


class LogError(LocalfsError):
    """A log that can't be read: missing, not a format this reads, or redacted."""


@dataclass(slots=True)
class RecordedCall:
    """One tool call as the log recorded it, with its answer.

    ``arguments`` is None when the log doesn't hold them whole (a cut line); ``answered``
    False for a call whose answer never came; ``text`` the answer's text (its first
    :data:`MAX_TEXT` characters; a cut line's marker kept).
    """

    id: str
    #: The client config entry that names the server (None: the log doesn't say).
    entry: str | None
    tool: str
    arguments: dict[str, Any] | None
    answered: bool = False
    is_error: bool = False
    #: The log file and line of the call (1-based; an Inspector export counts elements).
    source: str = ""
    line: int = 0
    notes: list[str] = field(default_factory=list)
    #: The log line was cut where it would say whether the call failed.
    error_unknown: bool = False
    _text: str = ""
    #: Reads the answer's text when first asked (a success's text is rarely needed, and
    #: a transcript's largest lines are successes' texts).
    _later: Callable[[], str] | None = None

    @property
    def text(self) -> str:
        """The answer's text (its first :data:`MAX_TEXT` characters)."""
        if self._later is not None:
            text, self._later = self._later(), None
            self._text = text[:MAX_TEXT] if len(text) > MAX_TEXT else text
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self._text, self._later = (value[:MAX_TEXT] if len(value) > MAX_TEXT else value), None

    @property
    def truncated(self) -> bool:
        """The answer's text was cut by the log viewer."""
        return TRUNCATED.search(self.text) is not None


def truncation_pieces(text: str) -> list[tuple[str, int]]:
    """``text`` split at its cut markers: ``[(piece, chars missing after it), ...]``
    (the last piece's count is 0)."""
    pieces: list[tuple[str, int]] = []
    start = 0
    for m in TRUNCATED.finditer(text):
        pieces.append((text[start:m.start()], int(m.group(1))))
        start = m.end()
    pieces.append((text[start:], 0))
    return pieces


# --- detection --------------------------------------------------------------------------

_RPC_MARKERS = (
    ("[editor -> server]", "client"), ("[server -> editor]", "server"),
    ("[Client Says]", "client"), ("[Server Says]", "server"),
    ("Message from client:", "client"), ("Message from server:", "server"),
)
_RPC_MARKER = re.compile(
    r"\[editor -> server\]|\[server -> editor\]|\[Client Says\]|\[Server Says\]"
    r"|Message from client:|Message from server:")
_SIDE = {marker: side for marker, side in _RPC_MARKERS}
# Claude Desktop names the server in the line: "... [filesystem] [info] Message from".
_DESKTOP_ENTRY = re.compile(r"\[([^\[\]]+)\] \[[a-z]+\] Message from (?:client|server):")
# Claude Desktop names its per-server log after the entry.
_DESKTOP_FILE = re.compile(r"^mcp-server-(.+)\.log$")


def detect_format(path: str) -> LogFormat:
    """The format of the log at ``path``, from its first 64 KiB."""
    head = _peek(path)
    text = head.decode("utf-8", errors="replace")
    stripped = text.lstrip("\ufeff \t\r\n")
    if not stripped:
        raise LogError(f"{path}: the log is empty")
    if _RPC_MARKER.search(text):
        return "jsonrpc"
    if stripped.startswith("["):
        return "inspector"
    if stripped.startswith("{"):
        first = stripped.split("\n", 1)[0]
        if '"type"' in first or '"sessionId"' in first or "tool_use" in first:
            return "claude-code"
    raise LogError(f"{path}: not a log this command reads (Claude Code transcript, "
                   "JSON-RPC lines from VS Code or Claude Desktop, or an MCP Inspector "
                   "History export); name one with --log-format")


def _peek(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(_PEEK)
    except OSError as exc:
        raise LogError(f"{path}: can't read the log: {exc.strerror or exc}") from None


# --- the shared reading loop --------------------------------------------------------------

Progress = Callable[[int], None]


class _Pairing:
    """Calls waiting for their answer, in the order they were made (bounded)."""

    def __init__(self) -> None:
        self.pending: dict[str, RecordedCall] = {}
        self.calls = 0
        self.redacted = 0
        self.traffic = 0

    def call(self, rec: RecordedCall) -> Iterator[RecordedCall]:
        self.calls += 1
        old = self.pending.pop(rec.id, None)
        if old is not None:  # the id used again (a restarted server): the first had no answer
            yield old
        self.pending[rec.id] = rec
        if len(self.pending) > MAX_PENDING:
            oldest = next(iter(self.pending))
            yield self.pending.pop(oldest)

    def answer(self, key: str, is_error: bool, text: str | Callable[[], str]
               ) -> RecordedCall | None:
        """The waiting call ``key`` with its answer (``text`` may be read later)."""
        rec = self.pending.pop(key, None)
        if rec is None:
            return None
        rec.answered = True
        rec.is_error = is_error
        if callable(text):
            rec._later = text
        else:
            rec.text = text
        return rec

    def rest(self) -> Iterator[RecordedCall]:
        yield from self.pending.values()
        self.pending.clear()


def _lines(path: str, progress: Progress | None) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` of the log, reported to ``progress`` every megabyte."""
    try:
        f: IO[bytes] = open(path, "rb")  # noqa: SIM115 - closed below, generator-owned
    except OSError as exc:
        raise LogError(f"{path}: can't read the log: {exc.strerror or exc}") from None
    with f:
        done = 0
        told = 0
        number = 0
        limit = MAX_LINE
        while True:
            raw = f.readline(limit)
            if not raw:
                break
            number += 1
            done += len(raw)
            if len(raw) == limit and not raw.endswith(b"\n"):
                # A line longer than any answer worth keeping: its head is read like a
                # line a viewer cut (the rest counted and let go, in bounded reads).
                rest = 0
                while True:
                    more = f.readline(_CHUNK)
                    rest += len(more)
                    if not more or more.endswith(b"\n"):
                        break
                done += rest
                raw += f"…[{rest} chars truncated]…".encode()
            if progress is not None and done - told >= _CHUNK:
                progress(done)
                told = done
            yield number, raw
        if progress is not None:
            progress(done)


def _text_of(content: Any) -> str:
    """An answer's text: a string, or the ``text`` of its blocks joined by newlines."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content
                         if isinstance(b, dict) and isinstance(b.get("text"), str))
    return ""


# --- Claude Code transcripts --------------------------------------------------------------

_MCP_PREFIX = "mcp__"
_TOOL_ID = re.compile(r'"tool_use_id"\s*:\s*"([^"\\]+)"')
# The same two questions asked of a line's bytes, before (or instead of) parsing it. A
# key inside a string value is escaped (\"is_error\"), so only a real key matches.
_TOOL_ID_BYTES = re.compile(rb'"tool_use_id"\s*:\s*"([^"\\]+)"')
_IS_ERROR_TRUE = re.compile(rb'"is_error"\s*:\s*true')
_IS_ERROR = re.compile(r'"is_error"\s*:\s*(true|false)')
_USE_ID = re.compile(r'"id"\s*:\s*"([^"\\]+)"')
_USE_NAME = re.compile(r'"name"\s*:\s*"([^"\\]+)"')
_USE_INPUT = re.compile(r'"input"\s*:\s*')
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)(?:"|$)')
_DECODER = json.JSONDecoder()


def split_tool_name(name: str) -> tuple[str, str] | None:
    """``mcp__<entry>__<tool>`` -> ``(entry, tool)``; None for a client's own tool."""
    if not name.startswith(_MCP_PREFIX):
        return None
    entry, sep, tool = name[len(_MCP_PREFIX):].partition("__")
    if not sep or not entry or not tool:
        return None
    return entry, tool


def _claude_code(path: str, progress: Progress | None, pairing: _Pairing
                 ) -> Iterator[RecordedCall]:
    for number, raw in _lines(path, progress):
        # Most of a transcript is conversation: only lines with a tool block are parsed.
        uses = b'"tool_use"' in raw
        results = b'"tool_result"' in raw
        if not uses and not results:
            continue
        if results and not uses and _TRUNCATED_BYTES not in raw:
            # An answer: the id first. Answers to the client's own tools (most of a
            # transcript's bulk) aren't parsed; an MCP call's success is parsed only when
            # its text is asked for.
            ids = _TOOL_ID_BYTES.findall(raw)
            if len(ids) == 1:
                key = ids[0].decode("utf-8", errors="replace")
                if key not in pairing.pending:
                    continue
                if _IS_ERROR_TRUE.search(raw) is None:
                    found = pairing.answer(key, False, _later_text(raw, key))
                    if found is not None:
                        yield found
                    continue
        line = raw.decode("utf-8", errors="replace")
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            obj = None
        if obj is None:
            if _TRUNCATED_BYTES in raw:
                yield from _claude_code_cut(path, number, line, pairing)
            continue
        message = obj.get("message") if isinstance(obj, dict) else None
        blocks = message.get("content") if isinstance(message, dict) else None
        if not isinstance(blocks, list):
            continue
        for block in blocks:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "tool_use":
                name = block.get("name")
                parts = split_tool_name(name) if isinstance(name, str) else None
                if parts is None:
                    continue
                arguments = block.get("input")
                rec = RecordedCall(str(block.get("id", "")), parts[0], parts[1],
                                   arguments if isinstance(arguments, dict) else None,
                                   source=path, line=number)
                if arguments is not None and not isinstance(arguments, dict):
                    rec.notes.append("the call's input isn't an object")
                yield from pairing.call(rec)
            elif kind == "tool_result":
                found = pairing.answer(str(block.get("tool_use_id", "")),
                                       block.get("is_error") is True,
                                       _text_of(block.get("content")))
                if found is not None:
                    yield found


def _later_text(raw: bytes, key: str) -> Callable[[], str]:
    """Reads the text of the answer ``key`` from its transcript line when called."""

    def read() -> str:
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            return ""
        message = obj.get("message") if isinstance(obj, dict) else None
        blocks = message.get("content") if isinstance(message, dict) else None
        for block in blocks if isinstance(blocks, list) else ():
            if isinstance(block, dict) and block.get("tool_use_id") == key:
                return _text_of(block.get("content"))
        return ""

    return read


def _claude_code_cut(path: str, number: int, line: str, pairing: _Pairing
                     ) -> Iterator[RecordedCall]:
    """A transcript line cut by a viewer: its tool blocks read field by field."""
    use = line.find('"tool_use"')
    while use >= 0:
        ident, name = _USE_ID.search(line, use), _USE_NAME.search(line, use)
        parts = split_tool_name(name.group(1)) if name else None
        if ident and parts:
            arguments = None
            where = _USE_INPUT.search(line, use)
            if where:
                try:
                    value, _ = _DECODER.raw_decode(line, where.end())
                    arguments = value if isinstance(value, dict) else None
                except (ValueError, RecursionError):
                    pass
            rec = RecordedCall(ident.group(1), parts[0], parts[1], arguments,
                               source=path, line=number)
            if arguments is None:
                rec.notes.append("the log line is cut inside the call's arguments")
            yield from pairing.call(rec)
        use = line.find('"tool_use"', use + 10)
    for m in _TOOL_ID.finditer(line):
        error = _IS_ERROR.search(line, m.end())
        found = pairing.answer(m.group(1), bool(error and error.group(1) == "true"),
                               _cut_text(line, m.end()))
        if found is not None:
            if error is None and TRUNCATED.search(line, m.end()):
                # The flag comes after the content, and the cut took it: unknown.
                found.error_unknown = True
                found.notes.append("the log line is cut before the answer says whether "
                                   "it failed")
            yield found


def _cut_text(line: str, start: int) -> str:
    """The answer's text in a cut line: its ``text`` strings (or ``content`` string)
    after ``start``, unescaped as far as they go, the marker kept."""
    key = re.compile(r'"(?:text|content)"\s*:\s*"').search(line, start)
    if key is None:
        return ""
    m = _STRING.match(line, key.end() - 1)
    body = m.group(1) if m else ""
    try:
        return str(json.loads(f'"{body}"'))
    except (ValueError, RecursionError):
        return body.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")


# --- JSON-RPC lines -----------------------------------------------------------------------


def _rpc_call(message: dict[str, Any], entry: str | None, path: str, number: int
              ) -> RecordedCall | Literal[False] | None:
    """The tool call a request is (None: another request; False: a redacted call)."""
    if message.get("method") != "tools/call" or "id" not in message:
        return None
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    if not isinstance(name, str) or not name:
        return False
    arguments = params.get("arguments", {}) if isinstance(params, dict) else None
    rec = RecordedCall(str(message["id"]), entry, name,
                       arguments if isinstance(arguments, dict) else None,
                       source=path, line=number)
    if not isinstance(arguments, dict):
        rec.notes.append("the call's arguments aren't an object")
    return rec


def _rpc_answer(message: dict[str, Any]) -> tuple[str, bool, str] | None:
    """``(id, is_error, text)`` of a response; None for anything else."""
    if "id" not in message or "method" in message:
        return None
    if isinstance(message.get("error"), dict):
        error = message["error"]
        return str(message["id"]), True, str(error.get("message", ""))
    result = message.get("result")
    if not isinstance(result, dict):
        return None
    return str(message["id"]), result.get("isError") is True, _text_of(result.get("content"))


def _jsonrpc(path: str, progress: Progress | None, pairing: _Pairing, entry: str | None
             ) -> Iterator[RecordedCall]:
    file_entry = _DESKTOP_FILE.match(os.path.basename(path))
    # The log's own word for its server wins (Claude Desktop names it in each line and
    # in the file's name); ``entry`` is for a log that says nothing (VS Code's output).
    default_entry = (file_entry.group(1) if file_entry else None) or entry
    for number, raw in _lines(path, progress):
        line = raw.decode("utf-8", errors="replace")
        m = _RPC_MARKER.search(line)
        if m is None:
            continue
        pairing.traffic += 1
        side = _SIDE[m.group(0)]
        brace = line.find("{", m.end())
        if brace < 0:
            # No message, only words in its place: a redacted tool call says so.
            rest = line[m.end():].lower()
            if "tools/call" in rest or "redact" in rest:
                pairing.redacted += 1
            continue
        try:
            message, _ = _DECODER.raw_decode(line, brace)
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict):
            if _TRUNCATED_BYTES in raw:
                yield from _jsonrpc_cut(line[brace:], side, default_entry, path, number,
                                        pairing)
            continue
        if side == "client":
            named = _DESKTOP_ENTRY.search(line)
            rec = _rpc_call(message, named.group(1) if named else default_entry,
                            path, number)
            if rec is False:
                pairing.redacted += 1
            elif rec is not None:
                yield from pairing.call(rec)
        else:
            answer = _rpc_answer(message)
            if answer is not None:
                found = pairing.answer(*answer)
                if found is not None:
                    yield found


_RPC_ID = re.compile(r'"id"\s*:\s*("?)([^",}\s]+)\1')
_RPC_ERROR_FLAG = re.compile(r'"isError"\s*:\s*(true|false)')


def _jsonrpc_cut(text: str, side: str, entry: str | None, path: str, number: int,
                 pairing: _Pairing) -> Iterator[RecordedCall]:
    """A JSON-RPC message cut by a viewer: its id, name, arguments and text as far as
    they go."""
    if side == "client":
        if '"tools/call"' not in text:
            return
        ident, name = _RPC_ID.search(text), _USE_NAME.search(text)
        if not ident or not name:
            return
        arguments = None
        where = re.compile(r'"arguments"\s*:\s*').search(text)
        if where:
            try:
                value, _ = _DECODER.raw_decode(text, where.end())
                arguments = value if isinstance(value, dict) else None
            except (ValueError, RecursionError):
                pass
        rec = RecordedCall(ident.group(2), entry, name.group(1), arguments, source=path,
                           line=number)
        if arguments is None:
            rec.notes.append("the log line is cut inside the call's arguments")
        yield from pairing.call(rec)
        return
    ident = _RPC_ID.search(text)
    if ident is None:
        return
    flag = _RPC_ERROR_FLAG.search(text)
    is_error = bool(flag and flag.group(1) == "true") or '"error"' in text[:200]
    found = pairing.answer(ident.group(2), is_error, _cut_text(text, 0))
    if found is not None:
        yield found


# --- MCP Inspector History export -----------------------------------------------------------


def _json_array(path: str, progress: Progress | None) -> Iterator[Any]:
    """The elements of the JSON array at ``path``, one at a time (bounded by the largest
    element, not the file)."""
    try:
        f = open(path, encoding="utf-8", errors="replace")  # noqa: SIM115 - closed below
    except OSError as exc:
        raise LogError(f"{path}: can't read the log: {exc.strerror or exc}") from None
    with f:
        buf = f.read(_CHUNK).lstrip("\ufeff \t\r\n")
        done = len(buf)
        if not buf.startswith("["):
            raise LogError(f"{path}: an Inspector History export is a JSON array")
        pos, eof = 1, False
        while True:
            while pos < len(buf) and buf[pos] in " \t\r\n,":
                pos += 1
            if pos < len(buf) and buf[pos] == "]":
                return
            try:
                value, end = _DECODER.raw_decode(buf, pos)
            except RecursionError:
                raise LogError(f"{path}: an element of the array nests too deeply to "
                               "read") from None
            except ValueError:
                if eof:
                    raise LogError(f"{path}: the JSON array breaks off at character "
                                   f"{done - len(buf) + pos}") from None
                more = f.read(_CHUNK)
                eof = not more
                buf = buf[pos:] + more
                done += len(more)
                pos = 0
                if progress is not None:
                    progress(done)
                continue
            yield value
            pos = end
            if pos > _CHUNK:
                buf, pos = buf[pos:], 0


def _inspector(path: str, progress: Progress | None, pairing: _Pairing, entry: str | None
               ) -> Iterator[RecordedCall]:
    for number, item in enumerate(_json_array(path, progress), 1):
        if not isinstance(item, dict):
            continue
        request = item.get("message") if isinstance(item.get("message"), dict) \
            else item.get("request")
        if not isinstance(request, dict) or request.get("method") != "tools/call":
            continue
        pairing.traffic += 1
        params = request.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        if not isinstance(name, str) or not name:
            pairing.redacted += 1
            continue
        arguments = params.get("arguments", {}) if isinstance(params, dict) else None
        key = str(request.get("id", f"#{number}"))
        rec = RecordedCall(key, entry, name,
                           arguments if isinstance(arguments, dict) else None,
                           source=path, line=number)
        yield from pairing.call(rec)
        response = item.get("response")
        answer = None
        if isinstance(response, dict):
            # The export keeps the result itself; a JSON-RPC envelope is read too.
            if "result" in response or "error" in response:
                answer = _rpc_answer({"id": key, **response})
            elif "content" in response or "isError" in response:
                answer = (key, response.get("isError") is True,
                          _text_of(response.get("content")))
            elif isinstance(response.get("message"), str):
                answer = (key, True, response["message"])
        elif isinstance(response, str):  # an error the Inspector kept as text
            answer = (key, True, response)
        if answer is not None:
            found = pairing.answer(*answer)
            if found is not None:
                yield found


# --- the entry point ---------------------------------------------------------------------


@dataclass
class LogStats:
    """What reading a log found besides its calls."""

    format: str = ""
    calls: int = 0
    unanswered: int = 0
    redacted: int = 0
    traffic: int = 0


def read_log(path: str, format: str | None = None, *, entry: str | None = None,
             progress: Progress | None = None, stats: LogStats | None = None
             ) -> Iterator[RecordedCall]:
    """Every tool call of the log at ``path``, in the order answers came (a call never
    answered at the end), each with its answer.

    ``format`` is one of :data:`LOG_FORMATS` (None: detected); ``entry`` names the
    client config entry of the calls of a log that doesn't say which server it is
    (VS Code's output, an Inspector export; a transcript names its own); ``progress``
    is told the bytes read so far. Raises :class:`LogError` for a log that can't be
    read, and for a log whose tool calls are recorded without their names or arguments
    (a redacted log): nothing to verify.
    """
    fmt = format or detect_format(path)
    if fmt not in LOG_FORMATS:
        raise LogError(f"unknown log format {fmt!r} (use one of {', '.join(LOG_FORMATS)})")
    pairing = _Pairing()
    if fmt == "claude-code":
        calls = _claude_code(path, progress, pairing)
    elif fmt == "jsonrpc":
        calls = _jsonrpc(path, progress, pairing, entry)
    else:
        calls = _inspector(path, progress, pairing, entry)
    yield from calls
    unanswered = 0
    for rec in pairing.rest():
        unanswered += 1
        yield rec
    if stats is not None:
        stats.format, stats.calls, stats.unanswered = fmt, pairing.calls, unanswered
        stats.redacted, stats.traffic = pairing.redacted, pairing.traffic
    if pairing.calls == 0 and pairing.redacted:
        raise LogError(f"{path}: the log records {pairing.redacted} tool call(s) without "
                       "their names or arguments (a redacted log): nothing to verify")
