"""Sensitive-file advice: which patterns match, compared by path components."""

from __future__ import annotations

import fnmatch
import posixpath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localfs_explorer.sensitive import (
    SensitivePattern,
    sensitive_match,
    sensitive_patterns,
    sensitive_reason,
)

HOME = "/home/ada"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/home/ada/.ssh", "is ~/.ssh"),
        ("/home/ada/.ssh/config", "inside ~/.ssh"),
        ("~/.ssh/known_hosts", "inside ~/.ssh"),
        ("~/.gnupg/private-keys-v1.d/x.key", "inside ~/.gnupg"),
        ("~/.aws/credentials", "inside ~/.aws"),
        ("~/.config/gh/hosts.yml", "inside ~/.config/gh"),
        ("~/.netrc", "is ~/.netrc"),
        ("~/.docker/config.json", "is ~/.docker/config.json"),
        ("~/.config/gcloud/application_default_credentials.json", "inside ~/.config/gcloud"),
        ("/srv/app/id_ed25519", "matches id_*"),
        ("/srv/app/credentials.json", "matches credentials.json"),
        ("/srv/app/.env", "matches .env*"),
        ("/srv/app/.env.production", "matches .env*"),
        ("/etc/ssl/private/server.pem", "matches *.pem"),
        ("/srv/tls/server.key", "matches *.key"),
        ("/srv/tls/bundle.p12", "matches *.p12"),
        ("/srv/tls/bundle.pfx", "matches *.pfx"),
        ("/srv/app/.npmrc", "matches .npmrc"),
        ("/srv/app/client_secret_123.apps.googleusercontent.com.json",
         "matches client_secret*.json"),
        # The shared list: names wherever they are, folders anywhere in the path.
        ("/srv/app/secrets.yaml", "matches secrets.*"),
        ("/srv/app/config/Secrets.TOML", "matches secrets.*"),
        ("/srv/app/prod.env", "matches *.env"),
        ("/srv/app/kubeconfig", "matches kubeconfig"),
        ("/srv/app/credentials", "matches credentials"),
        ("/srv/app/gcp-credentials.json", "matches *credentials.json"),
        ("/srv/app/service-account-ci.json", "matches service-account*.json"),
        ("/srv/app/.git-credentials", "matches .git-credentials"),
        ("/srv/app/.pypirc", "matches .pypirc"),
        ("/srv/app/.pgpass", "matches .pgpass"),
        ("/srv/app/.envrc", "matches .env*"),
        ("/srv/infra/prod.tfvars", "matches *.tfvars"),
        ("/srv/java/app.jks", "matches *.jks"),
        ("/srv/java/release.keystore", "matches *.keystore"),
        ("/srv/putty/me.ppk", "matches *.ppk"),
        ("/srv/.netrc", "matches .netrc"),
        ("/srv/_netrc", "matches _netrc"),
        ("/srv/.my.cnf", "matches .my.cnf"),
        ("/srv/.ssh/config", "inside a .ssh folder"),
        ("/home/adam/.ssh/config", "inside a .ssh folder"),
        ("/mnt/backup/ada/.aws/config", "inside a .aws folder"),
        ("/opt/x/.GnuPG/pubring.kbx", "inside a .gnupg folder"),
        ("/opt/x/.kube", "is a .kube folder"),
        ("/opt/.kube/cache/discovery", "inside a .kube folder"),
        ("/home/ada/.kube/http-cache/x", "inside a .kube folder"),
    ],
)
def test_credential_locations_are_flagged(path: str, reason: str) -> None:
    assert sensitive_reason(path, home=HOME) == reason


