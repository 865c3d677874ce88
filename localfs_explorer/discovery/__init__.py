"""Find the local paths a tool call would touch when the catalog doesn't say.

Three tiers, strongest first:

- ``declared``: the values of the arguments the caller names in ``checkpaths`` (the
  tool's own statement of which arguments are paths);
- ``expected``: paths the caller says the call will touch;
- ``guess``: everything else, found by looking. An argument whose *name* says it holds
  a path (``local_path``, ``output_file``, ``dest_dir`` ...), and anywhere in the
  arguments a *value* that looks like a path (``/x``, ``~/x``, ``./x``, ``a/b.txt``),
  including the words of shell command strings.

Discovery is advice about what to check, not a verdict. A tool can ignore its
arguments and open any file, and a word that looks like a path may not be one; the
engine decides what each path means for the server.

The rules of the guess tier, and why:

- **Names.** An argument name is split into words (``localPath`` → ``local path``) and
  its last word decides, because that is the noun: ``output_file`` holds a file,
  ``file_id`` holds an id (Drive ids are everywhere in this server's arguments).
  Strong nouns (``path``, ``file``, ``dir``, ``folder``, ``cwd`` ...) take any
  plausible value; weak ones (``dest``, ``output``, ``source``, ``target``, ``root``
  ...) and ``file_name`` take a value only when it looks like a path or a file name
  (``report.pdf``), since ``output="json"`` and ``source="drive"`` are not paths.
- **Values.** A word is path-like when it starts with ``/``, ``~/``, ``./`` or ``../``,
  or contains ``/`` and isn't something else that does: a URL (any ``scheme://``
  other than ``file:``, ``mailto:``, ``data:`` ..., ``user@host:path``), a MIME type
  (``text/plain``), a date or fraction (``2024/01/31``), a short ``and/or``, or a
  string with a name longer than a file system allows (base64). A ``file:`` URI is
  decoded to its path. A bare credential file name (``.env``, ``id_rsa``,
  ``server.pem``) counts too, so ``cat .env`` is noticed.
- **Shell commands.** A value is split as a shell command when its argument is named
  ``command``/``cmd``/``script``/``shell`` or it contains shell syntax (``| < > ; &``,
  ``$(``, backquotes). :func:`shlex.split` rules apply, with operators split off; on a
  quoting error the value is split on whitespace instead. The word after a
  redirection (``> out``, ``2>>log``, ``< in``) is a path whatever it looks like;
  ``--opt=value`` and ``VAR=value`` are unwrapped, and ``--output file`` takes the
  next word when the option's name says it holds a path. ``$HOME`` and ``~`` expand
  to the given home (even inside quotes, where a shell wouldn't: finding the file
  matters more than the exact spelling). Other text is split on whitespace, with
  surrounding quotes and punctuation trimmed and Markdown/HTML link targets taken
  out first.
- **Home.** ``~`` and ``~/x`` expand to ``home``. ``~user/x`` is kept as written and
  noted, because looking ``user`` up on this machine says nothing about the server's.
- **Relative paths** stay relative: the engine resolves them against the cwd of the
  server. ``cd`` inside a command is not followed.
- ``/dev/null`` and the standard streams are dropped as noise.

Every found path keeps where it was found (``source``: an argument location such as
``attachments[0].local_path``, or ``expected``), the rule that found it, the original
string (``raw``) and sensitive-file advice. Paths are deduplicated, keeping the
strongest tier. The walk is bounded (depth, strings, characters, words, paths); when
a bound stops it, the result says so (:attr:`FoundPaths.truncated`).

Most calls of a described tool leave nothing to search (an id, a count, the paths the
catalog already names): :func:`nothing_to_find` says so without a walk, and
:func:`discover_paths` asks it first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from os import PathLike, fspath
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from ..catalog import locations
from ..errors import LocalfsError
from ..sensitive import sensitive_reason
from .words import (
    _ASSIGNMENT,
    _GLUED_REDIRECT,
    _HOME_VAR,
    _LONG_OPTION,
    _MARKUP,
    _MARKUP_TARGET,
    _NOISE,
    _OPTION,
    _REDIRECT_TARGET,
    _SHELL_SYNTAX,
    _TAG,
    _TRIM_LEFT,
    _TRIM_RIGHT,
    _is_operator,
    _is_url,
    _looks_like_file_name,
    _plausible_value,
    _redirects_to_file,
    argument_name_kind,
    is_path_argument_name,
    looks_like_path,
    shell_words,
)

__all__ = [
    "DiscoveryError",
    "DiscoveryLimits",
    "FoundPath",
    "FoundPaths",
    "Tier",
    "argument_name_kind",
    "discover_paths",
    "is_path_argument_name",
    "looks_like_path",
    "nothing_to_find",
    "shell_words",
]

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
    #: ``option value``, ``assignment``, ``link target`` or ``path-like word``.
    rule: str
    #: Sensitive-file advice (``"inside ~/.ssh"``), or None.
    sensitive: str | None = None
    #: Caveats: ``~user`` left unexpanded, a NUL byte, a host in a ``file:`` URI ...
    notes: tuple[str, ...] = ()
    #: Other locations where the same path was found.
    also_found_at: tuple[str, ...] = ()


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


# --- the search --------------------------------------------------------------------------------


class _Search:
    """State of one discovery: found paths by path, budgets, and what stopped it."""

    def __init__(self, home: str, cwd: str | None, limits: DiscoveryLimits) -> None:
        self.home = home
        # "~/x" → home + "/x"; rstrip so a home of "/" doesn't give "//x".
        self.home_prefix = home.rstrip("/")
        self.cwd = cwd
        self.limits = limits
        self.found: dict[str, dict[str, Any]] = {}
        self.stopped: list[str] = []
        self.nodes = 0
        self.strings = 0

    def stop(self, message: str) -> None:
        if message not in self.stopped:
            self.stopped.append(message)

    # -- recording --

    def add(
        self,
        text: str,
        *,
        tier: Tier,
        source: str,
        rule: str,
        raw: str | None = None,
        shell: bool = False,
    ) -> None:
        path, notes = self._unwrap(text, shell=shell)
        if not path or path in _NOISE:
            return
        entry = self.found.get(path)
        if entry is None:
            if len(self.found) >= self.limits.max_paths:
                self.stop(f"stopped after {self.limits.max_paths} paths (max_paths)")
                return
            self.found[path] = {"path": path, "tier": tier, "source": source,
                                "raw": text if raw is None else raw, "rule": rule,
                                "notes": notes, "also": []}
            return
        if _TIER_RANK[tier] < _TIER_RANK[entry["tier"]]:
            # A stronger tier takes over; the weaker finding becomes another location.
            also = [x for x in (entry["source"], *entry["also"]) if x != source]
            entry.update(tier=tier, source=source, raw=text if raw is None else raw,
                         rule=rule, notes=notes, also=also)
        if source != entry["source"] and source not in entry["also"]:
            entry["also"].append(source)

    def _unwrap(self, text: str, *, shell: bool) -> tuple[str, list[str]]:
        """Decode a ``file:`` URI and expand ``~`` (and ``$HOME`` in shell words)."""
        notes: list[str] = []
        path = text
        if path[:5].lower() == "file:":
            parts = urlsplit(path)
            path = unquote(parts.path)
            notes.append("decoded from a file: URI")
            if parts.netloc and parts.netloc.lower() != "localhost":
                notes.append(f"the URI names host {parts.netloc!r}; only its path is used")
        if shell and _HOME_VAR.match(path):
            path = _HOME_VAR.sub("~", path, count=1)
        if path == "~":
            path = self.home
        elif path.startswith("~/"):
            path = self.home_prefix + path[1:]
        elif path.startswith("~"):
            notes.append("~user names another account's home; not expanded")
        if shell and "$" in path:
            notes.append("contains a shell variable the shell would expand")
        if "\x00" in path:
            notes.append("contains a NUL byte")
        if any(ch in path for ch in "*?[") and shell:
            notes.append("contains glob characters the shell would expand")
        return path, notes

    # -- declared and expected --

    def declared(self, arguments: Mapping[str, Any], location: str, skip: _Skip) -> None:
        for label, value in _select(arguments, location):
            for item_label, item in _strings_at(label, value):
                if item.strip() and not skip.covers_path(item_label):
                    self.add(item, tier="declared", source=item_label, rule="checkpaths")

    def expected(self, paths: Sequence[str | PathLike[str]]) -> None:
        for index, entry in enumerate(paths):
            if not isinstance(entry, (str, PathLike)):
                raise DiscoveryError(
                    f"expected[{index}] must be a path string, not {type(entry).__name__}"
                )
            text = fspath(entry)
            if text.strip():
                self.add(text, tier="expected", source="expected", rule="expected")

    # -- the guess walk --

    def walk(self, value: Any, label: str, generic: str, name: str,
             skip: _Skip, depth: int) -> None:
        """Search ``value`` and everything below it; it counts as one visited value."""
        if self.nodes >= self.limits.max_nodes:
            self.stop(f"stopped after visiting {self.limits.max_nodes} values (max_nodes)")
            return
        self.nodes += 1
        if label and skip.covers(label, generic):
            return
        self._search(value, label, generic, name, skip, depth)

    def _search(self, value: Any, label: str, generic: str, name: str,
                skip: _Skip, depth: int) -> None:
        """Search a value already counted and not skipped."""
        if isinstance(value, str):
            self.string(value, label, name)
            return
        if type(value) is dict or isinstance(value, Mapping):
            children: Iterator[tuple[str, str, str, Any]] = (
                _mapping_children(value, label, generic)
            )
        elif isinstance(value, (list, tuple)):
            children = (
                (f"{label}[{i}]", f"{generic}[]", name, v) for i, v in enumerate(value)
            )
        else:
            return  # numbers, booleans, None: never paths
        limits = self.limits
        if depth >= limits.max_depth:
            self.stop(f"{label or 'arguments'} nests deeper than {limits.max_depth} "
                      "levels; deeper values were not searched (max_depth)")
            return
        for child_label, child_generic, child_name, child in children:
            if self.nodes >= limits.max_nodes:
                self.stop(f"stopped after visiting {limits.max_nodes} values (max_nodes)")
                break
            if self.strings >= limits.max_strings:
                self.stop(f"stopped after {limits.max_strings} strings (max_strings)")
                break
            # walk() for the child, inline (its max_nodes test can't fail right after the
            # one above): the calls of a big argument tree are most of discovery's cost.
            self.nodes += 1
            if type(child) in _LEAF_TYPES or skip.covers(child_label, child_generic):
                continue
            self._search(child, child_label, child_generic, child_name, skip, depth + 1)

    def string(self, value: str, label: str, name: str) -> None:
        if self.strings >= self.limits.max_strings:
            self.stop(f"stopped after {self.limits.max_strings} strings (max_strings)")
            return
        self.strings += 1
        if not value.strip():
            return
        kind = argument_name_kind(name)
        if kind == "data":
            return
        if kind == "path" and _plausible_value(value):
            self.add(value, tier="guess", source=label, rule="argument name")
            return
        if kind == "weak" and _plausible_value(value) and (
            looks_like_path(value) or _looks_like_file_name(value)
        ):
            self.add(value, tier="guess", source=label, rule="argument name")
            return
        has_space = any(ch.isspace() for ch in value)
        if kind == "command" or (
            has_space and _SHELL_SYNTAX.search(value) and not _MARKUP.search(value)
        ):
            self.command(self._bounded(value, label), label)
        elif has_space:
            self.text(self._bounded(value, label), label)
        else:
            self.word(value, label, rule="path-like value", bare_names=_has_dot(value))

    def _bounded(self, value: str, label: str) -> str:
        if len(value) > self.limits.max_text_chars:
            self.stop(f"only the first {self.limits.max_text_chars} characters of {label} "
                      "were searched (max_text_chars)")
            return value[: self.limits.max_text_chars]
        return value

    def _words(self, words: list[str], label: str) -> list[str]:
        if len(words) > self.limits.max_words:
            self.stop(f"only the first {self.limits.max_words} words of {label} were "
                      "searched (max_words)")
            return words[: self.limits.max_words]
        return words

    def word(self, word: str, label: str, *, rule: str, bare_names: bool = True,
             shell: bool = False, raw: str | None = None) -> None:
        """Add ``word`` if it looks like a path (or a credential file's bare name)."""
        if looks_like_path(word):
            self.add(word, tier="guess", source=label, rule=rule, raw=raw, shell=shell)
        elif shell and _HOME_VAR.match(word):
            self.add(word, tier="guess", source=label, rule=rule, raw=raw, shell=True)
        elif (
            bare_names
            and "/" not in word
            and not _is_url(word)
            and sensitive_reason(word, home=self.home) is not None
        ):
            self.add(word, tier="guess", source=label, rule="credential file name", raw=raw)

    def command(self, text: str, label: str) -> None:
        words, exact = shell_words(text)
        words = self._words(words, label)
        rule = "shell word" if exact else "shell word (quotes unbalanced: split on spaces)"
        index = 0
        while index < len(words):
            word = words[index]
            following = words[index + 1] if index + 1 < len(words) else None
            index += 1
            if _is_operator(word):
                if _redirects_to_file(word, following) and following is not None \
                        and _REDIRECT_TARGET.search(following):
                    self.add(following, tier="guess", source=label, rule="redirection",
                             shell=True)
                    index += 1
                continue
            if not exact:
                # Operators still stuck to their neighbours: "2>>log", "a;", "(cd".
                word = word.strip("(){}")
                while word and word[-1] in ";|&":
                    word = word[:-1]
                if not word:
                    continue
            self.shell_word(word, label, rule)
            if following is not None and _takes_path(word, following):
                self.add(following, tier="guess", source=label, rule="option value",
                         raw=f"{word} {following}", shell=True)
                index += 1

    def shell_word(self, word: str, label: str, rule: str) -> None:
        glued = _GLUED_REDIRECT.match(word)
        if glued and _REDIRECT_TARGET.search(glued.group("target")):
            self.add(glued.group("target"), tier="guess", source=label, rule="redirection",
                     raw=word, shell=True)
            return
        option = _OPTION.match(word)
        assignment = None if option else _ASSIGNMENT.match(word)
        if option or assignment:
            match = option or assignment
            assert match is not None
            key, value = match.group(1), match.group(2)
            form = "option value" if option else "assignment"
            if not value:
                return
            if is_path_argument_name(key) and _plausible_value(value):
                self.add(value, tier="guess", source=label, rule=form, raw=word, shell=True)
            else:
                self.word(value, label, rule=form, shell=True, raw=word)
            return
        if word.startswith("-"):
            return
        self.word(word, label, rule=rule, shell=True)

    def text(self, text: str, label: str) -> None:
        for match in _MARKUP_TARGET.finditer(text):
            target = next(g for g in match.groups() if g is not None)
            if target and not _is_url(target) and not target.startswith("#"):
                self.add(target, tier="guess", source=label, rule="link target")
        # Link targets are taken above; tags themselves ("</p>") are not words.
        words = self._words(_TAG.sub(" ", _MARKUP_TARGET.sub(" ", text)).split(), label)
        for raw_word in words:
            word = raw_word.lstrip(_TRIM_LEFT).rstrip(_TRIM_RIGHT)
            if not word or word == "~":
                continue  # a lone "~" in prose is an approximation, not the home folder
            glued = _GLUED_REDIRECT.match(word)
            if glued and looks_like_path(glued.group("target")):
                word = glued.group("target")
            self.word(word, label, rule="path-like word", bare_names=False, raw=raw_word)

    def result(self, home: str, cwd: str | None) -> FoundPaths:
        ordered = sorted(self.found.values(), key=lambda e: _TIER_RANK[e["tier"]])
        paths = [
            FoundPath(
                path=e["path"], tier=e["tier"], source=e["source"], raw=e["raw"],
                rule=e["rule"], sensitive=sensitive_reason(e["path"], home=home, cwd=cwd),
                notes=tuple(e["notes"]), also_found_at=tuple(e["also"]),
            )
            for e in ordered
        ]
        return FoundPaths(paths, self.stopped)


def _mapping_children(
    value: Mapping[Any, Any], label: str, generic: str
) -> Iterator[tuple[str, str, str, Any]]:
    """``(label, generic label, name, value)`` of each entry of a mapping."""
    same = label == generic  # no list above: both spellings are one string
    for k, v in value.items():
        key = str(k)
        child = locations.child_label(label, key)
        yield child, child if same else locations.child_label(generic, key), key, v


def _has_dot(word: str) -> bool:
    # A lone value counts as a credential file name only when it looks like a file
    # name ('.env', 'server.pem'); a bare 'id_token' is far more often not a file.
    return "." in word


def _takes_path(word: str, following: str) -> bool:
    """Whether ``word`` is a long option (``--output``) whose value ``following`` is a path."""
    match = _LONG_OPTION.match(word)
    if not match or following.startswith("-") or _is_operator(following):
        return False
    kind = argument_name_kind(match.group(1))
    if kind == "path":
        return _plausible_value(following)
    return kind == "weak" and (looks_like_path(following) or _looks_like_file_name(following))


# Values the walk counts and passes over: they never hold a path (bool is not an int here,
# as ``type`` is compared exactly).
_LEAF_TYPES = frozenset({int, float, bool, type(None)})


# --- argument locations --------------------------------------------------------------------------

def _select(arguments: Mapping[str, Any], location: str) -> list[tuple[str, Any]]:
    """``(label, value)`` for every value at ``location``; ``[]`` means every item."""
    if location in arguments:
        # A top-level key spelt exactly as given wins over reading it as a location.
        return [(locations.child_label("", location), arguments[location])]
    try:
        return locations.values_at(arguments, location, keep_none=True)
    except locations.LocationError as exc:
        raise DiscoveryError(f"checkpaths {exc}") from None


def _strings_at(label: str, value: Any) -> Iterator[tuple[str, str]]:
    """A declared value's path strings: the string itself, or each string of a list."""
    if isinstance(value, (str, PathLike)):
        yield label, fspath(value)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            if isinstance(item, (str, PathLike)):
                yield f"{label}[{i}]", fspath(item)


_SKIPPED, _DATA_NAME, _SEARCHED, _PLAIN_NAME = 0, 1, 2, 3
# One word with no '/', '.', '~' or ':': under a name that says nothing about paths
# (_PLAIN_NAME) the walk takes it whole as a single word, and such a word is never a
# path, a file: URI or a credential file's name, so it finds nothing there.
_INERT_WORD = re.compile(r"[^\s/.~:]+")


class _Skip:
    """Argument locations not to search, exactly (``a[0].b``) or for every item (``a[].b``).

    Built once per distinct tuple of locations (:func:`_skip_filter`); its locations
    never change, and it remembers how it classified the names it was asked about.
    """

    def __init__(self, locations: tuple[str, ...]) -> None:
        self.locations = locations
        exact: set[str] = set()
        generic: set[str] = set()
        for location in locations:
            canonical = _canonical(location)
            (generic if "[]" in canonical else exact).add(canonical)
        self.exact = frozenset(exact)
        self.generic = frozenset(generic)
        #: (generic label of the container, name, is a list item) -> (generic label of
        #: the entry, kind): the answers of :meth:`entry_kind` so far.
        self.kinds: dict[tuple[str, str, bool], tuple[str, int]] = {}

    def entry_kind(self, generic: str, name: str, item: bool) -> tuple[str, int]:
        """The generic label of an entry and how the walk treats it: skipped, a data name
        (a string there is never searched), a plain name (a string there is searched as
        a word or text, never taken whole as a path or a command) or searched.

        ``item`` says the entry is a list item of the list called ``name`` (its label
        is ``generic[]``); else it is the mapping entry ``name``. Judged by the generic
        label alone, an entry skipped only by an indexed location (``a[0].b``) counts as
        searched: the answer errs towards searching, never towards skipping.
        """
        key = (generic, name, item)
        found = self.kinds.get(key)
        if found is None:
            label = f"{generic}[]" if item else locations.child_label(generic, name)
            if label in self.exact or label in self.generic:
                kind = _SKIPPED
            else:
                name_kind = argument_name_kind(name)
                kind = (_DATA_NAME if name_kind == "data"
                        else _PLAIN_NAME if name_kind is None else _SEARCHED)
            if len(self.kinds) >= 4096:
                self.kinds.clear()  # names are few; a flood of odd ones isn't kept
            found = self.kinds[key] = (label, kind)
        return found

    def covers(self, label: str, generic: str) -> bool:
        """Whether this very value is skipped (the walk stops here, so ancestors count)."""
        return label in self.exact or generic in self.generic

    def covers_path(self, label: str) -> bool:
        """Whether the value at ``label`` or any value above it is skipped."""
        return any(self.covers(prefix, locations.generic_label(prefix))
                   for prefix in locations.label_prefixes(label))


@lru_cache(maxsize=256)
def _skip_filter(locations: tuple[str, ...]) -> _Skip:
    """The skip filter for ``locations``; a catalog tool passes the same tuple every call."""
    return _Skip(locations)


@lru_cache(maxsize=1024)
def _canonical(location: str) -> str:
    """A location spelt the way the walk labels values (``a.b[0]``, ``a["x y"]``).

    A string that doesn't parse as a location is taken as one top-level key, so a
    catalog's odd argument name ("my file") still works.
    """
    try:
        return locations.format_location(locations.parse_location(location))
    except locations.LocationError:
        return locations.child_label("", location)


# --- entry point -------------------------------------------------------------------------------

_DEFAULT_LIMITS = DiscoveryLimits()


def nothing_to_find(
    arguments: Mapping[str, Any],
    *,
    skip: Iterable[str] = (),
    limits: DiscoveryLimits | None = None,
) -> bool:
    """Whether :func:`discover_paths` would surely find nothing here, asked cheaply.

    For a call with no ``checkpaths`` and no ``expected`` paths. True means the result
    would be empty with nothing in ``stopped``; False means: ask :func:`discover_paths`
    (it may still find nothing). A catalog tool's calls are mostly the True case.
    """
    # True when every value the guess walk would visit is skipped, a number, boolean or
    # null, a blank string or a string under a data name (``file_id``, items of
    # ``file_ids``), no list or object sits as deep as ``max_depth``, and the values are
    # too few for ``max_nodes`` or ``max_strings`` to stop the walk.
    if type(arguments) is not dict and not isinstance(arguments, Mapping):
        return False
    limits = limits or _DEFAULT_LIMITS
    if limits.max_depth < 1:
        return False
    # Values below the root the walk may visit: it stops before one more than this.
    budget = [min(limits.max_nodes, limits.max_strings) - 1]
    return _quiet_entries(arguments, "", _skip_filter(tuple(skip)), 0, limits.max_depth,
                          budget)


def _quiet_entries(
    mapping: Mapping[Any, Any], generic: str, skip: _Skip, depth: int, max_depth: int,
    budget: list[int],
) -> bool:
    """:func:`nothing_to_find` for the entries of a mapping at ``depth``."""
    budget[0] -= len(mapping)
    if budget[0] < 0:
        return False
    kinds = skip.kinds
    inert = _INERT_WORD.fullmatch
    for key, value in mapping.items():
        name = key if type(key) is str else str(key)
        # The remembered answer straight from the dict: one lookup per argument.
        found = kinds.get((generic, name, False))
        label, kind = found if found is not None else skip.entry_kind(generic, name, False)
        if kind == _SKIPPED:
            continue
        if isinstance(value, str):
            # _quiet_string, written out: most top-level arguments are strings.
            if kind != _DATA_NAME and not (kind == _PLAIN_NAME and inert(value)) \
                    and value.strip():
                return False
        elif not _quiet_value(value, label, name, skip, depth + 1, max_depth, budget):
            return False
    return True


def _quiet_string(value: str, kind: int) -> bool:
    """Whether the walk finds nothing in a string under a name of this (searched) kind:
    a blank one, or under a plain name a single inert word (an identifier, a title)."""
    if kind == _PLAIN_NAME and _INERT_WORD.fullmatch(value):
        return True
    return not value.strip()


def _quiet_value(
    value: Any, generic: str, name: str, skip: _Skip, depth: int, max_depth: int,
    budget: list[int],
) -> bool:
    """:func:`nothing_to_find` for a value that isn't a string and isn't skipped."""
    if type(value) is dict or isinstance(value, Mapping):
        return depth < max_depth and _quiet_entries(value, generic, skip, depth, max_depth,
                                                    budget)
    if not isinstance(value, (list, tuple)):
        return True  # numbers, booleans, None: the walk passes them over
    if depth >= max_depth:
        return False  # the walk would stop here and say so
    budget[0] -= len(value)
    if budget[0] < 0:
        return False
    label, kind = skip.entry_kind(generic, name, True)
    if kind == _SKIPPED:
        return True
    for item in value:
        if isinstance(item, str):
            if kind != _DATA_NAME and not _quiet_string(item, kind):
                return False
        elif not _quiet_value(item, label, name, skip, depth + 1, max_depth, budget):
            return False
    return True


def discover_paths(
    arguments: Mapping[str, Any],
    *,
    checkpaths: Sequence[str] = (),
    expected: Sequence[str | PathLike[str]] = (),
    home: str,
    cwd: str | None = None,
    skip: Iterable[str] = (),
    limits: DiscoveryLimits | None = None,
) -> FoundPaths:
    """The local paths a tool call's ``arguments`` would touch, strongest tier first.

    ``checkpaths`` names the argument locations whose values are paths (``local_path``,
    ``attachments[].local_path``); ``expected`` lists paths the caller says the call
    will touch; ``skip`` lists argument locations already described elsewhere (by the
    catalog), which are not searched at all, nor is anything under them. ``home``
    expands ``~``; ``cwd`` anchors relative paths for the sensitive-file advice only
    (paths stay relative). The result is a list of :class:`FoundPath`; its
    ``truncated`` attribute says whether a bound in ``limits`` stopped the search.
    """
    if type(arguments) is not dict and not isinstance(arguments, Mapping):
        raise DiscoveryError(f"arguments must be a JSON object, not {type(arguments).__name__}")
    limits = limits or _DEFAULT_LIMITS
    skip = tuple(skip)
    if not checkpaths and not expected and nothing_to_find(arguments, skip=skip, limits=limits):
        return FoundPaths()
    described = _skip_filter(skip)
    checkpaths = tuple(checkpaths)
    for index, location in enumerate(checkpaths):
        if not isinstance(location, str):
            raise DiscoveryError(
                f"checkpaths[{index}] must be an argument location string, not "
                f"{type(location).__name__}"
            )
    search = _Search(home, cwd, limits)
    for location in checkpaths:
        search.declared(arguments, location, described)
    search.expected(expected)
    # The guess walk leaves declared arguments alone: a declared path with spaces
    # would otherwise come back again as a handful of guessed words.
    walk_skip = _skip_filter((*described.locations, *checkpaths)) if checkpaths else described
    search.walk(arguments, "", "", "", walk_skip, 0)
    return search.result(home, cwd)
