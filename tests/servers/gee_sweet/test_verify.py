"""verify's comparison, without a server: each kind of difference is reported."""

from __future__ import annotations

import io
import sys

import pytest

from localfs_explorer.catalog import default_catalog
from localfs_explorer.cli import main as cli
from localfs_explorer.servers.gee_sweet.verify import (
    LiveServer,
    MissingExtraError,
    ServerUnreachableError,
    compare,
    predict,
    read_http,
    transport_for_command,
    transport_for_url,
    verify_policy,
)

LOCAL_ONLY = sorted(t.name for t in default_catalog().tools if t.local_only)


def live_like(prediction, **changes) -> LiveServer:
    """A live answer equal to the prediction, plus one tool outside the catalog."""
    fields = {
        "source": "http://127.0.0.1:1/mcp", "transport": prediction.transport,
        "tools": sorted([*prediction.registered, "a_tool_from_a_newer_server"]),
        "local_file_access": dict(prediction.local_file_access),
    }
    lfa_changes = changes.pop("lfa", {})
    fields["local_file_access"].update(lfa_changes)
    fields.update(changes)
    return LiveServer(**fields)


def test_transport_of_a_url() -> None:
    assert transport_for_url("http://127.0.0.1:8000/mcp") == "streamable-http"
    assert transport_for_url("http://127.0.0.1:8000/sse/") == "sse"
    assert transport_for_url("http://[::1]:8000/") == "streamable-http"


def test_transport_of_a_command_is_the_last_one_given() -> None:
    assert transport_for_command(["mcp-gee-sweet"]) == "stdio"
    assert transport_for_command(["s", "--transport", "sse", "--transport", "stdio"]) == "stdio"
    assert transport_for_command(["s", "--transport", "streamable-http"]) == "streamable-http"
    assert transport_for_command(["s", "--transport"]) == "stdio"


def test_an_identical_server_agrees_and_uncatalogued_tools_are_listed(layout) -> None:
    prediction = predict(layout.roots())
    diffs, uncatalogued = compare(prediction, live_like(prediction))
    assert diffs == []
    assert uncatalogued == ["a_tool_from_a_newer_server"]


def test_each_local_file_access_field_is_compared(layout) -> None:
    prediction = predict(layout.roots())
    live = live_like(prediction, lfa={"mode": "full", "explicit": False, "roots": ["/x"]})
    diffs, _ = compare(prediction, live)
    assert [d.field for d in diffs] == ["mode", "explicit", "roots"]
    assert diffs[0].expected == "roots" and diffs[0].actual == "full"
    assert diffs[2].actual == ["/x"] and diffs[2].expected == [str(layout.data)]
    assert '"roots"' in diffs[0].message and '"full"' in diffs[0].message


def test_unregistered_tools_compare_as_a_set(layout) -> None:
    prediction = predict(layout.policy("sse"))
    assert prediction.local_file_access["unregistered_tools"] == LOCAL_ONLY
    same = live_like(prediction, lfa={"unregistered_tools": LOCAL_ONLY[::-1]})
    assert compare(prediction, same)[0] == []
    fewer = live_like(prediction, lfa={"unregistered_tools": LOCAL_ONLY[1:]})
    (diff,) = compare(prediction, fewer)[0]
    assert diff.field == "unregistered_tools"


def test_a_missing_and_an_unexpected_catalog_tool_are_each_reported(layout) -> None:
    prediction = predict(layout.policy("sse"))  # off: local-only tools are absent
    kept = prediction.registered[0]
    tools = [t for t in prediction.registered if t != kept] + [LOCAL_ONLY[0]]
    diffs, _ = compare(prediction, live_like(prediction, tools=sorted(tools)))
    by_tool = {d.tool: d for d in diffs}
    assert set(by_tool) == {kept, LOCAL_ONLY[0]}
    assert by_tool[kept].expected == "registered" and by_tool[kept].actual == "absent"
    assert by_tool[LOCAL_ONLY[0]].actual == "registered"
    assert "local file access is off" in by_tool[LOCAL_ONLY[0]].message


def test_an_uncatalogued_tool_outside_enabled_tools_is_a_difference(layout) -> None:
    policy = layout.policy("stdio", ENABLED_TOOLS="get_sheet_data,a_tool_from_a_newer_server")
    prediction = predict(policy)
    live = live_like(prediction, tools=["a_tool_from_a_newer_server", "get_sheet_data",
                                        "list_files"])
    diffs, uncatalogued = compare(prediction, live)
    assert [(d.field, d.tool) for d in diffs] == [("registered_tools", "list_files")]
    assert uncatalogued == ["a_tool_from_a_newer_server"]


def test_a_server_that_should_not_start_but_answers_differs(layout) -> None:
    policy = layout.policy("sse", LOCAL_FILE_ACCESS="roots")  # no roots: refuses to serve
    report = verify_policy(policy, live_like(predict(policy)))
    assert not report.agree
    assert report.differences[0].field == "serves"
    assert policy.exit_message in report.differences[0].message


def test_the_prediction_names_the_server_release_it_reproduces(layout) -> None:
    from localfs_explorer.servers.gee_sweet.profile import load_profile

    prediction = predict(layout.roots())
    assert prediction.reproduces == f"mcp-gee-sweet {load_profile().server_version}"


def test_a_url_that_is_not_http_is_refused_before_any_connection() -> None:
    with pytest.raises(ServerUnreachableError, match="must be an http"):
        read_http("ftp://127.0.0.1/mcp")


