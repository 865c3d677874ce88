"""Loading a server's .env the way the server does, and nothing from the explorer's shell."""

from __future__ import annotations

import pytest

from localfs_explorer import EnvFileError, load_env
from localfs_explorer.envfile.load import MAX_ENV_BYTES


def write(tmp_path, text: str, name: str = ".env"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    return path


def test_reads_quoted_exported_and_commented_values(tmp_path):
    path = write(tmp_path, "# comment\nexport LOCAL_FILE_ACCESS=roots\n"
                 "LOCAL_FILE_ROOTS='/data:/srv/exports'\nLOG_FILE=\"/var/log/x.log\" # note\n"
                 "EXTRA=kept\r\n")
    env = load_env(path)
    assert env.get("LOCAL_FILE_ACCESS") == "roots"
    assert env.get("LOCAL_FILE_ROOTS") == "/data:/srv/exports"
    assert env.get("LOG_FILE") == "/var/log/x.log"
    assert env.get("EXTRA") == "kept"
    assert env.source == str(path)


def test_process_environment_wins_over_the_file(tmp_path):
    path = write(tmp_path, "LOCAL_FILE_ACCESS=full\n")
    env = load_env(path, overrides={"LOCAL_FILE_ACCESS": "off"})
    assert env.get("LOCAL_FILE_ACCESS") == "off"
    assert "LOCAL_FILE_ACCESS" in env.from_process


def test_interpolation_uses_the_simulated_environment_only(tmp_path, monkeypatch):
    monkeypatch.setenv("DATA_DIR", "/operator/shell/value")
    path = write(tmp_path, "BASE=/srv\nLOCAL_FILE_ROOTS=${BASE}/in:${DATA_DIR}\n")
    assert load_env(path).get("LOCAL_FILE_ROOTS") == "/srv/in:"
    given = load_env(path, overrides={"DATA_DIR": "/mnt/data"})
    assert given.get("LOCAL_FILE_ROOTS") == "/srv/in:/mnt/data"


def test_unset_removes_a_key_whatever_set_it(tmp_path):
    path = write(tmp_path, "LOG_FILE=/var/log/a.log\n")
    env = load_env(path, overrides={"ACCESS_LOG_FILE": "/x"}, unset=["LOG_FILE",
                                                                     "ACCESS_LOG_FILE"])
    assert not env.is_set("LOG_FILE") and not env.is_set("ACCESS_LOG_FILE")


def test_key_without_equals_is_not_set(tmp_path):
    assert not load_env(write(tmp_path, "LOCAL_FILE_ACCESS\n")).is_set("LOCAL_FILE_ACCESS")


def test_malformed_line_names_file_and_line_but_not_its_text(tmp_path):
    path = write(tmp_path, "A=1\nB=2\n'broken SECRET_VALUE\nC=3\n")
    with pytest.raises(EnvFileError) as info:
        load_env(path)
    message = str(info.value)
    assert message.startswith(f"{path}:3:")
    assert "SECRET_VALUE" not in message


def test_lenient_mode_skips_the_line_like_the_server(tmp_path):
    path = write(tmp_path, "A=1\n'broken\nC=3\n")
    env = load_env(path, strict=False)
    assert env.get("A") == "1" and env.get("C") == "3"
    assert env.warnings and ":2:" in env.warnings[0]


@pytest.mark.parametrize("problem", ["missing", "directory", "binary", "huge"])
def test_unreadable_files_are_clear_errors(tmp_path, problem):
    path = tmp_path / "server.env"
    if problem == "directory":
        path.mkdir()
    elif problem == "binary":
        path.write_bytes(b"A=\xff\xfe\n")
    elif problem == "huge":
        path.write_bytes(b"A=" + b"x" * (MAX_ENV_BYTES + 10) + b"\n")
    with pytest.raises(EnvFileError) as info:
        load_env(path)
    assert str(path) in str(info.value)


def test_permission_denied_is_a_clear_error(tmp_path, monkeypatch):
    path = write(tmp_path, "A=1\n")

    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied")

    # Root reads any file, so the refusal is simulated where the file is opened.
    monkeypatch.setattr("os.open", refuse)
    with pytest.raises(EnvFileError, match="permission denied"):
        load_env(path)


def test_text_of_an_upload_is_parsed_without_disk(tmp_path):
    env = load_env("uploaded.env", text="LOCAL_FILE_ACCESS=off\n")
    assert env.get("LOCAL_FILE_ACCESS") == "off"


def test_nul_byte_in_a_value_is_kept_for_the_policy_to_judge(tmp_path):
    env = load_env(None, overrides={"LOCAL_FILE_ROOTS": "/da\0ta"})
    assert env.get("LOCAL_FILE_ROOTS") == "/da\0ta"


def test_repr_shows_keys_never_values(tmp_path):
    path = write(tmp_path, "CREDENTIALS_CONFIG=canary-7f3a\n")
    env = load_env(path)
    assert "canary-7f3a" not in repr(env) and "canary-7f3a" not in str(env)
    assert "CREDENTIALS_CONFIG" in repr(env)


# --- the expansion limit: exact at its edge, and where it points --------------------------


def test_expansion_up_to_the_limit_exactly_is_taken() -> None:
    from localfs_explorer.envfile.load import MAX_EXPANDED_CHARS, resolve_env

    big = "x" * MAX_EXPANDED_CHARS
    assert resolve_env([("A", big)], {})["A"] == big
    with pytest.raises(EnvFileError, match=r"^<text>: expanding \$\{\.\.\.\} in B "):
        resolve_env([("A", big), ("B", "y")], {})


def test_an_expansion_over_the_limit_names_the_file_and_line_that_went_over(tmp_path) -> None:
    from localfs_explorer.envfile.load import MAX_EXPANDED_CHARS

    width = 4096
    copies = MAX_EXPANDED_CHARS // width + 1
    env_file = tmp_path / "app.env"
    env_file.write_text(f"# a comment\nA={'x' * width}\nC=1\nB={'${A}' * copies}\n")
    with pytest.raises(EnvFileError) as info:
        load_env(env_file)
    assert str(info.value).startswith(f"{env_file}:4: expanding ${{...}} in B makes the ")


def test_a_bad_line_of_parsed_text_names_the_text_s_name_and_line() -> None:
    from localfs_explorer.envfile.load import parse_env_text

    with pytest.raises(EnvFileError, match=r"^deploy\.env:2: "):
        parse_env_text("A=1\nB='unterminated\n", name="deploy.env")
    pairs, warnings = parse_env_text("A=1\nB='unterminated\n", name="deploy.env",
                                     strict=False)
    assert pairs == [("A", "1")] and warnings[0].startswith("deploy.env:2: ")
