"""Local image sources in Markdown/HTML arguments, found the way the server renders them."""

from __future__ import annotations

import functools
import re
import threading
from html.parser import HTMLParser
from typing import Any

# Sources the server fetches or looks up itself; everything else is a local path it
# checks, resolved against its working directory (a data: URI or a file: URL included).
_NOT_LOCAL = ("http://", "https://", "drive:")
# Markdown extensions the server renders with, as far as they decide where images land.
_MD_EXTENSIONS = ("tables", "fenced_code", "sane_lists")


class _ImageSources(HTMLParser):
    """``<img src>`` values the server embeds: not inside a table or a ``<pre>`` block."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sources: list[str] = []
        self.table = 0
        self.pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.table += 1
        elif tag == "pre":
            self.pre += 1
        elif tag == "img" and not self.table and not self.pre:
            src = dict(attrs).get("src")
            if src:
                self.sources.append(src)

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self.table:
            self.table -= 1
        elif tag == "pre" and self.pre:
            self.pre -= 1


_RENDERER: list[Any] = []
_RENDER_LOCK = threading.Lock()


def _markdown_to_html(text: str) -> str:
    """Markdown rendered as the server renders it, with one reused renderer (building
    one costs more than rendering a short text)."""
    with _RENDER_LOCK:
        if not _RENDERER:
            import markdown  # only calls carrying Markdown need it

            _RENDERER.append(markdown.Markdown(extensions=list(_MD_EXTENSIONS)))
        renderer = _RENDERER[0]
        try:
            return str(renderer.reset().convert(text))
        finally:
            renderer.reset()


# Markdown whose only markup is plain inline images: no code, HTML, references, tables,
# escapes or entities, and no indented lines. There the rendered images are exactly the
# ``![alt](src)`` written, so the renderer can be skipped (tests hold the two equal).
_PLAIN_IMAGE = re.compile(r"!\[[^\[\]]*\]\(([^()\s]+)\)")
_NOT_PLAIN = re.compile(
    r"[`<>\\&|\[\]]|^(?: {4}|\t)|^ {0,3}(?:~~~|\*|-|\+|\d+[.)])\s|^ {0,3}[=-]+\s*$",
    re.MULTILINE,
)


def _plain_markdown_images(text: str) -> tuple[str, ...] | None:
    """The image sources of Markdown simple enough to read without rendering, else None."""
    if _NOT_PLAIN.search(_PLAIN_IMAGE.sub("", text)) is not None:
        return None
    return tuple(m.group(1) for m in _PLAIN_IMAGE.finditer(text))


def _may_hold_images(text: str, markdown_text: bool) -> bool:
    """False when ``text`` can't hold an image, whatever else it holds (a linear test).

    A rendered ``<img>`` comes from a raw tag, which needs ``<img`` and a closing ``>``,
    or (Markdown) from ``![alt](src)`` or ``![alt][ref]`` with a ``[ref]: src``
    definition, which need ``![`` and either ``](`` with a ``)`` after it, or ``]:``.
    Checked first because the renderer and the parser both take quadratic time on some
    unfinished markup.
    """
    if ">" in text and "<img" in text.lower():
        return True
    if not markdown_text or "![" not in text:
        return False
    opening = text.find("](")
    return (opening >= 0 and text.find(")", opening) >= 0) or "]:" in text


@functools.lru_cache(maxsize=256)
def _image_sources(text: str, markdown_text: bool) -> tuple[str, ...]:
    if not _may_hold_images(text, markdown_text):
        return ()
    if markdown_text:
        plain = _plain_markdown_images(text)
        if plain is not None:
            return tuple(src for src in plain if not src.startswith(_NOT_LOCAL))
        text = _markdown_to_html(text)
    if "<" not in text:
        return ()
    parser = _ImageSources()
    # Fed, never closed, as the server builds its document: what follows the first
    # unfinished tag is never read. Closing would also read it, in quadratic time on
    # text like ``<img src=<img src=...`` (each unfinished tag a rescan to the end).
    parser.feed(text)
    return tuple(src for src in parser.sources if not src.startswith(_NOT_LOCAL))


def extract_image_sources(text: str, content_format: str | None = "markdown") -> list[str]:
    """The local image paths the server would check in ``text``, in document order.

    ``content_format`` is the tool's: ``markdown`` renders the text to HTML first (so
    ``![alt](src)``, reference-style images and raw ``<img>`` tags count, while an image
    inside a code span or block doesn't); anything else reads it as HTML. Images inside
    a table or a ``<pre>`` block are dropped, as the server drops them. Sources starting
    ``http://``, ``https://`` or ``drive:`` are not local; every other source is a path,
    exactly as written.
    """
    return list(_image_sources(text, content_format == "markdown"))
