"""Hidden checks, one package per chapter (named like the chapter's package), graded by the
instructor's grader next to the public ones and left out of the student release by path.

They use the same interface as ``autograder/checks/`` (docs/autograder.md) and reuse its
programs wherever they can; they differ in their cases: other shapes, larger graphs, other
values, non-contiguous and float32 arrays, edge cases and ops combined, so that code fitted
to the public cases fails them. Their labels describe the kind of case only.
"""
