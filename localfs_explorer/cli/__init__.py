"""The ``localfs-explorer`` command line: the top layer, over the engine and the dashboard.

``main`` builds the parser and runs a command; ``options`` holds the environment options
every command shares and turns them into a :class:`~localfs_explorer.config.ServerConfig`;
each other module is one group of commands. Each has ``register(subparsers, env_options)``,
which adds its parsers and sets ``handler(args, out, err) -> int`` on them; ``main``
imports the modules listed in ``COMMAND_MODULES``, in this order (the order of ``--help``).
Handlers build the policy with ``options.build_policy(args)`` (or the whole configuration
with ``options.server_config(args)``) so every command reads the environment options the
same way, and may let any ``LocalfsError`` propagate: ``main`` reports it as one line with
exit status 2.

Importing this package imports none of its modules, so the engine's users pay nothing.
"""

COMMAND_MODULES: tuple[str, ...] = (
    "localfs_explorer.cli.check",
    "localfs_explorer.cli.hosts",
    "localfs_explorer.cli.tools",
    "localfs_explorer.cli.config",
    "localfs_explorer.cli.deployment",
    "localfs_explorer.cli.review",
    "localfs_explorer.cli.sessions",
    "localfs_explorer.cli.shadow",
    "localfs_explorer.cli.access",
    "localfs_explorer.cli.exposure",
    "localfs_explorer.cli.serve",
    "localfs_explorer.cli.editor",
    "localfs_explorer.cli.verify",
)
