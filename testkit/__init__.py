"""What the tests and the benchmarks both build on, and neither owns.

The tests do not import `bench`, and `bench` does not import the tests (import-linter,
pyproject.toml): a helper both need lives here. Not part of the product: the package
is not installed (pyproject's packages) and no layer of the product imports it.
"""
