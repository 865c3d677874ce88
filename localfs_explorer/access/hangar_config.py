"""Read an mcp-hangar configuration (YAML) into the tool access policies it registers.

What is read is what hangar 2.34.4's loader turns into tool access policies:

- ``mcp_servers.<id>.tools``: a mapping is the server's policy block; a list is the
  server's tool schemas (their names are the server's catalog here);
- ``mcp_servers.<id>.tool_access.member.<tenant>``: a per-tenant block on a server;
- ``mcp_servers.<group>`` with ``mode: group``: its ``tools`` block, and ``members``
  (each ``id`` names a declared server, or defines one inline); a member entry's own
  ``tools`` block is the member scope, and only a member with such a block is mapped
  to its server's policy for calls through the group (hangar's rule, not the
  documented one);
- ``tool_access.mode`` (``egress`` or ``front_door``) and ``approvals.channel`` (the
  channel an approval uses when its policy names none; ``event_stream`` by default).

Refused, as hangar refuses them, each as one ``FILE:LINE: what`` line: a block key no
policy reads, a pattern list written as one string (hangar would read its letters), a
blank pattern, a timeout that is not a whole number above 0, a blank channel, a block
that is not a mapping, an unknown topology mode, approval lists on prompt or resource
policies, a member that names no server. Keys no reader of hangar looks at anywhere
in the sections it knows are refused too: hangar's own ``config check`` (and a boot
with ``HANGAR_CONFIG_STRICT=1``) refuses them, a plain boot warns and ignores them.
Every pattern hangar's loader accepts is accepted: it only asks for a non-blank
string, so ``/*``, ``[!]]*`` and ``Read File`` are all patterns here.

Servers whose id hangar skips (not starting with a letter, characters other than
letters, digits, ``-`` and ``_``, over 64 characters) are skipped with a warning,
as hangar skips them; ``_global`` is among them, which is why the ``_global`` policy
(set at run time by hangar's agent) is given to :func:`read_hangar` separately.
``${VAR}`` and ``${VAR:-default}`` in values are filled from the environment given,
as hangar fills them before reading anything.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..secrets import is_secret_setting, note_secret_values, scrub
from ..userfiles import read_text
from .hangar_policy import DEFAULT_TIMEOUT, ScopeBlock
from .lists import AccessListError
from .yaml_lines import LineDict, LineList, YamlProblem, load_with_lines

__all__ = [
    "DEFAULT_CHANNEL",
    "HangarConfig",
    "HangarConfigError",
    "load_hangar",
    "read_hangar",
]

#: The approvals channel when the configuration names none, and old names still read.
DEFAULT_CHANNEL = "event_stream"
_CHANNEL_ALIASES = {"dashboard": "event_stream"}
TOPOLOGY_MODES = ("egress", "front_door")

_POLICY_KEYS = ("allow_list", "deny_list", "approval_list", "approval_timeout_seconds",
                "approval_channel")
_LISTS = ("allow_list", "deny_list", "approval_list")
_HINTS = {"allow": "allow_list", "allowed": "allow_list", "deny": "deny_list",
          "denied": "deny_list", "block": "deny_list", "approve": "approval_list",
          "approval": "approval_list", "approvals": "approval_list",
          "require_approval": "approval_list", "timeout": "approval_timeout_seconds",
          "approval_timeout": "approval_timeout_seconds"}
_ACCESS_KINDS = ("prompt", "resource")

# The keys of a server or group spec hangar reads (its config schema's list).
_SPEC_KEYS = frozenset({
    "access", "args", "auth", "auto_start", "build", "canary", "capabilities",
    "circuit_breaker", "command", "description", "endpoint", "env", "header_exposure",
    "health", "health_check_interval_s", "http", "idle_ttl_s", "image", "max_concurrency",
    "max_consecutive_failures", "max_response_bytes", "members", "min_healthy", "mode",
    "network", "network_mode", "read_only", "resources", "strategy", "tls", "tool_access",
    "tool_projection", "tools", "transport", "user", "volumes",
})
# Top-level sections and their keys (None: an open map hangar does not check).
_SECTIONS: dict[str, frozenset[str] | None] = {
    "mcp_servers": None,
    "approvals": frozenset({"channel", "delivery", "enabled", "slack", "webhook"}),
    "auth": frozenset({"allow_anonymous", "api_key", "enabled", "oidc", "opa", "rate_limit",
                       "role_assignments", "stdio", "storage"}),
    "config_reload": frozenset({"enabled", "interval_s", "use_watchdog"}),
    "coordination": frozenset({"lease_ttl_s", "renew_deadline_s", "renew_interval_s"}),
    "discovery": frozenset({"auto_register", "enabled", "lifecycle", "refresh_interval_s",
                            "security", "sources"}),
    "event_store": frozenset({"allow_memory_fallback", "driver", "enabled", "path"}),
    "execution": frozenset({"default_mcp_server_concurrency", "max_concurrency",
                            "max_response_bytes", "tenant_limits"}),
    "headers": frozenset({"param_validation"}),
    "hot_loading": frozenset({"allow_force_unverified", "cache", "enabled", "inherit_env",
                              "registry", "secrets", "trusted_namespaces"}),
    "http": frozenset({"graceful_shutdown_timeout_s"}),
    "interceptors": frozenset({"validators"}),
    "logging": frozenset({"file", "json_format", "level"}),
    "observability": frozenset({"audit", "tracing"}),
    "persistence": frozenset({"backend", "postgresql", "sqlite"}),
    "rate_limit": frozenset({"burst", "per_caller", "rps"}),
    "relay_tasks_enabled": None,
    "resource_links": frozenset({"max_per_tenant"}),
    "retry": frozenset({"default_policy", "per_mcp_server"}),
    "ssrf": frozenset({"trusted_networks"}),
    "startup_checks": frozenset({"enforce"}),
    "tool_access": frozenset({"mode", "required_catalogue"}),
    "tool_projection": frozenset({"pin_recheck_interval_s"}),
    "truncation": None,
    "ui_resources": frozenset({"tenants"}),
}
# What an inline group member must set to be a server, by mode.
_RUNS_WITH = {"subprocess": ("command",), "docker": ("image", "build"),
              "container": ("image", "build"), "remote": ("endpoint",)}
_MEMBER_ENTRY_KEYS = frozenset({"id", "weight", "priority", "tools"})
_ID = re.compile(r"[a-zA-Z][a-zA-Z0-9_-]{0,63}")
_ENV_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class HangarConfigError(AccessListError):
    """An mcp-hangar configuration hangar would refuse, or one that can't be read."""


