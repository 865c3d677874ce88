"""What mcp-hangar 2.34.4 answers for a tool call on one route, and what its rule says.

A call reaches a server one of two ways: naming it directly, or through a group that
has it as a member (``--via GROUP``). Hangar asks its policy resolver under one or
more scope keys per call, with the caller's tenant:

- through group ``G`` to member ``S``: one key, ``(G, G, S)``;
- naming ``S`` directly: ``(S, -, -)``, and ``(G, G, S)`` again for every group ``G``
  that has ``S`` as a member (deny in any of them wins).

Under each key the resolver merges, broadest first, the ``_global`` policy, the
server's own block (the group's id for a group key, which holds none from a
configuration), and then for a group key: the group's block, the member entry's
block, the member server's own block only when the member entry has a block of its
own, and the tenant's blocks on the member server; for a server key: the tenant's
block on the server. In the ``front_door`` topology a caller without a tenant is
refused everything. A tool is visible when every key's policy lets it through; it is
held when the first key whose policy holds it does, and that policy's timeout and
channel are the ones the approval waits with.

The documented answer (spec 003) takes every block that applies to the call, by the
same route, and combines them by the rule: each scope can only remove, approval only
grows, the shortest timeout. Where hangar's answer differs, :class:`ToolAnswer`
carries a finding that names the tools, the scopes and the cause.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .hangar_config import HangarConfig, HangarConfigError
from .hangar_policy import Documented, Effective, ScopeBlock, documented, narrow, single

__all__ = ["CallRoute", "HangarAccess", "ToolAnswer", "answer_tools", "hangar_access",
           "route_blocks"]


@dataclass(frozen=True)
class CallRoute:
    """A call's way to a server: the server, the group it goes through (or none), the tenant."""

    server: str
    via: str | None = None
    tenant: str | None = None

    def describe(self) -> str:
        how = f"through group {self.via}" if self.via else "named directly"
        who = f"tenant {self.tenant}" if self.tenant else "no tenant"
        return f"{self.server} ({how}, {who})"


@dataclass(frozen=True)
class ToolAnswer:
    """One tool on one route: hangar's answer, the documented one, and a finding."""

    tool: str
    visible: bool
    held: bool
    timeout: int | None
    channel: str | None
    scope: str
    documented: Documented
    finding: str | None

    @property
    def state(self) -> str:
        """``hidden``, ``held`` or ``visible``, as a word for tables."""
        return "hidden" if not self.visible else "held" if self.held else "visible"

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "visible": self.visible,
            "held": self.held,
            "timeout": self.timeout,
            "channel": self.channel,
            "scope": self.scope,
            "documented": {"visible": self.documented.visible, "held": self.documented.held,
                           "timeout": self.documented.timeout},
            "finding": self.finding,
        }


# -- the resolver, as hangar keys and merges it ----------------------------------------


def _policy(block: ScopeBlock | None) -> Effective:
    return single(block) if block is not None else Effective()


_DENY_EVERYTHING = Effective(deny=(("*", "front_door topology (no tenant)"),))


def _resolve(config: HangarConfig, server: str, group: str | None, member: str | None,
             tenant: str | None) -> Effective:
    """The effective policy under one scope key, merged in hangar's order."""
    own = config.server_blocks.get(server)
    policy = _policy(config.global_block)
    if own is not None:
        policy = narrow(policy, single(own))
    if tenant is None and config.mode == "front_door":
        return _DENY_EVERYTHING
    if tenant is not None and group is None:
        return narrow(policy, _policy(config.tenant_blocks.get((server, tenant))))
    if group is None:
        return policy
    member_policy = Effective()
    mapped = None
    if member is not None:
        member_policy = _policy(config.member_blocks.get((group, member)))
        mapped = member if (group, member) in config.mapped else None
    if mapped is not None and mapped != server:
        policy = narrow(policy, _policy(config.server_blocks.get(mapped)))
    tenant_policy = Effective()
    if tenant is not None:
        for scope in (server, mapped or member):
            if scope is not None:
                tenant_policy = narrow(tenant_policy,
                                       _policy(config.tenant_blocks.get((scope, tenant))))
    policy = narrow(policy, _policy(config.group_blocks.get(group)))
    policy = narrow(policy, member_policy)
    return narrow(policy, tenant_policy)


def _scope_keys(config: HangarConfig, route: CallRoute) -> list[tuple[str, str | None, str | None]]:
    if route.via is not None:
        return [(route.via, route.via, route.server)]
    return [(route.server, None, None),
            *((g, g, route.server) for g in config.owning_groups(route.server))]


def _key_label(key: tuple[str, str | None, str | None]) -> str:
    server, group, member = key
    return f"server {server}" if group is None else f"group {group} to member {member}"


