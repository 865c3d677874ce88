"""The share link stands on its own: the page it opens uses every non-secret setting the
sender's page used, asks for the secrets by name, and says what the link couldn't carry."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qsl

import pytest

from localfs_explorer.ui import Explorer
from localfs_explorer.ui.entry_model import fill_link_secret
from localfs_explorer.ui.model import ExplorerModel
from localfs_explorer.ui.share import options_from_query, page_query

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SECRET = "do-not-show"  # the layout's .env holds CREDENTIALS_CONFIG=do-not-show


def _verdicts(model: ExplorerModel) -> list[tuple[str, str, str]]:
    model.recompute()
    return [(d.path, str(d.allowed), d.reason) for d in model.decisions]


@pytest.fixture
def sender(layout):
    (layout.data / "passwd-link").symlink_to(layout.outside / "other.txt")
    m = ExplorerModel(env_path=str(layout.app / ".env"), host_cwd=str(layout.app),
                      debounce=0, op="write")
    # The bar's edits: roots mode limited to the data directory.
    m.set_file_value("LOCAL_FILE_ACCESS", "roots")
    m.set_file_value("LOCAL_FILE_ROOTS", str(layout.data))
    m.paths_text = "\n".join([str(layout.data / "passwd-link"), str(layout.data / "new.csv"),
                              str(layout.outside / "other.txt")])
    return m


def test_the_link_opens_the_same_policy_and_verdicts(sender, layout, tmp_path):
    query, missing = page_query(sender)
    assert SECRET not in query and missing == []
    options, problems = options_from_query(query)
    assert problems == []
    # Opened elsewhere: another startup directory, and a .env the page was started with.
    (tmp_path / "other.env").write_text("LOCAL_FILE_ACCESS=full\nEXTRA=1\n")
    opened = ExplorerModel(**{"env_path": str(tmp_path / "other.env"), **options},
                           host_cwd=str(tmp_path), debounce=0)
    sent = _verdicts(sender)
    assert [v[1] for v in sent] == ["False", "True", "False"]  # the symlink write refused
    assert _verdicts(opened) == sent
    assert opened.policy.mode.value == "roots"
    assert opened.file_value("LOCAL_FILE_ACCESS") == "roots"  # the bar shows the mode
    assert opened.file_value("EXTRA") is None  # nothing of the recipient's own .env
    assert opened.policy.package_dir == sender.policy.package_dir
    # The secret travelled by name only; a placeholder stands in, to fill in.
    assert opened.link_secrets == ["CREDENTIALS_CONFIG"]
    assert opened.file_value("CREDENTIALS_CONFIG") == "<your CREDENTIALS_CONFIG>"
    fill_link_secret(opened, "CREDENTIALS_CONFIG", "the-real-one")
    assert opened.file_value("CREDENTIALS_CONFIG") == "the-real-one"
    assert opened.link_secrets == []
    assert _verdicts(opened) == sent


def test_process_settings_and_the_server_travel_too(layout):
    m = ExplorerModel(host_cwd=str(layout.app), debounce=0, transport="sse",
                      overrides=[("LOCAL_FILE_ACCESS", "roots"),
                                 ("LOCAL_FILE_ROOTS", str(layout.data)),
                                 ("API_TOKEN", "tok-123456789")])
    pairs = parse_qsl(page_query(m)[0])
    assert ("set", f"LOCAL_FILE_ROOTS={layout.data}") in pairs
    assert ("secret_process", "API_TOKEN") in pairs
    assert ("transport", "sse") in pairs
    assert ("cwd", str(layout.app)) in pairs  # the assumed startup directory, spelled out
    options, _ = options_from_query(page_query(m)[0])
    assert dict(options["overrides"])["API_TOKEN"] == "<your API_TOKEN>"
    assert options["link_secrets"] == ["API_TOKEN"]
    # No .env on the sender's page: the opened page drops the one it was started with.
    opened = ExplorerModel(**{"env_path": str(layout.app / ".env"), **options},
                           host_cwd=str(layout.app), debounce=0)
    assert opened.env_path == "" and opened.policy.mode.value == "roots"
    assert opened.file_value("CREDENTIALS_CONFIG") is None

    fs = ExplorerModel(host_cwd=str(layout.app), debounce=0)
    with fs.hold():
        fs.server = "server-filesystem"
        fs.server_version = _older_release()
        fs.server_options = {"directories": [str(layout.data)], "roots": [],
                             "home": str(layout.home)}
    options, problems = options_from_query(page_query(fs)[0])
    assert problems == []
    assert options["server"] == fs.server and options["server_version"] == fs.server_version
    assert options["server_options"] == {"directories": [str(layout.data)], "roots": [],
                                         "home": str(layout.home)}


def _older_release() -> str:
    from localfs_explorer.server import get_server

    return get_server("server-filesystem").versions[-1]


def test_what_the_link_cannot_carry_is_said_on_both_pages(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    app.model.load_spec_upload("box.json", '{"dirs": ["/data"]}')
    app.share_button.click()
    shown = html.unescape(app.share.value)
    assert "It can't carry: the uploaded host description box.json" in shown
    assert "token" in app.share.value and "localfs-explorer serve" in app.share.value
    link = re.search(r'class="lfe-share-link" href="\?([^"]*)"', shown)[1]
    options, _ = options_from_query(link)
    opened = Explorer(**options, host_cwd=str(layout.app), debounce=0)
    assert "box.json: upload it again" in html.unescape(opened.link_note.value)
    assert Explorer(debounce=0).link_note.value == ""  # a page not opened from a link


def test_the_recipient_fills_a_secret_in_the_page(layout):
    options, _ = options_from_query("dotenv=LOCAL_FILE_ACCESS%3Dfull&secret=API_KEY")
    app = Explorer(**options, host_cwd=str(layout.app), debounce=0)
    assert "API_KEY" in app.link_note.value
    box, use = app.link_fill.children[0].children
    box.value = "real-key-0123456"
    use.click()
    assert box.value == ""  # not kept in the browser once used
    assert app.model.file_value("API_KEY") == "real-key-0123456"
    assert list(app.link_fill.children) == []
    assert "real-key-0123456" not in app.link_note.value
    # A secret named in a link can't be given a value by the link itself.
    _, problems = options_from_query("dotenv=API_KEY%3Dleaked")
    assert problems == ["API_KEY is a secret setting: not taken from a URL"]
