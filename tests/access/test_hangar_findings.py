"""Findings: the documented answer is hangar's own single-scope answers combined by its rule.

Spec 003's invariant is ``merged.filter(t) == narrower.filter(broader.filter(t))``:
a tool is visible when every scope's own policy lets it through, and held when any
scope's policy holds it. The expected documented answer is built here from hangar's
own value object, one block at a time, over the blocks a route reaches (found from
the raw configuration, independently of the explorer); a finding must appear exactly
where hangar's real answer differs from it.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import yaml

oracle = pytest.importorskip("hangar_oracle")

from hangar_cases import (  # noqa: E402
    ALLOW_THEN_MEMBER,
    APPROVAL_BESIDE_ALLOW,
    FIRST_HOLDER_TIMEOUT,
    OWN_BLOCK_UNMAPPED,
    TENANTS,
)

from localfs_explorer.access.hangar import CallRoute, answer_tools  # noqa: E402
from localfs_explorer.access.hangar_config import read_hangar  # noqa: E402

pytestmark = pytest.mark.real


def _blocks(config: dict[str, Any], route: dict[str, Any], *, as_hangar_reads: bool = False
            ) -> list[dict[str, Any]]:
    """Every policy block the documented rule applies to a call on ``route``.

    ``as_hangar_reads``: leave out the member server's own block on a group chain whose
    member entry has no block (hangar reads it only then).
    """
    servers = config["mcp_servers"]
    server, via, tenant = route["server"], route["via"], route["tenant"]

    def server_spec() -> dict[str, Any]:
        if server in servers:
            return servers[server]
        return next(m for g in servers.values() if g.get("mode") == "group"
                    for m in g["members"] if m["id"] == server)

    def own(mapped: bool = True) -> list[dict[str, Any]]:
        spec = server_spec()
        found = [spec["tools"]] if isinstance(spec.get("tools"), dict) and mapped else []
        member = spec.get("tool_access", {}).get("member", {})
        if tenant is not None and tenant in member:
            found.append(member[tenant])
        return found

    groups = [via] if via else [gid for gid, g in servers.items() if g.get("mode") == "group"
                                and any(m["id"] == server for m in g["members"])]
    found = [] if via else own()
    for gid in groups:
        group = servers[gid]
        found += [group["tools"]] if "tools" in group else []
        entry = next(m for m in group["members"] if m["id"] == server)
        has_block = isinstance(entry.get("tools"), dict)
        found += [entry["tools"]] if has_block else []
        found += own(has_block or not as_hangar_reads)
    return found


def _rule(blocks: list[dict[str, Any]], tool: str, front_door_without_tenant: bool
          ) -> tuple[bool, bool]:
    if front_door_without_tenant:
        return False, False
    answers = [oracle.hangar_single_scope(b, tool) for b in blocks]
    visible = all(allowed for allowed, _ in answers)
    return visible, visible and any(held for _, held in answers)


@pytest.mark.slow
def test_documented_answer_is_hangars_single_scope_answers_combined_by_its_rule() -> None:
    findings = scoped_alone = 0
    for index in range(60):
        config, routes = oracle.random_config(random.Random(7_000 + index))
        text = yaml.safe_dump(config, sort_keys=False)
        ours = read_hangar(text, source="c.yaml")
        theirs = oracle.HangarOracle(text)
        door = config.get("tool_access", {}).get("mode") == "front_door"
        for route in routes:
            blocks = _blocks(config, route)
            real = theirs.answers(route["server"], route["via"], route["tenant"],
                                  list(oracle.TOOLS))
            for answer, hangar in zip(answer_tools(ours, CallRoute(**route), oracle.TOOLS),
                                      real, strict=True):
                rule = _rule(blocks, answer.tool, door and route["tenant"] is None)
                assert (answer.documented.visible, answer.documented.held) == rule
                differs = (hangar[1], hangar[2]) != rule or (
                    hangar[2] and hangar[3] != answer.documented.timeout)
                assert (answer.finding is not None) == differs, (route, answer)
                findings += differs
                if len(_blocks(config, route, as_hangar_reads=True)) == len(blocks) <= 1:
                    scoped_alone += 1
                    # One scope: hangar keeps its own rule, so no finding.
                    assert (hangar[1], hangar[2]) == rule
    assert findings and scoped_alone


def _ask(text: str, route: dict[str, Any], tool: str) -> tuple[Any, tuple[Any, ...]]:
    ours = answer_tools(read_hangar(text, source="r.yaml"), CallRoute(**route), [tool])[0]
    theirs = oracle.HangarOracle(text).answers(route["server"], route["via"], route["tenant"],
                                               [tool])[0]
    assert (ours.visible, ours.held, ours.timeout) == theirs[1:4]
    return ours, theirs


def test_member_deny_list_is_lost_after_a_broader_allow_list() -> None:
    route = {"server": "api", "via": "core", "tenant": None}
    ours, _ = _ask(ALLOW_THEN_MEMBER, route, "delete_repo")
    assert ours.visible and not ours.documented.visible
    assert ours.finding and "delete_repo" in ours.finding and "deny_list" in ours.finding
    kept, _ = _ask(ALLOW_THEN_MEMBER, route, "get_repo")
    assert kept.visible and kept.finding is None


def test_member_approval_no_longer_outranks_its_allow_list() -> None:
    ours, _ = _ask(APPROVAL_BESIDE_ALLOW, {"server": "api", "via": "core", "tenant": None},
                   "deploy_app")
    assert not ours.visible
    assert ours.documented.visible and ours.documented.held
    assert ours.finding and "approval outranks allow" in ours.finding


def test_member_servers_own_block_counts_only_with_a_member_block() -> None:
    via = {"server": "api", "via": "core", "tenant": None}
    ours, _ = _ask(OWN_BLOCK_UNMAPPED, via, "drop_db")
    assert ours.visible and not ours.documented.visible
    assert ours.finding and "only when the group's member entry has a tools block" in ours.finding
    mapped = OWN_BLOCK_UNMAPPED.replace("- id: api", "- id: api\n        tools: {deny_list: [x]}")
    ours, _ = _ask(mapped, via, "drop_db")
    assert not ours.visible and ours.finding is None
    # Named directly, the server's own block always counts.
    direct, _ = _ask(OWN_BLOCK_UNMAPPED, {"server": "api", "via": None, "tenant": None},
                     "drop_db")
    assert not direct.visible and direct.finding is None


def test_direct_call_waits_the_first_holding_scopes_timeout() -> None:
    ours, _ = _ask(FIRST_HOLDER_TIMEOUT, {"server": "api", "via": None, "tenant": None},
                   "deploy_app")
    assert ours.held and ours.timeout == 600 and ours.channel == "event_stream"
    assert ours.documented.held and ours.documented.timeout == 60
    assert ours.finding and "600 s" in ours.finding and "60 s" in ours.finding
    # Through the group, the group's own policy holds it: its timeout and channel.
    via, _ = _ask(FIRST_HOLDER_TIMEOUT, {"server": "api", "via": "core", "tenant": None},
                  "deploy_app")
    assert via.held and via.timeout == 60 and via.channel == "slack"


def test_tenants_and_the_front_door() -> None:
    nobody, _ = _ask(TENANTS, {"server": "api", "via": None, "tenant": None}, "get_repo")
    assert not nobody.visible and "front_door" in nobody.scope and nobody.finding is None
    acme, _ = _ask(TENANTS, {"server": "api", "via": None, "tenant": "acme"}, "drop_db")
    assert not acme.visible and "tenant acme" in acme.scope
    held, _ = _ask(TENANTS, {"server": "api", "via": None, "tenant": "other"}, "deploy_app")
    assert held.held and held.channel == "event_stream"  # "dashboard" is its old name
