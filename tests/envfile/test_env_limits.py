"""The edges of loading a server's environment: sizes, names, skipped lines, unsets."""

from __future__ import annotations

import pytest

from localfs_explorer.envfile.load import MAX_ENV_BYTES, EnvFileError, load_env, parse_env_text


def test_a_file_at_the_size_limit_loads_and_one_byte_more_is_refused(tmp_path):
    at_limit = tmp_path / "at.env"
    line = b"A=1\n"
    at_limit.write_bytes(line + b"#" * (MAX_ENV_BYTES - len(line)))
    assert load_env(at_limit).get("A") == "1"
    over = tmp_path / "over.env"
    over.write_bytes(b"#" * (MAX_ENV_BYTES + 1))
    with pytest.raises(EnvFileError) as info:
        load_env(over)
    assert str(info.value) == f"{over}: larger than the 4 MiB limit; refused"


@pytest.mark.parametrize("key", ["A=B", "NUL\0", ""])
def test_a_bad_process_variable_name_is_refused_by_name(key):
    with pytest.raises(EnvFileError) as info:
        load_env(None, overrides={key: "x"})
    assert str(info.value) == f"invalid variable name in the process environment: {key!r}"


def test_unsetting_a_key_that_is_not_there_is_fine():
    env = load_env(None, overrides={"A": "1"}, unset=["NOT_THERE", "A"])
    assert env.values == {} and env.source is None


def test_a_key_without_a_value_does_not_stop_the_keys_after_it(tmp_path):
    path = tmp_path / ".env"
    path.write_text("NOVALUE\nAFTER=1\n")
    env = load_env(path)
    assert env.values == {"AFTER": "1"} and env.source == str(path)


def test_skipped_lines_are_reported_with_the_texts_name(tmp_path):
    pairs, warnings = parse_env_text("GOOD=1\n'broken\n", strict=False)
    assert pairs == [("GOOD", "1")]
    assert warnings == ["<text>:2: can't be parsed as KEY=VALUE (skipped, as the server would)"]
    with pytest.raises(EnvFileError, match=r"^<text>:2: can't be parsed as KEY=VALUE: 'broken$"):
        parse_env_text("GOOD=1\n'broken\n")
    with pytest.raises(EnvFileError, match=r"^<text>:1: "):
        load_env(None, text="'broken")


def test_with_changes_sets_and_unsets_as_the_process_environment():
    env = load_env(None, overrides={"A": "1", "B": "2"})
    changed = env.with_changes({"C": "3"}, unset=["A", "MISSING"])
    assert changed.values == {"B": "2", "C": "3"}
    assert changed.from_process == frozenset({"A", "B", "C"})
    assert env.values == {"A": "1", "B": "2"}  # the original is untouched
    assert env.with_changes().values == env.values
    assert env.get("A") == "1" and env.get("Z") is None and env.get("Z", "d") == "d"
    assert env.is_set("A") and not env.is_set("Z")


def test_a_nul_byte_in_a_file_value_means_the_server_would_not_start(tmp_path):
    env_file = tmp_path / "deploy.env"
    env_file.write_bytes(b"B=1\x002\nA=x\x00y\nC=ok\n")
    with pytest.raises(EnvFileError) as info:
        load_env(env_file)
    # Every such key named, sorted; no value quoted (it may be a secret).
    assert str(info.value) == (
        f"{env_file}: the value of A, B contains a NUL byte; python-dotenv's load_dotenv "
        "raises ValueError on it, so the server would not start"
    )
    assert "x\0y" not in str(info.value) and "1\x002" not in str(info.value)


def test_a_nul_value_the_process_environment_replaces_is_harmless():
    # load_dotenv leaves a variable the process already has alone, so the NUL never
    # reaches os.environ and the server starts.
    env = load_env(None, text="A=x\x00y\nC=ok\n", overrides={"A": "clean"})
    assert env.get("A") == "clean" and env.get("C") == "ok"
    with pytest.raises(EnvFileError, match=r"^<text>: the value of A contains a NUL byte"):
        load_env(None, text="A=x\x00y\nC=ok\n", overrides={"C": "other"})


def test_every_bad_line_is_reported_at_once_with_its_text_and_secrets_masked(tmp_path):
    secret = "hunter2-" + "x" * 12
    text = (
        "LOCAL_FILE_ACCESS=roots\n"
        f"DB_PASSWORD={secret}\n"
        "ROOTS /data/a\n"                          # 3: no '='
        'CREDENTIALS_CONFIG="{\\"client\\": 1\n'   # 4: a secret, unterminated quote
        "OTHER=1\n"
        f"copied {secret} by mistake\n"            # 6: a known secret in a bad line
        "see API_TOKEN below\n"                    # 7: names a secret setting
        + "LONG " + "y" * 200 + "\n"               # 8: cut
    )
    path = tmp_path / ".env"
    path.write_text(text)
    with pytest.raises(EnvFileError) as info:
        load_env(path)
    message = str(info.value)
    assert "\n" not in message  # one line, for the command line
    assert message.startswith(f"{path}: 5 lines can't be parsed as KEY=VALUE: line 3: ROOTS")
    assert "line 4: CREDENTIALS_CONFIG=••••••;" in message
    assert "line 6: copied •••••• by mistake;" in message
    assert "line 7: ••••••;" in message
    assert "line 8: LONG " + "y" * 55 + "…" in message
    assert secret not in message and "client" not in message and "y" * 56 not in message
    # Lenient loading still skips them, one warning each.
    assert len(load_env(path, strict=False).warnings) == 5


def test_with_changes_forgets_the_file_line_of_each_key_it_sets_or_unsets():
    # A key set by the process no longer comes from its line in the file; a line shown
    # for it would send the user to a value the server doesn't use.
    env = load_env(None, text="A=1\nB=2\nC=3\n")
    assert env.lines == {"A": 1, "B": 2, "C": 3}
    changed = env.with_changes({"A": "9"}, unset=["C"])
    assert changed.lines == {"B": 2}
    assert env.lines == {"A": 1, "B": 2, "C": 3}


def test_a_bad_line_is_cut_only_past_the_shown_length():
    from localfs_explorer.envfile.load import SHOWN_LINE_CHARS, shown_bad_line

    exact = "'" + "x" * (SHOWN_LINE_CHARS - 1)
    assert shown_bad_line(exact) == exact  # exactly the limit: shown whole
    longer = exact + "y"
    assert shown_bad_line(longer) == exact + "…"


def test_a_key_the_process_sets_or_that_is_unset_has_no_file_line():
    # The file's line of a key is kept only where the server uses the file's value.
    env = load_env(None, text="A=1\nB=2\nC=3\n", overrides={"B": "9"}, unset=["C"])
    assert env.lines == {"A": 1}
    assert (env.line_of("A"), env.line_of("B"), env.line_of("C")) == (1, None, None)


def test_an_expansion_past_the_limit_is_refused_naming_the_limit_line_and_key():
    # Line n holds 2**(n-1) characters; lines 1..25 together pass 2**24 (16 Mi).
    with pytest.raises(EnvFileError) as info:
        load_env(None, text="A=x\n" + "A=${A}${A}\n" * 30)
    assert str(info.value) == ("<text>:25: expanding ${...} in A makes the values longer "
                               "than 16 Mi characters; refused")


def test_a_blank_bad_line_shows_as_nothing():
    from localfs_explorer.envfile.load import shown_bad_line

    assert shown_bad_line("   \n") == ""
    assert shown_bad_line("  broken  \nrest") == "broken  "  # its first line only
