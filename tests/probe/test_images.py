"""Local image sources in Markdown/HTML arguments (localfs_explorer.probe.images)."""

from __future__ import annotations

from conftest import Layout
from probe_support import probe_call, recorded_policy

from localfs_explorer.probe import (
    extract_image_sources,
)
from localfs_explorer.servers.gee_sweet.messages import OFF_EXPLICIT

# --- images ---------------------------------------------------------------------------------


def test_extract_image_sources_follows_content_format() -> None:
    text = (
        "![a](pics/one.png) ![ref][r] <img alt='x' src='two.png'> "
        "![remote](https://example.com/x.png) ![d](drive:abc123) ![u](HTTP://x/y.png) "
        "![inline](data:image/png;base64,AAAA) ![f](file:///srv/pic.png) [not](image.png)"
        "\n\n[r]: ref.png\n\n    ![code](in-block.png)\n\n`![span](in-span.png)`\n\n"
        "| a |\n|---|\n| ![t](in-table.png) |\n"
    )
    # Markdown: rendered first, so reference images count and code doesn't; only
    # http(s):// (as spelled) and drive: are not local paths; table images are dropped.
    assert extract_image_sources(text, "markdown") == [
        "pics/one.png", "ref.png", "two.png", "HTTP://x/y.png",
        "data:image/png;base64,AAAA", "file:///srv/pic.png",
    ]
    # HTML: only <img> tags, outside tables and <pre>.
    html = ("<p><img src='a.png'> ![md](b.png)</p><pre><img src='c.png'></pre>"
            "<table><tr><td><img src='d.png'></td></tr></table><IMG SRC=\"e&amp;f.png\">")
    assert extract_image_sources(html, "html") == ["a.png", "e&f.png"]


def test_a_refused_image_fails_that_image_and_the_doc_is_still_written(layout: Layout) -> None:
    policy = layout.roots()
    good, bad = str(layout.data / "report.csv"), str(layout.outside / "other.txt")
    content = f"# Title\n![ok]({good})\n<img src=\"{bad}\">\n![web](https://example.com/p.png)"
    v = probe_call(policy, "create_doc", {"title": "T", "content": content,
                                          "content_format": "markdown"})
    assert v.outcome == "partial" and v.message == ""
    images = [(p.path, p.allowed, p.kind, p.step) for p in v.paths if p.kind == "image"]
    assert images == [(good, True, "image", None), (bad, False, "image", "failed")]


def test_images_only_remote_is_ok(layout: Layout) -> None:
    v = probe_call(layout.roots(), "write_doc_content",
                   {"doc_id": "D", "content": "![w](https://example.com/a.png)"})
    assert v.outcome == "ok" and not [p for p in v.paths if p.kind == "image"]


def test_local_images_in_off_mode_fail_per_image_without_touching_disk(layout: Layout) -> None:
    policy, fs = recorded_policy(layout, LOCAL_FILE_ACCESS="off")
    v = probe_call(policy, "create_doc", {"title": "T", "content": "![a](data/report.csv)",
                                          "content_format": "markdown"})
    assert v.outcome == "partial" and v.visible
    assert v.paths[0].message == OFF_EXPLICIT
    assert fs.asked == []


def test_images_inside_a_source_file_are_noted(layout: Layout) -> None:
    (layout.data / "doc.md").write_text("# x")
    v = probe_call(layout.roots(), "create_doc_from_file",
                   {"local_path": str(layout.data / "doc.md")})
    assert v.outcome == "ok"
    assert any("images inside the file" in n for n in v.notes)
    # The tool's own checks of the file it reads come after the path check.
    v = probe_call(layout.roots(), "create_doc_from_file",
                   {"local_path": str(layout.data / "report.csv")})
    assert v.outcome == "error"
    assert v.message == "Unsupported file extension '.csv'. Use .md or .html/.htm"
    assert [p.allowed for p in v.paths] == [True]


def test_insert_local_images_fails_per_image_after_its_own_checks(layout: Layout) -> None:
    policy = layout.roots()
    good, bad = str(layout.data / "report.csv"), str(layout.outside / "other.txt")
    images = [{"marker": "A", "local_path": good}, {"local_path": bad},
              {"marker": "C", "local_path": bad}, {"marker": "D"}]
    v = probe_call(policy, "insert_local_images", {"images": images, "folder_id": "F"})
    # The image without a marker fails without a check; a refusal fails its image only.
    assert [(p.argument, p.allowed) for p in v.paths] == [
        ("images[0].local_path", True), ("images[2].local_path", False)]
    assert v.outcome == "partial"
    # Argument errors of the tool's own come before any path check.
    v = probe_call(policy, "insert_local_images", {"images": images})
    assert (v.outcome, v.paths) == ("error", []) and "folder_id" in v.message
    assert probe_call(policy, "insert_local_images", {"images": images, "folder_id": "F"},
                      ).outcome == "partial"
    env_folder = layout.roots(DRIVE_FOLDER_ID="F0")
    assert probe_call(env_folder, "insert_local_images", {"images": images}).outcome == "partial"
    v = probe_call(policy, "insert_local_images", {"images": [], "folder_id": "F"})
    assert v.outcome == "error" and "empty" in v.message


def test_plain_markdown_images_are_read_exactly_as_rendering_reads_them() -> None:
    """The shortcut that skips the Markdown renderer gives the renderer's answer or none."""
    import random

    from localfs_explorer.probe.images import (
        _image_sources,
        _markdown_to_html,
        _plain_markdown_images,
    )

    pieces = ["![a](x.png)", "![b c](d/e.png)", "![](f.png)", "text", " ", "\n", "\n\n",
              "# ", "    ", "- ", "1. ", "`", "<img src='g.png'>", "[r]: h.png", "![r][r]",
              "\\", "&amp;", "|", "![t](i.png \"t\")", "*", "_", "(", ")", "!", "---", "\t",
              "![p](j(1).png)", "~~~", "> ", "![w](https://k/l.png)", "![d](drive:m)"]
    rng = random.Random(5)
    shortcuts = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        plain = _plain_markdown_images(text)
        if plain is None:
            continue
        shortcuts += 1
        rendered = _image_sources.__wrapped__(_markdown_to_html(text), False)
        local = tuple(src for src in plain if not src.startswith(("https://", "drive:")))
        assert local == rendered, text
    assert shortcuts > 300  # the shortcut is taken, and checked, often

