"""The Scenarios panel: load a scenario file, run it, and save what is on screen as one.

Running goes through :func:`localfs_explorer.review.scenarios.run_scenario_text`, the same
runner as ``localfs-explorer test``, so a scenario passes here exactly when it passes in
CI. On a page served to other machines, a scenario that reads this machine (its
filesystem, or a ``.env`` on it) is refused with a message instead of being run.

Saving pins today's answers: the Explorer's configuration plus the paths in the Paths tab
and the call in the Tool call tab, each expecting the verdict shown now
(:func:`localfs_explorer.review.scenarios.pin_scenario`). Secret settings are left out of the
saved file; they are never written anywhere the page can show.
"""

from __future__ import annotations

import os
from typing import Any

import ipywidgets as widgets

from ...review.scenarios import (
    ConfigSpec,
    Coverage,
    ScenarioError,
    ScenarioFile,
    dump_scenario_file,
    pin_scenario,
    run_scenario_text,
)
from ...secrets import is_secret_key
from ...server import DEFAULT_SERVER
from ...userfiles import read_text
from .. import render
from ..panel import Panel, button, css, heading, html, layout, wide

#: Paths from the Paths tab pinned into one saved scenario.
MAX_PINNED_PATHS = 500
#: Rows shown in the results table (failures first).
MAX_ROWS = 300


def shipped_example() -> tuple[str, str]:
    """(name, TOML text) of the shipped spec-000 scenarios, or ("", "") if not installed."""
    from importlib import resources

    try:
        data = resources.files("localfs_explorer").joinpath("data/scenarios/spec-000.toml")
        return "spec-000.toml", data.read_text(encoding="utf-8")
    except OSError:
        return "", ""


def config_of(m: Any) -> tuple[ConfigSpec, list[str]]:
    """The Explorer's configuration as a scenario config, and the secret keys left out."""
    from ..inputs import content_json

    left_out: list[str] = []
    settings: dict[str, str] = {}
    config: dict[str, Any] = {"transport": m.transport}
    if m.server and m.server != DEFAULT_SERVER:
        # Another server's own settings (the filesystem server's directories and roots).
        config["server"] = m.server
        config["options"] = {k: list(v) if isinstance(v, tuple) else v
                             for k, v in m.server_options.items() if v is not None}
    if m.server_version:
        config["server_version"] = m.server_version
    if m.env_text is not None and m.env is not None:
        # An uploaded .env has no path to point at: its settings go in inline.
        settings.update(m.env.values)
    elif m.env_path:
        config["env"] = os.path.abspath(os.path.expanduser(m.env_path))
    # The .env being prepared: the policy bar's edits, then the process environment.
    settings.update({k: v for k, v in m.file_edits.items() if k and v is not None})
    settings.update({k: v for k, v in m.overrides if k})
    for key in list(settings):
        if is_secret_key(key):
            del settings[key]
            left_out.append(key)
    if settings:
        config["settings"] = settings
    unset = [k for k, v in m.file_edits.items() if k and v is None and k not in settings]
    unset += [k for k in m.unset if k]
    if unset:
        config["unset"] = unset
    if m.target == "host":
        config["host"] = "host"
    elif m.target.startswith("example:"):
        config["host"] = m.target[len("example:"):]
    elif m.target == "upload" and m.spec_text:
        config["host"] = content_json(m.spec_text, m.spec_name or "uploaded host")
    cwd = m.cwd.strip() or (m.host_cwd if m.target == "host" else "")
    if cwd:
        config["cwd"] = cwd
    if m.package_dir.strip():
        config["package_dir"] = m.package_dir.strip()
    if m.platform != "posix":
        config["platform"] = m.platform
    over_http = {"auto": None, "yes": True, "no": False}[m.over_http]
    if over_http is not None:
        config["over_http"] = over_http
    if m.access_text.strip():
        config["access"] = content_json(m.access_text, "tool access lists")
    return ConfigSpec.model_validate(config), sorted(set(left_out))


def pinned_scenarios_toml(model: Any) -> str:
    """Every row pinned in ``model`` as one scenario file (secrets masked)."""
    from ...review.scenarios import ScenarioFile, dump_scenario_file

    text = dump_scenario_file(ScenarioFile(title="pinned from localfs-explorer",
                                           scenario=list(model.pinned)))
    return model.clean(text)


