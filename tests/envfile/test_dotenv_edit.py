"""The .env edit: lines nobody changed stay byte for byte, values every reader agrees on."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from dotenv import dotenv_values
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from localfs_explorer.envfile.edit import edit_env_text, encode_value, plan_edit
from localfs_explorer.envfile.export import ExportError

pytestmark = pytest.mark.usefixtures("quiet_dotenv")

LINE = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+\Z")


def lines(text: str) -> list[str]:
    return LINE.findall(text)


def read(text: str, interpolate: bool = False) -> dict[str, str | None]:
    return dict(dotenv_values(stream=io.StringIO(text), interpolate=interpolate))


# ---------------------------------------------------------------------------------------
# Editing: every line not changed stays byte for byte


def test_a_changed_key_is_edited_where_it_stands_keeping_prefix_comment_and_indent() -> None:
    text = "# mode\n  export LOCAL_FILE_ACCESS=full   # was full\nOTHER='x y'\n"
    new = plan_edit(text, {"LOCAL_FILE_ACCESS": "roots"})
    assert new == "# mode\n  export LOCAL_FILE_ACCESS=roots   # was full\nOTHER='x y'\n"


def test_a_comment_after_a_quoted_value_keeps_its_meaning_after_the_edit() -> None:
    # '#c' right after a closing quote is a comment; glued to an unquoted value it would
    # become part of the value, so a blank is put in front of it.
    new = plan_edit('A="x"#c\n', {"A": "y"})
    assert new == "A=y #c\n"
    assert read(new) == {"A": "y"}


def test_crlf_is_kept_and_a_new_line_uses_the_dominant_ending() -> None:
    text = "A=1\r\nB=2\r\n# c\nC=3\r\n"
    new = plan_edit(text, {"B": "two", "D": "4"})
    assert new == "A=1\r\nB=two\r\n# c\nC=3\r\nD=4\r\n"


def test_a_missing_final_newline_stays_missing() -> None:
    assert plan_edit("A=1\nB=2", {"B": "3"}) == "A=1\nB=3"
    assert plan_edit("A=1\r\nB=2", {"C": "3", "D": "4"}) == "A=1\r\nB=2\r\nC=3\r\nD=4"
    assert plan_edit("# only a comment", {"A": "1"}) == "# only a comment\nA=1"


def test_an_empty_file_gets_lines_with_newlines() -> None:
    assert plan_edit("", {"A": "1", "B": "2"}) == "A=1\nB=2\n"


def test_a_byte_order_mark_is_kept() -> None:
    assert plan_edit("\ufeffA=1\n", {"A": "2"}) == "\ufeffA=2\n"


def test_new_keys_follow_an_all_export_file() -> None:
    assert plan_edit("export A=1\n", {"B": "2"}) == "export A=1\nexport B=2\n"
    assert plan_edit("export A=1\nC=3\n", {"B": "2"}) == "export A=1\nC=3\nB=2\n"


def test_unset_removes_every_occurrence_and_keeps_the_blank_lines_around() -> None:
    text = "A=1\n\n  TOKEN=old\n# keep\nTOKEN=older\nB=2"
    result = edit_env_text(text, unset=["TOKEN"])
    assert result.text == "A=1\n\n# keep\nB=2"
    assert "TOKEN" not in read(result.text)
    assert [c.model_dump() for c in result.changes] == [
        {"key": "TOKEN", "action": "removed", "lines": (3, 5), "secret": True}]


def test_unsetting_the_last_line_keeps_the_previous_line_as_it_was() -> None:
    assert plan_edit("A=1\nB=2", unset=["B"]) == "A=1\n"


def test_duplicates_edit_the_one_python_dotenv_uses_and_leave_the_others() -> None:
    text = "A=1\nB=${A}\nA=2\n"
    result = edit_env_text(text, {"A": "3"})
    assert result.text == "A=1\nB=${A}\nA=3\n"
    assert read(result.text)["A"] == "3"
    assert any("lines 1, 3" in w and "line 3 is the one edited" in w for w in result.warnings)
    assert any("line 2: B refers to ${A}" in w for w in result.warnings)


def test_a_key_without_a_value_is_the_one_edited_when_it_comes_last() -> None:
    # 'A' alone after 'A=1' makes python-dotenv read A as None: that line wins.
    assert plan_edit("A=1\nA # later\n", {"A": "2"}) == "A=1\nA=2 # later\n"


def test_a_multi_line_value_is_replaced_whole() -> None:
    text = 'A="one\ntwo" # note\nB=2\n'
    assert plan_edit(text, {"A": "x"}) == "A=x # note\nB=2\n"


def test_malformed_lines_are_kept_verbatim_and_reported_by_line() -> None:
    text = "A=1\r\nthis is not a binding\r\nB=2\r\n=novalue\r\n"
    result = edit_env_text(text, {"B": "3"})
    assert result.text == "A=1\r\nthis is not a binding\r\nB=3\r\n=novalue\r\n"
    malformed = [w for w in result.warnings if "python-dotenv can parse" in w]
    assert [w.split(":")[0] for w in malformed] == ["line 2", "line 4"]
    # The warning never quotes the line: it could hold a secret.
    assert not any("not a binding" in w for w in result.warnings)


def test_an_unclosed_quote_that_would_swallow_the_change_is_refused() -> None:
    # python-dotenv reads "'unterminated=1" as the start of a quoted key that runs to
    # the next quote: a quote in the new line would close it and hide the new key.
    text = "'unterminated=1\nB=2\n"
    with pytest.raises(ExportError, match="because of the malformed line 1; fix or remove"):
        plan_edit(text, {"NEW": "it's"})
    assert read(plan_edit(text, {"NEW": "plain"}))["NEW"] == "plain"


def test_setting_the_value_a_line_already_has_changes_nothing() -> None:
    text = "export A='x y'  # c\n"
    result = edit_env_text(text, {"A": "x y"})
    assert result.text == text
    assert result.changes[0].action == "unchanged"


def test_a_key_both_set_and_unset_is_refused() -> None:
    with pytest.raises(ExportError, match="A: both set and unset"):
        edit_env_text("A=1\n", {"A": "2"}, ["A"])


@pytest.mark.parametrize("key", ["1ABC", "A-B", "A B", "", "A=B", "ÄBC"])
def test_an_invalid_key_name_is_refused(key: str) -> None:
    with pytest.raises(ExportError, match="not a valid variable name"):
        plan_edit("", {key: "1"})


# ---------------------------------------------------------------------------------------
# Round trip, as a property


KEY_NAMES = ["ALPHA", "BETA", "LOCAL_FILE_ACCESS", "API_TOKEN", "lower_key", "K9"]
EOLS = st.sampled_from(["\n", "\r\n"])
WORDS = st.text(
    alphabet=st.characters(categories=["L", "N", "So"]) | st.sampled_from(list("/._-:@+,=%")),
    max_size=10,
)
FREE_TEXT = st.text(
    alphabet=st.characters(categories=["L", "N", "P", "S", "Zs"], exclude_characters="\r\n"),
    max_size=15,
)
INDENT = st.sampled_from(["", "", "  ", "\t"])
EXPORT = st.sampled_from(["", "", "export "])


@st.composite
def env_line(draw) -> tuple[str, str | None]:
    """One physical line (without its ending) and the key it binds, if any."""
    kind = draw(st.sampled_from(["comment", "blank", "unquoted", "single", "double",
                                 "malformed"]))
    if kind == "comment":
        return draw(INDENT) + "#" + draw(FREE_TEXT), None
    if kind == "blank":
        return draw(st.sampled_from(["", " ", "   "])), None
    if kind == "malformed":
        # Single-line malformed text only: an unclosed quote can pair with a quote on a
        # later line, which test_an_unclosed_quote_that_would_swallow_the_change_is_refused
        # covers on its own.
        return draw(st.sampled_from(["not a binding", "=novalue", "KEY VALUE"])), None
    key = draw(st.sampled_from(KEY_NAMES))
    head = draw(INDENT) + draw(EXPORT) + key + "="
    comment = draw(st.sampled_from(["", "", " # note", "  #ünï"]))
    if kind == "unquoted":
        value = draw(WORDS)
    elif kind == "single":
        value = "'" + draw(WORDS | FREE_TEXT.filter(lambda s: "'" not in s and "\\" not in s)) + "'"
    else:
        value = '"' + draw(WORDS | FREE_TEXT.filter(
            lambda s: not set(s) & set('"\\$'))) + '"'
    return head + value + comment, key


@st.composite
def env_file(draw) -> tuple[str, list[str | None]]:
    """A whole file, and for each of its lines the key bound there."""
    entries = draw(st.lists(env_line(), max_size=12))
    text, keys = "", []
    for index, (content, key) in enumerate(entries):
        last = index == len(entries) - 1
        eol = draw(EOLS) if not last else draw(st.sampled_from(["\n", "\r\n", ""]))
        if not content and not eol:
            eol = "\n"  # an empty last line without an ending isn't a line at all
        text += content + eol
        keys.append(key)
    return text, keys


NEW_VALUES = st.text(
    alphabet=st.characters(categories=["L", "N", "P", "S", "Zs"], exclude_characters="\r\n"),
    max_size=20,
)


def written(value: str) -> bool:
    try:
        encode_value("K", value)
    except ExportError:
        return False
    return True


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    env_file(),
    st.sampled_from(["set", "unset"]),
    st.sampled_from([*KEY_NAMES, "BRAND_NEW"]),
    NEW_VALUES,
)
@example(("A=1\r\n# c\r\nALPHA='x'", [None, None, "ALPHA"]), "set", "BRAND_NEW", "v w")
def test_round_trip_keeps_every_untouched_line(file, op, key, value) -> None:
    text, keys = file
    old_lines = lines(text)
    assert len(old_lines) == len(keys)
    if op == "set":
        assume(written(value))
        result = edit_env_text(text, {key: value})
    else:
        result = edit_env_text(text, unset=[key])
    new_lines = lines(result.text)

    expected = read(text)
    if op == "set":
        expected[key] = value
    else:
        expected.pop(key, None)
    assert read(result.text) == expected

    where = [i for i, k in enumerate(keys) if k == key]
    if op == "unset":
        assert new_lines == [line for i, line in enumerate(old_lines) if i not in where]
    elif where:
        i = where[-1]
        assert new_lines[:i] == old_lines[:i]
        assert new_lines[i + 1:] == old_lines[i + 1:]
        ending = re.search(r"(\r\n|\n)?\Z", old_lines[i]).group()
        assert new_lines[i].endswith(ending) if ending else not re.search(r"[\r\n]", new_lines[i])
    elif not old_lines or re.search(r"[\r\n]\Z", text):
        assert new_lines[:-1] == old_lines
        assert re.match(f"(export )?{key}=", new_lines[-1])
    else:
        # No final newline before: the old last line gains one, the file still ends open.
        assert new_lines[:-2] == old_lines[:-1]
        assert new_lines[-2].rstrip("\r\n") == old_lines[-1]
        assert not re.search(r"[\r\n]\Z", result.text)

    # Applying the same change again changes nothing.
    again = edit_env_text(result.text, {key: value}) if op == "set" else edit_env_text(
        result.text, unset=[key])
    assert again.text == result.text


# ---------------------------------------------------------------------------------------
# Conformance: python-dotenv, pydantic-settings and compose read back the same string


def compose_interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's documented ``$`` rules: ``$$`` escapes, ``$NAME``, ``${NAME}``,
    ``${NAME:-default}``."""

    def sub(m: re.Match) -> str:
        if m.group(0) == "$$":
            return "$"
        name = m.group("braced") or m.group("bare")
        if m.group("braced") is not None and m.group("default") is not None:
            return env.get(name) or m.group("default")
        return env.get(name, "")

    pattern = (r"\$\$|\$\{(?P<braced>[A-Za-z_][A-Za-z0-9_]*)(?::-(?P<default>[^}]*))?\}"
               r"|\$(?P<bare>[A-Za-z_][A-Za-z0-9_]*)")
    return re.sub(pattern, sub, value)


