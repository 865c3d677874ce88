"""One base class for the errors a user can cause, and one place the CLI reports them."""

from __future__ import annotations

import importlib
import inspect
import io
import pkgutil

import pytest

import localfs_explorer
from localfs_explorer.cli import check as check_command
from localfs_explorer.cli import main as cli
from localfs_explorer.errors import LocalfsError


def _package_modules():
    for info in pkgutil.walk_packages(localfs_explorer.__path__, "localfs_explorer."):
        if info.name == "localfs_explorer.__main__":
            continue
        yield importlib.import_module(info.name)


def _error_classes():
    for module in _package_modules():
        for _name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, Exception)
                    and obj.__module__ == module.__name__):
                yield obj


def test_every_error_class_of_the_package_derives_from_the_base():
    found = list(_error_classes())
    assert len(found) >= 18  # the user-facing errors of every layer
    strays = sorted(c.__qualname__ for c in found if not issubclass(c, LocalfsError))
    assert strays == []


def test_the_base_is_a_value_error_so_older_except_clauses_still_catch():
    from localfs_explorer.envfile.load import EnvFileError
    from localfs_explorer.servers.gee_sweet.policy import PolicyError

    assert issubclass(LocalfsError, ValueError)
    assert issubclass(PolicyError, LocalfsError)
    assert issubclass(EnvFileError, LocalfsError)


@pytest.mark.parametrize("error", ["ProfileError", "CatalogError", "UsageError"])
def test_the_cli_turns_any_user_error_into_one_line_and_exit_2(monkeypatch, error):
    owners = {"ProfileError": "localfs_explorer.servers.gee_sweet.profile", "CatalogError":
              "localfs_explorer.catalog", "UsageError": "localfs_explorer.cli.options"}
    cls = getattr(importlib.import_module(owners[error]), error)

    def handler(args, out, err):
        raise cls("the thing handed in is wrong")

    monkeypatch.setattr(check_command, "cmd_validate", handler)
    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["validate"], out=out, err=err) == 2
    assert err.getvalue() == "localfs-explorer validate: the thing handed in is wrong\n"
    assert out.getvalue() == ""


def test_an_unexpected_error_is_not_swallowed_as_a_user_error(monkeypatch):
    def handler(args, out, err):
        raise RuntimeError("a bug")

    monkeypatch.setattr(check_command, "cmd_validate", handler)
    with pytest.raises(RuntimeError):
        cli.main(["validate"], out=io.StringIO(), err=io.StringIO())
