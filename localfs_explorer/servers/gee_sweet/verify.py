"""Compare a running server with the explorer's prediction for the same configuration.

A deployed server tells its clients two things the explorer predicts: the
``local_file_access`` object of its ``server://auth-status`` resource (mode, whether it
was set explicitly, the configured roots, the local-only tools off mode left out) and
the tools ``tools/list`` returns. :func:`read_http` and :func:`read_stdio` ask a live
server for them with the official MCP Python SDK (the ``verify`` extra);
:func:`predict` computes the explorer's answer for a resolved policy and
:func:`compare` lists each difference. An operator runs this to show that the server
that is running is the configuration that was reviewed.

Nothing here imports the server itself; the SDK is imported only when a live server is
read, so predicting and comparing work without it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from ...errors import LocalfsError

if TYPE_CHECKING:  # hints only: the engine and the catalog load on use
    from ...catalog import Catalog
    from ...server import LiveTarget
    from .policy import Policy

__all__ = [
    "AUTH_STATUS_URI",
    "LiveServer",
    "MissingExtraError",
    "Prediction",
    "ServerUnreachableError",
    "VerifyDifference",
    "VerifyReport",
    "compare",
    "predict",
    "read_http",
    "read_stdio",
    "transport_for_command",
    "transport_for_url",
    "verify_policy",
]

AUTH_STATUS_URI = "server://auth-status"
_EXTRA_HINT = "pip install 'localfs-explorer[verify]'"


class ServerUnreachableError(LocalfsError):
    """The live server could not be asked: not listening, refused us, or said nonsense."""


class MissingExtraError(ServerUnreachableError):
    """The MCP SDK, needed to talk to a live server, is not installed."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LiveServer(_Model):
    """What a running server reported about itself."""

    #: How it was reached: the URL, or the command line it was started with.
    source: str
    transport: str
    #: The server's name and version from the MCP handshake, as it gave them.
    server_name: str = ""
    server_version: str = ""
    #: Every tool ``tools/list`` returned, sorted.
    tools: list[str]
    #: ``server://auth-status``'s ``local_file_access`` object, as reported.
    local_file_access: dict[str, Any]


class Prediction(_Model):
    """What the explorer expects the same server to report."""

    transport: str
    serves: bool
    exit_message: str | None = None
    local_file_access: dict[str, Any]
    #: Catalog tools the server registers under this configuration.
    registered: list[str]
    #: Catalog tools it leaves out (off mode or ``ENABLED_TOOLS``).
    not_registered: list[str]
    #: The parsed ``ENABLED_TOOLS`` (sorted), None when every tool is enabled.
    enabled_tools: list[str] | None = None
    catalog: list[str] = Field(default_factory=list)
    #: The server release the explorer's engine reproduces (from the server profile).
    reproduces: str = ""


class VerifyDifference(_Model):
    """One way the live server differs from the prediction."""

    #: ``serves``, ``mode``, ``explicit``, ``roots``, ``unregistered_tools`` or
    #: ``registered_tools``.
    field: str
    #: The tool concerned, for ``registered_tools``.
    tool: str | None = None
    expected: Any = None
    actual: Any = None
    message: str


