"""What makes an entry a finding: the shipped rules (data/exposure_rules.json) and the
files a shell, the server or the system executes or trusts."""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import NamedTuple

from .records import ExposureError


class _Rule(NamedTuple):
    path: str
    is_dir: bool
    why: str


class _Rules(NamedTuple):
    home: tuple[_Rule, ...]
    system: tuple[_Rule, ...]
    components: tuple[tuple[str, str], ...]  # ("/.git/hooks", why)
    server_names: tuple[tuple[str, str], ...]  # (glob, why)
    secrets: tuple[tuple[str, str], ...]  # (absolute path, why), probed for read


@lru_cache(maxsize=1)
def _rules() -> _Rules:
    source = resources.files("localfs_explorer").joinpath("data/exposure_rules.json")
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
        home = tuple(_Rule(e["path"], bool(e.get("dir")), e["why"]) for e in data["home"])
        system = tuple(_Rule(e["path"], bool(e.get("dir")), e["why"]) for e in data["system"])
        components = tuple(("/" + "/".join(e["parts"]), e["why"]) for e in data["components"])
        names = tuple((e["glob"], e["why"]) for e in data["server_names"])
        secrets = tuple((e["path"], e["why"]) for e in data["secrets"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ExposureError(f"data/exposure_rules.json can't be used: {exc}") from None
    return _Rules(home, system, components, names, secrets)


class _Executed:
    """Which written paths would be run or trusted, for one home and set of server dirs."""

    def __init__(self, home: str, server_dirs: Sequence[str]) -> None:
        rules = _rules()
        self.exact: dict[str, str] = {}
        prefixes: list[tuple[str, str]] = []
        #: (path, why) of every concrete rule target, probed even outside the walk.
        self.targets: list[tuple[str, bool, str]] = []
        for rule in rules.home:
            if home and home != "/":
                path = home.rstrip("/") + "/" + rule.path
            elif home == "/":
                path = "/" + rule.path
            else:
                continue
            self.targets.append((path, rule.is_dir, rule.why))
        self.targets.extend((r.path, r.is_dir, r.why) for r in rules.system)
        for path, is_dir, why in self.targets:
            if is_dir:
                prefixes.append((path + "/", why))
            else:
                self.exact[path] = why
        self.prefixes = tuple(prefixes)
        self.prefix_keys = tuple(p for p, _ in prefixes)
        self.components = rules.components
        # For hot(): a marker inside a directory, or a marker's head ending it.
        self._marker_inside = re.compile(
            "|".join(re.escape(marker + "/") for marker, _why in self.components) or "(?!)")
        self._marker_heads = tuple(
            head + "/" for head in (m.rpartition("/")[0] for m, _why in self.components)
            if head)
        self.server_prefixes = tuple(d.rstrip("/") + "/" for d in server_dirs if d)
        self.server_names = rules.server_names

    def hot(self, directory: str) -> bool:
        """Whether an entry of ``directory`` can match a rule by more than its exact path.

        When False, :meth:`why` of a child is the exact-path lookup alone: no directory
        rule, component marker or server directory covers ``directory`` (a one-part
        marker such as ``site-packages`` names a directory, so a *file* of that name
        inside an ordinary directory is not flagged).
        """
        inside = directory.rstrip("/") + "/"
        return (
            inside.startswith(self.prefix_keys)
            or (bool(self.server_prefixes) and inside.startswith(self.server_prefixes))
            # A marker ending the directory (".../.git") or inside it, or a marker whose
            # last part a child's name could complete.
            or self._marker_inside.search(inside) is not None
            or inside.endswith(self._marker_heads)
        )

    def match(self, path: str) -> tuple[str, str] | None:
        """``(anchor, why)`` when writing ``path`` (a resolved file path) gives a way to
        run code, else None. The anchor is what a finding names: the file itself for a
        rule naming one file, else the directory the rule names (a ``site-packages``,
        a ``.git/hooks``, ``/etc/cron.d``), so a thousand writable modules are one
        finding rather than a thousand."""
        found = self.exact.get(path)
        if found is not None:
            return path, found
        if path.startswith(self.prefix_keys):
            for prefix, why in self.prefixes:
                if path.startswith(prefix):
                    return prefix[:-1], why
        for marker, why in self.components:
            at = path.find(marker + "/")
            if at >= 0:
                return path[:at + len(marker)], why
            if path.endswith(marker):
                return path, why
        if self.server_prefixes and path.startswith(self.server_prefixes):
            name = path.rpartition("/")[2]
            for glob, why in self.server_names:
                if fnmatch.fnmatchcase(name, glob):
                    return path, f"inside the server's own directory: {why}"
            prefix = next(p for p in self.server_prefixes if path.startswith(p))
            at = path.find("/bin/", len(prefix) - 1)
            if at >= 0:
                return path[:at + 4], ("inside the server's own directory: programs in a "
                                       "bin directory there (a virtualenv's python, its "
                                       "entry points) are what runs")
        return None

    def match_exact(self, path: str) -> tuple[str, str] | None:
        """:meth:`match` for a child of a directory that isn't :meth:`hot`."""
        found = self.exact.get(path)
        return (path, found) if found is not None else None

    def why(self, path: str) -> str | None:
        """Why writing ``path`` gives a way to run code, or None."""
        found = self.match(path)
        return found[1] if found is not None else None
