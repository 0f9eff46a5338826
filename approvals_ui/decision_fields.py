"""A decision's fields as the reviewer UI takes them, with one set of limits for every
way in: the decision page, the passkey challenge (which drafts the very decision that
page then posts), the batch page, an email link's page and the JSON API's bodies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from fastapi import Form

from workflows.actions import Verdict

# Longest reason a reviewer may give; the agent is told it.
REASON_CHARS = 2000
# Longest rejection category field read (the categories themselves are short words).
CATEGORY_CHARS = 64
# Longest action hash a form may carry; the service refuses any that is not a hash.
HASH_CHARS = 200

ActionHashForm = Annotated[str, Form(max_length=HASH_CHARS)]
VerdictForm = Annotated[Verdict, Form()]
ReasonForm = Annotated[str, Form(max_length=REASON_CHARS)]
CategoryForm = Annotated[str, Form(max_length=CATEGORY_CHARS)]

# The decision page's three forms: approve as it stands, reject, approve with changes.
FormKind = Literal["approve", "reject", "edit", "respond"]


@dataclass(frozen=True)
class TypedDecision:
    """What a reviewer typed in a decision form the server refused: the page shows the
    form again with it, so that a refusal never costs the reviewer their reason."""

    action_hash: str
    form: FormKind
    reason: str = ""
    category: str = ""
    edits: dict[str, str] = field(default_factory=dict)

    def reason_in(self, action_hash: str, form: FormKind) -> str:
        """The reason typed in `form` of the action `action_hash`; empty for another form."""
        return self.reason if self._is(action_hash, form) else ""

    def category_in(self, action_hash: str) -> str:
        return self.category if self._is(action_hash, "reject") else ""

    def edit_in(self, action_hash: str, name: str) -> str | None:
        """The value typed for `name` in the edit form; None where nothing was typed."""
        return self.edits.get(name) if self._is(action_hash, "edit") else None

    def _is(self, action_hash: str, form: FormKind) -> bool:
        return self.action_hash == action_hash and self.form == form
