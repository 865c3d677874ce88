"""mcp-gee-sweet behind the :class:`~localfs_explorer.server.Server` interface.

Its whole configuration is the process environment (``LOCAL_FILE_ACCESS``,
``LOCAL_FILE_ROOTS``, the credential and cache paths, ``ENABLED_TOOLS``), the transport,
the startup directory and the directory of its own ``.env``; so its own options object
is empty and it adds no command-line option of its own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ...errors import LocalfsError
from ...server import (
    EnvControls,
    ExposureWalk,
    LaunchArgs,
    Launcher,
    LiveReport,
    LiveTarget,
    PolicyReach,
    Server,
    ServerError,
    Setup,
    SuggestResult,
)
from ...vocab import DENY_LABELS, MODES, REASONS, TRANSPORTS

if TYPE_CHECKING:
    from ...catalog.model import Catalog, Registration
    from .policy import Policy


class GeeSweetServer(Server):
    """mcp-gee-sweet's local-file policy (see the package docstring)."""

    id: ClassVar[str] = "mcp-gee-sweet"
    title: ClassVar[str] = "mcp-gee-sweet (Google Workspace MCP server)"
    versions: ClassVar[tuple[str, ...]] = ("0.9.5",)
    transports: ClassVar[tuple[str, ...]] = TRANSPORTS
    live_fields: ClassVar[tuple[str, ...]] = ("mode", "explicit", "roots",
                                              "unregistered_tools")
    reasons: ClassVar[tuple[str, ...]] = REASONS
    deny_labels: ClassVar[tuple[str, ...]] = DENY_LABELS
    launcher: ClassVar[Launcher] = Launcher(
        pypi=("mcp-gee-sweet",), bins=("mcp-gee-sweet",), modules=("mcp_gee_sweet",),
        # 0.9.5's package has no __main__ module: only its console script serves.
        module_note=("the mcp_gee_sweet package has no __main__ module (0.9.5): "
                     "'{program} -m {module}' exits before serving; its console script "
                     "mcp-gee-sweet starts it"),
        image_names=("mcp-gee-sweet",))
    #: The three branches of ``server://auth-status`` (``auth_status.BRANCHES``).
    status_variants: ClassVar[tuple[str, ...]] = ("unauthorized", "service_account",
                                                  "full_access")
    #: The policy bar picks ``LOCAL_FILE_ACCESS`` and lists ``LOCAL_FILE_ROOTS`` as chips.
    env_controls: ClassVar[EnvControls | None] = EnvControls(
        choice="LOCAL_FILE_ACCESS", choices=MODES,
        tooltips=("no LOCAL_FILE_ACCESS in the .env: the transport decides",
                  "every path the process can reach", "only under LOCAL_FILE_ROOTS",
                  "no local files at all"),
        entries="LOCAL_FILE_ROOTS", entry_word="root", separators={"windows": ";"},
        everything_warning=(
            "⚠ <b>Full access</b>: a tool may read and write every file this server "
            "process can reach, except the deny-list. The Exposure tab walks what that "
            "means on this host."))
    #: A scenario's ``mode`` (policy and auth-status) is one of ``LOCAL_FILE_ACCESS``'s.
    scenario_words: ClassVar[Mapping[str, tuple[str, ...]]] = {"mode": MODES}

    def resolve(self, setup: Setup) -> Policy:
        from .policy import resolve_policy
        from .profile import load_profile

        self.version(setup.version)
        profile = None if isinstance(setup.profile, str) else setup.profile
        if isinstance(setup.profile, str) and setup.profile:
            try:
                profile = load_profile(setup.profile)
            except LocalfsError as exc:
                raise ServerError(str(exc), part="profile") from None
        try:
            return resolve_policy(setup.env, transport=setup.transport, fs=setup.fs,
                                  cwd=setup.cwd, package_dir=setup.package_dir,
                                  profile=profile, platform=setup.platform)
        except LocalfsError as exc:
            raise ServerError(str(exc), part="policy") from None

    def with_settings(self, policy: Any, set: Mapping[str, str], unset: Sequence[str] = (),
                      *, transport: str | None = None) -> Policy:
        from .policy import resolve_policy

        env = policy.env.with_changes(set=dict(set), unset=list(unset))
        return resolve_policy(env, transport=transport or policy.transport, fs=policy.fs,
                              cwd=policy.cwd, package_dir=policy.package_dir,
                              profile=policy.profile, platform=policy.platform)

    def catalog(self, path: str | None = None) -> Catalog:
        from ...catalog import load_catalog
        from .shipped import shipped_catalog

        return shipped_catalog() if path is None else load_catalog(path)

    def register_tools(self, policy: Any, catalog: Catalog) -> Registration:
        from .registration import register_tools

        return register_tools(policy, catalog)

    def status(self, policy: Any, registration: Registration | None = None,
               variant: str | None = None) -> dict[str, Any]:
        """``server://auth-status`` as far as it is modelled (``variant``: one of its
        three branches, which show the same local-file object)."""
        from .auth_status import auth_status_preview

        return auth_status_preview(policy, variant, registration=registration)

    def suggest(self, policy: Any, require: Sequence[Any], *, calls: Any = None,
                session: Any = None, env_file: str | None = None,
                env_text: str | None = None, delta: bool = True,
                max_entries: int = 200_000) -> SuggestResult:
        """The narrowest ``LOCAL_FILE_ROOTS`` allowing the checks (see :mod:`.suggest`)."""
        from .suggest import suggest

        return suggest(policy, require, calls=calls, session=session, env_file=env_file,
                       env_text=env_text, delta=delta, max_entries=max_entries)

    def summary_lines(self, policy: Any) -> list[str]:
        """The mode and how it was reached, each root, the deny-list, then warnings,
        errors and whether it would start."""
        from ...server import summary_tail
        from ...textsafe import one_line

        how = "explicit" if policy.explicit else f"defaulted for {policy.transport}"
        out = [f"server: {policy.profile.name} {policy.profile.server_version}",
               f"LOCAL_FILE_ACCESS resolves to {policy.mode.value} ({how})"]
        for root in policy.roots:
            state = f"-> {root.resolved}" if not root.problem else f"({root.problem})"
            out.append(f"  root {one_line(root.configured)} {one_line(state)}")
        out.append("deny-list:")
        for e in policy.deny_list:
            flag = "exists " if e.exists else "missing"
            out.append(f"  [{flag}] {one_line(e.resolved)}  "
                       f"({e.setting}{', default' if e.default else ''})")
        out += [f"  [dir    ] {dd.resolved}/  ({dd.setting}, default)"
                for dd in policy.deny_dirs]
        return [*out, *summary_tail(policy, (*policy.env.warnings, *policy.warnings))]

    def config_facts(self, policy: Any) -> dict[str, Any]:
        """Mode and how it was reached, transport, host, directories, whether it starts,
        roots, the deny-list, the ``.env`` and its settings, warnings."""
        env = policy.env
        values: dict[str, Any] = {
            "LOCAL_FILE_ACCESS": f"{policy.mode.value} "
                                 f"({'explicit' if policy.explicit else 'defaulted'})",
            "transport": policy.transport,
            "target host": getattr(policy.fs, "label", "filesystem"),
            "startup directory": policy.cwd,
            "package directory": policy.package_dir,
            "the server would start": ("yes" if policy.serves
                                       else f"no: {policy.exit_message}"),
            "roots": [r.configured for r in policy.roots],
            "deny-list": [f"{e.setting}: {e.resolved}" for e in policy.deny_list]
            + [f"{d.setting}: {d.resolved}/ (directory)" for d in policy.deny_dirs],
            ".env": env.source or "(none)",
            "settings": dict(sorted(env.values.items())),
        }
        warnings = [*env.warnings, *policy.warnings]
        if warnings:
            values["warnings"] = warnings
        return values

    def refusal_directories(self, policy: Any, message: str
                            ) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """The roots refusal's "Allowed directories: A, B" (the configured roots as the
        server joins them) beside the roots ``policy`` configures."""
        marker = "LOCAL_FILE_ROOTS. Allowed directories: "
        at = message.rfind(marker)
        if at < 0:
            return None
        named = message[at + len(marker):].rstrip()
        configured = tuple(r.configured for r in policy.roots)
        if named == ", ".join(configured):
            return configured, configured
        return tuple(d for d in named.split(", ") if d), configured

    def places(self, policy: Any) -> list[tuple[str, str]]:
        """Roots and their prefix siblings, the deny-list and its look-alikes, home,
        startup and package directories, ``/`` (see :mod:`.places`)."""
        from .places import places

        return list(places(policy))

    def call_places(self, policy: Any) -> list[tuple[str, str]]:
        from .places import call_places

        return list(call_places(policy))

    def entry_state(self, policy: Any, entry: str) -> tuple[str, str]:
        """A configured root's state on the policy's host: as the roots check resolved
        it, else whether it is there; outside roots mode, that nothing is limited to it."""
        kind, text = _root_state(policy, entry)
        if policy.serves and policy.mode.value != "roots":
            kind, text = "absent", f"{text} · not used: the mode is {policy.mode.value}"
        return kind, text

    def reach(self, policy: Any) -> PolicyReach:
        """Its usable roots (whatever the mode), and the mode: ``full`` reaches every file
        the account can but the deny-list, ``off`` no file at all."""
        mode = policy.mode.value
        return PolicyReach(
            tuple(str(r.resolved or r.configured) for r in policy.roots if not r.problem),
            label=f"mode {mode}", nothing=mode == "off",
            everything=("mode full lets the tools read and write any file the account "
                        "can, except the deny-list") if mode == "full" else "")

    def exposure_walk(self, policy: Any) -> ExposureWalk:
        """Its own walk: the roots, else home and startup directory (see :mod:`.exposure`)."""
        from .exposure import RootsWalk

        return RootsWalk()

    def read_args(self, args: Sequence[str]) -> LaunchArgs:
        """Its ``--transport`` (the value after the last ``--transport`` word) and
        ``--include-tools`` (the first, which it takes over ``ENABLED_TOOLS``)."""
        from .launch import read_args

        return read_args(args)

    def verify(self, policy: Any, target: LiveTarget,
               catalog: Catalog | None = None) -> LiveReport:
        """``server://auth-status`` and ``tools/list`` of the running server against the
        prediction (see :mod:`.verify`)."""
        from .verify import verify_target

        return verify_target(policy, target, catalog)

    def predict(self, policy: Any, catalog: Catalog | None = None) -> dict[str, Any]:
        """``server://auth-status``'s ``local_file_access`` object and the registration,
        as a running server started this way reports them."""
        from .auth_status import local_file_access

        catalog = catalog or self.catalog()
        registration = self.register_tools(policy, catalog)
        profile = policy.profile
        return {
            "transport": policy.transport,
            "serves": policy.serves,
            "exit_message": policy.exit_message,
            "local_file_access": local_file_access(policy, registration),
            "registered": sorted(registration.registered),
            "not_registered": sorted({*registration.unregistered, *registration.not_enabled}),
            "enabled_tools": registration.enabled_tools,
            "catalog": sorted(catalog.names()),
            "reproduces": f"{profile.name} {profile.server_version}".strip(),
        }


def _root_state(policy: Any, entry: str) -> tuple[str, str]:
    """(badge kind, text) for one configured root on the policy's target host."""
    for root in policy.roots:
        if root.configured == entry and (root.problem or root.resolved):
            if root.problem:
                return "refused", f"✘ {root.problem}"
            return "ok", "✔ exists"
    # Not resolved by the engine (the mode isn't roots): say only whether it is there.
    path = os.path.expanduser(entry) if entry.startswith("~") else entry
    if not path.startswith("/") and policy.platform != "windows":
        path = f"{policy.cwd.rstrip('/')}/{path}"
    return Server.existence_state(policy, path)
