"""Text from data never steers the terminal: a refund reason that a hostile ticket got
the model to write, with escape sequences that move the cursor up, erase the line with
the amount and set the clipboard (OSC 52), comes out of `signoff pending` and `signoff
audit list` as visible escapes, on a real SQLite store. `signoff status` with a
reviewer's hostile reject reason is tried on the dev stack (tests/ui/test_hostile_text.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel
from sqlalchemy import Engine, text
from typer.testing import CliRunner

from activities.store import make_engine, seed_demo, write_transaction
from activities.store.waiting_actions import put_waiting
from signoff.cli.terminal_text import in_json, one_line, shown
from signoff.config.settings import get_settings
from signoff.wiring.app import app
from tests.clock import clock_now
from tests.store.test_waiting_actions import an_action

# Up a line, erase it, write a smaller amount, then ask the terminal to set the clipboard.
HOSTILE = (
    "Parcel lost.\x1b[1A\x1b[2Krefund 1.00 EUR\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGU=\x07"
    "\rapproved\x9b2J\u202eRUE 00.1"
)
VISIBLE = (
    "Parcel lost.\\x1b[1A\\x1b[2Krefund 1.00 EUR\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGU=\\x07"
    "\\rapproved\\x9b2J\\u202eRUE 00.1"
)


def assert_inert(output: str) -> None:
    """No character that a terminal obeys is left in what was printed."""
    for character in ("\x1b", "\x07", "\r", "\x9b", "\u202e"):
        assert character not in output, repr(character)


def test_shown_escapes_controls_and_bidi_and_keeps_our_newlines() -> None:
    assert shown(HOSTILE) == VISIBLE
    assert shown("line one\nline two\ttab\x00") == "line one\nline two\\ttab\\x00"
    assert shown("Zoë, 12,00 €, 東京") == "Zoë, 12,00 €, 東京"
    for mark in "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069":
        assert shown(mark) == f"\\u{ord(mark):04x}"


def test_one_line_keeps_a_value_on_its_line() -> None:
    forged = "ok\nrun-demo-x  refund 1.00 EUR\u2028more"
    assert one_line(forged) == "ok\\nrun-demo-x  refund 1.00 EUR\\u2028more"


def test_json_keeps_its_values_and_leaves_nothing_a_terminal_obeys() -> None:
    class Row(BaseModel):
        reason: str

    row = Row(reason=HOSTILE + "\u0085\u2066")
    # pydantic leaves the C1 and bidi controls raw; JSON's own escapes read back the same.
    raw = row.model_dump_json(indent=2)
    assert "\u202e" in raw and "\x9b" in raw
    written = in_json(raw)
    assert_inert(written)
    assert "\x85" not in written and "\u2066" not in written
    assert Row.model_validate_json(written) == row


def test_pending_shows_a_hostile_refund_reason_as_visible_escapes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    get_settings.cache_clear()
    engine = make_engine(get_settings().resolved_database_url)
    seed_demo(engine)
    # The store tests' action on order C-3107, with the hostile reason.
    action = an_action(engine, "e" * 64, 4990).model_copy(
        update={"reason": HOSTILE + "\nrun-demo-forged  refund 1.00 EUR"}
    )
    now = clock_now()
    with engine.begin() as connection:
        put_waiting(connection, "demo", "run-demo-hostile", "T-3107", action, now)
    engine.dispose()

    listed = CliRunner().invoke(app, ["pending", "--tenant", "demo"])
    assert listed.exit_code == 0, listed.output
    assert_inert(listed.output)
    assert f"  reason: {VISIBLE}\\nrun-demo-forged  refund 1.00 EUR" in listed.stdout
    assert "refund 49.90 EUR on order" in listed.stdout
    # JSON keeps the value: it escapes control characters itself.
    document = json.loads(CliRunner().invoke(app, ["pending", "--json"]).stdout)
    assert document["items"][0]["reason"] == action.reason
    get_settings.cache_clear()


def test_audit_list_shows_a_hostile_reason_as_visible_escapes(audited_store: Engine) -> None:
    with write_transaction(audited_store) as session:
        session.execute(text("UPDATE decisions SET reason = :reason"), {"reason": HOSTILE})
    listed = CliRunner().invoke(app, ["audit", "list", "--tenant", "demo"])
    assert listed.exit_code == 0, listed.output
    assert_inert(listed.output)
    assert listed.stdout.count(VISIBLE) == 2


def test_an_error_that_repeats_a_hostile_value_shows_it_as_visible_escapes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIGNOFF_HOME", str(tmp_path))
    get_settings.cache_clear()
    refused = CliRunner().invoke(app, ["pending", "--tenant", "demo\x1b]52;c;eA==\x07"])
    assert refused.exit_code == 2
    assert_inert(refused.stderr)
    assert "Invalid tenant 'demo\\x1b]52;c;eA==\\x07'." in refused.stderr
    get_settings.cache_clear()
