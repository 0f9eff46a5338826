"""Every module of the product is at most 400 lines: a file does one thing.

The product is what ships (`activities`, `approvals_ui`, `evals`, `signoff`, `workflows`);
the migrations are generated history, not modules one reads to change, and the tests and
benchmarks are not the product."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("activities", "approvals_ui", "evals", "signoff", "workflows")
LIMIT = 400


def oversized(root: Path, packages: tuple[str, ...], limit: int) -> dict[str, int]:
    """Each Python module under `packages` longer than `limit` lines, with its length."""
    found: dict[str, int] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > limit:
                found[str(path.relative_to(root))] = lines
    return found


def test_oversized_finds_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "short.py").write_text("x = 1\n" * 3)
    (tmp_path / "pkg" / "long.py").write_text("x = 1\n" * 5)
    assert oversized(tmp_path, ("pkg",), 4) == {"pkg/long.py": 5}


def test_every_product_module_is_at_most_400_lines() -> None:
    assert oversized(ROOT, PRODUCT, LIMIT) == {}, (
        "Split these modules so that each does one thing (docs/development/index.md)"
    )