@pytest.mark.parametrize(
    "path",
    [
        "/home/ada/.sshx/config",      # a sibling whose name starts like ~/.ssh
        "/home/ada/.ssh-backup",
        "/home/ada/.config/ghost/x",
        "/home/adam/.sshx/config",     # another home that starts like ours
        "/home/ada.ssh/config",        # ... and one whose rest reads like an entry
        "/srv/ssh/config",             # a folder named like .ssh without the dot
        "/srv/x.ssh/config",           # ... or with more in its name
        "/srv/.aws-old/config",
        "/srv/app/.env/lib/site.py",   # a virtualenv called .env: only the last name counts
        "/srv/app/credentials.txt",    # 'credentials' is a whole name, not a prefix
        "/srv/app/kubeconfig.bak/x",
        "/srv/app/secrets",            # secrets.* needs the dot
        "/srv/app/report.pdf",
        "/srv/app/environment.yml",
        "/",
        "",
    ],
)
def test_lookalikes_are_not_flagged(path: str) -> None:
    assert sensitive_reason(path, home=HOME) is None


def test_paths_are_normalised_lexically() -> None:
    assert sensitive_reason("/home/ada/docs/../.ssh/config", home=HOME) == "inside ~/.ssh"
    assert sensitive_reason("/home/ada//.ssh/./config", home=HOME) == "inside ~/.ssh"
    assert sensitive_reason("/home/ada/.ssh/../notes.txt", home=HOME) is None


def test_home_with_a_trailing_slash_matches_the_same() -> None:
    assert sensitive_reason("/home/ada/.aws/config", home="/home/ada/") == "inside ~/.aws"
    assert sensitive_reason("~/.aws/config", home="/home/ada/") == "inside ~/.aws"


def test_tilde_expands_only_to_the_given_home() -> None:
    # Another account's ~user is never looked up; its last name is still checked.
    assert sensitive_reason("~bob/notes/config", home=HOME) is None
    assert sensitive_reason("~bob/keys/server.pem", home=HOME) == "matches *.pem"
    # A credential folder is one wherever it is, another account's home included.
    assert sensitive_reason("~bob/.ssh/config", home=HOME) == "inside a .ssh folder"
    assert sensitive_reason("~", home=HOME) is None


def test_relative_paths_use_cwd_for_home_entries() -> None:
    assert sensitive_reason(".config/gh/hosts.yml", home=HOME) is None
    assert sensitive_reason(".config/gh/hosts.yml", home=HOME, cwd="/home/ada") == (
        "inside ~/.config/gh")
    # The home entry is the more specific advice when the anchor is known.
    assert sensitive_reason(".ssh/config", home=HOME) == "inside a .ssh folder"
    assert sensitive_reason(".ssh/config", home=HOME, cwd="/home/ada") == "inside ~/.ssh"
    # Name globs need no anchor.
    assert sensitive_reason(".env", home=HOME) == "matches .env*"
    assert sensitive_reason("../secrets/id_rsa", home=HOME) == "matches id_*"


def test_case_variants_are_flagged() -> None:
    # On a case-insensitive disk ~/.SSH is ~/.ssh; for advice a false alarm is cheaper.
    assert sensitive_reason("/home/ada/.SSH/config", home=HOME) == "inside ~/.ssh"
    assert sensitive_reason("/srv/SERVER.PEM", home=HOME) == "matches *.pem"


def test_nul_bytes_do_not_break_the_advice() -> None:
    assert sensitive_reason("/home/ada/.ssh/id\x00rsa", home=HOME) == "inside ~/.ssh"


def test_match_carries_the_pattern_and_why() -> None:
    found = sensitive_match("~/.ssh/id_rsa", home=HOME)
    assert found is not None
    # The home entry is the more specific advice and wins over the id_* glob.
    assert found.pattern.label == "~/.ssh"
    assert "SSH" in found.pattern.why


def test_extra_patterns_add_to_the_shipped_ones() -> None:
    assert sensitive_reason("/x/vault.kdbx", home=HOME) is None
    assert sensitive_reason("/x/vault.KDBX", home=HOME, extra=["*.kdbx"]) == "matches *.kdbx"
    assert sensitive_reason("/x/server.pem", home=HOME, extra=["*.kdbx"]) == "matches *.pem"
    found = sensitive_match("/x/deploy.token", home=HOME, extra=("*.kdbx", "deploy.*"))
    assert found is not None and found.pattern.why == "a pattern the operator added"
    # Only the last name is matched, as for the shipped globs.
    assert sensitive_reason("/x/vault.kdbx/readme", home=HOME, extra=["*.kdbx"]) is None


