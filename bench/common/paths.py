"""Where the benchmarks run from and where their results go."""

from __future__ import annotations

from pathlib import Path

# The repository: the benches start their helper processes here, as `python -m bench.…`.
ROOT = Path(__file__).resolve().parents[2]
# The result files the docs' benchmark pages include (docs/benchmarks/*.md).
RESULTS_DIR = ROOT / "bench" / "results"
