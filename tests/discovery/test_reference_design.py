"""Discovery against its reference design: the layered path discovery of a client-side
permission gate (declared checkpaths, expected paths, then argument names and every
argument's path-like words, shell commands split with shlex, ``file:`` URIs, ``~``).

Three parts: the design's own examples, the cases a review found missing, and a
randomized comparison in which generated calls are searched both by the explorer and
by a small oracle written from the design's rules (below, independent of the
explorer's code); the explorer must find every path the oracle finds, but for the
differences the explorer makes on purpose, each named where it is allowed.

``LOCALFS_DISCOVERY_CALLS`` sets how many calls are generated (default 300;
docs/tool-calls.md gives the larger figure to run before a release),
``LOCALFS_DISCOVERY_SEED`` the seed.
"""

from __future__ import annotations

import os
import posixpath
import pwd
import random
import shlex
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from localfs_explorer.discovery import DiscoveryError, FoundPath, discover_paths
from localfs_explorer.fs import HostFS, VirtualFS, from_spec, to_spec

HOME = "/home/ada"
CWD = "/srv/app"
CALLS = int(os.environ.get("LOCALFS_DISCOVERY_CALLS", "300"))
SEED = int(os.environ.get("LOCALFS_DISCOVERY_SEED", "30"))


def found(arguments: dict[str, Any], **kwargs: Any) -> dict[str, FoundPath]:
    kwargs.setdefault("home", HOME)
    kwargs.setdefault("cwd", CWD)
    return {f.path: f for f in discover_paths(arguments, **kwargs)}


# --- the design's own examples ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ("make 2>/tmp/x", "/tmp/x"),                 # the part after a redirection
        ("make >/tmp/x", "/tmp/x"),
        ('echo "$(wc -l < /tmp/x);"', "/tmp/x"),      # quoted substitution, trailing ';'
        ("env FOO=/etc make", "/etc"),                # an environment assignment
        ("tool --out=/etc", "/etc"),                  # a long option's value
        ("cat 'a dir/with space.txt'", "a dir/with space.txt"),  # quotes keep a path whole
        ("ls a#b/c", "a#b/c"),                        # '#' is not a comment
        ("cp x:y/z /tmp/k=v", "x:y/z"),               # ':' and '=' don't split a word
        ("cat file:///var/log/x.log", "/var/log/x.log"),
        ("cat ./rel/x", "./rel/x"),
        ("cat ~/notes", f"{HOME}/notes"),
    ],
)
def test_the_designs_shell_examples(value: str, path: str) -> None:
    assert path in found({"command": value})
    # Every argument's words are searched, not only a command's.
    assert path in found({"note": value})


def test_the_designs_non_paths() -> None:
    args = {"command": "grep -r '*.py' . .. https://example.com/a/b -v --flag"}
    assert found(args) == {}


def test_a_remote_host_file_uri_still_gives_its_path() -> None:
    result = found({"command": "cat file://fileserver/share/y.txt"})
    assert any("host 'fileserver'" in n for n in result["/share/y.txt"].notes)


def test_a_bare_credential_file_name_is_considered() -> None:
    result = found({"command": "cat .env"})
    assert result[".env"].rule == "credential file name"
    assert result[".env"].sensitive == "matches .env*"


def test_a_credential_name_a_quoted_redirection_leaves_is_considered() -> None:
    # The quoted word holds '/', but what its last redirection leaves has none: the
    # design still takes it as a bare credential file name.
    result = found({"command": "echo 'a/b.txt 2>kubeconfig ;'"})
    assert result["kubeconfig"].rule == "credential file name"


def test_a_tilde_fragment_naming_no_account_never_fails_the_search() -> None:
    result = found({"code": "x = a ~nonsense_account_zz b", "command": "ls ~nonsense_zz/x"})
    assert list(result) == ["~nonsense_zz/x"]
    assert "doesn't know" in result["~nonsense_zz/x"].notes[0]


