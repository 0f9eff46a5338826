"""What `signoff approve` changes before approving: the edits its options name.

An edit names the argument it changes, as the tool's policy lists it in `editable`
and as `signoff pending` shows it: `--set value=10` for a team's voucher, `--set
note="..."` for an MCP tool. `--amount` and `--text` are the built-in tools' own
(the refund's `amount`, `send_reply`'s `text`). The workflow has the last word on what
may change (workflows/action_edits.py); this module only reads what was typed, and says
what is wrong with it before anything is sent.
"""

from __future__ import annotations

from signoff.cli.support import fail


def edits_of(amount: str | None, text: str | None, settings: list[str]) -> dict[str, str]:
    """The arguments to change, by name; exits with a clear error for a `--set` that is
    not NAME=VALUE, an empty value, or an argument named twice."""
    edits: dict[str, str] = {}
    typed: list[tuple[str, str | None]] = [("amount", amount), ("text", text)]
    for setting in settings:
        name, equals, given = setting.partition("=")
        if not equals or not name.strip():
            fail(
                f"--set takes NAME=VALUE, the argument's name as `signoff pending` shows it "
                f"({setting!r} given), e.g. --set value=10."
            )
        typed.append((name.strip(), given))
    for name, value in typed:
        if value is None:
            continue
        if not value.strip():
            fail(f"An edit needs a value: give the new {name}, e.g. --set {name}=...")
        if name in edits:
            fail(f"'{name}' is changed twice: give each argument once.")
        edits[name] = value
    return edits
