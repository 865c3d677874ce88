"""The real server's tool functions, run in-process against fake Google services.

Used by the conformance tests only: the server (``mcp-gee-sweet``) is a test dependency,
never a runtime one. Nothing here talks to a network: every Google API request is
answered by :class:`FakeGoogle` from data the test controls (Drive folder listings, file
metadata), and the server's own local-file policy is replaced by one built from the
explorer's resolved policy, so both judge the same configuration.

Each call records every path the server's policy checked (operation and verdict, by
wrapping the policy's single check function and delegating to it) and classifies the
call's outcome the way the probe does: ``error`` (the server's argument validation or
the tool's own error), ``refused`` (a refusal ended the call), ``partial`` (a refusal
failed an item, the call went on) or ``ok``.
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

FOLDER_MIME = "application/vnd.google-apps.folder"
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
_VERBS = {"read": "read", "written": "write", "read or written": "read_write"}


def _load_server() -> Any:
    """Import the server with a neutral command line, once."""
    argv = sys.argv
    sys.argv = ["mcp-gee-sweet"]
    try:
        from mcp_gee_sweet import server
    finally:
        sys.argv = argv
    return server


@dataclass
class Drive:
    """The Drive side: folder id -> children (name, folder?), file id -> name."""

    children: dict[str, list[tuple[str, bool]]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)

    def listing(self, folder_id: str) -> list[dict[str, Any]]:
        out = []
        for i, (name, is_folder) in enumerate(self.children.get(folder_id, [])):
            fid = f"{folder_id}/{i}"
            out.append({
                "id": fid, "name": name,
                "mimeType": FOLDER_MIME if is_folder else "application/octet-stream",
                "modifiedTime": "2000-01-01T00:00:00Z", "size": "3",
            })
        return out


class _Request:
    """One API method call: ``execute()`` answers it from the fake."""

    def __init__(self, fake: FakeGoogle, path: tuple[str, ...], kwargs: dict[str, Any]):
        self.fake, self.path, self.kwargs = fake, path, kwargs
        self.http = None

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        return self.fake.answer(self.path, self.kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Method(self.fake, (*self.path, name))


class _Method:
    def __init__(self, fake: FakeGoogle, path: tuple[str, ...]):
        self.fake, self.path = fake, path

    def __call__(self, *args: Any, **kwargs: Any) -> _Request:
        return _Request(self.fake, self.path, kwargs)


class FakeGoogle:
    """Every Google service at once: ``service.files().list(q=...).execute()`` and the
    like are answered by :meth:`answer` from the method's name and arguments."""

    def __init__(self, drive: Drive):
        self.drive = drive
        self._http = SimpleNamespace(credentials=SimpleNamespace(token="t", valid=True))
        self.created = 0

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Method(self, (name,))

    def answer(self, path: tuple[str, ...], kw: dict[str, Any]) -> Any:
        method = path[-1]
        where = "/".join(path)
        if where == "files/list":
            folder = kw.get("q", "").split("'")[1]
            return {"files": self.drive.listing(folder)}
        if where == "files/get":
            fid = kw.get("fileId", "")
            return {"id": fid, "name": self.drive.names.get(fid, "file.bin"),
                    "mimeType": "application/octet-stream", "parents": ["P"],
                    "webContentLink": "https://x", "permissionIds": [], "size": "3"}
        if where in ("files/create", "files/update", "files/copy"):
            self.created += 1
            return {"id": f"new{self.created}", "name": (kw.get("body") or {}).get("name", "n"),
                    "parents": ["P"], "webViewLink": "https://x", "webContentLink": "https://x",
                    "permissionIds": [], "mimeType": "application/octet-stream"}
        if where == "revisions/get":
            return {"exportLinks": {DOCX_MIME: "https://x/export"}, "modifiedTime": "t"}
        if path[:2] == ("users", "messages") or path[:2] == ("users", "threads"):
            msg = {"id": "m1", "threadId": "t1", "labelIds": [], "snippet": "",
                   "payload": {"mimeType": "text/plain", "headers": [],
                               "body": {"data": base64.urlsafe_b64encode(b"hi").decode()}}}
            if path[1] == "threads":
                return {"id": "t1", "messages": [msg]}
            return msg
        if path[:2] == ("users", "drafts"):
            return {"id": "d1", "message": {"id": "m1", "threadId": "t1"}}
        if where == "documents/get":
            return {"documentId": kw.get("documentId", "D"), "title": "T",
                    "body": {"content": [{"startIndex": 1, "endIndex": 4, "paragraph": {
                        "elements": [{"startIndex": 1, "endIndex": 4,
                                      "textRun": {"content": "MK\n"}}]}}]},
                    "revisionId": "r"}
        if where == "documents/create":
            return {"documentId": "D", "title": "T"}
        if method == "batchUpdate":
            return {"replies": [], "documentId": "D"}
        if path[:1] == ("spreadsheets",):
            if method == "batchGet":
                ranges = kw.get("ranges") or []
                return {"valueRanges": [{"range": r, "values": [["a"]]} for r in ranges]}
            if where == "spreadsheets/create":
                return {"spreadsheetId": "S", "properties": {"title": "T"},
                        "sheets": [{"properties": {"sheetId": 0, "title": "Sheet1"}}],
                        "spreadsheetUrl": "https://x"}
            return {"spreadsheetId": "S", "properties": {"title": "T"},
                    "sheets": [{"properties": {"sheetId": 0, "title": "Sheet1",
                                               "gridProperties": {"rowCount": 1,
                                                                  "columnCount": 1}}}],
                    "values": [["a"]], "valueRanges": [{"range": "A1", "values": [["a"]]}],
                    "updatedRows": 1}
        if method == "list":
            return {}
        return {"id": "x"}


