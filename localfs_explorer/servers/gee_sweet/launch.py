"""How mcp-gee-sweet reads its own command line (what a client entry's arguments say)."""

from __future__ import annotations

from collections.abc import Sequence

from ...server import LaunchArgs

__all__ = ["read_args"]


def read_args(args: Sequence[str]) -> LaunchArgs:
    """The transport and tool list ``args`` (the words after the program) select.

    The server takes its transport as the value after the last ``--transport`` word
    (``local_files.cli_transport``, 0.9.5): ``--transport=sse`` is not that word, so it
    stays on stdio. Its ``--include-tools`` (the first one, as its argument parser keeps)
    wins over ``ENABLED_TOOLS``.
    """
    args = list(args)
    transport: str | None = None
    notes: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--transport" and i + 1 < len(args):
            transport = args[i + 1]
        if arg.startswith("--transport="):
            notes.append(f"{arg!r}: mcp-gee-sweet reads '--transport VALUE' as two words "
                         "only, so this one leaves it on stdio")
    env: dict[str, str] = {}
    for i, arg in enumerate(args):
        if arg == "--include-tools" and i + 1 < len(args):
            if args[i + 1]:
                env["ENABLED_TOOLS"] = args[i + 1]
            break
    if "auth" in [a for i, a in enumerate(args)
                  if i == 0 or args[i - 1] not in ("--transport", "--include-tools")]:
        notes.append("the arguments run 'mcp-gee-sweet auth' (the OAuth consent flow), "
                     "not the server")
    return LaunchArgs(transport=transport, env=env,
                      env_from={"ENABLED_TOOLS": "--include-tools"} if env else {},
                      notes=tuple(notes))
