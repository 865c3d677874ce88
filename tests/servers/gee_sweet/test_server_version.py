"""The server release the engine reproduces is data, and it is the one tested against."""

from __future__ import annotations

import importlib.metadata
import re

import pytest

from localfs_explorer.servers.gee_sweet.profile import ServerProfile, load_profile


def test_the_shipped_profile_names_a_release() -> None:
    profile = load_profile()
    assert profile.name == "mcp-gee-sweet"
    assert re.fullmatch(r"\d+\.\d+\.\d+", profile.server_version)


def test_the_named_release_is_the_one_installed_for_the_conformance_tests() -> None:
    try:
        installed = importlib.metadata.version("mcp-gee-sweet")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("the real server is not installed (the test extra installs it)")
    assert load_profile().server_version == installed


def test_a_profile_without_a_release_still_loads() -> None:
    data = load_profile().model_dump()
    del data["server_version"]
    assert ServerProfile.model_validate(data).server_version == ""
