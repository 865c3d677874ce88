"""The server seam: the registry and mcp-gee-sweet behind the interface."""

from __future__ import annotations

import pytest

from localfs_explorer.config import ConfigError, ServerConfig, resolve_config
from localfs_explorer.server import (
    DEFAULT_SERVER,
    Server,
    ServerError,
    Verdict,
    get_server,
    list_servers,
    register_server,
    unregister_server,
)


def test_the_default_server_is_mcp_gee_sweet_and_listed_first() -> None:
    assert DEFAULT_SERVER == "mcp-gee-sweet"
    assert list_servers()[0] == "mcp-gee-sweet"
    server = get_server()
    assert server.id == "mcp-gee-sweet"
    assert get_server("mcp-gee-sweet") is server
    assert server.versions[0] == "0.9.5"


def test_an_unknown_server_is_a_one_line_error_naming_the_known_ones() -> None:
    with pytest.raises(ServerError, match="unknown server 'nope': use one of mcp-gee-sweet"):
        get_server("nope")
    with pytest.raises(ConfigError, match="unknown server 'nope'") as info:
        resolve_config(ServerConfig(server="nope"))
    assert info.value.part == "server"


def test_an_unmodelled_version_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"mcp-gee-sweet 0\.1\.0 isn't modelled") as info:
        resolve_config(ServerConfig(server_version="0.1.0"))
    assert info.value.part == "server"
    assert resolve_config(ServerConfig(server_version="0.9.5")).policy.serves


def test_an_id_is_registered_once() -> None:
    class Twin(Server):
        id = "mcp-gee-sweet"

    with pytest.raises(ServerError, match="already registered"):
        register_server(Twin)

    class Nameless(Server):
        pass

    with pytest.raises(ServerError, match="has no id"):
        register_server(Nameless)

    class Other(Server):
        id = "other-server"

    try:
        register_server(Other)
        assert "other-server" in list_servers()
        assert isinstance(get_server("other-server"), Other)
    finally:
        unregister_server("other-server")
    assert "other-server" not in list_servers()


def test_gee_sweet_answers_through_the_interface(tmp_path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    resolved = resolve_config(ServerConfig(
        settings={"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": str(data)},
        base_dir=str(tmp_path)))
    assert resolved.server is get_server()
    inside = resolved.policy.check(str(data / "a.txt"))
    outside = resolved.policy.check(str(tmp_path / "b.txt"), "write")
    assert isinstance(inside, Verdict) and inside.allowed
    assert not outside.allowed and outside.reason == "outside_roots"
    assert outside.message.startswith(f"{tmp_path / 'b.txt'} is outside this server's")
    status = resolved.server.status(resolved.policy, resolved.registration)
    assert status["local_file_access"]["roots"] == [str(data)]


def test_the_prediction_through_the_interface_is_verify_s(tmp_path) -> None:
    from localfs_explorer.live.verify import predict

    resolved = resolve_config(ServerConfig(settings={"LOCAL_FILE_ACCESS": "off"},
                                           base_dir=str(tmp_path)))
    expected = predict(resolved.policy).model_dump(mode="json")
    assert get_server().predict(resolved.policy) == expected
    assert expected["local_file_access"]["unregistered_tools"]
