"""Edit, then approve: the action a reviewer's changes make, and what the model is told.

Design note. A reviewer may change only the arguments the tool's policy lists as
`editable` (the action carries them). The edited action is a new action: the same call,
targets, reason and state, the edited arguments, and `supersedes` = the proposed
action's hash, so its own hash (`recomputed_hash`) covers the edit and names the
original. The decision is signed over that hash; an approval of the original is over
another hash and never authorizes the edit, at the gate or at the effect. The argument
that holds the action's money (its exposure's `amount_argument`, whatever its name:
`workflows/exposure.py`) may only go down, never above what the agent proposed nor
above what remains refundable; the edited action's exposure says the new amount. The
decision service computes the same action to sign its hash, and the gate computes it
again from the signed edits: one function, so they agree.

Pure: the workflow, the decision service and the tests share it.
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation

from workflows.actions import PendingAction
from workflows.approval_policy import DecisionRefused, money, recomputed_hash, to_minor
from workflows.exposure import ActionExposure
from workflows.mcp_tools import split_offered_name
from workflows.tool_catalog import REFUND
from workflows.wording import CENTS, N_, Money, Wording, worded

# Longest text a reviewer may put in place of the agent's.
EDITED_TEXT_CHARS = 4000
# An example amount, as the refusal of an amount that is not one shows how to write it.
EXAMPLE_AMOUNT = Money(5000)


def not_an_amount(typed: str) -> Wording:
    """What the reviewer typed is no amount. Shared with the faces that read amounts
    themselves (approvals_ui/amount_input.py), which write the example in their page's
    language."""
    return worded(
        N_("'%(typed)s' is not an amount: write it like %(example)s."),
        typed=typed,
        example=EXAMPLE_AMOUNT,
    )


def not_to_the_cent(typed: str) -> Wording:
    return worded(N_("'%(typed)s' is not an amount with at most two decimals."), typed=typed)


def edited_action(
    original: PendingAction, edits: dict[str, str], *, editor: str, run_id: str
) -> PendingAction:
    """The action `editor` approves in place of `original`; DecisionRefused says why not."""
    if original.edited_by is not None:
        raise DecisionRefused(
            worded(
                N_(
                    "This request was already edited by %(editor)s; approve or reject it as "
                    "it stands."
                ),
                editor=original.edited_by,
            )
        )
    if not edits:
        raise DecisionRefused(
            worded(N_("No argument was changed: approve the request as it stands."))
        )
    arguments = dict(original.arguments)
    exposure = original.exposure
    for name, value in sorted(edits.items()):
        if name not in original.editable or name not in original.arguments:
            allowed = ", ".join(original.editable) or "nothing"
            raise DecisionRefused(
                worded(
                    N_(
                        "'%(name)s' cannot be edited on %(tool)s; its policy lets a reviewer "
                        "edit: %(allowed)s."
                    ),
                    name=name,
                    tool=original.tool,
                    allowed=allowed,
                )
            )
        if exposure is not None and name == exposure.amount_argument:
            lowered = _lowered_amount(original, exposure, value)
            exposure = exposure.with_amount(lowered)
            arguments[name] = _as_written(original, name, lowered)
        else:
            text = _text(name, value)
            arguments[name] = _json_text(text) if _is_mcp(original) else text
    if arguments == original.arguments:
        raise DecisionRefused(
            worded(
                N_("The edit changes nothing: approve the request as it stands, or change a value.")
            )
        )
    unhashed = original.model_copy(
        update={
            "action_hash": "",
            "arguments": arguments,
            "exposure": exposure,
            "supersedes": original.action_hash,
            "approvals": [],
            "editable": [],
            "edited_by": editor,
            "proposed": dict(original.arguments),
            "note": edit_note(original, arguments, editor),
        }
    )
    return unhashed.model_copy(update={"action_hash": recomputed_hash(unhashed, run_id)})


def _is_mcp(action: PendingAction) -> bool:
    """An MCP tool's arguments are each JSON (`mcp_tools.shown_arguments`): an edit is
    written as JSON too, or the effect could not read it back."""
    return split_offered_name(action.tool) is not None


def _json_text(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _as_written(original: PendingAction, name: str, amount: str) -> str:
    """The lowered amount written as the agent's was: an MCP tool's JSON string stays a
    string (`"15.00"`) and a number a number; a Python tool's text stays text."""
    proposed = original.arguments[name]
    return _json_text(amount) if _is_mcp(original) and proposed.startswith('"') else amount