def compose_read(line: str, env: dict[str, str] | None = None) -> tuple[str, str]:
    """A reference reader for one ``env_file`` line, from compose's documented syntax.

    Single quotes: literal, except that ``\\'`` stands for a quote. Double quotes: the
    escapes ``\\n \\r \\t \\\\ \\"`` and ``$`` interpolation. Unquoted: cut at `` #``,
    trailing blanks dropped, ``$`` interpolation. A comment may follow a closing quote.
    """
    env = env or {}
    key, _, raw = line.rstrip("\r\n").partition("=")
    if raw[:1] in ("'", '"'):
        quote = raw[0]
        i = 1
        while i < len(raw) and not (raw[i] == quote and raw[i - 1] != "\\"):
            i += 1
        if i >= len(raw):
            raise ValueError("unterminated quote")
        inner, rest = raw[1:i], raw[i + 1:]
        if rest.strip() and not rest.strip().startswith("#"):
            raise ValueError("text after the closing quote")
        if quote == "'":
            return key, inner.replace("\\'", "'")
        escapes = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"'}
        unescaped = re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(0)), inner)
        return key, compose_interpolate(unescaped, env)
    value = raw.split(" #", 1)[0].rstrip()
    return key, compose_interpolate(value, env)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("VAR=VAL", "VAL"),
        ('VAR="VAL"', "VAL"),
        ("VAR='VAL'", "VAL"),
        ("VAR=VAL # comment", "VAL"),
        ("VAR=VAL# not a comment", "VAL# not a comment"),
        ('VAR="VAL # not a comment"', "VAL # not a comment"),
        ('VAR="VAL" # comment', "VAL"),
        ("VAR='$OTHER'", "$OTHER"),
        ("VAR='${OTHER}'", "${OTHER}"),
        ("VAR='Let\\'s go!'", "Let's go!"),
        ('VAR="{\\"hello\\": \\"json\\"}"', '{"hello": "json"}'),
        ('VAR="some\\tvalue"', "some\tvalue"),
        ("VAR='some\\tvalue'", "some\\tvalue"),
        ("VAR=some\\tvalue", "some\\tvalue"),
        ("VAR=$OTHER", "set"),
        ('VAR="${OTHER}"', "set"),
        ("VAR=$$OTHER", "$OTHER"),
    ],
)
def test_the_reference_compose_reader_follows_the_documented_rules(line, expected) -> None:
    assert compose_read(line, {"OTHER": "set"}) == ("VAR", expected)