@dataclass(frozen=True)
class HangarConfig:
    """The tool access policies one hangar configuration registers.

    The tables are keyed as hangar's resolver keys them: server blocks by server id
    (inline group members included), group blocks by group id, member blocks by
    ``(group, member)``, tenant blocks by ``(server, tenant)``. ``mapped`` holds the
    ``(group, member)`` pairs whose member entry has its own ``tools`` block: only
    for those does a call through the group read the member server's own block.
    """

    source: str
    mode: str = "egress"
    default_channel: str = DEFAULT_CHANNEL
    servers: tuple[str, ...] = ()
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    server_blocks: Mapping[str, ScopeBlock] = field(default_factory=dict)
    group_blocks: Mapping[str, ScopeBlock] = field(default_factory=dict)
    member_blocks: Mapping[tuple[str, str], ScopeBlock] = field(default_factory=dict)
    tenant_blocks: Mapping[tuple[str, str], ScopeBlock] = field(default_factory=dict)
    mapped: frozenset[tuple[str, str]] = frozenset()
    catalogs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    global_block: ScopeBlock | None = None
    lines: Mapping[str, int] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    #: Values filled in from a secret variable (``${AWS_SECRET_ACCESS_KEY}``): masked in
    #: every message, and by any view that shows a name or pattern holding one.
    secrets: frozenset[str] = field(default=frozenset(), repr=False)

    def owning_groups(self, server: str) -> tuple[str, ...]:
        """The groups that have ``server`` as a member, in configuration order."""
        return tuple(g for g, members in self.groups.items() if server in members)

    def tenants(self) -> tuple[str, ...]:
        """Every tenant some ``tool_access.member`` block names, in order."""
        return tuple(dict.fromkeys(t for _, t in self.tenant_blocks))

    def scope_count(self) -> int:
        """How many policy blocks the configuration registers."""
        return (len(self.server_blocks) + len(self.group_blocks) + len(self.member_blocks)
                + len(self.tenant_blocks) + (self.global_block is not None))


