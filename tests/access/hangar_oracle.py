"""mcp-hangar's own answer for a tool call, and random hangar configurations to ask it about.

``hangar_answers`` loads a YAML configuration with hangar's ``prepare_config`` and
``build_config`` (nothing is started: groups are written with ``auto_start: false``),
applies its ``tool_access.mode``, and asks hangar's ``decide()`` per tool, as a call
naming the server (with the groups that own it) or routed through a group to it.
``random_config`` writes configurations the way operators do: servers with ``tools``
blocks and ``tool_access.member`` tenants, groups with member entries that have or lack
their own blocks, globs, timeouts, channels, both topologies.
"""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest

pytest.importorskip("mcp_hangar", reason="mcp-hangar (test extra, Python 3.11+) not installed")

import structlog
import yaml
from mcp_hangar.approvals.bootstrap import configured_channel
from mcp_hangar.domain.services.access_decision import decide
from mcp_hangar.domain.services.tool_access_resolver import configured_topology_mode
from mcp_hangar.domain.value_objects import ToolAccessPolicy
from mcp_hangar.domain.value_objects.access import Caller, Target
from mcp_hangar.server.config import build_config, check_process_config, prepare_config

# Hangar logs every registration; the answers are what is compared, not the log.
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
logging.getLogger("mcp_hangar").setLevel(logging.CRITICAL)

TOOLS = ("get_repo", "delete_repo", "deploy_app", "drop_db", "list_users", "read_file",
         "write_file", "a", "x_y", "Get_repo")
PATTERNS = ("*", "get_*", "*_repo", "d*", "delete_*", "deploy_app", "drop_db", "?", "*_*",
            "[dg]*", "[!d]*", "read_file", "write_*", "list_users", "x_?", "*a*", "G*")
TIMEOUTS = (30, 60, 120, 300, 600, 900)
CHANNELS = ("slack", "webhook", "pager")


class _NoWithdrawals:
    """Nothing is withdrawn: tool access alone decides."""

    def withdrawal_status(self, *_args: Any, **_kwargs: Any) -> None:
        return None


class HangarOracle:
    """One configuration loaded by hangar itself, asked about calls with its decide()."""

    def __init__(self, text: str, global_block: dict[str, Any] | None = None) -> None:
        config = prepare_config(yaml.safe_load(text), source="generated")
        check_process_config(config)
        self.staged = build_config(config["mcp_servers"])
        self.resolver = self.staged.policies
        if global_block is not None:
            # What hangar's agent sets at run time for a cloud policy on every server.
            self.resolver.set_mcp_server_policy("_global", ToolAccessPolicy(
                allow_list=tuple(global_block.get("allow_list", ())),
                deny_list=tuple(global_block.get("deny_list", ())),
                approval_list=tuple(global_block.get("approval_list", ())),
                approval_timeout_seconds=global_block.get("approval_timeout_seconds", 300),
                approval_channel=global_block.get("approval_channel", "")))
        self.resolver.set_topology_mode(configured_topology_mode(config))
        self.default_channel = configured_channel(config)

    @staticmethod
    def check(document: Any) -> None:
        """Everything hangar refuses a configuration for at load, raised as hangar raises it."""
        config = prepare_config(document, source="generated")
        check_process_config(config)
        build_config(config["mcp_servers"])

    def answers(self, server: str, via: str | None, tenant: str | None,
                tools: list[str]) -> list[tuple[str, bool, bool, int | None, str | None]]:
        """(tool, visible, held, timeout, channel) per tool."""
        if via is not None:
            target = Target.group(via, member_server=server)
        else:
            owners = tuple(g for g, group in self.staged.groups.items()
                           if any(m.id == server for m in group.members))
            target = Target.server(server, owning_groups=owners)
        caller = Caller(tenant_id=tenant)
        answers = []
        for tool in tools:
            decision = decide(target, tool, caller, resolver=self.resolver,
                              withdrawals=_NoWithdrawals())
            policy = decision.approval_policy
            answers.append((
                tool, decision.allowed, policy is not None,
                policy.approval_timeout_seconds if policy is not None else None,
                (policy.approval_channel or self.default_channel) if policy is not None else None,
            ))
        return answers


