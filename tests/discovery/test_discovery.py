"""Path discovery: tiers, name and value rules, shell commands, URIs, home, bounds."""

from __future__ import annotations

import shlex
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from localfs_explorer.discovery import (
    DiscoveryError,
    DiscoveryLimits,
    FoundPath,
    argument_name_kind,
    discover_paths,
    is_path_argument_name,
    looks_like_path,
    nothing_to_find,
    shell_words,
)

HOME = "/home/ada"


def found(arguments: dict[str, Any], **kwargs: Any) -> dict[str, FoundPath]:
    kwargs.setdefault("home", HOME)
    kwargs.setdefault("cwd", "/srv/app")
    return {f.path: f for f in discover_paths(arguments, **kwargs)}


def paths(arguments: dict[str, Any], **kwargs: Any) -> list[str]:
    return list(found(arguments, **kwargs))


# --- tiers ------------------------------------------------------------------------------------


def test_declared_values_are_taken_literally() -> None:
    result = found({"target": "My Notes/a file.txt", "other": "x"}, checkpaths=["target"])
    f = result["My Notes/a file.txt"]
    assert (f.tier, f.source, f.rule) == ("declared", "target", "checkpaths")
    # Its words are searched as every argument's are (the reference design's step 4),
    # as guesses: the declared path itself keeps its tier.
    assert result["Notes/a"].tier == "guess"
    assert result["Notes/a"].source == "target"
    declared_command = found({"p": "cat /etc/passwd"}, checkpaths=["p"])
    assert declared_command["cat /etc/passwd"].tier == "declared"
    assert declared_command["/etc/passwd"].tier == "guess"


def test_declared_locations_reach_nested_and_list_values() -> None:
    args = {"attachments": [{"local_path": "/a.txt"}, {"local_path": "/b.txt"}],
            "sources": ["/c.txt", "/d.txt"], "odd key": "/e.txt"}
    result = found(args, checkpaths=["attachments[].local_path", "sources", "odd key"])
    assert {p: f.source for p, f in result.items()} == {
        "/a.txt": "attachments[0].local_path",
        "/b.txt": "attachments[1].local_path",
        "/c.txt": "sources[0]",
        "/d.txt": "sources[1]",
        "/e.txt": '["odd key"]',
    }
    assert all(f.tier == "declared" for f in result.values())


def test_expected_paths_have_their_own_tier() -> None:
    result = found({}, expected=["~/report.csv", "/data/in.csv"])
    assert result["/home/ada/report.csv"].tier == "expected"
    assert result["/home/ada/report.csv"].source == "expected"
    assert result["/home/ada/report.csv"].raw == "~/report.csv"


def test_duplicates_keep_the_strongest_tier_and_every_location() -> None:
    args = {"path": "/data/x.csv", "note": "copy of /data/x.csv"}
    result = discover_paths(args, checkpaths=["path"], expected=["/data/x.csv"], home=HOME)
    assert len(result) == 1
    only = result[0]
    assert (only.tier, only.source) == ("declared", "path")
    assert set(only.also_found_at) == {"expected", "note"}


def test_weaker_findings_do_not_demote_a_path() -> None:
    # A declared value must keep its tier when the same path is also expected.
    result = discover_paths({"path": "/x"}, checkpaths=["path"], expected=["/x", "/y"],
                            home=HOME)
    assert [(f.path, f.tier) for f in result] == [("/x", "declared"), ("/y", "expected")]


def test_results_are_ordered_strongest_tier_first() -> None:
    result = discover_paths({"dest": "/g/out.txt", "p": "/d/in.txt"}, checkpaths=["p"],
                            expected=["/e/x"], home=HOME)
    assert [f.tier for f in result] == ["declared", "expected", "guess"]


