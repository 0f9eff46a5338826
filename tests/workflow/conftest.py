"""Notes on the workflow tests (their fixtures are in tests/conftest.py).

Most tests share the session's time-skipping server. A test that lets a run end while
one of its activities is still running takes its own server: the test server keeps
that activity's time-skipping lock once the workflow has completed
(https://github.com/temporalio/sdk-java/issues/1138), and every later test that needs
time to skip would stall on the shared one.
"""