def route_blocks(config: HangarConfig, route: CallRoute) -> list[ScopeBlock]:
    """Every block that applies to a call on ``route``, broadest first (documented rule)."""
    blocks: list[ScopeBlock | None] = [config.global_block]
    chains: list[str | None] = [route.via] if route.via else [
        None, *config.owning_groups(route.server)]
    for group in chains:
        if group is not None:
            blocks += [config.group_blocks.get(group),
                       config.member_blocks.get((group, route.server))]
        blocks.append(config.server_blocks.get(route.server))
        if route.tenant is not None:
            blocks.append(config.tenant_blocks.get((route.server, route.tenant)))
    unique: dict[int, ScopeBlock] = {}
    for block in blocks:
        if block is not None:
            unique.setdefault(id(block), block)
    return list(unique.values())


def _check_route(config: HangarConfig, route: CallRoute) -> None:
    if route.via is not None:
        if route.via not in config.groups:
            known = ", ".join(config.groups) or "none"
            raise HangarConfigError(
                f"{config.source}: no group {route.via!r} (groups: {known})")
        if route.server not in config.groups[route.via]:
            members = ", ".join(config.groups[route.via]) or "none"
            raise HangarConfigError(
                f"{config.source}: {route.server!r} is not a member of group {route.via!r} "
                f"(members: {members})")
        return
    if route.server in config.groups:
        raise HangarConfigError(
            f"{config.source}: {route.server!r} is a group; name one of its members with "
            f"--server and the group with --via")
    if route.server not in config.servers:
        known = ", ".join(config.servers) or "none"
        raise HangarConfigError(f"{config.source}: no server {route.server!r} (servers: {known})")


_LOST_LISTS = ("once a broader scope has an allow_list, hangar's merge checks a narrower "
               "scope's allow_list alone, so that scope's deny_list and approval_list no "
               "longer count")


def _unmapped_cause(config: HangarConfig, route: CallRoute, doc: Documented, *,
                    timeout: bool = False) -> str | None:
    """The member-block rule, when the documented answer rests on the server's own block
    (its reason names that block, or, for a wait, its timeout is the shortest)."""
    own = config.server_blocks.get(route.server)
    if own is None:
        return None
    if timeout:
        if own.approval_timeout_seconds != doc.timeout:
            return None
    elif f"the server {route.server} " not in doc.reason:
        return None
    groups = [route.via] if route.via else list(config.owning_groups(route.server))
    for group in groups:
        if (group, route.server) not in config.mapped:
            return (f"hangar reads {route.server}'s own tools block for calls through group "
                    f"{group} only when the group's member entry has a tools block of its own")
    return None


def _finding(tool: str, route: CallRoute, config: HangarConfig,
             answer: tuple[bool, bool, int | None], doc: Documented,
             hidden_by: str) -> str | None:
    """A sentence on how hangar's answer departs from the documented one (None: it doesn't)."""
    visible, held, timeout = answer
    if (visible, held, timeout) == (doc.visible, doc.held, doc.timeout):
        return None
    where = route.describe()
    unmapped = _unmapped_cause(config, route, doc)
    if visible and not doc.visible:
        return (f"hangar shows {tool} on {where}, but by the documented rule it is hidden "
                f"({doc.reason}): {unmapped or _LOST_LISTS}")
    if not visible and doc.visible:
        state = "held for approval" if doc.held else "visible"
        return (f"hangar hides {tool} on {where} ({hidden_by}), but by the documented rule it "
                f"is {state} ({doc.reason}), because approval outranks allow within a scope: "
                f"{_LOST_LISTS}")
    if held and not doc.held:
        return (f"hangar holds {tool} on {where} for approval, but by the documented rule "
                "no scope that applies holds it")
    if doc.held and not held:
        return (f"hangar runs {tool} on {where} without approval, but by the documented rule "
                f"it is held ({doc.reason}): {unmapped or 'hangar merges that approval_list away'}")
    if route.via is None and config.owning_groups(route.server):
        why = ("a call naming the server waits the timeout of the first scope key that holds "
               "the tool (the server's own, then each owning group's)")
    else:
        why = (_unmapped_cause(config, route, doc, timeout=True)
               or "hangar's merged policy keeps another timeout")
    return (f"hangar holds {tool} on {where} for {timeout} s, but by the documented rule the "
            f"approval waits the shortest timeout of the scopes, {doc.timeout} s: {why}")


def answer_tools(config: HangarConfig, route: CallRoute, tools: Iterable[str]) -> list[ToolAnswer]:
    """Hangar's answer and the documented one for each tool on ``route``, in order."""
    _check_route(config, route)
    keys = _scope_keys(config, route)
    policies = [(k, _resolve(config, *k, route.tenant)) for k in keys]
    blocks = route_blocks(config, route)
    no_tenant_door = route.tenant is None and config.mode == "front_door"
    answers: list[ToolAnswer] = []
    for tool in tools:
        answer: tuple[bool, bool, int | None] = (False, False, None)
        channel: str | None = None
        hiding = next(((k, p) for k, p in policies if not p.shows(tool)), None)
        if hiding is not None:
            key, policy = hiding
            scope = f"{_key_label(key)}: {policy.why_hidden(tool)}"
            if no_tenant_door:
                scope = "the front_door topology refuses a caller without a tenant"
        else:
            holder = next(((k, p) for k, p in policies if not p.is_blank() and p.holds(tool)),
                          None)
            if holder is None:
                scope = "no scope hides it or holds it"
                answer = (True, False, None)
            else:
                key, policy = holder
                scope = f"{_key_label(key)}: {policy.why_held(tool)}"
                answer = (True, True, policy.timeout)
                channel = policy.channel or config.default_channel
        if no_tenant_door:
            doc = Documented(False, False, None,
                             "the front_door topology refuses a caller without a tenant")
        else:
            doc = documented(tool, blocks)
        finding = _finding(tool, route, config, answer, doc, scope)
        answers.append(ToolAnswer(tool, *answer, channel, scope, doc, finding))
    return answers


