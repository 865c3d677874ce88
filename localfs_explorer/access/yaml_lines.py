"""YAML read with PyYAML's safe loader, keeping the line of every key and list item.

Mappings come back as :class:`LineDict` and sequences as :class:`LineList` (plain
``dict`` and ``list`` subclasses, so code written for ``yaml.safe_load`` output reads
them unchanged); each knows the 1-based line it starts on and the line of each key or
item, so a refusal can name ``FILE:LINE``. Scalars are resolved exactly as
``yaml.safe_load`` resolves them (YAML 1.1: ``yes`` is true, ``010`` is octal), which
is what mcp-hangar reads its configuration with.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..errors import LocalfsError

__all__ = ["LineDict", "LineList", "YamlProblem", "load_with_lines"]


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


class _Loader(yaml.SafeLoader):
    """The safe loader, building line-aware containers."""


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
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
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


def load_with_lines(text: str) -> Any:
    """The one YAML document in ``text``, with line-aware containers.

    Raises :class:`YamlProblem` (with the line) when the text is not YAML, holds more
    than one document, or uses a tag the safe loader refuses.
    """
    try:
        return yaml.load(text, Loader=_Loader)
    except YamlProblem:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        problem = exc.problem or exc.context or "not valid YAML"
        raise YamlProblem(f"not valid YAML: {problem}", line) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(f"not valid YAML: {exc}", 0) from None
    except RecursionError:
        raise YamlProblem("not valid YAML: nested too deeply", 0) from None
