"""Shareable configurations: the command line that reproduces a screen, and a URL query.

A configuration here is the dashboard model's options (``env_path``, ``overrides``,
``unset``, ``transport``, ``target``, ``cwd``, ``package_dir``, ``platform``, ``lenient``,
``paths_text``, ``op``, and which server answers: ``server``, ``server_version`` and the
server's own ``server_options`` -- for server-filesystem its allowed directories, the
MCP roots its client advertises (or that it advertises none) and its ``HOME``).
:func:`command_line` turns them into a ``localfs-explorer`` command; :func:`query_string`
and :func:`options_from_query` carry them in a URL, so
``http://127.0.0.1:8866/?transport=sse&set=LOCAL_FILE_ACCESS%3Droots`` opens the served
dashboard on that configuration (Voila hands the page's query to the kernel in the
``QUERY_STRING`` environment variable).

Secret values never leave: a setting secret by its name, by its value (a URL with a
password) or because its value holds another secret's value (a root built from a token)
is left out of both, named in a trailing comment of the command, and refused when a URL
carries it; any other word holding a known secret (a directory, a path) is left out of
the link and shown as ``<secret>`` in the command. Known secrets are those the page
has been told to hide (:func:`~localfs_explorer.secrets.hide_everywhere`) and the
secret settings' own values.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode

from ..secrets import (
    MIN_SCRUB_LENGTH,
    hidden_values,
    holds_secret,
    is_secret_key,
    is_secret_setting,
    scrub,
)
from ..server import DEFAULT_SERVER
from ..vocab import OPS, TRANSPORTS

HOST_TARGET = "host"
EXAMPLE_PREFIX = "example:"
UPLOAD_TARGET = "upload"
PLATFORMS = ("posix", "windows")

#: Query keys the dashboard accepts; ``set``, ``unset``, ``path``, ``dir`` and ``root``
#: may repeat. ``server``, ``server_version``, ``dir`` (an allowed directory, in order),
#: ``roots=1`` (the client advertises MCP roots, even none), ``root`` (one of them) and
#: ``home`` carry the server's own settings.
QUERY_KEYS = ("transport", "fs", "cwd", "package_dir", "platform", "lenient", "op", "set",
              "unset", "path", "server", "server_version", "dir", "roots", "root", "home",
              "dotenv", "secret", "secret_process", "missing")

#: The model options a shared configuration carries.
OPTION_NAMES = ("env_path", "env_name", "env_text", "overrides", "unset", "transport",
                "target", "spec_name", "cwd", "package_dir", "platform", "lenient",
                "paths_text", "op", "server", "server_version", "server_options")


def model_options(model: Any) -> dict[str, Any]:
    """The shareable options of a dashboard model (or any object with those attributes)."""
    return {name: getattr(model, name) for name in OPTION_NAMES if hasattr(model, name)}


def _server_argv(options: Mapping[str, Any]) -> list[str]:
    """``--server`` and the server's own settings as its command-line options say them."""
    server = options.get("server") or DEFAULT_SERVER
    version = options.get("server_version") or ""
    if server == DEFAULT_SERVER and not version:
        return []
    argv = ["--server", server]
    if version:
        argv += ["--server-version", version]
    own = options.get("server_options") or {}
    for directory in own.get("directories") or ():
        argv += ["--allowed-dir", str(directory)]
    for root in own.get("roots") or ():
        argv += ["--root", str(root)]
    if own.get("home") is not None:
        argv += ["--home", str(own["home"])]
    return argv


