"""Write the ``.env`` a server will load, with the operator's changes and nothing else.

Three steps, each at its own layer:

1. :func:`~localfs_explorer.envfile.edit.edit_env_text` computes the new text as a pure
   function of the old one (:mod:`localfs_explorer.envfile.edit` says how, and its rules).
2. :func:`export_env` validates the result with the engine: the new text is loaded the
   way the server loads it and :func:`~localfs_explorer.resolve_policy` is run on it. A
   configuration the server would refuse to serve makes the plan's ``errors`` non-empty,
   and :meth:`ExportPlan.write` refuses it.
3. :meth:`ExportPlan.write` writes atomically, keeps permission bits, keeps a backup of
   any file it replaces and never follows a symlinked destination unless told to.

Secret values (see :mod:`localfs_explorer.secrets`) appear only in the written file:
diffs are masked, and messages and log lines carry key names and line numbers only.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from ..errors import LocalfsError
from ..secrets import scrub, secret_values
from .edit import ExportError, KeyChange, edit_env_text, secret_values_in, unified_diff
from .load import EnvFileError, load_env, read_env_text

if TYPE_CHECKING:
    from ..config import ServerConfig

__all__ = [
    "ExportError",
    "ExportPlan",
    "WriteResult",
    "export_env",
    "run_export_env",
    "template_text",
]

log = logging.getLogger(__name__)

#: Permission bits of a new file when there is no original to copy them from: a .env can
#: hold CREDENTIALS_CONFIG, so only its owner may read it.
NEW_FILE_MODE = 0o600


# ---------------------------------------------------------------------------------------
# The plan


class WriteResult(BaseModel):
    """What :meth:`ExportPlan.write` did."""

    model_config = ConfigDict(frozen=True)

    path: str
    written: bool
    backup: str | None = None
    mode: int | None = None

    def describe(self) -> str:
        """One line for people."""
        if not self.written:
            return f"{self.path}: already up to date; nothing written"
        kept = f"; previous version kept as {self.backup}" if self.backup else ""
        return f"wrote {self.path} (mode {self.mode:o}){kept}"


class ExportPlan(BaseModel):
    """A validated export, ready to show (:meth:`diff`) and to write (:meth:`write`).

    ``original`` and ``text`` hold secrets; they are left out of ``repr``.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    source: str | None = None
    #: The permission bits of the source file read (None when the text came from
    #: elsewhere, an upload: its name then says nothing about who may read it).
    source_mode: int | None = Field(default=None, repr=False)
    original: str = Field(default="", repr=False)
    text: str = Field(repr=False)
    changes: tuple[KeyChange, ...] = ()
    #: The engine's :class:`~localfs_explorer.Policy` for the new text (or what the
    #: ``validate`` callable returned).
    policy: Any = Field(default=None, repr=False, exclude=True)
    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def _repr_html_(self) -> str:
        """Rich display in a notebook (the dashboard's renderer)."""
        from ..render import export_plan_repr

        return export_plan_repr(self)

    @property
    def ok(self) -> bool:
        """Whether the server would serve this configuration (so it may be written)."""
        return not self.errors

    @property
    def changed(self) -> bool:
        """Whether the new text differs from the original."""
        return self.text != self.original

    def diff(self, masked: bool = True, *, context: int = 3, tofile: str | None = None) -> str:
        """Unified diff from the original to the new text; secrets masked unless asked."""
        name = self.source or "(empty)"
        return unified_diff(
            self.original, self.text, fromfile=name, tofile=tofile or self.source or "(new)",
            masked=masked, context=context,
        )

    def refusal(self) -> str | None:
        """The one-line reason the plan can't be written, or None when it can."""
        if not self.errors:
            return None
        return "refused: the server would not start with this .env: " + "; ".join(self.errors)

    def write(
        self,
        dest: str | os.PathLike[str] | None = None,
        *,
        force: bool = False,
        in_place: bool = False,
        follow_symlinks: bool = False,
    ) -> WriteResult:
        """Write the new text to ``dest`` (or over ``source`` with ``in_place``).

        - Refused (``ExportError``, nothing written) when the plan has errors, when
          ``dest`` exists and neither ``force`` nor ``in_place`` was given, when ``dest``
          is a symbolic link and ``follow_symlinks`` is false (with it, the link's
          target is replaced and the link kept), when ``dest`` isn't a regular file, and
          in place when the source changed on disk since it was read.
        - A file that is replaced is first copied to ``NAME.bak`` (or ``NAME.bak.1``,
          ``.2``, ... : an older backup is never overwritten).
        - The new file gets the replaced file's permission bits, else the source's, else
          0600; it is written to a temporary file in the same directory, synced, and
          renamed over the destination, so a reader sees the old file or the new one.
        - When the destination already holds exactly the new text, nothing is written.
        """
        if self.errors:
            raise ExportError(self.refusal() or "refused")
        if in_place:
            if self.source is None:
                raise ExportError("in-place needs a source file; give a destination instead")
            if dest is not None and os.path.abspath(dest) != os.path.abspath(self.source):
                raise ExportError("give either a destination or in-place, not both")
            dest = self.source
        if dest is None:
            raise ExportError("no destination: give one, or write in place")
        path = Path(dest)
        if path.is_symlink():
            if not follow_symlinks:
                target = os.readlink(path)
                raise ExportError(
                    f"{path} is a symbolic link (to {target}); refusing to replace it. "
                    "Write to the target itself, or follow the link explicitly"
                )
            path = Path(os.path.realpath(path))
        new_bytes = self.text.encode("utf-8")
        current = _read_existing(path)
        if current is not None:
            if in_place and current != self.original.encode("utf-8"):
                raise ExportError(f"{path} changed since it was read; run the export again")
            if not (force or in_place):
                raise ExportError(
                    f"{path} already exists; replace it with force (--force), "
                    "a backup is kept"
                )
            if current == new_bytes:
                return WriteResult(path=str(path), written=False)
        elif not path.parent.is_dir():
            raise ExportError(f"{path.parent}: no such directory")
        mode = _mode_for(path if current is not None else None, self.source_mode)
        backup = _make_backup(path, current, mode) if current is not None else None
        try:
            _atomic_write(path, new_bytes, mode, owner_of=path if current is not None else None)
        except ExportError:
            if backup is not None:  # the destination is unchanged: don't leave a stray copy
                with contextlib.suppress(OSError):
                    os.unlink(backup)
            raise
        log.info("wrote %s%s", path, f" (backup {backup})" if backup else "")
        return WriteResult(path=str(path), written=True,
                           backup=str(backup) if backup is not None else None,
                           mode=mode)


