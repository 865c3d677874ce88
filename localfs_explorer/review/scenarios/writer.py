"""Writing a scenario file back as TOML that reads back equal (pinned baselines)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from .format import ScenarioError, ScenarioFile

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _toml_string(key)


def _toml_string(value: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ScenarioError(f"{value!r} can't be written to TOML: it isn't valid text") \
            from None
    # JSON's escapes are all valid in a TOML basic string; DEL must be escaped too.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        inner = ", ".join(f"{_toml_key(str(k))} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if value is None:
        raise ScenarioError("TOML has no null: leave the key out instead")
    raise ScenarioError(f"can't write a {type(value).__name__} to TOML")


def _table_lines(header: str, data: Mapping[str, Any]) -> Iterator[str]:
    yield header
    for key, value in data.items():
        if value is None:
            continue
        yield f"{_toml_key(key)} = {_toml_value(value)}"


def dump_scenario_file(scenario_file: ScenarioFile) -> str:
    """``scenario_file`` as TOML text that :func:`parse_scenario_text` reads back equal."""
    out: list[str] = []
    top = scenario_file.model_dump(exclude_unset=True, exclude={"config", "scenario"})
    for key, value in top.items():
        out.append(f"{_toml_key(key)} = {_toml_value(value)}")
    config = scenario_file.config.model_dump(exclude_unset=True)
    if config:
        out.append("")
        out.extend(_table_lines("[config]", config))
    for scenario in scenario_file.scenario:
        out.append("")
        head = scenario.model_dump(exclude_unset=True,
                                   exclude={"config", "path", "call", "hangar", "tools",
                                            "auth_status", "policy"})
        head.setdefault("name", scenario.name)
        out.extend(_table_lines("[[scenario]]", head))
        config = scenario.config.model_dump(exclude_unset=True)
        if config:
            out.append("")
            out.extend(_table_lines("[scenario.config]", config))
        if scenario.policy is not None:
            out.append("")
            out.extend(_table_lines("[scenario.policy]",
                                    scenario.policy.model_dump(exclude_unset=True)))
        for case in scenario.path:
            out.append("")
            out.extend(_table_lines("[[scenario.path]]", case.model_dump(exclude_unset=True)))
        for call in scenario.call:
            out.append("")
            data = call.model_dump(exclude_unset=True, exclude={"path"})
            out.extend(_table_lines("[[scenario.call]]", data))
            for sub in call.path:
                out.append("")
                out.extend(_table_lines("[[scenario.call.path]]",
                                        sub.model_dump(exclude_unset=True)))
        for hangar_case in scenario.hangar:
            out.append("")
            out.extend(_table_lines("[[scenario.hangar]]",
                                    hangar_case.model_dump(exclude_unset=True)))
        for kind in ("tools", "auth_status"):
            part = getattr(scenario, kind)
            if part is not None:
                out.append("")
                out.extend(_table_lines(f"[scenario.{kind}]",
                                        part.model_dump(exclude_unset=True)))
    return "\n".join(out) + "\n"
