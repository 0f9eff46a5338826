"""The security model's page (docs/operating/security-model.md) backs each claim with a
test: every `tests/...py::test_name` it cites names a test that exists, so a claim
cannot outlive the test that proved it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "operating" / "security-model.md"
CITED = re.compile(r"`(tests/[\w/]+\.py)::(test_\w+)`")


def test_every_claim_cites_a_test_that_exists() -> None:
    cited = CITED.findall(PAGE.read_text())
    assert len(cited) >= 25, "the page lost its claims"
    missing = [
        f"{path}::{name}"
        for path, name in cited
        if not (ROOT / path).exists()
        or not re.search(rf"^(async )?def {name}\(", (ROOT / path).read_text(), re.M)
    ]
    assert missing == [], f"the security model cites tests that do not exist: {missing}"


def test_every_table_row_of_claims_names_a_test() -> None:
    rows = [
        line
        for line in PAGE.read_text().splitlines()
        if line.startswith("| ") and not line.startswith(("| claim", "| who", "| ---", "| **"))
    ]
    assert rows and all(CITED.search(row) for row in rows), [
        row for row in rows if not CITED.search(row)
    ]
