"""YAML read with PyYAML's safe loader, keeping the line of every key and list item.

Mappings come back as :class:`LineDict` and sequences as :class:`LineList` (plain
``dict`` and ``list`` subclasses, so code written for ``yaml.safe_load`` output reads
them unchanged); each knows the 1-based line it starts on and the line of each key or
item, so a refusal can name ``FILE:LINE``. Scalars are resolved exactly as
``yaml.safe_load`` resolves them (YAML 1.1: ``yes`` is true, ``010`` is octal), which
is what mcp-hangar reads its configuration with.

Aliases are bounded: ``&a [*b, *b, ...]`` ten times over is a few hundred bytes that
expand to a billion values, which every reader after the parser (interpolation, a
``str()`` of a list) would then walk. :func:`check_expanded_size` counts what the
document holds once every alias is expanded, without expanding anything, and refuses
past :data:`MAX_EXPANDED_NODES` values or :data:`MAX_EXPANDED_CHARS` characters, or an
alias inside its own anchor.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from ..errors import LocalfsError

__all__ = ["MAX_EXPANDED_CHARS", "MAX_EXPANDED_NODES", "LineDict", "LineList", "YamlProblem",
           "check_expanded_size", "load_with_lines"]

#: Values (scalars, lists, mappings) a document may hold with its aliases expanded: far
#: more than any configuration holds, far less than an alias bomb.
MAX_EXPANDED_NODES = 200_000
#: Characters of scalars a document may hold with its aliases expanded.
MAX_EXPANDED_CHARS = 8 * 1024 * 1024


class YamlProblem(LocalfsError):
    """Text that is not YAML; ``line`` is where the parser stopped (1-based, 0 unknown)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


class LineDict(dict[Any, Any]):
    """A mapping that remembers its line and the line of each key."""

    line: int = 0

    def __init__(self) -> None:
        super().__init__()
        self.key_lines: dict[Any, int] = {}

    def line_of(self, key: Any) -> int:
        """The line of ``key`` (the mapping's own line when the key is absent)."""
        return self.key_lines.get(key, self.line)


class LineList(list[Any]):
    """A sequence that remembers its line and the line of each item."""

    line: int = 0

    def __init__(self) -> None:
        super().__init__()
        self.item_lines: list[int] = []

    def line_of(self, index: int) -> int:
        return self.item_lines[index] if 0 <= index < len(self.item_lines) else self.line


def check_expanded_size(root: yaml.Node | None, *, max_nodes: int = MAX_EXPANDED_NODES,
                        max_chars: int = MAX_EXPANDED_CHARS) -> None:
    """Refuse (:class:`YamlProblem`, with the line) a composed document that holds more
    than ``max_nodes`` values or ``max_chars`` characters once its aliases are expanded,
    or an alias inside the node it names (a loop).

    Each distinct node is sized once (a shared node's size is remembered), so the check
    costs as much as the text, whatever the expansion would.
    """
    if root is None:
        return
    sizes: dict[int, tuple[int, int]] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            nodes, chars = 1, 0
            for child in _children(node):
                child_nodes, child_chars = sizes[id(child)]
                nodes += child_nodes
                chars += child_chars
            if nodes > max_nodes or chars > max_chars:
                raise YamlProblem(
                    f"its aliases expand to more than {max_nodes:,} values or "
                    f"{max_chars:,} characters here; refused (a configuration repeats "
                    "nothing this much)", node.start_mark.line + 1)
            sizes[key] = (nodes, chars)
            continue
        if key in sizes:
            continue
        if isinstance(node, yaml.ScalarNode):
            sizes[key] = (1, len(str(node.value)))
            continue
        if key in open_nodes:
            raise YamlProblem("an alias inside the value its anchor names (a loop); "
                              "refused", node.start_mark.line + 1)
        open_nodes.add(key)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in open_nodes:
                raise YamlProblem("an alias inside the value its anchor names (a loop); "
                                  "refused", child.start_mark.line + 1)
            if id(child) not in sizes:
                stack.append((child, False))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


class _Loader(yaml.SafeLoader):
    """The safe loader, building line-aware containers, aliases bounded."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        #: Keys a mapping holds twice: (key, first line, later line).
        self.repeated: list[tuple[Any, int, int]] = []

    def get_single_node(self) -> Any:
        node = super().get_single_node()
        check_expanded_size(node)
        return node


def _mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    result = LineDict()
    result.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise YamlProblem("a mapping key must be a plain value, not a list or mapping",
                              key_node.start_mark.line + 1) from None
        line = key_node.start_mark.line + 1
        if key in result.key_lines and line != result.key_lines[key]:
            # yaml.safe_load keeps the last value of a repeated key: so does this.
            loader.repeated.append((key, result.key_lines[key], line))
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = line
    return result


def _sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    result = LineList()
    result.line = node.start_mark.line + 1
    for item in node.value:
        result.append(loader.construct_object(item, deep=True))
        result.item_lines.append(item.start_mark.line + 1)
    return result


_Loader.add_constructor("tag:yaml.org,2002:map", _mapping)
_Loader.add_constructor("tag:yaml.org,2002:seq", _sequence)


def masked_problem(text: str, line: int, problem: str) -> str:
    """``problem`` (a parser's message about ``line`` of ``text``) with the values of that
    line masked when the line names a secret (``API_TOKEN: !tag ghp_...``): the parser
    quotes what it could not read, and that may be the secret itself."""
    from ..secrets import mentions_secret_key, scrub

    lines = text.splitlines()
    if not 0 < line <= len(lines) or not mentions_secret_key(lines[line - 1]):
        return problem
    _, _, rest = lines[line - 1].partition(":")
    words = {w for w in re.split(r"[\s'\"\[\]{},]+", rest) if w}
    words |= {w.lstrip("!&*") for w in words}
    return scrub(problem, {rest.strip(), *words})


def parse_problem(exc: yaml.YAMLError, text: str) -> tuple[str, int]:
    """What a PyYAML error says, without the quoted source (masked, see
    :func:`masked_problem`), and its line (0 when unknown)."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = mark.line + 1 if mark is not None else 0
    problem = (getattr(exc, "problem", None) or getattr(exc, "context", None)
               or str(exc).splitlines()[0] or "not valid YAML")
    return masked_problem(text, line, str(problem)), line


def load_with_lines(text: str, repeated: list[tuple[Any, int, int]] | None = None) -> Any:
    """The one YAML document in ``text``, with line-aware containers.

    Raises :class:`YamlProblem` (with the line) when the text is not YAML, holds more
    than one document, uses a tag the safe loader refuses, or expands past the bounds
    of :func:`check_expanded_size`. ``repeated``, when given, receives each key a mapping
    holds twice as ``(key, first line, later line)``; the later value is the one kept.
    """
    loader = _Loader(text)
    try:
        return loader.get_single_data()
    except YamlProblem:
        raise
    except yaml.YAMLError as exc:
        problem, line = parse_problem(exc, text)
        raise YamlProblem(f"not valid YAML: {problem}", line) from None
    except RecursionError:
        raise YamlProblem("not valid YAML: nested too deeply", 0) from None
    finally:
        if repeated is not None:
            repeated.extend(loader.repeated)
        loader.dispose()