CONFORMANCE = [
    # (value, how it is written)
    ("full", "full"),
    ("/srv/data:/srv/exports", "/srv/data:/srv/exports"),
    ("", ""),
    ("a=b", "a=b"),
    ("50%;a&b|c", "50%;a&b|c"),
    ("C:\\data;D:\\x", "C:\\data;D:\\x"),
    ("\\\\server\\share", "\\\\server\\share"),
    ("ünïcødé/路径", "ünïcødé/路径"),
    ("with space", "'with space'"),
    ("/srv/my files:/data", "'/srv/my files:/data'"),
    ("a#b", "'a#b'"),
    ("x #y", "'x #y'"),
    ("#start", "'#start'"),
    ("$HOME", "'$HOME'"),
    ("cost$5", "'cost$5'"),
    ("a`b", "'a`b'"),
    ('say "hi"', "'say \"hi\"'"),
    ('{"client_id": "abc", "k": "line1\\nline2"}',
     "'{\"client_id\": \"abc\", \"k\": \"line1\\nline2\"}'"),
    ("C:\\Program Files\\App", "'C:\\Program Files\\App'"),
    ("non\u00a0breaking", "'non\u00a0breaking'"),
    ("it's", '"it\'s"'),
    ("it's here", '"it\'s here"'),
]