# -- the route as tool access, for the probe, replay, scenarios and the dashboard ------------


class HangarAccess:
    """A hangar configuration and one call route, answering like the explorer's access lists.

    It has what the probe and the replay ask of :class:`~.lists.ToolAccess`:
    :meth:`gate`, :meth:`explain`, :meth:`is_visible`, :meth:`filter` and
    ``approval_timeout_seconds``, and :meth:`timeout_for` for the wait of one tool
    (hangar's waits differ per tool). Answers are hangar's; :meth:`answer` has the
    documented answer and the finding beside them.
    """

    def __init__(self, config: HangarConfig, route: CallRoute) -> None:
        _check_route(config, route)
        self.config, self.route = config, route
        self._answers: dict[str, ToolAnswer] = {}

    def __repr__(self) -> str:
        return f"HangarAccess({self.config.source!r}, {self.route.describe()})"

    def answer(self, name: str) -> ToolAnswer:
        """Hangar's answer for ``name`` on this route (remembered)."""
        found = self._answers.get(name)
        if found is None:
            found = self._answers[name] = answer_tools(self.config, self.route, [name])[0]
        return found

    def answers(self, names: Iterable[str]) -> list[ToolAnswer]:
        """Answers for many names at once (one resolution of the route)."""
        missing = [n for n in dict.fromkeys(names) if n not in self._answers]
        for answer in answer_tools(self.config, self.route, missing):
            self._answers[answer.tool] = answer
        return [self._answers[n] for n in names]

    def gate(self, name: str) -> str:
        answer = self.answer(name)
        return "blocked" if not answer.visible else "approval" if answer.held else "execute"

    def is_visible(self, name: str) -> bool:
        return self.answer(name).visible

    def requires_approval(self, name: str) -> bool:
        return self.answer(name).held

    def filter(self, names: Iterable[str]) -> list[str]:
        names = list(names)
        return [a.tool for a in self.answers(names) if a.visible]

    def timeout_for(self, name: str) -> int:
        """How long hangar waits for approval of ``name`` (its default when not held)."""
        return self.answer(name).timeout or self.approval_timeout_seconds

    @property
    def approval_timeout_seconds(self) -> int:
        """The shortest timeout of the blocks on this route (300 when none restricts)."""
        blocks = [b for b in route_blocks(self.config, self.route) if not b.is_blank()]
        return min((b.approval_timeout_seconds for b in blocks), default=300)

    def explain(self, name: str) -> str:
        """One sentence: hangar's answer and the scope that decided (and any finding)."""
        answer = self.answer(name)
        if not answer.visible:
            text = f"blocked: hangar hides it ({answer.scope})"
        elif answer.held:
            text = (f"held for approval (up to {answer.timeout} s, channel {answer.channel}): "
                    f"{answer.scope}")
        else:
            text = f"runs: hangar shows it ({answer.scope})"
        return f"{text}; finding: {answer.finding}" if answer.finding else text

    def describe(self) -> str:
        return (f"hangar config {self.config.source}, {self.route.describe()}, "
                f"{self.config.mode} topology")


ROUTE_KEYS = ("hangar", "server", "via", "tenant")


def hangar_access(source: Any, *, base_dir: str | None = None) -> HangarAccess:
    """A :class:`HangarAccess` from ``{"hangar": FILE, "server": ID, "via"?, "tenant"?}``."""
    import os

    from .hangar_config import load_hangar

    if not isinstance(source, dict) and not hasattr(source, "keys"):
        raise HangarConfigError("a hangar route must be a table with hangar and server")
    unknown = [k for k in source if k not in ROUTE_KEYS]
    if unknown:
        raise HangarConfigError(
            f"unknown key(s) {', '.join(map(repr, unknown))} in a hangar route "
            f"(expected {', '.join(ROUTE_KEYS)})")
    for key in ("hangar", "server"):
        if not isinstance(source.get(key), str) or not source[key]:
            raise HangarConfigError(f"a hangar route needs {key!r} (a non-empty string)")
    for key in ("via", "tenant"):
        if source.get(key) is not None and (not isinstance(source[key], str)
                                            or not source[key]):
            raise HangarConfigError(f"a hangar route's {key!r} must be a non-empty string")
    path = source["hangar"]
    if base_dir is not None:
        path = os.path.join(base_dir, os.path.expanduser(path))
    config = load_hangar(path)
    return HangarAccess(config, CallRoute(source["server"], source.get("via"),
                                          source.get("tenant")))
