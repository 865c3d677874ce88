"""``python -m localfs_explorer`` is the ``localfs-explorer`` command."""

from .cli import main

raise SystemExit(main())
