"""The tool description linter: three sentences, when to use, when not to, what returns."""

from __future__ import annotations

import pytest

from workflows.tool_catalog import CATALOG
from workflows.tool_description_lint import description_problems

GOOD = (
    "Looks up the weather for the run's city. Use it when the customer asks whether a "
    "delivery may be late because of a storm. Do not use it for anything else. It "
    "returns JSON with the forecast."
)


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_every_built_in_tool_passes(name: str) -> None:
    assert description_problems(CATALOG[name].description) == []


def test_a_good_description_passes() -> None:
    assert description_problems(GOOD) == []


def test_two_sentences_are_too_few() -> None:
    problems = description_problems(
        "Use it when asked; do not use it otherwise. It returns the weather."
    )
    assert problems == [
        "it has 2 sentence(s); a description needs at least 3: what the tool does, "
        "when to use it, when not to"
    ]


def test_without_when_to_use() -> None:
    text = GOOD.replace("Use it when the customer asks", "It helps when the customer asks")
    assert description_problems(text) == [
        "it does not say when to use the tool: add a sentence with 'Use it when ...'"
    ]


def test_a_negation_alone_does_not_say_when_to_use() -> None:
    text = GOOD.replace("Use it when", "Do not use it when")
    assert any("when to use" in problem for problem in description_problems(text))


def test_without_when_not_to_use() -> None:
    text = GOOD.replace("Do not use it for anything else.", "It is quick.")
    assert description_problems(text) == [
        "it does not say when not to use the tool: add a sentence with 'Do not use it ...'"
    ]


def test_without_what_it_returns() -> None:
    text = GOOD.replace("It returns JSON with the forecast.", "It is fast.")
    assert description_problems(text) == [
        "it does not say what the tool returns: add 'It returns ...'"
    ]


def test_an_empty_description_fails_every_rule() -> None:
    assert len(description_problems("")) == 4
