"""``resolve_policy`` takes a plain mapping of settings, the first thing a notebook tries."""

from __future__ import annotations

import pytest

from localfs_explorer import load_env, resolve_policy
from localfs_explorer.fs import VirtualFS
from localfs_explorer.vocab import Mode


def _host() -> VirtualFS:
    fs = VirtualFS(home="/home/u", cwd="/home/u")
    for folder in ("/srv/data", "/home/u"):
        fs.mkdir(folder, exist_ok=True)
    return fs


def test_a_plain_dict_is_the_server_process_environment() -> None:
    fs = _host()
    settings = {"LOCAL_FILE_ACCESS": "roots", "LOCAL_FILE_ROOTS": "/srv/data"}
    policy = resolve_policy(settings, fs=fs)
    same = resolve_policy(load_env(overrides=settings), fs=fs)
    assert policy.mode is Mode.ROOTS and policy.mode is same.mode
    assert policy.roots == same.roots and policy.deny_list == same.deny_list
    assert policy.env.from_process == frozenset(settings)
    assert policy.check_read("/srv/data/a.txt").allowed
    assert not policy.check_read("/home/u/a.txt").allowed


def test_an_empty_dict_is_no_settings() -> None:
    fs = _host()
    assert resolve_policy({}, fs=fs).mode is resolve_policy(None, fs=fs).mode


@pytest.mark.parametrize("env, named", [
    (["LOCAL_FILE_ACCESS=roots"], "list"),
    ({"LOCAL_FILE_ACCESS": 1}, "'LOCAL_FILE_ACCESS'"),
    ("LOCAL_FILE_ACCESS=roots", "str"),
])
def test_anything_else_is_a_type_error_saying_what_to_pass(env, named) -> None:
    with pytest.raises(TypeError, match="resolve_policy: env") as caught:
        resolve_policy(env)
    assert named in str(caught.value) and "\n" not in str(caught.value)
