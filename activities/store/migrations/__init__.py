"""The store's schema migrations (Alembic), shipped inside the package.

`activities/store/schema_migrations.py` runs them in code: no alembic.ini is needed at
run time, so an installed `signoff` migrates its database without the repository.
`baseline.py` is the schema of the first revision, frozen; `versions/` holds one file
per revision, each naming the one before it (`down_revision`).
"""
