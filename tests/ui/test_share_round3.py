"""The share panel carries no secret, round three: decided by value as well as by name,
in every spelling, in the copied command and in the link, without mangling the link."""

from __future__ import annotations

import html
import json
import re
import shlex
from urllib.parse import parse_qsl, quote, quote_plus

import pytest
from ui_support import text_of

from localfs_explorer.secrets import MASK
from localfs_explorer.ui import Explorer
from localfs_explorer.ui.share import command_line, query_string

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PROXY_PASSWORD = "hunter2-proxy-pw"
PROXY = f"http://bob:{PROXY_PASSWORD}@proxy:3128"
TOKEN = "tok-R3-5f1c0a9e"


def _spellings(value: str) -> list[str]:
    return [value, value.upper(), quote(value, safe=""), quote_plus(value), quote(value)]


def _leaks(text: str, *values: str) -> list[str]:
    return [s for v in values for s in _spellings(v) if s in text]


@pytest.fixture
def app(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    m = app.model
    m.overrides = [("HTTP_PROXY", PROXY), ("API_TOKEN", TOKEN),
                   ("LOCAL_FILE_ACCESS", "roots"),
                   ("LOCAL_FILE_ROOTS", f"{layout.data}/{TOKEN}")]
    m.paths_text = f"{layout.data}/{TOKEN}/a.csv\n{layout.data}/report.csv\n"
    return app


def test_the_copied_command_and_the_link_hold_no_secret(app, layout):
    app.share_button.click()
    shown = app.share.value
    assert _leaks(html.unescape(shown), PROXY_PASSWORD, TOKEN) == []
    command = text_of(shown.split("</pre>")[0])
    # What the copy button puts on the clipboard is the command shown, placeholders and all.
    onclick = html.unescape(re.search(r'class="lfe-copy"[^>]*onclick="([^"]*)"', shown)[1])
    assert json.dumps(command) in onclick
    argv = shlex.split(command)
    assert "HTTP_PROXY=<your HTTP_PROXY>" in argv and "API_TOKEN=<your API_TOKEN>" in argv
    # A setting holding another secret's value: a placeholder too.
    assert "LOCAL_FILE_ROOTS=<your LOCAL_FILE_ROOTS>" in argv
    assert f"{layout.data}/<secret>/a.csv" in argv
    assert f"{layout.data}/report.csv" in argv
    link = html.unescape(re.search(r'class="lfe-share-link" href="\?([^"]*)"', shown)[1])
    assert MASK not in link  # the link is whole, not masked in its middle
    pairs = parse_qsl(link)
    assert ("set", "LOCAL_FILE_ACCESS=roots") in pairs
    assert ("path", f"{layout.data}/report.csv") in pairs
    assert all(k != "set" or not v.startswith(("HTTP_PROXY", "API_TOKEN", "LOCAL_FILE_ROOTS"))
               for k, v in pairs)


def test_share_functions_decide_by_value_and_by_known_secret():
    options = {"overrides": [("UPSTREAM", PROXY), ("NOTE", f"see {TOKEN}"),
                             ("LOCAL_FILE_ACCESS", "full")],
               "cwd": f"/srv/{TOKEN}", "paths_text": "/srv/plain.txt\n"}
    line = command_line(options, secrets={TOKEN})
    query = query_string(options, secrets={TOKEN})
    assert _leaks(line + query, PROXY_PASSWORD, TOKEN) == []
    assert line.endswith("# left out (secret): NOTE, UPSTREAM")
    argv = shlex.split(line, comments=True)
    assert argv[argv.index("--cwd") + 1] == "/srv/<secret>"
    assert "LOCAL_FILE_ACCESS%3Dfull" in query and "cwd" not in query
    # Without knowing the token, only the password URL is a secret (by its value).
    assert f"/srv/{TOKEN}" in command_line(options, secrets=())
