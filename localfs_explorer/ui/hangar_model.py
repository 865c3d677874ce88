"""The Explorer model's hangar part: a pasted config, a call route, hangar's answers.

:class:`HangarTraits` holds the inputs (the configuration's YAML text, never a path: a
page visitor's text is not a reason to open a file; the server, group and tenant of the
route; whether the other tabs take their tool access from it) and the results (the
parsed configuration, its refusal, the answers with findings first). The functions
compute them for the model; ``ExplorerModel`` calls :func:`compute` in its tool stage.
"""

from __future__ import annotations

from typing import Any

from traitlets import Any as AnyTrait
from traitlets import Bool, HasTraits, List, Unicode

from .inputs import ExplorerError, content_json, upload_text


class HangarTraits(HasTraits):
    """The hangar inputs and results of the one model."""

    #: An mcp-hangar configuration's YAML text (pasted or uploaded) and its name.
    hangar_text = Unicode("")
    hangar_name = Unicode("")
    hangar_server = Unicode("")
    #: The group the call goes through ("" when it names the server directly).
    hangar_via = Unicode("")
    hangar_tenant = Unicode("")
    #: Tool calls, batches and sessions take their tool access from the hangar route
    #: instead of ``access_text``.
    hangar_use = Bool(False)
    #: The parsed configuration (None when there is none or it is refused).
    hangar_config = AnyTrait(None, allow_none=True)
    hangar_error = Unicode("")
    #: Hangar's answers on the route (``ToolAnswer``), findings first.
    hangar_answers: List[Any] = List()


def route(model: Any) -> Any:
    """The model's call route (a ``CallRoute``)."""
    from ..access import CallRoute

    return CallRoute(model.hangar_server, model.hangar_via or None,
                     model.hangar_tenant.strip() or None)


def tools(model: Any, config: Any) -> list[str]:
    """The server's declared tools, else mcp-gee-sweet's (the shipped catalog)."""
    declared = config.catalogs.get(model.hangar_server)
    if declared:
        return list(declared)
    from ..catalog import load_catalog

    return [t.name for t in load_catalog().tools]


def compute(model: Any) -> None:
    """Parse the configuration and answer every tool of the server on the route."""
    model.hangar_error = ""
    model.hangar_answers = []
    model.hangar_config = None
    if not model.hangar_text.strip():
        return
    from ..access import HangarConfigError, answer_tools, read_hangar
    from ..secrets import hide_everywhere

    try:
        # A page served to other machines fills ${VAR} from nothing: the serving
        # machine's environment (its secrets) must not reach the page.
        config = read_hangar(model.hangar_text, source=model.hangar_name or "hangar config",
                             expand_environ=model.host_access)
        hide_everywhere(config.secrets)
        model.hangar_config = config
        if not model.hangar_server:
            return
        answers = answer_tools(config, route(model), tools(model, config))
    except HangarConfigError as exc:
        model.hangar_error = model.clean(str(exc))
        return
    model.hangar_answers = sorted(answers, key=lambda a: a.finding is None)


def access(model: Any) -> Any:
    """The route as tool access (``HangarAccess``), or why it can't be used."""
    from ..access import HangarAccess

    if model.hangar_config is None or not model.hangar_server:
        raise ExplorerError(model.hangar_error or "load a hangar configuration and pick its "
                            "server (Hangar tab) to use its tool access")
    return HangarAccess(model.hangar_config, route(model))


def tool_access(model: Any) -> Any:
    """The tool access the model's calls use: the hangar route when in use, else the
    access lists typed as JSON (the explorer's own lists only: a hangar route in typed
    text would open a file), else None."""
    if model.hangar_use:
        return access(model)
    if not model.access_text.strip():
        return None
    from ..access import load_access_lists

    return load_access_lists(content_json(model.access_text, "tool access lists"))


def load_upload(model: Any, name: str, content: bytes | str) -> None:
    """Use an uploaded hangar configuration (YAML)."""
    text = upload_text(name, content)
    with model.hold():
        model.hangar_name = name or "uploaded hangar config"
        model.hangar_text = text
