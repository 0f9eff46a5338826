"""The approval insight's charts, drawn on the server as SVG (no script): each tool's
and reviewer's outcomes as one stacked bar, and the waits as bars (p50 inside p95).

Geometry only: the template draws a bar per row in a `viewBox` 100 units wide, so it
fills any width (375 px or 1280 px) and needs no text inside the SVG; the names and
numbers sit beside it in HTML, where they wrap and keep their size, and the tables below
hold every figure. Colours are told apart by the legend's words as well as by hue.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from approvals_ui.words import N_
from signoff.service.approval_insight import Tally

WIDTH = 100  # the viewBox's width: a bar's units are percent of the row
# (key, words, fill): high-contrast hues on white, in the order the bar stacks them.
OUTCOMES = (
    ("approved", N_("approved"), "#1a7f37"),
    ("edited", N_("edited"), "#0550ae"),
    ("rejected", N_("rejected"), "#cf222e"),
    ("expired", N_("expired"), "#57606a"),
    ("by_rule", N_("approved by a standing rule"), "#8250df"),
)
MEDIAN_FILL = "#0550ae"
TAIL_FILL = "#9cc3f5"


@dataclass(frozen=True)
class Segment:
    key: str
    words: str
    fill: str
    count: int
    x: float
    width: float


@dataclass(frozen=True)
class WaitBar:
    name: str
    p50_ms: int
    p95_ms: int
    p50_width: float
    p95_width: float


def outcome_counts(tally: Tally) -> dict[str, int]:
    return {
        "approved": tally.approved,
        "edited": tally.edited,
        "rejected": tally.rejected_total,
        "expired": tally.expired,
        "by_rule": tally.by_rule,
    }


def outcome_segments(tally: Tally) -> list[Segment]:
    """The tally's outcomes as parts of one bar, in the legend's order; none for none."""
    counts = outcome_counts(tally)
    whole = sum(counts.values())
    segments: list[Segment] = []
    x = 0.0
    for key, words, fill in OUTCOMES:
        if whole == 0 or counts[key] == 0:
            continue
        width = WIDTH * counts[key] / whole
        segments.append(Segment(key, words, fill, counts[key], round(x, 3), round(width, 3)))
        x += width
    return segments


def wait_bars(tallies: Sequence[Tally]) -> list[WaitBar]:
    """The tallies with waits, each bar's length a share of the longest p95."""
    timed = [tally for tally in tallies if tally.p50_ms is not None and tally.p95_ms is not None]
    longest = max((tally.p95_ms or 0 for tally in timed), default=0) or 1
    return [
        WaitBar(
            tally.name,
            tally.p50_ms or 0,
            tally.p95_ms or 0,
            round(WIDTH * (tally.p50_ms or 0) / longest, 3),
            round(WIDTH * (tally.p95_ms or 0) / longest, 3),
        )
        for tally in timed
    ]
