"""The store checked against chain heads saved earlier (`signoff audit verify
--expect-heads`).

Design note. A head is (tenant, seq, row hash): the newest row of a tenant's chain when
it was exported. The chain alone cannot show a rewrite whose author rehashed every row
after the one changed, nor the removal of the newest rows; a head saved before either
can. For each saved head, three things must still hold, checked in this order so that
the sentence names the plainest cause: the row with that seq exists; its row hash is
the saved one; and the chain up to it recomputes (every row from 1 to seq links to the
one before it and matches its own hash). Rows appended after the head was saved are not
its concern: a newer head covers them.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, select

from activities.store.database import use_session
from activities.store.decision_chain import ChainHead, ChainReport, verify_chain
from activities.store.schema import DecisionRow


@dataclass(frozen=True)
class HeadProblem:
    """A saved head the store no longer matches, and why."""

    tenant_id: str
    seq: int
    why: str

    def sentence(self) -> str:
        return f"tenant {self.tenant_id}, seq {self.seq}: {self.why}"


def head_problems(
    engine: Engine, heads: list[ChainHead], walked: ChainReport | None = None
) -> list[HeadProblem]:
    """Every saved head the store no longer matches (see the module note). `walked`: a
    report of `verify_chain` over every tenant of `heads`, just made, so that the chains
    are not walked twice."""
    problems: list[HeadProblem] = []
    reports = {head.tenant_id: walked for head in heads} if walked is not None else {}
    for head in heads:
        why = _why_not_matched(engine, head, reports)
        if why is not None:
            problems.append(HeadProblem(head.tenant_id, head.seq, why))
    return problems


def _why_not_matched(
    engine: Engine, head: ChainHead, reports: dict[str, ChainReport]
) -> str | None:
    with use_session(engine) as session:
        stored = session.scalars(
            select(DecisionRow.row_hash).where(
                DecisionRow.tenant_id == head.tenant_id, DecisionRow.seq == head.seq
            )
        ).all()
    if not stored:
        return "the saved head's row is gone: rows up to it were deleted"
    if stored != [head.row_hash]:
        return (
            "the row there is not the saved head (its row hash differs): it, or a row "
            "before it, was rewritten and the chain rehashed"
        )
    if head.tenant_id not in reports:
        reports[head.tenant_id] = verify_chain(engine, head.tenant_id)
    for link in reports[head.tenant_id].broken:
        if link.tenant_id == head.tenant_id and link.seq <= head.seq:
            return (
                f"the chain up to the saved head no longer recomputes at seq {link.seq}: "
                + link.why
            )
    return None