class VerifyReport(_Model):
    """The outcome of one comparison."""

    agree: bool
    differences: list[VerifyDifference]
    prediction: Prediction
    live: LiveServer
    #: Tools the server lists that the explorer's catalog doesn't describe; not
    #: differences (the catalog covers the tools the local-file policy concerns).
    uncatalogued: list[str] = Field(default_factory=list)
    #: The status fields compared one by one, in report order (the server's
    #: :attr:`~localfs_explorer.server.Server.live_fields`).
    fields: list[str] = Field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def to_dict(self) -> dict[str, Any]:
        """The whole report, JSON-ready (``verify --json``)."""
        return self.to_json_dict()

    def lines(self) -> list[str]:
        """The report for people: each status field, the tools, each difference."""
        live, prediction = self.live, self.prediction
        out = [f"server:   {live.source} ({live.transport})"]
        if prediction.reproduces:
            out.append(f"explorer: reproduces {prediction.reproduces}")
        lfa = live.local_file_access
        differing = {d.field for d in self.differences}
        for name in self.fields:
            mark = "DIFF" if name in differing else "same"
            out.append(f"  {mark}  {name}: {json.dumps(lfa.get(name), ensure_ascii=False)}")
        tool_diffs = [d for d in self.differences if d.field == "registered_tools"]
        mark = "DIFF" if tool_diffs else "same"
        out.append(f"  {mark}  registered tools: {len(live.tools)} listed by the server, "
                   f"{len(prediction.registered)} of the catalog's {len(prediction.catalog)} "
                   "predicted")
        if self.uncatalogued:
            out.append(f"  note  {len(self.uncatalogued)} listed tools are outside the "
                       "catalog (allowed by ENABLED_TOOLS; not compared further)")
        out += [f"difference: {d.message}" for d in self.differences
                if d.field != "registered_tools"]
        missing = [d.tool for d in tool_diffs if d.actual == "absent"]
        extra = [d.tool for d in tool_diffs if d.actual == "registered"]
        if missing:
            out.append("difference: predicted registered, not listed by the server: "
                       f"{_names(missing)}")
        if extra:
            out.append("difference: listed by the server, predicted not registered: "
                       f"{_names(extra)}")
        if self.agree:
            out.append("the server agrees with the explorer")
        else:
            n = len(self.differences)  # each tool counts once
            out.append(f"{n} difference{'s' if n != 1 else ''}: the running server is not "
                       "the configuration given")
        return out


def _names(names: list[Any], shown: int = 12) -> str:
    text = ", ".join(str(n) for n in names[:shown])
    more = len(names) - shown
    return f"{text} and {more} more (--json lists all)" if more > 0 else text


# --- Which transport ---------------------------------------------------------------------


def transport_for_url(url: str) -> str:
    """The transport a server URL speaks: ``sse`` for a path ending in ``/sse``, else
    ``streamable-http`` (the server's ``/mcp``)."""
    path = urlsplit(url).path.rstrip("/")
    return "sse" if path.endswith("/sse") else "streamable-http"


def transport_for_command(argv: Sequence[str]) -> str:
    """The ``--transport`` a server command line selects (the last one given), or
    ``stdio`` when it names none, as the server reads its own argv."""
    transport = "stdio"
    for i, arg in enumerate(argv):
        if arg == "--transport" and i + 1 < len(argv):
            transport = argv[i + 1]
    return transport


# --- The prediction ----------------------------------------------------------------------


