"""docs/cli.md is what scripts/cli_reference.py writes from the commands themselves, so
the CLI reference cannot drift from the CLI: a changed option, help line or command
fails here until the page is written again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "cli_reference.py"


def check(*page: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--check", *map(str, page)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_committed_reference_is_what_the_commands_say() -> None:
    result = check()
    assert result.returncode == 0, result.stderr


def test_a_stale_page_fails_and_says_which_script_to_run(tmp_path: Path) -> None:
    committed = (ROOT / "docs" / "cli.md").read_text()
    stale = tmp_path / "cli.md"
    stale.write_text(committed.replace("Show this message and exit.", "Show this message.", 1))
    result = check(stale)
    assert result.returncode == 1
    assert "run `.venv/bin/python scripts/cli_reference.py`" in result.stderr
    exact = tmp_path / "exact.md"
    exact.write_text(committed)
    assert check(exact).returncode == 0


def test_every_command_has_a_section() -> None:
    from typer import _click
    from typer.main import get_command

    from signoff.wiring.app import app

    group = get_command(app)
    names = group.list_commands(_click.Context(group, info_name="signoff"))
    page = (ROOT / "docs" / "cli.md").read_text()
    assert names and all(f"### `signoff {name}`" in page for name in names)
