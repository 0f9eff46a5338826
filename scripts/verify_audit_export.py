"""Check an export of signoff's audit: python3 verify_audit_export.py EXPORT [ROW_HASH]

EXPORT: the reviewer UI's CSV (/audit.csv, no filter) or JSON (/api/audit: one page,
or a list of the items of every page). ROW_HASH: a head saved earlier; the chain must
still hold it. Exit 0 when the chain holds, 1 naming the first row that does not.
Python 3.9+, standard library only.
"""

import csv
import hashlib
import json
import sys

GENESIS = "0" * 64


def load(path):
    if path.endswith(".csv"):
        with open(path, newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return data["items"] if isinstance(data, dict) else data


def problems(rows, saved_head):
    rows = sorted(rows, key=lambda row: int(row["seq"]))
    prev, tenants = GENESIS, set()
    for expected, row in enumerate(rows, start=1):
        fields = json.loads(row["hashed_fields"])
        tenants.add(fields["tenant_id"])
        if int(row["seq"]) != expected or fields["seq"] != expected:
            return f"seq {expected} is missing: export the whole log, unfiltered"
        if row["prev_hash"] != prev:
            return f"seq {expected}: prev_hash is not the row_hash of the row before"
        digest = hashlib.sha256((prev + "\n" + row["hashed_fields"]).encode("utf-8"))
        if digest.hexdigest() != row["row_hash"]:
            return f"seq {expected}: the row's fields do not match its row_hash"
        prev = row["row_hash"]
    if len(tenants) > 1:
        return f"the export mixes tenants {sorted(tenants)}: one chain per tenant"
    if saved_head and saved_head not in {row["row_hash"] for row in rows}:
        return f"the saved head {saved_head} is not in the chain"
    sys.stdout.write(f"chain intact: {len(rows)} rows; head seq {len(rows)}, row_hash {prev}\n")
    return None


if __name__ == "__main__":
    problem = problems(load(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None)
    if problem:
        sys.stderr.write(f"chain broken: {problem}\n")
        sys.exit(1)
