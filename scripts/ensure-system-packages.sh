#!/usr/bin/env bash
# Installs the Debian packages the test suite drives for real, when absent:
# PostgreSQL's server binaries (the store tests start their own throwaway cluster) and
# Chromium (the reviewer UI's browser tests drive /usr/bin/chromium; no browser download);
# docker-compose (tests/deploy validate temporal-dev.yml with `docker-compose config`,
# offline: no Docker engine is used or started).
# `make test` calls this, so a fresh machine needs nothing installed by hand.
# A policy-rc.d that answers 101 keeps the package scripts from starting the system
# service: the tests start what they need themselves.
set -euo pipefail

missing=()
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || missing+=(postgresql)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
command -v faketime >/dev/null 2>&1 || missing+=(faketime)
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "Missing Debian packages: ${missing[*]}. Install them (sudo apt-get install ${missing[*]})." >&2
    exit 1
fi
added_policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    added_policy=yes
fi
trap '[ -n "$added_policy" ] && rm -f /usr/sbin/policy-rc.d' EXIT
echo "Installing ${missing[*]} (Debian packages used by the tests) ..."
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
