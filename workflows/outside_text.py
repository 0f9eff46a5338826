"""The characters of text from outside that steer how it is shown or stored, for every
face to refuse or neutralise in one way.

Design note. A customer's name, a ticket, a model's reason or a reviewer's words are
data. Three kinds of character in them are not letters: a NUL byte, which PostgreSQL
refuses in text while SQLite keeps it (so a ticket would be stored on one backend and
not the other: every face refuses it where text enters, `nul_problem`); the C0 and C1
controls, which a terminal obeys (signoff/cli/terminal_text.py shows them as escapes);
and the bidi controls, which reverse or re-embed the text after them (the CLI escapes
them, the reviewer UI isolates data in `<bdi>` and strips them from a page's `<title>`,
which can hold no markup: `without_bidi`). Pure, with no state.
"""

from __future__ import annotations

import re

NUL = "\x00"
# C0 controls but the newline, DEL, and the C1 controls (U+0080-U+009F).
CONTROLS = "\x00-\x09\x0b-\x1f\x7f-\x9f"
# Marks and controls that set the direction of what follows: the marks LRM, RLM and ALM,
# the embeddings and overrides (U+202A-U+202E), the isolates (U+2066-U+2069).
BIDI_CONTROLS = "\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069"

BIDI = re.compile(f"[{BIDI_CONTROLS}]")


def without_bidi(text: str) -> str:
    """`text` without its bidi controls: for a place that cannot isolate it (a title)."""
    return BIDI.sub("", text)


def nul_problem(what: str, value: str) -> str | None:
    """Why `value` cannot be taken, in words naming `what` it is; None when it can."""
    if NUL not in value:
        return None
    return (
        f"The {what} holds a NUL byte (\\x00), which is not text and which no store "
        "keeps: remove it and send it again."
    )


def refuse_nul(value: str) -> str:
    """A pydantic validator: the value as it is, or a ValueError that says why not."""
    problem = nul_problem("value", value)
    if problem is not None:
        raise ValueError(problem)
    return value