def predict(policy: Policy, catalog: Catalog | None = None) -> Prediction:
    """The explorer's answer for ``policy``: what its server's
    :meth:`~localfs_explorer.server.Server.predict` says a running instance reports."""
    from ...server import server_of

    return Prediction.model_validate(server_of(policy).predict(policy, catalog))


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def compare(prediction: Prediction, live: LiveServer,
            fields: Sequence[str] | None = None) -> tuple[list[VerifyDifference], list[str]]:
    """Each difference between ``prediction`` and ``live``, and the live tools the
    catalog doesn't describe.

    ``fields`` are the status fields compared one by one (the server's
    :attr:`~localfs_explorer.server.Server.live_fields`; None: the default server's).

    ``unregistered_tools`` is compared as a set (the server sorts it). A catalog tool is
    a difference when the server lists it and the prediction doesn't, or the other way
    round. A tool outside the catalog can only be predicted from ``ENABLED_TOOLS``: one
    the server lists though ``ENABLED_TOOLS`` leaves it out is a difference; the others
    are returned separately.
    """
    if fields is None:
        from ...server import get_server

        fields = get_server().live_fields
    diffs: list[VerifyDifference] = []
    if not prediction.serves:
        diffs.append(VerifyDifference(
            field="serves", expected=False, actual=True,
            message="the explorer predicts the server refuses to start "
            f"({prediction.exit_message}), but it is serving",
        ))
    expected_lfa, actual_lfa = prediction.local_file_access, live.local_file_access
    for name in fields:
        want, got = expected_lfa.get(name), actual_lfa.get(name)
        if name == "unregistered_tools" and isinstance(got, list):
            want, got = sorted(want or []), sorted(got)
        if want != got:
            message = (f"{name}: the explorer predicts {_shown(want)}, "
                       f"the server reports {_shown(got)}")
            if (name == "mode" and got == "full" and actual_lfa.get("explicit") is False
                    and prediction.transport != "stdio"):
                message += (" (a defaulted full: the server was started without "
                            "--transport, e.g. by uvicorn directly, so it resolved as for "
                            "stdio; its tripwire still refuses local files to HTTP "
                            "requests; --transport stdio predicts it)")
            diffs.append(VerifyDifference(field=name, expected=want, actual=got, message=message))
    live_tools = set(live.tools)
    catalog = set(prediction.catalog)
    for tool in prediction.registered:
        if tool not in live_tools:
            diffs.append(VerifyDifference(
                field="registered_tools", tool=tool, expected="registered", actual="absent",
                message=f"{tool}: the explorer predicts it is registered, "
                "the server doesn't list it",
            ))
    absent = set(prediction.not_registered)
    enabled = set(prediction.enabled_tools) if prediction.enabled_tools is not None else None
    uncatalogued: list[str] = []
    for tool in sorted(live_tools):
        if tool in absent:
            diffs.append(VerifyDifference(
                field="registered_tools", tool=tool, expected="absent", actual="registered",
                message=f"{tool}: the explorer predicts it is not registered "
                f"({_absence_reason(tool, prediction)}), the server lists it",
            ))
        elif tool not in catalog:
            if enabled is not None and tool not in enabled:
                diffs.append(VerifyDifference(
                    field="registered_tools", tool=tool, expected="absent",
                    actual="registered",
                    message=f"{tool}: not in ENABLED_TOOLS, yet the server lists it",
                ))
            else:
                uncatalogued.append(tool)
    return diffs, uncatalogued


def _absence_reason(tool: str, prediction: Prediction) -> str:
    if prediction.enabled_tools is not None and tool not in prediction.enabled_tools:
        return "not in ENABLED_TOOLS"
    return "local-only, and local file access is off"


def verify_policy(
    policy: Policy, live: LiveServer, catalog: Catalog | None = None
) -> VerifyReport:
    """Compare ``live`` with the prediction for ``policy``, field by field as its server
    names them (:attr:`~localfs_explorer.server.Server.live_fields`)."""
    from ...server import server_of

    fields = server_of(policy).live_fields
    prediction = predict(policy, catalog)
    diffs, uncatalogued = compare(prediction, live, fields)
    return VerifyReport(
        agree=not diffs, differences=diffs, prediction=prediction, live=live,
        uncatalogued=uncatalogued, fields=list(fields),
    )


def verify_target(policy: Policy, target: LiveTarget,
                  catalog: Catalog | None = None) -> VerifyReport:
    """:meth:`GeeSweetServer.verify`: read the server at ``target`` (its URL, else its
    command line) and compare it with ``policy``'s prediction."""
    from ...server import LiveError

    timeout = target.timeout if target.timeout is not None else 15.0
    try:
        if target.url:
            live = read_http(target.url, token=target.token, timeout=timeout)
        else:
            live = read_stdio(list(target.argv or ()), env=target.env, cwd=target.cwd,
                              timeout=timeout)
    except ServerUnreachableError as exc:
        raise LiveError(f"can't read the server: {exc}") from None
    return verify_policy(policy, live, catalog)


# --- Reading a live server ---------------------------------------------------------------


def _shown_url(url: str) -> str:
    """``url`` with any password in it masked."""
    from ...secrets import MASK

    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", f":{MASK}@", 1)
    return parts._replace(netloc=netloc).geturl()


