"""What ``serve`` hands the dashboard's kernel: two environment variables and a file.

``serve`` (the command line, the top layer) starts Voila; the kernel behind the page
runs the dashboard (``ui/``, a layer below). Neither imports the other for this: both
read the names here, which import nothing from the package.
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["ANY_OUTPUT_NAME_ENV", "HOST_FS_ENV", "PRELOAD_ENV", "load_preload"]

#: Environment variable read by the kernel: "0" turns off probing this machine.
HOST_FS_ENV = "LOCALFS_EXPLORER_HOST_FS"
#: Environment variable naming a JSON file with the configuration to preload.
PRELOAD_ENV = "LOCALFS_EXPLORER_PRELOAD"
#: Environment variable read by the kernel: "1" lets the page write any file name.
ANY_OUTPUT_NAME_ENV = "LOCALFS_EXPLORER_ANY_OUTPUT_NAME"


def load_preload() -> dict[str, Any]:
    """The model options ``serve`` left for the kernel ({} when there are none)."""
    name = os.environ.get(PRELOAD_ENV)
    if not name:
        return {}
    try:
        with open(name, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    if "overrides" in data:
        data["overrides"] = [tuple(kv) for kv in data["overrides"]]
    return data
