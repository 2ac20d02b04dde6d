"""polyfuse/options.py's knobs against docs/user-guide.md's table of environment variables."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KNOB = re.compile(r"POLYFUSE_[A-Z0-9_]+")


def _read_by_the_package() -> set[str]:
    return {name for folder in ("polyfuse", "frontend", "backends")
            for path in (ROOT / folder).rglob("*.py") for name in KNOB.findall(path.read_text())}


def _table_rows() -> set[str]:
    """The variables of the table's rows (their first cell), under *Environment variables*."""
    text = (ROOT / "docs" / "user-guide.md").read_text()
    section = text.split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    return {name for line in section.splitlines() if line.startswith("| `POLYFUSE_")
            for name in KNOB.findall(line.split("|")[1])}


def test_every_knob_has_a_row_in_the_user_guide_and_every_row_a_knob():
    read, rows = _read_by_the_package(), _table_rows()
    assert read - rows == set(), "POLYFUSE_* variables without a row in docs/user-guide.md's table"
    assert rows - read == set(), "rows of docs/user-guide.md's table that no code reads"