def _secret_option(word: str) -> bool:
    from ...secrets import is_secret_key

    return word.startswith("-") and is_secret_key(word.lstrip("-").replace("-", "_"))


def _shown_command(argv: Sequence[str]) -> tuple[str, set[str]]:
    """``argv`` as it may be shown, and the secret values masked in it: the value of a
    ``KEY=VALUE`` word with a secret key and of a secret-named option (``--token X``,
    ``--api-key=X``)."""
    from ...secrets import MASK, is_secret_key

    shown: list[str] = []
    hidden: set[str] = set()
    previous = ""
    for word in argv:
        key, sep, value = word.partition("=")
        if _secret_option(previous) and "=" not in previous:
            hidden.add(word)
            word = MASK
        elif sep and (_secret_option(key) or (not key.startswith("-") and is_secret_key(key))):
            hidden.add(value)
            word = f"{key}={MASK}"
        shown.append(word)
        previous = word
    # Masked words are shown as they are; quoting would wrap the mask in quotes.
    text = " ".join(w if MASK in w else shlex.quote(w) for w in shown)
    return text, {h for h in hidden if h}


def _sdk() -> Any:
    try:
        import anyio  # noqa: F401  (the SDK's own dependency)
        from mcp.client.session import ClientSession
    except ImportError:
        raise MissingExtraError(
            f"talking to a live server needs the MCP SDK: {_EXTRA_HINT}"
        ) from None
    return ClientSession


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while (inner := getattr(exc, "exceptions", None)) and isinstance(inner[0], BaseException):
        exc = inner[0]
    return exc


def _describe(exc: BaseException) -> str:
    exc = _leaf(exc)
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    if status == 401:
        return "HTTP 401: the server wants a bearer token (or refused the one given)"
    if status is not None:
        return f"HTTP {status}"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if type(exc).__name__ not in text else text


async def _ask(session: Any, source: str, transport: str) -> LiveServer:
    init = await session.initialize()
    info = getattr(init, "server_info", None) or getattr(init, "serverInfo", None)
    tools: list[str] = []
    cursor = None
    for _ in range(1000):  # a paginating server ends; a looping one must not hang us
        params = None
        if cursor:
            from mcp import types

            params = types.PaginatedRequestParams(cursor=cursor)
        page = await session.list_tools(params=params)
        tools.extend(t.name for t in page.tools)
        cursor = getattr(page, "next_cursor", None) or getattr(page, "nextCursor", None)
        if not cursor:
            break
    resource = await session.read_resource(AUTH_STATUS_URI)
    texts = [getattr(c, "text", None) for c in resource.contents]
    text = next((t for t in texts if isinstance(t, str)), None)
    if text is None:
        raise ServerUnreachableError(f"{AUTH_STATUS_URI} returned no text")
    try:
        status = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ServerUnreachableError(f"{AUTH_STATUS_URI} is not JSON ({exc.msg})") from None
    lfa = status.get("local_file_access") if isinstance(status, Mapping) else None
    if not isinstance(lfa, Mapping):
        raise ServerUnreachableError(
            f"{AUTH_STATUS_URI} has no local_file_access object: this server doesn't "
            "report its local-file policy"
        )
    return LiveServer(
        source=source, transport=transport,
        server_name=str(getattr(info, "name", "") or ""),
        server_version=str(getattr(info, "version", "") or ""),
        tools=sorted(set(tools)), local_file_access=dict(lfa),
    )


def _run(coro_fn: Any, what: str, timeout: float, why: Any = None,
         hidden: set[str] | frozenset[str] = frozenset()) -> LiveServer:
    """Run ``coro_fn`` under ``timeout``; any failure becomes one line naming ``what``
    and the reason: ``why()`` when it knows one (an HTTP status, the server's last
    word), else the error itself. No value in ``hidden`` survives into the line."""
    from ...secrets import scrub

    try:
        return _run_raw(coro_fn, what, timeout, why)
    except ServerUnreachableError as exc:
        raise type(exc)(scrub(str(exc), hidden)) from None


