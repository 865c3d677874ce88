"""The search behind :func:`discover_paths`: an argument walk over three tiers.

It finds at least what the layered discovery of a client-side permission gate (the
reference design: declared checkpaths, picker paths, argument names, then each
argument's shell tokens) finds; ``tests/discovery/test_reference_design.py`` holds it
to an oracle of that design's rules. The rules of the guess tier, and why:

- **Names.** An argument name is split into words (``localPath`` → ``local path``) and
  its last word decides, because that is the noun: ``output_file`` holds a file,
  ``file_id`` holds an id (Drive ids are everywhere in this server's arguments).
  Strong nouns (``path``, ``file``, ``dir``, ``folder``, ``cwd`` ...) take any
  plausible value whole; weak ones (``dest``, ``output``, ``source``, ``target``,
  ``root`` ...) and ``file_name`` only a value that looks like a path or a file name
  (``report.pdf``), since ``output="json"`` and ``source="drive"`` are not paths.
  Whatever the name, the value's words are searched as well: ``{"file_path": "cat
  /etc/passwd"}`` gives the whole value and ``/etc/passwd``, and a declared argument's
  words are guesses beside its declared value, as in the reference design.
- **Values.** A word is path-like when it starts with ``/``, ``~``, ``./`` or ``../``,
  or contains ``/`` (or ``\\``) and isn't something else that does: a URL (any
  ``scheme://`` other than ``file:``, ``mailto:``, ``data:`` ..., ``user@host:path``),
  a MIME type (``text/plain``), a date or fraction (``2024/01/31``), a short
  ``and/or``, or a string with a name longer than a file system allows. A ``file:`` URI
  is decoded to its path. A bare credential file name (``.env``, ``id_rsa``,
  ``server.pem``) counts too, so ``cat .env`` is noticed; outside a command only one
  with a dot in it (a lone ``credentials`` in prose is a word).
- **Ids, URLs, addresses** (``file_id``, ``url``, ``uri``, ``email`` ...) are never
  taken whole, and of their words only those spelt as local paths count (``file:``
  URIs, ``/x``, ``~/x``, ``./x``): ``{"url": "file:///etc/passwd"}`` is
  ``/etc/passwd``, while a Gmail id ``m/1`` or ``example.com/a`` is not a path.
  Encoded bytes (``content_base64``) are not searched at all: base64 is full of ``/``.
- **Shell commands.** A value is split as a shell command when its argument is named
  ``command``/``cmd``/``script``/``shell`` or it contains shell syntax (``| < > ; &``,
  ``$(``, backquotes) and isn't markup. :func:`shlex.split` rules apply, with
  operators split off; on a quoting error the value is split on whitespace instead.
  The word after a redirection (``> out``, ``2>>log``, ``< in``) is a path whatever it
  looks like; ``--opt=value`` and ``VAR=value`` are unwrapped, and ``--output file``
  takes the next word when the option's name says it holds a path. ``$(...)`` and
  backquoted commands are searched as commands of their own, quoted or not
  (``echo "$(wc -l < /etc/passwd)"``). ``$HOME`` and ``~`` expand to the given home
  (even inside quotes, where a shell wouldn't: finding the file matters more than the
  exact spelling).
- **Other text** is split on whitespace, with surrounding quotes and punctuation
  trimmed and Markdown/HTML link targets taken out first; and, as the reference design
  splits every value as a command, its shell tokens are searched too (quotes grouping
  a path with spaces, ``FOO=/opt/y`` and ``--out=/etc/x`` unwrapped, ``<``/``>`` split
  off). Only a known HTML element (``<p>``, ``<img src=...>``, ``</a>``), a comment or a
  doctype counts as markup, so ``sort </etc/passwd 2>&1`` is a redirection, not a tag.
- **Home.** ``~`` and ``~/x`` expand to ``home``; ``~name/x`` to the home the host's
  account database gives (:meth:`~localfs_explorer.fs.FileSystem.user_home`: this
  machine's password database, or a described host's ``users``). An account the host
  doesn't know is kept as written with a note, and a lone ``~word`` naming none is
  prose (``~5 minutes``), as the reference design, which gives up on it, treats it.
- **Relative paths** stay relative: the engine resolves them against the cwd of the
  server. ``cd`` inside a command is not followed.

Where it differs from the reference design on purpose: it also searches nested
objects and lists (arguments are JSON, and paths sit in ``attachments[0].local_path``);
it drops ``/dev/null`` and the standard streams (never files a policy is about); it
trims sentence punctuation from prose words and takes quotes and backquotes as shell
syntax in one-word values too (``see /etc/passwd.`` is ``/etc/passwd``, not
``/etc/passwd.``); it leaves out the non-path shapes listed under *Values* and the
words of ids, URLs and encoded bytes said above; a lone ``~`` in prose is an
approximation, not the home folder.

Every found path keeps where it was found (``source``: an argument location such as
``attachments[0].local_path``, or ``expected``), the rule that found it, the original
string (``raw``) and sensitive-file advice, asked of the path as spelt and of where it
leads on the host (:attr:`FoundPath.resolved`). Paths are deduplicated, keeping the
strongest tier. The walk is bounded (depth, strings, characters, words, paths); when
a bound stops it, the result says so (:attr:`FoundPaths.truncated`).

Most calls of a described tool leave nothing to search (an id, a count, the paths the
catalog already names): :func:`nothing_to_find` says so without a walk, and
:func:`discover_paths` asks it first.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from os import PathLike, fspath
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from ..catalog import locations
from ..errors import LocalfsError
from ..sensitive import check_extra_patterns, sensitive_advice, sensitive_reason
from .records import _TIER_RANK, DiscoveryError, DiscoveryLimits, FoundPath, FoundPaths, Tier
from .skip import (
    _DEFAULT_LIMITS,
    _select,
    _Skip,
    _skip_filter,
    _strings_at,
    nothing_to_find,
)
from .words import (
    _ASSIGNMENT,
    _GLUED_REDIRECT,
    _HOME_VAR,
    _LONG_OPTION,
    _MARKUP,
    _MARKUP_TARGET,
    _NOISE,
    _OPTION,
    _PATH_CHARS,
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
    is_encoded_argument_name,
    is_path_argument_name,
    looks_like_path,
    not_a_path_shape,
    reference_candidate,
    reference_clean,
    shell_words,
)

if TYPE_CHECKING:
    from ..fs import FileSystem

__all__ = ["discover_paths"]

# --- the search --------------------------------------------------------------------------------


class _Search:
    """State of one discovery: found paths by path, budgets, and what stopped it."""

    def __init__(self, home: str, cwd: str | None, limits: DiscoveryLimits,
                 fs: FileSystem | None = None, extra: tuple[str, ...] = (),
                 resolve: bool = True) -> None:
        self.home = home
        # "~/x" → home + "/x"; rstrip so a home of "/" doesn't give "//x".
        self.home_prefix = home.rstrip("/")
        self.cwd = cwd
        self.limits = limits
        self.fs = fs
        self.extra = extra
        self.resolve_links = resolve
        self.users: dict[str, str | None] = {}
        self.found: dict[str, dict[str, Any]] = {}
        self.stopped: list[str] = []
        self.nodes = 0
        self.strings = 0

    def user_home(self, name: str) -> str | None:
        """``~name``'s home on the host, asked once per name (None: unknown)."""
        if name in self.users:
            return self.users[name]
        home = None
        if self.fs is not None and name and len(self.users) < 64:
            try:
                home = self.fs.user_home(name)
            except (OSError, ValueError):
                home = None
        self.users[name] = home
        return home

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
            name, slash, rest = path[1:].partition("/")
            user_home = self.user_home(name)
            if user_home is not None:
                path = user_home.rstrip("/") + (f"/{rest}" if slash else "")
                if not path:
                    path = "/"
                notes.append(f"~{name} expanded from the host's accounts")
            elif not slash:
                # A lone "~word" naming no account is prose ("~5 minutes"), not a path.
                return "", notes
            else:
                notes.append(f"~{name} names an account this host doesn't know; not expanded")
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
            if not is_encoded_argument_name(name):  # base64 and the like: never searched
                self.anchored(value, label)
            return
        if kind in ("path", "weak") and _plausible_value(value) and (
            kind == "path" or looks_like_path(value) or _looks_like_file_name(value)
        ):
            self.add(value, tier="guess", source=label, rule="argument name")
        # Whatever the name, the value's words are searched too: "cat /etc/passwd" given
        # as a file_path names /etc/passwd as well.
        has_space = any(ch.isspace() for ch in value)
        if kind == "command" or (
            has_space and _SHELL_SYNTAX.search(value) and not _MARKUP.search(value)
        ):
            self.command(self._bounded(value, label), label)
            if not has_space:
                # One word is one token to the reference design, quotes and all.
                self.reference(value, label, "shell word")
        elif has_space:
            self.text(self._bounded(value, label), label)
        else:
            self.word(value, label, rule="path-like value", bare_names=_has_dot(value))
            self.reference(value, label, "path-like value")

    def anchored(self, value: str, label: str) -> None:
        """An id, URL, address or type: only words spelt as local paths are taken
        (``file:`` URIs, ``/x``, ``~/x``, ``./x``, ``../x``). A relative ``a/b`` there is a
        Gmail id (``m/1``), a URL without its scheme, a MIME type, not a path."""
        if any(ch.isspace() for ch in value):
            tokens = self._words(shell_words(self._bounded(value, label))[0], label)
        else:
            tokens = [value]
        for token in tokens:
            found = reference_candidate(token)
            if found is None:
                continue
            candidate, how = found
            if (candidate[0] in "/~" or candidate.startswith(("./", "../"))
                    or candidate[:5].lower() == "file:") and not not_a_path_shape(candidate):
                self.add(candidate, tier="guess", source=label, rule=how or "path-like value",
                         raw=token)

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
            and sensitive_reason(word, home=self.home, extra=self.extra) is not None
        ):
            self.add(word, tier="guess", source=label, rule="credential file name", raw=raw)

    def reference(self, token: str, label: str, rule: str, *, prose: bool = False) -> None:
        """Add what the reference design takes from ``token`` (see
        :func:`~localfs_explorer.discovery.words.reference_candidate`), unless it is a
        shape this explorer deliberately doesn't take for a path."""
        found = None if _PATH_CHARS.search(token) is None else reference_candidate(token)
        if found is None:
            # Nothing path-like is left of it; in a command, what is left may still be a
            # credential file's name the word rules didn't unwrap (">> FOO=.env", or a
            # quoted "a/b 2>kubeconfig" whose path-like part the redirection cut off).
            if not prose and _UNWRAPS.search(token) is not None:
                bare, _ = reference_clean(token)
                if bare and bare != token and not any(ch.isspace() for ch in bare) \
                        and not _is_url(bare) and bare[0] not in "-*?[" \
                        and sensitive_reason(bare, home=self.home, extra=self.extra):
                    self.add(bare, tier="guess", source=label, rule="credential file name",
                             raw=token)
            return
        candidate, how = found
        if "`" in candidate:
            # A backquote opens or closes a command substitution (or, in prose, a code
            # span); it is not part of a name.
            candidate = candidate.strip("`")
        if prose:
            # Sentence punctuation is not part of a name ("see /etc/passwd.").
            candidate = candidate.rstrip(_TRIM_RIGHT)
            if not candidate or candidate == "~":
                return
        elif how is None and candidate == token and looks_like_path(token) \
                and "$(" not in token and "`" not in token:
            return  # the word rules took this very word already
        if not candidate:
            return
        if not_a_path_shape(candidate):
            return
        self.add(candidate, tier="guess", source=label, rule=how or rule, raw=token,
                 shell=not prose)

    def command(self, text: str, label: str, depth: int = 0) -> None:
        if depth < 4 and ("$(" in text or "`" in text):
            # A command substitution runs a command of its own, quoted or not.
            for match in _SUBSTITUTION.finditer(text):
                inner = match.group(1) if match.group(1) is not None else match.group(2)
                if inner.strip():
                    self.command(inner, label, depth + 1)
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
                    target = following.strip("`") if "`" in following else following
                    if target:
                        self.add(target, tier="guess", source=label, rule="redirection",
                                 raw=following, shell=True)
                    self.reference(following, label, "redirection")
                    index += 1
                continue
            self.reference(word, label, rule)
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
                self.reference(following, label, "option value")
                index += 1

    def shell_word(self, word: str, label: str, rule: str) -> None:
        if "$(" in word or "`" in word:
            return  # a quoted command substitution: its own words were searched
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
        markup = _MARKUP.search(text) is not None
        if markup:
            for match in _MARKUP_TARGET.finditer(text):
                target = next(g for g in match.groups() if g is not None)
                if target and not _is_url(target) and not target.startswith("#"):
                    self.add(target, tier="guess", source=label, rule="link target")
            # Link targets are taken above; tags themselves ("</p>") are not words.
            plain = _TAG.sub(" ", _MARKUP_TARGET.sub(" ", text))
        else:
            plain = text
        words = self._words(plain.split(), label)
        for raw_word in words:
            word = raw_word.lstrip(_TRIM_LEFT).rstrip(_TRIM_RIGHT)
            if not word or word == "~":
                continue  # a lone "~" in prose is an approximation, not the home folder
            if "=" in word:
                unwrapped = reference_candidate(word)
                if unwrapped is not None and unwrapped[1] in ("assignment", "option value"):
                    continue  # FOO=/opt/y: the value is the path (taken below), not FOO=
            glued = _GLUED_REDIRECT.match(word)
            if glued and looks_like_path(glued.group("target")):
                word = glued.group("target")
            self.word(word, label, rule="path-like word", bare_names=_has_dot(word),
                      raw=raw_word)
        if _PATH_CHARS.search(plain) is not None:
            # The reference design splits every value as a shell command: its tokens
            # (quotes grouping words, '=' and '<' unwrapped) are found here as well. In
            # markup the tags are gone first: "</p>" is a closing tag, not a path "/p".
            tokens, _ = shell_words(plain)
            for token in self._words(tokens, label):
                if not _is_operator(token):
                    self.reference(token, label, "path-like word", prose=True)

    def resolve(self, path: str, cwd: str | None) -> str | None:
        """Where ``path`` leads on the host, when that differs from how it is spelt."""
        if self.fs is None or not self.resolve_links:
            return None
        if path.startswith("/"):
            absolute = path
        elif cwd and cwd.startswith("/") and not path.startswith("~"):
            absolute = posixpath.join(cwd, path)
        else:
            return None  # an unexpanded ~user, or relative with nothing to anchor it
        try:
            resolved = self.fs.realpath(absolute)
        except (OSError, ValueError, RecursionError):
            return None
        if resolved == posixpath.normpath(absolute) or not isinstance(resolved, str):
            return None
        return resolved

    def result(self, home: str, cwd: str | None) -> FoundPaths:
        ordered = sorted(self.found.values(), key=lambda e: _TIER_RANK[e["tier"]])
        paths = []
        for e in ordered:
            path = e["path"]
            resolved = self.resolve(path, cwd)
            paths.append(FoundPath(
                path=path, tier=e["tier"], source=e["source"], raw=e["raw"],
                rule=e["rule"],
                sensitive=sensitive_advice(path, resolved, home=home, cwd=cwd,
                                           extra=self.extra),
                notes=tuple(e["notes"]), also_found_at=tuple(e["also"]), resolved=resolved,
            ))
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