# --- argument names ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("path", "path"), ("local_path", "path"), ("localPath", "path"),
        ("output_file", "path"), ("dest_dir", "path"), ("working_directory", "path"),
        ("folder", "path"), ("cwd", "path"), ("filePaths", "path"), ("file2", "path"),
        ("output", "weak"), ("destination", "weak"), ("src", "weak"), ("target", "weak"),
        ("file_name", "weak"), ("fileName", "weak"),
        ("command", "command"), ("shell_cmd", "command"), ("script", "command"),
        ("file_id", "data"), ("folderId", "data"), ("content_base64", "data"),
        ("url", "data"), ("mimeType", "data"),
        ("name", None), ("query", None), ("output_format", None), ("profile", None),
        ("", None),
    ],
)
def test_argument_names_are_judged_by_their_last_word(name: str, kind: str | None) -> None:
    assert argument_name_kind(name) == kind
    assert is_path_argument_name(name) == (kind in ("path", "weak"))


def test_strong_names_take_any_plausible_value() -> None:
    result = found({"local_path": "notes", "folder": "My Drive Export"})
    assert result["notes"].rule == "argument name"
    assert result["notes"].source == "local_path"
    assert "My Drive Export" in result


def test_weak_names_need_a_path_or_a_file_name() -> None:
    assert paths({"output": "json", "source": "drive", "target": "_blank"}) == []
    assert paths({"output": "report.pdf", "dest": "out/"}) == ["report.pdf", "out/"]


def test_encoded_and_type_arguments_are_not_searched() -> None:
    args = {"content_base64": "aGk/b2s=", "data_b64": "/9j/4AAQSkZJRg",
            "mimeType": "application/vnd.google-apps.document"}
    assert paths(args) == []


def test_identifier_and_url_arguments_give_only_words_spelt_as_local_paths() -> None:
    # A file: URI or an absolute path in them is local; a relative "a/b" is an id.
    result = found({"file_id": "1AbC/xyz", "url": "file:///etc/passwd",
                    "uri": "https://example.com/a/b", "id": "abc123", "message_id": "m/1",
                    "source_url": "example.com/a/b", "ids": ["~/k.txt", "../up.txt", "a/b"],
                    "email": "see /srv/mail.txt and x/y"})
    assert set(result) == {"/etc/passwd", "/home/ada/k.txt", "../up.txt", "/srv/mail.txt"}
    assert result["/etc/passwd"].rule == "path-like value"
    assert result["/etc/passwd"].source == "url"
    assert result["/home/ada/k.txt"].source == "ids[0]"


def test_names_apply_inside_nested_objects_and_lists() -> None:
    args = {"attachments": [{"local_path": "a.pdf", "filename": "shown.pdf"}],
            "paths": ["one", "two"]}
    result = found(args)
    assert result["a.pdf"].source == "attachments[0].local_path"
    assert result["shown.pdf"].source == "attachments[0].filename"
    assert result["one"].source == "paths[0]" and result["two"].source == "paths[1]"


# --- path-like values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["/etc/passwd", "/", "~/x", "~", "./a", "../b/c", "src/main.py", "docs/guide",
     "~bob/notes.txt", "file:///tmp/x", "httpdocs/index.html", "C:/Users/x"],
)
def test_words_that_look_like_paths(text: str) -> None:
    assert looks_like_path(text)


@pytest.mark.parametrize(
    "text",
    ["https://example.com/a/b", "HTTP://x/y", "s3://bucket/key", "gs://b/o",
     "ftp://host/file", "mailto:a@b.c", "data:image/png;base64,iVBO/x",
     "git@github.com:org/repo.git", "text/plain", "application/json", "image/svg+xml",
     "2024/01/31", "1/2", "and/or", "w/o", "I/O", "-o", "--out=/x", ".", "..",
     "*.py", "plain", "x" * 300 + "/y", "a\nb/c", ""],
)
def test_words_that_are_not_paths(text: str) -> None:
    assert not looks_like_path(text)


def test_urls_are_skipped_everywhere() -> None:
    args = {"link": "https://drive.google.com/a/b", "msg": "see https://x.io/a/b today",
            "command": "curl -o out.html https://x.io/a/b"}
    assert paths(args) == []


def test_file_uris_are_decoded() -> None:
    result = found({"a": "file:///tmp/My%20Notes/r%C3%A9sum%C3%A9.txt",
                    "b": "file://localhost/srv/x.txt",
                    "c": "file://fileserver/share/y.txt"})
    decoded = result["/tmp/My Notes/résumé.txt"]
    assert decoded.raw == "file:///tmp/My%20Notes/r%C3%A9sum%C3%A9.txt"
    assert "decoded from a file: URI" in decoded.notes
    assert result["/srv/x.txt"].notes == ("decoded from a file: URI",)
    assert any("host 'fileserver'" in n for n in result["/share/y.txt"].notes)