REFUSED = [
    ("line\nbreak", "line break"),
    ("carriage\rreturn", "line break"),
    ("nul\0byte", "NUL byte"),
    ("tab\there", "control character U+0009"),
    ("line\u2028separator", "line separator U+2028"),
    ("${HOME}/x", "'${'"),
    ("pre${X:-d}post", "'${'"),
    (" leading", "whitespace"),
    ("trailing ", "whitespace"),
    ("it's \"both\"", "' together with"),
    ("it's $5", "' together with"),
    ("it's C:\\x", "' together with"),
    ("two\\\\ backslashes", "double or trailing backslash"),
    ("C:\\Program Files\\", "double or trailing backslash"),
]


@pytest.fixture
def settings_class(monkeypatch):
    pydantic_settings = pytest.importorskip("pydantic_settings")
    monkeypatch.delenv("LFX_CONFORMANCE_VALUE", raising=False)

    class Settings(pydantic_settings.BaseSettings):
        model_config = pydantic_settings.SettingsConfigDict(
            env_file_encoding="utf-8", extra="ignore")
        lfx_conformance_value: str

    return Settings


@pytest.mark.parametrize(("value", "encoded"), CONFORMANCE)
def test_written_values_read_back_identically_everywhere(
    value: str, encoded: str, tmp_path: Path, monkeypatch
) -> None:
    assert encode_value("LFX_CONFORMANCE_VALUE", value) == encoded
    text = plan_edit("# conformance\n", {"LFX_CONFORMANCE_VALUE": value})
    line = lines(text)[-1]
    path = tmp_path / ".env"
    path.write_bytes(text.encode("utf-8"))
    # python-dotenv, with its ${VAR} interpolation on, from the file and from a stream.
    assert dotenv_values(path)["LFX_CONFORMANCE_VALUE"] == value
    assert read(text, interpolate=True)["LFX_CONFORMANCE_VALUE"] == value
    # compose env_file, by its documented rules, with variables that would show through.
    assert compose_read(line, {"HOME": "/root", "X": "x"}) == ("LFX_CONFORMANCE_VALUE", value)