def _lowered_amount(original: PendingAction, exposure: ActionExposure, value: str) -> str:
    currency = exposure.currency
    try:
        amount = Decimal(value.strip())
    except InvalidOperation:
        raise DecisionRefused(not_an_amount(value)) from None
    if not amount.is_finite() or amount != amount.quantize(CENTS):
        raise DecisionRefused(not_to_the_cent(value))
    minor = to_minor(amount)
    proposed = exposure.amount_minor
    if minor <= 0:
        raise DecisionRefused(
            worded(N_("The amount must be greater than zero; to refund nothing, reject."))
        )
    if minor > proposed:
        raise DecisionRefused(
            worded(
                N_(
                    "%(amount)s is above the %(proposed)s proposed: an edit may only lower "
                    "the amount."
                ),
                amount=Money(minor, currency),
                proposed=Money(proposed, currency),
            )
        )
    refundable = original.state.refundable_minor
    if original.state.order_id is not None and minor > refundable:
        raise DecisionRefused(
            worded(
                N_(
                    "%(amount)s is more than what remains refundable on order %(order)s "
                    "(%(refundable)s)."
                ),
                amount=Money(minor, currency),
                order=original.state.order_id,
                refundable=Money(refundable, currency),
            )
        )
    return money(minor)


def _text(name: str, value: str) -> str:
    text = value.strip()
    if not text:
        raise DecisionRefused(
            worded(N_("The edited %(name)s is empty: write it, or reject the request."), name=name)
        )
    if len(text) > EDITED_TEXT_CHARS:
        raise DecisionRefused(
            worded(
                N_("The edited %(name)s is longer than %(most)s characters."),
                name=name,
                most=EDITED_TEXT_CHARS,
            )
        )
    return text


def _scalar_text(text: str) -> str:
    """A JSON string argument's content (an MCP tool's), any other text as it is."""
    return json.loads(text) if text.startswith('"') else text


def changed(action: PendingAction) -> list[str]:
    """The arguments an edited action changed, by name; none for a proposed action."""
    proposed = action.proposed or {}
    return [
        name for name in sorted(action.arguments) if proposed.get(name) != action.arguments[name]
    ]


def edit_note(original: PendingAction, arguments: dict[str, str], editor: str) -> str:
    """What the next reviewer reads on the edited action."""
    parts = []
    for name in sorted(arguments):
        if arguments[name] == original.arguments.get(name):
            continue
        exposure = original.exposure
        if exposure is not None and name == exposure.amount_argument:
            parts.append(f"amount {exposure.amount} → {_scalar_text(arguments[name])}")
        else:
            parts.append(f"{name} rewritten")
    return f"Edited by {editor} before approval: {', '.join(parts)}."


def edit_summary(action: PendingAction) -> str:
    """What the reviewer's edit did, for the model: `refunded 50.00 EUR of the 89.90
    EUR proposed`."""
    proposed = action.proposed or {}
    exposure = action.exposure
    if exposure is not None and exposure.amount_argument in changed(action):
        currency = exposure.currency
        before = _scalar_text(proposed[exposure.amount_argument])
        done = "refunded" if action.tool == REFUND.name else f"{action.tool} was carried out for"
        return f"{done} {exposure.amount} {currency} of the {before} {currency} proposed"
    names = ", ".join(changed(action))
    return f"{action.tool} was carried out with the reviewer's {names} in place of yours"
