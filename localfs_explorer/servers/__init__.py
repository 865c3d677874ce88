"""One package per server the explorer answers for, each behind :mod:`localfs_explorer.server`.

Nothing here is imported by the shared machinery directly: the registry in
:mod:`localfs_explorer.server` loads a server's package when it is first asked for.
"""