@pytest.mark.parametrize(("value", "encoded"), CONFORMANCE)
def test_pydantic_settings_reads_back_the_same_value(
    value: str, encoded: str, tmp_path: Path, settings_class
) -> None:
    path = tmp_path / ".env"
    path.write_text(plan_edit("", {"LFX_CONFORMANCE_VALUE": value}), encoding="utf-8")
    assert settings_class(_env_file=path).lfx_conformance_value == value


@pytest.mark.parametrize(("value", "reason"), REFUSED)
def test_values_no_quoting_keeps_are_refused_naming_the_key_only(value, reason) -> None:
    with pytest.raises(ExportError) as info:
        plan_edit("A=1\n", {"SOME_SETTING": value})
    message = str(info.value)
    assert message.startswith("SOME_SETTING: refused")
    assert reason in message
    assert "\n" not in message
    assert value.strip() not in message




def test_a_value_with_meant_references_keeps_them_and_python_dotenv_expands_them() -> None:
    import dotenv

    from localfs_explorer.envfile.edit import WithReferences

    text = "DATA=/srv/data\nLOCAL_FILE_ROOTS=${DATA}\n"
    new = edit_env_text(text, {"LOCAL_FILE_ROOTS": WithReferences("${DATA}:/srv/more")}).text
    assert new == "DATA=/srv/data\nLOCAL_FILE_ROOTS=${DATA}:/srv/more\n"
    assert dotenv.dotenv_values(stream=io.StringIO(new))["LOCAL_FILE_ROOTS"] == \
        "/srv/data:/srv/more"
    # A plain string is literal, so its '${' is refused as before.
    with pytest.raises(ExportError, match="expands as a variable reference"):
        edit_env_text(text, {"LOCAL_FILE_ROOTS": "${DATA}:/srv/more"})
    # Anything that would need quotes besides the references is refused, not misquoted.
    for bad in ("${DATA} /srv", "${DATA}:'x'", "${DATA}#x", "${DATA}$HOME"):
        with pytest.raises(ExportError, match="LOCAL_FILE_ROOTS: refused"):
            edit_env_text(text, {"LOCAL_FILE_ROOTS": WithReferences(bad)})