def test_a_percent_encoded_nul_is_reported_with_a_note() -> None:
    result = found({"a": "file:///tmp/a%00b"})
    assert "contains a NUL byte" in result["/tmp/a\x00b"].notes


def test_values_with_nul_bytes_are_still_reported() -> None:
    result = found({"path": "/tmp/a\x00b", "other": "/srv/c\x00d"})
    assert "contains a NUL byte" in result["/tmp/a\x00b"].notes
    assert "/srv/c\x00d" in result


def test_credential_file_names_count_without_a_slash() -> None:
    result = found({"x": ".env", "y": "server.pem", "z": "id_token"})
    assert result[".env"].rule == "credential file name"
    assert result[".env"].sensitive == "matches .env*"
    assert "server.pem" in result
    assert "id_token" not in result  # a lone word without a dot is rarely a file


def test_relative_paths_stay_relative() -> None:
    result = found({"path": "./data/../in.csv"})
    assert list(result) == ["./data/../in.csv"]


def test_prose_is_split_into_words_with_punctuation_trimmed() -> None:
    result = found({"message": 'Saved it to "./out/report.txt", then (see ../notes.md).'})
    assert set(result) == {"./out/report.txt", "../notes.md"}
    assert result["../notes.md"].rule == "path-like word"
    assert result["../notes.md"].raw == "../notes.md)."


def test_markup_link_targets_are_found_and_tags_are_not_redirections() -> None:
    body = ('<p>Chart: <img src="./charts/q1.png"> and [report](../r.pdf "R") '
            'or ![x](https://x.io/i.png) and [top](#top)</p>')
    result = found({"html": body})
    assert set(result) == {"./charts/q1.png", "../r.pdf"}
    assert all(f.rule == "link target" for f in result.values())


def test_dev_null_is_not_reported() -> None:
    assert paths({"command": "make > /dev/null 2>/dev/stderr"}) == []


# --- shell commands ---------------------------------------------------------------------------


def test_shell_words_follow_shlex_quoting() -> None:
    result = found({"command": "cat 'My Notes/a.txt' \"b c/d.txt\" plain"})
    assert set(result) == {"My Notes/a.txt", "b c/d.txt"}
    assert result["My Notes/a.txt"].rule == "shell word"
    assert result["My Notes/a.txt"].source == "command"


@pytest.mark.parametrize(
    ("command", "target"),
    [("sort <in.txt", "in.txt"), ("echo hi >out.txt", "out.txt"),
     ("make 2>>build.log", "build.log"), ("cmd > out", "out"),
     ("cmd &> all.log", "all.log"), ("cmd >| forced", "forced"),
     ("cmd 1> one 2>&1", "one")],
)
def test_redirection_targets_are_paths_whatever_they_look_like(command: str, target: str) -> None:
    result = found({"command": command})
    assert target in result
    assert result[target].rule == "redirection"


def test_descriptor_duplication_and_here_documents_are_not_files() -> None:
    assert paths({"command": "cmd 2>&1 >&2 <&0"}) == []
    assert paths({"command": "cat <<EOF"}) == []
    assert paths({"command": "grep x <<< words"}) == []


def test_option_and_assignment_values_are_unwrapped() -> None:
    result = found({"command": "tool --config=./c.yml --format=json OUT_DIR=build "
                               "HOME_URL=x LOG=/var/log/t.log --output report.pdf -v"})
    assert result["./c.yml"].rule == "option value"
    assert result["./c.yml"].raw == "--config=./c.yml"
    assert result["build"].rule == "assignment"  # OUT_DIR names a directory
    assert result["/var/log/t.log"].rule == "assignment"
    assert result["report.pdf"].rule == "option value"
    assert result["report.pdf"].raw == "--output report.pdf"
    assert not {"json", "x", "-v"} & set(result)