def _server_pairs(options: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The query pairs naming the server and its own settings."""
    pairs: list[tuple[str, str]] = []
    server = options.get("server") or DEFAULT_SERVER
    if server != DEFAULT_SERVER:
        pairs.append(("server", server))
    if options.get("server_version"):
        pairs.append(("server_version", options["server_version"]))
    own = options.get("server_options") or {}
    pairs += [("dir", str(d)) for d in own.get("directories") or ()]
    roots = own.get("roots")
    if roots is not None:
        # Advertised, even with no root at all: an empty list is not "no capability".
        pairs.append(("roots", "1"))
        pairs += [("root", str(r)) for r in roots]
    if own.get("home") is not None:
        pairs.append(("home", str(own["home"])))
    return pairs


#: What stands for a secret inside a word of a command to copy.
PLACEHOLDER = "<secret>"


def known_secrets(options: Mapping[str, Any],
                  secrets: Iterable[str] | None = None) -> frozenset[str]:
    """The secret values ``options`` must not carry: ``secrets`` (default: every value
    the page hides) and the values of its secret overrides."""
    bag = set(hidden_values() if secrets is None else secrets)
    bag |= {str(v) for k, v in options.get("overrides") or () if is_secret_setting(k, v)}
    return frozenset(v for v in bag if v and len(v) >= MIN_SCRUB_LENGTH)


def _overrides(options: Mapping[str, Any], known: frozenset[str] = frozenset()
               ) -> tuple[list[tuple[str, str]], list[str]]:
    """(kept, secret keys left out) of the options' overrides: secret by name, by value,
    or holding a known secret's value."""
    kept, secret = [], []
    for key, value in options.get("overrides") or ():
        if is_secret_setting(key, value) or holds_secret(str(value), known):
            secret.append(key)
        else:
            kept.append((key, value))
    return kept, secret


def _paths(options: Mapping[str, Any]) -> list[str]:
    return [p for p in str(options.get("paths_text") or "").splitlines() if p.strip()]


def command_line(options: Mapping[str, Any], command: str = "check", *,
                 secrets: Iterable[str] | None = None) -> str:
    """The ``localfs-explorer`` command reproducing ``options`` (secrets left out, see
    :func:`known_secrets` for ``secrets``).

    An uploaded ``.env`` or host spec is named by its file name, which the person running
    the command is expected to have beside them.
    """
    known = known_secrets(options, secrets)
    argv = ["localfs-explorer", command]
    env = options.get("env_path") or (options.get("env_name") if options.get("env_text")
                                      is not None else "")
    if env:
        argv += ["--env", env]
    if options.get("lenient"):
        argv.append("--lenient")
    kept, secret = _overrides(options, known)
    for key, value in kept:
        argv += ["--set", f"{key}={value}"]
    for key in options.get("unset") or ():
        argv += ["--unset", key]
    transport = options.get("transport") or "stdio"
    if transport != "stdio":
        argv += ["--transport", transport]
    target = options.get("target") or HOST_TARGET
    if target.startswith(EXAMPLE_PREFIX):
        argv += ["--fs", target[len(EXAMPLE_PREFIX):]]
    elif target == UPLOAD_TARGET and options.get("spec_name"):
        argv += ["--fs", options["spec_name"]]
    for name, flag in (("cwd", "--cwd"), ("package_dir", "--package-dir")):
        if options.get(name):
            argv += [flag, options[name]]
    if (options.get("platform") or "posix") != "posix":
        argv += ["--platform", options["platform"]]
    argv += _server_argv(options)
    if command == "check":
        op = options.get("op") or "read"
        if op != "read":
            argv += ["--op", op]
        paths = _paths(options)
        if paths:
            argv.append("--")
            argv += paths
    line = shlex.join(scrub(word, known, PLACEHOLDER) for word in argv)
    if secret:
        line += f"  # left out (secret): {', '.join(sorted(set(secret)))}"
    return line


def query_string(options: Mapping[str, Any], *, secrets: Iterable[str] | None = None) -> str:
    """A URL query opening the served dashboard on ``options`` (secrets and files left
    out: a part holding a secret in any spelling is not in the link at all)."""
    known = known_secrets(options, secrets)
    return urlencode([(k, v) for k, v in _query_pairs(options, known)
                      if not holds_secret(v, known)])


def _query_pairs(options: Mapping[str, Any], known: frozenset[str] = frozenset()
                 ) -> list[tuple[str, str]]:
    """The query pairs of ``options`` (non-secret overrides only), in order."""
    pairs: list[tuple[str, str]] = []
    transport = options.get("transport") or "stdio"
    if transport != "stdio":
        pairs.append(("transport", transport))
    target = options.get("target") or HOST_TARGET
    if target.startswith(EXAMPLE_PREFIX):
        pairs.append(("fs", target[len(EXAMPLE_PREFIX):]))
    for name in ("cwd", "package_dir"):
        if options.get(name):
            pairs.append((name, options[name]))
    if (options.get("platform") or "posix") != "posix":
        pairs.append(("platform", options["platform"]))
    if options.get("lenient"):
        pairs.append(("lenient", "1"))
    if (options.get("op") or "read") != "read":
        pairs.append(("op", options["op"]))
    kept, _secret = _overrides(options, known)
    pairs += [("set", f"{k}={v}") for k, v in kept]
    pairs += [("unset", k) for k in options.get("unset") or ()]
    pairs += _server_pairs(options)
    pairs += [("path", p) for p in _paths(options)]
    return pairs


def _one(values: dict[str, list[str]], key: str, allowed: Iterable[str] | None,
         problems: list[str]) -> str | None:
    given = values.get(key)
    if not given:
        return None
    value = given[-1]
    if allowed is not None and value not in allowed:
        problems.append(f"{key}={value!r} is not one of {', '.join(allowed)}")
        return None
    return value


#: Query parameters that belong to the page's server, not to the configuration: Jupyter's
#: login token and Voila's theme and template. Passed over in silence.
SERVER_QUERY_KEYS = frozenset({"token", "theme", "voila-template"})


def options_from_query(query: str) -> tuple[dict[str, Any], list[str]]:
    """Model options from a URL query, and one message per part that was ignored.

    Nothing in a query names a file of the serving machine: the ``.env`` comes from
    ``set``/``unset``, and ``fs`` names a shipped example host or ``host``.
    """
    problems: list[str] = []
    values: dict[str, list[str]] = {}
    for key, value in parse_qsl(query.lstrip("?"), keep_blank_values=True):
        if key in SERVER_QUERY_KEYS:
            continue
        if key not in QUERY_KEYS:
            problems.append(f"unknown parameter {key!r} ignored")
            continue
        values.setdefault(key, []).append(value)
    options: dict[str, Any] = {}
    transport = _one(values, "transport", TRANSPORTS, problems)
    if transport:
        options["transport"] = transport
    platform = _one(values, "platform", PLATFORMS, problems)
    if platform:
        options["platform"] = platform
    op = _one(values, "op", OPS, problems)
    if op:
        options["op"] = op
    fs = _one(values, "fs", None, problems)
    if fs:
        from ..fs.spec import list_example_hosts

        if fs == HOST_TARGET:
            options["target"] = HOST_TARGET
        elif fs in list_example_hosts():
            options["target"] = EXAMPLE_PREFIX + fs
        else:
            problems.append(f"fs={fs!r} is neither 'host' nor a shipped example host")
    for name in ("cwd", "package_dir"):
        given = _one(values, name, None, problems)
        if given:
            options[name] = given
    if _one(values, "lenient", None, problems) in ("1", "true", "yes"):
        options["lenient"] = True
    overrides = []
    for item in values.get("set", []):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            problems.append(f"set={item!r} is not KEY=VALUE")
        elif is_secret_key(key.strip()):
            problems.append(f"{key.strip()} is a secret setting: not taken from a URL")
        else:
            overrides.append((key.strip(), value))
    if overrides:
        options["overrides"] = overrides
    if values.get("unset"):
        options["unset"] = [k.strip() for k in values["unset"] if k.strip()]
    if values.get("path"):
        options["paths_text"] = "\n".join(values["path"])
    options.update(_server_from_query(values, problems))
    page = _page_from_query(values, problems)
    if page.get("overrides"):
        page["overrides"] = [*options.get("overrides", []), *page["overrides"]]
    options.update(page)
    return options, problems


#: What stands in for a secret setting a link could not carry, until the recipient fills
#: it in: present, so that what depends on the setting being there answers as it did.
def secret_placeholder(key: str) -> str:
    """The value standing in for secret setting ``key`` on a page opened from a link."""
    return f"<your {key}>"


def _page_from_query(values: dict[str, list[str]], problems: list[str]) -> dict[str, Any]:
    """The ``.env`` the sender's page used (``dotenv``), the secret settings it left out
    (``secret`` in the file, ``secret_process`` in the process environment: each stands
    in as a placeholder the recipient is asked to fill) and what it could not carry
    (``missing``)."""
    out: dict[str, Any] = {}
    edits: dict[str, Any] = {}
    for item in values.get("dotenv", []):
        if item == "":
            continue  # the sender's page had an empty .env, or none: nothing to set
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            problems.append(f"dotenv={item!r} is not KEY=VALUE")
        elif is_secret_key(key):
            problems.append(f"{key} is a secret setting: not taken from a URL")
        else:
            edits[key] = value
    asked: list[str] = []
    process: list[tuple[str, str]] = []
    for name in ("secret", "secret_process"):
        for key in (k.strip() for k in values.get(name, [])):
            if not _KEY.fullmatch(key):
                problems.append(f"{name}={key!r} is not a setting's name")
                continue
            asked.append(key)
            if name == "secret":
                edits[key] = secret_placeholder(key)
            else:
                process.append((key, secret_placeholder(key)))
    if "dotenv" in values or "secret" in values:
        # The link carries the whole .env the sender's page used: a file this page was
        # started with must not add settings the sender never had.
        out.update(env_path="", env_text=None, env_name="", file_edits=edits)
    if process:
        out["overrides"] = process
    if asked:
        out["link_secrets"] = asked
    missing = [m for m in values.get("missing", []) if m.strip()]
    if missing:
        out["link_missing"] = missing
    return out


_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")


def page_query(model: Any) -> tuple[str, list[str]]:
    """A URL query carrying every non-secret setting ``model``'s page uses, and what it
    could not carry (said on both pages).

    Unlike :func:`query_string` it carries the settings themselves, not the name of a
    file the recipient may not have: the ``.env`` as the page read it (the policy bar's
    edits in, ``${VAR}`` references expanded as the server expands them), the process
    environment, and the directories the page assumed (startup and package directory)
    spelled out. A secret setting travels as its name only (a placeholder the recipient
    fills in); a word holding a secret is left out and named in ``missing``.
    """
    options = model_options(model)
    known = known_secrets(options)
    pairs: list[tuple[str, str]] = []
    missing: list[str] = []
    policy = getattr(model, "policy", None)
    env = getattr(model, "env", None)
    cwd = str(options.get("cwd") or "").strip() or str(getattr(policy, "cwd", "") or "")
    package_dir = (str(options.get("package_dir") or "").strip()
                   or str(getattr(policy, "package_dir", "") or ""))
    page = {**options, "cwd": cwd, "package_dir": package_dir, "overrides": ()}
    target = options.get("target") or HOST_TARGET
    if target == UPLOAD_TARGET:
        missing.append(f"the uploaded host description {options.get('spec_name') or ''}"
                       .strip() + ": upload it again")
    for key, value in _query_pairs(page):
        if holds_secret(value, known):
            missing.append(f"{key} (it holds a secret)")
        else:
            pairs.append((key, value))
    process = {k for k, _v in options.get("overrides") or () if k}
    if env is not None:
        for key, value in env.values.items():
            if key in env.from_process or key in process:
                continue
            if is_secret_setting(key, value) or holds_secret(value, known):
                pairs.append(("secret", key))
            else:
                pairs.append(("dotenv", f"{key}={value}"))
    if not any(k in ("dotenv", "secret") for k, _v in pairs):
        # Said even when empty: the page the link opens must not keep a .env of its own.
        pairs.append(("dotenv", ""))
    for key, value in options.get("overrides") or ():
        if not key:
            continue
        if is_secret_setting(key, value) or holds_secret(str(value), known):
            pairs.append(("secret_process", key))
        else:
            pairs.append(("set", f"{key}={value}"))
    if env is None and (options.get("env_path") or options.get("env_text") is not None):
        missing.append("the .env's settings (it could not be read)")
    pairs += [("missing", m) for m in missing]
    return urlencode(pairs), missing


def _server_from_query(values: dict[str, list[str]], problems: list[str]) -> dict[str, Any]:
    """``server``, ``server_version`` and ``server_options`` from a query's values, each
    checked by the server itself (an unknown server, release or setting is a problem)."""
    from ..server import ServerError, get_server, list_servers

    out: dict[str, Any] = {}
    server = _one(values, "server", list_servers(), problems) or DEFAULT_SERVER
    if server != DEFAULT_SERVER:
        out["server"] = server
    version = _one(values, "server_version", get_server(server).versions, problems)
    if version:
        out["server_version"] = version
    own: dict[str, Any] = {}
    if values.get("dir"):
        own["directories"] = [d for d in values["dir"] if d]
    advertised = _one(values, "roots", ("1", "0"), problems)
    if values.get("root") or advertised == "1":
        own["roots"] = [r for r in values.get("root", []) if r]
    home = _one(values, "home", None, problems)
    if home:
        own["home"] = home
    if own:
        try:
            get_server(server).options(own)
        except ServerError as exc:
            given = ", ".join(k for k in ("dir", "root", "roots", "home") if values.get(k))
            problems.append(f"{given} ignored: {exc}")
        else:
            out["server_options"] = own
    return out
