"""The key a reviewer's name is unique under, and looked up by.

`Alice`, `alice` and `ａｌｉｃｅ` (fullwidth) must be one reviewer: otherwise a second
account that looks like the first can be created, and a sign-in name typed another way
finds nobody. The key is NFKC, then case folding, then NFKC again (case folding can
undo a normalization), the usual recipe for case-insensitive identifiers (Unicode
UAX #31, `NFKC_Casefold`). The name as given stays the reviewer's id and display.
"""

from __future__ import annotations

import unicodedata


def reviewer_name_key(name: str) -> str:
    folded = unicodedata.normalize("NFKC", name.strip()).casefold()
    return unicodedata.normalize("NFKC", folded)