def test_operators_are_split_off_words() -> None:
    result = found({"command": "cat a/b.txt;rm c/d.txt|wc>e.txt&&ls logs/app"})
    assert set(result) == {"a/b.txt", "c/d.txt", "e.txt", "logs/app"}


def test_values_with_shell_syntax_are_split_as_commands() -> None:
    result = found({"notes": "grep TODO src/*.py > todo.txt"})
    assert result["todo.txt"].rule == "redirection"
    assert "contains glob characters the shell would expand" in result["src/*.py"].notes


@given(st.text(alphabet=" \t\nab/.~$-=();<>|&#*", max_size=40))
def test_quote_free_commands_split_exactly_as_shlex_does(text: str) -> None:
    lexer = shlex.shlex(text, posix=True, punctuation_chars="();<>|&")
    lexer.whitespace_split = True
    lexer.commenters = ""
    assert shell_words(text) == (list(lexer), True)


def test_unbalanced_quotes_fall_back_to_whitespace_split() -> None:
    words, exact = shell_words('echo "unterminated > /tmp/out.txt')
    assert not exact and words == ['echo', '"unterminated', '>', '/tmp/out.txt']
    result = found({"command": "cat 'a b/c.txt 2>>err.log x;"})
    assert result["b/c.txt"].rule.startswith("shell word (quotes unbalanced")
    assert result["err.log"].rule == "redirection"


def test_home_variable_and_tilde_expand_in_commands() -> None:
    result = found({"command": "cp $HOME/a.txt ${HOME}/b.txt ~/c.txt $TMPDIR/d.txt"})
    assert {"/home/ada/a.txt", "/home/ada/b.txt", "/home/ada/c.txt"} <= set(result)
    assert "contains a shell variable the shell would expand" in result["$TMPDIR/d.txt"].notes


def test_credential_file_names_in_commands() -> None:
    result = found({"cmd": "cat .env id_rsa notes"})
    assert {".env", "id_rsa"} == set(result)
    assert result["id_rsa"].sensitive == "matches id_*"


# --- home ---------------------------------------------------------------------------------------


def test_tilde_expands_to_the_given_home() -> None:
    result = found({"path": "~", "a": "~/docs/x.txt"})
    assert set(result) == {"/home/ada", "/home/ada/docs/x.txt"}


def test_a_root_home_does_not_double_the_slash() -> None:
    assert paths({"path": "~/x"}, home="/") == ["/x"]


def test_sensitive_advice_uses_home_and_cwd() -> None:
    result = found({"path": "~/.ssh/id_ed25519", "other": ".aws/credentials"}, cwd=HOME)
    assert result["/home/ada/.ssh/id_ed25519"].sensitive == "inside ~/.ssh"
    assert result[".aws/credentials"].sensitive == "inside ~/.aws"


# --- skipping what the catalog describes ----------------------------------------------------------


def test_skipped_locations_and_everything_under_them_are_not_searched() -> None:
    args = {"local_path": "/a", "attachments": [{"local_path": "/b", "note": "/c"}],
            "options": {"dest": "/d", "deep": {"x": "/e"}}, "free": "/f"}
    assert paths(args, skip=["local_path", "attachments[].local_path", "options"]) == [
        "/c", "/f"]
    assert paths(args, skip=["attachments[0]"]) == ["/a", "/d", "/e", "/f"]
    # Locations are compared whole, not as string prefixes.
    assert paths(args, skip=["local", "attachments[0].local", "opt"]) == [
        "/a", "/b", "/c", "/d", "/e", "/f"]


def test_skip_also_applies_to_declared_locations() -> None:
    args = {"attachments": [{"local_path": "/b"}], "other": "/c"}
    result = found(args, checkpaths=["attachments[].local_path"], skip=["attachments"])
    assert list(result) == ["/c"]


def test_odd_skip_names_are_taken_as_top_level_keys() -> None:
    assert paths({"my file": "/a", "b": "/b"}, skip=["my file"]) == ["/b"]


# --- bounds ---------------------------------------------------------------------------------------


