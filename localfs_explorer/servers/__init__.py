"""One folder per server the explorer ships, each behind :mod:`localfs_explorer.server`.

Nothing outside a server's folder imports it: the registry in
:mod:`localfs_explorer.server` finds each through the ``localfs_explorer.servers``
entry-point group and loads its package when it is first asked for.
"""
