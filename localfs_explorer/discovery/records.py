"""What discovery returns and takes: found paths, their tiers, its bounds and errors."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import LocalfsError

Tier = Literal["declared", "expected", "guess"]
_TIER_RANK: dict[str, int] = {"declared": 0, "expected": 1, "guess": 2}

class DiscoveryError(LocalfsError):
    """A discovery input the caller got wrong: a malformed ``checkpaths`` location, an
    ``expected`` entry that isn't a path string, arguments that aren't an object."""


class DiscoveryLimits(BaseModel):
    """Bounds that keep discovery cheap on huge or hostile arguments."""

    model_config = ConfigDict(frozen=True)

    #: Nesting levels of dicts and lists searched below the arguments object.
    max_depth: int = Field(default=16, ge=0)
    #: Dict entries and list items visited in all.
    max_nodes: int = Field(default=100_000, ge=1)
    #: String values examined in all.
    max_strings: int = Field(default=10_000, ge=1)
    #: Characters of one string searched for words.
    max_text_chars: int = Field(default=65_536, ge=1)
    #: Words taken from one string.
    max_words: int = Field(default=4096, ge=1)
    #: Distinct paths reported.
    max_paths: int = Field(default=1000, ge=1)


class FoundPath(BaseModel):
    """One path a tool call would touch, and how it was found."""

    model_config = ConfigDict(frozen=True)

    #: The path as found: unwrapped from a ``file:`` URI, ``--opt=``, ``VAR=`` or a
    #: redirection, with ``~`` expanded; relative paths stay relative.
    path: str
    tier: Tier
    #: Where it was found: an argument location (``attachments[0].local_path``,
    #: ``command``) or ``expected``.
    source: str
    #: The string it came from, before unwrapping (the word, for a command).
    raw: str
    #: Which rule found it: ``checkpaths``, ``expected``, ``argument name``,
    #: ``path-like value``, ``credential file name``, ``shell word``, ``redirection``,
    #: ``option value``, ``assignment``, ``command substitution``, ``link target`` or
    #: ``path-like word``.
    rule: str
    #: Sensitive-file advice (``"inside ~/.ssh"``) on the path as spelt or, when only
    #: that matches, on where it leads (``"k resolves to /home/ada/.ssh/id_rsa, inside
    #: ~/.ssh"``); None when neither looks like a credential file.
    sensitive: str | None = None
    #: Caveats: ``~user`` left unexpanded, a NUL byte, a host in a ``file:`` URI ...
    notes: tuple[str, ...] = ()
    #: Other locations where the same path was found.
    also_found_at: tuple[str, ...] = ()
    #: Where the path leads on the host when a symlink on the way takes it elsewhere
    #: (its realpath); None when it leads where it says, or wasn't resolved.
    resolved: str | None = None


class FoundPaths(list[FoundPath]):
    """The paths found, strongest tier first, plus why the search stopped early."""

    def __init__(self, paths: Iterable[FoundPath] = (), stopped: Iterable[str] = ()) -> None:
        super().__init__(paths)
        #: One line per bound that stopped part of the search.
        self.stopped: list[str] = list(stopped)

    @property
    def truncated(self) -> bool:
        """Whether a bound stopped part of the search (see :attr:`stopped`)."""
        return bool(self.stopped)
