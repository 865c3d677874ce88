"""JSON Schemas for the files users write, generated from the models that read them.

``localfs-explorer schema NAME`` prints one; editors use it for completion and checking:
VS Code for JSON (``"$schema"`` or ``json.schemas``), Taplo / Even Better TOML for TOML
through a first line ``#:schema ./scenarios.schema.json``. The readers ignore that line
(it is a TOML comment), so a file keeps working with or without it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, create_model

from ..errors import LocalfsError

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _scenarios() -> dict[str, Any]:
    from ..review.scenarios import ScenarioFile

    return ScenarioFile.model_json_schema()


def _host() -> dict[str, Any]:
    from ..fs.spec import HostSpec

    return HostSpec.model_json_schema()


def _catalog() -> dict[str, Any]:
    from ..catalog import Catalog

    return Catalog.model_json_schema()


def _access() -> dict[str, Any]:
    from ..access import SCOPE_NAMES, ToolAccess

    # The file holds one table per scope with the lists of ToolAccess; the merged model's
    # bookkeeping fields (scope, broader_scopes) are not written by users.
    fields = ("allow_list", "deny_list", "approval_list", "approval_timeout_seconds")
    scope = create_model(  # type: ignore[call-overload]
        "AccessScope", __config__=ConfigDict(extra="forbid"),
        **{name: (ToolAccess.model_fields[name].annotation, ToolAccess.model_fields[name])
           for name in fields},
    )
    access_file = create_model(  # type: ignore[call-overload]
        "AccessFile", __config__=ConfigDict(extra="forbid"),
        **{name: (scope | None, None) for name in SCOPE_NAMES},
    )
    return access_file.model_json_schema()


def _session() -> dict[str, Any]:
    from ..review.sessions import SessionCall

    answers = list[list[SessionCall]]

    class SessionFile(BaseModel):
        model_config = ConfigDict(extra="forbid")

        answers: answers
        description: str = ""

    return TypeAdapter(answers | SessionFile).json_schema()


#: Schema name -> (what the file is, how to build its schema).
SCHEMAS: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
    "scenarios": ("scenario files for `localfs-explorer test` (TOML)", _scenarios),
    "access": ("tool access lists for --access (TOML or JSON)", _access),
    "host": ("host specs for --fs (JSON, as `snapshot` writes them)", _host),
    "catalog": ("tool catalogs for --catalog (JSON or TOML)", _catalog),
    "session": ("sessions for `localfs-explorer replay` (JSON)", _session),
}


class SchemaError(LocalfsError):
    """An unknown schema name."""


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the user file called ``name``."""
    try:
        what, build = SCHEMAS[name]
    except KeyError:
        raise SchemaError(f"unknown schema {name!r} (one of: {', '.join(SCHEMAS)})") from None
    schema = build()
    schema.setdefault("title", name)
    schema["description"] = f"localfs-explorer {what}"
    return {"$schema": DRAFT, **schema}
