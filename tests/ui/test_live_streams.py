"""The bound on run pages followed live (approvals_ui/live_streams.py): in all and per
reviewer, each place given back once however often its stream ends."""

from __future__ import annotations

import pytest

from approvals_ui.live_streams import LiveStreams, TooManyStreams


def test_a_reviewer_past_their_bound_is_refused_and_others_are_not() -> None:
    streams = LiveStreams(limit=3, per_reviewer=2)
    streams.take("alice")
    streams.take("alice")
    with pytest.raises(TooManyStreams, match=r"one reviewer may \(2\)"):
        streams.take("alice")
    streams.take("bob")
    with pytest.raises(TooManyStreams, match="as many runs live as it may"):
        streams.take("carol")
    assert (streams.open, streams.of("alice"), streams.of("bob")) == (3, 2, 1)


def test_a_place_is_given_back_once() -> None:
    streams = LiveStreams(limit=1, per_reviewer=1)
    slot = streams.take("alice")
    slot.release()
    slot.release()  # the stream's end and the response's background task both call it
    assert streams.open == 0
    streams.take("bob")
    with pytest.raises(TooManyStreams):
        streams.take("alice")
