"""The review cards' titles of the tools a command lists, from this host's profiles.

Design note. A support person reads a tool by the title its review card gives it ("Send
a reply to the customer"), as the decision page and the notices name it; `pending` and
`status` print it with the tool's name beside it, which ops grep for. The titles are in
the profiles (SIGNOFF_PROFILES, or the built-in file), which take a fifth of a second to
read and validate, and which import the team's tool modules: `pending` lists from the
store alone in about 0.3 s (commands_pending.py). So the profiles are read only when a
listed tool is not the refund, which names itself. A profile file that does not load
leaves the names: the listing is still right, and `signoff profiles check` says what is
wrong with the file.
"""

from __future__ import annotations

from collections.abc import Iterable

from signoff.config.settings import Settings
from workflows.tool_catalog import REFUND


def card_titles(current: Settings, tools: Iterable[str]) -> dict[str, str]:
    """Each of `tools` whose card gives it a title, with that title."""
    asked = {tool for tool in tools if tool != REFUND.name}
    if not asked:
        return {}
    from signoff.config.profiles import ProfileError, load_profiles
    from workflows.effect_requirements import card_title

    try:
        profiles = load_profiles(current).profiles
    except ProfileError:
        return {}
    titles = {tool: card_title(profiles, tool) for tool in sorted(asked)}
    return {tool: title for tool, title in titles.items() if title is not None}
