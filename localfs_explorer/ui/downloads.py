"""What the page may hand the browser as a download of the prepared ``.env``."""

from __future__ import annotations

from typing import Any

from ..secrets import is_secret_key, secret_values


def env_download(model: Any) -> tuple[bytes | None, str]:
    """The exported ``.env`` as the page may hand it to the browser, and a note.

    Where this machine's files are reachable the page is the operator's own, and the
    file is handed over whole. Otherwise no secret value leaves the kernel: secret
    overrides are not written into the download (secret settings stay as they are
    in the source), and when the source is the operator's file holding secrets
    there is no download at all. The note says which.
    """
    model.recompute()
    plan = model.export_plan
    if plan is None or not plan.ok:
        return None, "Nothing to download: the export is blocked."
    if model.host_access:
        return plan.text.encode("utf-8"), ""
    from ..envfile.export import ExportError, export_env

    # Here the page can't read this machine's files: only an uploaded or handed-over
    # .env can be the source.
    text = model.env_text
    source = (model.env_name or "uploaded .env") if text is not None else None
    if text is not None and model.env_from_operator:
        held = secret_values(dict(_raw_pairs(text)))
        if held:
            return None, ("No download: the .env this page was started with holds secret "
                          "values, which a page served to other machines doesn't hand "
                          "out. Upload your own .env to export it.")
    kept = [k for k, _ in model.overrides if k and is_secret_key(k)]
    try:
        public = export_env(
            source, text=text,
            set={k: v for k, v in model.overrides if k and not is_secret_key(k)},
            unset=[k for k in model.unset if k and not is_secret_key(k)],
            validate=lambda _env: plan.policy,
        )
    except ExportError as exc:
        return None, f"No download: {model.clean(str(exc))}"
    note = ("Secret settings are left as they are in the source file"
            + (f" (the overrides of {', '.join(sorted(kept))} are not written into it)"
               if kept else "") + ".")
    return public.text.encode("utf-8"), note


def _raw_pairs(text: str) -> list[tuple[str, str]]:
    """``(key, value)`` of every binding in ``.env`` text, lines that don't parse skipped."""
    from ..envfile.load import parse_env_text

    pairs, _warnings = parse_env_text(text, strict=False)
    return [(k, v) for k, v in pairs if v is not None]
