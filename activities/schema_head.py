"""The store's schema revision this code runs on: the newest file in
`activities/store/migrations/versions/`.

Its own module, outside the `activities.store` package: importing anything of that
package loads SQLAlchemy and the table declarations (its `__init__`), and the driver-only
read of the pending page (`activities/waiting_read.py`) checks the revision without
either. tests/store/test_migrations.py holds it to Alembic's own head.
"""

from __future__ import annotations

HEAD_REVISION = "0014_insight_days"