def test_declared_checkpaths_are_the_strongest_tier_and_their_words_are_searched() -> None:
    result = found({"target": "cat /etc/passwd"}, checkpaths=["target"])
    assert result["cat /etc/passwd"].tier == "declared"
    assert result["/etc/passwd"].tier == "guess"


# --- the cases the review listed --------------------------------------------------------------


def test_a_path_argument_holding_a_command_gives_its_words_too() -> None:
    result = found({"file_path": "cat /etc/passwd"})
    assert result["cat /etc/passwd"].rule == "argument name"
    assert result["/etc/passwd"].source == "file_path"


@pytest.mark.parametrize("name", ["url", "uri", "id", "file_id", "resource_uri", "urls"])
def test_file_uris_in_url_and_id_arguments_are_local_paths(name: str) -> None:
    value: Any = "file:///etc/passwd"
    if name == "urls":
        value = ["https://x.io/a", value]
    result = found({name: value})
    assert list(result) == ["/etc/passwd"]
    assert "decoded from a file: URI" in result["/etc/passwd"].notes


def test_options_and_assignments_are_unwrapped_in_any_argument() -> None:
    result = found({"args": "rg x --out=/etc/x", "query": "FOO=/opt/y make"})
    assert set(result) == {"/etc/x", "/opt/y"}
    assert result["/etc/x"].rule == "option value"
    assert result["/opt/y"].rule == "assignment"


def test_a_redirection_is_not_taken_for_html() -> None:
    result = found({"query": "sort </etc/passwd 2>&1"})
    assert list(result) == ["/etc/passwd"]
    assert result["/etc/passwd"].rule == "redirection"
    # Real markup still loses its tags (and "</p>" gives no path "/p").
    html = found({"body": "<p>see <a href='./r.pdf'>r</a></p> and </etc/shadow x"})
    assert set(html) == {"./r.pdf", "/etc/shadow"}


@pytest.mark.parametrize(
    "command",
    ['echo "$(wc -l < /etc/passwd)"', "echo $(wc -l < /etc/passwd)",
     "echo `wc -l < /etc/passwd`", 'x="`cat /etc/passwd`"'],
)
def test_command_substitutions_are_searched_as_commands(command: str) -> None:
    result = found({"command": command})
    assert "/etc/passwd" in result
    assert not any("$(" in p or "`" in p for p in result)


def test_tilde_user_expands_from_the_hosts_accounts() -> None:
    me = pwd.getpwuid(os.getuid())
    result = found({"command": f"cat ~{me.pw_name}/.bashrc ~no_such_user_zz/x"})
    expanded = me.pw_dir.rstrip("/") + "/.bashrc"
    assert f"~{me.pw_name} expanded from the host's accounts" in result[expanded].notes
    assert "~no_such_user_zz/x" in result  # kept as written, with a note
    # A described host answers from its own accounts, not this machine's.
    host = VirtualFS(home=HOME, users={"deploy": "/var/lib/deploy"})
    on_host = found({"command": "cat ~deploy/.ssh/id_rsa ~root/x"}, fs=host)
    assert on_host["/var/lib/deploy/.ssh/id_rsa"].sensitive == "inside a .ssh folder"
    assert "~root/x" in on_host and "doesn't know" in on_host["~root/x"].notes[0]


def test_a_host_spec_with_users_expands_them_after_a_round_trip() -> None:
    spec = {"version": 1, "home": HOME, "users": {"ci": "/home/ci"}, "entries": {}}
    host = from_spec(to_spec(from_spec(spec)))
    assert "/home/ci/build.log" in found({"command": "tail ~ci/build.log"}, fs=host)


