"""A long list of paths goes in as a file: Paths and Compare offer an upload beside the box."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from ui_support import text_of

from localfs_explorer.ui import Explorer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _upload(widget, name: str, data: bytes) -> None:
    widget.value = ({"name": name, "type": "text/plain", "size": len(data),
                     "last_modified": datetime.now(timezone.utc), "content": memoryview(data)},)


def _paths(layout, n: int) -> list[str]:
    return [str(layout.data / f"dir-{i:05d}" / "report-file.csv") for i in range(n)]


def test_an_uploaded_list_of_paths_is_checked_like_a_pasted_one(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0,
                   overrides=[("LOCAL_FILE_ACCESS", "roots"),
                              ("LOCAL_FILE_ROOTS", str(layout.data))])
    panel = app.show("paths")
    lines = [*_paths(layout, 6_000), str(layout.outside / "other.txt")]
    data = ("\n".join(lines) + "\n").encode()
    assert len(data) > 300_000
    _upload(panel.upload, "paths.txt", data)
    assert len(app.model.decisions) == len(lines)
    assert [d.path for d in app.model.decisions] == lines
    assert f"{len(lines)} path(s): {len(lines) - 1} allowed, 1 refused" in text_of(
        panel.counts.value)
    assert panel.upload.value == ()  # taken in; the same file can be sent again
    # The same answers as the text pasted into the box.
    pasted = Explorer(host_cwd=str(layout.app), debounce=0,
                      overrides=[("LOCAL_FILE_ACCESS", "roots"),
                                 ("LOCAL_FILE_ROOTS", str(layout.data))])
    pasted.show("paths").paths.value = data.decode()
    assert [(d.path, d.allowed, d.reason) for d in pasted.model.decisions] == [
        (d.path, d.allowed, d.reason) for d in app.model.decisions]


def test_an_upload_that_is_not_text_says_so_and_keeps_the_paths(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    panel = app.show("paths")
    app.model.paths_text = str(layout.data / "kept.csv")
    _upload(panel.upload, "photo.jpg", b"\xff\xd8\xff\xe0 not text")
    assert app.model.paths_text == str(layout.data / "kept.csv")
    assert "photo.jpg: not UTF-8 text (byte 0); refused" in app.model.last_error


def test_compare_takes_its_extra_paths_as_a_file_too(layout):
    app = Explorer(host_cwd=str(layout.app), debounce=0)
    panel = app.show("compare")
    data = "\n".join(_paths(layout, 50)).encode()
    _upload(panel.paths_upload, "more.txt", data)
    assert panel.paths.value == data.decode()
