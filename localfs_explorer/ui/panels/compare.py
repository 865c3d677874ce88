"""The Compare panel: the current configuration against a changed copy of it.

"Compare with…": type the changes (``KEY=VALUE`` to set, ``-KEY`` to unset, and maybe
another transport) or give a second ``.env`` (upload or paste: the change list is filled
with what turns the current settings into that file's, a secret's change applied but not
shown), choose whether today's configuration is the *before* or the *after*,
and see every verdict that changes, grouped as new access, removed access and changed
message, through :func:`localfs_explorer.review.diff.compare_policies`, the function behind
``localfs-explorer diff``. The other side is resolved on the same target host, startup
and package directories as the current one. Reports download as HTML or CSV.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ...errors import LocalfsError
from ...review.diff import compare_policies, elide_common_start
from ...secrets import is_secret_setting
from ...server import server_of
from ...vocab import TRANSPORTS
from .. import render
from ..commands import (
    ACCESS_FILE,
    access_link,
    changed_config,
    changed_options,
    check_command,
    environment_options,
    pin_asked,
    probe_command,
)
from ..grid import ResultsGrid
from ..panel import Panel, button, css, heading, html, layout, text_upload, wide
from .paths import _pinned_note

#: Rows shown per group; the rest are counted and are in the downloads.
MAX_ROWS = 200


class CompareError(LocalfsError):
    """A change list the panel can't use; the message names the line."""


def parse_changes(text: str) -> tuple[dict[str, str], list[str]]:
    """``KEY=VALUE`` lines (set) and ``-KEY`` lines (unset); ``#`` starts a comment line."""
    set_: dict[str, str] = {}
    unset: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-"):
            key = line[1:].strip()
            if not key or "=" in key:
                raise CompareError(f"line {number}: write -KEY to unset a setting")
            unset.append(key)
            continue
        key, sep, value = raw.partition("=")
        if not sep or not key.strip():
            raise CompareError(f"line {number}: expected KEY=VALUE or -KEY")
        set_[key.strip()] = value
    return set_, unset


def env_changes(current: dict[str, str], other: dict[str, str]
                ) -> tuple[dict[str, str], list[str], dict[str, str]]:
    """The changes turning the ``current`` settings into ``other``'s: settings to set that
    may be shown as ``KEY=VALUE`` lines, keys to unset, and settings to set that may not
    (a secret setting's value, or a value spanning lines), which are applied unseen."""
    shown: dict[str, str] = {}
    hidden: dict[str, str] = {}
    for key, value in other.items():
        if current.get(key) == value:
            continue
        if is_secret_setting(key, value) or "\n" in value or "\r" in value:
            hidden[key] = value
        else:
            shown[key] = value
    return shown, [key for key in current if key not in other], hidden


