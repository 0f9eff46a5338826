#!/bin/sh
# signoff's two database roles and its database (temporal-dev.yml, service postgresql,
# mounted in /docker-entrypoint-initdb.d: the image runs it once, on a new data
# directory, as the superuser). signoff_owner owns the database and runs the migrations
# (`signoff store migrate`), which grant signoff_app, the role the worker, the UI and
# the CLI run as, what the code needs: on the audit (`decisions`) INSERT and SELECT
# only. Neither is a superuser; Temporal keeps the superuser. See
# docs/operating/postgresql.md. tests/deploy/test_postgres_roles.py runs it.
set -eu
: "${POSTGRES_USER:?}" "${SIGNOFF_OWNER_PASSWORD:?}" "${SIGNOFF_APP_PASSWORD:?}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v owner_password="$SIGNOFF_OWNER_PASSWORD" -v app_password="$SIGNOFF_APP_PASSWORD" <<'SQL'
CREATE ROLE signoff_owner LOGIN PASSWORD :'owner_password';
CREATE ROLE signoff_app LOGIN PASSWORD :'app_password';
CREATE DATABASE signoff OWNER signoff_owner;
REVOKE ALL ON DATABASE signoff FROM PUBLIC;
GRANT CONNECT ON DATABASE signoff TO signoff_app;
\connect signoff
ALTER SCHEMA public OWNER TO signoff_owner;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SQL
echo "signoff roles ready: signoff_owner (migrations), signoff_app (runtime)"
