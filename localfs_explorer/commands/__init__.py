"""Sub-commands beyond check and validate, one module each.

Each module has ``register(subparsers, env_options)``, which adds its parsers and sets
``handler(args, out, err) -> int`` on them; ``cli.py`` imports the modules listed in
``COMMAND_MODULES``. Handlers build the policy with ``cli.build_policy(args)`` (or the
whole configuration with ``cli.server_config(args)``) so every command reads the
environment options the same way, and may let any ``LocalfsError`` propagate: ``cli.main``
reports it as one line with exit status 2.
"""

COMMAND_MODULES: tuple[str, ...] = (
    "localfs_explorer.commands.hosts",
    "localfs_explorer.commands.tools",
    "localfs_explorer.commands.config",
    "localfs_explorer.commands.review",
    "localfs_explorer.commands.sessions",
    "localfs_explorer.commands.exposure",
    "localfs_explorer.serve",
    "localfs_explorer.commands.editor",
    "localfs_explorer.commands.verify",
)