class ComparePanel(Panel):
    """Compare the current configuration with a changed copy: what access changes."""

    name = "compare"
    title = "Compare"
    watches = ("config_rev",)

    def build(self) -> list[widgets.Widget]:
        self.result: Any = None
        self.sides: tuple[Any, Any] | None = None
        #: The change the last comparison made: settings set, keys unset, the transport,
        #: and whether the changed configuration was the after side.
        self.change: tuple[dict[str, str], list[str], str, bool] | None = None
        #: The configuration's revision the last comparison ran on.
        self.compared_rev: Any = None
        self.changes = css(widgets.Textarea(
            placeholder="LOCAL_FILE_ROOTS=/data:/srv/exports\n-LOG_FILE",
            tooltip="changed settings to compare with: KEY=VALUE to set, -KEY to unset",
            layout=wide(height="90px")), "lfe-compare-changes")
        #: Settings of a second .env that differ but aren't shown in the change list (a
        #: secret, a value spanning lines): applied with it until another is loaded or
        #: the list is cleared.
        self.hidden: dict[str, str] = {}
        self.other_upload = css(widgets.FileUpload(
            description="Upload the other .env", multiple=False, accept=".env,.txt,text/*",
            layout=layout(width="210px")), "lfe-compare-env-upload")
        self.other_paste = css(widgets.Textarea(
            placeholder="or paste the other configuration's .env here",
            tooltip="the other configuration's .env, pasted", layout=wide(height="60px")),
            "lfe-compare-env-paste")
        self.other_use = button("Use the pasted .env", "lfe-compare-env-use",
                                layout=layout(width="170px"))
        self.other_note = html("lfe-compare-env-note")
        self.on_change(self.other_upload, lambda _v: self._env_uploaded())
        self.on_click(self.other_use, lambda: self.use_env("the pasted .env",
                                                           self.other_paste.value))
        self.transport = css(widgets.Dropdown(
            options=[("same transport", "")] + [(t, t) for t in TRANSPORTS],
            description="transport", style={"description_width": "70px"}),
            "lfe-compare-transport")
        self.direction = css(widgets.ToggleButtons(
            options=[("current → changed", "current_before"),
                     ("changed → current", "current_after")],
            tooltips=["the current configuration is the before", "the changed one is the "
                      "before, the current configuration the after"],
            style={"button_width": "150px"}), "lfe-compare-direction")
        self.paths = css(widgets.Textarea(placeholder="more paths to ask, one per line",
                                          tooltip="more paths to compare, one per line",
                                          layout=wide(height="60px")), "lfe-compare-paths")
        self.paths_upload = text_upload("Upload paths", "lfe-compare-paths-upload",
                                        ".txt,.lst,.csv")
        self.on_change(self.paths_upload, lambda _v: self._paths_uploaded())
        self.generated = css(widgets.Checkbox(
            value=True, indent=False,
            description="also ask the generated set (roots, siblings, deny-list, home, /, "
                        "every tool)"), "lfe-compare-generated")
        self.run = css(widgets.Button(description="⇄ Compare",
                                      button_style="primary",
                                      layout=widgets.Layout(width="120px")),
                       "lfe-compare-run")
        self.status = html("lfe-compare-status")
        self.summary = html("lfe-compare-summary")
        self.groups = html("lfe-compare-groups")
        self.grid = ResultsGrid(
            "compare", detail=self._detail, command=self._command, pin=self._pin,
            command_note=self._command_note,
            command_tip="the after side's question: a check line (a path) or a probe line "
                        "(a tool call) on the after configuration, whose answer is the row's "
                        "'after'",
            pin_tip="a scenario on the after configuration expecting the row's 'after'",
            guard=lambda fn: self.model.guarded(fn, where="compare grid"))
        self.downloads = html("lfe-compare-downloads")
        self.on_click(self.run, self.compare)
        self.on_change(self.changes, lambda text: self._changes_edited(text))
        intro = html("", (
            '<div class="lfe-muted">Compare with… the current configuration changed as '
            "below. Every verdict that changes is listed; new access is what a reviewer "
            "must sign off.</div>"))
        return [
            intro, widgets.HBox([self.other_upload, self.other_use], layout=wide()),
            self.other_paste, self.other_note, self.changes,
            widgets.HBox([self.transport, self.direction], layout=wide()),
            self.paths, self.paths_upload, self.generated, self.run, self.status,
            self.summary, self.downloads,
            heading("Every change"), self.grid, heading("By group"), self.groups,
        ]

    def _paths_uploaded(self) -> None:
        text = self.upload_text(self.paths_upload)
        if text is not None:
            self.paths.value = text

    def _env_uploaded(self) -> None:
        got = self.upload_contents(self.other_upload)
        if got is not None:
            name, data = got
            self.use_env(name or "the uploaded .env", data.decode("utf-8", errors="replace"))

    def _changes_edited(self, text: str) -> None:
        if not text.strip() and self.hidden:
            self.hidden = {}
            self.other_note.value = ""

    def use_env(self, name: str, text: str) -> None:
        """Compare with a second ``.env``: fill the change list with what turns the current
        configuration into that file's (same process environment, host, directories)."""
        from ...envfile.load import load_env

        m = self.model
        m.recompute()
        if m.env is None:
            self.other_note.value = render.box(
                "error", render.esc(m.config_error or "load the current configuration first"))
            return
        process = {k: v for k, v in m.env.values.items() if k in m.env.from_process}
        try:
            other = load_env(name, text=text, overrides=process)
        except LocalfsError as exc:
            self.other_note.value = render.box("error", render.esc(m.clean(str(exc))))
            return
        shown, unset, hidden = env_changes(dict(m.env.values), dict(other.values))
        self.hidden = {}
        self.changes.value = "\n".join([*(f"{k}={v}" for k, v in shown.items()),
                                        *(f"-{k}" for k in unset)])
        self.hidden = hidden
        note = (f"The change list below turns the current configuration into {name}'s: "
                f"{len(shown) + len(hidden)} setting(s) set, {len(unset)} unset.")
        if hidden:
            note += (f" {', '.join(sorted(hidden))} also differ(s) (a secret or a value on "
                     "several lines): applied, not shown, until another .env is loaded or "
                     "the list is cleared.")
        self.other_note.value = render.box("note", render.esc(m.clean(note)))

    def _set_and_unset(self) -> tuple[dict[str, str], list[str]]:
        set_, unset = parse_changes(self.changes.value)
        return {**self.hidden, **set_}, unset

    def other_policy(self) -> Any:
        """The changed copy of the current policy (same host and directories)."""
        m = self.model
        current = m.policy
        set_, unset = self._set_and_unset()
        return server_of(current).with_settings(
            current, set_, unset, transport=self.transport.value or None)

    def compare(self) -> None:
        """Run the comparison and show it."""
        m = self.model
        m.recompute()
        if m.policy is None or m.env is None:
            self.status.value = render.box(
                "error", render.esc(m.config_error or "no configuration to compare"))
            return
        try:
            other = self.other_policy()
            access = self._access()
        except ValueError as exc:
            self.status.value = render.box("error", render.esc(m.clean(str(exc))))
            return
        before, after = (m.policy, other) if self.direction.value == "current_before" \
            else (other, m.policy)
        over_http = {"auto": None, "yes": True, "no": False}[m.over_http]
        paths = [line for line in self.paths.value.splitlines() if line.strip()]
        self.result = compare_policies(before, after, paths, generated=self.generated.value,
                                       over_http=over_http, before_access=access,
                                       after_access=access)
        self.sides = (before, after)
        set_, unset = self._set_and_unset()
        self.change = (set_, unset, self.transport.value,
                       self.direction.value == "current_before")
        self.compared_rev = m.config_rev
        self.status.value = ""
        self.show()

    def _access(self) -> Any:
        text = self.model.access_text.strip()
        if not text:
            return None
        from ...access import load_access
        from ..inputs import content_json

        return load_access(content_json(text, "tool access lists", CompareError))

    def show(self) -> None:
        """Render the last comparison."""
        result = self.result
        if result is None or self.sides is None:
            return
        m = self.model
        counts = result.counts()
        kind = "error" if counts["new_access"] else "ok"
        text = (f"{len(result.changes)} probes: {counts['new_access']} new access, "
                f"{counts['removed_access']} removed access, {counts['changed_message']} "
                "changed message")
        verdict = ("this change grants new access" if counts["new_access"]
                   else "this change grants no new access")
        self.summary.value = render.box(kind, f"<b>{render.esc(verdict)}</b> · "
                                              f"{render.esc(text)}")
        parts = []
        for group, title in (("new_access", "New access (refused → allowed)"),
                             ("removed_access", "Removed access (allowed → refused)"),
                             ("changed_message", "Changed message")):
            changes = result.of(group)
            rows = [_row(c) for c in changes[:MAX_ROWS]]
            parts.append(f'<h3 class="lfe-h">{render.esc(title)}: {len(changes)}</h3>')
            if rows:
                parts.append(render.table(["probe", "before", "after", "why asked / what"],
                                          rows, css_class=f"lfe-compare-{group}",
                                          total=len(changes)))
        self.groups.value = m.clean("".join(parts))
        self.grid.set_frame(_compare_frame(result.changes, m.clean))
        from ...review.report import diff_report, to_csv, to_html

        report = diff_report(result, *self.sides)
        self.downloads.value = " · ".join([
            render.download_link(to_html(report).encode("utf-8"), "localfs-explorer-diff.html",
                                 "text/html", "⬇ HTML report", "lfe-compare-html"),
            render.download_link(to_csv(report).encode("utf-8"), "localfs-explorer-diff.csv",
                                 "text/csv", "⬇ CSV", "lfe-compare-csv"),
        ])

    def _detail(self, index: int) -> str:
        changes = self.result.changes if self.result is not None else []
        if not 0 <= index < len(changes):
            return ""
        return self.model.clean(render.table(["probe", "before", "after", "why asked / what"],
                                             [_row(changes[index])],
                                             css_class="lfe-compare-detail"))

    # ---- row actions: the after side's question

    def _change(self, index: int) -> tuple[Any, tuple[dict[str, str], list[str], str, bool]]:
        """The row's verdict change, and the change of configuration it came from."""
        changes = self.result.changes if self.result is not None else []
        if not 0 <= index < len(changes) or self.change is None:
            raise CompareError("compare first: there is no such row")
        return changes[index], self.change

    def _command(self, index: int) -> str:
        c, (set_, unset, transport, changed_after) = self._change(index)
        m = self.model
        options = (changed_options(m, set_, unset, transport) if changed_after
                   else environment_options(m))
        if c.kind == "path":
            return check_command(m, c, options=options)
        return probe_command(m, {"name": c.tool, "arguments": c.arguments or {}},
                             options=options)

    def _command_note(self, index: int) -> str:
        c, (_set, _unset, _transport, changed_after) = self._change(index)
        side = "the changed configuration" if changed_after else "the current configuration"
        note = (f"Asks the after side ({side}); its answer is the row's after: "
                f"{_side_text(c.after, c.kind)}. The before side is the same line on "
                f"{'the current' if changed_after else 'the changed'} configuration.")
        if c.kind == "call" and self.model.access_text.strip():
            note += f" Save the tool access lists as {ACCESS_FILE} first: "
        shown = (f'<div class="lfe-muted lfe-compare-command-note">{render.esc(note)}'
                 f'{access_link(self.model) if c.kind == "call" else ""}</div>')
        if self.model.config_rev != self.compared_rev:
            shown += render.box("note", "The configuration changed since this comparison: "
                                        "the command names today's; press Compare first.")
        return shown

    def _pin(self, index: int) -> str:
        from .scenarios import config_of

        c, (set_, unset, transport, changed_after) = self._change(index)
        config, left_out = config_of(self.model)
        if changed_after:
            config, more = changed_config(config, set_, unset, transport)
            left_out = sorted({*left_out, *more})
        name = f"after: {c.probe}"
        if c.kind == "path":
            pin_asked(self.model, name, config, path=(c.path, c.op))
        else:
            pin_asked(self.model, name, config, call=(c.tool, dict(c.arguments or {})))
        note = _pinned_note(self.model)
        if left_out:
            note += render.box("note", "Left out of the scenario (secret): "
                                       + render.esc(", ".join(left_out)))
        return note

    def refresh(self) -> None:
        if self.result is not None:
            self.status.value = render.box(
                "note", "The configuration changed since this comparison: press Compare to "
                        "run it again.")


