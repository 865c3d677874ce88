"""The server profile: facts about the modelled server that its design leaves implicit.

Defaults for unset settings (relative ``credentials.json``, ``token.json`` and
``service_account.json``, the cache location per platform), the legacy cache file, and a
few parsing choices live in one data file,
``data/server_profile.json``, so they are visible, listed in the README as assumptions,
and replaceable by an operator whose build of the server differs.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ...errors import LocalfsError
from ...userfiles import parse_json, read_text


class ProfileError(LocalfsError):
    """A server profile file that can't be read or doesn't have the expected shape."""


class ServerProfile(BaseModel):
    """Assumptions about the server being modelled (see ``data/server_profile.json``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    #: The server release whose behaviour the engine reproduces (and is tested against).
    server_version: str = ""
    description: str = ""
    #: Values the server uses for settings left unset; relative ones resolve against the
    #: server's startup directory, as its auth module reads them. A setting that is set
    #: but empty names no file at all.
    setting_defaults: dict[str, str]
    #: The directory the default cache directory sits in, per platform (``posix``,
    #: ``macos``, ``windows``), before ``cache_base_setting`` overrides it.
    cache_base: dict[str, str]
    #: The setting that replaces ``cache_base`` per platform; on ``posix`` only an
    #: absolute value counts (a relative ``XDG_CACHE_HOME`` is ignored).
    cache_base_setting: dict[str, str] = {}
    #: The server's own directory under ``cache_base``; only the server writes there, so
    #: the whole directory is deny-listed while the cache path is the default.
    cache_app_dir: str
    default_cache_db_name: str
    #: The pre-0.9.3 cache location: deny-listed always, because old files stay on disk.
    legacy_cache_db: str
    sqlite_sidecars: tuple[str, ...]
    adc_file_name: str
    adc_dir_posix: str
    #: gcloud's configuration base on Windows, replaced by ``adc_base_windows_setting``.
    adc_base_windows: str
    adc_base_windows_setting: str = "APPDATA"
    package_env_name: str = ".env"
    #: Treat ``LOCAL_FILE_ACCESS=`` (empty) as unset rather than as an invalid value.
    empty_access_means_unset: bool = True
    #: Strip spaces around each LOCAL_FILE_ROOTS entry before using it.
    strip_root_whitespace: bool = True


def load_profile(path: str | Path | None = None) -> ServerProfile:
    """The shipped profile, or one read from ``path`` (JSON of the same shape)."""
    try:
        if path is None:
            text = resources.files("localfs_explorer.servers.gee_sweet").joinpath(
                "data/server_profile.json")
            raw = text.read_text(encoding="utf-8")
        else:
            raw = read_text(path, ProfileError)
        return ServerProfile.model_validate(parse_json(raw, path or "server profile",
                                                       ProfileError))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ProfileError(f"{path or 'server profile'}: {where}: {first['msg']}") from None


DEFAULT_PROFILE = load_profile()
