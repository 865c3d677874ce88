"""The Session panel: paste or upload a conversation, pick the person's answers, see the table.

The replay goes through :func:`localfs_explorer.review.sessions.replay_session` with the
Explorer's policy and the tool access lists typed in the Tool call tab, so the table is
the one ``localfs-explorer replay`` prints. It re-runs when the configuration or the
access lists change.

Its second mode, "Shadow-verify a recorded log", takes an uploaded log (a Claude Code
transcript, a VS Code or Claude Desktop MCP log, an Inspector History export) and the
client config it ran with, and fills the same results grid with the rows
:class:`localfs_explorer.sessions.Shadow` yields, the ones ``localfs-explorer shadow``
prints: disagreements first.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ...textsafe import frame_csv_text
from .. import render
from ..commands import ACCESS_FILE, SESSION_FILE, access_link, pin_asked, replay_command
from ..grid import ResultsGrid
from ..panel import Panel, css, heading, html, style, wide
from .paths import _pinned_note

#: The most calls one pasted session may hold (each call is a full probe).
MAX_SESSION_CALLS = 5_000

#: The example: the same download asked for twice in one answer, then another in the next
#: answer. With the example's access lists downloads wait for the person: Approve runs
#: them (the second on the first's approval, which lasts one answer), Deny declines every
#: one.
EXAMPLE = """[
  [
    {"name": "download_file", "arguments": {"file_id": "f1", "local_path": "~/reports/q3.csv"}},
    {"name": "download_file", "arguments": {"file_id": "f1", "local_path": "~/reports/q3.csv"}}
  ],
  [
    {"name": "download_file", "arguments": {"file_id": "f2", "local_path": "~/reports/q4.csv"}}
  ]
]"""

#: Access lists for the example: both tools are held for the person's approval.
EXAMPLE_ACCESS = """{
  "server": {"approval_list": ["upload_local_file", "download_file"]}
}"""

_DECISION_TEXT = {
    "none": "—",
    "approved": "✔ approved",
    "covered": "↻ earlier approval",
    "refused": "✘ refused",
    "timeout": "⌛ no answer",
    "refused_earlier": "✘ refused earlier",
    "not_asked": "not asked",
}


class SessionPanel(Panel):
    """Replay a conversation's tool calls through the approval gate."""

    name = "session"
    title = "Session"
    watches = ("config_rev", "tool_rev")

    def build(self) -> list[widgets.Widget]:
        self.replay: Any = None
        #: The session the replay ran (its calls' arguments, for the row actions).
        self.session: Any = None
        self.upload = css(widgets.FileUpload(description="Upload JSON", multiple=False,
                                             accept=".json", layout=widgets.Layout(width="160px")),
                          "lfe-session-upload")
        self.text = css(widgets.Textarea(value="", placeholder=EXAMPLE,
                                         continuous_update=False,
                                         tooltip="the session to replay (JSON)",
                                         layout=wide(height="180px")), "lfe-session-text")
        self.answers = css(widgets.ToggleButtons(
            options=[("Approve", "approve"), ("Deny", "deny"), ("Don't answer", "timeout")],
            value="approve", description="Person",
            tooltips=["approve every prompt the session doesn't script",
                      "refuse every prompt the session doesn't script",
                      "let every prompt time out"]), "lfe-session-answers")
        self.lasts = css(widgets.Dropdown(
            options=[("to the end of the answer", "answer"),
                     ("for the whole conversation", "conversation"),
                     ("for one call (always ask)", "call")],
            value="answer", description="Approval lasts",
            style={"description_width": "100px"}), "lfe-session-lasts")
        self.destructive = css(widgets.Checkbox(
            value=True, description="destructive tools ask every time", indent=False),
            "lfe-session-destructive")
        self.run = css(widgets.Button(description="▶ Replay",
                                      layout=widgets.Layout(width="100px")), "lfe-session-run")
        self.example = css(widgets.Button(description="Example",
                                          layout=widgets.Layout(width="100px")),
                           "lfe-session-example")
        self.access = css(self.bind(widgets.Textarea(
            placeholder=EXAMPLE_ACCESS, continuous_update=False,
            tooltip="tool access lists for the session (JSON, optional)",
            layout=wide(height="90px")), "access_text"), "lfe-session-access")
        self.status = html("lfe-session-status")
        self.summary = html("lfe-session-summary")
        self.grid = ResultsGrid(
            "session", detail=self._detail, command=self._command, pin=self._pin,
            command_note=self._command_note,
            command_tip=f"replays the whole session (a call's row depends on the calls "
                        f"before it): save the session as {SESSION_FILE} and the access "
                        f"lists as {ACCESS_FILE}; the links come with the command",
            pin_tip="a scenario with this configuration and the access lists, expecting "
                    "this call's answer from the server (the person's answer is not part "
                    "of a scenario)",
            guard=lambda fn: self.model.guarded(fn, where="session grid"))
        self.grid.table.add_class("lfe-session-table")
        self.csv = html("lfe-session-csv")
        self.on_change(self.upload, lambda _v: self._uploaded())
        self.on_click(self.run, self.refresh)
        self.on_click(self.example, self._example)
        for control in (self.text, self.answers, self.lasts, self.destructive):
            self.on_change(control, lambda _v: self.refresh())
        self._build_shadow()
        self.mode = css(widgets.ToggleButtons(
            options=[("Replay a conversation", "replay"),
                     ("Shadow-verify a recorded log", "shadow")],
            value="replay", style=style(widgets.ToggleButtons, button_width="230px"),
            tooltips=[
                "replay a conversation's calls through the approval gate",
                "hold a recorded session's answers against the predictions"]),
            "lfe-session-mode")
        self.on_change(self.mode, lambda _v: self._mode_changed())
        intro = html("", (
            '<div class="lfe-muted">A session is a list of answers, each a list of '
            '<code>{"name": ..., "arguments": {...}}</code> tool calls; a call may script '
            'the person with <code>"approval": "deny"</code>. Tools are held by the access '
            "lists of the Tool call tab. An approval is remembered per tool, operation and "
            "resolved file, for the rest of the answer; a refusal is final.</div>"))
        self.replay_box = widgets.VBox([
            intro, widgets.HBox([self.upload, self.example, self.run], layout=wide()),
            self.text,
            heading("Tool access lists (JSON; the same lists as the Tool call tab)"),
            self.access,
            widgets.HBox([self.answers], layout=wide()),
            widgets.HBox([self.lasts, self.destructive], layout=wide()),
        ], layout=widgets.Layout(width="100%"))  # its own: the mode hides it
        return [
            self.mode, self.replay_box, self.shadow_box,
            self.status, heading("Summary"), self.summary, self.csv, heading("Calls"),
            self.grid,
        ]

    # ---- shadow verify: a recorded log against the predictions

    def _build_shadow(self) -> None:
        from ...sessions import LOG_FORMATS

        #: The rows of the last verification, and what it read (names and bytes).
        self.shadow_rows: list[Any] = []
        self.shadow_log: tuple[str, bytes] | None = None
        self.shadow_config: tuple[str, str] | None = None
        self.log_upload = css(widgets.FileUpload(
            description="Upload log", multiple=False, accept=".jsonl,.json,.log,.txt",
            layout=widgets.Layout(width="160px"), style=style(widgets.Button)),
            "lfe-shadow-log")
        self.config_upload = css(widgets.FileUpload(
            description="Upload client config", multiple=False, accept=".json,.yaml,.yml",
            layout=widgets.Layout(width="210px"), style=style(widgets.Button)),
            "lfe-shadow-config")
        self.log_format = css(widgets.Dropdown(
            options=[("recognise it", "")] + [(f, f) for f in LOG_FORMATS], value="",
            description="format", layout=widgets.Layout(width="260px")), "lfe-shadow-format")
        self.shadow_entry = css(widgets.Dropdown(
            options=[("the one modelled entry", "")], value="", description="entry",
            tooltip="only this entry's calls; also the entry of a log that doesn't name "
                    "its server", layout=widgets.Layout(width="320px")), "lfe-shadow-entry")
        self.shadow_run = css(widgets.Button(description="▶ Verify",
                                             layout=widgets.Layout(width="100px")),
                              "lfe-shadow-run")
        self.shadow_files = html("lfe-shadow-files")
        self.on_change(self.log_upload, lambda _v: self._log_uploaded())
        self.on_change(self.config_upload, lambda _v: self._config_uploaded())
        self.on_click(self.shadow_run, lambda: self._verify(force=True))
        #: What the shown rows were verified from: the Explorer's configuration doesn't
        #: enter a verification (each entry's own does), so its edits don't re-run it.
        self._verified: tuple[Any, ...] | None = None
        for control in (self.log_format, self.shadow_entry):
            self.on_change(control, lambda _v: self.refresh())
        intro = html("", (
            '<div class="lfe-muted">A recorded session: a Claude Code transcript '
            "(<code>.jsonl</code>), VS Code's or Claude Desktop's MCP log, or an MCP "
            "Inspector History export, with the client config it ran with. Each tool call "
            "to an entry of the config is predicted in session order and held against the "
            "answer it got; disagreements come first. The configuration above is not "
            "used: each entry's own is.</div>"))
        self.shadow_box = widgets.VBox([
            intro, widgets.HBox([self.log_upload, self.config_upload, self.shadow_run],
                                layout=wide()),
            widgets.HBox([self.log_format, self.shadow_entry], layout=wide()),
            self.shadow_files,
        ], layout=widgets.Layout(width="100%", display="none"))  # its own: the mode shows it

    def _mode_changed(self) -> None:
        shadow = self.mode.value == "shadow"
        self.replay_box.layout.display = "none" if shadow else ""
        self.shadow_box.layout.display = "" if shadow else "none"
        self.refresh()

    def _log_uploaded(self) -> None:
        got = self.upload_contents(self.log_upload)
        if got is not None:
            self.shadow_log = got
            self._show_files()
            self.refresh()

    def _config_uploaded(self) -> None:
        from ...deployments import DeploymentError, list_entries

        got = self.upload_contents(self.config_upload)
        if got is None:
            return
        name, data = got
        text = data.decode("utf-8", errors="replace")
        try:
            entries = list_entries(name or "mcp.json", text=text)
        except DeploymentError as exc:
            self.shadow_config = None
            self._set_error(str(exc))
            return
        self.shadow_config = (name or "mcp.json", text)
        with self.shadow_entry.hold_trait_notifications():
            self.shadow_entry.options = [("the one modelled entry", "")] + [
                (f"{e['name']} ({e['server'] or 'not modelled'})", e["name"])
                for e in entries]
            self.shadow_entry.value = ""
        self._show_files()
        self.refresh()

    def _show_files(self) -> None:
        parts = []
        if self.shadow_log is not None:
            parts.append(f"log: <code>{render.esc(self.shadow_log[0])}</code> "
                         f"({len(self.shadow_log[1]):,} bytes)")
        if self.shadow_config is not None:
            parts.append(f"client config: <code>{render.esc(self.shadow_config[0])}</code>")
        self.shadow_files.value = ('<div class="lfe-muted">' + " · ".join(parts) + "</div>"
                                   if parts else "")

    def _verify(self, *, force: bool = False) -> None:
        """Run the verification on the uploads and show its rows (again only when an
        input changed, or ``force``)."""
        import os
        import tempfile

        from ...deployments import DeploymentError
        from ...secrets import hide_everywhere
        from ...sessions import LogError, Shadow

        if self.shadow_log is None or self.shadow_config is None:
            self.shadow_rows = []
            self.status.value = ('<div class="lfe-muted">Upload a log and the client config '
                                 "it ran with.</div>")
            self.summary.value = self.csv.value = ""
            self.grid.set_frame(_shadow_frame([], self.model.clean))
            return
        name, data = self.shadow_log
        config_name, config_text = self.shadow_config
        inputs = (name, data, config_name, config_text, self.shadow_entry.value,
                  self.log_format.value)
        if not force and inputs == self._verified:
            return
        self._verified = None
        try:
            shadow = Shadow(config_name, self.shadow_entry.value or None, text=config_text)
            # The readers stream a file: the upload is written to a private scratch folder
            # under its own base name (Claude Desktop's log name says its entry).
            with tempfile.TemporaryDirectory(prefix="lfe-shadow-") as scratch:
                path = os.path.join(scratch, os.path.basename(name) or "session.log")
                with open(path, "wb") as f:
                    f.write(data)
                rows = list(shadow.run_log(path, format=self.log_format.value or None))
        except (DeploymentError, LogError) as exc:
            self._set_error(str(exc))
            return
        hide_everywhere(shadow.secrets)
        for row in rows:
            row.source = name
        self.shadow_rows = rows
        self._verified = inputs
        self.status.value = ""
        self.summary.value = "".join(
            f"<div>{render.esc(self.model.clean(line))}</div>"
            for line in shadow.summary.to_text().splitlines())
        frame = _shadow_frame(rows, self.model.clean)
        self.grid.set_frame(frame)
        self.csv.value = render.download_link(
            self.model.clean(frame_csv_text(frame.drop(columns=["_rank"]))).encode("utf-8"),
            "localfs-explorer-shadow.csv", "text/csv",
            f"⬇ Download the table as CSV ({len(rows)} calls)", "lfe-shadow-csv-link")

    def _shadow_detail(self, index: int) -> str:
        if not 0 <= index < len(self.shadow_rows):
            return ""
        row = self.shadow_rows[index]
        clean = self.model.clean
        fields = [
            ("call", f"<code>{render.esc(row.tool)}</code> (id {render.esc(row.id)}, "
                     f"line {row.line})"),
            ("entry", render.esc(row.entry or "—")),
            ("paths", render.esc(clean(", ".join(row.paths))) or "—"),
            ("recorded", render.esc(clean(row.recorded))),
            ("predicted", render.esc(clean(row.predicted)) or "—"),
            ("agree", _AGREE_TEXT[row.agree]),
            ("why", render.esc(clean(row.why)) or "—"),
        ]
        if row.enforced is not None:
            fields.append(("directories the server enforced",
                           render.esc(clean(", ".join(row.enforced)))))
            fields.append(("directories the config has",
                           render.esc(clean(", ".join(row.configured or [])))))
        if row.notes:
            fields.append(("notes", render.esc(clean("; ".join(row.notes)))))
        return render.table(["", ""], [[k, v] for k, v in fields],
                            css_class="lfe-shadow-detail")

    def _shadow_command(self) -> str:
        import shlex

        log = self.shadow_log[0] if self.shadow_log else "SESSION.jsonl"
        config = self.shadow_config[0] if self.shadow_config else "mcp.json"
        words = ["localfs-explorer", "shadow", log, "--client-config", config]
        if self.shadow_entry.value:
            words += ["--entry", self.shadow_entry.value]
        if self.log_format.value:
            words += ["--log-format", self.log_format.value]
        return shlex.join(words)

    # ---- inputs

    def _uploaded(self) -> None:
        got = self.upload_contents(self.upload)
        if got is not None:
            self.text.value = got[1].decode("utf-8", errors="replace")

    def _example(self) -> None:
        with self.model.hold():
            self.model.access_text = EXAMPLE_ACCESS
        self.text.value = EXAMPLE

    def _detail(self, index: int) -> str:
        if self.mode.value == "shadow":
            return self._shadow_detail(index)
        if self.replay is None or not 0 <= index < len(self.replay.calls):
            return ""
        c = self.replay.calls[index]
        clean = self.model.clean
        rows = [
            ("call", f"{c.answer}.{c.call} <code>{render.esc(c.name)}</code>"),
            ("gate", render.esc(c.gate) + (" · destructive" if c.destructive else "")),
            ("asked the person", "yes" if c.asked else "no"),
            ("decision", render.esc(_DECISION_TEXT.get(c.decision, c.decision))),
            ("why", render.esc(clean(c.reason)) or "—"),
            ("what the model gets", render.esc(clean(c.message)) or "—"),
        ]
        return render.table(["", ""], [[k, v] for k, v in rows],
                            css_class="lfe-session-detail")

    # ---- row actions

    def _row(self, index: int) -> tuple[Any, Any]:
        if self.replay is None or self.session is None \
                or not 0 <= index < len(self.replay.calls):
            from ...review.sessions import SessionError

            raise SessionError("replay first: there is no such row")
        c = self.replay.calls[index]
        return c, self.session.answers[c.answer - 1][c.call - 1]

    def _command(self, index: int) -> str:
        if self.mode.value == "shadow":
            return self._shadow_command()
        self._row(index)
        return replay_command(self.model, self.answers.value)

    def _command_note(self, index: int) -> str:
        if self.mode.value == "shadow":
            return ('<div class="lfe-muted lfe-shadow-command-note">The command verifies '
                    "the whole log (a call's row depends on the calls before it): save the "
                    "log and the client config under these names.</div>")
        c, _call = self._row(index)
        m = self.model
        links = [render.download_link(m.clean(self.text.value).encode("utf-8"), SESSION_FILE,
                                      "application/json", f"⬇ {SESSION_FILE}",
                                      "lfe-session-file")]
        if m.access_text.strip():
            links.append(access_link(m))
        note = (f"This row is call {c.answer}.{c.call} of the table the command prints. "
                "Save next to it: ")
        parts = [f'<div class="lfe-muted lfe-session-command-note">{render.esc(note)}'
                 f'{" · ".join(links)}</div>']
        differs = []
        if self.lasts.value != "answer":
            differs.append("approvals last to the end of the answer")
        if not self.destructive.value:
            differs.append("destructive tools ask every time")
        if differs:
            parts.append(render.box("note", render.esc(
                "The command replays with the default rules (" + "; ".join(differs)
                + "), not the ones chosen here: its table may differ from this one.")))
        return "".join(parts)

    def _pin(self, index: int) -> str:
        from .scenarios import config_of

        if self.mode.value == "shadow":
            return render.box("note", render.esc(
                "A recorded call is held against its recording, not pinned as a scenario: "
                "switch to the replay to pin a call."))

        c, call = self._row(index)
        config, left_out = config_of(self.model)
        pin_asked(self.model, f"session call {c.answer}.{c.call}: {c.name}", config,
                  call=(call.name, dict(call.arguments)))
        note = _pinned_note(self.model)
        if c.asked or c.outcome == "declined":
            note += render.box("note", render.esc(
                "The scenario expects the server's answer to the call; the person's "
                f"answer ({_DECISION_TEXT.get(c.decision, c.decision)}) is the replay's."))
        if left_out:
            note += render.box("note", "Left out of the scenario (secret): "
                                       + render.esc(", ".join(left_out)))
        return note

    # ---- the replay

    def _set_error(self, message: str) -> None:
        self.replay = None
        self.shadow_rows = []
        self.status.value = render.box("error", render.esc(self.model.clean(message)))
        self.summary.value = self.csv.value = ""
        if self.mode.value == "shadow":
            self.grid.set_frame(_shadow_frame([], self.model.clean))
        else:
            self.grid.set_frame(_session_frame(None, self.model.clean))

    def refresh(self) -> None:
        if self.mode.value == "shadow":
            self._verify()
            return

        from ...review.sessions import LedgerRules, SessionError, load_session, replay_session

        text = self.text.value.strip()
        if not text:
            self.replay = None
            self.status.value = '<div class="lfe-muted">No session yet: paste or upload one.</div>'
            self.summary.value = self.csv.value = ""
            self.grid.set_frame(_session_frame(None, self.model.clean))
            return
        policy = self.model.policy
        if policy is None:
            self._set_error("fix the configuration first")
            return
        from ..inputs import content_json

        try:
            # Content only: a JSON string would be taken for a session file's path.
            raw = content_json(text, "session", SessionError, kinds=(dict, list))
            session = load_session(raw)
            self.session = session
            if len(session) > MAX_SESSION_CALLS:
                self._set_error(f"{len(session)} calls: at most {MAX_SESSION_CALLS} per session")
                return
            access = self.model._access()
            rules = LedgerRules(lasts=self.lasts.value,
                                destructive_asks_every_time=self.destructive.value)
            self.replay = replay_session(policy, session, access=access,
                                         approvals=self.answers.value, rules=rules,
                                         over_http=self.model._over_http())
        except (SessionError, ValueError) as exc:  # access-list errors are ValueErrors
            self._set_error(str(exc))
            return
        self.status.value = ""
        self._render()

    def _render(self) -> None:
        replay = self.replay
        summary = replay.summary()
        clean = self.model.clean
        per = ", ".join(f"answer {a}: <b>{n}</b>" for a, n in summary.prompts_per_answer.items())
        covered = ", ".join(f"{a}.{c} (approved at {b[0]}.{b[1]})"
                            for (a, c), b in summary.covered.items())
        lines = [
            f"<b>{summary.prompts}</b> prompt(s) over {summary.calls} call(s) in "
            f"{summary.answers} answer(s){': ' + per if per else ''}",
            f"ran on an earlier approval: {render.esc(covered or 'none')}",
            "blocked (hidden from the model): "
            + render.esc(", ".join(f"{a}.{c}" for a, c in summary.blocked) or "none"),
            "declined by the person: "
            + render.esc(", ".join(f"{a}.{c}" for a, c in summary.declined) or "none"),
        ]
        self.summary.value = "".join(f"<div>{line}</div>" for line in lines)
        self.grid.set_frame(_session_frame(replay, clean))
        frame_csv = clean(frame_csv_text(replay.to_dataframe())).encode("utf-8")
        self.csv.value = render.download_link(
            frame_csv, "localfs-explorer-session.csv", "text/csv",
            f"⬇ Download the table as CSV ({len(replay.calls)} calls)", "lfe-session-csv-link")