class _Reader:
    """One pass over the parsed document, collecting tables, refusing what hangar refuses."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.warnings: list[str] = []
        self.servers: list[str] = []
        self.groups: dict[str, tuple[str, ...]] = {}
        self.server_blocks: dict[str, ScopeBlock] = {}
        self.group_blocks: dict[str, ScopeBlock] = {}
        self.member_blocks: dict[tuple[str, str], ScopeBlock] = {}
        self.tenant_blocks: dict[tuple[str, str], ScopeBlock] = {}
        self.mapped: set[tuple[str, str]] = set()
        self.catalogs: dict[str, tuple[str, ...]] = {}
        self.lines: dict[str, int] = {}
        self.secrets: set[str] = set()

    def fail(self, line: int, message: str) -> HangarConfigError:
        where = f"{self.source}:{line}" if line else self.source
        return HangarConfigError(scrub(f"{where}: {message}", self.secrets))

    def warn(self, line: int, message: str) -> None:
        self.warnings.append(scrub(f"{self.source}:{line}: {message}" if line else message,
                                   self.secrets))

    # -- shapes -------------------------------------------------------------------

    def mapping(self, value: Any, line: int, what: str) -> LineDict:
        if not isinstance(value, LineDict):
            shown = "nothing" if value is None else f"{_kind(value)} {value!r}"
            raise self.fail(line, f"{what} must be a mapping, not {shown}")
        return value

    def unknown_keys(self, block: LineDict, allowed: frozenset[str], where: str) -> None:
        for key in block:
            if key not in allowed:
                raise self.fail(block.line_of(key), (
                    f"{where} has unknown key {key!r} (hangar's config check refuses it; "
                    f"allowed: {', '.join(sorted(allowed))})"))

    # -- one policy block ---------------------------------------------------------

    def policy(self, block: LineDict, where: str, label: str,
               extra_keys: tuple[str, ...] = ()) -> ScopeBlock | None:
        """A ``tools``-style block, or None when it names no pattern (as in hangar)."""
        for key in block:
            if key not in _POLICY_KEYS and key not in extra_keys:
                hint = _HINTS.get(str(key).lower())
                raise self.fail(block.line_of(key), (
                    f"{where}.{key} is not a key an access policy reads"
                    + (f" (did you mean {hint}?)" if hint else "")
                    + f"; it reads {', '.join(_POLICY_KEYS)}"))
        lists: dict[str, tuple[str, ...] | None] = {}
        for name in _LISTS:
            value = block.get(name, LineList())
            line = block.line_of(name)
            if value is None:
                lists[name] = None
                continue
            if isinstance(value, str):
                raise self.fail(line, (
                    f"{where}.{name} is one string {value!r}, not a list: hangar refuses it "
                    f"(a string would be read letter by letter); write [{value}]"))
            if not isinstance(value, list):
                raise self.fail(line, (
                    f"{where}.{name} must be a list of patterns, not "
                    f"{_kind(value)} {value!r}"))
            for index, pattern in enumerate(value):
                if not isinstance(pattern, str) or not pattern.strip():
                    item_line = value.line_of(index) if isinstance(value, LineList) else line
                    raise self.fail(item_line, (
                        f"{where}.{name}[{index}] {pattern!r} is not a pattern "
                        "(hangar takes any non-blank string)"))
            lists[name] = tuple(value)
        if not any(lists.values()):
            return None
        for name, patterns in lists.items():
            if patterns is None:
                raise self.fail(block.line_of(name), (
                    f"{where}.{name} has no value beside another list; write [] or a list"))
        timeout = block.get("approval_timeout_seconds", DEFAULT_TIMEOUT)
        if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout <= 0:
            raise self.fail(block.line_of("approval_timeout_seconds"), (
                f"{where}.approval_timeout_seconds must be a whole number of seconds above 0, "
                f"not {timeout!r}"))
        channel = block.get("approval_channel", "")
        if not isinstance(channel, str) or (channel and not channel.strip()):
            raise self.fail(block.line_of("approval_channel"), (
                f"{where}.approval_channel must be a channel name (or left out for "
                f"approvals.channel), not {channel!r}"))
        return ScopeBlock(
            label=label,
            allow_list=lists["allow_list"] or (),
            deny_list=lists["deny_list"] or (),
            approval_list=lists["approval_list"] or (),
            approval_timeout_seconds=timeout,
            approval_channel=channel,
            line=block.line,
        )

    def access_kinds(self, spec: LineDict, where: str) -> None:
        """The prompt and resource policies of an ``access`` block: checked, not answered."""
        if "access" not in spec:
            return
        access = self.mapping(spec["access"], spec.line_of("access"), f"{where}.access")
        for kind in _ACCESS_KINDS:
            if kind not in access:
                continue
            block = self.mapping(access[kind], access.line_of(kind), f"{where}.access.{kind}")
            parsed = self.policy(block, f"{where}.access.{kind}", kind)
            if parsed is not None and parsed.approval_list:
                raise self.fail(block.line_of("approval_list"), (
                    f"{where}.access.{kind}.approval_list: hangar holds only tool calls for "
                    f"approval and refuses an approval list on a {kind} policy"))

    # -- servers and groups -------------------------------------------------------

    def server(self, server_id: str, spec: LineDict, where: str) -> None:
        """A non-group server (top-level, or a group member defined inline)."""
        self.servers.append(server_id)
        self.lines[server_id] = spec.line
        tools = spec.get("tools")
        if isinstance(tools, list):
            names = []
            for index, tool in enumerate(tools):
                if not isinstance(tool, LineDict):
                    line = tools.line_of(index) if isinstance(tools, LineList) else spec.line
                    raise self.fail(line, (
                        f"{where}.tools[{index}] must be a tool schema (a mapping with a name); "
                        "an access policy is a mapping: tools: {deny_list: [...]}"))
                if isinstance(tool.get("name"), str):
                    names.append(tool["name"])
            self.catalogs[server_id] = tuple(names)
        elif "tools" in spec:
            block = self.mapping(tools, spec.line_of("tools"), f"{where}.tools")
            parsed = self.policy(block, f"{where}.tools", f"server {server_id}")
            if parsed is not None:
                self.server_blocks[server_id] = parsed
        self.access_kinds(spec, where)
        if "tool_access" in spec:
            tool_access = self.mapping(spec["tool_access"], spec.line_of("tool_access"),
                                       f"{where}.tool_access")
            if "member" in tool_access:
                tenants = self.mapping(tool_access["member"], tool_access.line_of("member"),
                                       f"{where}.tool_access.member")
                for tenant, raw in tenants.items():
                    tenant_where = f"{where}.tool_access.member.{tenant}"
                    block = self.mapping(raw, tenants.line_of(tenant), tenant_where)
                    self.access_kinds(block, tenant_where)
                    parsed = self.policy(block, tenant_where,
                                         f"tenant {tenant} on {server_id}", ("access",))
                    if parsed is not None:
                        self.tenant_blocks[(server_id, str(tenant))] = parsed

    def group(self, group_id: str, spec: LineDict, where: str) -> None:
        self.lines[group_id] = spec.line
        if "tools" in spec:
            block = self.mapping(spec["tools"], spec.line_of("tools"), f"{where}.tools")
            parsed = self.policy(block, f"{where}.tools", f"group {group_id}")
            if parsed is not None:
                self.group_blocks[group_id] = parsed
        self.access_kinds(spec, where)
        tool_access = spec.get("tool_access")
        if isinstance(tool_access, LineDict) and "member" in tool_access:
            self.warn(tool_access.line_of("member"), (
                f"{where}.tool_access.member: hangar's loader reads per-tenant blocks on "
                "servers only; on a group it accepts and ignores them"))
        members = spec.get("members", LineList())
        if not isinstance(members, list):
            raise self.fail(spec.line_of("members"), (
                f"{where}.members must be a list of member entries, not "
                f"{_kind(members)}"))
        ids: list[str] = []
        for index, entry in enumerate(members):
            line = members.line_of(index) if isinstance(members, LineList) else spec.line
            entry = self.mapping(entry, line, f"{where}.members[{index}]")
            member_id = entry.get("id")
            if not member_id:
                self.warn(line, f"{where}.members[{index}] has no id; hangar skips it")
                continue
            if not _valid_id(member_id):
                self.warn(line, f"member id {member_id!r} is not a server id hangar accepts; "
                          "hangar skips it")
                continue
            member_where = f"{where}.members.{member_id}"
            inline = member_id not in self.servers
            if inline:
                if not _defines_a_server(entry):
                    raise self.fail(line, (
                        f"group {group_id!r} member {member_id!r} names no server: no "
                        f"mcp_servers.{member_id}, and the entry does not say how to run one"))
                self.server(member_id, entry, member_where)
            else:
                ignored = sorted(set(entry) - _MEMBER_ENTRY_KEYS)
                if ignored:
                    self.warn(line, (
                        f"{member_where}: {', '.join(map(str, ignored))} ignored: a server of "
                        "this id is declared, and the member is that server"))
            if "tools" in entry and not (inline and isinstance(entry["tools"], list)):
                block = self.mapping(entry["tools"], entry.line_of("tools"),
                                     f"{member_where}.tools")
                parsed = self.policy(block, f"{member_where}.tools",
                                     f"member {member_id} of {group_id}")
                if parsed is not None:
                    self.member_blocks[(group_id, member_id)] = parsed
                    self.mapped.add((group_id, member_id))
            if member_id not in ids:
                ids.append(member_id)
        self.groups[group_id] = tuple(ids)


def _kind(value: object) -> str:
    """The YAML word for a value's type."""
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    return type(value).__name__