def _run_raw(coro_fn: Any, what: str, timeout: float, why: Any) -> LiveServer:
    import anyio

    async def bounded() -> LiveServer:
        with anyio.fail_after(timeout):
            return await coro_fn()

    try:
        return anyio.run(bounded)
    except ServerUnreachableError:
        raise
    except TimeoutError:
        raise ServerUnreachableError(f"{what}: no answer within {timeout:g} s") from None
    except Exception as exc:  # the SDK and its HTTP client raise many kinds
        leaf = _leaf(exc)
        if isinstance(leaf, ServerUnreachableError):
            raise leaf from None
        if isinstance(leaf, TimeoutError):
            raise ServerUnreachableError(f"{what}: no answer within {timeout:g} s") from None
        reason = (why() if why is not None else "") or _describe(exc)
        raise ServerUnreachableError(f"{what}: {reason}") from None


def read_http(url: str, *, token: str | None = None, timeout: float = 15.0) -> LiveServer:
    """Ask the server at ``url`` (``…/mcp`` streamable HTTP, ``…/sse`` SSE).

    ``token`` is sent as ``Authorization: Bearer``; it is never part of any message.
    Raises :class:`ServerUnreachableError` with a one-line reason when it can't.
    """
    try:
        parts = urlsplit(url)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
        shown, password = _shown_url(url), parts.password
    except ValueError:
        valid = False
    if not valid:
        raise ServerUnreachableError(
            "the server URL must be an http:// or https:// URL with a host")
    ClientSession = _sdk()
    transport = transport_for_url(url)
    hidden = {h for h in (password, token) if h}
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    # The SDK turns an HTTP error into a generic one; the status is the useful part.
    refused: list[int] = []

    async def note_status(response: Any) -> None:
        if response.status_code >= 400:
            refused.append(response.status_code)

    def why() -> str:
        if not refused:
            return ""
        status = refused[0]
        if status == 401:
            return ("HTTP 401: the server wants a bearer token" if not token
                    else "HTTP 401: the server refused the bearer token")
        return f"HTTP {status}"

    async def ask() -> LiveServer:
        if transport == "sse":
            from mcp.client.sse import sse_client

            async with (
                sse_client(url, headers=headers, timeout=timeout) as streams,
                ClientSession(streams[0], streams[1]) as session,
            ):
                return await _ask(session, shown, transport)
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        client = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(timeout),
                                    event_hooks={"response": [note_status]})
        async with (
            client,
            streamable_http_client(url, http_client=client) as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            return await _ask(session, shown, transport)

    return _run(ask, shown, timeout, why, hidden)


def read_stdio(
    command: str | Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    timeout: float = 30.0,
) -> LiveServer:
    """Start ``command`` (a stdio server), ask it, and stop it.

    ``env`` is its environment (default: this process's own), over the SDK's few
    defaults (``PATH``, ``HOME`` and the like). When it fails to answer, the last line
    it wrote to stderr is the reason given.
    """
    import os
    import tempfile

    argv = shlex.split(command) if isinstance(command, str) else list(command)
    if not argv:
        raise ServerUnreachableError("the server command is empty")
    ClientSession = _sdk()
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from ...secrets import scrub, secret_values

    shown, hidden = _shown_command(argv)
    server_env = dict(env) if env is not None else dict(os.environ)
    hidden |= secret_values(server_env)
    params = StdioServerParameters(
        command=argv[0], args=argv[1:], env=server_env, cwd=cwd,
    )

    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:

        async def ask() -> LiveServer:
            async with (
                stdio_client(params, errlog=log) as streams,
                ClientSession(streams[0], streams[1]) as session,
            ):
                return await _ask(session, shown, transport_for_command(argv))

        def last_line() -> str:
            log.flush()
            log.seek(0)
            lines = [line.strip() for line in log.read().splitlines() if line.strip()]
            return f"it said: {scrub(lines[-1], hidden)[:300]}" if lines else ""

        return _run(ask, shown, timeout, last_line, hidden)
