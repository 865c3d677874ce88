"""docs/security-client-configs.md names a test for every case it lists: each named test
exists, and every row of its masked and refused tables names one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "security-client-configs.md"
CITED = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")


def test_every_test_the_page_names_exists():
    text = DOC.read_text(encoding="utf-8")
    cited = CITED.findall(text)
    assert len(cited) >= 30
    missing = [f"{file}::{name}" for file, name in cited
               if not re.search(rf"^def {name}\(", (ROOT / file).read_text(encoding="utf-8"),
                                re.MULTILINE)]
    assert missing == []


def test_every_row_of_the_tables_names_a_test():
    rows = [line for line in DOC.read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and not line.startswith(("| ---", "| where", "| case",
                                                               "| format"))]
    assert rows and [row for row in rows if not CITED.search(row)] == []
