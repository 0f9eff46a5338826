"""A rejection's category, and what the model is told for each.

Design note. Without a structured reason a model tends to retry the identical call. So
a rejection names a category, and the tool result says that the action did not
happen, the category, the reviewer's words, and whether the agent may propose
something else. `suspected_fraud` ends the run (a named outcome): the agent does not
argue with it. An expired request is not a rejection: it is told as "no decision in
time" (`gate_results.py`).

Pure: the workflow and every face (for the labels) share it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import get_args

from workflows.actions import RejectCategory

CATEGORIES: tuple[RejectCategory, ...] = get_args(RejectCategory)
FRAUD: RejectCategory = "suspected_fraud"

LABELS: Mapping[RejectCategory, str] = MappingProxyType(
    {
        "wrong_amount": "wrong amount",
        "not_eligible": "not eligible",
        "needs_more_information": "needs more information",
        "suspected_fraud": "suspected fraud",
        "other": "other",
    }
)

# Whether the agent may propose something else, and how, in the model's words.
NEXT_STEP: Mapping[RejectCategory, str] = MappingProxyType(
    {
        "wrong_amount": "You may propose it again with a different amount, if the order and "
        "the ticket support one.",
        "not_eligible": "Do not propose it again in any form; tell the customer it cannot be "
        "done and why.",
        "needs_more_information": "You may ask the customer for what is missing, and propose "
        "again once you have it.",
        "suspected_fraud": "The run ends here; you may not propose anything else.",
        "other": "Do not retry the same call; you may propose another way.",
    }
)

# May the agent propose something else after this category?
MAY_PROPOSE: Mapping[RejectCategory, bool] = MappingProxyType(
    {
        "wrong_amount": True,
        "not_eligible": False,
        "needs_more_information": True,
        "suspected_fraud": False,
        "other": True,
    }
)


def category_problem(value: str) -> str | None:
    """Why `value` is not a category, in words a reviewer can act on; or None."""
    if value in CATEGORIES:
        return None
    return f"Unknown category '{value}'; choose one of: {', '.join(CATEGORIES)}."


def labelled(category: RejectCategory | None, reason: str) -> str:
    """A rejection's reason with its category, for the audit: `wrong amount: too much`."""
    return reason if category is None else f"{LABELS[category]}: {reason}"
