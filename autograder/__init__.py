"""Sparrow's autograder: task tables, check programs, the runner and the reports.

``python -m autograder check 1`` checks chapter 1 (what ``make chapter-1`` runs);
``python -m autograder progress`` prints the course map. The course repository's autograder
guide explains the design: check programs run in a child process and return data; this
process, which the code under test cannot reach, computes every verdict.
"""