def _read_existing(path: Path) -> bytes | None:
    """The bytes of an existing regular file at ``path``; None when nothing is there."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ExportError(f"{path}: can't be inspected ({exc.strerror or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        raise ExportError(f"{path} is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise ExportError(f"{path} is not a regular file; refusing to replace it")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ExportError(f"{path}: can't be read ({exc.strerror or exc})") from None


def _mode_for(replaced: Path | None, source_mode: int | None) -> int:
    """The replaced file's bits, else the source file's, else private (0600): a ``.env``
    from an upload or stdin holds secrets whose file mode nobody told us."""
    if replaced is not None:
        with contextlib.suppress(OSError):
            return stat.S_IMODE(replaced.stat().st_mode)
    return source_mode if source_mode is not None else NEW_FILE_MODE


def _make_backup(path: Path, data: bytes, mode: int) -> Path:
    """Copy ``data`` to the first free ``NAME.bak[.N]`` beside ``path``, never replacing."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_BINARY", 0)
    for n in range(0, 10_000):
        candidate = path.with_name(f"{path.name}.bak" + (f".{n}" if n else ""))
        try:
            fd = os.open(candidate, flags, 0o600)
        except FileExistsError:
            continue
        except OSError as exc:
            raise ExportError(
                f"{candidate}: backup can't be created ({exc.strerror or exc}); nothing written"
            ) from None
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(candidate, mode)
        except OSError as exc:
            raise ExportError(
                f"{candidate}: backup can't be written ({exc.strerror or exc}); nothing written"
            ) from None
        return candidate
    raise ExportError(f"{path}: too many backups already; remove some")  # pragma: no cover