def hangar_answers(text: str, server: str, via: str | None, tenant: str | None,
                   tools: list[str]) -> list[tuple[str, bool, bool, int | None, str | None]]:
    """(tool, visible, held, timeout, channel) per tool, from hangar's own decide()."""
    return HangarOracle(text).answers(server, via, tenant, tools)


def hangar_single_scope(block: dict[str, Any], tool: str) -> tuple[bool, bool]:
    """One block alone, as hangar's value object answers it: (allowed, requires approval)."""
    policy = ToolAccessPolicy(
        allow_list=tuple(block.get("allow_list", ())),
        deny_list=tuple(block.get("deny_list", ())),
        approval_list=tuple(block.get("approval_list", ())),
    )
    allowed = policy.is_tool_allowed(tool)
    return allowed, allowed and policy.requires_approval(tool)


# -- random configurations --------------------------------------------------------------


def _block(rng: random.Random) -> dict[str, Any]:
    """A policy block with at least one list."""
    block: dict[str, Any] = {}
    while not block:
        for key, chance in (("allow_list", 0.45), ("deny_list", 0.5), ("approval_list", 0.4)):
            if rng.random() < chance:
                block[key] = rng.sample(PATTERNS, rng.randint(1, 3))
    if rng.random() < 0.5:
        block["approval_timeout_seconds"] = rng.choice(TIMEOUTS)
    if rng.random() < 0.25:
        block["approval_channel"] = rng.choice(CHANNELS)
    return block


def random_global(rng: random.Random) -> dict[str, Any] | None:
    """Now and then a run-time ``_global`` policy (set by hangar's agent, never a file)."""
    return _block(rng) if rng.random() < 0.15 else None


def random_config(rng: random.Random) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A configuration and the routes to ask about (server, via, tenant).

    Between one and three scopes carry a block on each route (server, group, member
    entry, tenant), with sometimes a second group owning the same server.
    """
    servers: dict[str, Any] = {}
    for sid in ("s1", "s2"):
        spec: dict[str, Any] = {"command": ["true"]}
        if rng.random() < 0.5:
            spec["tools"] = _block(rng)
        if rng.random() < 0.35:
            spec["tool_access"] = {"member": {
                t: _block(rng) for t in ("t1", "t2") if rng.random() < 0.6} or {"t1": _block(rng)}}
        servers[sid] = spec
    groups = ["g1"] + (["g2"] if rng.random() < 0.4 else [])
    for gid in groups:
        group: dict[str, Any] = {"mode": "group", "auto_start": False, "members": []}
        if rng.random() < 0.6:
            group["tools"] = _block(rng)
        members = ["s1"] if gid == "g2" else rng.choice([["s1"], ["s1", "s2"]])
        for mid in members:
            entry: dict[str, Any] = {"id": mid}
            if rng.random() < 0.5:
                entry["tools"] = _block(rng)
            group["members"].append(entry)
        if gid == "g1" and rng.random() < 0.2:
            inline: dict[str, Any] = {"id": "s3", "command": ["true"]}
            if rng.random() < 0.6:
                inline["tools"] = _block(rng)
            group["members"].append(inline)
        servers[gid] = group
    config: dict[str, Any] = {"mcp_servers": servers}
    if rng.random() < 0.15:
        config["tool_access"] = {"mode": "front_door"}
    elif rng.random() < 0.1:
        config["tool_access"] = {"mode": "egress"}
    if rng.random() < 0.2:
        config["approvals"] = {"channel": rng.choice(("event_stream", "dashboard", "noop"))}
    routes = []
    for tenant in (None, "t1", "t2"):
        routes.append({"server": "s1", "via": None, "tenant": tenant})
        routes.append({"server": "s1", "via": "g1", "tenant": tenant})
    members_g1 = [m["id"] for m in servers["g1"]["members"]]
    for extra in members_g1[1:]:
        routes.append({"server": extra, "via": "g1", "tenant": rng.choice((None, "t1"))})
        routes.append({"server": extra, "via": None, "tenant": rng.choice((None, "t1"))})
    if "g2" in servers:
        routes.append({"server": "s1", "via": "g2", "tenant": rng.choice((None, "t1"))})
    return config, routes
