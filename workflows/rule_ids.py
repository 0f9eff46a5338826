"""A standing rule's id: `SR-` and ten upper-case hex digits.

Its own module, pure and without imports, so that the store that makes the ids
(`activities/store/standing_rules.py`) and the CLI that checks one before asking
anything (`signoff rules revoke`) agree on the one format.
"""

from __future__ import annotations

import re

RULE_ID_PREFIX = "SR-"
RULE_ID_HEX = 10
RULE_ID = re.compile(rf"{RULE_ID_PREFIX}[0-9A-F]{{{RULE_ID_HEX}}}")
