"""The tool description linter: what a model is told about a tool must let it choose well.

A model picks a tool from its description alone, so a description is refused (a load
error, never a warning) unless it passes these four plain rules:

1. **At least three sentences.** A sentence ends with '.', '!' or '?' followed by a
   space or the end of the text.
2. **When to use it**: "use it", "use this" or "use when", not right after "not",
   "n't" or "never".
3. **When not to use it**: "do not use", "don't use", "never use" or "not for".
4. **What it returns**: the word "return" or "returns" somewhere.

Matching ignores case. The rules are words on purpose: a reviewer of a new tool can see
at a glance why a description passes, and a test holds every built-in tool to them.
"""

from __future__ import annotations

import re

MIN_SENTENCES = 3
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
WHEN_TO_USE = re.compile(r"(?<!not )(?<!n't )(?<!never )\buse (it|this|when)\b", re.IGNORECASE)
WHEN_NOT_TO_USE = re.compile(r"\b(do not use|don't use|never use|not for)\b", re.IGNORECASE)
RETURNS = re.compile(r"\breturns?\b", re.IGNORECASE)


def sentences(description: str) -> list[str]:
    return [part for part in SENTENCE_END.split(description.strip()) if part.strip()]


def description_problems(description: str) -> list[str]:
    """Why `description` fails the linter, one reason a line; empty when it passes."""
    found = sentences(description)
    problems = []
    if len(found) < MIN_SENTENCES:
        problems.append(
            f"it has {len(found)} sentence(s); a description needs at least {MIN_SENTENCES}: "
            "what the tool does, when to use it, when not to"
        )
    if not WHEN_TO_USE.search(description):
        problems.append(
            "it does not say when to use the tool: add a sentence with 'Use it when ...'"
        )
    if not WHEN_NOT_TO_USE.search(description):
        problems.append(
            "it does not say when not to use the tool: add a sentence with 'Do not use it ...'"
        )
    if not RETURNS.search(description):
        problems.append("it does not say what the tool returns: add 'It returns ...'")
    return problems