@dataclass
class Run:
    """What the server did with one call."""

    outcome: str
    message: str
    checks: list[tuple[str, str, bool]]
    detail: str = ""


class ServerHarness:
    """The server's tool functions with a swapped-in policy and fake Google services."""

    def __init__(self) -> None:
        self.server = _load_server()
        from mcp_gee_sweet import local_files
        from mcp_gee_sweet.tools import register_all

        self.local_files = local_files
        self.functions: dict[str, Any] = {}

        def tool(annotations: Any = None, *, local_only: bool = False) -> Any:
            def decorator(func: Any) -> Any:
                self.functions[func.__name__] = func
                return func
            return decorator

        register_all(tool)
        self.checks: list[tuple[str, str, bool]] = []
        self._real_check = local_files._check

    def arg_model(self, name: str) -> Any:
        """The server's own validation model for the tool's arguments (extra forbidden)."""
        from mcp.server.mcpserver.utilities.func_metadata import func_metadata

        model = func_metadata(self.functions[name], skip_names=["ctx"]).arg_model
        model.model_config["extra"] = "forbid"
        model.model_rebuild(force=True)
        return model

    def use_policy(self, policy: Any) -> Any:
        """The server's policy object for the explorer's resolved ``policy``."""
        lf = self.local_files
        roots = tuple((r.configured, r.resolved) for r in policy.roots if r.resolved)
        return lf.Policy(
            lf.LocalFileAccess(policy.mode.value), bool(policy.explicit), policy.transport,
            roots, tuple(e.resolved for e in policy.deny_list), None,
            tuple(d.resolved for d in policy.deny_dirs),
        )

    def run(self, monkeypatch: Any, policy: Any, name: str, arguments: dict[str, Any],
            drive: Drive, models: dict[str, Any], local_only: bool = False) -> Run:
        lf = self.local_files
        monkeypatch.setattr(lf, "POLICY", self.use_policy(policy))
        monkeypatch.chdir(policy.cwd)
        checks: list[tuple[str, str, bool]] = []
        real = self._real_check

        def recording(path: Any, verb: str) -> Any:
            shown = os.fspath(path)
            try:
                result = real(path, verb)
            except lf.LocalFileAccessError:
                checks.append((shown, _VERBS[verb], False))
                raise
            checks.append((shown, _VERBS[verb], True))
            return result

        monkeypatch.setattr(lf, "_check", recording)
        from pydantic import ValidationError

        if local_only and not lf.registers_local_only_tools():
            return Run("absent", "", checks)
        if name not in models:
            models[name] = self.arg_model(name)
        try:
            validated = models[name].model_validate(arguments)
        except ValidationError as exc:
            return Run("error", str(exc).splitlines()[0], checks)
        kwargs = validated.model_dump_one_level()
        fake = FakeGoogle(drive)
        from mcp_gee_sweet.auth import SpreadsheetContext
        from mcp_gee_sweet.tools.docs import markdown_export

        async def exported(*args: Any, **kwargs: Any) -> dict[str, Any]:
            return {"markdown": "# revision\n"}

        # The Doc revision export is a chain of Docs and Drive requests; its result is
        # all that matters here.
        monkeypatch.setattr(markdown_export, "export_doc_revision_markdown", exported)
        from mcp_gee_sweet.tools.drive import transfer

        def download(service: Any, file_id: str, dest: Any, mtime: Any = None) -> None:
            transfer._write_atomically(dest, lambda fh: fh.write(b"abc"), mtime)

        monkeypatch.setattr(transfer, "_download_media", download)
        lc = SpreadsheetContext(fake, fake, fake, fake, fake, fake, folder_id=None)
        ctx = SimpleNamespace(request_context=SimpleNamespace(lifespan_context=lc,
                                                              request=None),
                              report_progress=_no_progress)
        try:
            result = asyncio.run(self.functions[name](**kwargs, ctx=ctx))
        except lf.LocalFileAccessError as exc:
            return Run("refused", str(exc), checks)
        except Exception as exc:  # the tool's own error
            return Run("error", str(exc), checks, detail=type(exc).__name__)
        refusals = [(p, op) for p, op, ok in checks if not ok]
        if isinstance(result, dict) and "error" in result:
            text = str(result["error"])
            messages = {self._message(p, op) for p, op in refusals}
            if text in messages:
                return Run("refused", text, checks)
            return Run("error", text, checks)
        return Run("partial" if refusals else "ok", "", checks, detail=repr(result)[:300])

    def _message(self, path: str, op: str) -> str:
        verb = {"read": "read", "write": "written", "read_write": "read or written"}[op]
        try:
            self._real_check(path, verb)
        except self.local_files.LocalFileAccessError as exc:
            return str(exc)
        return ""


async def _no_progress(*args: Any, **kwargs: Any) -> None:
    return None