@pytest.mark.parametrize("bad", ["", "  ", "keys/*.pem", "a\x00b"])
def test_bad_extra_patterns_are_clear_errors(bad: str) -> None:
    from localfs_explorer.sensitive import SensitivePatternsError, check_extra_patterns

    with pytest.raises(SensitivePatternsError, match="sensitive pattern"):
        check_extra_patterns([bad])


def test_extra_patterns_from_the_environment() -> None:
    from localfs_explorer.sensitive import (
        SENSITIVE_PATTERNS_ENV,
        check_extra_patterns,
        extra_patterns_from_env,
    )

    assert extra_patterns_from_env({}) == ()
    env = {SENSITIVE_PATTERNS_ENV: " *.kdbx, ,vault.*,*.kdbx "}
    assert extra_patterns_from_env(env) == ("*.kdbx", "vault.*")
    assert check_extra_patterns([" a.b ", "a.b"]) == ("a.b",)


def test_advice_names_both_paths_when_only_the_target_matches() -> None:
    from localfs_explorer.sensitive import sensitive_advice

    link, key = "/srv/app/deploy_key_link", "/home/ada/.ssh/id_ed25519"
    assert sensitive_advice(link, key, home=HOME) == (
        f"{link} resolves to {key}, inside ~/.ssh")
    # The spelling's own advice comes first; a path that resolves to itself says it once.
    assert sensitive_advice("/srv/id_rsa", "/srv/blob", home=HOME) == "matches id_*"
    assert sensitive_advice(key, key, home=HOME) == "inside ~/.ssh"
    assert sensitive_advice("/srv/a.txt", "/srv/b.txt", home=HOME) is None
    assert sensitive_advice("/srv/a.txt", None, home=HOME) is None
    assert sensitive_advice("/srv/link", "/srv/vault.kdbx", home=HOME, extra=["*.kdbx"]) == (
        "/srv/link resolves to /srv/vault.kdbx, matches *.kdbx")


def test_custom_patterns_replace_the_shipped_ones() -> None:
    only = [SensitivePattern(kind="name", pattern="*.kdbx", why="KeePass databases")]
    assert sensitive_match("/x/vault.kdbx", home=HOME, patterns=only) is not None
    assert sensitive_match("/x/server.pem", home=HOME, patterns=only) is None


def test_shipped_patterns_cover_the_required_list() -> None:
    labels = {p.label for p in sensitive_patterns()}
    required = {"~/.ssh", "~/.gnupg", "~/.aws", "~/.config/gh", "~/.netrc",
                "~/.docker/config.json", "id_*", "credentials.json", ".env*", "*.pem",
                "*.key", "*.p12",
                # the list path discovery's reference design and its gate share
                "secrets.*", "*.env", "kubeconfig", "credentials", "service-account*.json",
                ".git-credentials", ".npmrc", ".pypirc", ".pgpass", "*.tfvars", "*.jks",
                "*.keystore", "*.ppk", "*.pfx", ".ssh/", ".aws/", ".gnupg/", ".kube/"}
    assert required <= labels
    assert all(p.why for p in sensitive_patterns())


# --- the fast matcher against the rule it implements ------------------------------------------


def _rule(path: str, home: str, cwd: str | None) -> str | None:
    """The advice rule written out plainly: normalised, case-folded components compared
    one by one, home entries first, then any component against the folder names, then
    the last name against each glob."""
    def components(p: str) -> list[str]:
        return [part.casefold() for part in posixpath.normpath(p).split("/") if part]

    if not path:
        return None
    if path == "~" or path.startswith("~/"):
        absolute = home.rstrip("/") + path[1:] if home else None
    elif path.startswith("~"):
        absolute = None
    elif path.startswith("/"):
        absolute = path
    else:
        absolute = posixpath.join(cwd, path) if cwd else None
    parts = components(absolute) if absolute is not None else None
    if parts is not None and home:
        home_parts = components(home)
        if parts[: len(home_parts)] == home_parts:
            below = parts[len(home_parts):]
            for p in sensitive_patterns():
                entry = components(p.pattern)
                if p.kind == "home" and below[: len(entry)] == entry:
                    return f"{'is' if len(below) == len(entry) else 'inside'} {p.label}"
    names = parts if parts is not None else components(path)
    if not names:
        return None
    for i, part in enumerate(names):
        for p in sensitive_patterns():
            if p.kind == "dir" and part == p.pattern.casefold():
                return f"{'is' if i == len(names) - 1 else 'inside'} a {p.pattern} folder"
    for p in sensitive_patterns():
        if p.kind == "name" and fnmatch.fnmatchcase(names[-1], p.pattern.casefold()):
            return f"matches {p.label}"
    return None