def _valid_id(value: object) -> bool:
    return isinstance(value, str) and _ID.fullmatch(value) is not None


def _defines_a_server(entry: LineDict) -> bool:
    mode = entry.get("mode", "subprocess")
    if not isinstance(mode, str):
        return True
    required = _RUNS_WITH.get(mode.strip().lower())
    return required is None or any(entry.get(key) for key in required)


@dataclass
class _Filler:
    """``${VAR}`` and ``${VAR:-default}`` in every string value, in place.

    The values of secret variables used (by name or value, or holding one of
    ``environ_secrets``: ``ALIAS=$AWS_SECRET_ACCESS_KEY``) are added to ``secrets``. A
    container reached again through an alias is filled once: filling it again would
    expand text a variable's value brought in, and walk it once per alias.
    """

    environ: Mapping[str, str]
    fail: Any
    secrets: set[str]
    unset_hint: str = ""
    environ_secrets: frozenset[str] = frozenset()
    seen: set[int] = field(default_factory=set)

    def fill(self, value: Any, line: int) -> Any:
        if isinstance(value, str):
            return _ENV_VAR.sub(lambda match: self.one(match, line), value)
        if isinstance(value, (LineDict, LineList)):
            if id(value) in self.seen:
                return value
            self.seen.add(id(value))
        if isinstance(value, LineDict):
            for key in list(value):
                value[key] = self.fill(value[key], value.line_of(key))
        elif isinstance(value, LineList):
            for index, item in enumerate(value):
                value[index] = self.fill(item, value.line_of(index))
        return value

    def one(self, match: re.Match[str], line: int) -> str:
        name, default = match.group(1), match.group(2)
        found = self.environ.get(name)
        if found is not None:
            if is_secret_setting(name, found) or found in self.environ_secrets:
                self.secrets.add(found)
            return found
        if default is not None:
            return default
        raise self.fail(line, f"${{{name}}} is not set and has no default "
                        f"(write ${{{name}:-default}}){self.unset_hint}")


