"""The Hangar panel: an mcp-hangar configuration's tool access on one call route.

Paste or upload the configuration (YAML), pick the server, the group the call goes
through (or none: it names the server) and the tenant. Every tool of the server (its
``tools`` list in the configuration, else mcp-gee-sweet's catalog) is shown visible,
held (with hangar's timeout and channel) or hidden, with the scope that decided, and
the findings, where hangar departs from its documented rule, first. The answers are the
model's (``hangar_answers``), the ones ``localfs-explorer access`` prints. A checkbox
makes the Tool call, Batch and Session tabs take their tool access from this route.
"""

from __future__ import annotations

import ipywidgets as widgets

from .. import hangar_model, render
from ..panel import Panel, css, heading, html, wide

#: A small configuration to start from: the member's own deny list is lost through the
#: group (a finding), and deploys wait for approval.
EXAMPLE = """mcp_servers:
  gee:
    command: [my-mcp-server]
    tools:
      allow_list: ["*"]
      approval_list: ["upload_*"]
      approval_timeout_seconds: 120
  core:
    mode: group
    tools: {deny_list: ["delete_*"]}
    members:
      - id: gee
        tools: {allow_list: ["get_*", "list_*", "upload_*"], deny_list: [get_doc_content]}
"""


class HangarPanel(Panel):
    """Tool access as mcp-hangar decides it, per call route."""

    name = "hangar"
    title = "Hangar"
    watches = ("config_rev", "tool_rev")

    def build(self) -> list[widgets.Widget]:
        self.upload = css(widgets.FileUpload(description="Upload YAML", multiple=False,
                                             accept=".yaml,.yml",
                                             layout=widgets.Layout(width="160px")),
                          "lfe-hangar-upload")
        self.example = css(widgets.Button(description="Example",
                                          layout=widgets.Layout(width="100px")),
                           "lfe-hangar-example")
        self.text = css(self.bind(widgets.Textarea(
            placeholder=EXAMPLE, continuous_update=False, layout=wide(height="160px")),
            "hangar_text"), "lfe-hangar-text")
        self.server = css(widgets.Dropdown(options=[], description="Server",
                                           style={"description_width": "70px"}),
                          "lfe-hangar-server")
        self.via = css(widgets.Dropdown(options=[("(named directly)", "")], value="",
                                        description="Through",
                                        style={"description_width": "70px"}),
                       "lfe-hangar-via")
        self.tenant = css(self.bind(widgets.Combobox(
            placeholder="(no tenant)", description="Tenant", continuous_update=False,
            ensure_option=False, style={"description_width": "70px"}), "hangar_tenant"),
            "lfe-hangar-tenant")
        # Its own width: the default cut the label short.
        self.use = css(self.bind(widgets.Checkbox(
            description="Tool call, Batch and Session use this route's tool access",
            indent=False, layout=widgets.Layout(width="auto"),
            style={"description_width": "initial"}), "hangar_use"), "lfe-hangar-use")
        # Words, not an emoji: a page offline may have no font that draws one.
        self.pin = css(widgets.Button(description="Pin answers",
                                      layout=widgets.Layout(width="130px"),
                                      tooltip="a scenario expecting these answers (Scenarios "
                                      "tab), reading the config saved as hangar.yaml beside it"),
                       "lfe-hangar-pin")
        self.status = html("lfe-hangar-status")
        self.findings = html("lfe-hangar-findings")
        self.table = html("lfe-hangar-table")
        self.state_filter = css(widgets.ToggleButtons(
            options=["all", "visible", "held", "hidden"], value="all",
            tooltips=["every tool", "tools the route shows as they are",
                      "tools held for approval", "tools the route hides"],
            style={"button_width": "70px"}), "lfe-hangar-state-filter")
        self.on_change(self.state_filter, lambda _v: self.refresh())
        self.on_change(self.upload, lambda _v: self._uploaded())
        self.on_click(self.example, self._example)
        self.on_click(self.pin, self._pin)
        self.on_change(self.server, self._pick_server)
        self.on_change(self.via, lambda value: setattr(self.model, "hangar_via", value or ""))
        intro = html("", (
            '<div class="lfe-muted">What mcp-hangar 2.34.4 does with each tool on a call '
            "route, beside its documented rule (each scope can only remove tools, approval "
            "only grows, the shortest wait). Where they differ the row is a finding.</div>"))
        return [
            intro,
            widgets.HBox([self.upload, self.example]),
            self.text,
            widgets.HBox([self.server, self.via, self.tenant]),
            widgets.HBox([self.use, self.pin]),
            self.status,
            heading("Findings"),
            self.findings,
            heading("Every tool"),
            self.state_filter,
            self.table,
        ]

    def _uploaded(self) -> None:
        found = self.upload_contents(self.upload)
        if found is not None:
            hangar_model.load_upload(self.model, *found)

    def _example(self) -> None:
        with self.model.hold():
            self.model.hangar_name = "example"
            self.model.hangar_text = EXAMPLE
            self.model.hangar_server = "gee"
            self.model.hangar_via = "core"

    def _pin(self) -> None:
        """Pin today's answers as a scenario with ``[[scenario.hangar]]`` cases."""
        from ...review.scenarios import pin_hangar_scenario
        from ..commands import HANGAR_FILE
        from ..inputs import ExplorerError

        m = self.model
        if not m.hangar_answers:
            raise ExplorerError("load a hangar configuration and pick its server first")
        route = hangar_model.route(m)
        scenario = pin_hangar_scenario(
            f"hangar: {route.describe()}", HANGAR_FILE, route, m.hangar_answers,
            description=f"mcp-hangar's answers; save the configuration as {HANGAR_FILE} "
                        "beside this file")
        m.pinned = [*m.pinned, scenario]

    def _pick_server(self, value: str | None) -> None:
        with self.model.hold():
            self.model.hangar_server = value or ""
            config = self.model.hangar_config
            if config is not None and self.model.hangar_via not in config.owning_groups(
                    value or ""):
                self.model.hangar_via = ""

    def refresh(self) -> None:
        m = self.model
        config = m.hangar_config
        servers = list(config.servers) if config is not None else []
        if m.hangar_server and m.hangar_server not in servers:
            servers.append(m.hangar_server)
        if list(self.server.options) != servers:
            self.server.options = servers
        self.server.value = m.hangar_server if m.hangar_server in servers else None
        groups = list(config.owning_groups(m.hangar_server)) if config is not None else []
        via_options = [("(named directly)", ""), *((g, g) for g in groups)]
        if m.hangar_via and m.hangar_via not in groups:
            via_options.append((m.hangar_via, m.hangar_via))
        if list(self.via.options) != via_options:
            self.via.options = via_options
        self.via.value = m.hangar_via
        self.tenant.options = list(config.tenants()) if config is not None else []
        unexpanded = ""
        if not m.host_access and "${" in m.hangar_text:
            unexpanded = render.box("note", render.esc(
                "This page expands nothing from the serving machine's environment: "
                "${VAR} has only its default (${VAR:-default}) here."))
        if m.hangar_error:
            self.status.value = unexpanded + render.box("error", render.esc(m.hangar_error))
        elif config is None:
            self.status.value = render.box("note", "Paste or upload a hangar configuration.")
        elif not m.hangar_server:
            self.status.value = render.box("note", "Pick the server the calls reach.")
        else:
            self.status.value = render.box("ok", render.esc(_summary(m.hangar_answers, m)))
        if unexpanded and not m.hangar_error:
            self.status.value = unexpanded + self.status.value
        if config is not None and config.warnings:
            self.status.value += render.box("warning", "<br>".join(
                render.esc(w) for w in config.warnings))
        answers = m.hangar_answers
        found = [a for a in answers if a.finding]
        self.findings.value = render.table(
            ["tool", "finding"],
            [[render.esc(a.tool), render.esc(a.finding)] for a in found],
            css_class="lfe-hangar-findings-table") if found else (
            '<div class="lfe-muted">None: hangar keeps its documented rule here.</div>'
            if answers else "")
        shown = [a for a in answers if self.state_filter.value in ("all", _kind(a))]
        self.table.value = render.table(
            ["tool", "hangar", "documented", "decided by"],
            [[render.esc(a.tool), render.esc(_state(a)), render.esc(_documented(a)),
              render.esc(a.scope)] for a in shown],
            css_class="lfe-hangar-answers") if answers else ""


def _kind(answer: object) -> str:
    """visible, held or hidden: what the route does with the tool."""
    return _state(answer).split(" ")[0]


def _state(answer: object) -> str:
    from ...access import ToolAnswer

    assert isinstance(answer, ToolAnswer)
    if not answer.visible:
        return "hidden"
    if answer.held:
        return f"held {answer.timeout} s ({answer.channel})"
    return "visible"


def _documented(answer: object) -> str:
    from ...access import ToolAnswer

    assert isinstance(answer, ToolAnswer)
    doc = answer.documented
    if not doc.visible:
        return "hidden"
    return f"held {doc.timeout} s" if doc.held else "visible"


def _summary(answers: list, model: object) -> str:
    visible = sum(1 for a in answers if a.visible and not a.held)
    held = sum(1 for a in answers if a.held)
    hidden = sum(1 for a in answers if not a.visible)
    findings = sum(1 for a in answers if a.finding)
    route = hangar_model.route(model).describe()
    return (f"{route}: {len(answers)} tools, {visible} visible, {held} held, {hidden} hidden; "
            f"{findings} finding(s)")
