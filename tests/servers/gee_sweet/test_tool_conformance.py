"""The probe against the real server's tool code, call by call.

Each example builds a random folder tree (files, a subfolder, system files, a
temporary-download name, symlinks out of the root and to the server's token), picks a
policy (``full``, ``roots`` or ``off``) and generates calls for every tool that touches
local files, with arguments drawn from the catalog: paths inside, outside and on the
deny list, empty ``local_path``s, directory destinations, attachments and images,
unknown and missing arguments. The real tool function runs in-process against fake
Google services whose Drive listings and file metadata the example chooses, with the
server's policy check wrapped to record every path it checks. The probe gets the same
call (and the same Drive names) and must report:

- the same local paths, with the same operation and verdict, in the same order (for
  ``sync_folder``, whose subfolders the server plans concurrently, as the same set, each
  path with the operation of the plan's check of it: a real run checks a file it
  transfers again, for the narrower operation, with the same verdict);
- the same outcome (``ok``, ``partial``, ``refused``, ``error``), and for a refusal the
  same message.

``LOCALFS_CONFORMANCE_CALLS`` sets how many calls run (default 150); the differences
found are listed on failure.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from localfs_explorer.catalog import load_catalog
from localfs_explorer.probe import probe_call

pytest.importorskip("mcp_gee_sweet")
from tool_fakes import Drive, ServerHarness

pytestmark = pytest.mark.real

CALLS = int(os.environ.get("LOCALFS_CONFORMANCE_CALLS", "150"))
CATALOG = load_catalog()
TOOLS = [t.name for t in CATALOG.tools if t.touches_disk]
UNORDERED = {"sync_folder"}
PARTIAL = ".gee-sweet-partial-0123456789abcdef"
DRIVE_NAMES = ["a.txt", "b.csv", "new.bin", "token.json", "notes.md", "..", "x\\y",
               ".DS_Store", PARTIAL]


def build_tree(rng: random.Random, base: Path, data: Path, outside: Path, token: Path) -> None:
    """Random entries under ``data``: files, subfolders, links out and to the token."""
    for name in ("a.txt", "b.csv", "notes.md", "page.html", ".DS_Store", PARTIAL,
                 "Thumbs.db", "img.png"):
        if rng.random() < 0.7:
            (data / name).write_text("a,b\n" if name.endswith(".csv") else "x")
    sub = data / "sub"
    for name in ("c.txt", "deep.md"):
        if rng.random() < 0.6:
            (sub / name).write_text("y")
    if rng.random() < 0.5:
        (sub / "inner").mkdir(exist_ok=True)
        (sub / "inner" / "d.txt").write_text("z")
    for link, target in (("escape.txt", outside / "other.txt"), ("tok", token),
                         ("outdir", outside), ("dangling", base / "missing")):
        if rng.random() < 0.4:
            (data / link).symlink_to(target)


def path_pool(layout) -> list[str]:
    d, o = str(layout.data), str(layout.outside)
    return [
        f"{d}/a.txt", f"{d}/b.csv", f"{d}/notes.md", f"{d}/page.html", f"{d}/img.png",
        f"{d}/new.json", f"{d}/sub", f"{d}/sub/", f"{d}/newdir/", f"{d}", f"{d}/",
        f"{d}/escape.txt", f"{d}/tok", f"{d}/outdir", f"{d}/dangling", f"{d}/a.txt/x",
        f"{d}/sub/c.txt", f"{o}/other.txt", f"{o}/new.json", f"{o}",
        str(layout.app / "token.json"), str(layout.app / "credentials.json"),
        f"{layout.evil}/secret.txt", "../data/a.txt", "../data/sub", "rel.json", "",
        f"{d}/sub/../a.txt", f"{d}/./b.csv", f"{d}/{PARTIAL}",
    ]


def image_text(rng: random.Random, pool: list[str], markdown: bool) -> str:
    srcs = [*rng.sample(pool[:20], 3), "https://example.com/x.png", "drive:abc"]
    parts = []
    for i, src in enumerate(srcs):
        if markdown:
            style = rng.choice(["inline", "ref", "code", "html"])
            if style == "inline":
                parts.append(f"![i{i}]({src})")
            elif style == "ref":
                parts.append(f"![i{i}][r{i}]\n\n[r{i}]: {src}")
            elif style == "code":
                parts.append(f"`![c]({src})`")
            else:
                parts.append(f'<img src="{src}">')
        else:
            parts.append(rng.choice([f'<p><img src="{src}"></p>', f"![m]({src})",
                                     f'<pre><img src="{src}"></pre>']))
    return "\n\n".join(parts)


def arguments_for(rng: random.Random, name: str, pool: list[str]) -> dict:
    """A call to ``name`` with its required arguments and a random mix of the rest."""
    tool = CATALOG.get(name)
    args: dict = {}
    for a in tool.arguments:
        if a.required or rng.random() < 0.3:
            if a.enum:
                args[a.name] = rng.choice(a.enum)
            elif "array" in a.types:
                args[a.name] = []
            elif "boolean" in a.types:
                args[a.name] = rng.random() < 0.5
            elif "integer" in a.types:
                args[a.name] = 5
            else:
                args[a.name] = f"X{a.name}"
    p = lambda: rng.choice(pool)  # noqa: E731
    if any(a.name == "local_path" for a in tool.arguments) and rng.random() < 0.85:
        args["local_path"] = p()
    if name in ("get_multiple_sheet_data",):
        args["queries"] = [{"spreadsheet_id": "S", "sheet": "Sheet1", "range": "A1"}]
    if name == "get_multiple_spreadsheet_summary":
        args["spreadsheet_ids"] = ["S"]
    if name in ("send_message", "create_draft"):
        items = []
        for _ in range(rng.randint(0, 3)):
            kind = rng.random()
            if kind < 0.6:
                items.append({"local_path": p()})
            elif kind < 0.8:
                items.append({"content_base64": "eA==", "filename": "x.txt"})
            elif kind < 0.9:
                items.append({"local_path": "", "content_base64": "eA=="})
            else:
                items.append({})
        args["attachments"] = items if items or rng.random() < 0.5 else None
    if name == "insert_local_images":
        args["images"] = [
            {k: v for k, v in (("marker", "MK" if rng.random() < 0.8 else None),
                               ("local_path", p())) if v is not None}
            for _ in range(rng.randint(0, 3))
        ]
        if rng.random() < 0.8:
            args["folder_id"] = "F"
    if name in ("create_doc", "write_doc_content"):
        markdown = rng.random() < 0.5
        args["content_format"] = "markdown" if markdown else "html"
        args["content"] = image_text(rng, pool, markdown)
    if name == "sync_folder":
        args["direction"] = rng.choice(["upload", "download", "bidirectional", "sideways"]
                                       if rng.random() < 0.1 else
                                       ["upload", "download", "bidirectional"])
        args["recursive"] = rng.random() < 0.5
        args["dry_run"] = rng.random() < 0.5
        args["local_path"] = rng.choice([x for x in pool if "sub" in x or x.endswith("data")
                                         or x.endswith("/")] + [p()])
        if rng.random() < 0.3:
            args["result_local_path"] = p()
        args.pop("resolve", None)
        if rng.random() < 0.1:
            args["export_format"] = rng.choice(["pdf", "bogus"])
    for key in ("folder_id", "parent_folder_id"):
        if key in args and name in ("download_folder", "upload_local_folder", "sync_folder"):
            args[key] = "F"
    if name == "download_file":
        args["file_id"] = "FILE"
    if name == "export_revision":  # the fake's revision is a Doc's
        args.pop("range", None)
        args.pop("sheet", None)
    for k in ("convert", "convert_markdown", "use_checksum", "auto_downscale"):
        args.pop(k, None)
    roll = rng.random()
    if roll < 0.05:
        args["bogus"] = 1
    elif roll < 0.1 and tool.arguments and any(a.required for a in tool.arguments):
        args.pop(rng.choice([a.name for a in tool.arguments if a.required]))
    return args


def drive_for(rng: random.Random) -> tuple[Drive, list[str]]:
    """A Drive folder ``F`` (and ``FILE``'s name) and the same as the probe's names."""
    drive = Drive()
    names = []
    top = []
    for name in rng.sample(DRIVE_NAMES, rng.randint(0, 5)):
        top.append((name, False))
        names.append(name)
    if rng.random() < 0.5:
        top.append(("sub", True))
        names.append("sub/")
        inner = [(n, False) for n in rng.sample(["c.txt", "e.txt"], rng.randint(0, 2))]
        drive.children["F/" + str(len(top) - 1)] = inner
        names += [f"sub/{n}" for n, _ in inner]
    if rng.random() < 0.3:
        top.append(("remote", True))
        names.append("remote/")
        drive.children["F/" + str(len(top) - 1)] = [("r.txt", False)]
        names.append("remote/r.txt")
    drive.children["F"] = top
    file_name = rng.choice(["a.txt", "new.bin", "token.json", "..", "sub"])
    drive.names["FILE"] = file_name
    return drive, names


def _distinct(checks):
    return list(dict.fromkeys(checks))


def compare(name, run, verdict):
    server = _distinct(run.checks)
    probe = _distinct((p.path, p.op, p.allowed) for p in verdict.paths if not p.advisory)
    if name in UNORDERED:
        # A real run re-checks each file it transfers (read to upload, write to
        # download) after the plan's check of it: the plan's check, the first, is the
        # one the probe reports; the same path gets the same verdict either way.
        server = sorted({path: (path, op, ok) for path, op, ok in reversed(server)}.values())
        probe = sorted(probe)
    problems = []
    if server != probe:
        problems.append(f"checks: server {server} probe {probe}")
    if run.outcome != verdict.outcome:
        problems.append(f"outcome: server {run.outcome} ({run.message[:200]}) probe "
                        f"{verdict.outcome} ({verdict.message[:200]})")
    elif run.outcome == "refused" and run.message != verdict.message:
        problems.append(f"message: server {run.message!r} probe {verdict.message!r}")
    return problems


@pytest.fixture(scope="module")
def harness():
    return ServerHarness()


def test_probe_matches_the_servers_tool_code(layout, monkeypatch, harness, tmp_path_factory):
    rng = random.Random(int(os.environ.get("LOCALFS_CONFORMANCE_SEED", "13")))
    models: dict = {}
    differences: list[str] = []
    per_tool: dict[str, int] = {}
    outcomes: dict[str, int] = {}
    import shutil

    base_data = layout.data
    for i in range(CALLS):
        if i % 10 == 0:
            shutil.rmtree(base_data)
            (base_data / "sub").mkdir(parents=True)
            build_tree(rng, layout.base, base_data, layout.outside, layout.app / "token.json")
            mode = rng.choice(["full", "roots", "roots", "off"])
            policy = (layout.policy(LOCAL_FILE_ACCESS="full") if mode == "full"
                      else layout.roots() if mode == "roots"
                      else layout.policy(LOCAL_FILE_ACCESS="off"))
        pool = path_pool(layout)
        name = TOOLS[i % len(TOOLS)]
        args = arguments_for(rng, name, pool)
        drive, names = drive_for(rng)
        if name == "download_file":  # the probe's Drive side is the file's own name
            names = [drive.names["FILE"]]
        # The probe first: the server's run may write files.
        verdict = probe_call(policy, name, args, drive_names=names, discover=False,
                             over_http=False)
        run = harness.run(monkeypatch, policy, name, args, drive, models,
                          local_only=CATALOG.get(name).local_only)
        per_tool[name] = per_tool.get(name, 0) + 1
        outcomes[run.outcome] = outcomes.get(run.outcome, 0) + 1

        for problem in compare(name, run, verdict):
            differences.append(f"#{i} {policy.mode.value} {name}({args!r}) drive={names}: "
                               f"{problem}")
    print(f"conformance: {CALLS} calls, {len(per_tool)} tools, outcomes {outcomes}, "
          f"{len(differences)} differences")
    assert set(per_tool) == set(TOOLS)
    assert not differences, "\n".join(differences[:25])


VALIDATION_CALLS = [
    ("sync_folder", {"direction": "mirror"}),
    ("sync_folder", {"export_format": "gif"}),
    ("sync_folder", {"resolve": {"b.md": "keep_both", "a.md": "merge", "c.md": "keep_drive"}}),
    ("sync_folder", {"direction": "download", "resolve": {"a.md": "keep_local"}}),
    ("insert_local_images", {"images": []}),
    ("insert_local_images", {"images": [{"marker": "M", "local_path": "{data}/a.txt"}]}),
    ("create_doc_from_file", {"local_path": "{data}/Notes.TXT"}),
    ("update_doc_from_file", {"local_path": "{data}/Notes.TXT"}),
    ("import_csv_to_sheet", {"local_path": "{data}/Notes.TXT"}),
]


@pytest.mark.real
@pytest.mark.parametrize("name, extra", VALIDATION_CALLS)
def test_argument_validation_errors_are_the_servers_words(layout, monkeypatch, harness, name,
                                                          extra):
    """The tool's own argument checks: the probe says what the model reads, word for word."""
    data = str(layout.data)
    (layout.data / "Notes.TXT").write_text("# notes\n")
    required = {"sync_folder": {"local_path": data, "folder_id": "F"},
                "insert_local_images": {"doc_id": "D"}, "create_doc_from_file": {},
                "update_doc_from_file": {"doc_id": "D"},
                "import_csv_to_sheet": {"title": "T"}}[name]
    args = {**required, **{k: _fill(v, data) for k, v in extra.items()}}
    policy = layout.roots()
    verdict = probe_call(policy, name, args, drive_names=[], discover=False, over_http=False)
    run = harness.run(monkeypatch, policy, name, args, Drive(), {},
                      local_only=CATALOG.get(name).local_only)
    assert run.outcome == "error", run
    assert (verdict.outcome, verdict.message) == ("error", run.message)


def _fill(value, data):
    if isinstance(value, str):
        return value.replace("{data}", data)
    if isinstance(value, list):
        return [_fill(v, data) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, data) for k, v in value.items()}
    return value