def _side(side: dict[str, Any], kind: str) -> str:
    if kind == "call":
        if not side.get("visible"):
            return render.outcome_badge("absent")
        return render.outcome_badge(side.get("outcome") or "error")
    return render.verdict_badge(bool(side.get("allowed")), side.get("reason") or "")


def _row(change: Any) -> list[str]:
    what = render.esc(change.source)
    if change.detail:
        what += "<br>" + render.esc(change.detail)
    if change.change == "changed_message" and change.kind == "path":
        b, a = elide_common_start(change.before["message"], change.after["message"])
        what += f"<br>before: {render.esc(b)}<br>after: {render.esc(a)}"
    probe = f"<code>{render.esc(change.probe)}</code>"
    return [probe, _side(change.before, change.kind), _side(change.after, change.kind), what]


_GROUP = {"new_access": ("new access", 0), "removed_access": ("removed access", 1),
          "changed_message": ("changed message", 2)}


def _side_text(side: dict[str, Any], kind: str) -> str:
    if kind == "call":
        return "ABSENT" if not side.get("visible") else str(side.get("outcome") or "error").upper()
    if side.get("allowed"):
        return "ALLOWED"
    return f"REFUSED ({str(side.get('reason') or '').replace('_', ' ')})"


def _compare_frame(changes: Any, clean: Any) -> Any:
    import pandas as pd

    rows = []
    for i, c in enumerate(changes):
        label, rank = _GROUP.get(c.change, (c.change.replace("_", " "), 3))
        rows.append({
            "#": i + 1, "verdict": label, "kind": c.kind, "probe": clean(c.probe),
            "before": _side_text(c.before, c.kind), "after": _side_text(c.after, c.kind),
            "why asked": clean(c.source), "_rank": rank,
        })
    return pd.DataFrame(rows, columns=["#", "verdict", "kind", "probe", "before", "after",
                                       "why asked", "_rank"])
