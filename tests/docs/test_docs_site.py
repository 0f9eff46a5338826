"""The README is a door and the docs are a site: the README stays short and every link
in it leads somewhere; no page cites an internal issue number or a path outside the
repository; and `mkdocs build --strict` (which `make lint` runs) refuses a broken link."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# The README's size: a newcomer reads it in five minutes.
README_MAX_LINES = 260
# An internal issue ("issue 13", "issues 9 and 13"); a public project's issue named with
# its repository (temporalio/sdk-python issue 300) is a citation, not ours.
INTERNAL_ISSUE = re.compile(r"(?<!sdk-python )\b[Ii]ssues? #?\d+")
OUTSIDE_PATH = re.compile(r"\.\./shared|DESIGN\.md|/work/")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def pages() -> list[Path]:
    """The README, the docs, and the benchmarks' result files the docs include."""
    results = (ROOT / "bench" / "results").glob("*.md")
    return sorted([ROOT / "README.md", *DOCS.rglob("*.md"), *results])


def test_the_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES


@pytest.mark.parametrize("page", pages(), ids=lambda page: str(page.relative_to(ROOT)))
def test_no_page_cites_an_internal_issue_or_an_outside_path(page: Path) -> None:
    text = page.read_text()
    assert INTERNAL_ISSUE.findall(text) == []
    assert OUTSIDE_PATH.findall(text) == []


def test_every_relative_link_of_the_readme_leads_to_a_file() -> None:
    targets = [
        target.split("#")[0]
        for target in LINK.findall((ROOT / "README.md").read_text())
        if "://" not in target and not target.startswith("#")
    ]
    assert targets, "the README links into the docs"
    missing = [target for target in targets if not (ROOT / target).exists()]
    assert missing == []


def build(docs_root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", "site"],
        cwd=docs_root,
        capture_output=True,
        text=True,
        timeout=240,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )


@pytest.mark.slow
def test_a_broken_link_fails_the_strict_build(tmp_path: Path) -> None:
    """The site as committed builds; the same site with one link to a page that does
    not exist does not."""
    copy = tmp_path / "repository"
    copy.mkdir()
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    shutil.copytree(DOCS, copy / "docs")
    # The benchmark pages include the result files, and nothing else of bench/.
    shutil.copytree(ROOT / "bench" / "results", copy / "bench" / "results")
    built = build(copy)
    assert built.returncode == 0, built.stderr
    start = copy / "docs" / "getting-started.md"
    start.write_text(start.read_text() + "\nSee [the moon](concepts/moon.md).\n")
    broken = build(copy)
    assert broken.returncode == 1
    assert "concepts/moon.md" in broken.stderr
