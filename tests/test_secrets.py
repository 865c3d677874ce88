"""The one rule for which settings are secret, and how they are hidden."""

from __future__ import annotations

import pytest

from localfs_explorer.secrets import (
    MASK,
    is_secret_key,
    mask,
    masked,
    mentions_secret_key,
    scrub,
    secret_values,
    shown_value,
)


@pytest.mark.parametrize(
    "name",
    [
        "CREDENTIALS_CONFIG",
        "credentials_config",
        "API_KEY",
        "GITHUB_TOKEN",
        "DB_PASSWORD",
        "CLIENT_SECRET",
        "client_secret",
        "SECRET",
        "OAUTH_REFRESH_TOKEN",
    ],
)
def test_names_that_say_secret_are_secret(name: str) -> None:
    assert is_secret_key(name)


@pytest.mark.parametrize(
    "name",
    [
        # Where a secret lives is shown: the policy's deny-list is about exactly these.
        "TOKEN_PATH",
        "CREDENTIALS_PATH",
        "SERVICE_ACCOUNT_PATH",
        "KEY_FILE",
        "SECRET_FILE_PATH",
        "token_path",
        # Ordinary settings.
        "LOCAL_FILE_ACCESS",
        "LOCAL_FILE_ROOTS",
        "ENABLED_TOOLS",
        "LOG_FILE",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "CACHE_DB_PATH",
    ],
)
def test_locations_and_ordinary_settings_are_not_secret(name: str) -> None:
    assert not is_secret_key(name)


def test_mask_reveals_nothing_not_even_the_length() -> None:
    values = ["a", "hunter2", "x" * 500, "canary-0123456789", ""]
    shown = {mask(v) for v in values}
    assert shown == {MASK}
    assert all(v not in MASK for v in values if v)


def test_masked_hides_only_secret_values() -> None:
    values = {"CREDENTIALS_CONFIG": '{"id": 1}', "TOKEN_PATH": "/srv/token.json", "K": None}
    assert masked(values) == {"CREDENTIALS_CONFIG": MASK, "TOKEN_PATH": "/srv/token.json",
                              "K": None}
    assert shown_value("API_TOKEN", "abc") == MASK
    assert shown_value("API_TOKEN", None) is None


def test_scrub_hides_secret_values_wherever_they_appear() -> None:
    secrets = secret_values({"API_KEY": "sk-live-abcdef", "LONGER_SECRET": "sk-live-abcdef-2",
                             "SHORT_TOKEN": "on", "LOG_FILE": "/var/log/x"})
    text = "old: sk-live-abcdef-2, new: sk-live-abcdef, flag: on, log /var/log/x"
    result = scrub(text, secrets)
    assert "sk-live" not in result
    # The longer secret is hidden whole, not as "<mask>-2".
    assert result == f"old: {MASK}, new: {MASK}, flag: on, log /var/log/x"


def test_mentions_secret_key_finds_names_inside_unparsable_text() -> None:
    assert mentions_secret_key('export CREDENTIALS_CONFIG = "{"')
    assert mentions_secret_key("junk API_TOKEN junk")
    assert not mentions_secret_key("TOKEN_PATH is here")
    assert not mentions_secret_key("plain words")


def test_writelines_on_the_cli_streams_masks_and_escapes_like_write() -> None:
    """``writelines`` must not reach the wrapped stream unmasked (a wrapper forwarding
    unknown methods would hand it the raw lines)."""
    import io

    from localfs_explorer.secrets import ScrubbingWriter
    from localfs_explorer.textsafe import SafeWriter

    raw = io.StringIO()
    ScrubbingWriter(SafeWriter(raw), {"s3cr3t-value"}).writelines(
        ["root s3cr3t-value\n", "bell \x07\n"])
    assert "s3cr3t-value" not in raw.getvalue()
    assert "\x07" not in raw.getvalue() and raw.getvalue().count("\n") == 2
