#!/bin/sh
# One-shot (temporal-dev.yml, service temporal-schema): creates Temporal's two databases
# on the stack's PostgreSQL and brings their schemas up to this server version.
# `create` fails on a database that exists, so the base schema is laid only on one just
# created; `update-schema` applies only the versions a database lacks. Running it again
# on a set-up stack changes nothing, so `up` can be repeated.
set -eu
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
SCHEMA=/etc/temporal/schema/postgresql/v12

prepare() {  # DATABASE VERSIONED_SCHEMA_DIR
    tool="temporal-sql-tool --plugin postgres12 --ep $POSTGRES_SEEDS -u $POSTGRES_USER"
    tool="$tool -p ${DB_PORT:-5432} --db $1"
    if $tool create; then
        $tool setup-schema -v 0.0
    else
        echo "database $1 exists: bringing it up to date"
    fi
    $tool update-schema -d "$2"
}

prepare temporal "$SCHEMA/temporal/versioned"
prepare temporal_visibility "$SCHEMA/visibility/versioned"
echo "Temporal schema ready"
