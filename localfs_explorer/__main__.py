"""``python -m localfs_explorer`` is the ``localfs-explorer`` command."""

from .cli.main import main

raise SystemExit(main())