def _atomic_write(path: Path, data: bytes, mode: int, owner_of: Path | None) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)  # exact bits: mkstemp's 0600 and the umask don't apply
        if owner_of is not None and hasattr(os, "chown") and hasattr(os, "geteuid"):
            st = owner_of.stat()
            if os.geteuid() == 0 and (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
                os.chown(tmp, st.st_uid, st.st_gid)  # root keeps the file's owner
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise ExportError(f"{path}: can't be written ({exc.strerror or exc})") from None
    # Make the rename itself durable; not possible (nor needed) on every platform.
    with contextlib.suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


# ---------------------------------------------------------------------------------------
# Export = edit + validate


def template_text() -> str:
    """The shipped ``.env`` template: both policy settings, commented out, explained.

    A starting point for a new server ``.env``: ``export_env(None, text=template_text(),
    set=...)`` keeps its comments and appends the chosen settings.
    """
    from importlib import resources

    return resources.files("localfs_explorer").joinpath("data/env.template").read_text("utf-8")


def _read_source(path: Path) -> str:
    try:
        return read_env_text(path)
    except EnvFileError as exc:
        raise ExportError(str(exc)) from None


def export_env(
    source: str | os.PathLike[str] | None = None,
    *,
    set: Mapping[str, str] | None = None,
    unset: Iterable[str] = (),
    text: str | None = None,
    validate: Callable[[Any], Any] | None = None,
    transport: str = "stdio",
    cwd: str | None = None,
    package_dir: str | None = None,
    fs: Any = None,
    profile: Any = None,
    platform: str = "posix",
    process_env: Mapping[str, str] | None = None,
    config: ServerConfig | None = None,
) -> ExportPlan:
    """Plan the export of ``source`` with ``set``/``unset`` applied, validated by the engine.

    Args:
        source: the ``.env`` to start from; None starts from an empty file.
        set: keys to write, with their new values.
        unset: keys to remove (every occurrence).
        text: the source's contents when they came from elsewhere (an upload); ``source``
            then only names it.
        validate: ``f(env) -> policy-like`` with ``errors`` and ``warnings``, used instead
            of :func:`~localfs_explorer.resolve_policy` (tests, other engines).
        transport, cwd, package_dir, fs, profile, platform: how the server would be run;
            they only inform the validation and are passed to ``resolve_policy``.
        process_env: the server process's own environment, which wins over the file.
        config: how the server would be run, as one :class:`ServerConfig` (its ``settings``
            are the process environment; its ``.env`` text is replaced by the edited
            one); used instead of the keyword arguments above when given.

    Returns an :class:`ExportPlan`; its ``errors`` say why the server would refuse the
    result (then :meth:`ExportPlan.write` refuses too). Raises :class:`ExportError` when
    the source can't be read or a change can't be written safely.
    """
    name = os.fspath(source) if source is not None else None
    source_mode = None
    if text is None:
        text = _read_source(Path(name)) if name is not None else ""
        if name is not None:
            with contextlib.suppress(OSError):
                source_mode = stat.S_IMODE(os.stat(name).st_mode)
    edit = edit_env_text(text, set, unset)

    if config is not None and validate is None:
        from ..config import resolve_config

        try:
            # The server loads what is written, skipping lines it can't parse.
            resolved = resolve_config(config.model_copy(
                update={"env_text": edit.text, "lenient": True}))
        except LocalfsError as exc:
            raise ExportError(str(exc)) from None
        env, policy = resolved.env, resolved.policy
    else:
        try:
            env = load_env(name, text=edit.text, overrides=process_env, strict=False)
        except EnvFileError as exc:
            raise ExportError(str(exc)) from None
        if validate is None:
            # The default server, which reads its settings from a .env, resolves it.
            from ..fs import HostFS
            from ..server import Setup, get_server

            try:
                policy = get_server().resolve(Setup(
                    env=env, fs=fs if fs is not None else HostFS(), base_dir=os.getcwd(),
                    cwd=cwd, package_dir=package_dir, transport=transport,
                    platform=platform, profile=profile))
            except LocalfsError as exc:
                raise ExportError(str(exc)) from None
        else:
            policy = validate(env)
    secrets = secret_values(env.values) | secret_values_in(text)
    errors = tuple(scrub(e, secrets) for e in getattr(policy, "errors", ()))
    warnings = tuple(scrub(w, secrets) for w in (*edit.warnings, *getattr(policy, "warnings", ())))
    return ExportPlan(
        source=name, source_mode=source_mode, original=text, text=edit.text,
        changes=edit.changes, policy=policy, errors=errors, warnings=warnings,
    )


def run_export_env(
    source: str | os.PathLike[str] | None,
    *,
    set: Mapping[str, str] | None = None,
    unset: Iterable[str] = (),
    output: str | os.PathLike[str] | None = None,
    in_place: bool = False,
    dry_run: bool = False,
    force: bool = False,
    follow_symlinks: bool = False,
    out: io.TextIOBase | Any = None,
    err: io.TextIOBase | Any = None,
    **policy_inputs: Any,
) -> int:
    """The ``export-env`` command: plan, report, and write or refuse. Returns the exit code.

    0: written, or a dry run whose result the server would accept; 2: refused (invalid
    change, a configuration the server would refuse, an unsafe destination). The diff
    (dry run) goes to ``out``; warnings, refusals and what was written go to ``err``.
    Secrets appear in neither.
    """
    import sys

    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    if sum([output is not None, in_place, dry_run]) != 1:
        print("export-env: give exactly one of -o OUT, --in-place, --dry-run", file=err)
        return 2
    try:
        plan = export_env(source, set=set, unset=unset, **policy_inputs)
    except ExportError as exc:
        print(f"export-env: {exc}", file=err)
        return 2
    for warning in plan.warnings:
        print(f"warning: {warning}", file=err)
    if dry_run:
        diff = plan.diff(masked=True)
        out.write(diff if diff else "no changes\n")
        for change in plan.changes:
            print(change.describe(), file=err)
        if plan.errors:
            print(f"export-env: {plan.refusal()}", file=err)
            return 2
        return 0
    try:
        result = plan.write(output, force=force, in_place=in_place,
                            follow_symlinks=follow_symlinks)
    except ExportError as exc:
        print(f"export-env: {exc}", file=err)
        return 2
    for change in plan.changes:
        print(change.describe(), file=err)
    print(result.describe(), file=err)
    return 0
