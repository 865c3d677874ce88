"""The spellings a secret is masked in beyond case, paths and JSON: as a URL carries it,
base64-encoded, and a URL's password on its own; and what is no secret of a URL."""

from __future__ import annotations

import base64
from urllib.parse import quote, quote_plus

from localfs_explorer.secrets import MASK, holds_secret, scrub

SECRET = "p@ss w/rd+7&x"
PROXY = "http://bob:hunter2-proxy-pw@proxy:3128"


def test_url_encoded_spellings_are_masked():
    for form in (quote(SECRET, safe=""), quote(SECRET), quote_plus(SECRET)):
        assert scrub(f"?set=A%3D{form}&b=1", {SECRET}) == f"?set=A%3D{MASK}&b=1", form


def test_base64_of_the_whole_value_is_masked():
    encoded = base64.b64encode(SECRET.encode()).decode()
    assert MASK in scrub(f"Authorization: Basic {encoded}", {SECRET})
    assert holds_secret(base64.urlsafe_b64encode(SECRET.encode()).decode(), {SECRET})


def test_a_urls_password_alone_is_masked_and_its_scheme_is_not():
    text = "HTTP_PROXY uses hunter2-proxy-pw; see http://example.org and https://x"
    assert scrub(text, {PROXY}) == (f"HTTP_PROXY uses {MASK}; see http://example.org and "
                                    "https://x")