def _check_sections(reader: _Reader, document: LineDict) -> None:
    for key in document:
        if key not in _SECTIONS:
            raise reader.fail(document.line_of(key), (
                f"unknown top-level key {key!r} (hangar's config check refuses it)"))
    for name, allowed in _SECTIONS.items():
        section = document.get(name)
        if allowed is None or not isinstance(section, LineDict):
            continue
        extra: frozenset[str] = frozenset()
        if name == "approvals" and isinstance(section.get("channel"), str):
            extra = frozenset({section["channel"]})
        if name == "tool_access" and "rules" in section:
            raise reader.fail(section.line_of("rules"), (
                "tool_access.rules was never read by hangar and was removed; tool access is "
                "set by the tools blocks of servers, groups and members"))
        reader.unknown_keys(section, allowed | extra, name)


#: What an unset variable's refusal adds when nothing is expanded (a served page).
NOTHING_EXPANDED = ("; this page expands nothing from the serving machine's environment: "
                    "write the value itself")


def read_hangar(text: str, *, source: str = "<hangar config>",
                environ: Mapping[str, str] | None = None,
                global_block: ScopeBlock | None = None,
                expand_environ: bool = True) -> HangarConfig:
    """Parse hangar configuration text into the policies it registers.

    ``global_block`` is the ``_global`` policy hangar's agent sets at run time (a
    configuration file cannot: ``_global`` is not a server id hangar accepts).
    ``expand_environ=False`` fills ``${VAR}`` from no environment at all (only
    ``${VAR:-default}`` has a value), and says so when one is missing: what a page
    served to other machines does, so that nothing of the serving machine's environment
    reaches the page. The values of secret variables used are masked in every message
    and noted for the command line's masking.
    """
    reader = _Reader(source)
    repeated: list[tuple[Any, int, int]] = []
    try:
        document = load_with_lines(text, repeated)
    except YamlProblem as exc:
        raise reader.fail(exc.line, str(exc)) from None
    if not document:
        raise reader.fail(1, "missing 'mcp_servers' section (the configuration is empty)")
    if not isinstance(document, LineDict):
        raise reader.fail(1, f"the configuration must be a mapping, not {_kind(document)}")
    if expand_environ:
        given = os.environ if environ is None else environ
        _Filler(given, reader.fail, reader.secrets, environ_secrets=frozenset(
            v for k, v in given.items() if v and is_secret_setting(k, v))).fill(document, 1)
    else:
        _Filler({}, reader.fail, reader.secrets, NOTHING_EXPANDED).fill(document, 1)
    note_secret_values(reader.secrets)
    for key, first, later in repeated:
        reader.warn(later, f"{key!r} is given twice in one mapping (lines {first} and "
                    f"{later}): hangar keeps the last, the one answered for here")
    _check_sections(reader, document)
    if "mcp_servers" not in document:
        discovery = document.get("discovery")
        if not (isinstance(discovery, dict) and discovery.get("enabled", False)):
            raise reader.fail(1, "missing 'mcp_servers' section")
    servers = document.get("mcp_servers") or LineDict()
    servers = reader.mapping(servers, document.line_of("mcp_servers"), "mcp_servers")

    mode = "egress"
    tool_access = document.get("tool_access")
    if isinstance(tool_access, LineDict) and tool_access.get("mode") is not None:
        mode = tool_access["mode"]
        if mode not in TOPOLOGY_MODES:
            raise reader.fail(tool_access.line_of("mode"), (
                f"tool_access.mode {mode!r} is not 'egress' or 'front_door' (leave it out "
                "for egress)"))
    channel = DEFAULT_CHANNEL
    if "approvals" in document:
        approvals = reader.mapping(document["approvals"], document.line_of("approvals"),
                                   "approvals")
        raw = approvals.get("channel", DEFAULT_CHANNEL)
        if not isinstance(raw, str) or not raw.strip():
            raise reader.fail(approvals.line_of("channel"),
                              f"approvals.channel must be a channel name, not {raw!r}")
        channel = _CHANNEL_ALIASES.get(raw, raw)

    groups: list[tuple[str, LineDict]] = []
    for server_id, spec in servers.items():
        line = servers.line_of(server_id)
        if not _valid_id(server_id):
            reader.warn(line, (
                f"mcp_servers.{server_id}: not a server id hangar accepts (a letter, then "
                "letters, digits, - or _, at most 64); hangar skips it"))
            continue
        where = f"mcp_servers.{server_id}"
        spec = reader.mapping(spec, line, where)
        reader.unknown_keys(spec, _SPEC_KEYS, where)
        if spec.get("mode", "subprocess") == "group":
            if "circuit_reset_timeout_s" in spec:
                raise reader.fail(spec.line_of("circuit_reset_timeout_s"),
                                  f"{where}.circuit_reset_timeout_s was removed from hangar")
            groups.append((server_id, spec))
            continue
        reader.server(server_id, spec, where)
    for group_id, spec in groups:
        reader.group(group_id, spec, f"mcp_servers.{group_id}")

    return HangarConfig(
        source=source, mode=mode, default_channel=channel,
        servers=tuple(reader.servers), groups=reader.groups,
        server_blocks=reader.server_blocks, group_blocks=reader.group_blocks,
        member_blocks=reader.member_blocks, tenant_blocks=reader.tenant_blocks,
        mapped=frozenset(reader.mapped), catalogs=reader.catalogs,
        global_block=global_block, lines=reader.lines, warnings=tuple(reader.warnings),
        secrets=frozenset(reader.secrets),
    )


def load_hangar(path: str | os.PathLike[str], *, environ: Mapping[str, str] | None = None,
                global_block: ScopeBlock | None = None) -> HangarConfig:
    """Read a hangar configuration file (see :func:`read_hangar`)."""
    text = read_text(Path(path), HangarConfigError)
    return read_hangar(text, source=str(path), environ=environ, global_block=global_block)
