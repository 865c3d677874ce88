"""The reproducers' answers without hangar installed (checked against it in test_hangar_findings).

These pin what hangar 2.34.4 answers, so they fail when the model of its merge, its
route keys or its member mapping changes, on a machine without the test extra too.
"""

from __future__ import annotations

from hangar_cases import (
    ALLOW_THEN_MEMBER,
    APPROVAL_BESIDE_ALLOW,
    FIRST_HOLDER_TIMEOUT,
    OWN_BLOCK_UNMAPPED,
    TENANTS,
)

from localfs_explorer.access import CallRoute, answer_tools, read_hangar


def ask(text: str, tool: str, server: str = "api", via: str | None = None,
        tenant: str | None = None):
    return answer_tools(read_hangar(text, source="r.yaml"), CallRoute(server, via, tenant),
                        [tool])[0]


def test_member_deny_lost_behind_an_allow_list() -> None:
    lost = ask(ALLOW_THEN_MEMBER, "delete_repo", via="core")
    assert (lost.visible, lost.documented.visible) == (True, False) and lost.finding
    assert not ask(ALLOW_THEN_MEMBER, "drop_db", via="core").visible
    assert not ask(ALLOW_THEN_MEMBER, "list_users", via="core").visible


def test_member_approval_no_longer_rescues() -> None:
    hidden = ask(APPROVAL_BESIDE_ALLOW, "deploy_app", via="core")
    assert not hidden.visible and hidden.documented.held and hidden.finding


def test_unmapped_member_server_block() -> None:
    shown = ask(OWN_BLOCK_UNMAPPED, "drop_db", via="core")
    assert shown.visible and not shown.documented.visible
    assert "member entry has a tools block" in shown.finding
    assert not ask(OWN_BLOCK_UNMAPPED, "drop_db").visible


def test_first_holding_key_sets_the_wait() -> None:
    direct = ask(FIRST_HOLDER_TIMEOUT, "deploy_app")
    assert (direct.held, direct.timeout, direct.documented.timeout) == (True, 600, 60)
    via = ask(FIRST_HOLDER_TIMEOUT, "deploy_app", via="core")
    assert (via.timeout, via.channel, via.finding) == (60, "slack", None)


def test_front_door_and_tenants() -> None:
    assert not ask(TENANTS, "get_repo").visible
    assert not ask(TENANTS, "drop_db", tenant="acme").visible
    held = ask(TENANTS, "deploy_app", tenant="other")
    assert (held.held, held.timeout, held.channel) == (True, 300, "event_stream")
