"""The Explorer model's parts about where settings come from and go.

:class:`EntryTraits` holds a client-config entry in use ("Use this entry": its file, its
settings as the file gives them, the write-back planned from the edits) and what a share
link could not carry (the secrets it named only, the rest in words). The functions
compute them for the model, as :mod:`.hangar_model` does for the hangar route: the
write-back is exactly ``export-env --client-config FILE --entry NAME --in-place``; and a
value the policy bar set is credited to the bar, not to a ``.env`` line.
"""

from __future__ import annotations

from typing import Any

from traitlets import Any as AnyTrait
from traitlets import Dict, HasTraits, List, Unicode

from ..secrets import hide_everywhere
from .inputs import ExplorerError


class EntryTraits(HasTraits):
    """The client-config entry and share-link inputs and results of the one model."""

    #: The config's path on this machine ("" for an upload), its name and its text.
    client_config_path = Unicode("")
    client_config_name = Unicode("")
    client_config_text = Unicode(None, allow_none=True)
    #: The entry in use ("" for none) and its settings as the file gives them: the
    #: process environment's rows that differ from these are what a write-back writes.
    client_entry = Unicode("")
    entry_settings: Dict[str, Any] = Dict()
    #: The write-back of the edited entry (``deployments.writeback.WriteBackPlan``).
    writeback_plan = AnyTrait(None, allow_none=True)
    writeback_error = Unicode("")
    #: Secret settings a share link named only: a placeholder stands in until filled in.
    link_secrets: List[Any] = List()
    #: Other parts of the sender's configuration the link could not carry, in words.
    link_missing: List[Any] = List()


def real_secrets(model: Any, values: set[str]) -> set[str]:
    """``values`` without the placeholders standing in for secrets a share link named
    only: they are no secret, and masking them would mangle every command."""
    from .share import secret_placeholder

    return values - {secret_placeholder(k) for k in model.link_secrets}


def fill_link_secret(model: Any, key: str, value: str) -> None:
    """Put the real value of a secret setting a share link named only (where the sender's
    page had it: the ``.env`` or the process environment)."""
    if key not in model.link_secrets:
        raise ExplorerError(f"{key} is not a setting the link left to fill in")
    if not value:
        raise ExplorerError(f"type {key}'s value first")
    hide_everywhere({value})
    with model.hold():
        if key in model.file_edits:
            model.set_file_value(key, value)
        else:
            model.set_override(key, value)
        model.link_secrets = [k for k in model.link_secrets if k != key]


def entry_changes(model: Any) -> tuple[dict[str, str], list[str]]:
    """(set, unset) of the entry in use: the edits a write-back writes into it."""
    now = {k: v for k, v in model.overrides if k}
    before = model.entry_settings
    changed = {k: v for k, v in now.items() if before.get(k) != v
               and "${input:" not in before.get(k, "")}  # a prompt's answer stays out
    removed = [k for k in before if k not in now or k in model.unset]
    return changed, removed


def edited_keys(model: Any) -> set[str]:
    """The keys whose value the policy bar set (or took out) rather than the file."""
    return {k for k in model.file_edits if k}


def set_entry_value(model: Any, key: str, value: str | None) -> None:
    """Edit ``key`` in the environment of the entry in use (None takes it out)."""
    rows = [(k, v) for k, v in model.overrides if k != key]
    model.overrides = rows if value is None else [*rows, (key, str(value))]


def entry_destinations(model: Any) -> list[tuple[str, str]]:
    """Each pending change of the entry in use as (key, where it goes)."""
    changed, removed = entry_changes(model)
    where = f"{model.client_config_name} entry {model.client_entry!r} (write back)"
    return [(k, where) for k in changed] + [(k, f"{where}: taken out") for k in removed]


def credit_edits_to_bar(model: Any, env: Any, policy: Any) -> tuple[Any, Any]:
    """``env`` and ``policy`` with no ``.env`` line credited for a value the policy bar
    set: the edits are written into the text the server is given, but a trace saying
    "at .env line 3" would send the reader to a line that doesn't hold it."""
    edited = edited_keys(model)
    lines = getattr(env, "lines", None)
    if not edited or not lines or not edited & set(lines):
        return env, policy
    env = env.model_copy(update={"lines": {k: n for k, n in lines.items()
                                           if k not in edited}})
    if getattr(policy, "env", None) is not None and hasattr(policy, "model_copy"):
        policy = policy.model_copy(update={"env": env})
    return env, policy


def compute_writeback(model: Any) -> None:
    """The write-back plan of the entry in use, as ``export-env --client-config``."""
    model.writeback_plan, model.writeback_error = None, ""
    if not model.client_entry:
        return
    from ..deployments import DeploymentError
    from ..deployments.writeback import plan_write_back

    changed, removed = entry_changes(model)
    try:
        model.writeback_plan = plan_write_back(
            model.client_config_path or model.client_config_name, model.client_entry,
            set=changed, unset=removed,
            text=None if model.client_config_path else model.client_config_text,
            environ=None if model.host_access else {}, read_files=model.host_access,
            config_changes=_validation(model))
    except (DeploymentError, ValueError, OSError) as exc:
        model.writeback_error = model.clean(str(exc))


def _validation(model: Any) -> dict[str, Any]:
    """What informs the write-back's validation, as ``export-env``'s options do."""
    from .share import EXAMPLE_PREFIX

    changes: dict[str, Any] = {"transport": model.transport, "platform": model.platform,
                               "lenient": model.lenient}
    for name in ("cwd", "package_dir"):
        if getattr(model, name).strip():
            changes[name] = getattr(model, name).strip()
    if model.target.startswith(EXAMPLE_PREFIX):
        changes["host"] = model.target[len(EXAMPLE_PREFIX):]
    return changes


def write_back(model: Any) -> list[str]:
    """Write the edited entry back into its client config, in place (a backup kept),
    exactly as ``export-env --client-config FILE --entry NAME --in-place`` does."""
    if not model.host_access:
        raise ExplorerError(
            "writing files on the serving machine is off for a page served to other "
            "machines (serve --allow-host-fs turns it on); use the download link")
    model.recompute()
    if not model.client_config_path:
        raise ExplorerError("the client config was uploaded: download the new file")
    plan = model.writeback_plan
    if plan is None:
        raise ExplorerError(model.writeback_error or "no client-config entry in use")
    from ..deployments import DeploymentError

    changed, removed = entry_changes(model)
    try:
        done = plan.write(in_place=True)
    except DeploymentError as exc:
        raise ExplorerError(model.clean(str(exc))) from None
    with model.hold():  # what is in the file now is what later edits are changes to
        base = {**model.entry_settings, **changed}
        model.entry_settings = {k: v for k, v in base.items() if k not in removed}
        model.client_config_text = plan.text
        model.export_done = plan.path
    compute_writeback(model)
    model.config_rev += 1  # the views show the new plan: nothing left to write
    return list(done)