# --- sensitive-file advice -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "advice"),
    [
        ("/srv/app/secrets.yaml", "matches secrets.*"),
        ("/srv/app/prod.env", "matches *.env"),
        ("/srv/app/kubeconfig", "matches kubeconfig"),
        ("/srv/app/credentials", "matches credentials"),
        ("/srv/app/service-account-ci.json", "matches service-account*.json"),
        ("/srv/app/.git-credentials", "matches .git-credentials"),
        ("/srv/app/.npmrc", "matches .npmrc"),
        ("/srv/app/.pypirc", "matches .pypirc"),
        ("/srv/app/.pgpass", "matches .pgpass"),
        ("/srv/app/.envrc", "matches .env*"),
        ("/srv/infra/prod.tfvars", "matches *.tfvars"),
        ("/srv/k/app.jks", "matches *.jks"),
        ("/srv/k/app.keystore", "matches *.keystore"),
        ("/srv/k/me.ppk", "matches *.ppk"),
        ("/srv/k/me.pfx", "matches *.pfx"),
        ("/mnt/backup/.ssh/config", "inside a .ssh folder"),
        ("/mnt/backup/.aws/config", "inside a .aws folder"),
        ("/mnt/backup/.gnupg/trustdb.gpg", "inside a .gnupg folder"),
        ("/mnt/backup/.kube/cache", "inside a .kube folder"),
        ("backup/.ssh/known_hosts", "inside a .ssh folder"),
    ],
)
def test_the_shared_credential_list(path: str, advice: str) -> None:
    assert found({"path": path})[path].sensitive == advice
    assert found({"command": f"cat {path}"})[path].sensitive == advice


