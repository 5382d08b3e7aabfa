"""A name-mapping package: Riemann's test suite, run against the last chapter.

Riemann (``xiangfei2017/Riemann``) is a NumPy framework with PyTorch's API; its tests
import ``riemann``, ``riemann.nn``, ``riemann.optim``, ``riemann.autograd.functional``, …
The package ``riemann`` in this folder answers those imports with the last chapter's package
(the last of ``autograder.course.CHAPTERS``: ``solutions.ch09_attention``, or
``chapters.ch09_attention`` with ``SPARROW_IMPL=chapters``):
re-exports and renames only, no operation is implemented here. A test that needs something
the framework lacks fails, and is listed: that is the measurement (``python -m
tools.riemann_suite``, ``docs/riemann.md``). A name the framework lacks still imports, as a
placeholder that raises ``MissingName`` (naming it) when used: so one absent name fails the
tests that use it, not every test of the file that imports it.

Put this folder (not ``tools/``) on ``sys.path`` to make ``import riemann`` find it.
"""
