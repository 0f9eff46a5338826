"""What a terminal is given to print: text from data is shown, never obeyed.

Design note. Text from outside (a ticket, the model's reason for a refund, a reviewer's
words, a customer's name) reaches the terminal inside our own lines. A control character
in it is an instruction to the terminal, not a letter: ESC opens a sequence that moves
the cursor, erases a line or sets the clipboard (OSC 52), a carriage return lets the
rest of a line overwrite its start, and a bidi override (U+202E) reverses what follows
it. Every line a command prints goes through `say` or `fail` (signoff/cli/support.py),
which pass it through `shown`, so that no command can forget it: each such character
becomes a visible escape (`\\x1b`, `\\u202e`).

`shown` keeps the newline, since our own lines are joined by it and a long text (a
run's answer) is printed as a block. Where a value sits inside one line (a table cell,
a reason after its label), `one_line` escapes its line breaks too, so that a value
cannot print a row of its own. JSON output (`emit_json`) keeps its values: JSON escapes
the C0 controls itself, and `in_json` writes what an encoder may leave raw (the C1 and
bidi controls: pydantic's does) as JSON's own `\\uXXXX`, which reads back the same.
"""

from __future__ import annotations

import re

from workflows.outside_text import BIDI_CONTROLS, CONTROLS

# Breaks a line as a newline does, for a value that must stay on its line.
LINE_BREAKS = "\n\u2028\u2029"

STEERING = re.compile(f"[{CONTROLS}{BIDI_CONTROLS}]")
STEERING_OR_BREAK = re.compile(f"[{CONTROLS}{BIDI_CONTROLS}{LINE_BREAKS}]")

# The escapes a reader knows by sight; any other is written by its code point.
NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
LAST_BYTE = 0xFF


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    named = NAMED_ESCAPES.get(character)
    if named is not None:
        return named
    code = ord(character)
    return f"\\x{code:02x}" if code <= LAST_BYTE else f"\\u{code:04x}"


def shown(text: str) -> str:
    """`text` with every control and bidi character as a visible escape, newlines kept."""
    return STEERING.sub(_escape, text)


def in_json(text: str) -> str:
    """A JSON document with every control and bidi character in its strings written as
    a `\\uXXXX` escape: the same document to a parser, inert to a terminal."""
    return STEERING.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def one_line(value: object) -> str:
    """A value as it sits inside one line: as `shown`, and its line breaks escaped too."""
    return STEERING_OR_BREAK.sub(_escape, str(value))
