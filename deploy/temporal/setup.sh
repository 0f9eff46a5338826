#!/bin/sh
# One-shot (temporal-dev.yml, service temporal-setup), once the server answers: creates
# the namespace, then registers signoff's search attributes, the ones
# signoff/wiring/search_attributes.py declares (tests/deploy/test_compose.py checks that
# the two lists agree). What exists already is left alone, so `up` can be repeated.
set -eu
: "${TEMPORAL_ADDRESS:?}" "${TEMPORAL_NAMESPACE:?}"
ATTEMPTS=60

retry() {
    attempt=1
    until "$@"; do
        [ "$attempt" -ge "$ATTEMPTS" ] && { echo "gave up: $*" >&2; exit 1; }
        attempt=$((attempt + 1))
        sleep 2
    done
}

namespace() {
    temporal operator namespace describe -n "$TEMPORAL_NAMESPACE" >/dev/null 2>&1 \
        || temporal operator namespace create -n "$TEMPORAL_NAMESPACE"
}

register() {  # NAME TYPE
    temporal operator search-attribute list -n "$TEMPORAL_NAMESPACE" | grep -qw "$1" \
        || temporal operator search-attribute create -n "$TEMPORAL_NAMESPACE" \
            --name "$1" --type "$2"
}

retry temporal operator cluster health
retry namespace
# A namespace just created takes a moment to reach every service: retried.
retry register SignoffStatus Keyword
retry register SignoffTenant Keyword
retry register SignoffPending KeywordList
echo "namespace $TEMPORAL_NAMESPACE and signoff's search attributes ready"
