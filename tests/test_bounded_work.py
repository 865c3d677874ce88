"""Hostile input costs bounded work: stdin, .env expansion, image search, TOML keys.

Each input here is built to be cheap to send and expensive to take in; the tool must
refuse it with one line (exit 2 from the CLI) or answer in time linear in its size.
"""

from __future__ import annotations

import io

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
