"""A decision's fields as the reviewer UI takes them, with one set of limits for every
way in: the decision page, the passkey challenge (which drafts the very decision that
page then posts), the batch page, an email link's page and the JSON API's bodies."""

from __future__ import annotations

from typing import Annotated

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
