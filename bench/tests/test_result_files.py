"""The result files the benches write for the docs: header, what was run, the table
(bench/common/result_file.py, and the store's and the inbox's writers), from figures
given here (no run, no timing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.cli.report import CliSetup, write_cli
from bench.common.paths import ROOT
from bench.common.result_file import command_line, markdown_table
from bench.inbox.report import write_inbox
from bench.store.report import StoreSetup, write_store


def test_the_store_file_opens_with_the_machine_and_what_was_run_then_its_table(
    tmp_path: Path,
) -> None:
    path = tmp_path / "STORE.md"
    results = {"pending, first page (time left)": (3.04, 9.2), "audit, last page": (2.0, 120.0)}

    text = write_store(
        results, StoreSetup(10_000, 1_000, 100_000, 50, 8.4), path, argv=["--rounds", "50"]
    )

    assert path.read_text(encoding="utf-8") == text
    lines = text.splitlines()
    assert lines[0] == "# The read model and the audit at scale: pages from the store"
    assert lines[2].startswith("Written by `python -m bench.store` (`make bench-store`)")
    assert lines[4].startswith("- date: ")
    assert lines[5].startswith("- machine: ")
    assert lines[6].startswith("- Python ")
    assert lines[7] == "- run: `python -m bench.store --rounds 50`"
    assert "10,000 waiting actions of demo (and 1,000 of globex)" in lines[8]
    table = lines[lines.index("| what | p50 (ms) | p95 (ms) | p95 ≤ 100 ms |") :][:4]
    assert table[2] == "| pending, first page (time left) | 3.0 | 9.2 | met |"
    assert table[3] == "| audit, last page | 2.0 | 120.0 | MISSED |"


def test_the_inbox_file_gives_each_size_and_how_the_p50_grows(tmp_path: Path) -> None:
    results = {
        "route": {10: (17.4, 23.7), 1000: (22.62, 33.0)},
        "template": {10: (0.5, 0.7), 1000: (50.0, 246.4)},
    }

    text = write_inbox(results, 200, tmp_path / "INBOX.md", argv=[])

    assert "- run: `python -m bench.inbox`" in text
    assert (
        "| what | 10 pending, p50 / p95 (ms) | 1,000 pending, p50 / p95 (ms) "
        "| p50, 1,000 against 10 |" in text
    )
    assert "| `GET /approvals`, first page of 50 | 17.40 / 23.70 | 22.62 / 33.00 | 1.3× |" in text
    assert (
        "| all rows in one render (the template alone) | 0.50 / 0.70 | 50.00 / 246.40 | 100.0× |"
        in text
    )


def test_a_path_inside_the_repository_is_written_relative_to_it() -> None:
    line = command_line("bench.cli", ["--signoff", str(ROOT / ".venv" / "bin" / "signoff")])

    assert line == "python -m bench.cli --signoff .venv/bin/signoff"


def test_a_row_of_the_wrong_width_is_refused() -> None:
    with pytest.raises(ValueError, match="every row needs 2 cells"):
        markdown_table(["what", "p50"], [["one"]])


def test_the_cli_file_judges_each_command_with_a_target_at_p50(tmp_path: Path) -> None:
    results = {
        "python -c pass (the interpreter alone)": (0.02, 0.03, 0.018),
        "signoff pending": (0.25, 0.41, 0.18),
        "signoff status RUN": (0.31, 0.56, 0.19),
    }
    targets = {"signoff pending": 0.3, "signoff status RUN": 0.3}
    setup = CliSetup(20, 41, 10_041, str(ROOT / ".venv" / "bin" / "signoff"))

    text = write_cli(results, targets, setup, tmp_path / "CLI.md", argv=["--rounds", "20"])

    assert "- run: `python -m bench.cli --rounds 20`" in text
    assert "10,041 requests waiting (41 live runs" in text
    assert "`signoff` timed: `.venv/bin/signoff`" in text
    assert "| python -c pass (the interpreter alone) | 0.020 | 0.030 | 0.018 |  |" in text
    assert "| signoff pending | 0.250 | 0.410 | 0.180 | met (0.3 s) |" in text
    assert "| signoff status RUN | 0.310 | 0.560 | 0.190 | missed (0.3 s) |" in text