#: What the reference design's clean-up of a token can strip or unwrap.
_UNWRAPS = re.compile(r"[<>=(){};|&]")
#: A command substitution with nothing nested in it: ``$(...)`` or backquotes.
_SUBSTITUTION = re.compile(r"\$\(([^()]*)\)|`([^`]*)`")


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


def discover_paths(
    arguments: Mapping[str, Any],
    *,
    checkpaths: Sequence[str] = (),
    expected: Sequence[str | PathLike[str]] = (),
    home: str,
    cwd: str | None = None,
    skip: Iterable[str] = (),
    limits: DiscoveryLimits | None = None,
    fs: FileSystem | None = None,
    resolve: bool = True,
    extra_sensitive: Iterable[str] = (),
) -> FoundPaths:
    """The local paths a tool call's ``arguments`` would touch, strongest tier first.

    ``checkpaths`` names the argument locations whose values are paths (``local_path``,
    ``attachments[].local_path``); ``expected`` lists paths the caller says the call
    will touch; ``skip`` lists argument locations already described elsewhere (by the
    catalog), which are not searched at all, nor is anything under them. ``home``
    expands ``~``; ``cwd`` anchors relative paths for the sensitive-file advice and
    for resolving them (paths stay relative).

    ``fs`` is the host the tools run on (this machine when None): ``~name`` expands
    to the home its account database gives (:meth:`FileSystem.user_home`), and, with
    ``resolve``, each path is followed through symlinks there so the sensitive-file
    advice covers where it leads (:attr:`FoundPath.resolved`). ``extra_sensitive``
    adds name globs to the sensitive-file list (``*.kdbx``).

    The result is a list of :class:`FoundPath`; its ``truncated`` attribute says
    whether a bound in ``limits`` stopped the search.
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
    try:
        extra = check_extra_patterns(extra_sensitive)
    except LocalfsError as exc:
        raise DiscoveryError(str(exc)) from None
    if fs is None:
        from ..fs import HostFS

        fs = HostFS()
    search = _Search(home, cwd, limits, fs, extra, resolve)
    for location in checkpaths:
        search.declared(arguments, location, described)
    search.expected(expected)
    # Declared arguments are searched by the guess walk as well, as every argument is
    # in the reference design: "/a b/c" declared finds "/a" and "b/c" too (guesses),
    # and "cat /etc/passwd" declared finds /etc/passwd.
    search.walk(arguments, "", "", "", described, 0)
    return search.result(home, cwd)

