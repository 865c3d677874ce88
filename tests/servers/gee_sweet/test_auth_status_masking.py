"""The auth-status preview with secrets in the configuration: the secrets are masked
inside the JSON strings (the output stays JSON), and a plain word that merely occurs inside
a secret (``"service_account"`` in a service account's key file) is shown as itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Layout
from conftest import run_cli as run

from localfs_explorer.secrets import MASK, safe_json, scrub

#: A service account's key file, as CREDENTIALS_CONFIG may hold it inline.
SERVICE_ACCOUNT = json.dumps({
    "type": "service_account",
    "project_id": "ledger-prod-7731",
    "private_key_id": "9c0ffee5d1e2a3b4c5d6e7f8091a2b3c4d5e6f70",
    "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcw"
                   "ggSjAgEAAoIBAQC7Zq\n-----END PRIVATE KEY-----\n",
    "client_email": "exporter@ledger-prod-7731.iam.gserviceaccount.com",
    "token_uri": "https://oauth2.googleapis.com/token",
})


def strings(obj: Any) -> list[str]:
    """Every string of a JSON value, keys included."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in (k, *strings(v))]
    if isinstance(obj, list):
        return [s for v in obj for s in strings(v)]
    return []


def assert_no_secret(text: str, secret: str) -> None:
    data = json.loads(text)  # JSON, masks and all
    for s in strings(data):
        assert scrub(s, [secret]) == s, s
    for piece in ("BEGIN PRIVATE KEY", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
                  "9c0ffee5d1e2a3b4", "exporter@ledger"):
        if piece in secret:
            assert piece not in text


def test_secrets_are_masked_inside_strings_and_the_text_stays_json() -> None:
    secret = "client-secret-4f9a1c"
    obj = {"roots": [f"/data/{secret}/in", "/srv"], f"k-{secret}": 3, "ok": True}
    text = safe_json(obj, [secret])
    assert json.loads(text) == {"roots": [f"/data/{MASK}/in", "/srv"], f"k-{MASK}": 3,
                                "ok": True}
    assert secret not in text
    # A spelling the strings don't show whole is still caught by the final check.
    fragment = '{"a": "b"}'
    assert safe_json({"a": "b"}, [fragment], indent=None) == MASK


def test_a_word_inside_a_service_account_key_is_shown_where_it_is_not_the_secret() -> None:
    text = safe_json({"branch": "service_account", "key": SERVICE_ACCOUNT,
                      "note": f"held in {SERVICE_ACCOUNT}"}, [SERVICE_ACCOUNT])
    data = json.loads(text)
    assert data["branch"] == "service_account"
    assert data["key"] == MASK and data["note"] == f"held in {MASK}"
    assert_no_secret(text, SERVICE_ACCOUNT)


def service_account_env(layout: Layout, roots: str) -> Path:
    env = layout.base / "sa.env"
    env.write_text("LOCAL_FILE_ACCESS=roots\n"
                   f"LOCAL_FILE_ROOTS={roots}\n"
                   f"CREDENTIALS_CONFIG='{SERVICE_ACCOUNT}'\n", encoding="utf-8")
    return env


@pytest.mark.parametrize("extra", [[], ["--json"], ["--branch", "service_account"]])
def test_cli_auth_status_with_a_service_account_secret_is_json(layout: Layout, extra) -> None:
    env = service_account_env(layout, str(layout.data))
    code, out, err = run("auth-status", "--env", env, "--cwd", layout.app, *extra)
    assert code == 0, err
    data = json.loads(out)
    assert "service_account" in data["_preview"]["local_file_access_identical_in"]
    if "--branch" in extra:
        assert data["_preview"]["branch"] == "service_account"
    assert data["local_file_access"]["roots"] == [str(layout.data)]
    assert MASK not in out
    assert_no_secret(out, SERVICE_ACCOUNT)


def test_cli_auth_status_masks_a_secret_inside_a_root(layout: Layout) -> None:
    secret = "client-secret-4f9a1c"
    (layout.data / secret).mkdir()
    env = layout.base / "plain.env"
    env.write_text(f"DIR={layout.data}\nCREDENTIALS_CONFIG={secret}\nLOCAL_FILE_ACCESS=roots\n"
                   "LOCAL_FILE_ROOTS=${DIR}/${CREDENTIALS_CONFIG}\n", encoding="utf-8")
    code, out, err = run("auth-status", "--env", env, "--cwd", layout.app)
    assert code == 0, err
    data = json.loads(out)
    assert data["local_file_access"]["roots"] == [f"{layout.data}/{MASK}"]
    assert secret not in out + err


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_dashboard_preview_with_a_service_account_secret_is_json(layout: Layout) -> None:
    pytest.importorskip("ipywidgets")
    from ui_support import text_of

    from localfs_explorer.ui import Explorer

    app = Explorer(cwd=str(layout.app), debounce=0)
    server = app.panel("server")
    server.env_path.value = str(service_account_env(layout, str(layout.data)))
    server.env_load.click()
    auth = app.show("auth")
    shown = text_of(auth.view.value)
    data = json.loads(shown)
    assert data["local_file_access"]["mode"] == "roots"
    assert data["_preview"] == app.model.auth_status["_preview"]  # nothing masked there
    assert "service_account" in data["_preview"]["local_file_access_identical_in"]
    assert MASK not in shown
    assert_no_secret(shown, SERVICE_ACCOUNT)