class ScenariosPanel(Panel):
    """Run scenario TOML; pin the current configuration and probes as a new scenario."""

    name = "scenarios"
    title = "Scenarios"
    watches = ("config_rev", "paths_rev", "tool_rev")

    def build(self) -> list[widgets.Widget]:
        m = self.model
        self.result: Any = None
        self.coverage_counts = Coverage()
        self.source_name = "pasted scenarios"
        self.base_dir = ""
        self.upload = css(widgets.FileUpload(description="Upload TOML", multiple=False,
                                             accept=".toml",
                                             layout=widgets.Layout(width="160px")),
                          "lfe-scenarios-upload")
        self.path = css(widgets.Text(description="or a file",
                                     placeholder="scenarios/spec-000.toml",
                                     continuous_update=False,
                                     style={"description_width": "70px"},
                                     layout=widgets.Layout(width="50%")), "lfe-scenarios-path")
        self.load = css(widgets.Button(description="Load",
                                       layout=widgets.Layout(width="90px")),
                        "lfe-scenarios-load")
        self.path.disabled = self.load.disabled = not m.host_access
        self.example = css(widgets.Button(description="spec 000",
                                          tooltip="the shipped scenarios of the design",
                                          layout=widgets.Layout(width="110px")),
                           "lfe-scenarios-example")
        self.text = css(widgets.Textarea(placeholder="[[scenario]]\nname = \"...\"\n...",
                                         tooltip="scenarios to run (TOML)",
                                         layout=wide(height="220px")), "lfe-scenarios-text")
        self.run = css(widgets.Button(description="▶ Run", button_style="primary",
                                      layout=widgets.Layout(width="90px")),
                       "lfe-scenarios-run")
        self.status = html("lfe-scenarios-status")
        self.summary = html("lfe-scenarios-summary")
        self.results = html("lfe-scenarios-results")
        self.coverage = html("lfe-scenarios-coverage")
        self.save_name = css(widgets.Text(value="pinned from the Explorer",
                                          description="name",
                                          style={"description_width": "50px"},
                                          layout=widgets.Layout(width="50%")),
                             "lfe-scenarios-save-name")
        self.save = css(widgets.Button(description="Save as scenario",
                                       layout=widgets.Layout(width="160px")),
                        "lfe-scenarios-save")
        self.save_note = html("lfe-scenarios-save-note")
        self.saved = css(widgets.Textarea(layout=wide(height="180px"),
                                          tooltip="the saved scenario (TOML)"),
                         "lfe-scenarios-saved")
        self.saved_link = html("lfe-scenarios-saved-link")
        self.on_change(self.upload, lambda _v: self._uploaded())
        self.on_click(self.load, lambda: self.load_path(self.path.value))
        self.on_click(self.example, self.load_example)
        self.on_click(self.run, self.run_text)
        # Rows pinned from a grid (Paths, Batch, Compare, Session) are listed here too, and
        # go into the editor to run, edit or save like any scenario file.
        self.pinned = html("lfe-scenarios-pinned")
        self.pinned_load = button("Put the pinned rows in the editor",
                                  "lfe-scenarios-pinned-load", layout=layout(width="270px"))
        self.on_click(self.pinned_load, self.load_pinned)
        m.observe(m.guarded(lambda _c: self._show_pinned(), where="scenarios panel"),
                  names="pinned")
        self._show_pinned()
        self.on_click(self.save, self.save_current)
        intro = html("", (
            '<div class="lfe-muted">A scenario file holds a configuration and the verdicts '
            "it must give; <code>localfs-explorer test</code> runs the same files in CI. "
            "Edit the text and press Run.</div>"))
        return [
            intro,
            widgets.HBox([self.upload, self.path, self.load, self.example], layout=wide()),
            heading("Pinned from the grids"), self.pinned, self.pinned_load,
            self.text, self.run, self.status, self.summary, self.results, self.coverage,
            heading("Save what is on screen as a scenario"),
            html("", '<div class="lfe-muted">The configuration above the tabs, the paths of '
                     "the Paths tab and the call of the Tool call tab, each expecting "
                     "today's verdict.</div>"),
            widgets.HBox([self.save_name, self.save], layout=wide()),
            self.save_note, self.saved, self.saved_link,
        ]

    # ---- pinned rows

    def _show_pinned(self) -> None:
        pinned = self.model.pinned
        self.pinned_load.disabled = not pinned
        if not pinned:
            self.pinned.value = ('<div class="lfe-muted">None yet: "Pin as scenario" under a '
                                 "grid row adds one.</div>")
            return
        items = "".join(f"<li>{render.esc(self.model.clean(p.name))}</li>" for p in pinned)
        self.pinned.value = f'<ul class="lfe-pinned-list">{items}</ul>'

    def load_pinned(self) -> None:
        """Put every pinned row, as one scenario file, in the editor."""
        if self.model.pinned:
            self.set_text("pinned rows", pinned_scenarios_toml(self.model))

    # ---- loading and running

    def _uploaded(self) -> None:
        got = self.upload_contents(self.upload)
        if got is not None:
            name, data = got
            self.set_text(name or "uploaded scenarios", data.decode("utf-8", errors="replace"),
                          base_dir="")

    def set_text(self, name: str, text: str, base_dir: str = "") -> None:
        """Show ``text`` as the scenarios to run (``base_dir``: where relative names point)."""
        self.source_name, self.base_dir = name, base_dir
        self.text.value = text
        self.status.value = (f'<div class="lfe-muted">Loaded <code>{render.esc(name)}</code>.'
                             "</div>")

    def load_path(self, path: str) -> None:
        """Load a scenario file from the kernel's machine."""
        if not self.model.host_access:
            self.status.value = render.box(
                "error", "reading files on the serving machine is off for this page; "
                         "upload the scenario file instead")
            return
        path = os.path.expanduser(path.strip())
        try:
            text = read_text(path, ScenarioError)
        except ScenarioError as exc:
            self.status.value = render.box("error", render.esc(str(exc)))
            return
        self.set_text(path, text, base_dir=os.path.dirname(os.path.abspath(path)))

    def load_example(self) -> None:
        """Load the shipped spec-000 scenarios (they use described hosts only)."""
        name, text = shipped_example()
        if not text:
            self.status.value = render.box("warning", "the shipped scenarios are not "
                                                      "installed with this copy")
            return
        self.set_text(name, text)

    def run_text(self) -> None:
        """Run the scenarios in the text box and show the results."""
        m = self.model
        base = self.base_dir or (m.host_cwd or os.getcwd() if m.host_access else "/")
        self.coverage_counts = Coverage()
        self.result = run_scenario_text(self.text.value, name=self.source_name,
                                        base_dir=base, allow_this_machine=m.host_access,
                                        coverage=self.coverage_counts)
        self.show_result()

    def show_result(self) -> None:
        """Render :attr:`result` (summary, table of expectations, coverage)."""
        from ...review.scenarios import RunResult

        result = self.result
        if result is None:
            return
        if result.error:
            self.status.value = render.box("error", render.pre(self.model.clean(result.error)))
            self.summary.value = self.results.value = self.coverage.value = ""
            return
        run = RunResult(files=[result])
        problems = [s for s in result.scenarios if s.error]
        self.status.value = "".join(
            render.box("error", render.esc(self.model.clean(
                f"scenario {s.name!r}: {s.error}")))
            for s in problems)
        kind = "ok" if run.failed == 0 and not problems else "error"
        self.summary.value = render.box(kind, f"<b>{render.esc(run.summary)}</b>")
        self.results.value = _cases_table(result.cases)
        cov = self.coverage_counts
        missed = ", ".join(f"{c} {r}" for c, r in cov.missed()) or "none"
        self.coverage.value = (
            f'<div class="lfe-muted">coverage: {cov.exercised}/{cov.total} rules exercised; '
            f"not exercised: {render.esc(missed)}</div>")

    # ---- saving

    def current_config(self) -> tuple[ConfigSpec, list[str]]:
        """The Explorer's configuration as a scenario config, and the secret keys left out."""
        return config_of(self.model)

    def save_current(self) -> None:
        """Pin the on-screen configuration and verdicts as scenario TOML (text and link)."""
        from ..forms import parse_arguments

        m = self.model
        m.recompute()
        if m.policy is None:
            self.save_note.value = render.box(
                "error", render.esc(m.config_error or "no configuration to save"))
            return
        try:
            config, left_out = self.current_config()
        except (ValueError, ScenarioError) as exc:
            self.save_note.value = render.box("error", render.esc(m.clean(str(exc))))
            return
        calls = []
        if m.call_verdict is not None:
            calls.append((m.tool_name, parse_arguments(m.tool_args_text), m.call_verdict))
        decisions = list(m.decisions[:MAX_PINNED_PATHS])
        name = self.save_name.value.strip() or "pinned from the Explorer"
        scenario = pin_scenario(name, config, decisions=decisions, calls=calls,
                                policy=m.policy, registration=m.registration)
        try:
            text = dump_scenario_file(ScenarioFile(
                title="saved from localfs-explorer", scenario=[scenario]))
        except ScenarioError as exc:
            self.save_note.value = render.box("error", render.esc(m.clean(str(exc))))
            return
        text = m.clean(text)
        self.saved.value = text
        note = (f"Pinned {len(decisions)} path(s) and {len(calls)} call(s).")
        if left_out:
            note += (" Left out (secret, never written): " + ", ".join(left_out)
                     + "; set them in the scenario's env file if the verdicts depend on them.")
        self.save_note.value = render.box("ok", render.esc(note))
        self.saved_link.value = render.download_link(
            text.encode("utf-8"), "scenario.toml", "application/toml",
            "⬇ Download scenario.toml", "lfe-scenarios-saved-download")

    def refresh(self) -> None:
        m = self.model
        if m.policy is None:
            self.save.disabled = True
            return
        self.save.disabled = False


def _cases_table(cases: list[Any]) -> str:
    ordered = sorted(cases, key=lambda c: c.passed)  # failures first, stable otherwise
    rows = []
    for c in ordered[:MAX_ROWS]:
        if c.passed:
            verdict = render.badge("ok", "✔ PASSED")
            detail = ""
        else:
            verdict = render.badge("refused" if not c.error else "error",
                                   "✘ FAILED" if not c.error else "⚠ ERROR")
            lines = [c.error] if c.error else [m.describe() for m in c.mismatches]
            detail = "<br>".join(render.esc(line) for line in lines)
            if c.trace:
                detail += ("<details><summary>trace</summary>"
                           + render.pre("\n".join(c.trace)) + "</details>")
        rows.append([verdict, render.esc(c.scenario), render.esc(c.name),
                     render.esc(c.line or ""), detail])
    return render.table(["result", "scenario", "expectation", "line", "expected vs actual"],
                        rows, css_class="lfe-scenarios-cases", total=len(cases))
