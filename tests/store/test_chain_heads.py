"""Saved chain heads against the store, on both backends: what the chain alone misses
(a rewrite rehashed to the end, the newest rows removed), a saved head finds."""

from __future__ import annotations

from sqlalchemy import Engine

from activities.store.chain_heads import head_problems
from activities.store.decision_chain import ChainHead, verify_chain
from activities.store.decisions import append_decision
from tests.store.chain_rewrite import delete_from, edit_row, rewrite_and_rehash
from tests.store.test_decision_chain import event


def saved_heads(store: Engine, count: int = 4) -> list[ChainHead]:
    for sequence in range(count):
        append_decision(store, event(sequence))
    append_decision(store, event(0, run_id="run-globex-1", tenant_id="globex"))
    report = verify_chain(store)
    assert report.intact
    return report.chain_heads()


def test_heads_hold_while_the_chain_only_grows(store: Engine) -> None:
    heads = saved_heads(store)
    assert [(head.tenant_id, head.seq) for head in heads] == [("demo", 4), ("globex", 1)]
    append_decision(store, event(4))  # appended after the heads were saved
    assert head_problems(store, heads) == []


def test_a_rehashed_chain_passes_alone_and_fails_the_saved_head(store: Engine) -> None:
    heads = saved_heads(store)
    rewrite_and_rehash(store, "demo", 2, "refund was fine")
    assert verify_chain(store).intact  # the rewrite is invisible to the chain alone
    [problem] = head_problems(store, heads)
    assert (problem.tenant_id, problem.seq) == ("demo", 4)
    assert "rewritten and the chain rehashed" in problem.why


def test_rows_removed_up_to_a_head_fail_it(store: Engine) -> None:
    heads = saved_heads(store)
    delete_from(store, "demo", 3)
    assert verify_chain(store).intact  # a shorter chain, still linked
    [problem] = head_problems(store, heads)
    assert (problem.tenant_id, problem.seq) == ("demo", 4) and "gone" in problem.why


def test_a_chain_that_no_longer_recomputes_below_the_head_fails_it(store: Engine) -> None:
    heads = saved_heads(store)
    # Row 2 rewritten without rehashing: the head's own row is untouched.
    edit_row(store, "demo", 2, "edited")
    [problem] = head_problems(store, heads)
    assert (problem.tenant_id, problem.seq) == ("demo", 4)
    assert "no longer recomputes at seq 2" in problem.why


def test_a_broken_chain_of_one_tenant_fails_only_its_own_heads(store: Engine) -> None:
    heads = saved_heads(store)
    edit_row(store, "globex", 1, "edited")
    walked = verify_chain(store)  # every tenant, as `audit verify` walks them
    for report in (walked, None):
        [problem] = head_problems(store, heads, report)
        assert (problem.tenant_id, problem.seq) == ("globex", 1)