def _session_frame(replay: Any, clean: Any) -> Any:
    import pandas as pd

    from ..grid import _RANK

    rows = []
    for i, c in enumerate(replay.calls if replay is not None else []):
        outcome = "✘ DECLINED" if c.outcome == "declined" else {
            "ok": "✔ OK", "refused": "✘ REFUSED", "partial": "◐ PARTIAL",
            "absent": "⊘ ABSENT", "error": "⚠ ERROR"}.get(c.outcome, c.outcome.upper())
        rows.append({
            "#": i + 1, "call": f"{c.answer}.{c.call}", "tool": c.name,
            "gate": c.gate + (" · destructive" if c.destructive else ""),
            "asked": "yes" if c.asked else "no",
            "decision": _DECISION_TEXT.get(c.decision, c.decision),
            "verdict": outcome, "reason": clean(c.reason),
            "what the model gets": clean(c.message) or "—",
            "_rank": _RANK.get(c.outcome, 1),
        })
    return pd.DataFrame(rows, columns=["#", "call", "tool", "gate", "asked", "decision",
                                       "verdict", "reason", "what the model gets", "_rank"])


_AGREE_TEXT = {True: "✔ agrees", False: "✘ DISAGREES", None: "? not predicted"}


def _shadow_frame(rows: list[Any], clean: Any) -> Any:
    """The shadow rows as the grid's frame: disagreements rank first, then the calls not
    predicted, then the agreeing ones."""
    import pandas as pd

    out = []
    for i, row in enumerate(rows):
        out.append({
            "#": i + 1, "line": row.line, "entry": row.entry or "—", "tool": row.tool,
            "paths": clean(", ".join(row.paths)), "recorded": clean(row.recorded),
            "predicted": clean(row.predicted) or "—", "verdict": _AGREE_TEXT[row.agree],
            "why": clean(row.why) or "—",
            "_rank": 0 if row.agree is False else 1 if row.agree is None else 2,
        })
    return pd.DataFrame(out, columns=["#", "line", "entry", "tool", "paths", "recorded",
                                      "predicted", "verdict", "why", "_rank"])
