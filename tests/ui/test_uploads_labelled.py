"""Every upload button of the app says what it takes: the page hides FileUpload's own
text (its "(0)" counter) and puts a label back per button, which a new button can miss."""

from __future__ import annotations

import re

import ipywidgets as widgets
import pytest

from localfs_explorer.render import STYLE
from localfs_explorer.ui import Explorer

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _walk(widget):
    yield widget
    for child in getattr(widget, "children", ()) or ():
        yield from _walk(child)


def test_every_upload_button_has_a_visible_label():
    app = Explorer(lazy=False, debounce=0)
    uploads = [w for w in _walk(app) if isinstance(w, widgets.FileUpload)]
    assert len(uploads) >= 8  # client config, hangar YAML and Compare's other .env among them
    labels = dict(re.findall(r'\.lfe-app \.([\w-]+)::before \{ content: "([^"]+)"; \}', STYLE))
    for upload in uploads:
        shown = [labels[c] for c in upload._dom_classes if c in labels]
        assert shown == [upload.description], (upload._dom_classes, upload.description)
