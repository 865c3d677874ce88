"""A stand-in for a running toy server: it reports the folder it was started with.

    python -m toy_server.standin DIR
"""

from __future__ import annotations

import json
import os
import sys

if __name__ == "__main__":
    folder = sys.argv[1] if len(sys.argv) > 1 else "/nowhere"
    print(json.dumps({"allowed": os.path.realpath(folder)}))