def test_without_the_sdk_the_error_names_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp.client.session", None)
    with pytest.raises(MissingExtraError, match=r"localfs-explorer\[verify\]"):
        read_http("http://127.0.0.1:9/mcp")
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["verify", "--url", "http://127.0.0.1:9/mcp"], out=out, err=err)
    assert code == 2
    assert "localfs-explorer[verify]" in err.getvalue()
    assert len(err.getvalue().strip().splitlines()) == 1


@pytest.mark.parametrize("argv", [
    ["verify", "--command", "srv", "--token", "t"],
    ["verify", "--url", "http://127.0.0.1:9/mcp", "--timeout", "0"],
    ["verify", "--url", "http://127.0.0.1:9/mcp", "--token-env", "LOCALFS_TEST_NO_SUCH_VAR"],
    ["verify", "--command", "srv 'unclosed"],
    ["verify", "--command", "srv 'unclosed", "--transport", "stdio"],
    ["verify", "--command", "  "],
])
def test_usage_errors_exit_2_in_one_line(argv, monkeypatch) -> None:
    monkeypatch.delenv("LOCALFS_TEST_NO_SUCH_VAR", raising=False)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(argv, out=out, err=err) == 2
    assert "Traceback" not in err.getvalue()
    assert len(err.getvalue().strip().splitlines()) == 1


def test_secret_words_of_a_command_are_masked() -> None:
    from localfs_explorer.secrets import MASK
    from localfs_explorer.servers.gee_sweet.verify import _shown_command

    shown, hidden = _shown_command(
        ["env", "CREDENTIALS_CONFIG=c0nf1g-s3cret", "TOKEN_PATH=/app/t.json", "srv",
         "--token", "tok-12345", "--api-key=k-99999", "--transport", "stdio"])
    assert hidden == {"c0nf1g-s3cret", "tok-12345", "k-99999"}
    assert not any(h in shown for h in hidden)
    assert f"CREDENTIALS_CONFIG={MASK}" in shown and f"--token {MASK}" in shown
    assert "TOKEN_PATH=/app/t.json" in shown and "--transport stdio" in shown


def test_a_url_password_never_reaches_the_error() -> None:
    pytest.importorskip("mcp")
    from live_server import free_port

    with pytest.raises(ServerUnreachableError) as info:
        read_http(f"http://user:pw-secret-1@127.0.0.1:{free_port()}/mcp", timeout=5)
    assert "pw-secret-1" not in str(info.value) and "user:" in str(info.value)


@pytest.mark.slow
def test_a_stdio_server_that_dies_is_reported_with_its_last_line_scrubbed() -> None:
    pytest.importorskip("mcp")
    from localfs_explorer.servers.gee_sweet.verify import read_stdio

    script = ("import os, sys; sys.stderr.write('starting\\nno luck with '"
              " + os.environ['API_TOKEN'] + '\\n'); sys.exit(3)")
    with pytest.raises(ServerUnreachableError) as info:
        read_stdio([sys.executable, "-c", script], env={"API_TOKEN": "s3cr3t-value"},
                   timeout=20)
    message = str(info.value)
    assert "it said: no luck with ••••••" in message
    assert "s3cr3t-value" not in message


def test_verify_needs_a_url_or_a_command(capsys) -> None:
    assert cli.main(["verify"]) == 2
    assert "give one of --url, --command or --client-config" in capsys.readouterr().err


@pytest.mark.slow
def test_the_command_line_loads_the_sdk_only_when_a_server_is_read() -> None:
    import json
    import subprocess

    code = ("import json, sys, localfs_explorer.cli.main as c\n"
            "c.build_parser()\n"
            "import localfs_explorer.servers.gee_sweet.verify\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('mcp', 'httpx2', 'anyio'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert json.loads(proc.stdout) == []


def test_a_server_served_without_its_transport_flag_gets_a_hint(layout) -> None:
    prediction = predict(layout.policy("streamable-http"))  # unset: off over HTTP
    live = live_like(prediction, lfa={"mode": "full", "explicit": False,
                                      "unregistered_tools": []},
                     tools=sorted(default_catalog().names()))
    diffs, _ = compare(prediction, live)
    mode = next(d for d in diffs if d.field == "mode")
    assert "started without --transport" in mode.message
    assert "--transport stdio predicts it" in mode.message
    stdio = predict(layout.policy("stdio"))
    assert compare(stdio, live_like(stdio, tools=sorted(default_catalog().names())))[0] == []


def test_verify_asks_the_policy_s_server_for_its_prediction_and_fields(layout) -> None:
    """verify's driver knows no server: the prediction is the server's ``predict`` and
    the fields compared one by one are its ``live_fields``."""
    from localfs_explorer.server import get_server, register_server, unregister_server
    from localfs_explorer.servers.gee_sweet.server import GeeSweetServer

    policy = layout.roots()
    live = live_like(predict(policy), lfa={"roots": ["/elsewhere"]})
    assert [d.field for d in verify_policy(policy, live).differences] == ["roots"]

    class ModeOnly(GeeSweetServer):
        live_fields = ("mode",)

        def predict(self, policy, catalog=None):
            answer = super().predict(policy, catalog)
            answer["local_file_access"] = {**answer["local_file_access"], "mode": "off"}
            return answer

    register_server(ModeOnly, replace=True)
    try:
        report = verify_policy(policy, live)
    finally:
        unregister_server(ModeOnly.id)
    assert type(get_server()) is GeeSweetServer
    assert [d.field for d in report.differences] == ["mode"]
    assert report.differences[0].expected == "off"
    assert report.fields == ["mode"]