_SEGMENTS = st.sampled_from([
    "", ".", "..", "home", "ada", "ADA", ".ssh", ".SSH", ".sshx", ".config", "gh", "ghost",
    "id_rsa", "x.pem", ".env", ".Env.local", "ß", "Library", "Keychains", ".docker",
    "config.json", "notes.txt", "a\x00b", "adam", "ada.ssh", ".kube", ".AWS", "kubeconfig",
    "secrets.yml", "prod.env", "x.tfvars", ".gnupgx",
])


@given(
    st.sampled_from(["", "/", "//", "~/", "~", "~bob/", "./", "../"]),
    st.lists(_SEGMENTS, max_size=6),
    st.sampled_from(["/", "//"]),
    st.booleans(),
    st.sampled_from(["/home/ada", "/home/ada/", "/", "/home/ADA", "home/ada", "/home/./ada", ""]),
    st.sampled_from([None, "/home/ada", "/srv", "/home/ada/.ssh"]),
)
@settings(max_examples=400)
def test_the_matcher_follows_the_component_rule(
    lead: str, segments: list[str], sep: str, trailing: bool, home: str, cwd: str | None
) -> None:
    path = lead + sep.join(segments) + ("/" if trailing else "")
    assert sensitive_reason(path, home=home, cwd=cwd) == _rule(path, home, cwd)


_NAME_PARTS = st.sampled_from(["id_", "ID_", "rsa", ".env", ".ENV", "x", ".pem", ".PeM", ".key",
                               "credentials", ".json", "token", "client_secret", "ß", "ss",
                               "\n", ".npmrc", "K", ".keystore", ".", "é", "İ", "",
                               ".ssh", ".Kube", "secrets", ".tfvars"])


@given(st.lists(st.lists(_NAME_PARTS, max_size=4).map("".join), max_size=12))
def test_sensitive_names_is_name_may_be_sensitive_for_each(names):
    """One scan over a directory's names flags exactly the names the per-name test flags
    (case variants, newlines in names, names that fold to another length)."""
    from localfs_explorer.sensitive import name_may_be_sensitive, sensitive_names

    assert sensitive_names(names) == [i for i, n in enumerate(names) if name_may_be_sensitive(n)]


def test_every_shipped_name_glob_has_a_needle():
    """Otherwise each directory's names would be matched one by one (correct, slower)."""
    from localfs_explorer.sensitive import _name_finder, _needle

    assert _name_finder() is not None
    assert _needle("*") is None and _needle("a[bc]") is None and _needle("?x?") is None
    assert _needle("*.pem") == ".pem\n" and _needle("id_*") == "\nid_"
    assert _needle(".env*") == ".env"
    assert _needle("token.json") == ".json\n" and _needle("client_secret*.json") == ".json\n"


def test_advice_on_a_respelling_of_the_same_place_names_one_path() -> None:
    from localfs_explorer.sensitive import sensitive_advice

    key = "/home/ada/.ssh/id_ed25519"
    assert sensitive_advice(".ssh/id_ed25519", key, home=HOME, cwd="/home/ada") == (
        "inside ~/.ssh")
    assert sensitive_advice("/home/ada/x/../.ssh/id_ed25519", key, home=HOME) == (
        "inside ~/.ssh")


def test_patterns_are_split_by_commas_and_lines() -> None:
    from localfs_explorer.sensitive import split_patterns

    assert split_patterns(" *.kdbx,\nvault.*\n\n, ,x") == [" *.kdbx", "vault.*", "x"]
    assert split_patterns("") == []
