"""The benchmarks' own pieces, tested beside them: `tests/` does not import `bench`."""
