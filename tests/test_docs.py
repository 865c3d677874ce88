"""The README is a short door, and every link of the documentation leads somewhere real."""

from __future__ import annotations

import io
import re
import shlex
import sys
from pathlib import Path

import pytest

from localfs_explorer.cli.main import build_parser, main
from localfs_explorer.server import get_server, list_servers

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SETUP_COMMANDS = ("python3 scripts/dashboard", "python3 scripts/test")

def _pages() -> list[Path]:
    pages = [README, ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
    pages += sorted((ROOT / "localfs_explorer" / "servers").glob("*/README.md"))
    return pages


def _without_code(text: str) -> str:
    """The text with fenced blocks and inline code blanked out (links there aren't links)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def _links(text: str) -> list[str]:
    return re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", _without_code(text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", text, flags=re.M):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def broken_links(page: Path) -> list[str]:
    """Each relative link of page whose file, or heading, does not exist."""
    broken = []
    for link in _links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", link):  # https:, mailto: ...: not ours to check
            continue
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        if not path.exists():
            broken.append(f"{link}: no such file")
        elif anchor and (path.suffix != ".md" or anchor not in anchors(path)):
            broken.append(f"{link}: no such heading in {path.name}")
    return broken


def test_the_readme_is_a_door_of_at_most_300_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300
    assert lines[0].startswith("# ")


def test_the_readme_starts_with_the_two_set_up_commands() -> None:
    """Nothing but the title comes before them, and they are exactly the two scripts."""
    lines = README.read_text(encoding="utf-8").splitlines()
    rest = [line for line in lines[1:] if line.strip()]
    assert rest[0].startswith("```")
    end = rest.index("```", 1)
    commands = [line.split("#")[0].strip() for line in rest[1:end]]
    assert tuple(commands) == SETUP_COMMANDS
    for command in commands:
        assert (ROOT / command.split()[1]).is_file(), command


def test_every_relative_link_of_the_documentation_resolves() -> None:
    pages = _pages()
    assert len(pages) >= 10  # the README, the changelog, docs/ and the servers' pages
    broken = {str(p.relative_to(ROOT)): b for p in pages if (b := broken_links(p))}
    assert broken == {}


def test_the_link_checker_sees_a_missing_file_and_a_missing_heading(tmp_path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## A `code` heading: yes!\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n## Here\n\n[ok](other.md) [ok](other.md#a-code-heading-yes) [ok](#here)\n"
        "[gone](missing.md) [no heading](other.md#nowhere) [ext](https://example.org/x)\n"
        "`[in code](missing-too.md)`\n")
    assert broken_links(page) == ["missing.md: no such file",
                                  "other.md#nowhere: no such heading in other.md"]


def test_slugs_follow_githubs_rule() -> None:
    assert slug("The trim escape of 2026.8.31") == "the-trim-escape-of-2026831"
    assert slug("Paths in arguments the catalog doesn't describe") == \
        "paths-in-arguments-the-catalog-doesnt-describe"
    assert slug("`validatePath`, per release") == "validatepath-per-release"


def test_the_readme_links_every_page_of_docs() -> None:
    linked = {(README.parent / link.partition("#")[0]).resolve()
              for link in _links(README.read_text(encoding="utf-8"))}
    pages = {p.resolve() for p in (ROOT / "docs").glob("*.md")}
    assert sorted(str(p.relative_to(ROOT)) for p in pages - linked) == []


def test_every_built_in_server_has_its_own_readme() -> None:
    for server_id in list_servers():
        module = sys.modules[type(get_server(server_id)).__module__]
        if not module.__name__.startswith("localfs_explorer.servers."):
            continue  # a server registered by a test or another package
        readme = Path(module.__file__).parent / "README.md"
        assert readme.is_file(), server_id
        assert server_id in readme.read_text(encoding="utf-8"), readme


def test_the_command_line_page_lists_every_command() -> None:
    action = next(a for a in build_parser()._actions if a.dest == "command_name")
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z-]+)` \|", page, flags=re.M))
    assert listed == set(action.choices)


def test_the_security_page_links_the_client_config_rules() -> None:
    page = " ".join((ROOT / "docs" / "security.md").read_text(encoding="utf-8").split())
    assert ("[what a client config or pasted YAML can do: masked, expanded, refused]"
            "(security-client-configs.md)") in page


@pytest.mark.parametrize("page", ["docs/architecture.md", "docs/servers.md"])
def test_the_server_contract_is_linked_not_repeated(page) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    assert "(../localfs_explorer/server.py)" in text
    # The numbered contract lives in server.py's docstring alone.
    assert "resolve(Setup)" not in text and "options_from_args" not in text


def _tour() -> list[tuple[list[str], list[str], int]]:
    """Each output the README's tour shows, with the command line it follows.

    A fenced block with no language is an output; the command is the last
    ``localfs-explorer`` line of the ``sh`` block before it, with ``$T`` filled in.
    """
    text = README.read_text(encoding="utf-8")
    variables = dict(re.findall(r'^(\w+)="([^"]*)"$', text, flags=re.M))
    shown = []
    for command_block, output in re.findall(r"^```sh\n(.*?)^```\n\n^```\n(.*?)^```",
                                            text, flags=re.M | re.S):
        lines = command_block.replace("\\\n", " ").splitlines()
        command = [line for line in lines if line.startswith("localfs-explorer ")][-1]
        for name, value in variables.items():
            command = command.replace(f"${name}", value)
        argv = shlex.split(command, comments=True)[1:]
        refused = any(line.startswith("REFUSED") for line in output.splitlines())
        shown.append((argv, output.splitlines(), 1 if refused else 0))
    return shown


def test_the_tour_shows_what_the_commands_print() -> None:
    """A line ending in '...' is the start of what the command prints."""
    tour = _tour()
    assert len(tour) >= 2  # the mcp-gee-sweet check and the filesystem server's
    for argv, expected, status in tour:
        out = io.StringIO()
        assert main(argv, out=out, err=io.StringIO()) == status, argv
        printed = out.getvalue().splitlines()
        assert len(printed) == len(expected), (argv, printed)
        for want, got in zip(expected, printed, strict=True):
            if want.endswith(" ..."):
                assert got.startswith(want[:-4]), (want, got)
            else:
                assert got == want


def test_the_command_line_page_names_the_commands_that_print_json() -> None:
    action = next(a for a in build_parser()._actions if a.dest == "command_name")
    takes_json = {name for name, sub in action.choices.items()
                  if any("--json" in a.option_strings for a in sub._actions)}
    page = " ".join((ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split())
    habit = re.search(r"\*\*JSON\.\*\* (.*?\.) ", page)
    assert habit is not None
    named = {span.split()[0] for span in re.findall(r"`([^`]+)`", habit.group(1))}
    assert named - {"--json"} == takes_json


def named_files(text: str) -> set[str]:
    """The project files a page names in code spans (``tests/...py``, ``benchmarks/...py``)."""
    return set(re.findall(r"`((?:tests|benchmarks|scripts)/[\w/.-]+?\.py)(?:::\w+)?`", text))


def test_every_test_and_script_the_documentation_names_exists() -> None:
    # Tests move with the code they test; a page that still names the old place sends the
    # reader to nothing, and the link checker doesn't see code spans.
    missing = [f"{page.relative_to(ROOT)}: {name}" for page in _pages()
               if page != ROOT / "CHANGELOG.md"  # the changelog records old places on purpose
               for name in sorted(named_files(page.read_text(encoding="utf-8")))
               if not (ROOT / name).exists()]
    assert missing == []


def test_the_named_file_reader_sees_a_test_and_its_node_id() -> None:
    assert named_files("see `tests/envfile/test_env.py::test_x` and `scripts/test` "
                       "and `benchmarks/bench_check.py`") == {
        "tests/envfile/test_env.py", "benchmarks/bench_check.py"}
