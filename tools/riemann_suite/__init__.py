"""Riemann's test suite as a measure of the API (issue 27): ``python -m tools.riemann_suite``.

``__main__`` gets the pinned snapshot and runs it, ``plugin`` is the pytest plugin each file
runs under, ``scope`` says which tests measure this course and why the others do not. The
mapping package the tests import as ``riemann`` is ``tools/riemann_compat``.
"""
