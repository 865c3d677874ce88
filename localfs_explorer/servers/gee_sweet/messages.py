"""The exact texts mcp-gee-sweet gives the model when it refuses a local path.

Worded as the server words them (its 0.9.5 release): a test compares each with the real
server's own refusals, so a change here is a change in what the model is told. The
off-mode texts are all here, with the one rule that picks among them
(:func:`off_message`). Imports nothing, so the check can use it from below the policy.
"""

from __future__ import annotations

# mirrors mcp-gee-sweet 0.9.5 local_files._off_message: off says why it is off (invalid setting,
# explicit off, unset on an HTTP transport) so the model can tell the operator
#: ``LOCAL_FILE_ACCESS=off`` given explicitly.
OFF_EXPLICIT = "local file access is disabled on this server (LOCAL_FILE_ACCESS=off)"
#: ``LOCAL_FILE_ACCESS`` unset on an HTTP transport, where unset means off.
OFF_DEFAULTED = (
    "local file access is disabled on this server: LOCAL_FILE_ACCESS is unset, "
    "which means off for the {transport} transport"
)
#: An invalid setting, which the server falls back to off for, naming the first error.
OFF_INVALID = "local file access is disabled on this server: {error}"
# mirrors mcp-gee-sweet 0.9.5 local_files._check: the caller's spelling and the roots as
# LOCAL_FILE_ROOTS spells them, not their realpaths, so both read as their authors wrote them
OUTSIDE_ROOTS = (
    "{path} is outside this server's LOCAL_FILE_ROOTS. Allowed directories: {roots}"
)
# mirrors mcp-gee-sweet 0.9.5 local_files._check: the same text whichever entry matched
DENIED = (
    "{path} is one of this server's own credential, config, cache, or log files "
    "and can't be {verb} by a tool"
)
#: How :data:`DENIED` names the operation refused.
DENY_VERBS = {"read": "read", "write": "written", "read_write": "read or written"}
# mirrors mcp-gee-sweet 0.9.5 local_files._check: the refusal when _tripped holds
#: A defaulted ``full`` mode refuses every request that arrived over HTTP.
TRIPWIRE = (
    "local file access is disabled for HTTP requests unless LOCAL_FILE_ACCESS is set "
    "explicitly"
)
# mirrors mcp-gee-sweet 0.9.5 local_files._check: a path realpath raises on (a NUL byte, a lone
# surrogate), as repr() shows it, and the error's own text
UNUSABLE = "{path} isn't a usable local path: {error}"
# Not a string at all: the server's tools only ever pass strings, so no server text exists.
INVALID_TYPE = "{path} is not a valid local path: expected a string"


def off_message(errors: list[str] | tuple[str, ...], explicit: bool, transport: str) -> str:
    """The refusal of off mode: why it is off (an invalid setting, an explicit off, or
    unset on an HTTP transport), in the server's words."""
    if errors:
        return OFF_INVALID.format(error=errors[0])
    if explicit:
        return OFF_EXPLICIT
    return OFF_DEFAULTED.format(transport=transport)
