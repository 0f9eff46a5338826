"""axe-core in a Playwright page: the violations it finds, as short lines a failed
assertion can print. The script is vendored (tests/ui/vendor/README.md) and checked
against its recorded SHA-256 first; the page's context must bypass the CSP, which
allows no script but the UI's own. The page is held still while axe reads it
(tests/ui/still.py): a poll that swapped the inbox's list mid-walk would change what it
reads."""

from __future__ import annotations

import hashlib
from pathlib import Path

from playwright.sync_api import Page

from tests.ui.still import held_still

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
AXE_SHA256 = "29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c"


def axe_violations(page: Page) -> list[str]:
    """`rule (impact): target …` for each node axe-core 4.14.1 finds in violation, with
    its default rules (WCAG 2.x A and AA, and best practices)."""
    digest = hashlib.sha256(AXE.read_bytes()).hexdigest()
    assert digest == AXE_SHA256, f"{AXE} is not the recorded axe-core: {digest}"
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    with held_still(page):
        results = page.evaluate("async () => (await axe.run(document)).violations")
    return [
        f"{violation['id']} ({violation['impact']}): {node['target']} {node['failureSummary']}"
        for violation in results
        for node in violation["nodes"]
    ]