def nested(depth: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for level in range(depth):
        node["path"] = f"/level{level}"
        node["child"] = {}
        node = node["child"]
    return root


def test_depth_is_bounded_and_reported() -> None:
    result = discover_paths(nested(30), home=HOME, limits=DiscoveryLimits(max_depth=5))
    assert [f.path for f in result] == [f"/level{i}" for i in range(5)]
    assert result.truncated
    assert "max_depth" in result.stopped[0]
    shallow = discover_paths(nested(3), home=HOME, limits=DiscoveryLimits(max_depth=5))
    assert not shallow.truncated and len(shallow) == 3


def test_a_cyclic_structure_stops_at_the_depth_bound() -> None:
    loop: dict[str, Any] = {"path": "/x"}
    loop["self"] = loop
    result = discover_paths(loop, home=HOME)
    assert [f.path for f in result] == ["/x"] and result.truncated


def test_huge_inputs_are_bounded_and_reported() -> None:
    many = {"items": [f"/p{i}" for i in range(200_000)]}
    result = discover_paths(many, home=HOME, limits=DiscoveryLimits(max_strings=500))
    assert len(result) == 500 and result.truncated
    assert any("max_strings" in s for s in result.stopped)
    numbers = discover_paths({"n": list(range(300_000))}, home=HOME)
    assert list(numbers) == [] and any("max_nodes" in s for s in numbers.stopped)


def test_found_paths_are_capped() -> None:
    result = discover_paths({"items": [f"/p{i}" for i in range(50)]}, home=HOME,
                            limits=DiscoveryLimits(max_paths=10))
    assert len(result) == 10 and any("max_paths" in s for s in result.stopped)


def test_long_text_is_searched_only_up_to_the_bound() -> None:
    text = "/early/path " + "word " * 10_000 + "/late/path"
    result = discover_paths({"text": text}, home=HOME, limits=DiscoveryLimits(
        max_text_chars=1000))
    assert [f.path for f in result] == ["/early/path"]
    assert any("max_text_chars" in s and "text" in s for s in result.stopped)
    words = discover_paths({"text": text}, home=HOME, limits=DiscoveryLimits(max_words=50))
    assert [f.path for f in words] == ["/early/path"]
    assert any("max_words" in s for s in words.stopped)


def test_an_untruncated_search_says_so() -> None:
    result = discover_paths({"path": "/x"}, home=HOME)
    assert not result.truncated and result.stopped == []


# --- errors ------------------------------------------------------------------------------------


def test_bad_inputs_are_clear_errors() -> None:
    with pytest.raises(DiscoveryError, match="can't be parsed"):
        discover_paths({"a": "x"}, checkpaths=["a..b"], home=HOME)
    with pytest.raises(DiscoveryError, match="must be a JSON object"):
        discover_paths(["/x"], home=HOME)  # type: ignore[arg-type]
    with pytest.raises(DiscoveryError, match=r"expected\[1\] must be a path string"):
        discover_paths({}, expected=["/a", 5], home=HOME)  # type: ignore[list-item]


def test_missing_checkpaths_arguments_are_simply_absent() -> None:
    assert paths({"a": 1}, checkpaths=["path", "attachments[].local_path", "x[3]"]) == []


# --- the cheap answer for calls with nothing to find ---------------------------------------


def test_nothing_to_find_answers_for_typical_catalog_calls() -> None:
    assert nothing_to_find({"file_id": "F", "local_path": "/x"}, skip=["local_path"])
    attachments = {"message_id": "M", "attachments": [{"local_path": "/x"}, {"local_path": "/y"}]}
    assert nothing_to_find(attachments, skip=["attachments[].local_path"])
    assert nothing_to_find({"count": 3, "flag": True, "none": None, "blank": "  "})
    # Anything that could hold a path goes to the full search.
    assert not nothing_to_find({"note": "see /etc/passwd"})
    assert not nothing_to_find(attachments)
    assert not nothing_to_find({"items": [{"note": "./x"}]})
    # So does a call a bound would stop: the search must say it stopped.
    assert not nothing_to_find({"a": {"b": {}}}, limits=DiscoveryLimits(max_depth=1))
    assert not nothing_to_find({"a": 1, "b": 2}, limits=DiscoveryLimits(max_nodes=2))
    # Skips naming single list items are left to the full search to apply.
    assert not nothing_to_find(attachments, skip=["attachments[0].local_path",
                                                  "attachments[1].local_path"])
    assert not nothing_to_find(["not", "a", "mapping"])  # type: ignore[arg-type]
    # One plain word under a name that says nothing of paths: an identifier, a title.
    assert nothing_to_find({"doc_id": "1Bx-9_q", "query": "budget", "sheet": ["Q1", "Q2"],
                            "items": [{"marker": "<marker>"}, {"label": "Zürich"}]})
    # The same word under a path, file-name or command name is searched in full.
    assert not nothing_to_find({"output_file": "report"})
    assert not nothing_to_find({"file_name": "report"})
    assert not nothing_to_find({"command": "id_rsa"})
    # Path punctuation or a space under a plain name goes to the full search as well.
    for text in ("~", "a/b", ".env", "file:x", "see [x](y)", "two\u00a0words"):
        assert not nothing_to_find({"query": text}), text
    assert nothing_to_find({1: "", 2: 3})  # type: ignore[dict-item]  # keys needn't be str


_NAMES = st.sampled_from(["local_path", "file_id", "ids", "note", "attachments", "items",
                          "a", "b", "odd key", "command", "title", "file_name",
                          "output_file"])
_TEXTS = st.sampled_from(["", "  ", "X12", "/etc/passwd", "a/b.txt", ".env", "hello world",
                          "~/x", "cat .env > out.txt", "file:///tmp/a", "~", "id_rsa",
                          "-rf", "X-1_b", "report", "a=b", "2>x", "<marker>", "~user", "see [x](y)",
                          "FILE:x", "x\u00a0/etc/passwd", "$HOME"])
_VALUES = st.recursive(
    st.one_of(_TEXTS, st.integers(-3, 3), st.booleans(), st.none(), st.floats(0, 1)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(_NAMES, inner, max_size=3)),
    max_leaves=12,
)
_SKIPS = st.lists(st.sampled_from([
    "local_path", "attachments[].local_path", "items[]", "a.b", "a", "odd key",
    "attachments[0].local_path", "items[].note", "ids",
]), max_size=4)


@given(
    st.dictionaries(_NAMES, _VALUES, max_size=4),
    _SKIPS,
    st.integers(0, 4),
    st.integers(1, 30),
    st.integers(1, 30),
)
@example({"a": []}, [], 1, 30, 30)  # a list as deep as max_depth: the walk stops there
@example({"a": [[]]}, [], 2, 30, 30)
@example({"ids": ["x", "y"], "a": 1}, [], 4, 3, 30)  # one value more than max_nodes allows
@example({"title": "~"}, [], 4, 30, 30)  # the home folder
@example({"a": ".env"}, [], 4, 30, 30)  # a credential file's name
@example({"note": "/etc/passwd"}, [], 4, 30, 30)
@example({"note": "see [x](y)"}, [], 4, 30, 30)  # a link target in prose
@example({"command": "id_rsa"}, [], 4, 30, 30)
@example({"file_name": "report", "output_file": "X-1_b"}, [], 4, 30, 30)
def test_nothing_to_find_never_hides_a_path_or_a_stop(
    arguments: dict[str, Any], skip: list[str], depth: int, nodes: int, strings: int,
) -> None:
    limits = DiscoveryLimits(max_depth=depth, max_nodes=nodes, max_strings=strings)
    if nothing_to_find(arguments, skip=skip, limits=limits):
        # A checkpaths entry naming no argument makes discover_paths take its full walk
        # rather than the shortcut under test.
        result = discover_paths(arguments, home=HOME, skip=skip, limits=limits,
                                checkpaths=["not_an_argument"])
        assert list(result) == [] and result.stopped == []


def test_a_skip_list_applies_to_its_own_call_only() -> None:
    args = {"local_path": "/x", "other": "/y"}
    assert paths(args, skip=["local_path"]) == ["/y"]
    assert sorted(paths(args)) == ["/x", "/y"]
    assert paths(args, skip=["other"]) == ["/x"]


def test_a_checkpaths_entry_must_be_a_location_string() -> None:
    with pytest.raises(DiscoveryError, match=r"checkpaths\[1\] must be .* not int"):
        discover_paths({"a": "/x"}, home=HOME, checkpaths=["a", 7])  # type: ignore[list-item]