def test_a_symlink_to_a_key_is_advised_naming_both_paths(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_ed25519"
    key.write_text("k")
    project = tmp_path / "project"
    project.mkdir()
    (project / "deploy_key_link").symlink_to(key)
    result = found({"path": "deploy_key_link", "command": f"cat {project}/deploy_key_link"},
                   home=str(home), cwd=str(project))
    for spelt in ("deploy_key_link", f"{project}/deploy_key_link"):
        f = result[spelt]
        assert f.resolved == str(key)
        assert f.sensitive == f"{spelt} resolves to {key}, inside ~/.ssh"
    # resolve=False leaves the advice to the spelling.
    plain = found({"path": "deploy_key_link"}, home=str(home), cwd=str(project),
                  resolve=False)
    assert plain["deploy_key_link"].sensitive is None
    assert plain["deploy_key_link"].resolved is None


def test_a_symlink_on_a_described_host_is_resolved_there() -> None:
    host = VirtualFS(home=HOME, cwd=CWD)
    host.mkdir(CWD)
    host.add_file(f"{HOME}/.aws/credentials")
    host.symlink(f"{HOME}/.aws", f"{CWD}/cloud")
    result = found({"command": "cat cloud/credentials notes.txt"}, fs=host)
    assert result["cloud/credentials"].sensitive == "matches credentials"  # by name
    assert result["cloud/credentials"].resolved == f"{HOME}/.aws/credentials"
    result = found({"command": "cat cloud/config"}, fs=host)
    assert result["cloud/config"].sensitive == (
        f"cloud/config resolves to {HOME}/.aws/config, inside ~/.aws")
    # A plain file leads where it says: no resolved path, no advice.
    assert found({"path": "notes.txt"}, fs=host)["notes.txt"].resolved is None


def test_extra_sensitive_patterns_extend_the_list() -> None:
    args = {"command": "keepassxc-cli open vault.kdbx", "path": "/srv/x/team.kdbx"}
    assert "vault.kdbx" not in found(args)
    result = found(args, extra_sensitive=["*.kdbx"])
    assert result["vault.kdbx"].sensitive == "matches *.kdbx"
    assert result["/srv/x/team.kdbx"].sensitive == "matches *.kdbx"
    with pytest.raises(DiscoveryError, match="can't hold '/'"):
        discover_paths(args, home=HOME, extra_sensitive=["keys/*.kdbx"])


# --- the oracle: the design's rules, written out from its text ---------------------------------

# The design's step 3 uses a name test it doesn't show; these names are path-ish on any
# reading, so the oracle applies step 3 to them only.
ORACLE_PATH_NAMES = ("path", "file_path", "local_path", "filename", "output_dir")
# Its sensitive-file matcher (the second round's bare names), from its published list.
ORACLE_SENSITIVE_NAMES = {
    ".env", ".netrc", "_netrc", ".git-credentials", ".npmrc", ".pypirc", ".htpasswd",
    ".pgpass", ".my.cnf", ".envrc", ".dockercfg", "id_rsa", "id_dsa", "id_ecdsa",
    "id_ed25519", "credentials", "credentials.json", "kubeconfig", "secrets.yaml",
    "secrets.yml", "secrets.json", "secrets.toml",
}
ORACLE_SENSITIVE_SUFFIXES = {".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk",
                             ".tfvars"}
ORACLE_SENSITIVE_DIRS = {".ssh", ".aws", ".gnupg", ".kube"}
ORACLE_SENSITIVE_GLOBS = (".env.*", "*.env", "secrets.*", "service-account*.json",
                          "*credentials.json")


def oracle_tokens(value: str) -> list[str]:
    """Step 4's split: one token when there is no whitespace, else shlex with the
    operators as their own tokens and no comments (whitespace on a quoting error)."""
    text = value.strip()
    if not text:
        return []
    if not any(c.isspace() for c in text):
        return [text]
    lexer = shlex.shlex(text, posix=True, punctuation_chars="();<>|&")
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return text.split()


def oracle_clean(token: str) -> str:
    """Step 4's clean-up of one token, rule by rule as the design lists them."""
    for sign in (">", "<"):
        if sign in token:
            token = token[token.rindex(sign) + 1:]
    token = token.strip()
    if token[:2] == "$(":
        token = token[2:]
    token = token.strip("(){}")
    while token and token[-1] in ";|&)":
        token = token[:-1]
    token = token.strip()
    if "=" in token:
        head, tail = token.split("=", 1)
        if head and head.lstrip("-").replace("_", "").isalnum():
            token = tail
    return token


def oracle_pathlike(token: str) -> bool:
    if not token or token[0] == "-" or token[0] in "*?[" or token in {".", ".."}:
        return False
    if "://" in token and token.split("://")[0].lower() != "file":
        return False
    return token.startswith(("/", "~", "./", "../")) or "/" in token or "\\" in token


def oracle_sensitive(token: str) -> bool:
    name = posixpath.basename(token).lower()
    suffix = os.path.splitext(name)[1] if not name.startswith(".") or name.count(".") > 1 \
        else ""
    return (name in ORACLE_SENSITIVE_NAMES or suffix in ORACLE_SENSITIVE_SUFFIXES
            or any(part.lower() in ORACLE_SENSITIVE_DIRS for part in token.split("/"))
            or any(fnmatchcase(name, g) for g in ORACLE_SENSITIVE_GLOBS))


def oracle_place(text: str, home: str, cwd: str) -> str | None:
    """Where the design's resolution puts ``text`` (lexically: the generated paths don't
    exist); None where it gives up (``~name`` of no account)."""
    if text.lower().startswith("file:"):
        text = unquote(urlsplit(text).path)
        if not text:
            return None
    if text == "~" or text.startswith("~/"):
        text = home + text[1:]
    elif text.startswith("~"):
        user, _, rest = text[1:].partition("/")
        try:
            text = pwd.getpwnam(user).pw_dir + ("/" + rest if rest else "")
        except KeyError:
            return None
    return posixpath.normpath(posixpath.join(cwd, text))


def oracle(arguments: dict[str, Any], home: str, cwd: str) -> dict[str, tuple[str, str]]:
    """place -> (argument, token) for every path steps 3 and 4 consider; bare credential
    names (the second round) only in command arguments (see the comparison)."""
    places: dict[str, tuple[str, str]] = {}

    def consider(raw: str, name: str) -> None:
        place = oracle_place(raw, home, cwd)
        if place is not None:
            places.setdefault(place, (name, raw))

    for name, value in arguments.items():
        if isinstance(value, str) and name in ORACLE_PATH_NAMES and value.strip():
            consider(value, name)
    for name, value in arguments.items():
        if not isinstance(value, str):
            continue
        for token in oracle_tokens(value):
            cleaned = oracle_clean(token)
            if oracle_pathlike(cleaned) or (
                name == "command" and " " not in cleaned and oracle_sensitive(cleaned)
            ):
                consider(cleaned, name)
    return places


# --- generated calls ---------------------------------------------------------------------------

PATHS = [
    "/etc/passwd", "/tmp/a b/c.txt", "~/notes.md", "~/.ssh/id_ed25519", "~root/.bashrc",
    "~nosuch_zz/x", "./rel/x.txt", "../up/y", "data/z.csv", "/dev/null", "file:///etc/hosts",
    "file://localhost/srv/x%20y.txt", "/srv/.aws/config", "/opt/secrets.yaml", "sub/a#b",
    "x:y/z", "/var/log/app.log", "$HOME/k.txt", "a\\b", "/q/it's", "src/main.py",
]
BARE = [".env", "kubeconfig", "credentials", "id_rsa", "server.pem", "prod.env",
        "secrets.json", "service-account-1.json", ".npmrc", "notes.txt"]
WORDS = ["cat", "sort", "-l", "-rf", "x", "hello", "make", "2>&1", "e.g.", "see", "then",
         "and", "ok.", "(", ")", "&&", "|", ";", ">", "<", ">>", "2>", "-o", "--output",
         "'", '"']
NAMES = ["command", "cmd", "query", "args", "message", "text", "note", "path", "file_path",
         "local_path", "filename", "output_dir", "output", "source", "url", "uri",
         "file_id", "content_base64", "items"]


def wrapped(rng: random.Random, token: str) -> str:
    forms = ["{}", "{}", "{}", "--out={}", "FOO={}", "<{}", ">{}", "2>{}", "$(cat {})",
             "`cat {}`", "({})", "{};", "{}|", '"{}"', "'{}'", "{}.", "{},", '"$(wc -l < {})"']
    form = rng.choice(forms)
    if "'" in token and "'" in form:
        form = "{}"
    return form.format(token)


def generated_value(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return wrapped(rng, rng.choice(PATHS + BARE))
    parts = []
    for _ in range(rng.randint(1, 7)):
        roll = rng.random()
        if roll < 0.4:
            token = rng.choice(PATHS)
            parts.append(wrapped(rng, shlex.quote(token) if rng.random() < 0.3 else token))
        elif roll < 0.55:
            parts.append(wrapped(rng, rng.choice(BARE)))
        else:
            parts.append(rng.choice(WORDS))
    return " ".join(parts)


def generated_call(rng: random.Random) -> dict[str, Any]:
    return {name: generated_value(rng) for name in rng.sample(NAMES, rng.randint(1, 4))}


# The explorer's differences on purpose, each allowed by name and nowhere else.
NOISE = {"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"}
TRAILING = "\"'`)]}>.,;:!?"


def variants(raw: str, home: str, cwd: str) -> set[str]:
    """The places the explorer may report for a token instead, each for a named reason:
    sentence punctuation trimmed in prose ("see /etc/passwd." is /etc/passwd), backquotes
    taken as command substitution or code spans, quotes in a command taken as shell
    quoting even in a one-word value (the design splits only values with spaces),
    ``$HOME`` in a command expanded to the home folder (the design keeps all four
    literally)."""
    spellings = {raw}
    try:
        words = shlex.split(raw)
    except ValueError:
        words = []
    if len(words) == 1:
        spellings.add(words[0])
    for _ in range(3):  # each rule applied after the others, in any order
        spellings |= {s.strip("`") for s in spellings}
        spellings |= {s.rstrip(TRAILING) for s in spellings}
        spellings |= {home + s.split("$HOME", 1)[1] for s in spellings
                      if s.startswith("$HOME")}
    # A ~name of no account is kept as written by the explorer (with a note).
    return {oracle_place(s, home, cwd) or s for s in spellings if s}


def allowed_difference(place: str, name: str, raw: str, value: str) -> str | None:
    if variants(raw, HOME, CWD) & NOISE or place in NOISE:
        return "the standard streams and /dev/null are noise, not files"
    if name == "content_base64":
        return "encoded bytes are never searched (base64 is full of '/')"
    if name in ("url", "uri", "file_id") and not (
        raw.startswith(("/", "~", "./", "../")) or raw.lower().startswith("file:")
    ):
        return "in an id or URL only words spelt as local paths count (a Gmail id is m/1)"
    if name in ORACLE_PATH_NAMES and raw == value and (
        raw.startswith("-") or ("://" in raw.split(" ")[0] and not raw.startswith("file:"))
    ):
        return "a flag or a URL given whole as a path argument is not a path"
    return None


def explorer_places(result: list[FoundPath], home: str, cwd: str) -> set[str]:
    places = set()
    for f in result:
        if f.path.startswith("~"):
            places.add(f.path)  # an account no host knows: kept as written
            continue
        places.add(posixpath.normpath(posixpath.join(cwd, f.path)))
    return places


def covered(place: str, raw: str, ours: set[str]) -> bool:
    return place in ours or bool(variants(raw, HOME, CWD) & ours)


def test_the_explorer_finds_what_the_design_finds_in_generated_calls() -> None:
    rng = random.Random(SEED)
    compared = 0
    for _ in range(CALLS):
        call = generated_call(rng)
        ours = explorer_places(discover_paths(call, home=HOME, cwd=CWD, resolve=False),
                               HOME, CWD)
        for place, (name, raw) in oracle(call, HOME, CWD).items():
            compared += 1
            if covered(place, raw, ours):
                continue
            why = allowed_difference(place, name, raw, call[name])
            assert why is not None, (
                f"the design finds {place!r} (from {raw!r} in {name!r}); the explorer "
                f"doesn't, for call {call!r} (seed {SEED})"
            )
    assert compared > CALLS  # the generated calls do hold paths to compare


def test_the_oracle_reads_the_designs_examples_as_the_design_does() -> None:
    """The oracle itself, held to the cases the design spells out."""
    assert oracle({"q": "make 2>/tmp/x"}, HOME, CWD).keys() == {"/tmp/x"}
    assert oracle({"q": 'echo "$(wc -l < /tmp/x);"'}, HOME, CWD).keys() == {"/tmp/x"}
    assert oracle({"q": "FOO=/etc --out=/opt"}, HOME, CWD).keys() == {"/etc", "/opt"}
    assert oracle({"command": "cat .env"}, HOME, CWD).keys() == {f"{CWD}/.env"}
    assert oracle({"q": "cat .env"}, HOME, CWD) == {}
    assert oracle({"q": "see https://x.io/a *.py . .. -o"}, HOME, CWD) == {}
    assert oracle({"path": "notes"}, HOME, CWD).keys() == {f"{CWD}/notes"}
    assert oracle({"q": "~nosuch_zz/x"}, HOME, CWD) == {}
    assert oracle({"q": "file:///a%20b"}, HOME, CWD).keys() == {"/a b"}


def test_every_allowed_difference_is_one_the_explorer_really_makes() -> None:
    """Each named difference holds: the explorer doesn't find these, on purpose."""
    assert found({"command": "make > /dev/null"}) == {}
    assert found({"content_base64": "aGk/b2s="}) == {}
    assert found({"file_id": "m/1", "url": "example.com/a"}) == {}
    assert "--out=/x" not in found({"path": "--out=/x"})
    assert "/etc/passwd" in found({"message": "see /etc/passwd."})
    assert "/etc/passwd." not in found({"message": "see /etc/passwd."})
    assert f"{HOME}/k.txt" in found({"command": "cat $HOME/k.txt"})


def test_hostfs_is_the_default_host() -> None:
    # ~name is looked up in this machine's accounts when no host is given.
    root_home = HostFS().user_home("root")
    if root_home is None:
        pytest.skip("this machine has no root account in its password database")
    assert f"{root_home.rstrip('/')}/.bashrc" in found({"command": "cat ~root/.bashrc"})
