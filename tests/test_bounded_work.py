"""Hostile input costs bounded work: stdin, .env expansion, image search, TOML keys.

Each input here is built to be cheap to send and expensive to take in; the tool must
refuse it with one line (exit 2 from the CLI) or answer in time linear in its size.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

import pytest

from localfs_explorer.cli.main import main
from localfs_explorer.userfiles import MAX_FILE_BYTES


class _EndlessStdin(io.RawIOBase):
    """A pipe that never ends (``/dev/zero`` through ``-``), counting what was read."""

    def __init__(self, line: bytes) -> None:
        self.line = line
        self.served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        if self.served > 3 * MAX_FILE_BYTES:  # a reader with no limit: end the test
            return 0
        data = (self.line * (len(buffer) // len(self.line) + 1))[: len(buffer)]
        buffer[: len(data)] = data
        self.served += len(data)
        return len(data)


@pytest.mark.parametrize("argv, line", [
    (["check", "--paths-file", "-"], b'"/tmp/a"\n'),
    (["check", "--env", "-", "/tmp"], b"K=1\n"),
    (["replay", "-"], b"[" * 1 + b" " * 63),
    (["test", "-"], b"# a comment line\n"),
    (["probe", "--calls", "-"], b"\n"),
])
def test_stdin_larger_than_the_file_limit_is_refused_without_reading_it_all(argv,
                                                                            line) -> None:
    raw = _EndlessStdin(line)
    stdin = io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, out=out, err=err, stdin=stdin)
    assert code == 2, err.getvalue()
    assert err.getvalue() == (f"localfs-explorer {argv[0]}: <stdin>: larger than the "
                              "16 MiB limit; refused\n")
    # Given up on at the limit, not read to the end of a stream that has none.
    assert raw.served <= MAX_FILE_BYTES + 2 * 1024 * 1024
    assert out.getvalue() == ""


def test_stdin_as_a_plain_text_stream_is_bounded_too() -> None:
    class Endless(io.TextIOBase):
        def read(self, size: int | None = -1) -> str:
            assert size is not None and size > 0, "read to the end"
            return "K=1\n" * (size // 4 + 1)

    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--env", "-", "/tmp"], out=out, err=err, stdin=Endless())
    assert code == 2 and "<stdin>: larger than the 16 MiB limit; refused" in err.getvalue()


def test_stdin_under_the_limit_still_reads() -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b'"/tmp/a"\r\n"/tmp/b"\n'), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--paths-file", "-", "--json", "--set", "LOCAL_FILE_ACCESS=off"],
                out=out, err=err, stdin=stdin)
    assert code in (0, 1), err.getvalue()
    assert out.getvalue().count("\n") == 2


# --- .env expansion -------------------------------------------------------------------


def test_doubling_references_are_refused_naming_the_line_and_key(tmp_path) -> None:
    from conftest import run_cli

    env = tmp_path / ".env"
    env.write_text("A=x\n" + "A=${A}${A}\n" * 100)  # about 1 KB, 2**100 characters
    assert env.stat().st_size < 1200
    code, out, err = run_cli("check", "--env", env, "/tmp")
    assert code == 2 and out == ""
    # Line n holds 2**(n-1) characters; lines 1..25 together pass 2**24.
    assert err == (f"localfs-explorer check: {env}:25: expanding ${{...}} in A makes the "
                   "values longer than 16 Mi characters; refused\n")


def test_expansion_just_under_the_limit_still_loads() -> None:
    from localfs_explorer.envfile.load import MAX_EXPANDED_CHARS, load_env

    doublings = (MAX_EXPANDED_CHARS // 4).bit_length() - 1  # total stays under the limit
    env = load_env(text="A=x\n" + "A=${A}${A}\n" * doublings, path="x.env")
    assert env.values["A"] == "x" * 2 ** doublings


class _CountingEnv(Mapping):
    """A process environment that counts how often its values are read."""

    reads = 0

    def __init__(self, values: dict[str, str]) -> None:
        self._values = values

    def __getitem__(self, key: str) -> str:
        type(self).reads += 1
        return self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


def test_resolution_reads_the_process_environment_once_not_once_per_line() -> None:
    from localfs_explorer.envfile.load import resolve_env

    process = _CountingEnv({f"P{i}": "p" for i in range(500)})
    pairs = [(f"K{i}", f"${{K{i - 1}}}-${{P1}}") for i in range(2000)]
    _CountingEnv.reads = 0
    values = resolve_env(pairs, process)
    assert values["K1"] == "-p-p" and values["P3"] == "p"
    # Rebuilding the scope per line reads it 2000 * 500 times.
    assert _CountingEnv.reads < 4 * (len(process) + len(pairs))


def test_linear_resolution_keeps_python_dotenv_semantics() -> None:
    from localfs_explorer.envfile.load import load_env

    text = ("A=file\nB=${A}\nP=file\nC=${P}:${B}\nA=again\nD=${A}${MISSING:-dflt}\n"
            "E\nF=${E}\n")
    env = load_env(text=text, overrides={"P": "proc"}, path="x.env")
    assert env.values == {"A": "again", "B": "file", "P": "proc", "C": "proc:file",
                          "D": "againdflt", "F": ""}


# --- image sources in tool arguments ---------------------------------------------------


def _count_start_tags(monkeypatch) -> list[int]:
    from localfs_explorer.probe import images

    calls = [0]
    original = images._ImageSources.parse_starttag

    def counted(self, i):
        calls[0] += 1
        return original(self, i)

    monkeypatch.setattr(images._ImageSources, "parse_starttag", counted)
    images._image_sources.cache_clear()
    return calls


@pytest.mark.parametrize("hostile", ["<img src=", "<img src='>'b ", '<img src="'])
def test_unfinished_tags_are_read_once_not_rescanned_per_tag(monkeypatch, hostile) -> None:
    from localfs_explorer.probe.images import extract_image_sources

    calls = _count_start_tags(monkeypatch)
    text = '<img src="a.png">' + hostile * 5000
    assert extract_image_sources(text, "html") == ["a.png"]
    # Closing the parser retried every unfinished tag, each a scan to the end.
    assert calls[0] <= 3


@pytest.mark.parametrize("hostile", ["<img src=", "<img src='", "![a](", "<![ >"])
def test_markdown_that_cannot_hold_an_image_is_not_rendered(monkeypatch, hostile) -> None:
    from localfs_explorer.probe import images

    def no_render(text):
        raise AssertionError("rendered")

    monkeypatch.setattr(images, "_markdown_to_html", no_render)
    images._image_sources.cache_clear()
    assert images.extract_image_sources(hostile * 10000, "markdown") == []


IMAGE_TEXTS = [
    '<img src="a.png" alt=\'x> <img src="b.png">',
    "<p x='> <img src=\"c.png\">",
    '<img src="a.png"><!-- x > <img src="b.png">',
    "<img src=\"a.png\"><a x='>'b <img src=\"b.png\">",
    '<img src="a.png"><img src=<img src="b.png"',
    '<img src="a.png"></',
    '<IMG SRC="up.png"><img/src="slash.png">',
]


@pytest.mark.real
@pytest.mark.parametrize("text", IMAGE_TEXTS)
def test_images_after_an_unfinished_tag_are_the_servers(text) -> None:
    pytest.importorskip("mcp_gee_sweet")
    from mcp_gee_sweet.tools.docs.emitter import extract_images
    from mcp_gee_sweet.tools.docs.html_parser import html_to_ast

    from localfs_explorer.probe.images import extract_image_sources

    server = [image.src for image in extract_images(html_to_ast(text))]
    assert extract_image_sources(text, "html") == server


# --- TOML dotted keys ---------------------------------------------------------------------


class _Refused(Exception):
    pass


@pytest.mark.parametrize("text, line", [
    ("x = 1\n" + "a" + ".a" * 40_000 + " = 1\n", 2),
    ("[" + ".".join(["t"] * 65) + "]\n", 1),
    ("[[" + " . ".join(["t"] * 65) + "]]\n", 1),
    ('s = """\n.\n"""\nk.' + ".".join(['"q.q"'] * 70) + " = 1\n", 4),
    ("t = {" + ".".join(["k"] * 65) + " = 1}\n", 1),
])
def test_dotted_keys_of_more_parts_than_the_nesting_limit_are_refused(text, line) -> None:
    from localfs_explorer.userfiles import MAX_NESTING, parse_toml

    with pytest.raises(_Refused) as caught:
        parse_toml(text, "f.toml", _Refused)
    assert str(caught.value) == (f"f.toml:{line}: a dotted key of more than {MAX_NESTING} "
                                 "parts; refused")


@pytest.mark.parametrize("text", [
    "a" + ".a" * 63 + " = 1\n",  # 64 parts: the limit itself
    'v = 1.5\nw = "' + "a." * 500 + '"\n# ' + "a." * 500 + "\n",  # dots in strings, comments
    "".join(f"d{i} = 1979-05-27T07:32:00.999\nf{i} = {i}.5\n" for i in range(100)),
])
def test_keys_within_the_limit_and_dots_elsewhere_still_parse(text) -> None:
    from localfs_explorer.userfiles import parse_toml

    assert parse_toml(text, "f.toml", _Refused)


def test_a_scenario_file_with_a_deep_dotted_key_is_one_line_exit_2(tmp_path) -> None:
    from conftest import run_cli

    scenario = tmp_path / "deep.toml"
    scenario.write_text("a" + ".a" * 40_000 + " = 1\n")
    code, out, _err = run_cli("test", scenario)
    assert code == 2
    assert f"ERROR  {scenario}:1: a dotted key of more than 64 parts; refused\n" in out
