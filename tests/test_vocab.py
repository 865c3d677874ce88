"""The domain's words are declared once, and the engine speaks only those words."""

from __future__ import annotations

import typing
from typing import get_args

import pytest

from localfs_explorer import load_env, resolve_policy, vocab
from localfs_explorer.fs.virtual import VirtualFS


@pytest.mark.parametrize(("values", "literal"), [
    (vocab.MODES, vocab.ModeName),
    (vocab.TRANSPORTS, vocab.Transport),
    (vocab.PLATFORMS, vocab.Platform),
    (vocab.OPS, vocab.Op),
    (vocab.REASONS, vocab.Reason),
    (vocab.OUTCOMES, vocab.Outcome),
    (vocab.GATES, vocab.Gate),
])
def test_each_tuple_lists_its_literal_in_order(values, literal):
    assert values == get_args(literal)


def test_the_mode_enum_spells_the_mode_names():
    assert tuple(m.value for m in vocab.Mode) == vocab.MODES
    assert str(vocab.Mode.ROOTS) == "roots"


def test_the_engine_and_the_review_layer_share_the_words():
    from localfs_explorer import probe
    from localfs_explorer.cli import main as cli
    from localfs_explorer.review import scenarios
    from localfs_explorer.servers.gee_sweet import check, policy, server

    assert policy.Mode is vocab.Mode
    assert check.Decision.__annotations__["op"] == "Op"
    assert check.Decision.__annotations__["reason"] == "Reason"
    assert server.GeeSweetServer.deny_labels is vocab.DENY_LABELS
    assert not hasattr(scenarios, "KNOWN_DENY_SETTINGS")
    assert typing.get_type_hints(probe.CallVerdict)["outcome"] == vocab.Outcome
    commands = cli.build_parser()._subparsers._group_actions[0].choices
    for command, option, words in [("check", "transport", vocab.TRANSPORTS),
                                   ("check", "op", vocab.OPS),
                                   ("check", "platform", vocab.PLATFORMS),
                                   ("diff", "transport", vocab.TRANSPORTS),
                                   ("diff", "before_transport", vocab.TRANSPORTS),
                                   ("diff", "ops", vocab.OPS),
                                   ("diff", "platform", vocab.PLATFORMS),
                                   ("report", "op", vocab.OPS)]:
        choices = {a.dest: a.choices for a in commands[command]._actions if a.choices}
        assert tuple(choices[option]) == words, (command, option)


def _labels(platform: str, **settings: str) -> set[str]:
    fs = VirtualFS(cwd="/app")
    fs.mkdir("/app")
    policy = resolve_policy(load_env(None, overrides={"HOME": "/home/u", **settings}),
                            fs=fs, cwd="/app", package_dir="/app", platform=platform)
    return {e.setting for e in policy.deny_list}


def test_every_label_the_policy_gives_a_deny_entry_is_a_known_label():
    everything = {"SERVICE_ACCOUNT_PATH": "/app/sa.json",
                  "GOOGLE_APPLICATION_CREDENTIALS": "/app/adc.json",
                  "LOG_FILE": "/var/log/s.log", "ACCESS_LOG_FILE": "/var/log/a.log"}
    seen = (_labels("posix", **everything)
            | _labels("posix", CLOUDSDK_CONFIG="/cfg")
            | _labels("windows", APPDATA="C:/Users/u/AppData/Roaming"))
    assert seen == set(vocab.DENY_LABELS)


def test_decisions_use_only_the_declared_ops_and_reasons(layout):
    policies = [layout.policy(), layout.roots(), layout.policy("sse"),
                layout.policy(LOCAL_FILE_ACCESS="off")]
    paths = [str(layout.data / "report.csv"), str(layout.app / "token.json"),
             str(layout.outside / "other.txt"), "bad\0path"]
    reasons = set()
    for policy in policies:
        for op in vocab.OPS:
            for path in paths:
                for over_http in (False, True):  # stdio reached over HTTP: the tripwire
                    d = policy.check(path, op, over_http=over_http)
                    assert d.op in vocab.OPS
                    reasons.add(d.reason)
    assert reasons == set(vocab.REASONS)
