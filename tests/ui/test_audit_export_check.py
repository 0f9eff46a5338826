"""An export of the audit can be checked away from the database: the CSV and
`GET /api/audit` carry each row's seq, prev_hash, row_hash and the exact text its hash
covers, and the docs' script (run here exactly as docs/operating/audit.md prints it,
with the standard library alone) says the chain holds, and names the row of a tampered export."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.conftest import fresh_demo_store
from tests.ui.test_api_offline import client_for
from tests.ui.test_audit_reads import BOB, FORMULA, trail_event

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "verify_audit_export.py"
DOCS_BLOCK = re.compile(r"<!-- verify_audit_export.py -->\n```python\n(.*?)```", re.S)


@pytest.fixture
def proxied(tmp_path: Path, demo_store_template: Path) -> Iterator[TestClient]:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    for sequence in range(1, 5):
        trail_event(engine, "demo", sequence, "bob", FORMULA if sequence == 2 else "no photo")
    trail_event(engine, "globex", 1, "carol", "not ours to see")
    engine.dispose()
    with client_for(tmp_path, auth="proxy") as client:
        yield client


@pytest.fixture
def script(tmp_path: Path) -> Path:
    """The script as the docs print it; the file in scripts/ is the same text."""
    [text] = DOCS_BLOCK.findall((ROOT / "docs" / "operating" / "audit.md").read_text())
    assert text == SCRIPT.read_text()
    copy = tmp_path / "verify_audit_export.py"
    copy.write_text(text)
    return copy


def check(script: Path, export: Path, *head: str) -> subprocess.CompletedProcess[str]:
    # -I -S: no site-packages, no environment: the standard library alone.
    command = [sys.executable, "-I", "-S", str(script), str(export), *head]
    return subprocess.run(command, capture_output=True, text=True, check=False)


def with_reason(hashed_fields: str, reason: str) -> str:
    """The hashed text with another reason, in the same compact form."""
    fields = json.loads(hashed_fields)
    fields["reason"] = reason
    edited = json.dumps(fields, separators=(",", ":"), ensure_ascii=False)
    assert edited != hashed_fields
    return edited


def write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)


def test_the_csv_checks_out_and_a_tampered_one_does_not(
    proxied: TestClient, script: Path, tmp_path: Path
) -> None:
    exported = proxied.get("/audit.csv", headers=BOB)
    export = tmp_path / "audit-demo.csv"
    export.write_bytes(exported.content)
    good = check(script, export)
    assert good.returncode == 0, good.stderr
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    head = max(rows, key=lambda row: int(row["seq"]))["row_hash"]
    assert good.stdout == f"chain intact: 4 rows; head seq 4, row_hash {head}\n"
    # The readable columns show what the hashed text holds (a formula cell quoted).
    second = next(row for row in rows if row["seq"] == "2")
    assert json.loads(second["hashed_fields"])["reason"] == FORMULA
    assert second["reason"] == "'" + FORMULA

    second["hashed_fields"] = with_reason(second["hashed_fields"], "approved by phone")
    write_csv(export, rows)
    tampered = check(script, export)
    assert tampered.returncode == 1
    assert tampered.stderr == "chain broken: seq 2: the row's fields do not match its row_hash\n"


def test_a_rehashed_export_fails_against_a_saved_head(
    proxied: TestClient, script: Path, tmp_path: Path
) -> None:
    rows = list(csv.DictReader(io.StringIO(proxied.get("/audit.csv", headers=BOB).text)))
    rows.sort(key=lambda row: int(row["seq"]))
    saved_head = rows[-1]["row_hash"]
    prev = "0" * 64
    for row in rows:  # the attacker edits seq 2 and rehashes every row from there
        if row["seq"] == "2":
            row["hashed_fields"] = with_reason(row["hashed_fields"], "approved by phone")
        row["prev_hash"] = prev
        row["row_hash"] = hashlib.sha256((prev + "\n" + row["hashed_fields"]).encode()).hexdigest()
        prev = row["row_hash"]
    export = tmp_path / "rehashed.csv"
    write_csv(export, rows)
    assert check(script, export).returncode == 0  # consistent in itself
    against = check(script, export, saved_head)
    assert against.returncode == 1
    assert f"the saved head {saved_head} is not in the chain" in against.stderr


def test_the_json_api_checks_out_and_a_missing_row_is_named(
    proxied: TestClient, script: Path, tmp_path: Path
) -> None:
    body = proxied.get("/api/audit?limit=200", headers=BOB).json()
    newest = body["items"][0]
    assert json.loads(newest["hashed_fields"])["reason"] == newest["reason"]
    assert body["items"][-1]["prev_hash"] == "0" * 64
    export = tmp_path / "audit-demo.json"
    export.write_text(json.dumps(body))
    good = check(script, export)
    assert good.returncode == 0, good.stderr
    assert good.stdout.startswith("chain intact: 4 rows; head seq 4")

    body["items"] = [item for item in body["items"] if item["seq"] != 3]
    export.write_text(json.dumps(body))
    gap = check(script, export)
    assert gap.returncode == 1 and "seq 3 is missing" in gap.stderr
